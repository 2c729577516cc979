"""complex64 and complex128 through the Python module, against NumPy:
promotion with every dtype (np.result_type is the oracle) and of a Python
complex (NEP 50's weak scalar), views and broadcasting, DLPack's kDLComplex,
and the grammar's imaginary literals and .real, .imag, .conj(). Each
function on complex operands is test_functions_vs_numpy.py's subject."""
import itertools

import numpy as np
import pytest

import bcast
from test_module import DLPackOnly

NUMPY_DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
                np.float16, np.float32, np.float64, np.complex64, np.complex128]
PAIRS = list(itertools.product(NUMPY_DTYPES, repeat=2))


def ramp(dtype, n=6):
    """n distinct values of the dtype, complex ones with both parts nonzero."""
    values = np.arange(1, n + 1)
    if np.dtype(dtype).kind == "c":
        return (values + 1j * (n + 1 - values)).astype(dtype)
    return values.astype(dtype) if dtype is not np.bool_ else values % 2 == 0


@pytest.mark.parametrize("ta, tb", PAIRS, ids=[f"{np.dtype(a).name}-{np.dtype(b).name}" for a, b in PAIRS])
def test_arrays_promote_as_np_result_type(ta, tb):
    a, b = ramp(ta), ramp(tb)
    want = np.multiply(a, b)
    got = bcast.evaluate("a * b", a=a, b=b)
    assert got.dtype == np.result_type(ta, tb) == want.dtype
    if got.dtype.kind == "c":
        assert np.array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("number", [2, 2.5, True])
def test_a_python_int_or_float_keeps_a_complex_arrays_dtype(dtype, number):
    z = ramp(dtype)
    got = bcast.evaluate("z * s", z=z, s=number)
    assert got.dtype == dtype
    assert np.array_equal(got, z * number)


def test_views_broadcasts_and_parts_of_complex_arrays():
    rng = np.random.default_rng(3)
    base = (rng.standard_normal((5, 8)) + 1j * rng.standard_normal((5, 8))).astype(np.complex64)
    z = base[::-2, 1::3]                     # negative and non-unit strides
    row = base[0, :3].astype(np.complex128)  # broadcast along dim 0, promoted to c128
    got = bcast.evaluate("z * w - conj(z)", z=z, w=row)
    assert got.dtype == np.complex128
    assert np.array_equal(got, z * row - np.conj(z))
    assert np.array_equal(bcast.evaluate("real(z) + imag(z)", z=z), z.real + z.imag)
    assert np.array_equal(bcast.evaluate("abs(z) > 1", z=z), np.abs(z) > 1)
    out = np.zeros((3, 3), np.complex64)
    assert bcast.add(z, z, out=out) is out
    assert np.array_equal(out, z + z)


def test_complex_arithmetic_and_functions_run_in_jit_kernels():
    # NOTE: [Complex in IR] and NOTE: [Complex math]: arithmetic, abs,
    # comparisons, casts and every function of a complex value have IR.
    z = ramp(np.complex64)
    assert ".host." in bcast.describe("abs(z * z + 1j) + real(z / (z + 1))", z=z)["kernel"]
    for fn in ["exp", "log", "sqrt", "sin", "arctanh"]:
        assert ".host." in bcast.describe(f"{fn}(z)", z=z)["kernel"], fn
    assert ".host." in bcast.describe("z ** (1 + 2j)", z=z)["kernel"]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_dlpack_complex_tensors_are_read(dtype):
    z = ramp(dtype)
    got = bcast.evaluate("z + z", z=DLPackOnly(z))
    assert got.dtype == dtype
    assert np.array_equal(got, z + z)


@pytest.mark.parametrize("dtype", NUMPY_DTYPES, ids=[np.dtype(t).name for t in NUMPY_DTYPES])
def test_a_python_complex_is_weak_as_nep_50_says(dtype):
    """1j takes a complex array's dtype, lifts a float to its complex partner
    and an integer or bool to complex128 (NumPy 2's promotion, switched on in
    conftest.py, is the oracle)."""
    x = ramp(dtype)
    want = np.multiply(x, 2.5 - 1j)
    got = bcast.evaluate("x * s", x=x, s=2.5 - 1j)
    assert got.dtype == want.dtype
    assert np.array_equal(got, want)


def test_numpy_complex_scalars_are_strong():
    z = ramp(np.complex64)
    got = bcast.evaluate("z * s", z=z, s=np.complex128(1j))
    assert got.dtype == np.complex128
    assert np.array_equal(got, z * np.complex128(1j))


# The grammar's complex syntax against the same expression in Python.
TEXTS = [
    ("z.real", lambda z, w: z.real),
    ("z.imag", lambda z, w: z.imag),
    ("z.conj()", lambda z, w: z.conj()),
    ("z.conj().imag * 2", lambda z, w: z.conj().imag * 2),
    ("abs(z * w + 1j)", lambda z, w: abs(z * w + 1j)),
    ("-2j * z", lambda z, w: -2j * z),
    ("z * (1.5e-3J - 2)", lambda z, w: z * (1.5e-3j - 2)),
    ("real(z) + imag(w)", lambda z, w: np.real(z) + np.imag(w)),
]


@pytest.mark.parametrize("text, python", TEXTS, ids=[t for t, _ in TEXTS])
def test_imaginary_literals_and_attributes_read_as_python(text, python):
    rng = np.random.default_rng(7)
    z = (rng.standard_normal(9) + 1j * rng.standard_normal(9)).astype(np.complex64)
    w = (rng.standard_normal(9) + 1j * rng.standard_normal(9)).astype(np.complex64)
    want = python(z, w)
    got = bcast.evaluate(text, z=z, w=w)
    assert got.dtype == want.dtype
    if "abs" in text:  # bcast's hypot, NumPy's AVX-512 loop: within an ULP
        np.testing.assert_array_max_ulp(got, want, maxulp=1)
    else:
        assert np.array_equal(got, want)


def test_scalars_alone_compute_as_python_does():
    assert bcast.evaluate("(1+2j)*(3-1j)") == (1 + 2j) * (3 - 1j)
    assert bcast.evaluate("abs(3+4j)") == 5.0
    assert bcast.evaluate("(2j).imag") == 2.0


def test_the_python_expr_has_numpys_complex_attributes():
    z = ramp(np.complex64)
    x = bcast.var("z")
    got = bcast.evaluate((x.conj() * 1j).real + abs(x).astype(np.complex64).imag, z=z)
    assert np.array_equal(got, (z.conj() * 1j).real + np.abs(z).astype(np.complex64).imag)
    assert bcast.evaluate(x.astype(np.complex128), z=z).dtype == np.complex128


@pytest.mark.parametrize("dtype, want", [(np.float32, np.complex64), (np.float64, np.complex128),
                                         (np.int32, np.complex128), (np.float16, np.complex64)])
def test_complex_of_two_reals_is_numexprs(dtype, want):
    """numexpr's complex(a, b): a + b*1j with the parts as they are (-0, inf and NaN too)."""
    if np.issubdtype(dtype, np.integer):
        x = np.arange(-3, 4, dtype=dtype)
    else:
        x = np.array([0.0, -0.0, 1.5, np.inf, -np.inf, np.nan, 3.0]).astype(dtype)
    y = x[::-1].copy()
    got = bcast.evaluate("complex(x, y)", x=x, y=y)
    expected = np.zeros(x.shape, want)
    expected.real, expected.imag = x, y
    assert got.dtype == want
    assert got.tobytes() == expected.tobytes()
