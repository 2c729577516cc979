"""NumPy as the oracle of bcast's ops: the NumPy function of each op, the
dtypes bcast defines it on, and a comparison bit for bit (a NaN of arithmetic
matches any NaN of the same kind; pow within numpy_floats.pow_ulps)."""
import numpy as np

from numpy_floats import is_signalling, pow_ulps, ulp_distance

FLOATS = ["float16", "float32", "float64"]
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
ALL = FLOATS + INTS + ["bool"]

# op -> (NumPy's function, the dtypes bcast defines it on)
OPS = {
    "add": (np.add, ALL), "sub": (np.subtract, FLOATS + INTS), "mul": (np.multiply, ALL),
    "div": (np.true_divide, ALL), "floor_div": (np.floor_divide, FLOATS + INTS),
    "max": (np.maximum, ALL), "min": (np.minimum, ALL), "pow": (np.power, FLOATS),
    "eq": (np.equal, ALL), "ne": (np.not_equal, ALL), "lt": (np.less, ALL), "le": (np.less_equal, ALL),
    "gt": (np.greater, ALL), "ge": (np.greater_equal, ALL),
    "logical_and": (np.logical_and, ALL), "logical_or": (np.logical_or, ALL), "logical_xor": (np.logical_xor, ALL),
    "bit_and": (np.bitwise_and, INTS + ["bool"]), "bit_or": (np.bitwise_or, INTS + ["bool"]),
    "bit_xor": (np.bitwise_xor, INTS + ["bool"]),
}


def numpy_op(op, a, b):
    with np.errstate(all="ignore"):
        return OPS[op][0](a, b)


def mismatches(op, got, want):
    """Where got and want differ, as a short text; "" when they agree."""
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype != want.dtype or got.shape != want.shape:
        return f"dtype/shape {got.dtype}{got.shape}, NumPy {want.dtype}{want.shape}"
    if got.dtype.kind != "f":
        bad = got != want
    else:
        bits = f"u{got.itemsize}"
        same = got.view(bits) == want.view(bits)
        same |= np.isnan(got) & np.isnan(want) & (is_signalling(got) == is_signalling(want))
        if op == "pow":
            finite = np.isfinite(got) & np.isfinite(want)
            same |= finite & (ulp_distance(got, want) <= pow_ulps(got.dtype))
        bad = ~same
    if not bad.any():
        return ""
    i = tuple(np.argwhere(bad)[0])
    return f"{int(bad.sum())} elements differ, first at {i}: bcast {got[i]!r}, NumPy {want[i]!r}"
