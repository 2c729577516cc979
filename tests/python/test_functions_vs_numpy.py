"""NumPy's elementwise vocabulary through bcast.evaluate, against NumPy as the
oracle: every single-output ufunc NumPy has (its list read from NumPy, not
from bcast) under NumPy's name, on every dtype NumPy has a loop for (c64 and
c128 included), with random values and the special ones (+-0, +-inf, NaN,
subnormals, the integers' limits, domain edges; for complex, every pairing of
special parts).

- The result's dtype is NumPy's, except DEVIATIONS (docs/semantics.md).
- Where NumPy refuses a dtype (gcd on floats, -True), bcast refuses it.
- Exact functions agree bit for bit (a NaN matches any NaN). The others
  agree within INEXACT_ULPS[fn] + NUMPY_ULPS: two implementations of a
  function, each within its own bound of the true value (bcast's bound is
  docs/semantics.md's; NumPy's SIMD loops promise up to 4 ULP), with NaN,
  infinities and zeros in the same places. A complex result is judged part
  by part.
"""
import zlib

import numpy as np
import pytest

import bcast
from numpy_floats import ulp_distance

DTYPES = ["bool", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f16", "f32", "f64", "c64", "c128"]
NP = {"bool": np.bool_, "i8": np.int8, "u8": np.uint8, "i16": np.int16, "u16": np.uint16, "i32": np.int32,
      "u32": np.uint32, "i64": np.int64, "u64": np.uint64, "f16": np.float16, "f32": np.float32, "f64": np.float64,
      "c64": np.complex64, "c128": np.complex128}
PARTS = {"c64": "f32", "c128": "f64"}  # a complex dtype's parts

# NumPy's single-output elementwise ufuncs, as the issue counts them.
UFUNCS = sorted(n for n in dir(np) if isinstance(getattr(np, n), np.ufunc)
                and n not in {"matmul", "isnat", "divmod", "frexp", "modf"})

# What bcast does differently, on purpose (docs/semantics.md lists them):
# floor, ceil, trunc and rint keep an integer's dtype (the Array API's rule)
# and refuse bool.
KEEPS_INTEGERS = {"floor", "ceil", "trunc", "rint"}
# Elements where NumPy's answer is its own code path's and bcast keeps one
# rule for every dtype: (function, dtype) -> which operands to leave out.
#  - reciprocal(0) on integers is 0, as x // 0; NumPy casts 1.0 / 0 to the
#    integer in C (undefined; INT_MIN on x86 for i32 and i64).
#  - nextafter(x, y) with x == y is y, as C's; NumPy's f16 gives x (-0 vs +0).
#  - spacing of a negative f16 is the distance away from zero, as NumPy's f32
#    and f64 compute it; NumPy's f16 measures it towards +inf.
NUMPY_QUIRKS = {
    "reciprocal": lambda dtype, a: (a == 0) if dtype in ("i32", "i64") else None,
    "nextafter": lambda dtype, a, b: (a == b) if dtype == "f16" else None,
    "spacing": lambda dtype, a: (a < 0) if dtype == "f16" or dtype in ("i8", "u8", "bool") else None,
    "sign": lambda dtype, a: ~np.isfinite(np.hypot(a.real, a.imag)) if dtype in PARTS else None,
    # NumPy's c128 exp2 is exp(z ln 2) with z ln 2 rounded: off by |z| 2**-53
    # radians, |z| ULPs and more; bcast's carries z ln 2 in two parts, and
    # tests/python/test_math_vs_mpmath.py holds it to the true value.
    "exp2": lambda dtype, a: np.isfinite(a) & (np.abs(a) > 4) if dtype == "c128" else None,
    # NumPy's log1p(z) is log(hypot(1 + x, y)): where |1 + z| is near 1 it
    # loses digits (log1p(1e-30+0j) is 0 there); bcast's sums the squares
    # exactly, and test_math_vs_mpmath.py judges it.
    "log1p": lambda dtype, a: np.isfinite(a) & (np.abs(np.abs(a.astype(np.complex128) + 1) - 1) < 0.5)
    if dtype in PARTS else None,
    "expm1": lambda dtype, a: expm1_cancels(a) if dtype in PARTS else None,
}


def expm1_cancels(z):
    """Where NumPy's complex expm1, expm1(x) cos y - 2 sin(y/2)**2 in the
    parts' dtype, loses a bit or more to the difference, or squares a
    sin(y/2) that underflows (|y| < 1e-19 in c64: +0 for a real part below
    0). There NumPy's rounded terms leave its real part more than its bound
    off (8 ULPs at 0.93 + 13509.9j); bcast computes it in f64 (c64) or from
    pairs (c128), and test_math_vs_mpmath.py judges it against the true
    value, in ULPs of the larger term."""
    x, y = z.real.astype(np.float64), z.imag.astype(np.float64)
    with np.errstate(all="ignore"):
        first, second = np.expm1(x) * np.cos(y), 2 * np.sin(y / 2) ** 2
        larger = np.maximum(np.abs(first), np.abs(second))
        return np.isfinite(z) & ((np.abs(first - second) < larger / 2) | ((x == 0) & (np.abs(y) < 1e-19)))

# The bound bcast promises per inexact function (docs/semantics.md), in
# ULPs of the result's dtype; NumPy's own loops may be as far on the other side.
INEXACT_ULPS = {"exp": 1, "log": 1, "sin": 1, "cos": 1, "power": 1, "float_power": 1, "hypot": 1}
for name in ["tan", "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh", "arcsinh", "arccosh",
             "arctanh", "exp2", "expm1", "log2", "log10", "log1p", "cbrt", "logaddexp", "logaddexp2"]:
    INEXACT_ULPS[name] = 2
NUMPY_ULPS = 4
# logaddexp(a, b) is the larger operand plus the log1p of the other's share,
# in bcast and in NumPy: near the zero crossing of the result (a close to -b)
# the sum cancels, and each is within its bound in ULPs of the larger operand.
CANCELS = {"logaddexp", "logaddexp2"}

# On complex operands (judged part by part): abs is hypot of the parts in
# bcast, NumPy's AVX-512 loop computes it its own way (within an ULP); sqrt
# is a recipe (NOTE: [Complex math]), NumPy's the C library's csqrt; sign is
# NumPy 2's z / |z|, where NumPy 1.24 gave the sign of the real part
# (complex_sign_numpy_2).
COMPLEX_INEXACT_ULPS = {"abs": 1, "absolute": 1, "sqrt": 1}
COMPLEX_BOUNDS = {**INEXACT_ULPS, **COMPLEX_INEXACT_ULPS}  # a function's bound on complex operands

# fmax and fmin order -0 below +0, as max and min do (IEEE 754-2019); NumPy's
# answer for fmax(-0.0, 0.0) depends on the dtype and on the operands' order.
ZERO_TIES = {"fmax", "fmin", "maximum", "minimum"}


def complex_of(re, im, dtype):
    """The complex array with these parts (re + 1j * im would turn an infinite
    part's partner into NaN and a -0.0 imaginary part into +0.0)."""
    out = np.empty(np.shape(re), dtype)
    out.real, out.imag = re, im
    return out


def special_values(dtype):
    t = NP[dtype]
    if dtype in PARTS:  # every pairing of a few of the parts' special values
        parts = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -2.0, 1e-30, 1e30, 3.0], NP[PARTS[dtype]])
        re, im = np.meshgrid(parts, parts)
        return complex_of(re.ravel(), im.ravel(), t)
    if dtype == "bool":
        return np.array([True, False], t)
    if dtype.startswith(("i", "u")):
        info = np.iinfo(t)
        return np.array([0, 1, 2, 3, 7, info.max, info.min, info.max - 1, info.min + 1, 64 if info.bits > 8 else 100],
                        t)
    info = np.finfo(t)
    return np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 2.0, info.tiny, -info.tiny,
                     info.smallest_subnormal, info.max, -info.max, 1e-4, 3.0, 0.99, 1.01, 30.0, -30.0], t)


