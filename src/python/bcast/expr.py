"""Expressions built with Python's operators: `(bcast.var("x") - m) / s`.

An Expr is the text of bcast's expression grammar (docs/semantics.md,
"Expressions") plus the arrays it names: a `var` is an operand given when the
expression is evaluated, any other array is bound as it is met. Python numbers
are weak scalars (NEP 50). Comparisons build expressions too, so an Expr has
no truth value and no hash.

    x = bcast.var("x")
    e = bcast.expr.max((x - mean) / std, 0)
    y = bcast.evaluate(e, x=img)
"""
from __future__ import annotations

import math
import operator
from typing import Any, Union

import numpy as np

from . import _bcast

Operand = Union["Expr", int, float, complex, np.ndarray, Any]

_DTYPES = {"float16": "f16", "float32": "f32", "float64": "f64", "int8": "i8", "int16": "i16", "int32": "i32",
           "int64": "i64", "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64", "bool": "bool",
           "complex64": "c64", "complex128": "c128"}
_BCAST_NAMES = set(_DTYPES.values()) | {"bf16"}


def dtype_name(dtype: Any) -> str:
    """bcast's name of a dtype: "f32" for "f32", np.float32, np.dtype("float32") or "float32"."""
    if isinstance(dtype, str) and dtype in _BCAST_NAMES:
        return dtype
    try:
        return _DTYPES[np.dtype(dtype).name]
    except (TypeError, KeyError):
        raise TypeError(f"{dtype!r} is not a dtype bcast computes on") from None


def _numpy_dtype(name: str) -> np.dtype:
    """NumPy's dtype of bcast's dtype name, the inverse of dtype_name (bf16 has none)."""
    for numpy_name, bcast_name in _DTYPES.items():
        if bcast_name == name:
            return np.dtype(numpy_name)
    raise TypeError(f"{name} has no NumPy dtype (cast it in the expression)")


class Expr:
    """A node of an expression: its text and the arrays it binds."""

    __slots__ = ("_text", "_bound")
    __hash__ = None  # type: ignore[assignment]  # == builds an expression

    def __init__(self, text: str, bound: dict[str, Any] | None = None) -> None:
        self._text = text
        self._bound = bound or {}

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"bcast.Expr({self._text!r})"

    def bindings(self) -> dict[str, Any]:
        """The arrays the expression names that are not vars."""
        return dict(self._bound)

    def __bool__(self) -> bool:
        raise TypeError("a bcast.Expr has no truth value: evaluate it first")

    def astype(self, dtype: Any) -> "Expr":
        """NumPy's astype, as a node: float to integer saturates, NaN gives 0."""
        return _call(dtype_name(dtype), self)

    # Python's operators: NumPy's meaning for each.
    def __add__(self, o: Operand) -> "Expr": return _binary("+", self, o)
    def __radd__(self, o: Operand) -> "Expr": return _binary("+", o, self)
    def __sub__(self, o: Operand) -> "Expr": return _binary("-", self, o)
    def __rsub__(self, o: Operand) -> "Expr": return _binary("-", o, self)
    def __mul__(self, o: Operand) -> "Expr": return _binary("*", self, o)
    def __rmul__(self, o: Operand) -> "Expr": return _binary("*", o, self)
    def __truediv__(self, o: Operand) -> "Expr": return _binary("/", self, o)
    def __rtruediv__(self, o: Operand) -> "Expr": return _binary("/", o, self)
    def __mod__(self, o: Operand) -> "Expr": return _binary("%", self, o)
    def __rmod__(self, o: Operand) -> "Expr": return _binary("%", o, self)
    def __lshift__(self, o: Operand) -> "Expr": return _binary("<<", self, o)
    def __rlshift__(self, o: Operand) -> "Expr": return _binary("<<", o, self)
    def __rshift__(self, o: Operand) -> "Expr": return _binary(">>", self, o)
    def __rrshift__(self, o: Operand) -> "Expr": return _binary(">>", o, self)
    def __floordiv__(self, o: Operand) -> "Expr": return _binary("//", self, o)
    def __rfloordiv__(self, o: Operand) -> "Expr": return _binary("//", o, self)
    def __pow__(self, o: Operand) -> "Expr": return _binary("**", self, o)
    def __rpow__(self, o: Operand) -> "Expr": return _binary("**", o, self)
    def __and__(self, o: Operand) -> "Expr": return _binary("&", self, o)
    def __rand__(self, o: Operand) -> "Expr": return _binary("&", o, self)
    def __or__(self, o: Operand) -> "Expr": return _binary("|", self, o)
    def __ror__(self, o: Operand) -> "Expr": return _binary("|", o, self)
    def __xor__(self, o: Operand) -> "Expr": return _binary("^", self, o)
    def __rxor__(self, o: Operand) -> "Expr": return _binary("^", o, self)
    def __eq__(self, o: Operand) -> "Expr": return _binary("==", self, o)  # type: ignore[override]
    def __ne__(self, o: Operand) -> "Expr": return _binary("!=", self, o)  # type: ignore[override]
    def __lt__(self, o: Operand) -> "Expr": return _binary("<", self, o)
    def __le__(self, o: Operand) -> "Expr": return _binary("<=", self, o)
    def __gt__(self, o: Operand) -> "Expr": return _binary(">", self, o)
    def __ge__(self, o: Operand) -> "Expr": return _binary(">=", self, o)
    def __neg__(self) -> "Expr": return Expr(f"(-{self._text})", self._bound)
    def __pos__(self) -> "Expr": return self
    def __invert__(self) -> "Expr": return Expr(f"(~{self._text})", self._bound)
    def __abs__(self) -> "Expr": return _call("abs", self)

    # NumPy's attributes of an array, as nodes (a real operand is its own real part, 0 its imaginary).
    @property
    def real(self) -> "Expr": return _call("real", self)
    @property
    def imag(self) -> "Expr": return _call("imag", self)
    def conj(self) -> "Expr": return _call("conj", self)


