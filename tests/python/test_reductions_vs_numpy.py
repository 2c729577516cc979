"""bcast's reductions (bcast.sum, prod, mean, amax, amin, any, all) against
NumPy's on random data of every dtype NumPy has, every axis set, keepdims,
strided views, NaN and infinities, and empty inputs: the same dtype and
shape always; integer and bool results and min and max bit for bit (but the
sign of a zero, which docs/semantics.md leaves to the order); float sums and
means within the bound of NOTE: [Reduction order]."""
import math
import zlib

import numpy as np
import pytest

import bcast

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
          np.float16, np.float32, np.float64, np.complex64, np.complex128]
AXES = [None, 0, 1, -1, (0, 2), (2, 0), (0, 1, 2), ()]
PAIRS = [(bcast.sum, np.sum), (bcast.prod, np.prod), (bcast.mean, np.mean), (bcast.amax, np.amax),
         (bcast.amin, np.amin), (bcast.any, np.any), (bcast.all, np.all)]


def sample(dtype, shape, rng):
    """Small values (so that integer products wrap the same way in any order), NaN and inf in floats."""
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -100), min(info.max, 100), shape, endpoint=True).astype(dtype)
    x = rng.uniform(-3, 3, shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * rng.uniform(-3, 3, shape)
    return x.astype(dtype)


def roundings(n):
    return 16 + 5 + math.ceil(math.log2(max(1.0, n / 16))) + 1


def check_float(got, x, axis, keepdims, mean):
    """|got - exact| within the bound times the sum of |x| (per part), plus the result's rounding."""
    wide = x.astype(np.complex256 if np.iscomplexobj(x) else np.longdouble)
    n = x.size if axis is None else int(np.prod([x.shape[a] for a in np.atleast_1d(axis)] or [1]))
    eps = 2.0**-53 if x.dtype in (np.float64, np.complex128) else 2.0**-24
    res_eps = {np.dtype(np.float16): 2.0**-11}.get(x.dtype, eps)
    for part in (np.real, np.imag) if np.iscomplexobj(x) else (np.real,):
        exact = np.sum(part(wide), axis=axis, keepdims=keepdims)
        magnitude = np.sum(np.abs(part(wide)), axis=axis, keepdims=keepdims)
        div = max(n, 1) if mean else 1
        bound = (roundings(n) * eps * magnitude + res_eps * np.abs(exact)) / div
        diff = np.abs(part(np.asarray(got)).astype(np.longdouble) - exact / div)
        assert np.all(diff <= bound), (diff.max(), bound.max())


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("axis", AXES, ids=str)
def test_every_reduction_matches_numpy(dtype, axis):
    rng = np.random.default_rng(zlib.crc32(f"{np.dtype(dtype).name} {axis}".encode()))
    parent = sample(dtype, (5, 8, 12), rng)
    for x in (parent[:, :6, :7], parent.transpose(2, 0, 1)[::-2]):  # strided views, negative steps
        if x.ndim == 3 and axis is not None and max(np.atleast_1d(axis), default=0) >= x.ndim:
            continue
        for ours, theirs in PAIRS:
            for keepdims in (False, True):
                want = theirs(x, axis=axis, keepdims=keepdims)
                got = ours(x, axis=axis, keepdims=keepdims)
                assert np.asarray(got).dtype == np.asarray(want).dtype, (ours.__name__, x.dtype)
                assert np.shape(got) == np.shape(want), (ours.__name__, x.dtype)
                inexact = np.issubdtype(np.asarray(want).dtype, np.inexact)
                if inexact and ours in (bcast.sum, bcast.mean, bcast.prod):
                    if ours is bcast.prod:
                        if x.dtype == np.float16:  # f16 multiplies in f32 and rounds once (NumPy rounds each step)
                            want = np.prod(x.astype(np.float32), axis=axis, keepdims=keepdims).astype(np.float16)
                        np.testing.assert_allclose(got, want, rtol=1e-2 if x.dtype == np.float16 else 1e-5)
                    else:
                        check_float(got, x, axis, keepdims, ours is bcast.mean)
                else:
                    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_nan_and_infinities_propagate_as_numpys(dtype):
    x = np.array([[1, np.nan, 3], [np.inf, -np.inf, 2], [-np.inf, 5, 6]], dtype=dtype)
    for ours, theirs in PAIRS:
        for axis in (None, 0, 1):
            np.testing.assert_array_equal(ours(x, axis=axis), theirs(x, axis=axis))


def test_empty_reductions():
    x = np.zeros((0, 3), np.float32)
    assert bcast.sum(x) == 0 and bcast.prod(x) == 1 and math.isnan(bcast.mean(x))
    assert not bcast.any(x) and bcast.all(x)
    assert bcast.amax(x, axis=1).shape == (0,)
    with pytest.raises(ValueError, match="amax|max: axis 0 of x f32\\[0, 3\\] has extent 0"):
        bcast.amax(x)


def test_dtype_argument():
    x = np.arange(10, dtype=np.int32)
    assert bcast.sum(x, dtype=np.float64).dtype == np.float64
    assert bcast.mean(x, dtype="float32").dtype == np.float32
    with pytest.raises(ValueError, match="takes no dtype"):
        bcast._bcast._reduce("max", x, None, False, np.float64)


def test_bad_axes_are_clear_errors():
    x = np.zeros((2, 3))
    with pytest.raises(ValueError, match="axis 2 is out of range for x of rank 2"):
        bcast.sum(x, axis=2)
    with pytest.raises(ValueError, match="axis 1 is given twice"):
        bcast.sum(x, axis=(1, -1))


def test_bits_do_not_depend_on_the_thread_count():
    x = np.random.default_rng(5).standard_normal((3, 300_001)).astype(np.float32)
    before = bcast.num_threads()
    try:
        results = []
        for threads in (1, 2, 3, 16):
            bcast.set_num_threads(threads)
            results.append([bcast.sum(x).tobytes(), bcast.sum(x, axis=1).tobytes(), bcast.sum(x, axis=0).tobytes()])
        assert all(r == results[0] for r in results)
    finally:
        bcast.set_num_threads(before)


def test_expressions_with_reductions_match_numpy():
    """NOTE: [Expression passes] from the text grammar and from bcast.expr, against NumPy's formulas."""
    rng = np.random.default_rng(9)
    x = rng.standard_normal((64, 300)).astype(np.float32)
    y = rng.standard_normal((64, 300)).astype(np.float32)
    eps = 2.0**-24
    np.testing.assert_allclose(bcast.evaluate("sum(x*y)", x=x, y=y), np.sum(x.astype(np.float64) * y), rtol=1e-4)
    np.testing.assert_allclose(bcast.evaluate("sum((x - y)**2, axis=-1)", x=x, y=y), np.sum((x - y) ** 2, axis=-1),
                               rtol=64 * eps)
    e = bcast.evaluate("exp(x - amax(x, axis=-1, keepdims=True))", x=x)
    want = np.exp(x - np.max(x, axis=-1, keepdims=True))
    np.testing.assert_allclose(e, want, rtol=4 * eps)
    softmax = bcast.evaluate("exp(x - max(x, axis=-1, keepdims=True)) / sum(exp(x - max(x, axis=-1, keepdims=True)), "
                             "axis=-1, keepdims=True)", x=x)
    np.testing.assert_allclose(softmax, want / np.sum(want, axis=-1, keepdims=True), rtol=64 * eps, atol=1e-12)
    g = rng.standard_normal(300).astype(np.float32)
    b = rng.standard_normal(300).astype(np.float32)
    layer_norm = bcast.evaluate("(x - mean(x, axis=-1, keepdims=True)) / sqrt(mean((x - mean(x, axis=-1, keepdims=True))**2,"
                                " axis=-1, keepdims=True) + 1e-5) * g + b", x=x, g=g, b=b)
    m = np.mean(x, axis=-1, keepdims=True)
    v = np.mean((x - m) ** 2, axis=-1, keepdims=True)
    np.testing.assert_allclose(layer_norm, (x - m) / np.sqrt(v + np.float32(1e-5)) * g + b, rtol=1e-4, atol=1e-5)
    from bcast import expr as E
    xv = E.var("x")
    got = bcast.evaluate(E.sum(xv * xv, axis=0, keepdims=True) + E.amax(xv), x=x)
    np.testing.assert_allclose(got, np.sum(x * x, axis=0, keepdims=True) + np.max(x), rtol=64 * eps)
    img = rng.integers(0, 256, (40, 50, 3), dtype=np.uint8)
    norm = bcast.evaluate("(f32(img) - mean(img, axis=(0, 1))) / 64", img=img)
    np.testing.assert_allclose(norm, (img.astype(np.float32) - np.mean(img, axis=(0, 1))) / 64, rtol=1e-6, atol=1e-6)
    info = bcast.describe("x - mean(x, axis=1, keepdims=True)", x=x)
    assert info["out_shape"] == (64, 300)


def random_reduction_expression(rng, depth, rank):
    """A text that both bcast's grammar and Python with NumPy's functions read: x, y
    (y broadcasts), + - *, abs and tanh, and reductions with keepdims (so that
    the rest broadcasts them back) over random axes of an operand that holds
    x, nested."""
    if depth == 0 or rng.random() < 0.2:
        return str(rng.choice(["x", "y", "x", "0.5"]))
    kind = rng.integers(0, 4)
    if kind == 0:
        op = rng.choice(["+", "-", "*"])
        return f"({random_reduction_expression(rng, depth - 1, rank)} {op} {random_reduction_expression(rng, depth - 1, rank)})"
    if kind == 1:
        return f"{rng.choice(['abs', 'tanh'])}({random_reduction_expression(rng, depth - 1, rank)})"
    axes = tuple(sorted(int(a) for a in rng.choice(rank, size=rng.integers(1, rank + 1), replace=False)))
    name = rng.choice(["sum", "mean", "amax", "amin"])
    # Its operand has every dim: x takes part in it.
    operand = f"({random_reduction_expression(rng, depth - 1, rank)} {rng.choice(['+', '*'])} x)"
    return f"{name}({operand}, axis={axes}, keepdims=True)"


def test_random_expressions_with_reductions_match_numpy():
    """NOTE: [Expression passes] and NOTE: [Fused reductions]: random expressions whose
    reductions nest at any depth, planned into passes (describe() lists them),
    against the same text evaluated by NumPy in f64; on a strided x and a y
    that broadcasts."""
    rng = np.random.default_rng(32)
    numpy_names = {"sum": np.sum, "mean": np.mean, "amax": np.amax, "amin": np.amin, "abs": np.abs, "tanh": np.tanh}
    checked = 0
    for trial in range(40):
        shape = (1000, 1000, 1000)
        while np.prod(shape) > 100_000:
            shape = tuple(int(e) for e in rng.choice([1, 3, 17, 40, 513], size=3))
        parent = rng.standard_normal((shape[0], shape[1], 2 * shape[2]))
        x = parent[:, :, ::2]
        y = rng.standard_normal((shape[1], 1))
        text = random_reduction_expression(rng, 4, 3)
        if "axis" not in text:
            continue
        want = eval(text, {"__builtins__": {}}, dict(numpy_names, x=x, y=y))  # noqa: S307: our own text
        got = bcast.evaluate(text, x=x, y=y)
        assert np.asarray(got).shape == np.shape(want), text
        scale = max(1.0, float(np.max(np.abs(want))))
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-9 * scale * x.size, err_msg=text)
        passes = bcast.describe(text, x=x, y=y)["passes"]
        assert passes and all(p.startswith(("r", "rest")) for p in passes), (text, passes)
        checked += 1
    assert checked >= 20


