"""bcast's math functions against the true value (mpmath at 160 bits, rounded
by nothing): the ULP bounds docs/semantics.md promises, per function and
dtype, on sampled arguments and the hard ones.

- f32 and f64: the error of every result, in ULPs of the true value's
  binade (subnormals: the smallest subnormal), is at most BOUNDS[fn]: 1 for
  exp log sin cos sqrt and the arithmetic, 2 for the rest.
- f16: computed in f32 and rounded once, so at most half an f16 ULP plus the
  f32 bound scaled to f16's ULP.
- Both tiers: the JIT's kernel (vector lanes and the loop's remainder) and the
  reference executor (BCAST_JIT=0), which the JIT falls back to.
- Where the true value is not a real number (log(-1), arccos(2)) the result
  is NaN; where it overflows the dtype, infinity of its sign.

Arguments per function and dtype: SAMPLES uniform in the function's core range,
SAMPLES with random bits over its whole domain (every binade), and the hard
cases: zeros, subnormals, limits, infinities, NaN, 1 +- ULPs (log, log1p),
the overflow and underflow thresholds (exp, exp2, expm1, sinh, cosh), and the
floats nearest to multiples of pi/2 up to 1e6 (sin cos tan).
BCAST_MPMATH_SAMPLES raises the count for a longer run.
"""
import os
import zlib

import mpmath
import numpy as np
import pytest

import bcast

mp = mpmath.mp
mp.prec = 160

SAMPLES = int(os.environ.get("BCAST_MPMATH_SAMPLES", "600"))

# The promise (docs/semantics.md, "Accuracy"): ULP of the result's dtype.
BOUNDS = {"exp": 1, "log": 1, "sin": 1, "cos": 1, "sqrt": 0.5, "power": 1, "float_power": 1, "hypot": 1}
for _name in ["tan", "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh", "sigmoid", "arcsinh",
              "arccosh", "arctanh", "exp2", "expm1", "log2", "log10", "log1p", "cbrt", "logaddexp", "logaddexp2"]:
    BOUNDS[_name] = 2


# What a true function gives where mpmath has no answer for IEEE's: a pole
# (0 ** -1) or a signed zero's side (arctan2(-0, -1)). Those are NumPy's
# special values, which tests/python/test_functions_vs_numpy.py checks.
NO_ANSWER = object()


def _real(f):
    """f on mpf arguments; None where the true value is not a real number."""
    def call(*args):
        try:
            v = f(*args)
        except ZeroDivisionError:
            return NO_ANSWER
        except ValueError:
            return None
        return v if isinstance(v, mpmath.mpf) and not mp.isnan(v) else None
    return call


def _cbrt(x):
    return -mp.cbrt(-x) if x < 0 else mp.cbrt(x)


def _log_add_exp(a, b, base):
    # log(base**a + base**b) as the larger plus log1p of the other's share: at
    # any fixed precision the plain sum loses a tiny operand's share.
    high, low = max(a, b), min(a, b)
    return high + mp.log1p(mp.power(base, low - high)) / mp.log(base)


# The true function, written from its definition with mpmath (no code shared
# with bcast or NumPy).
TRUE = {
    "exp": mp.exp, "exp2": lambda x: mp.power(2, x), "expm1": mp.expm1, "log": mp.log, "log2": lambda x: mp.log(x, 2),
    "log10": mp.log10, "log1p": mp.log1p, "sin": mp.sin, "cos": mp.cos, "tan": mp.tan, "arcsin": mp.asin,
    "arccos": mp.acos, "arctan": mp.atan, "sinh": mp.sinh, "cosh": mp.cosh, "tanh": mp.tanh, "arcsinh": mp.asinh,
    "arccosh": mp.acosh, "arctanh": mp.atanh, "sigmoid": lambda x: 1 / (1 + mp.exp(-x)), "cbrt": _cbrt,
    "sqrt": mp.sqrt, "power": mp.power, "float_power": mp.power, "arctan2": mp.atan2, "hypot": mp.hypot,
    "logaddexp": lambda a, b: _log_add_exp(a, b, mp.e), "logaddexp2": lambda a, b: _log_add_exp(a, b, 2),
}
TRUE = {k: _real(f) for k, f in TRUE.items()}

