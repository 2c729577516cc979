"""Reductions along axes, as NumPy's np.sum, np.prod, np.mean, np.amax,
np.amin, np.any, np.all, np.argmin, np.argmax, np.var, np.std, np.nansum,
np.nanmean, np.nanmin and np.nanmax (docs/semantics.md, "Reductions";
bcast/reduce.h).

    bcast.sum(x)                        # every axis: a NumPy scalar
    bcast.mean(img, axis=(0, 1))        # per channel
    bcast.amax(x, axis=-1, keepdims=True)

axis: None (every axis), an int or a tuple of ints, negative ones from the
end. Results follow NumPy's dtypes (sum of int32 is int64, mean of uint8 is
float64); float sums add in one fixed pairwise order, so they have the same
bits on any number of threads. bcast.max(a, b) and bcast.min(a, b) stay the
elementwise maximum and minimum: amax and amin reduce.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from . import _bcast

_Axis = Union[None, int, Sequence[int]]


def sum(x: Any, axis: _Axis = None, dtype: Optional[Any] = None, keepdims: bool = False) -> Any:  # noqa: A001
    """The sum along `axis`; bool and signed integers sum in int64, unsigned in uint64."""
    return _bcast._reduce("sum", x, axis, keepdims, dtype)


def prod(x: Any, axis: _Axis = None, dtype: Optional[Any] = None, keepdims: bool = False) -> Any:
    """The product along `axis`; bool and signed integers in int64, unsigned in uint64."""
    return _bcast._reduce("prod", x, axis, keepdims, dtype)


def mean(x: Any, axis: _Axis = None, dtype: Optional[Any] = None, keepdims: bool = False) -> Any:
    """The mean along `axis`; bool and integers in float64, float16 through float32."""
    return _bcast._reduce("mean", x, axis, keepdims, dtype)


def amax(x: Any, axis: _Axis = None, keepdims: bool = False) -> Any:
    """The largest element along `axis` (np.max); NaN if any is NaN."""
    return _bcast._reduce("max", x, axis, keepdims, None)


def amin(x: Any, axis: _Axis = None, keepdims: bool = False) -> Any:
    """The smallest element along `axis` (np.min); NaN if any is NaN."""
    return _bcast._reduce("min", x, axis, keepdims, None)


def any(x: Any, axis: _Axis = None, keepdims: bool = False) -> Any:  # noqa: A001
    """Whether any element along `axis` is nonzero."""
    return _bcast._reduce("any", x, axis, keepdims, None)


def all(x: Any, axis: _Axis = None, keepdims: bool = False) -> Any:  # noqa: A001
    """Whether every element along `axis` is nonzero."""
    return _bcast._reduce("all", x, axis, keepdims, None)


def argmin(x: Any, axis: Optional[int] = None, keepdims: bool = False) -> Any:
    """The index of the first smallest element along `axis` (of the flattened x without one)."""
    return _bcast._reduce("argmin", x, axis, keepdims, None)


def argmax(x: Any, axis: Optional[int] = None, keepdims: bool = False) -> Any:
    """The index of the first largest element along `axis` (of the flattened x without one)."""
    return _bcast._reduce("argmax", x, axis, keepdims, None)


def _ddof(ddof: float, correction: Optional[float]) -> float:
    if correction is not None and ddof != 0:
        raise ValueError("ddof and correction are one argument: give one of them")
    return float(correction if correction is not None else ddof)


def var(x: Any, axis: _Axis = None, dtype: Optional[Any] = None, ddof: float = 0, keepdims: bool = False, *,
        correction: Optional[float] = None) -> Any:
    """The variance along `axis`: the mean of |x - mean|**2 over max(n - ddof, 0)."""
    return _bcast._reduce("var", x, axis, keepdims, dtype, _ddof(ddof, correction))


def std(x: Any, axis: _Axis = None, dtype: Optional[Any] = None, ddof: float = 0, keepdims: bool = False, *,
        correction: Optional[float] = None) -> Any:
    """The standard deviation along `axis`: the square root of var."""
    return _bcast._reduce("std", x, axis, keepdims, dtype, _ddof(ddof, correction))


def nansum(x: Any, axis: _Axis = None, dtype: Optional[Any] = None, keepdims: bool = False) -> Any:
    """The sum of the elements that are not NaN."""
    return _bcast._reduce("nansum", x, axis, keepdims, dtype)


def nanmean(x: Any, axis: _Axis = None, dtype: Optional[Any] = None, keepdims: bool = False) -> Any:
    """The mean of the elements that are not NaN (NaN where all are)."""
    return _bcast._reduce("nanmean", x, axis, keepdims, dtype)


def nanmin(x: Any, axis: _Axis = None, keepdims: bool = False) -> Any:
    """The smallest element that is not NaN (NaN where all are)."""
    return _bcast._reduce("nanmin", x, axis, keepdims, None)


def nanmax(x: Any, axis: _Axis = None, keepdims: bool = False) -> Any:
    """The largest element that is not NaN (NaN where all are)."""
    return _bcast._reduce("nanmax", x, axis, keepdims, None)


REDUCTIONS = ("sum", "prod", "mean", "amax", "amin", "any", "all", "argmin", "argmax", "var", "std", "nansum",
              "nanmean", "nanmin", "nanmax")