def random_values(rng, dtype, n):
    t = NP[dtype]
    if dtype in PARTS:
        return complex_of(random_values(rng, PARTS[dtype], n), random_values(rng, PARTS[dtype], n), t)
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(t)
    if dtype.startswith(("i", "u")):
        info = np.iinfo(t)
        wide = rng.integers(info.min, info.max, n, dtype=t, endpoint=True)
        small = rng.integers(max(info.min, -20), 21, n).astype(t)
        return np.where(rng.random(n) < 0.5, wide, small)
    scale = np.where(rng.random(n) < 0.5, 1.0, 10.0 ** rng.integers(-8, 8, n))
    with np.errstate(over="ignore"):  # past f16's range: infinities, which are wanted too
        return (rng.standard_normal(n) * scale).astype(t)


def operands(rng, dtype, fn, k):
    """k operands: every pairing of the special values, then random ones."""
    s = special_values(dtype)
    if k == 1:
        return [np.concatenate([s, random_values(rng, dtype, 300)])]
    a, b = np.meshgrid(s, s)
    a = np.concatenate([a.ravel(), random_values(rng, dtype, 300)])
    b = np.concatenate([b.ravel(), random_values(rng, dtype, 300)])
    if fn in ("power",) and dtype not in ("f16", "f32", "f64", "c64", "c128"):
        b = np.abs(b.astype(np.int64) % 9).astype(NP[dtype])  # NumPy refuses a negative integer exponent
    if fn == "ldexp":
        b = (rng.integers(-40, 40, len(a))).astype(np.int32)
    return [a, b]


