#!/usr/bin/env python3
"""Numerical edge cases against NumPy: for each dtype, a column of special
values op a row of them (every pair, through a broadcast), run in-process
through the Python module on the JIT, on the reference executor (BCAST_JIT=0)
and on the Ascend-style target, compared with NumPy bit for bit. (It ran
bcast-run once per case until the module came; the CLI's own surface is
bcast_run_vs_numpy's.)

Special values: NaNs with payloads and both signs (a signalling one too),
infinities, signed zeros, denormals, the largest finite values, f16 sums that
round to a tie; integer extremes (overflow wraps, MIN // -1, x // 0), u8
wrap-around. NumPy is the oracle everywhere but in two places where its own
answer depends on its code path, which bcast defines instead (docs/semantics.md, "Numerical
semantics"):
  * max/min of two NaNs is the first operand's NaN, payload and all (NumPy's
    documentation: "If both elements are NaNs then the first is returned");
  * max(-0, +0) is +0 and min(-0, +0) is -0 (IEEE 754-2019 maximum/minimum).
Those elements are compared with that definition; every other element with
NumPy's result. Where an operand is a signalling NaN, bcast's documented answer
(docs/semantics.md, "Differences from NumPy") is checked instead of NumPy's:
  * f16 to f32 conversion quiets a signalling NaN and keeps its payload, as F16C
    does: an f16 op's result is NumPy's on the quieted operands, bit for bit,
    payload included. So f16 pow(1, sNaN) and pow(sNaN, 0) are 1 (C's
    pow(1, qNaN) = 1), where NumPy, which converts without quieting, gives NaN;
  * f32/f64 pow with a signalling NaN operand is a quiet NaN (IEEE 754 9.2.1,
    glibc), pow(1, sNaN) and pow(sNaN, 0) included; NumPy gives 1 there when it
    runs SVML's pow.
Elsewhere a NaN result matches a NaN of arithmetic with any payload (IEEE 754
leaves it open) but only of the same kind: a signalling NaN never matches a
quiet one. pow is compared within numpy_floats.pow_ulps ULP: bcast's recipe's
distance from the C library's pow, and SVML's where NumPy runs it
(numpy_floats.py says when, and what was measured).

usage: PYTHONPATH=build/python numerical_edge_cases.py
"""
import contextlib
import os
import sys
import tempfile

import numpy as np

