"""bcast.numexpr, numexpr's interface: names from the caller's frame, out,
re_evaluate, threads, and the clear errors where numexpr's options have no
meaning here. NumPy is the oracle of the values. (numexpr's own test file
against this module is the issue's acceptance test; it needs complex
numbers, which bcast does not compute on yet.)"""
import numpy as np
import pytest

import bcast.numexpr as ne

GLOBAL_B = np.linspace(-1, 1, 12).reshape(3, 4)


def test_names_come_from_the_callers_frame():
    a = np.arange(12.0).reshape(3, 4)
    got = ne.evaluate("2*a + 3*GLOBAL_B - where(a > 5, a, 0)")
    np.testing.assert_array_equal(got, 2 * a + 3 * GLOBAL_B - np.where(a > 5, a, 0))
    local = {"a": np.ones(3, np.float32)}
    assert ne.evaluate("a * 2", local_dict=local).dtype == np.float32


def test_numexprs_spellings():
    a = np.linspace(0.1, 0.9, 7)
    b = np.linspace(-2, 2, 7)
    cases = {"arctan2(a, b)": np.arctan2(a, b), "fmod(b, a)": np.fmod(b, a), "copy(a)": a,
             "ones_like(a)": np.ones_like(a), "log1p(a) + expm1(b)": np.log1p(a) + np.expm1(b),
             "arcsinh(b) * arccos(a)": np.arcsinh(b) * np.arccos(a), "b % 0.3": b % 0.3}
    for text, want in cases.items():
        np.testing.assert_allclose(ne.evaluate(text), want, rtol=4e-16, atol=0, err_msg=text)


def test_out_and_re_evaluate():
    a = np.arange(6, dtype=np.int64)
    out = np.empty(6, np.int64)
    assert ne.evaluate("a ** 2 + 1", out=out) is out
    np.testing.assert_array_equal(out, a ** 2 + 1)
    a = np.arange(6, dtype=np.int64) * 10  # re_evaluate looks the names up again
    np.testing.assert_array_equal(ne.re_evaluate(), a ** 2 + 1)


def test_threads():
    before = ne.get_num_threads()
    assert ne.set_num_threads(1) == before
    assert ne.get_num_threads() == 1
    ne.set_num_threads(before)
    assert ne.detect_number_of_cores() >= 1


def test_reductions_are_bcasts():
    a = np.arange(6.0).reshape(2, 3)
    assert ne.evaluate("sum(a * 2)") == 30
    np.testing.assert_array_equal(ne.evaluate("sum(a, axis=1)"), [3, 12])
    np.testing.assert_array_equal(ne.evaluate("prod(a + 1, axis=0)"), [4, 10, 18])


def test_what_has_no_meaning_here_is_a_clear_error():
    a = np.ones(3)
    with pytest.raises(ValueError, match="only 'K'"):
        ne.evaluate("a + 1", order="C")
    with pytest.raises(ValueError, match="only 'safe'"):
        ne.evaluate("a + 1", casting="unsafe")
    with pytest.raises(NotImplementedError, match="no VML"):
        ne.set_vml_accuracy_mode("high")
    with pytest.raises(KeyError, match="no operand named 'nowhere'"):
        ne.evaluate("a + nowhere")