# Where each function's arguments come from: (core range, whole domain), for
# the first operand; a binary function's second operand likewise.
EVERYWHERE = (-np.inf, np.inf)
DOMAINS = {
    "exp": ((-10, 10), (-750, 710)), "exp2": ((-10, 10), (-1080, 1024)), "expm1": ((-1, 1), (-750, 710)),
    "log": ((0.5, 2), (0, np.inf)), "log2": ((0.5, 2), (0, np.inf)), "log10": ((0.5, 2), (0, np.inf)),
    "log1p": ((-0.5, 1), (-1, np.inf)), "sin": ((-10, 10), (-1e6, 1e6)), "cos": ((-10, 10), (-1e6, 1e6)),
    "tan": ((-10, 10), (-1e6, 1e6)), "arcsin": ((-1, 1), (-1, 1)), "arccos": ((-1, 1), (-1, 1)),
    "arctanh": ((-1, 1), (-1, 1)), "arccosh": ((1, 10), (1, np.inf)), "sqrt": ((0, 10), (0, np.inf)),
    "sinh": ((-10, 10), (-720, 720)), "cosh": ((-10, 10), (-720, 720)),
    "power": ((0, 10), (0, np.inf)), "float_power": ((0, 10), (0, np.inf)),
}
SECOND = {"power": ((-10, 10), (-40, 40)), "float_power": ((-10, 10), (-40, 40)),
          "arctan2": ((-10, 10), EVERYWHERE), "hypot": ((-10, 10), EVERYWHERE),
          "logaddexp": ((-50, 50), EVERYWHERE), "logaddexp2": ((-50, 50), EVERYWHERE)}
# logaddexp(a, b) is the larger operand plus log1p of the other's share: near
# the result's zero crossing (a = -b = -log(2) / 2) the sum cancels, as
# NumPy's does. Their bound is in ULPs of the larger operand there
# (docs/semantics.md, "Accuracy").
CANCELS = {"logaddexp", "logaddexp2"}
UNARY = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin", "arccos", "arctan",
         "sinh", "cosh", "tanh", "sigmoid", "arcsinh", "arccosh", "arctanh", "cbrt", "sqrt"]
BINARY = ["power", "float_power", "arctan2", "hypot", "logaddexp", "logaddexp2"]
DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64}


def _random_bits(rng, dtype, n, lo, hi):
    """n finite floats of dtype with uniformly random bits (every binade alike), within [lo, hi]."""
    info = np.finfo(dtype)
    bits = np.dtype(f"u{info.bits // 8}")
    out = np.empty(0, dtype)
    while out.size < n:
        x = rng.integers(0, np.iinfo(bits).max, size=4 * n, dtype=bits, endpoint=True).view(dtype)
        x = x[np.isfinite(x) & (x >= lo) & (x <= hi)]
        out = np.concatenate([out, x])
    return out[:n]


def _hard_cases(fn, dtype):
    info = np.finfo(dtype)
    tiny_sub = np.array(1, f"u{info.bits // 8}").view(dtype)[()]
    v = [0.0, -0.0, tiny_sub, -tiny_sub, info.tiny, -info.tiny, info.tiny - tiny_sub, info.max, -info.max, 1, -1,
         0.5, 2, np.inf, -np.inf, np.nan, info.eps, -info.eps]
    one = np.array(1, dtype)
    for k in range(1, 4):  # 1 +- k ULP: log's and log1p's hardest
        v += [one + k * info.eps, one - k * info.epsneg, -one + k * info.epsneg, k * info.eps]
    big = float(info.max)
    for threshold in [np.log(big), np.log(float(info.tiny)), np.log(float(tiny_sub)), np.log2(big),
                      np.log2(float(tiny_sub))]:
        t = np.array(threshold, dtype)
        v += [t, np.nextafter(t, dtype(np.inf)), np.nextafter(t, dtype(-np.inf))]
    if fn in ("sin", "cos", "tan"):
        for k in [1, 2, 3, 7, 11, 101, 1001, 12345, 100003, 636619]:
            if k * np.pi / 2 > min(1e6, float(info.max)):
                continue
            t = np.array(k * np.pi / 2, dtype)
            v += [t, np.nextafter(t, dtype(np.inf)), np.nextafter(t, dtype(-np.inf)), -t]
    return np.array(v, dtype=np.float64).astype(dtype)


