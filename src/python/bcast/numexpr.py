"""numexpr's interface on bcast: `import bcast.numexpr as ne`.

`ne.evaluate("2*a + 3*b")` looks `a` and `b` up in the caller's frame, as
numexpr does, and runs the expression as one fused bcast kernel. Names,
operators and functions are bcast's grammar, which takes numexpr's spellings
(`where`, `arctan2`, `fmod`, `copy`, `ones_like`, ...; docs/semantics.md,
"Functions"). What differs from numexpr (docs/python.md, "numexpr"):

- Python numbers are NEP 50's weak scalars (NumPy 2's promotion), where
  numexpr makes 0-d arrays of them;
- `order` is 'K' (the inputs' memory order) and `casting` 'safe': the others
  are a ValueError, as they have no meaning for a fused kernel's new output;
- numexpr's reductions (`sum(x, axis=1)`, `prod(...)`) are bcast's (NOTE:
  [Expression passes]), which may also sit inside an expression;
- there is no VML: the vector math is bcast's own (see set_vml_accuracy_mode);
- there is no virtual machine: NumExpr and disassemble are a NotImplementedError.

numexpr's own test file runs against this module (tests/e2e/numexpr_own_tests.py).
"""
from __future__ import annotations

import os
import re
import sys
from typing import Any, Optional

import numpy as np

from . import _bcast
from . import evaluate as _evaluate
from .expr import _DTYPES

MAX_THREADS = 1024
use_vml = False

_FUNCTIONS = {name for row in _bcast._functions() for name in (row[0], *row[2])}
_NOT_OPERANDS = _FUNCTIONS | set(_DTYPES.values()) | {"bf16", "True", "False", "None", "axis", "keepdims", "dtype", "ddof",
                                                          "correction"}
_KEYWORD = re.compile(r"(?<![\w.])(and|or|not)(?!\w)")
_last: dict[str, Any] = {}


def _names(ex: str) -> list[str]:
    """The operand names of an expression: identifiers that are no function or dtype."""
    found = []
    for m in re.finditer(r"(?<![\w.])[A-Za-z_]\w*", ex):
        name, called = m.group(), ex[m.end():].lstrip().startswith("(")
        if not called and name not in _NOT_OPERANDS and name not in found:
            found.append(name)
    return found


def _operands(names: list[str], local_dict: Optional[dict], global_dict: Optional[dict], depth: int) -> dict:
    frame = sys._getframe(depth + 1)
    local_dict = frame.f_locals if local_dict is None else local_dict
    global_dict = frame.f_globals if global_dict is None else global_dict
    operands = {}
    for name in names:
        if name in local_dict:
            operands[name] = local_dict[name]
        elif name in global_dict:
            operands[name] = global_dict[name]
        else:
            raise KeyError(f"bcast.numexpr: no operand named {name!r} in the caller's local or global names")
    return operands


def _check_numexpr_grammar(ex: str) -> None:
    """What numexpr's parser refuses with a TypeError and bcast's grammar would
    read otherwise or refuse with a ValueError: Python's `and`, `or` and `not`
    (not array operators) and brackets (list literals and indexing)."""
    if m := _KEYWORD.search(ex):
        raise TypeError(f"bcast.numexpr: {m.group()!r} is Python's truth of one object, not an array operator; "
                        "use & | ~ (as with numexpr)")
    if "[" in ex:
        raise TypeError(f"bcast.numexpr: {ex!r}: lists and indexing are not part of numexpr's expressions")


def _needs_a_copy(out: Any) -> bool:
    """An out that bcast cannot write in place (misaligned or byte-swapped),
    which numexpr writes through its own buffer."""
    return isinstance(out, np.ndarray) and not (out.flags.aligned and out.dtype.isnative)


def _run(ex: str, operands: dict, out: Any) -> Any:
    if _needs_a_copy(out):
        np.copyto(out, np.asarray(_evaluate(ex, **operands)), casting="safe")
        return out
    result = _evaluate(ex, out=out, **operands)
    return out if out is not None else np.asarray(result)


