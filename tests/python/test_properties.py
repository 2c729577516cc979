"""Property tests with Hypothesis: random shapes, strides (negative and zero
too), dtypes and ops against NumPy, bit for bit (tests/e2e/numpy_ops.py says
what "bit for bit" allows for NaNs and pow)."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import bcast
from numpy_ops import DTYPES, OPS, mismatches, numpy_result as numpy_op

ALL = sorted(DTYPES)

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def elements(dtype):
    """Every value of the dtype; floats without signalling NaNs (their
    quieting is the edge-case test's subject) and max/min's ±0 ties left to
    the edge cases too (bcast defines them, NumPy's answer depends on its path)."""
    dtype = np.dtype(DTYPES.get(dtype, dtype))
    if dtype.kind == "f":
        width = 8 * dtype.itemsize
        return st.one_of(st.floats(width=width, allow_nan=False), st.just(float("nan")))
    return hnp.from_dtype(dtype)


@st.composite
def strided(draw, dtype, shape):
    """An array of `shape` viewing a larger buffer: each dim walked with a step
    of 1, 2, -1 or -3, or repeated (stride 0); sometimes Fortran-ordered,
    sometimes read-only."""
    steps = [draw(st.sampled_from([1, 1, 2, -1, -3, 0])) for _ in shape]
    base_shape = [1 if s == 0 else e * abs(s) for e, s in zip(shape, steps)]
    order = draw(st.sampled_from(["C", "F"]))
    dtype = np.dtype(DTYPES.get(dtype, dtype))
    base = draw(hnp.arrays(dtype, base_shape, elements=elements(dtype)))
    base = np.asarray(base, order=order)
    view = base[tuple(slice(None) if s == 0 else slice(None, None, s) for s in steps)]
    strides = [0 if s == 0 else st_ for s, st_ in zip(steps, view.strides)]
    view = np.lib.stride_tricks.as_strided(view, shape=shape, strides=strides, writeable=False)
    return view


@st.composite
def broadcast_shapes(draw):
    """Two shapes that broadcast, NumPy's way: trailing dims aligned, extents 1 repeated."""
    out = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5))
    def operand():
        drop = draw(st.integers(0, len(out)))
        return tuple(1 if draw(st.booleans()) and draw(st.booleans()) else e for e in out[drop:])
    return operand(), operand()


@st.composite
def calls(draw):
    op = draw(st.sampled_from(sorted(OPS)))
    dtype = draw(st.sampled_from(sorted(OPS[op][1])))
    sa, sb = draw(broadcast_shapes())
    return op, draw(strided(dtype, sa)), draw(strided(dtype, sb))


def no_zero_ties(op, a, b):
    """Whether max/min meet no -0 and +0 together (after promotion)."""
    if op not in ("max", "min"):
        return True
    dtype = np.result_type(a, b)
    if dtype.kind != "f":
        return True
    x, y = np.broadcast_arrays(np.asarray(a).astype(dtype), np.asarray(b).astype(dtype))
    return not ((x == 0) & (y == 0) & (np.signbit(x) != np.signbit(y))).any()


@SETTINGS
@given(calls())
def test_every_op_on_random_views_equals_numpy(call):
    op, a, b = call
    if not no_zero_ties(op, a, b):
        return
    want = numpy_op(op, a, b)
    got = getattr(bcast, op)(a, b)
    assert mismatches(op, got, want) == "", f"{op}({a.dtype}{a.shape} {a.strides}, {b.shape} {b.strides})"


@SETTINGS
@given(calls(), st.data())
def test_out_written_in_place_equals_numpy(call, data):
    op, a, b = call
    if not no_zero_ties(op, a, b):
        return
    want = numpy_op(op, a, b)
    # out: a strided view of a larger array, which must keep its other elements.
    step = data.draw(st.sampled_from([1, 2, -1]))
    shape = want.shape
    base = np.full([e * abs(step) for e in shape] or [1], 7, dtype=want.dtype)
    out = base[tuple(slice(None, None, step) for _ in shape)] if shape else base.reshape(())
    untouched = base.copy()
    result = getattr(bcast, op)(a, b, out=out)
    assert result is out
    assert mismatches(op, out, want) == ""
    if step != 1 and out.size:
        mask = np.ones(base.shape, bool)
        mask[tuple(slice(None, None, step) for _ in shape)] = False
        assert (base[mask] == untouched[mask]).all()


@SETTINGS
@given(st.sampled_from(["add", "sub", "mul", "div", "max", "min", "eq", "lt", "bit_and", "floor_div"]),
       st.sampled_from(ALL), st.sampled_from(ALL), st.data())
def test_mixed_dtypes_promote_as_numpy_2(op, ta, tb, data):
    a = data.draw(strided(ta, (3, 1)))
    b = data.draw(strided(tb, (4,)))
    try:
        want = numpy_op(op, a, b)
    except TypeError:
        with pytest.raises(TypeError):
            getattr(bcast, op)(a, b)
        return
    if not no_zero_ties(op, a, b):
        return
    if op in ("bit_and",) and want.dtype.kind == "f":
        return
    assert mismatches(op, getattr(bcast, op)(a, b), want) == ""


I64 = (-2**63, 2**63 - 1)


def refused_weak_int(dtype, number):
    """bcast's rule for a Python int (docs/python.md, "Operands"), written
    from the documentation, not from NumPy: it must fit i64, and the range of
    an integer array's dtype, whatever the op. NumPy refuses the same ints,
    except that it takes `i8_array / 1000` (its divide loop is f64's)."""
    if not isinstance(number, int) or isinstance(number, bool):
        return False
    low, high = I64
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        low, high = max(low, int(info.min)), min(high, int(info.max))
    return not low <= number <= high