def arguments(fn, dtype):
    rng = np.random.default_rng(zlib.crc32(f"{fn} {np.dtype(dtype).name}".encode()))

    def column(ranges, hard):
        (core_lo, core_hi), (lo, hi) = ranges
        info = np.finfo(dtype)
        core = rng.uniform(core_lo, core_hi, SAMPLES).astype(dtype)
        lo, hi = max(lo, -float(info.max)), min(hi, float(info.max))
        return np.concatenate([core, _random_bits(rng, dtype, SAMPLES, lo, hi), hard])

    hard = _hard_cases(fn, dtype)
    a = column(DOMAINS.get(fn, ((-10, 10), EVERYWHERE)), hard)
    if fn not in SECOND:
        return (a,)
    b = column(SECOND[fn], np.concatenate([hard, hard[::-1]])[:hard.size])
    # Every hard case against every other once, for the pairs' special values.
    ha, hb = np.meshgrid(hard, hard)
    return np.concatenate([a, ha.ravel()]), np.concatenate([b, hb.ravel()])


def ulps_from_true(got, true, dtype, scale=0.0):
    """|got - true| in ULPs of the binade of true (or of scale, when larger);
    inf when got is not the right kind of value."""
    info = np.finfo(dtype)
    precision, min_exponent = info.nmant + 1, info.minexp
    if true is None:
        return 0.0 if np.isnan(got) else np.inf
    if mp.isinf(true):
        return 0.0 if np.isinf(got) and (got > 0) == (true > 0) else np.inf
    if np.isnan(got):
        return np.inf
    max_ulp = mp.ldexp(1, info.maxexp - precision)
    if np.isinf(got):  # right only when the true value rounds past the largest float
        return 0.0 if abs(true) >= mp.mpf(float(info.max)) + max_ulp / 2 and (got > 0) == (true > 0) else np.inf
    magnitude = max(abs(true), mp.mpf(scale))
    exponent = max(int(mp.floor(mp.log(magnitude, 2))) if magnitude != 0 else min_exponent, min_exponent)
    return float(abs(mp.mpf(float(got)) - true) / mp.ldexp(1, exponent - precision + 1))


def worst(fn, dtype, jit):
    args = arguments(fn, dtype)
    names = "ab"[:len(args)]
    bcast.set_setting("BCAST_JIT", "1" if jit else "0")
    try:
        got = np.asarray(bcast.evaluate(f"{fn}({', '.join(names)})", **dict(zip(names, args))))
    finally:
        bcast.set_setting("BCAST_JIT", "1")
    assert got.dtype == dtype
    worst_err, worst_at = 0.0, None
    for i in range(got.size):
        if len(args) == 2 and any(x[i] == 0 or not np.isfinite(x[i]) for x in args):
            continue  # mpmath has one zero and no IEEE rules for pairs (pow(nan, 0) is 1): NO_ANSWER
        if np.isnan(args[0][i]):
            true = None
        else:
            true = TRUE[fn](*(mp.mpf(float(x[i])) for x in args))
        if true is NO_ANSWER:
            continue
        scale = max(abs(float(x[i])) for x in args) if fn in CANCELS else 0.0
        err = ulps_from_true(got[i], true, dtype, scale)
        if err > worst_err:
            worst_err, worst_at = err, (tuple(float(x[i]) for x in args), float(got[i]), true)
    return worst_err, worst_at


def bound(fn, dtype):
    if dtype == np.float16:  # f32, rounded once: half an f16 ULP plus f32's error in f16's ULPs
        return 0.5 + BOUNDS[fn] * 2.0 ** (11 - 24)
    return BOUNDS[fn]