def numpy_call(fn, args):
    with np.errstate(all="ignore"):
        if fn in ("exp2", "power", "float_power") and args[0].dtype == np.complex64:
            # NumPy's c64 exp2 rounds z ln 2 to f32 before exp (off by up to
            # |z| 2**-24 radians), and its c64 power takes its products and
            # exp(w log z) in f32; bcast's compute in f64, as NumPy's c128.
            wide = [a.astype(np.complex128) for a in args]
            return getattr(np, fn)(*wide).astype(getattr(np, fn)(*args).dtype)
        return getattr(np, fn)(*args)


def complex_sign_numpy_2(z):
    """NumPy 2's sign of a complex number, z / |z| (0 for 0), part by part.
    Where |z| is infinite or NaN NumPy 2 has rules of its own: NUMPY_QUIRKS
    leaves those out."""
    with np.errstate(all="ignore"):
        magnitude = np.hypot(z.real, z.imag)
        return complex_of(np.where(magnitude == 0, 0, z.real / magnitude),
                          np.where(magnitude == 0, 0, z.imag / magnitude), z.dtype)


def disagreement(fn, got, want, args, complex_args=False):
    """None where every element agrees, else (how many differ, the first index).
    A complex result is judged part by part, each as a float result."""
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype.kind == "c" and fn in COMPLEX_POWERS and complex_args:
        bad = _bad_powers(got, want, args)
    elif got.dtype.kind == "c":
        bad = _bad_elements(fn, got.real, want.real, args, True) | _bad_elements(fn, got.imag, want.imag, args, True)
    else:
        bad = _bad_elements(fn, got, want, args, complex_args)
    if not bad.any():
        return None
    return int(bad.sum()), int(np.argwhere(bad)[0][0])


# A complex z ** w off the integer path is exp(w log z) in bcast and in
# NumPy's C library: each rounds w log z, whose error, |w log z| ULPs of the
# result's modulus, reaches both parts (a part near 0 keeps none of its own
# digits); where that error passes a radian the result's direction is noise
# in both, and only its special values are compared.
COMPLEX_POWERS = {"power", "float_power"}


def _bad_powers(got, want, args):
    z, w = (np.asarray(a).astype(np.complex128) for a in args)
    part = got.real.dtype
    with np.errstate(all="ignore"):
        k = np.abs(w * np.log(z))
        k = np.where(np.isfinite(k), np.maximum(k, 1.0), 1.0)
        noise = k * float(np.finfo(part).eps) > 1
        scale = np.spacing(np.abs(want.astype(np.complex128)).astype(part))
        bad = np.zeros(got.shape, bool)
        for g, w_ in ((got.real, want.real), (got.imag, want.imag)):
            finite = np.isfinite(g) & np.isfinite(w_)
            close = np.abs(g.astype(np.float64) - w_.astype(np.float64)) <= (1 + NUMPY_ULPS) * k * scale
            same = (g == w_) | (np.isnan(g) & np.isnan(w_))
            bad |= ~(same | (finite & (close | noise)) | (noise & ~np.isnan(g) & ~np.isnan(w_)))
    return bad


def _bad_elements(fn, got, want, args, complex_args=False):
    """Where got and want disagree, by the module's rules."""
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype.kind != "f":
        bad = got != want
    else:
        bits = f"u{got.itemsize}"
        same = (got.view(bits) == want.view(bits)) | (np.isnan(got) & np.isnan(want))
        bound = (COMPLEX_BOUNDS if complex_args else INEXACT_ULPS).get(fn)
        if bound is not None:
            # 0 and the smallest subnormal are 1 ULP apart: exp2(-149.7) is 2**-149 (bcast), 0 (NumPy's f32)
            finite = np.isfinite(got) & np.isfinite(want)
            with np.errstate(all="ignore"):
                distance = np.where(finite, ulp_distance(got, want), 0)
            same |= finite & (distance <= bound + NUMPY_ULPS)
        if fn in CANCELS:  # in ULPs of the larger operand (docs/semantics.md, "Accuracy")
            larger = np.maximum(np.abs(args[0]), np.abs(args[1])).astype(got.dtype)
            with np.errstate(all="ignore"):
                apart = np.abs(got.astype(np.float64) - want.astype(np.float64))
                same |= np.isfinite(got) & (apart <= (INEXACT_ULPS[fn] + NUMPY_ULPS) * np.spacing(larger))
        bad = ~same
    if fn in ZERO_TIES:  # -0 and +0 tie: either is NumPy's answer somewhere
        bad &= ~((got == 0) & (want == 0))
    return bad


