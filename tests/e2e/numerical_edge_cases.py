#!/usr/bin/env python3
"""Numerical edge cases against NumPy: for each dtype, a column of special
values op a row of them (every pair, through a broadcast), run by bcast-run on
the JIT, on the reference executor (--no-jit) and on the Ascend-style target,
compared with NumPy bit for bit.

Special values: NaNs with payloads and both signs (a signalling one too),
infinities, signed zeros, denormals, the largest finite values, f16 sums that
round to a tie; integer extremes (overflow wraps, MIN // -1, x // 0), u8
wrap-around. NumPy is the oracle everywhere but in two places where its own
answer depends on its code path, which bcast defines instead (README, "Numerical
semantics"):
  * max/min of two NaNs is the first operand's NaN, payload and all (NumPy's
    documentation: "If both elements are NaNs then the first is returned");
  * max(-0, +0) is +0 and min(-0, +0) is -0 (IEEE 754-2019 maximum/minimum).
Those elements are compared with that definition; every other element with
NumPy's result. Two stated differences of pow, which calls the C library:
  * NumPy's pow on AVX-512 hosts is SVML's (up to 4 ULP from the correctly
    rounded result; 1 ULP apart on 3**0.5 here): pow is compared within 4 ULP;
  * with a signalling NaN operand pow returns a quiet NaN, as IEEE 754 9.2.1
    and glibc say (pow(1, y) = 1 and pow(x, 0) = 1 hold for quiet NaNs only);
    NumPy returns 1. Those pairs are left out of the pow comparison.

usage: numerical_edge_cases.py PATH/TO/bcast-run
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

BCAST_RUN = sys.argv[1]


def floats(dtype, bits):
    return np.array(bits, dtype=f"u{np.dtype(dtype).itemsize}").view(dtype)


SPECIAL = {
    "f16": np.concatenate([
        np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, 2048.0, 65504.0, -65504.0, np.inf, -np.inf], np.float16),
        floats(np.float16, [0x7E00, 0xFE01, 0x7C01,  # quiet NaN, negative NaN with payload, signalling NaN
                            0x0001, 0x8001, 0x03FF, 0x0400])]),  # denormals, largest denormal, smallest normal
    "f32": np.concatenate([
        np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, 16777216.0, np.inf, -np.inf], np.float32),
        np.array([np.finfo(np.float32).max, -np.finfo(np.float32).max, np.finfo(np.float32).tiny], np.float32),
        floats(np.float32, [0x7FC00000, 0xFFC00123, 0x7FA00001, 0x00000001, 0x807FFFFF])]),
    "f64": np.concatenate([
        np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, 2.0**53, np.inf, -np.inf], np.float64),
        np.array([np.finfo(np.float64).max, np.finfo(np.float64).tiny], np.float64),
        floats(np.float64, [0x7FF8000000000000, 0xFFF8000000000123, 0x7FF4000000000001, 0x0000000000000001])]),
    "bool": np.array([False, True]),
    "u8": np.array([0, 1, 2, 7, 127, 128, 254, 255], np.uint8),
}
for name, t in {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64}.items():
    info = np.iinfo(t)
    SPECIAL[name] = np.array([0, 1, -1, 2, -2, 7, -7, info.min, info.min + 1, info.max, info.max - 1], t)

FLOAT_OPS = ["add", "sub", "mul", "div", "max", "min", "pow", "eq", "ne", "lt", "le", "gt", "ge",
             "logical_and", "logical_or", "logical_xor"]
INT_OPS = ["add", "sub", "mul", "div", "max", "min", "eq", "ne", "lt", "le", "gt", "ge",
           "logical_and", "logical_or", "logical_xor", "bit_and", "bit_or", "bit_xor"]
BOOL_OPS = ["add", "mul", "max", "min", "eq", "ne", "lt", "le", "gt", "ge",
            "logical_and", "logical_or", "logical_xor", "bit_and", "bit_or", "bit_xor"]
NUMPY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "max": np.maximum, "min": np.minimum,
         "pow": np.power, "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
         "gt": np.greater, "ge": np.greater_equal, "logical_and": np.logical_and, "logical_or": np.logical_or,
         "logical_xor": np.logical_xor, "bit_and": np.bitwise_and, "bit_or": np.bitwise_or,
         "bit_xor": np.bitwise_xor}
MODES = {"jit": [], "reference": ["--no-jit"], "ascend-sim": ["--target", "ascend-sim"]}


def expected(op, a, b):
    with np.errstate(all="ignore"):
        if op == "div":
            want = np.true_divide(a, b) if a.dtype.kind == "f" else np.floor_divide(a, b)
        else:
            want = NUMPY[op](a, b)
    if op in ("max", "min") and a.dtype.kind == "f":
        a_full, b_full = np.broadcast_arrays(a, b)
        bits = f"u{a.dtype.itemsize}"
        want = want.copy()
        both_nan = np.isnan(a_full) & np.isnan(b_full)
        want[both_nan] = a_full[both_nan]
        zeros = (a_full == 0) & (b_full == 0)
        signed = np.where(np.signbit(a_full) == (op == "max"), b_full, a_full)  # the other zero when a is the "loser"
        want[zeros] = signed[zeros]
        # NumPy copies a lone NaN operand as it is; keep its bits (a signalling NaN stays signalling).
        a_nan, b_nan = np.isnan(a_full) & ~both_nan, np.isnan(b_full) & ~np.isnan(a_full)
        want.view(bits)[a_nan] = a_full.view(bits)[a_nan]
        want.view(bits)[b_nan] = b_full.view(bits)[b_nan]
    return want


POW_ULPS = 4


def is_signalling(x):
    """NaNs whose quiet bit (the top mantissa bit) is clear."""
    x = np.asarray(x)
    mantissa_bits = {2: 10, 4: 23, 8: 52}[x.dtype.itemsize]
    quiet = np.array(1 << (mantissa_bits - 1), dtype=f"u{x.dtype.itemsize}")
    return np.isnan(x) & ((x.view(f"u{x.dtype.itemsize}") & quiet) == 0)


def ulps(x, y):
    """Distance in units in the last place between same-signed finite floats."""
    bits = f"i{x.dtype.itemsize}"
    return np.abs(x.view(bits).astype(np.int64) - y.view(bits).astype(np.int64))


def differences(op, a, b, got, want):
    """Indices where got and want differ: bits for floats (but any NaN matches a
    NaN of arithmetic, whose payload IEEE 754 leaves open), values otherwise."""
    if got.dtype != want.dtype or got.shape != want.shape:
        return f"dtype/shape {got.dtype}{got.shape} vs {want.dtype}{want.shape}"
    if got.dtype.kind != "f":
        return np.argwhere(got != want)
    bits = f"u{got.dtype.itemsize}"
    same = got.view(bits) == want.view(bits)
    if op not in ("max", "min"):
        same |= np.isnan(got) & np.isnan(want)
    if op == "pow":
        a_full, b_full = np.broadcast_arrays(a, b)
        same |= is_signalling(a_full) | is_signalling(b_full)
        if got.dtype != np.float16:
            close = (np.signbit(got) == np.signbit(want)) & np.isfinite(got) & np.isfinite(want)
            same |= close & (ulps(got, want) <= POW_ULPS)
    return np.argwhere(~same)


def show(x):
    """A value with its bits, for floats: nan (0x7e00)."""
    x = np.asarray(x)
    if x.dtype.kind != "f":
        return repr(x.item())
    return f"{x.item()!r} (0x{int(x.reshape(1).view(f'u{x.itemsize}')[0]):x})"


def main():
    failures = []
    checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        for dtype, values in SPECIAL.items():
            ops = FLOAT_OPS if values.dtype.kind == "f" else BOOL_OPS if dtype == "bool" else INT_OPS
            a, b = values[:, None], values[None, :]
            pa, pb = os.path.join(tmp, "a.npy"), os.path.join(tmp, "b.npy")
            np.save(pa, a)
            np.save(pb, b)
            for op in ops:
                want = expected(op, a, b)
                for mode, flags in MODES.items():
                    po = os.path.join(tmp, f"out_{mode}.npy")
                    p = subprocess.run([BCAST_RUN, op, pa, pb, "-o", po] + flags, capture_output=True, text=True)
                    if p.returncode != 0:
                        failures.append(f"{op}.{dtype} [{mode}]: exit {p.returncode}: {p.stderr.strip()}")
                        continue
                    got = np.load(po)
                    diff = differences(op, a, b, got, want)
                    if isinstance(diff, str):
                        failures.append(f"{op}.{dtype} [{mode}]: {diff}")
                        continue
                    diff = [tuple(i) for i in diff]
                    for i in diff[:3]:
                        failures.append(f"{op}.{dtype} [{mode}]: {show(a[i[0], 0])} {op} {show(b[0, i[1]])} gave "
                                        f"{show(got[i])}, expected {show(want[i])}")
                    checked += want.size
    for f in failures[:40]:
        print("FAIL", f)
    print(f"{checked} edge-case elements checked over {len(SPECIAL)} dtypes and 3 executors, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