CASES = [(fn, d) for fn in UNARY + BINARY for d in ("f16", "f32", "f64")
         if not (fn == "float_power" and d != "f64")]


@pytest.mark.parametrize("tier", ["jit", "reference"])
@pytest.mark.parametrize("fn,dtype", CASES)
def test_within_bound(fn, dtype, tier):
    err, at = worst(fn, DTYPES[dtype], tier == "jit")
    assert err <= bound(fn, DTYPES[dtype]), (
        f"{fn} {dtype} ({tier}): {err:.3f} ULP at {at} (arguments, result, true value); "
        f"the bound is {bound(fn, DTYPES[dtype])}")


# ---- Complex arguments (NOTE: [Complex math]) ----
#
# Each part of the result in ULPs of that part's true value. A c64 computes
# in f64 and rounds each part once: within half an ULP plus a hair. A c128's
# parts are products and sums of real functions' values: those of exp, sin,
# cos, sinh and cosh are carried in pairs and rounded once (NOTE: [Two-part
# math]), the others' are each rounded, so their ULPs add: COMPLEX_BOUNDS
# (docs/semantics.md; the figures by them are the most these samples gave,
# this file as a script with BCAST_MPMATH_SAMPLES=2000). Special values (infinite or NaN parts, and zeros on
# a branch cut, where mpmath has no signed zero) are NumPy's, which
# tests/python/test_functions_vs_numpy.py checks.
C64_BOUND = 0.5 + 2.0 ** -16
COMPLEX_BOUNDS = {  # c128; the figure is the most 6,000 arguments gave (2026-12-04; before the pairs, 2026-12-03)
    "exp": 1.0,           # 0.524 (1.24 before sin and cos were pairs)
    "exp2": 1.0,          # 0.529 (1.84)
    "expm1": 1.0,         # 0.547 (2.21 before; its real part in ULPs of the larger term)
    "log": 1.0,           # 0.991
    "log2": 2.0,          # 1.79
    "log10": 2.0,         # 1.82
    "log1p": 1.5,         # 0.99 (1.065 in the default samples)
    "sqrt": 1.0,          # 0.5 (1.56 before |z| and t were carried in two parts)
    "sin": 1.0,           # 0.637 (2.46)
    "cos": 1.0,           # 0.535 (2.62)
    "tan": 1.0,           # 0.545 (4.62)
    "sinh": 1.0,          # 0.564 (2.24)
    "cosh": 1.0,          # 0.534 (2.19)
    "tanh": 1.0,          # 0.544 (4.21)
    "arcsin": 2.0,        # 1.05 (2.28 before A was a pair)
    "arccos": 2.0,        # 1.25 (2.06)
    "arctan": 2.0,        # 1.31 (1.98 before its quotient was a pair; 1.26 in the default samples)
    "arcsinh": 2.0,       # 1.12 (1.93; 2.049 in the default samples)
    "arccosh": 2.0,       # 1.18 (2.46)
    "arctanh": 2.0,       # 1.15 (1.73; 1.44 in the default samples)
}
def _wider(f):
    with mp.extraprec(1200):
        return +f()


