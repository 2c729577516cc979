#!/usr/bin/env python3
"""Issue 28's loop with an RSS bound: a process that evaluates a new 10-op
expression structure on 8-element f32 arrays at every call, 40,000 of them,
in the default JIT mode (async) with BCAST_CACHE_CAPACITY=1024, grows its RSS
by at most 64 MiB past a process whose JIT is set up; the compile queue, the pending and resident entries and
the per-key counters stay within the bounds of docs/cache.md (NOTE: [Queue
bound], NOTE: [Bounded cache]). NumPy is the oracle of every result. Before
the bounds the same loop went 82 -> 301 MiB, with 39,851 compiles queued and
79,701 resident entries (docs/reliability.md).

An RSS bound, not a time limit: the loop takes what it takes.
"""
import os
import sys

import numpy as np

import bcast

STRUCTURES = 40_000
RSS_GROWTH_MIB = 64
OPS = ["+", "-", "*", "/"]
CAPACITY, QUEUE, RETIRED = 1024, 256, 1024  # the defaults (docs/settings.md), jit::kRetiredKeyStats


def rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def structure(i: int) -> tuple[str, list[str]]:
    """Structure i (distinct for i < 4**10): x, then 10 ops with y and x in turn."""
    text, ops = "x", []
    for k in range(10):
        op = OPS[(i >> (2 * k)) & 3]
        ops.append(op)
        text = f"({text} {op} {'y' if k % 2 == 0 else 'x'})"
    return text, ops


def numpy_chain(ops: list[str], x: np.ndarray, y: np.ndarray) -> np.ndarray:
    v = x
    for k, op in enumerate(ops):
        w = y if k % 2 == 0 else x
        v = v + w if op == "+" else v - w if op == "-" else v * w if op == "*" else v / w
    return v


def check_bounds(s: dict, entries: list[dict]) -> list[str]:
    pending_bound = 2 * (QUEUE + 1) + 2  # two slots a job, two for the calling thread
    retired = sum(1 for e in entries if not e["resident"])  # from one listing: the cache moves on meanwhile
    problems = []
    for what, value, bound in [("queued", s["queued"], QUEUE + 1), ("pending", s["pending"], pending_bound),
                               ("resident", s["resident"], CAPACITY + pending_bound),
                               ("entries of keys not resident", retired, RETIRED)]:
        if value > bound:
            problems.append(f"{what} {value} > {bound}")
    return problems


def main() -> int:
    if bcast.kernel_cache_stats()["jit_mode"] != "async" or bcast.kernel_cache_capacity() != CAPACITY:
        print(f"needs BCAST_JIT_MODE=async and BCAST_CACHE_CAPACITY={CAPACITY} (ctest sets them)")
        return 1
    x = np.arange(1, 9, dtype=np.float32)
    y = np.arange(2, 10, dtype=np.float32)
    bcast.evaluate("x + y", x=x, y=y)
    bcast.wait_for_compiles()  # the baseline: LLVM set up (~15 MiB), its compile thread started
    start = rss_mib()
    wrong, problems = 0, []
    for i in range(STRUCTURES):
        text, ops = structure(i)
        got = bcast.evaluate(text, x=x, y=y)
        want = numpy_chain(ops, x, y)
        if not np.array_equal(got, want, equal_nan=True):
            wrong += 1
            if wrong <= 3:
                print(f"{text}: got {got}, NumPy {want}")
        if i % 5000 == 4999:
            s = bcast.kernel_cache_stats()
            entries = bcast.kernel_cache_entries()
            print(f"{i + 1}: rss {rss_mib():.1f} MiB, queued {s['queued']}, pending {s['pending']}, "
                  f"resident {s['resident']}, entries {len(entries)}, compiles {s['compiles']}, "
                  f"dropped {s['dropped']}, refused {s['refused']}", flush=True)
            problems += check_bounds(s, entries)
    end = rss_mib()
    print(f"{STRUCTURES} structures: rss {start:.1f} -> {end:.1f} MiB ({end - start:+.1f}; bound +{RSS_GROWTH_MIB})")
    if end - start > RSS_GROWTH_MIB:
        problems.append(f"rss grew {end - start:.1f} MiB > {RSS_GROWTH_MIB}")
    if wrong:
        problems.append(f"{wrong} results differ from NumPy's")
    for p in problems:
        print("FAILED:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