def var(name: str) -> Expr:
    """An operand given by name when the expression is evaluated or prepared."""
    if not name.isidentifier() or name.startswith("_"):
        raise ValueError(f"var: {name!r} is not a name (letters, digits and _, not starting with _ or a digit)")
    return Expr(name)


def _leaf(value: Operand, bound: dict[str, Any]) -> str:
    if isinstance(value, Expr):
        for name, array in value._bound.items():
            if bound.setdefault(name, array) is not array:
                raise ValueError(f"two arrays bound as {name}")
        return value._text
    if isinstance(value, bool):
        raise TypeError("a Python bool in an expression: use bcast's where() or a bool array")
    # NEP 50: Python's own int and float are weak literals; NumPy's scalars
    # (np.float64 subclasses float) are strong, bound as 0-d arrays below. A
    # Python complex is bound by name too, and stays weak there.
    if type(value) is int:
        return f"({value})" if value < 0 else str(value)
    if type(value) is float:
        if not math.isfinite(value):
            raise ValueError(f"{value} has no literal in bcast's grammar: bind a 0-d array (np.float64({value}))")
        text = repr(value)
        return f"({text})" if value < 0 or text.startswith("-") else text
    # An array (or anything with __array_interface__ / __dlpack__): bound by a
    # name of its own, the same name for the same object.
    for name, array in bound.items():
        if array is value:
            return name
    name = f"_{len(bound)}"
    bound[name] = value
    return name


def _binary(op: str, a: Operand, b: Operand) -> Expr:
    bound: dict[str, Any] = {}
    text = f"({_leaf(a, bound)} {op} {_leaf(b, bound)})"
    return Expr(text, bound)


def _call(name: str, *args: Operand) -> Expr:
    bound: dict[str, Any] = {}
    return Expr(f"{name}({', '.join(_leaf(a, bound) for a in args)})", bound)


# Every node of the grammar as a function, as C++'s namespace bcast::expr:
# bcast.expr.max(x, 0), bcast.expr.exp(x), bcast.expr.where(c, a, b).
def _function(name: str, arity: int):
    def node(*args: Operand) -> Expr:
        if len(args) != arity:
            raise TypeError(f"bcast.expr.{name} takes {arity} operands, not {len(args)}")
        return _call(name, *args)
    node.__name__ = name
    node.__qualname__ = name
    node.__doc__ = f"The expression node {name}({', '.join('abc'[:arity]) if arity > 1 else 'x'})."
    return node


# One function per name and alias of the function table (NOTE: [Function table]).
BINARY: tuple[str, ...] = ()
UNARY: tuple[str, ...] = ()
TERNARY: tuple[str, ...] = ()
for _name, _arity, _aliases in _bcast._functions():
    for _each in (_name, *_aliases):
        globals()[_each] = _function(_each, _arity)
    if _arity == 1:
        UNARY += (_name,)
    elif _arity == 2:
        BINARY += (_name,)
    else:
        TERNARY += (_name,)
del _name, _arity, _aliases, _each


def cast(x: Operand, dtype: Any) -> Expr:
    """x as dtype (NumPy's astype)."""
    return _call(dtype_name(dtype), x)


# The reductions as nodes (NOTE: [Expression passes]): bcast.expr.sum(x * y, axis=1),
# amax(x, axis=-1, keepdims=True); max(a, b) and min(a, b) stay elementwise.
def _axis_text(axis: Any) -> str:
    if axis is None:
        return "None"
    if hasattr(axis, "__index__") and not isinstance(axis, bool):
        return str(operator.index(axis))
    axes = tuple(operator.index(a) for a in axis)
    return "(" + ", ".join(str(a) for a in axes) + ("," if len(axes) == 1 else "") + ")"


def _reduction(name: str, takes_dtype: bool):
    spread = name in ("var", "std")

    def node(x: Operand, axis: Any = None, dtype: Any = None, keepdims: bool = False, ddof: float = 0) -> Expr:
        if dtype is not None and not takes_dtype:
            raise TypeError(f"bcast.expr.{name} takes no dtype")
        if ddof and not spread:
            raise TypeError(f"bcast.expr.{name} takes no ddof")
        bound: dict[str, Any] = {}
        text = f"{name}({_leaf(x, bound)}, axis={_axis_text(axis)}"
        if keepdims:
            text += ", keepdims=True"
        if dtype is not None:
            text += f", dtype={dtype_name(dtype)}"
        if ddof:
            text += f", ddof={float(ddof)!r}"
        return Expr(text + ")", bound)
    node.__name__ = name
    node.__qualname__ = name
    node.__doc__ = (f"The reduction {name}(x, axis=None, dtype=None, keepdims=False"
                    f"{', ddof=0' if spread else ''}) as a node, in NumPy's order (dtype only where NumPy takes it).")
    return node


# var(name) names an operand here, so NumPy's var is `variance` (the grammar's var).
REDUCTIONS: tuple[str, ...] = ("sum", "prod", "mean", "amax", "amin", "any", "all", "argmin", "argmax", "std",
                               "nansum", "nanmean", "nanmin", "nanmax")
for _name in REDUCTIONS:
    globals()[_name] = _reduction(_name, _name in ("sum", "prod", "mean", "std", "nansum", "nanmean"))
variance = _reduction("var", True)
del _name