COMPOSED = [(bcast.argmin, np.argmin), (bcast.argmax, np.argmax), (bcast.variance, np.var), (bcast.std, np.std),
            (bcast.nansum, np.nansum), (bcast.nanmean, np.nanmean), (bcast.nanmin, np.nanmin),
            (bcast.nanmax, np.nanmax)]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2)], ids=str)
def test_composed_reductions_match_numpy(dtype, axis):
    """NOTE: [Composed reductions] against NumPy: ties (small integers), NaN in floats, a strided view."""
    rng = np.random.default_rng(zlib.crc32(f"composed {np.dtype(dtype).name} {axis}".encode()))
    parent = sample(dtype, (6, 9, 10), rng)
    if np.issubdtype(dtype, np.floating) or np.issubdtype(dtype, np.complexfloating):
        parent = np.round(parent)  # ties for argmin and argmax
        parent.flat[rng.choice(parent.size, 7, replace=False)] = np.nan
    x = parent.transpose(1, 0, 2)[::-1, :, 1:9]
    for ours, theirs in COMPOSED:
        if ours in (bcast.argmin, bcast.argmax) and isinstance(axis, tuple):
            with pytest.raises(ValueError, match="no axis .* or one axis"):
                ours(x, axis=axis)
            continue
        for keepdims in (False, True):
            with np.errstate(all="ignore"), __import__("warnings").catch_warnings():
                __import__("warnings").simplefilter("ignore")
                want = theirs(x, axis=axis, keepdims=keepdims)
            got = ours(x, axis=axis, keepdims=keepdims)
            assert np.asarray(got).dtype == np.asarray(want).dtype, (ours.__name__, x.dtype)
            assert np.shape(got) == np.shape(want), (ours.__name__, x.dtype)
            if ours in (bcast.variance, bcast.std, bcast.nanmean) or (ours is bcast.nansum and x.dtype.kind in "fc"):
                rtol = 1e-2 if x.dtype == np.float16 else 1e-5 if x.dtype in (np.float32, np.complex64) else 1e-12
                np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol, equal_nan=True)
            else:
                np.testing.assert_array_equal(got, want)