COMPLEX_TRUE = {
    "exp": mp.exp, "exp2": lambda z: mp.power(2, z), "log": mp.log, "log2": lambda z: mp.log(z) / mp.log(2),
    "log10": lambda z: mp.log(z) / mp.log(10), "sqrt": mp.sqrt, "sin": mp.sin, "cos": mp.cos, "sinh": mp.sinh,
    "cosh": mp.cosh, "tan": mp.tan, "tanh": mp.tanh,
    # 1 + z and e**z - 1 cancel, and so do the inverse functions' sums (asin's
    # z + sqrt(1 - z**2)): 1,200 more bits reach a part as small as 2**-1074.
    "log1p": lambda z: _wider(lambda: mp.log(1 + z)), "expm1": lambda z: _wider(lambda: mp.expm1(z)),
    "arcsin": lambda z: _wider(lambda: mp.asin(z)), "arccos": lambda z: _wider(lambda: mp.acos(z)),
    "arctan": lambda z: _wider(lambda: mp.atan(z)), "arcsinh": lambda z: _wider(lambda: mp.asinh(z)),
    "arccosh": lambda z: _wider(lambda: mp.acosh(z)), "arctanh": lambda z: _wider(lambda: mp.atanh(z)),
}
# Each part's range over its whole domain: e**x past overflow and
# underflow, sin y and cos y up to 1e6 (beyond, as the real functions).
COMPLEX_PART_RANGES = {
    "exp": (760, 1e6), "exp2": (1100, 1e6), "sinh": (760, 1e6), "cosh": (760, 1e6), "sin": (1e6, 760),
    "cos": (1e6, 760), "tan": (1e6, np.inf), "tanh": (np.inf, 1e6), "expm1": (760, 1e6),
}
# Zero parts on a branch cut (where mpmath has no signed zero): log's, sqrt's
# and log1p's on the real axis left of their branch point, the inverse
# functions' on the real or imaginary axis beyond +-1.
BRANCH_CUT = {"log", "log2", "log10", "sqrt", "log1p", "arcsin", "arccos", "arctanh", "arccosh", "arcsinh", "arctan"}


def on_branch_cut(fn, x, y):
    if fn in ("log", "log2", "log10", "sqrt"):
        return y == 0 and x < 0
    if fn == "log1p":
        return y == 0 and x < -1
    if fn in ("arcsin", "arccos", "arctanh"):
        return y == 0 and abs(x) > 1
    if fn == "arccosh":
        return y == 0 and x < 1
    return x == 0 and abs(y) > 1  # arcsinh, arctan
# exp2's angle y ln 2 is carried in two parts while |y| < 2**26; beyond, it is
# rounded to one double, as NumPy's (docs/semantics.md).
EXP2_ANGLE_LIMIT = 2.0 ** 26


def expm1_terms(x, y):
    """The larger term of expm1(x + iy)'s real part, expm1(x) cos y - 2 sin(y/2)**2
    (NumPy's form, and bcast's): where they cancel, a c128's real part is within
    its bound in ULPs of that term, as logaddexp's is of its larger operand
    (docs/semantics.md); a c64 computes in f64."""
    with np.errstate(over="ignore"):
        return max(abs(np.expm1(x) * np.cos(y)), 2 * np.sin(y / 2) ** 2)


def complex_arguments(fn, dtype):
    part = np.float32 if dtype == np.complex64 else np.float64
    rng = np.random.default_rng(zlib.crc32(f"{fn} {np.dtype(dtype).name}".encode()))
    core = rng.uniform(-10, 10, SAMPLES) + 1j * rng.uniform(-10, 10, SAMPLES)
    re_range, im_range = COMPLEX_PART_RANGES.get(fn, (np.inf, np.inf))
    whole = (_random_bits(rng, part, SAMPLES, -re_range, re_range).astype(np.float64)
             + 1j * _random_bits(rng, part, SAMPLES, -im_range, im_range).astype(np.float64))
    # The unit circle (log's real part cancels there), its multiples of pi/2
    # scaled up and down (one part's true value near 0), and one part tiny or
    # huge beside the other.
    t = rng.uniform(-np.pi, np.pi, 200)
    circle = np.cos(t) + 1j * np.sin(t)
    info = np.finfo(part)
    edges = [0.6 + 0.8j, 1 + 1e-10j, 1 - 1e-9 + 1e-5j, 1j, -1j + 1e-300, 1e-300 + 1e-300j, 1e300 - 1e300j,
             float(info.max) / 2 + 1j, 1 + 1j * float(info.max) / 4, float(info.tiny) * (1 + 1j),
             np.pi / 2 * 1j, np.pi * 1j + 1, 100.5 + np.pi / 2 * 1j, np.pi / 2 + 3j, -np.pi / 2 - 30j,
             # found by a review (2026-12-04): expm1 past x = 38, where its -1
             # still counts; 1 - |x| rounded in atan's and atanh's quotient; a
             # product that rounded as a subnormal before 2**n scaled it up
             40 + np.pi / 2 * 1j, 39.968 + 252.898j, 38.7 + 572566.2j, 0.2338j, 0.2446 + 1e-15j,
             700 + 1e-310j, 705 + 3e-320j]
    if fn == "exp2":  # its angle y ln 2 is lifted below 2**-900: 2**x up to 2**1023 times a tiny sine
        edges += [1020 - 5e-324j, 1000 + 2e-300j, -1000 + 1e-310j, 1023.5 + 1e-320j]
    z = np.concatenate([core, whole, circle, circle * (1 + float(info.eps)), edges])
    with np.errstate(over="ignore", invalid="ignore"):  # c64: the huge edges are inf, and left out
        return z.astype(dtype)


