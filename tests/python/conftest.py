"""The Python module's tests (pytest): NumPy is the oracle. ctest runs them
with PYTHONPATH at build/python, BCAST_CACHE_DIR=off and BCAST_JIT_MODE=sync,
so each call's result is its JIT kernel's."""
import os
import sys

import numpy as np
import pytest

# NumPy 2's promotion (NEP 50), which bcast follows, in Debian's NumPy 1.24.
if hasattr(np, "_set_promotion_state"):
    np._set_promotion_state("weak")

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))  # numpy_floats

import bcast  # noqa: E402


@pytest.fixture
def restore_settings():
    """Puts back every setting a test changed."""
    before = {s["name"]: s["value"] for s in bcast.settings()}
    yield
    for name, value in before.items():
        if bcast.get_setting(name) != value:
            bcast.set_setting(name, value)