def test_composed_reductions_keywords_and_errors():
    x = np.arange(12.0).reshape(3, 4)
    np.testing.assert_allclose(bcast.variance(x, axis=1, ddof=1), np.var(x, axis=1, ddof=1))
    np.testing.assert_allclose(bcast.std(x, correction=1), np.std(x, ddof=1))
    np.testing.assert_allclose(bcast.evaluate("var(x, axis=0, correction=1)", x=x), np.var(x, axis=0, ddof=1))
    assert bcast.evaluate("argmax(x)", x=x) == 11
    from bcast import expr as E
    np.testing.assert_allclose(bcast.evaluate(E.variance(E.var("x"), axis=1, ddof=1), x=x), np.var(x, axis=1, ddof=1))
    with pytest.raises(ValueError, match="argmax: axis 1 of its operand f64\\[3, 0\\] has extent 0"):
        bcast.argmax(np.zeros((3, 0)), axis=1)
    with pytest.raises(ValueError, match="ddof and correction"):
        bcast.std(x, ddof=1, correction=1)


def test_numpy_integers_are_axes_and_the_expr_nodes_take_numpys_order():
    x = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(bcast.sum(x, axis=np.int64(1)), np.sum(x, axis=1))
    np.testing.assert_array_equal(bcast.amax(x, axis=(np.int32(0), 2)), np.max(x, axis=(0, 2)))
    from bcast import expr as E
    got = bcast.evaluate(E.sum(E.var("x"), 1, np.float32), x=x)  # sum(a, axis, dtype): NumPy's order
    assert got.dtype == np.float32 and got.shape == (2, 4)
    np.testing.assert_array_equal(bcast.evaluate(E.mean(E.var("x"), np.int64(2)), x=x), np.mean(x, axis=2))
