"""Inputs at the module's edges, found by ASan probes (issue 28): results of
a rank NumPy cannot hold (bcast computes up to 64 dims, NumPy's arrays stop
at 32 before NumPy 2) and an operand dict that the reading of an operand
changes. Neither may write or read past an array: the first is refused
naming NumPy's limit, the second is read as it was when the call began."""
import numpy as np
import pytest

import bcast
from raw_dlpack import RawDLPack, numpy_max_dims

NUMPY_MAX_DIMS = numpy_max_dims()


def rank_n(rank, values):
    """`values` (six of them) seen as a DLPack tensor of shape (1, ..., 1, 2, 3)."""
    return RawDLPack(np.asarray(values, np.float32), (1,) * (rank - 2) + (2, 3))


@pytest.mark.parametrize("rank", [33, 40, 64])
def test_results_over_numpys_rank_limit_are_refused_naming_it(rank):
    t = rank_n(rank, np.arange(6))
    shape = t.shape
    calls = {"an op": lambda: bcast.add(t, t),
             "an op with a number": lambda: bcast.add(t, 1.5),
             "an expression": lambda: bcast.evaluate("x * 2 - y", x=t, y=t),
             "a prepared op": lambda: bcast.prepare("add", t, t)(t, t)}
    for what, call in calls.items():
        if rank <= NUMPY_MAX_DIMS:  # NumPy 2 takes it: the result must be right
            result = call()
            assert result.shape == shape, what
            continue
        with pytest.raises(ValueError) as info:
            call()
        assert str(info.value) == (f"result: rank {rank} is over NumPy's limit of {NUMPY_MAX_DIMS} dimensions "
                                   f"(NPY_MAXDIMS; bcast computes up to 64): give out= a DLPack tensor of the "
                                   f"result's shape to receive it"), what
        assert info.value.kind == "shape"
    assert t.released >= len(calls)  # every capsule taken was given back


@pytest.mark.parametrize("rank", [33, 40, 64])
def test_what_the_refusal_says_works_a_dlpack_out_of_that_rank(rank):
    t = rank_n(rank, np.arange(6))
    out = rank_n(rank, np.full(6, 7))
    assert bcast.add(t, t, out=out) is out
    assert (out.array == 2 * np.arange(6)).all()
    assert bcast.evaluate("x * 2 - 1", x=t, out=out) is out
    assert (out.array == 2 * np.arange(6) - 1).all()


class ChangesTheDict:
    """An operand whose reading as an array (__array__) adds 64 entries to the
    dict it was found in and drops another."""

    def __init__(self, operands, value, drop):
        self.operands, self.value, self.drop = operands, value, drop

    def __array__(self, dtype=None):
        for i in range(64):
            self.operands[f"added{i}"] = float(i)
        self.operands.pop(self.drop, None)
        return self.value


def test_an_operand_dict_is_read_once_before_any_operand_is():
    y = np.arange(3, dtype=np.float32)
    operands = {"x": None, "y": y}
    operands["x"] = ChangesTheDict(operands, np.ones(3, np.float32), drop="y")
    result = bcast._bcast._evaluate("x + y", operands)
    assert (result == y + 1).all()
    assert "added63" in operands and "y" not in operands  # it did change the dict, after the call read it
    # The same through describe, and with the entry dropped being a later
    # operand that only the dict held.
    operands = {"x": None, "z": np.full(3, 2.0, np.float32)}
    operands["x"] = ChangesTheDict(operands, np.ones(3, np.float32), drop="z")
    assert bcast._bcast._describe("x * z", operands)["out_shape"] == (3,)
