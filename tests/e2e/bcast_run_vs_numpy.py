#!/usr/bin/env python3
"""End-to-end test: bcast-run on random .npy inputs (C and Fortran order, index
expressions) must give NumPy's results bit for bit, and must refuse bad input
with the documented exit status, leaving no output file behind.

usage: bcast_run_vs_numpy.py PATH/TO/bcast-run
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

from numpy_pow import pow_ulps, svml_pow, ulp_distance

BCAST_RUN = sys.argv[1]
RNG = np.random.default_rng(2026)

DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i8": np.int8, "i16": np.int16,
          "i32": np.int32, "i64": np.int64, "u8": np.uint8, "bool": np.bool_}
FLOATS = {"f16", "f32", "f64"}
INTS = {"i8", "i16", "i32", "i64", "u8"}

# op -> (NumPy function, dtypes it is defined on in bcast)
OPS = {
    "add": (np.add, FLOATS | INTS | {"bool"}),
    "sub": (np.subtract, FLOATS | INTS),
    "mul": (np.multiply, FLOATS | INTS | {"bool"}),
    "div": (None, FLOATS | INTS),  # true_divide on floats, floor_divide on integers
    "max": (np.maximum, FLOATS | INTS | {"bool"}),
    "min": (np.minimum, FLOATS | INTS | {"bool"}),
    "pow": (np.power, FLOATS),
    "eq": (np.equal, set(DTYPES)), "ne": (np.not_equal, set(DTYPES)), "lt": (np.less, set(DTYPES)),
    "le": (np.less_equal, set(DTYPES)), "gt": (np.greater, set(DTYPES)), "ge": (np.greater_equal, set(DTYPES)),
    "logical_and": (np.logical_and, set(DTYPES)), "logical_or": (np.logical_or, set(DTYPES)),
    "logical_xor": (np.logical_xor, set(DTYPES)),
    "bit_and": (np.bitwise_and, INTS | {"bool"}), "bit_or": (np.bitwise_or, INTS | {"bool"}),
    "bit_xor": (np.bitwise_xor, INTS | {"bool"}),
}

failures = []


def numpy_result(op, dtype, a, b):
    with np.errstate(all="ignore"):
        if op == "div":
            return np.true_divide(a, b) if dtype in FLOATS else np.floor_divide(a, b)
        return OPS[op][0](a, b)


def random_array(dtype, shape):
    if dtype in FLOATS:
        return RNG.uniform(-10, 10, size=shape).astype(DTYPES[dtype])
    if dtype == "bool":
        return RNG.integers(0, 2, size=shape).astype(np.bool_)
    info = np.iinfo(DTYPES[dtype])
    return RNG.integers(info.min, info.max, size=shape, endpoint=True, dtype=DTYPES[dtype])


def run(args):
    return subprocess.run([BCAST_RUN] + args, capture_output=True, text=True)


# pow results are compared within numpy_pow.pow_ulps ULP: 0 unless NumPy runs
# SVML's vector pow (numpy_pow.py says when, and what was measured there), with
# NaN in the same places. Every other op must match bit for bit, except that a
# NaN matches any NaN of the same kind (quiet or signalling): the payload of a
# NaN of arithmetic is left open by IEEE 754. The largest pow difference seen
# per dtype is reported.
pow_ulps_seen = {}


def is_signalling(x):
    quiet = np.array(1 << ({2: 10, 4: 23, 8: 52}[x.itemsize] - 1), dtype=f"u{x.itemsize}")
    return np.isnan(x) & ((x.view(f"u{x.itemsize}") & quiet) == 0)


def same(op, x, y):
    if x.dtype != y.dtype or x.shape != y.shape:
        return False
    if x.dtype.kind != "f":
        return np.array_equal(x, y)
    if not np.array_equal(np.isnan(x), np.isnan(y)) or not np.array_equal(is_signalling(x), is_signalling(y)):
        return False
    x, y = x[~np.isnan(x)], y[~np.isnan(y)]
    if op == "pow":
        finite = np.isfinite(x) & np.isfinite(y)
        distance = ulp_distance(x[finite], y[finite])
        key = str(x.dtype)
        pow_ulps_seen[key] = max(pow_ulps_seen.get(key, 0), int(distance.max(initial=0)))
        return bool(np.all(distance <= pow_ulps(x.dtype))) and np.array_equal(
            x[~finite].view(f"u{x.itemsize}"), y[~finite].view(f"u{y.itemsize}"))
    return np.array_equal(x.view(f"u{x.itemsize}"), y.view(f"u{y.itemsize}"))


# (a shape, index expression for a, b shape, index expression for b): the
# expressions are applied to the saved arrays, as NumPy would.
SHAPE_CASES = [
    ((4, 3), "", (3,), ""),
    ((5, 1), "", (1, 6), ""),
    ((2, 3, 4), "", (2, 1, 4), ""),
    ((7, 5), "[::-1]", (5,), ""),
    ((6, 8), "[1:, None, -1]", (5, 1, 1), ""),
    ((4, 5, 3), "[..., ::-1]", (3,), ""),
    ((3, 4), "", (6, 8), "[::-2, ::2]"),
    ((), "", (3, 2), ""),
    ((2, 1, 3, 1), "", (1, 4, 1, 5), ""),
    ((0, 3), "", (3,), ""),
    ((9, 9), "[::3, 1::4]", (9, 9), "[2:5, -3:-1]"),
]


def check_case(tmp, n, op, dtype, sa, ea, sb, eb, fortran):
    a = random_array(dtype, sa)
    b = random_array(dtype, sb)
    if fortran:
        a = np.asfortranarray(a)
    pa, pb, po = (os.path.join(tmp, f"{n}_{x}.npy") for x in "abo")
    np.save(pa, a)
    np.save(pb, b)
    va, vb = eval("a" + ea) if ea else a, eval("b" + eb) if eb else b
    label = f"{op} {dtype} a{list(sa)}{ea}{' (F order)' if fortran else ''} b{list(sb)}{eb}"
    p = run([op, pa + ea, pb + eb, "-o", po, "--check", "--json"])
    if p.returncode != 0:
        failures.append(f"{label}: exit {p.returncode}: {p.stderr.strip()}")
        return
    got = np.load(po)
    want = numpy_result(op, dtype, va, vb)
    if not same(op, got, want):
        failures.append(f"{label}: result differs from NumPy\n  got  {got.ravel()[:8]}\n  want {want.ravel()[:8]}")
    report = json.loads(p.stdout.strip().splitlines()[-1])
    if report["out_shape"] != list(want.shape) or report["op"] != op or report["dtype"] != dtype:
        failures.append(f"{label}: --json reports {report}")


def check_results(tmp):
    n = 0
    for op, (_, dtypes) in OPS.items():
        for dtype in sorted(dtypes):
            # Each (op, dtype) pair meets a few shape cases, in turn.
            for k in range(3):
                sa, ea, sb, eb = SHAPE_CASES[(n + k) % len(SHAPE_CASES)]
                check_case(tmp, n, op, dtype, sa, ea, sb, eb, fortran=(n + k) % 2 == 1 and len(sa) > 1)
            n += 1
    return n


def check_refusals(tmp):
    good = os.path.join(tmp, "good.npy")
    np.save(good, np.zeros((2, 3), np.float32))
    other = os.path.join(tmp, "other.npy")
    np.save(other, np.zeros((4,), np.float32))
    ints = os.path.join(tmp, "ints.npy")
    np.save(ints, np.zeros((2, 3), np.int32))
    corrupt = os.path.join(tmp, "corrupt.npy")
    with open(good, "rb") as f:
        data = f.read()
    with open(corrupt, "wb") as f:
        f.write(data[:-5])
    out = os.path.join(tmp, "refused_out.npy")
    cases = [
        (["add", good, other, "-o", out], 3, "do not broadcast"),
        (["add", good, ints, "-o", out], 3, "different dtypes"),
        (["add", corrupt, good, "-o", out], 3, "truncated"),
        (["add", good + "[5]", good, "-o", out], 3, "index 5 is out of bounds for axis 0 with size 2"),
        (["add", good + "[1", good, "-o", out], 3, "bad index expression"),
        (["add", "f32[2,x]", good, "-o", out], 3, "is not a non-negative integer"),
        (["add", os.path.join(tmp, "missing.npy"), good, "-o", out], 3, "cannot open"),
        (["pow", ints, ints, "-o", out], 3, "pow: not defined for dtype i32"),
        (["frobnicate", good, good, "-o", out], 2, "unknown op"),
        (["add", good], 2, "two operands"),
        (["add", good, good, "--repeat", "x"], 2, ""),
    ]
    for args, status, text in cases:
        p = run(args)
        if p.returncode != status or text not in p.stderr or (status == 3 and len(p.stderr.strip().splitlines()) != 1):
            failures.append(f"bcast-run {' '.join(args)}: exit {p.returncode} (want {status}), stderr {p.stderr!r}")
        if os.path.exists(out):
            failures.append(f"bcast-run {' '.join(args)}: left {out} behind")
            os.remove(out)


def check_literals_and_timing():
    p = run(["add", "f32[64,1,3]", "f32[5,1]", "--repeat", "3", "--check", "--json", "--seed", "7"])
    report = json.loads(p.stdout.strip().splitlines()[-1]) if p.returncode == 0 else {}
    if p.returncode != 0 or report.get("out_shape") != [64, 5, 3] or "median_ns" not in report or "gbps" not in report:
        failures.append(f"literal operands with --repeat: exit {p.returncode}, {p.stdout!r} {p.stderr!r}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        pairs = check_results(tmp)
        check_refusals(tmp)
        check_literals_and_timing()
    for f in failures:
        print("FAIL:", f)
    print(f"pow: {svml_pow()[1]}; largest ULP from NumPy (bound): " +
          ", ".join(f"{d} {u} ({pow_ulps(d)})" for d, u in sorted(pow_ulps_seen.items())))
    print(f"{pairs} op/dtype pairs x 3 shape cases checked against NumPy; {len(failures)} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