def python_numbers(data, dtype):
    """Ints in the dtype's range, ints far out of it (past 64 bits too), the
    edges of both, floats, and bools (NEP 50: a bool is strong)."""
    edges = [0, 1, -1, *I64, I64[1] + 1, I64[0] - 1, 2**64 - 1, 2**64]
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        edges += [int(info.min), int(info.max), int(info.min) - 1, int(info.max) + 1]
        ints = st.integers(int(info.min), int(info.max))
        far = st.integers(-2**65, 2**65)
    else:
        ints = st.integers(0, 1000) if dtype.kind == "b" else st.integers(-1000, 1000)
        # Floats take ints outside i64 only: inside, an int of over 53 bits
        # would meet NumPy's rounding through f64 (not the subject here).
        far = st.one_of(st.integers(I64[1] + 1, 2**65), st.integers(-2**65, I64[0] - 1))
    floats = st.floats(-1e4, 1e4) if dtype.kind == "f" else st.floats(-100, 100)
    return data.draw(st.one_of(ints, far, st.sampled_from(edges), floats, st.booleans()))


@SETTINGS
@given(st.sampled_from(["add", "sub", "mul", "div", "max", "lt"]), st.sampled_from(ALL), st.data())
def test_python_numbers_are_weak_scalars(op, dtype, data):
    a = data.draw(strided(dtype, (2, 3)))
    number = python_numbers(data, a.dtype)
    if refused_weak_int(a.dtype, number):
        for call in (lambda: getattr(bcast, op)(a, number), lambda: getattr(bcast, op)(number, a)):
            with pytest.raises(ValueError, match=f"^{op}: -?[0-9]+ does not fit |^[ab]: the Python integer"):
                call()
        return
    if isinstance(number, bool) and a.dtype == np.bool_ and "bool" not in OPS[op][1]:
        with pytest.raises(TypeError):  # bool - bool: NumPy refuses it too
            getattr(bcast, op)(a, number)
        return
    want = numpy_op(op, a, number)  # whatever the rule takes, NumPy takes
    if not no_zero_ties(op, a, np.asarray(number, want.dtype)):
        return
    assert mismatches(op, getattr(bcast, op)(a, number), want) == ""
    assert mismatches(op, getattr(bcast, op)(number, a), numpy_op(op, number, a)) == ""


@pytest.mark.parametrize("op, array, number, want", [
    ("add", np.array([True, False]), True, np.array([True, True])),      # a bool is strong: bool stays bool
    ("add", np.array([True, False]), 5, np.array([6, 5])),               # a weak int lifts bool to i64
    ("add", np.array([1, 2], np.int8), 2.5, np.array([3.5, 4.5])),       # a weak float lifts ints to f64
    ("mul", np.array([1, 2], np.float32), 2.5, np.array([2.5, 5.0], np.float32)),  # and keeps f32
    ("sub", np.array([7, 9], np.uint8), 255, np.array([8, 10], np.uint8)),  # in range: the array's dtype, wrapping
    ("add", np.array([1], np.uint8), 256, "^add: 256 does not fit u8 "),
    ("div", np.array([1], np.int8), 1000, "^div: 1000 does not fit i8 "),  # NumPy 1.24 divides it in f64
    ("lt", np.array([1], np.int16), -2**15 - 1, "^lt: -32769 does not fit i16 "),
    ("add", np.array([1], np.uint64), 2**63, "^b: the Python integer 9223372036854775808 does not fit i64$"),
    ("add", np.array([1.0], np.float32), 2**64, "^b: the Python integer 18446744073709551616 does not fit i64$"),
])
def test_weak_scalar_rule_examples(op, array, number, want):
    if isinstance(want, str):
        with pytest.raises(ValueError, match=want):
            getattr(bcast, op)(array, number)
        return
    got = getattr(bcast, op)(array, number)
    assert got.dtype == want.dtype and (got == want).all(), (got, want)


TEMPLATES = {
    "(x - m) / s": lambda x, m, s: (x - m) / s,
    "max(x * s + m, 0)": lambda x, m, s: np.maximum(x * s + m, 0),
    "where(x > m, x, s)": lambda x, m, s: np.where(x > m, x, s),
    "f32(x) * s - m": lambda x, m, s: x.astype(np.float32) * s - m,
    "sqrt(abs(x)) + m * s": lambda x, m, s: np.sqrt(np.abs(x)) + m * s,
}


@SETTINGS
@given(st.sampled_from(sorted(TEMPLATES)), st.sampled_from(["f16", "f32", "f64", "u8", "i16"]),
       st.sampled_from(["f32", "f64"]), st.data())
def test_expressions_equal_numpys_chain(text, tx, tm, data):
    x = data.draw(strided(tx, (2, 3, 4)))
    m = data.draw(strided(tm, (3, 1)))
    s = data.draw(strided(tm, (4,)))
    with np.errstate(all="ignore"):
        want = np.asarray(TEMPLATES[text](x, m, s))
    assert mismatches("expr", bcast.evaluate(text, x=x, m=m, s=s), want) == "", text
    v = bcast.var
    built = {"(x - m) / s": (v("x") - v("m")) / v("s"),
             "max(x * s + m, 0)": bcast.expr.max(v("x") * v("s") + v("m"), 0),
             "where(x > m, x, s)": bcast.expr.where(v("x") > v("m"), v("x"), v("s")),
             "f32(x) * s - m": v("x").astype(np.float32) * v("s") - v("m"),
             "sqrt(abs(x)) + m * s": bcast.expr.sqrt(abs(v("x"))) + v("m") * v("s")}[text]
    assert mismatches("expr", bcast.evaluate(built, x=x, m=m, s=s), want) == "", str(built)
