#!/usr/bin/env python3
"""What a call through the Python module costs, measured in one run (docs/python.md, "Speed"):

  1. the overhead of a call on [16] + [16] f32 against NumPy's:
       bcast.add(a, b)                against np.add(a, b)
       a prepared call with out=      against np.add(a, b, out=c)
     each the best of --rounds rounds of 100,000 calls, the forms interleaved;
  2. bcast-bench's large cases through the module, on one thread, against
     bcast-bench's own C++ figure (bcast_1t_ms) from a run made just before:
     a prepared call with out= (as bcast-bench times it) and a plain call
     (which also allocates and first-touches its result).

usage: PYTHONPATH=build/python tools/bcast-bench-python.py [--bench build/tools/bcast-bench]
           [--cases 1,2,3,4,9,15] [--repeat 7] [--rounds 7] [--json FILE]
"""
import argparse
import json
import os
import subprocess
import sys
import timeit

import numpy as np

import bcast
from bench_timing import median_ms

NUMPY_DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i8": np.int8, "u8": np.uint8}


def overhead(rounds):
    a, b = np.ones(16, np.float32), np.ones(16, np.float32)
    c = np.empty(16, np.float32)
    bcast.add(a, b)
    bcast.wait_for_compiles()
    p = bcast.prepare("add", a, b)
    forms = {"np.add(a, b)": lambda: np.add(a, b), "bcast.add(a, b)": lambda: bcast.add(a, b),
             "np.add(a, b, out=c)": lambda: np.add(a, b, out=c), "p(a, b, out=c)": lambda: p(a, b, out=c)}
    best = {name: float("inf") for name in forms}
    for _ in range(rounds):
        for name, f in forms.items():
            best[name] = min(best[name], timeit.timeit(f, number=100_000) / 100_000 * 1e9)
    return best


def operand(shape, dtype, transposed, rng):
    data = rng.integers(0, 64, size=shape).astype(NUMPY_DTYPES[dtype])
    if transposed:  # bcast-bench's: a contiguous tensor with its last two dims swapped
        swapped = list(shape[:-2]) + [shape[-1], shape[-2]]
        data = np.ascontiguousarray(rng.integers(0, 64, size=swapped).astype(NUMPY_DTYPES[dtype])).swapaxes(-1, -2)
    return data


def large_cases(bench, cases, repeat):
    run = subprocess.run([bench, "--json", "--cases", cases, "--repeat", str(repeat), "--chains", "none"],
                         capture_output=True, text=True, check=True)
    rows = json.loads(run.stdout)
    bcast.set_num_threads(1)
    rng = np.random.default_rng(7)
    results = []
    for row in rows:
        a = operand(row["a"], row["dtype"], row["a_transposed"], rng)
        b = operand(row["b"], row["dtype"], False, rng)
        p = bcast.prepare(row["op"], a, b)
        out = np.empty(p.out_shape, p.out_dtype)
        f = getattr(bcast, row["op"])
        prepared = median_ms(lambda: p(a, b, out=out), repeat)
        plain = median_ms(lambda: f(a, b), repeat)
        results.append({"case": row["case"], "cxx_ms": row["bcast_1t_ms"], "python_prepared_ms": prepared,
                        "python_plain_ms": plain, "prepared_vs_cxx": prepared / row["bcast_1t_ms"],
                        "plain_vs_cxx": plain / row["bcast_1t_ms"]})
    return results


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", default=os.path.join(here, "..", "build", "tools", "bcast-bench"))
    parser.add_argument("--cases", default="1,2,3,4,9,15")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()

    small = overhead(args.rounds)
    print("[16] + [16] f32, ns a call (best of rounds of 100,000):")
    for name, ns in small.items():
        print(f"  {name:22s} {ns:7.0f}")
    plain_ratio = small["bcast.add(a, b)"] / small["np.add(a, b)"]
    prepared_ratio = small["p(a, b, out=c)"] / small["np.add(a, b, out=c)"]
    print(f"  bcast.add / np.add = {plain_ratio:.2f} (target <= 1); "
          f"prepared with out= / np.add with out= = {prepared_ratio:.2f} (target <= 0.5)")

    large = large_cases(args.bench, args.cases, args.repeat)
    print("large cases, one thread, ms (median): C++ bcast-bench, module prepared with out=, module plain")
    for r in large:
        print(f"  {r['case']:24s} {r['cxx_ms']:8.2f} {r['python_prepared_ms']:8.2f} ({r['prepared_vs_cxx']:.3f}x) "
              f"{r['python_plain_ms']:8.2f} ({r['plain_vs_cxx']:.3f}x)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"small_ns": small, "plain_vs_numpy": plain_ratio, "prepared_vs_numpy_out": prepared_ratio,
                       "large": large}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