def evaluate(ex: str, local_dict: Optional[dict] = None, global_dict: Optional[dict] = None, out: Any = None,
             order: str = "K", casting: str = "safe", **kwargs: Any) -> Any:
    """numexpr.evaluate: the expression's names from local_dict and global_dict,
    or from the caller's frame; the result a new array, or written into out."""
    if not isinstance(ex, str):
        raise ValueError(f"bcast.numexpr: the expression must be a str, not {type(ex).__name__}")
    if order != "K":
        raise ValueError(f"bcast.numexpr: order={order!r}: only 'K' (the inputs' memory order) is supported")
    if casting != "safe":
        raise ValueError(f"bcast.numexpr: casting={casting!r}: only 'safe' is supported (out must have the "
                         "result's dtype)")
    # numexpr's compiler settings: bcast compiles every expression one way (its
    # JIT's), whatever numexpr's optimisation level asks.
    if kwargs.pop("optimization", "aggressive") not in ("none", "moderate", "aggressive"):
        raise ValueError("bcast.numexpr: optimization must be 'none', 'moderate' or 'aggressive'")
    # `/` is true division whatever numexpr's truediv says: Python 3's, NumPy's and numexpr 2.8's own default.
    if kwargs.pop("truediv", "auto") not in ("auto", True, False):
        raise ValueError("bcast.numexpr: truediv must be 'auto', True or False")
    if kwargs:
        raise TypeError(f"bcast.numexpr: unexpected arguments {sorted(kwargs)}")
    _check_numexpr_grammar(ex)
    names = _names(ex)
    operands = _operands(names, local_dict, global_dict, 1)
    _last.update(ex=ex, names=names, out=out)
    return _run(ex, operands, out)


def re_evaluate(local_dict: Optional[dict] = None) -> Any:
    """The last expression evaluate() ran, with its names looked up again."""
    if not _last:
        raise RuntimeError("bcast.numexpr: re_evaluate before any evaluate")
    operands = _operands(_last["names"], local_dict, None, 1)
    return _run(_last["ex"], operands, _last["out"])


def set_num_threads(nthreads: int) -> int:
    """Threads one evaluation may use; returns the previous number."""
    previous = _bcast.num_threads()
    _bcast.set_num_threads(int(nthreads))
    return previous


def get_num_threads() -> int:
    return int(_bcast.num_threads())


def detect_number_of_cores() -> int:
    return os.cpu_count() or 1


def detect_number_of_threads() -> int:
    return get_num_threads()


def set_vml_num_threads(nthreads: int) -> None:
    """numexpr's VML threads: bcast's vector math runs on evaluate's own threads."""
    raise NotImplementedError("bcast.numexpr: there is no VML; bcast's vector math runs on evaluate's threads "
                              "(set_num_threads)")


def set_vml_accuracy_mode(mode: Any) -> None:
    """numexpr's VML accuracy: bcast's is fixed per function (docs/semantics.md, "Functions")."""
    raise NotImplementedError("bcast.numexpr: there is no VML; each function's accuracy is fixed and stated in "
                              "docs/semantics.md (\"Functions\")")


def get_vml_version() -> None:
    return None


def NumExpr(ex: Any, signature: Any = (), **kwargs: Any) -> Any:  # noqa: N802 (numexpr's name)
    """numexpr's compiled program for its virtual machine: bcast has no such
    machine (its kernels are compiled and cached per expression structure)."""
    raise NotImplementedError("bcast.numexpr: NumExpr compiles for numexpr's virtual machine, which bcast does not "
                              "have; call evaluate (bcast compiles and caches the kernel itself)")


def disassemble(nex: Any) -> Any:
    """numexpr's virtual-machine program as text: none here (see NumExpr)."""
    raise NotImplementedError("bcast.numexpr: there is no virtual-machine program to disassemble; "
                              "bcast.describe(ex, ...) shows the kernel an expression runs")


ncores = detect_number_of_cores()
nthreads = get_num_threads()