import bcast
from numpy_floats import is_signalling, pow_ulps, quiet_bit, svml_pow, ulp_distance
from numpy_ops import numpy_result


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
for name, t in {"u16": np.uint16, "u32": np.uint32, "u64": np.uint64}.items():
    top = np.iinfo(t).max
    SPECIAL[name] = np.array([0, 1, 2, 7, 127, 128, 255, 256, top // 2, top // 2 + 1, top - 1, top], t)
for name, t in {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64}.items():
    info = np.iinfo(t)
    SPECIAL[name] = np.array([0, 1, -1, 2, -2, 7, -7, info.min, info.min + 1, info.max, info.max - 1], t)

FLOAT_OPS = ["add", "sub", "mul", "div", "floor_div", "max", "min", "pow", "eq", "ne", "lt", "le", "gt", "ge",
             "logical_and", "logical_or", "logical_xor"]
INT_OPS = ["add", "sub", "mul", "div", "floor_div", "max", "min", "eq", "ne", "lt", "le", "gt", "ge",
           "logical_and", "logical_or", "logical_xor", "bit_and", "bit_or", "bit_xor"]
BOOL_OPS = ["add", "mul", "div", "max", "min", "eq", "ne", "lt", "le", "gt", "ge",
            "logical_and", "logical_or", "logical_xor", "bit_and", "bit_or", "bit_xor"]
# Executor -> its settings. ascend-sim runs on both products; a call a
# product cannot take runs on the host, and its reason must be logged (at
# debug: the warning comes once a process).
ASCEND = {"BCAST_TARGET": "ascend-sim", "BCAST_LOG_LEVEL": "debug"}
MODES = {"jit": {}, "reference": {"BCAST_JIT": "0"},
         "ascend-sim 910b": {**ASCEND, "BCAST_ASCEND_PRODUCT": "910b"},
         "ascend-sim 310p": {**ASCEND, "BCAST_ASCEND_PRODUCT": "310p"}}


@contextlib.contextmanager
def settings_and_stderr(settings, log):
    """The settings in force and file descriptor 2 (where bcast logs) going to
    `log`, both put back after."""
    before = {name: bcast.get_setting(name) for name in settings}
    for name, value in settings.items():
        bcast.set_setting(name, value)
    sys.stderr.flush()
    saved = os.dup(2)
    os.dup2(log.fileno(), 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        for name, value in before.items():
            bcast.set_setting(name, value)


def quieted(x):
    """x with the quiet bit set in its signalling NaNs, payload kept (F16C's f16 -> f32)."""
    x = np.array(x)
    x.view(f"u{x.itemsize}")[is_signalling(x)] |= quiet_bit(x.dtype)
    return x


def expected(op, a, b):
    """(the result bcast documents, another result it may give instead, a mask
    of the elements whose bits are promised exactly: one of the two): the
    others may differ in a NaN's payload, not its kind, and for pow by
    pow_ulps."""
    want = numpy_result(op, a, b)
    exact = np.zeros(want.shape, bool)
    if a.dtype.kind != "f" or want.dtype.kind != "f":
        return want, want, exact
    a_full, b_full = np.broadcast_arrays(a, b)
    bits = f"u{a.dtype.itemsize}"
    want = want.copy()
    if op in ("max", "min"):
        exact[...] = True
        both_nan = np.isnan(a_full) & np.isnan(b_full)
        want[both_nan] = a_full[both_nan]
        zeros = (a_full == 0) & (b_full == 0)
        signed = np.where(np.signbit(a_full) == (op == "max"), b_full, a_full)  # the other zero when a is the "loser"
        want[zeros] = signed[zeros]
        # NumPy copies a lone NaN operand as it is; keep its bits (a signalling NaN stays signalling).
        a_nan, b_nan = np.isnan(a_full) & ~both_nan, np.isnan(b_full) & ~np.isnan(a_full)
        want.view(bits)[a_nan] = a_full.view(bits)[a_nan]
        want.view(bits)[b_nan] = b_full.view(bits)[b_nan]
        return want, want, exact
    signalling = is_signalling(a_full) | is_signalling(b_full)
    other = want.copy()
    if a.dtype == np.float16:
        want[signalling] = numpy_result(op, quieted(a_full), quieted(b_full))[signalling]
        exact |= signalling
        # Of two NaN operands either may propagate (IEEE 754 6.2.3), quieted.
        both_nan = signalling & np.isnan(a_full) & np.isnan(b_full)
        other[signalling] = want[signalling]
        want[both_nan], other[both_nan] = quieted(a_full)[both_nan], quieted(b_full)[both_nan]
    elif op == "pow":
        want[signalling] = other[signalling] = np.nan  # quiet, any payload: docs/semantics.md promises none
    return want, other, exact


def differences(op, got, want, other, exact):
    """Indices where got differs from want (and from other where exact is set):
    bits for floats, but where exact is False a NaN matches a NaN of the same
    kind (quiet or signalling) whatever its payload, and pow results match
    within pow_ulps; values otherwise."""
    if got.dtype != want.dtype or got.shape != want.shape:
        return f"dtype/shape {got.dtype}{got.shape} vs {want.dtype}{want.shape}"
    if got.dtype.kind != "f":
        return np.argwhere(got != want)
    bits = f"u{got.dtype.itemsize}"
    same = (got.view(bits) == want.view(bits)) | (exact & (got.view(bits) == other.view(bits)))
    same |= ~exact & np.isnan(got) & np.isnan(want) & (is_signalling(got) == is_signalling(want))
    if op == "pow":
        finite = np.isfinite(got) & np.isfinite(want)
        same |= ~exact & finite & (ulp_distance(got, want) <= pow_ulps(got.dtype))
    return np.argwhere(~same)


def pow_ulps_seen(got, want, exact):
    """The largest ULP distance between finite pow results that need not be exact."""
    finite = np.isfinite(got) & np.isfinite(want) & ~exact
    return int(ulp_distance(got[finite], want[finite]).max(initial=0))


def show(x):
    """A value with its bits, for floats: nan (0x7e00)."""
    x = np.asarray(x)
    if x.dtype.kind != "f":
        return repr(x.item())
    return f"{x.item()!r} (0x{int(x.reshape(1).view(f'u{x.itemsize}')[0]):x})"


def main():
    failures = []
    checked = 0
    pow_seen = {}
    ran_there = {}  # ascend-sim mode -> calls that ran on the simulator
    with tempfile.TemporaryFile("w+") as log:
        for dtype, values in SPECIAL.items():
            ops = FLOAT_OPS if values.dtype.kind == "f" else BOOL_OPS if dtype == "bool" else INT_OPS
            a, b = values[:, None], values[None, :]
            for op in ops:
                want, other, exact = expected(op, a, b)
                for mode, settings in MODES.items():
                    log.seek(0)
                    log.truncate()
                    with settings_and_stderr(settings, log):
                        try:
                            got = getattr(bcast, op)(a, b)
                        except Exception as e:  # noqa: BLE001  a failure to report, not to stop at
                            failures.append(f"{op}.{dtype} [{mode}]: {type(e).__name__}: {e}")
                            continue
                        trace = bcast.last_ascend_trace()
                    if mode.startswith("ascend-sim"):
                        ran_there[mode] = ran_there.get(mode, 0) + bool(trace["kernel"])
                        log.seek(0)
                        if trace["fallback"] and trace["fallback"] not in log.read():
                            failures.append(f"{op}.{dtype} [{mode}]: fell back unlogged: {trace['fallback']}")
                    diff = differences(op, got, want, other, exact)
                    if isinstance(diff, str):
                        failures.append(f"{op}.{dtype} [{mode}]: {diff}")
                        continue
                    diff = [tuple(i) for i in diff]
                    for i in diff[:3]:
                        alternative = f" or {show(other[i])}" if exact[i] and show(other[i]) != show(want[i]) else ""
                        failures.append(f"{op}.{dtype} [{mode}]: {show(a[i[0], 0])} {op} {show(b[0, i[1]])} gave "
                                        f"{show(got[i])}, expected {show(want[i])}{alternative}")
                    if op == "pow":
                        pow_seen[dtype] = max(pow_seen.get(dtype, 0), pow_ulps_seen(got, want, exact))
                    checked += want.size
    for f in failures[:40]:
        print("FAIL", f)
    print(f"pow: {svml_pow()[1]}; largest ULP from NumPy (bound): " +
          ", ".join(f"{d} {u} ({pow_ulps(SPECIAL[d].dtype)})" for d, u in pow_seen.items()))
    print(f"{checked} edge-case elements checked over {len(SPECIAL)} dtypes and {len(MODES)} executors, "
          f"{len(failures)} failures; on the simulator: " + ", ".join(f"{m} {n} calls" for m, n in ran_there.items()))
    if min(ran_there.values(), default=0) == 0:
        failures.append("no call ran on the simulator")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
