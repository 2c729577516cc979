#!/usr/bin/env python3
"""First-call latency of new processes (NOTE: [Tiers]), as docs/performance.md
reports it: bcast-run's first_call_ns for one op whose kernel is in no cache
(the disk cache off) or on disk, in async and sync JIT mode. With --before, a
second bcast-run (an older build) is measured in the same rounds, interleaved,
so that both see the same machine. Prints a markdown table of medians.

  tools/bcast-first-call.py build/tools/bcast-run [--before OLD/bcast-run] [--rounds 9]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

CALL = ["add", "f32[64,1,7]", "f32[1,33,7]", "--json"]


def first_call_us(run, cache_dir, mode):
    env = dict(os.environ, BCAST_CACHE_DIR=cache_dir, BCAST_JIT_MODE=mode)
    out = subprocess.run([run] + CALL, capture_output=True, text=True, env=env, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])["first_call_ns"] / 1e3


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("run")
    parser.add_argument("--before")
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    builds = [("after", args.run)] + ([("before", args.before)] if args.before else [])
    situations = [("new process, disk cache off", "off"), ("new process, kernel on disk", "disk")]
    samples = {}
    with tempfile.TemporaryDirectory() as root:
        folders = {}
        for name, run in builds:
            folders[name] = os.path.join(root, name)
            first_call_us(run, folders[name], "sync")  # the kernel on disk
        for _ in range(args.rounds):
            for name, run in builds:
                for label, where in situations:
                    for mode in ("async", "sync"):
                        if name == "before" and mode == "async":
                            continue  # the older build has one mode: it compiles and waits
                        cache = "off" if where == "off" else folders[name]
                        samples.setdefault((name, label, mode), []).append(first_call_us(run, cache, mode))
    print("| situation | " + " | ".join(f"{n} {m}" for n, _ in builds for m in (("async", "sync") if n == "after"
                                                                                     else ("",))) + " |")
    print("|---|" + "---:|" * (3 if args.before else 2))
    for label, _ in situations:
        cells = []
        for name, _ in builds:
            for mode in (("async", "sync") if name == "after" else ("sync",)):
                cells.append(f"{statistics.median(samples[(name, label, mode)]):.0f} us")
        print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
