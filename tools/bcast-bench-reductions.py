#!/usr/bin/env python3
"""Reductions side by side in one run (issue 32's table): bcast, NumPy and
numexpr (its `sum` as the last node) on f32 [4096, 4096], medians of
`--repeat` runs, with the memory bound of each case's bytes at the read
bandwidth measured here (np.sum's own pass over the same bytes is not a
bound, so the bound is the bytes at the speed of a plain f32 add's traffic,
three arrays, as issue 32 states it). One thread unless --threads.

usage: PYTHONPATH=build/python /usr/bin/python3 tools/bcast-bench-reductions.py [--repeat N] [--threads N]
"""
import argparse
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("NUMEXPR_NUM_THREADS", "1")
import numpy as np  # noqa: E402

import bcast  # noqa: E402
from bench_timing import median_ms  # noqa: E402

try:
    import numexpr as ne  # noqa: E402
except ImportError:
    ne = None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    bcast.set_num_threads(args.threads)
    if ne:
        ne.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4096, 4096)).astype(np.float32)
    y = rng.standard_normal((4096, 4096)).astype(np.float32)
    out = np.empty_like(x)
    add_ms = median_ms(lambda: np.add(x, y, out=out), args.repeat)
    gb_per_s = 3 * x.nbytes / add_ms / 1e6  # the add's traffic: two reads and a write
    cases = [
        ("sum(x)", x.nbytes, lambda: bcast.sum(x), lambda: np.sum(x), "sum(x)"),
        ("sum(x, axis=0)", x.nbytes, lambda: bcast.sum(x, axis=0), lambda: np.sum(x, axis=0), "sum(x, axis=0)"),
        ("sum(x, axis=1)", x.nbytes, lambda: bcast.sum(x, axis=1), lambda: np.sum(x, axis=1), "sum(x, axis=1)"),
        ("max(x, axis=1)", x.nbytes, lambda: bcast.amax(x, axis=1), lambda: np.max(x, axis=1), None),
        ("mean(x, axis=0)", x.nbytes, lambda: bcast.mean(x, axis=0), lambda: np.mean(x, axis=0), None),
    ]
    print(f"threads {args.threads}; f32 [4096, 4096]; an f32 add moves {gb_per_s:.1f} GB/s here; ms, medians of {args.repeat}")
    print("| case | memory bound | NumPy | numexpr | bcast | bcast / NumPy |")
    print("|---|---|---|---|---|---|")
    for name, nbytes, ours, numpy_call, ne_text in cases:
        bound = nbytes / gb_per_s / 1e6
        t_numpy = median_ms(numpy_call, args.repeat)
        t_ne = median_ms(lambda: ne.evaluate(ne_text, local_dict={"x": x}), args.repeat) if ne and ne_text else None
        t_ours = median_ms(ours, args.repeat)
        ne_cell = f"{t_ne:.2f}" if t_ne is not None else "-"
        print(f"| `{name}` | {bound:.2f} | {t_numpy:.2f} | {ne_cell} | {t_ours:.2f} | {t_numpy / t_ours:.2f}x |")


if __name__ == "__main__":
    main()
