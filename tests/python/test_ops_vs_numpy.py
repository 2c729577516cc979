"""Every op on every dtype bcast defines it on, each pair through three of
numpy_ops.SHAPE_CASES in turn (broadcasts, index expressions with negative
steps and new axes, rank 0, empty), in C or Fortran order, against NumPy bit
for bit, and each new result laid out in NumPy's order='K'. In-process: it
was bcast-run once per case (bcast_run_vs_numpy keeps a sample of 20 ops x 3
cases, for the CLI)."""
import numpy as np
import pytest

import bcast
from numpy_ops import OPS, SHAPE_CASES, index, mismatches, numpy_result, random_array

PAIRS = [(op, dtype) for op, (_, dtypes) in OPS.items() for dtype in sorted(dtypes)]


@pytest.mark.parametrize("n, op, dtype", [(n, op, dtype) for n, (op, dtype) in enumerate(PAIRS)],
                         ids=[f"{op}-{dtype}" for op, dtype in PAIRS])
def test_op_on_three_shape_cases_equals_numpy(n, op, dtype):
    rng = np.random.default_rng(n)
    for k in range(3):
        sa, ea, sb, eb = SHAPE_CASES[(n + k) % len(SHAPE_CASES)]
        order = "F" if (n + k) % 2 == 1 and len(sa) > 1 else "C"
        a = np.asarray(random_array(rng, dtype, sa), order=order)
        b = random_array(rng, dtype, sb)
        va, vb = index(a, ea), index(b, eb)
        label = f"{op} {dtype} a{list(sa)}{ea} ({order} order) b{list(sb)}{eb}"
        got = np.asarray(getattr(bcast, op)(va, vb))
        assert mismatches(op, got, numpy_result(op, va, vb)) == "", label
        # The new result's memory order is NumPy's order='K' for the same
        # views (strides of dims of extent 1 are free in both).
        k_order = np.add(va, vb)
        if k_order.size > 1:
            got_strides = [s // got.itemsize if e > 1 else None for s, e in zip(got.strides, got.shape)]
            want_strides = [s // k_order.itemsize if e > 1 else None for s, e in zip(k_order.strides, k_order.shape)]
            assert got_strides == want_strides, label
