"""Float helpers shared by the end-to-end tests that compare with NumPy: a
NaN's kind (quiet or signalling), ULP distances, and how many ULP NumPy's pow
may be from bcast's, and why.

bcast's f32 and f64 pow are its own recipes wherever the host has FMA (NOTE:
[Math recipes]; src/core/math_recipes.h states their bounds: f64 within 1 ULP
of the true value, f32 computed in f64 and rounded once, within half an ULP
and 2**-10), and the C library's pow/powf elsewhere. NumPy's is the C
library's (correctly rounded in practice: glibc's pow and powf), except that
it runs SVML's vector pow for f32 and f64 when three things hold: its build
has the AVX512_SKX dispatch target, the build links SVML, and the host has
AVX512_SKX. SVML's differs from glibc's by up to 1 ULP, measured on
2026-12-01 (Debian's NumPy 1.24.2, an AVX-512 host, glibc 2.36): 2000 x 2000
pairs each of uniform(-10, 10) ** uniform(-10, 10), uniform(0, 10) ** ...,
and e**uniform(-20, 20) ** uniform(-30, 30) differ in 13 to 28 % of the
elements, never by more than 1 ULP, in f32 and in f64; the same run with
NPY_DISABLE_CPU_FEATURES="AVX512_SKX ..." (glibc's pow) differs in none. So
the bound is the sum of the two sides' distances from glibc's: 1 ULP for
bcast's recipes (within 1 ULP of the true value, where glibc's is within
half), plus 1 where NumPy runs SVML. A host without AVX-512 shows bcast's
own side alone: on the 2-core Zen 3 VM (2026-12-06), f64
pow(1.7976931348623157e+308, 0.5) is 2**512, glibc's the float below (the
true value is just under their midpoint). f16 pow is NumPy's scalar loop
(half -> float, powf, float -> half) on every host, and bcast's rounds its
f32 result to f16 once, so its bound is 0 ULP.
"""
import ctypes

import numpy as np

# The smallest bound that held on every pair measured between NumPy's SVML pow
# and glibc's (see the docstring).
SVML_POW_ULPS = 1
# The most bcast's pow recipes may be from glibc's correctly rounded pow.
BCAST_POW_ULPS = 1


def _umath():
    try:
        from numpy._core import _multiarray_umath  # NumPy 2
    except ImportError:
        from numpy.core import _multiarray_umath  # NumPy 1
    return _multiarray_umath


def svml_pow():
    """(whether NumPy's f32/f64 pow is SVML's here, the evidence in words)."""
    umath = _umath()
    built = "AVX512_SKX" in list(umath.__cpu_baseline__) + list(umath.__cpu_dispatch__)
    host = bool(umath.__cpu_features__.get("AVX512_SKX", False))
    try:
        linked = hasattr(ctypes.CDLL(umath.__file__), "__svml_pow8")
    except OSError:
        linked = False
    words = (f"NumPy {np.__version__}: AVX512_SKX target {'built' if built else 'not built'}, "
             f"{'on' if host else 'not on'} this host, SVML {'linked' if linked else 'not linked'}")
    return built and host and linked, words


def pow_ulps(dtype):
    """The ULP bound between NumPy's pow and bcast's for one float dtype here."""
    if np.dtype(dtype) == np.float16:
        return 0
    uses_svml, _ = svml_pow()
    recipes = bool(_umath().__cpu_features__.get("FMA3", False))  # NOTE: [Math recipes]: bcast's own pow
    return (SVML_POW_ULPS if uses_svml else 0) + (BCAST_POW_ULPS if recipes else 0)


def ulp_distance(x, y):
    """ULP between same-dtype finite floats of one sign; floats of opposite signs
    (+0 and -0 included) are told apart by 2**62."""
    bits = f"u{x.itemsize}"
    magnitude = np.array((1 << (8 * x.itemsize - 1)) - 1, dtype=bits)
    mx = (x.view(bits) & magnitude).astype(np.int64)
    my = (y.view(bits) & magnitude).astype(np.int64)
    return np.where(np.signbit(x) == np.signbit(y), np.abs(mx - my), np.int64(2**62))


def quiet_bit(dtype):
    """The top mantissa bit, set in quiet NaNs and clear in signalling ones."""
    size = np.dtype(dtype).itemsize
    return np.array(1 << ({2: 10, 4: 23, 8: 52}[size] - 1), dtype=f"u{size}")


def is_signalling(x):
    """Elementwise: a NaN without its quiet bit."""
    x = np.asarray(x)
    return np.isnan(x) & ((x.view(f"u{x.itemsize}") & quiet_bit(x.dtype)) == 0)