_COMPLEX_TRUE_CACHE = {}


def complex_worst(fn, dtype, jit, numpy=False):
    """The most ULPs any part is off, and where: bcast's kernel (jit) or
    reference evaluator, or NumPy's ufunc (numpy, for the docs' comparison)."""
    z = complex_arguments(fn, dtype)
    part = np.float32 if dtype == np.complex64 else np.float64
    bcast.set_setting("BCAST_JIT", "1" if jit else "0")
    try:
        if numpy:
            with np.errstate(all="ignore"):
                got = getattr(np, fn)(z)
        else:
            got = np.asarray(bcast.evaluate(f"{fn}(z)", z=z))
    finally:
        bcast.set_setting("BCAST_JIT", "1")
    assert got.dtype == dtype
    key = (fn, np.dtype(dtype).name)
    if key not in _COMPLEX_TRUE_CACHE:
        _COMPLEX_TRUE_CACHE[key] = [COMPLEX_TRUE[fn](mp.mpc(float(v.real), float(v.imag))) for v in z]
    worst_err, worst_at = 0.0, None
    for i, true in enumerate(_COMPLEX_TRUE_CACHE[key]):
        x, y = float(z[i].real), float(z[i].imag)
        if not (np.isfinite(x) and np.isfinite(y)) or (fn in BRANCH_CUT and on_branch_cut(fn, x, y)):
            continue
        if fn == "exp2" and abs(y) >= EXP2_ANGLE_LIMIT:
            continue
        for name, got_part, true_part in (("re", got[i].real, true.real), ("im", got[i].imag, true.imag)):
            cancels = fn == "expm1" and name == "re" and dtype == np.complex128
            err = ulps_from_true(got_part, true_part, part, expm1_terms(x, y) if cancels else 0.0)
            if err > worst_err:
                worst_err, worst_at = err, (complex(x, y), name, complex(got[i]), complex(true))
    return worst_err, worst_at


@pytest.mark.parametrize("tier", ["jit", "reference"])
@pytest.mark.parametrize("fn", sorted(COMPLEX_TRUE))
@pytest.mark.parametrize("dtype", ["c64", "c128"])
def test_complex_within_bound(fn, dtype, tier):
    t = np.complex64 if dtype == "c64" else np.complex128
    limit = C64_BOUND if dtype == "c64" else COMPLEX_BOUNDS[fn]
    err, at = complex_worst(fn, t, tier == "jit")
    assert err <= limit, (f"{fn} {dtype} ({tier}): {err:.3f} ULP at {at} (argument, part, result, true value); "
                          f"the bound is {limit}")


if __name__ == "__main__":
    # docs/semantics.md's complex table: each function's most ULPs in any part,
    # bcast's kernel beside NumPy's, on this file's arguments
    # (BCAST_MPMATH_SAMPLES=2000 for the docs' run).
    print("| function | bcast c64 | NumPy c64 | bcast c128 | NumPy c128 |")
    print("|---|---|---|---|---|")
    for name in sorted(COMPLEX_TRUE):
        row = [f"{complex_worst(name, t, True, numpy)[0]:.3g}" for t in (np.complex64, np.complex128)
               for numpy in (False, True)]
        print(f"| `{name}` | {' | '.join(row)} |", flush=True)
