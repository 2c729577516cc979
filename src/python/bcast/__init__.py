"""bcast: elementwise ops and fused expressions on broadcasting arrays, compiled
for this CPU (docs/python.md).

    import bcast, numpy as np
    y = bcast.add(a, b)                                  # any strides, NumPy's broadcasting
    z = bcast.evaluate("(x - m) / s", x=img, m=mean, s=std)
    p = bcast.prepare("add", a, b); p(a, b, out=c)       # shapes fixed: the fastest call

Inputs are read in place and results own bcast's buffer: no copy either way.
Errors are ValueError, TypeError, IndexError, MemoryError or OSError with
bcast's message and a `kind` attribute.
"""
from __future__ import annotations

from typing import Any, Optional


def _require_numpy() -> None:
    """Imports NumPy before the extension does: without it the extension's
    NumPy set-up fails as "initialization failed", the cause one traceback
    further down. This names the interpreter and the package instead."""
    try:
        import numpy  # noqa: F401
    except ImportError as err:
        import platform
        import sys
        raise ImportError(f"bcast needs NumPy, which {sys.executable} (Python {platform.python_version()}) "
                          f"cannot import: install it ({sys.executable} -m pip install numpy, or Debian's "
                          "python3-numpy for /usr/bin/python3)") from err


_require_numpy()

from . import _bcast
from ._bcast import (  # noqa: F401
    Prepared,
    set_setting, get_setting, settings, set_num_threads, num_threads, last_call_threads,
    set_jit_enabled, jit_enabled, wait_for_compiles, set_kernel_cache_capacity, kernel_cache_capacity,
    clear_kernel_cache, kernel_cache_stats, kernel_cache_entries, pregenerate, runtime_info, last_ascend_trace,
)
from .expr import Expr, var, dtype_name  # noqa: F401
from . import expr  # noqa: F401

# The binary ops, called by CPython directly: bcast.add(a, b), one per row of
# the function table of two operands (NOTE: [Function table]).
OPS = tuple(name for name, arity, _ in _bcast._functions() if arity == 2)
globals().update({name: getattr(_bcast, name) for name in OPS})

# The reductions (bcast/reductions.py): bcast.sum(x, axis=...), amax, ...
# NumPy's var is bcast.variance here: bcast.var(name) names an expression's
# operand (bcast.reductions.var is the variance too).
from .reductions import (sum, prod, mean, amax, amin, any, all, argmin, argmax, var as variance, std,  # noqa
                         nansum, nanmean, nanmin, nanmax, REDUCTIONS)

__version__ = runtime_info()["version"]


def _text_and_operands(expression: "str | Expr", operands: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    if isinstance(expression, Expr):
        bound = expression.bindings()
        clash = bound.keys() & operands.keys()
        if clash:
            raise TypeError(f"operands {sorted(clash)} are already bound in the expression")
        return str(expression), {**bound, **operands}
    if isinstance(expression, str):
        return _utf8_text(expression), operands
    raise TypeError(f"expression: a str or bcast.Expr, not {type(expression).__name__}")


def _utf8_text(text: str) -> str:
    """`text`, when UTF-8 can carry it; a lone surrogate (what a stray byte of a
    file name decodes to) is a ValueError naming its byte position, as the
    parser names any other character outside the grammar."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        shown = text.encode("utf-8", "backslashreplace").decode("ascii", "backslashreplace")
        at = len(text[:e.start].encode("utf-8"))
        raise ValueError(f'expression "{shown}": at position {at}: U+{ord(text[e.start]):04X} is a lone '
                         "surrogate, not a character (the text is not valid UTF-8)") from None
    return text


def evaluate(expression: "str | Expr", out: Optional[Any] = None, **operands: Any) -> Any:
    """Runs an expression as one fused kernel: `evaluate("(x - m) / s", x=img, m=mean, s=std)`.

    The text is bcast's grammar (docs/semantics.md, "Expressions"); an Expr
    from bcast.var works too. Operands are arrays, DLPack tensors or numbers
    (weak scalars). NumPy 2's promotion applies node by node.
    """
    text, named = _text_and_operands(expression, operands)
    return _bcast._evaluate(text, named, out)


def describe(expression: "str | Expr", **operands: Any) -> dict[str, Any]:
    """What an expression computes and how, without running it: structure,
    inputs, dtypes, out_shape, broadcast_type and kernel key."""
    text, named = _text_and_operands(expression, operands)
    return _bcast._describe(text, named)


def prepare(what: "str | Expr", *examples: Any, out: Optional[Any] = None, **operands: Any) -> Prepared:
    """A call with its shapes, strides and dtypes fixed, from example operands.

        p = bcast.prepare("add", a, b)            # an op: p(a2, b2, out=c)
        q = bcast.prepare("(x - m) / s", x=x, m=m, s=s)   # q(x=x2, m=m2, s=s2)

    Each call takes arrays of the prepared layouts (only the data may change);
    numbers are fixed when it is prepared. `p.inputs` names its operands.
    """
    if isinstance(what, str) and examples:
        if len(examples) != 2 or operands:
            raise TypeError("prepare(op, a, b, out=None) takes two example operands")
        return _bcast._prepare_op(what, examples[0], examples[1], out)
    if examples:
        raise TypeError("prepare(expression, **operands) takes its operands by name")
    if out is not None:
        raise TypeError("prepare(expression, ...): a prepared expression writes a new array's layout; "
                        "give out= to each call")
    text, named = _text_and_operands(what, operands)
    return _bcast._prepare_expression(text, named)
