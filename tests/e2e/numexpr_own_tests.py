"""numexpr's own test file against bcast.numexpr: the acceptance test of the
drop-in (docs/python.md, "numexpr").

Debian's python3-numexpr ships numexpr/tests/test_numexpr.py. This script
imports it with bcast.numexpr standing in for the module `numexpr`, then
runs
  - every case of its test_expressions (a generator of cases over int,
    float32, float64 and complex arrays, three scalar variants and three
    optimisation levels, judged by the file's own `equal`), and
  - every test of its test_evaluate, test_irregular_stride, test_zerodim,
    test_int64, test_int32_int64 and test_uint32_int64 classes,
and prints the counts per class. It fails when a case fails that
EXPECTED_FAILURES does not list, and when a listed one passes (the list is
kept true). numexpr's expression-building internals (E, ConstantNode),
which the file imports, are stand-ins that raise: bcast has no virtual
machine to build programs for.
"""
import collections
import importlib.util
import os
import sys
import types
import unittest
import warnings

import numpy as np

# NumPy 2's promotion (NEP 50), which bcast follows, in Debian's NumPy 1.24.
if hasattr(np, "_set_promotion_state"):
    np._set_promotion_state("weak")

import bcast.numexpr  # noqa: E402

CLASSES = ["test_evaluate", "test_irregular_stride", "test_zerodim", "test_int64", "test_int32_int64",
           "test_uint32_int64"]

# Tests of numexpr itself, not of the expressions it computes (docs/python.md lists them).
VM = "numexpr's virtual machine (NumExpr, its programs, constants or disassembly), which bcast does not have"
EXPECTED_FAILURES = {
    "test_evaluate.test_all_scalar": VM,
    "test_evaluate.test_broadcasting": VM,
    "test_evaluate.test_run": VM,
    "test_evaluate.test_disassemble": VM,
    "test_evaluate.test_constant_deduplication": VM,
    "test_evaluate.test_nan_constant": VM,
    "test_evaluate.test_f32_constant": VM,
    "test_evaluate.test_ex_uses_vml": "numexpr's VML dispatch (numexpr.necompiler); bcast has no VML",
    "test_int32_int64.test_small_int": "numexpr types the literal 2 as int32; NumPy 2 (NEP 50) and bcast give int64",
    "test_uint32_int64.test_small_uint32": "numexpr has no uint32 and widens it to int64; bcast keeps uint32, as NumPy",
}


class ConstantNode:
    """numexpr's constant of a virtual-machine program: making one is an error here."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(VM)


class ExpressionBuilder:
    """numexpr's E (E.a is the variable a of a program): using it is an error here."""

    def __getattr__(self, name):
        raise NotImplementedError(VM)


def numexpr_test_file():
    spec = importlib.util.find_spec("numexpr")
    if spec is None or spec.origin is None:
        sys.exit("FAIL: numexpr is not installed (Debian's python3-numexpr, tools/setup-deps.sh): its test file is "
                 "this test's cases")
    return os.path.join(os.path.dirname(spec.origin), "tests", "test_numexpr.py")


def load_with_bcast(path):
    """The test file, importing bcast.numexpr where it imports numexpr."""
    stand_in = types.ModuleType("numexpr")
    stand_in.__dict__.update({k: v for k, v in vars(bcast.numexpr).items() if not k.startswith("__")})
    stand_in.E = ExpressionBuilder()
    expressions = types.ModuleType("numexpr.expressions")
    expressions.ConstantNode = ConstantNode
    stand_in.expressions = expressions
    sys.modules["numexpr"], sys.modules["numexpr.expressions"] = stand_in, expressions
    spec = importlib.util.spec_from_file_location("numexpr_test_file", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    tests = load_with_bcast(numexpr_test_file())
    unexpected = []
    # test_expressions: its cases, by dtype (the generator's own `equal` judges each).
    by_dtype = collections.defaultdict(collections.Counter)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for case in tests.test_expressions():
            dtype = case.description.split("dtype=")[1].split(",")[0].strip("'")
            try:
                case()
                by_dtype[dtype]["passed"] += 1
            except Exception as e:  # noqa: BLE001: every failure is reported
                by_dtype[dtype]["failed"] += 1
                unexpected.append(f"{case.description}: {type(e).__name__}: {str(e).splitlines()[0][:300]}")
    total = sum(sum(c.values()) for c in by_dtype.values())
    passed = sum(c["passed"] for c in by_dtype.values())
    print(f"test_expressions: {passed} of {total} cases pass")
    for dtype, c in by_dtype.items():
        print(f"  {dtype}: {c['passed']} of {sum(c.values())}")
    # The classes, with unittest.
    for name in CLASSES:
        result = unittest.TestResult()
        unittest.defaultTestLoader.loadTestsFromTestCase(getattr(tests, name)).run(result)
        failed = {f"{name}.{t.id().split('.')[-1]}": tb for t, tb in result.failures + result.errors}
        listed = sorted(k for k in EXPECTED_FAILURES if k.startswith(name + "."))
        print(f"{name}: {result.testsRun - len(failed)} of {result.testsRun} pass"
              + (f" ({len(listed)} listed as numexpr's own)" if listed else ""))
        for test, tb in failed.items():
            if test not in EXPECTED_FAILURES:
                unexpected.append(f"{test}: {tb.strip().splitlines()[-1][:300]}")
        for test in listed:
            if test not in failed:
                unexpected.append(f"{test} passes: take it off EXPECTED_FAILURES")
    if unexpected:
        print(f"FAIL: {len(unexpected)} unexpected results:")
        for line in unexpected[:40]:
            print("  " + line)
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