def call_text(fn, k):
    return f"{fn}(a)" if k == 1 else f"{fn}(a, b)"


CASES = [(fn, d) for fn in UFUNCS for d in DTYPES]


def test_the_vocabulary_is_numpys_86_names():
    assert len(UFUNCS) == 86, UFUNCS


@pytest.mark.parametrize("fn, dtype", CASES, ids=[f"{fn}-{d}" for fn, d in CASES])
def test_function_on_dtype_equals_numpy(fn, dtype):
    ufunc = getattr(np, fn)
    rng = np.random.default_rng(zlib.crc32(f"{fn}-{dtype}".encode()))  # the same values every run
    args = operands(rng, dtype, fn, ufunc.nin)
    names = dict(zip("ab", args))
    try:
        want = numpy_call(fn, args)
    except TypeError:
        with pytest.raises(TypeError):
            bcast.evaluate(call_text(fn, ufunc.nin), **names)
        return
    if fn == "sign" and dtype in PARTS:
        want = complex_sign_numpy_2(args[0])
    if fn in KEEPS_INTEGERS and dtype != "bool" and not dtype.startswith(("f", "c")):
        want = args[0]
    if fn in KEEPS_INTEGERS and dtype == "bool":
        with pytest.raises(Exception, match="not defined"):
            bcast.evaluate(call_text(fn, ufunc.nin), **names)
        return
    got = np.asarray(bcast.evaluate(call_text(fn, ufunc.nin), **names))
    assert got.dtype == want.dtype, f"{fn}({dtype}): bcast gives {got.dtype}, NumPy {want.dtype}"
    quirk = NUMPY_QUIRKS.get(fn, lambda *_: None)(dtype, *args)
    if quirk is not None:
        got, want, args = got[~quirk], want[~quirk], [a[~quirk] for a in args]
    bad = disagreement(fn, got, want, args, complex_args=dtype in PARTS)
    if bad is not None:
        count, i = bad
        pytest.fail(f"{fn}({dtype}): {count} of {got.size} differ, first at {i}: {fn}"
                    f"({', '.join(repr(a[i]) for a in args)}) is {got[i]!r} in bcast, {want[i]!r} in NumPy")


def test_complex_exponentials_at_their_edges_are_numpys():
    """Edges a review found (2026-12-04): expm1(-0 + yi) keeps the real part's
    -0 where 2 sin(y/2)**2 underflows; past the recipes' clamp of x (1418) a
    nonzero part is infinite, not the clamped product (exp(1e300 + 5e-324j)
    was 3.99e292 in its imaginary part)."""
    z = complex_of(np.array([-0.0, np.inf, 1e300, 1500.0, -0.0]), np.array([1e-170, 5e-324, 5e-324, 1.0, 0.0]),
                   np.complex128)
    for fn in ("expm1", "exp", "sinh", "cosh"):
        got = np.asarray(bcast.evaluate(f"{fn}(a)", a=z))
        with np.errstate(all="ignore"):
            want = getattr(np, fn)(z)
        for g, w in ((got.real, want.real), (got.imag, want.imag)):
            assert np.array_equal(g, w, equal_nan=True) and np.array_equal(np.signbit(g), np.signbit(w)), (fn, got, want)


def test_integer_power_refuses_a_negative_exponent_only_where_it_computes():
    """NumPy's ValueError comes from its loop: an empty result computes no
    element and raises nothing (NOTE: [Negative integer exponents])."""
    base, exponent = np.zeros((0, 2), np.int64), np.array([-1, 2])
    assert np.power(base, exponent).shape == (0, 2)
    assert bcast.pow(base, exponent).shape == (0, 2)
    assert bcast.evaluate("a ** b", a=base, b=exponent).shape == (0, 2)
    with pytest.raises(ValueError, match="negative value -1"):
        bcast.pow(np.ones(2, np.int64), exponent)


def test_integer_power_refuses_a_computed_negative_exponent():
    """An exponent computed inside the expression is computed first and read,
    as NumPy's temporary array would be (NOTE: [Negative integer exponents])."""
    base, n = np.array([2, 3, 4], np.int64), np.array([[3], [1]], np.int64)
    with pytest.raises(ValueError):
        np.power(base, n - 2)
    with pytest.raises(ValueError, match="the exponent n-2 has the negative value -1"):
        bcast.evaluate("x ** (n - 2)", x=base, n=n)
    n_ok = np.array([[3], [2]], np.int64)
    np.testing.assert_array_equal(bcast.evaluate("x ** (n - 2)", x=base, n=n_ok), np.power(base, n_ok - 2))
