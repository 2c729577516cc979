#!/usr/bin/env python3
"""Reductions side by side in one run (issue 32's speed table): bcast through
Python, NumPy op by op, numexpr (its `sum` as the last node) and PyTorch where
installed, medians of `--repeat` runs; then, in the same run, bcast-bench
--reductions for the bound (the unique bytes at a plain loop's bandwidth: a
read-only pass for a reduction, the STREAM add where an array is written),
Eigen's Tensor reductions and oneDNN's primitives, on the same shapes. One
thread unless --threads.

usage: PYTHONPATH=build/python /usr/bin/python3 tools/bcast-bench-reductions.py [--repeat N] [--threads N]
           [--bench build/tools/bcast-bench]
"""
import argparse
import json
import os
import subprocess
import sys

THREADS = "1"
for i, arg in enumerate(sys.argv):
    if arg == "--threads" and i + 1 < len(sys.argv):
        THREADS = sys.argv[i + 1]
for name in ("OMP_NUM_THREADS", "NUMEXPR_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(name, THREADS)
import numpy as np  # noqa: E402

import bcast  # noqa: E402
from bench_timing import median_ms  # noqa: E402

try:
    import numexpr as ne  # noqa: E402
except ImportError:
    ne = None
try:
    import torch  # noqa: E402
except ImportError:
    torch = None

SOFTMAX = "exp(r - amax(r, axis=-1, keepdims=True)) / sum(exp(r - amax(r, axis=-1, keepdims=True)), axis=-1, keepdims=True)"
LAYER_NORM = ("(r - mean(r, axis=-1, keepdims=True)) / sqrt(mean((r - mean(r, axis=-1, keepdims=True))**2, axis=-1, "
              "keepdims=True) + 1e-5) * g + b")
IMAGE = "(f32(img) - mean(f32(img), axis=(0, 1), keepdims=True)) / std(f32(img), axis=(0, 1), keepdims=True)"


def numpy_softmax(r):
    e = np.exp(r - r.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def numpy_layer_norm(r, g, b):
    m = r.mean(axis=-1, keepdims=True)
    c = r - m
    return c / np.sqrt((c * c).mean(axis=-1, keepdims=True) + np.float32(1e-5)) * g + b


def numpy_image(img):
    v = img.astype(np.float32)
    return (v - v.mean(axis=(0, 1), keepdims=True)) / v.std(axis=(0, 1), keepdims=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--bench", default=os.path.join("build", "tools", "bcast-bench"))
    args = parser.parse_args()
    bcast.set_num_threads(args.threads)
    if ne:
        ne.set_num_threads(args.threads)
    if torch:
        torch.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4096, 4096)).astype(np.float32)
    y = rng.standard_normal((4096, 4096)).astype(np.float32)
    r = rng.standard_normal((4096, 1024)).astype(np.float32)
    s = rng.standard_normal((4096, 1024)).astype(np.float32)
    g = rng.standard_normal(1024).astype(np.float32)
    b = rng.standard_normal(1024).astype(np.float32)
    img = rng.integers(0, 256, (1080, 1920, 3), dtype=np.uint8)
    t = {k: torch.from_numpy(v) for k, v in dict(x=x, y=y, r=r, s=s, g=g, b=b).items()} if torch else {}
    # (name as bcast-bench prints it, bcast, NumPy, numexpr text, PyTorch)
    cases = [
        ("sum(x)", lambda: bcast.sum(x), lambda: np.sum(x), "sum(x)", lambda: t["x"].sum()),
        ("sum(x, axis=0)", lambda: bcast.sum(x, axis=0), lambda: np.sum(x, axis=0), "sum(x, axis=0)",
         lambda: t["x"].sum(0)),
        ("sum(x, axis=1)", lambda: bcast.sum(x, axis=1), lambda: np.sum(x, axis=1), "sum(x, axis=1)",
         lambda: t["x"].sum(1)),
        ("sum(x*y)", lambda: bcast.evaluate("sum(x*y)", x=x, y=y), lambda: np.sum(x * y), "sum(x*y)",
         lambda: (t["x"] * t["y"]).sum()),
        ("sum((r-s)**2, axis=-1)", lambda: bcast.evaluate("sum((r-s)**2, axis=-1)", r=r, s=s),
         lambda: np.sum((r - s) ** 2, axis=-1), "sum((r-s)**2, axis=1)", lambda: ((t["r"] - t["s"]) ** 2).sum(-1)),
        ("softmax(r)", lambda: bcast.evaluate(SOFTMAX, r=r), lambda: numpy_softmax(r), None,
         lambda: torch.softmax(t["r"], -1)),
        ("layer_norm(r)", lambda: bcast.evaluate(LAYER_NORM, r=r, g=g, b=b), lambda: numpy_layer_norm(r, g, b), None,
         lambda: torch.nn.functional.layer_norm(t["r"], (1024,), t["g"], t["b"], 1e-5)),
        ("image mean/std, normalise", lambda: bcast.evaluate(IMAGE, img=img), lambda: numpy_image(img), None, None),
    ]
    peers = {}
    if os.path.exists(args.bench):
        run = subprocess.run([args.bench, "--reductions", "all", "--json", "--repeat", str(args.repeat), "--threads",
                              str(args.threads)], capture_output=True, text=True, check=True)
        peers = {row["case"]: row for row in json.loads(run.stdout)}
    local = {"x": x, "y": y, "r": r, "s": s}
    print(f"threads {args.threads}; ms, medians of {args.repeat}; bound, Eigen and oneDNN from {args.bench}, "
          f"in the same run")
    print("| case | bound | NumPy | numexpr | PyTorch | Eigen | oneDNN | bcast | bcast / NumPy | of bound |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, ours, numpy_call, ne_text, torch_call in cases:
        t_numpy = median_ms(numpy_call, args.repeat)
        t_ne = median_ms(lambda: ne.evaluate(ne_text, local_dict=local), args.repeat) if ne and ne_text else None
        t_torch = median_ms(torch_call, args.repeat) if torch and torch_call else None
        t_ours = median_ms(ours, args.repeat)
        p = peers.get(name, {})
        at = "1t" if args.threads == 1 else "nt"
        bound = p.get(f"bound_{at}_ms")

        def cell(v):
            return f"{v:.2f}" if v else "-"
        print(f"| `{name}` | {cell(bound)} | {t_numpy:.2f} | {cell(t_ne)} | {cell(t_torch)} | "
              f"{cell(p.get(f'eigen_{at}_ms'))} | {cell(p.get(f'onednn_{at}_ms'))} | {t_ours:.2f} | "
              f"{t_numpy / t_ours:.2f}x | {cell(bound / t_ours if bound else None)} |")


if __name__ == "__main__":
    main()
