"""NumPy as the oracle of bcast's binary ops, shared by the tests that compare
with it (bcast-run's end to end, the Python module's in-process): each op's
NumPy function and the dtypes bcast defines it on, random arrays, the shape
cases with index expressions, and the comparison bit for bit.

Bit for bit: pow within numpy_floats.pow_ulps ULP (bcast's pow recipe's
distance from the C library's, and SVML's where NumPy runs its vector pow;
numpy_floats.py says when, and what was measured there), with NaN
in the same places; every other op exactly, except that a NaN matches any
NaN of the same kind (quiet or signalling): IEEE 754 leaves the payload of a
NaN of arithmetic open.
"""
import numpy as np

from numpy_floats import is_signalling, pow_ulps, ulp_distance

DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i8": np.int8, "i16": np.int16,
          "i32": np.int32, "i64": np.int64, "u8": np.uint8, "u16": np.uint16, "u32": np.uint32,
          "u64": np.uint64, "bool": np.bool_}
FLOATS = {"f16", "f32", "f64"}
INTS = {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"}

# op -> (NumPy function, dtypes it is defined on in bcast)
OPS = {
    "add": (np.add, FLOATS | INTS | {"bool"}),
    "sub": (np.subtract, FLOATS | INTS),
    "mul": (np.multiply, FLOATS | INTS | {"bool"}),
    "div": (np.true_divide, FLOATS | INTS | {"bool"}),  # NumPy's `/`: integers and bool give f64
    "floor_div": (np.floor_divide, FLOATS | INTS),
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

# (a shape, index expression for a, b shape, index expression for b): the
# expressions are applied to the arrays as NumPy applies them.
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


def numpy_result(op, a, b):
    with np.errstate(all="ignore"):
        return OPS[op][0](a, b)


def random_array(rng, dtype, shape):
    """Values over the dtype's whole range (floats in [-10, 10])."""
    if dtype in FLOATS:
        return rng.uniform(-10, 10, size=shape).astype(DTYPES[dtype])
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    info = np.iinfo(DTYPES[dtype])
    return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=DTYPES[dtype])


def index(x, expression):
    """x[expression] for an index expression's text, "[::-1]" (NumPy's basic indexing)."""
    return eval("x" + expression) if expression else x  # noqa: S307  the test's own literals


def mismatches(op, got, want, pow_ulps_seen=None):
    """Where got and want differ, as a short text; "" when they agree. The
    largest pow distance is kept per dtype in `pow_ulps_seen` when given."""
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
            distance = np.where(finite, ulp_distance(got, want), 0)
            same |= finite & (distance <= pow_ulps(got.dtype))
            if pow_ulps_seen is not None:
                key = str(got.dtype)
                pow_ulps_seen[key] = max(pow_ulps_seen.get(key, 0), int(distance.max(initial=0)))
        bad = ~same
    if not bad.any():
        return ""
    i = tuple(np.argwhere(bad)[0])
    return f"{int(bad.sum())} elements differ, first at {i}: bcast {got[i]!r}, NumPy {want[i]!r}"
