"""complex64 and complex128 through the Python module, against NumPy:
promotion with every dtype (np.result_type is the oracle), views and
broadcasting, DLPack's kDLComplex, and what is not taken yet (a Python
complex scalar). Each function on complex operands is
test_functions_vs_numpy.py's subject."""
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


def test_complex_calls_run_on_the_reference_executor_until_the_jit_has_complex_kernels():
    z = ramp(np.complex64)
    assert bcast.describe("z * z", z=z)["kernel"] == "reference"


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_dlpack_complex_tensors_are_read(dtype):
    z = ramp(dtype)
    got = bcast.evaluate("z + z", z=DLPackOnly(z))
    assert got.dtype == dtype
    assert np.array_equal(got, z + z)


def test_a_python_complex_is_refused_until_complex_scalars_exist():
    with pytest.raises(TypeError, match="Python complex is not yet taken"):
        bcast.evaluate("z * s", z=ramp(np.complex64), s=1j)
    # A NumPy scalar is a strong operand of its dtype, as NEP 50 says.
    got = bcast.evaluate("z * s", z=ramp(np.complex64), s=np.complex64(1j))
    assert got.dtype == np.complex64
    assert np.array_equal(got, ramp(np.complex64) * np.complex64(1j))
