"""bcast expressions on Dask arrays: Dask schedules, bcast computes each chunk
(docs/dask.md).

    import dask.array as da, bcast.dask
    x = da.random.random((100_000, 1_000), chunks=(10_000, 1_000)).astype("f4")
    y = bcast.dask.evaluate("(x - m) * r * g + b", x=x, m=mean, r=rstd, g=gamma, b=beta)
    y.compute()                       # threaded, or on a distributed Client

The result is a dask array whose graph has one task per output chunk, each
running the expression as one fused bcast kernel over its chunk (NumPy with
dask.array runs one pass through memory per op instead). Operands are dask
arrays, NumPy arrays (one chunk, broadcast to every chunk) or numbers (weak
scalars, given to every task). Broadcasting follows NumPy's rules across chunk
grids as dask.array.blockwise does: an operand of extent 1 along a dim is
reused by every chunk there, and operands chunked differently are rechunked to
a common grid (unify_chunks).
"""
from __future__ import annotations

import builtins
from collections import OrderedDict
from functools import partial
from typing import Any

import numpy as np
import dask.array as da
from dask.base import tokenize

from . import _bcast, _text_and_operands
from .expr import BINARY, _numpy_dtype, dtype_name
from .reductions import _ddof

__all__ = ["evaluate", "warm", "cache_stats", "set_num_threads", "sum", "prod", "mean", "amax", "amin", "any", "all",
           "var", "std", "argmin", "argmax", "nansum", "nanmean", "nanmin", "nanmax", *BINARY]

# A result of evaluate(), by name -> what warm() needs to compile its kernels:
# (text, the output's chunks, name -> (dtype, shape) of each array, numbers).
# (This module binds sum, any and all to bcast's reductions: builtins' are builtins.any and so on.)
# The most recent _MAX_WARM_SPECS are kept (dask arrays take no weak
# references, so a spec cannot leave with its array).
_WARM_SPECS: "OrderedDict[str, tuple]" = OrderedDict()
_MAX_WARM_SPECS = 4096


def _chunk(*blocks: np.ndarray, text: str, names: tuple[str, ...], numbers: dict[str, Any]) -> np.ndarray:
    """One task: the expression over one chunk of each operand."""
    return np.asarray(_bcast._evaluate(text, {**dict(zip(names, blocks)), **numbers}, None))


def _probe(dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    """A read-only array of `shape` over one element: enough for bcast to check
    and plan a call, which reads no operand's memory (C order's strides, as
    dask's own chunks have)."""
    strides, step = [], dtype.itemsize
    for extent in reversed(shape):
        strides.append(step if extent > 1 else 0)
        step *= extent or 1  # (this module binds max, min and pow to the ops)
    return np.lib.stride_tricks.as_strided(np.zeros(1, dtype), shape=shape, strides=tuple(reversed(strides)),
                                           writeable=False)


def evaluate(expression: "str | Any", **operands: Any) -> da.Array:
    """The expression over dask arrays, one fused bcast kernel per output chunk."""
    text, named = _text_and_operands(expression, operands)
    arrays: dict[str, da.Array] = {}
    numbers: dict[str, Any] = {}
    for name, value in named.items():
        # bcast reads a Python number as NEP 50's weak scalar (builtins': this module's complex() is numexpr's)
        if isinstance(value, (int, float, builtins.complex)):
            numbers[name] = value
            continue
        array = value if isinstance(value, da.Array) else da.from_array(np.asarray(value), chunks=-1)
        if builtins.any(np.isnan(extent) for extent in array.shape):
            raise ValueError(f"bcast.dask: operand {name} has chunks of unknown size {array.chunks}: Dask cannot "
                             f"line its chunks up with the others' (call {name}.compute_chunk_sizes() first)")
        arrays[name] = array
    if not arrays:
        raise ValueError("bcast.dask.evaluate: no array operand (evaluate numbers with bcast.evaluate)")
    # bcast checks the shapes and dtypes (its messages name the operands) and
    # gives the result's dtype and shape.
    info = _bcast._describe(text, {**{n: _probe(a.dtype, a.shape) for n, a in arrays.items()}, **numbers})
    if info["passes"]:  # a reduction needs every chunk of its input, which one task per output chunk does not see
        raise ValueError(f"bcast.dask.evaluate: {text!r} holds a reduction; reduce the evaluated dask array with "
                         "bcast.dask.sum, prod, mean, amax, amin, any, all or their kin (one bcast reduction per chunk, the "
                         "partials combined by bcast)")
    out_dtype = _numpy_dtype(info["out_dtype"])
    ndim = len(info["out_shape"])
    out_index = tuple(range(ndim))
    pairs = []
    for array in arrays.values():
        pairs += [array, out_index[ndim - array.ndim:]]
    names = tuple(arrays)
    result = da.blockwise(_chunk, out_index, *pairs, dtype=out_dtype, meta=np.empty((0,) * ndim, out_dtype),
                          name="bcast-" + tokenize(text, names, numbers, *arrays.values()),
                          text=text, names=names, numbers=numbers)
    _WARM_SPECS[result.name] = (text, result.chunks, {n: (a.dtype, a.shape) for n, a in arrays.items()}, numbers)
    _WARM_SPECS.move_to_end(result.name)
    if len(_WARM_SPECS) > _MAX_WARM_SPECS:
        _WARM_SPECS.popitem(last=False)
    return result


def _reduce_block(block: np.ndarray, axis: Any = None, keepdims: bool = False, name: str = "sum",
                  asked: Any = None, computing_meta: bool = False) -> np.ndarray:
    """One chunk's reduction, or the reduction of the chunks' partials: bcast's.
    (`asked` is the dtype= argument: dask fills a parameter named dtype itself.)"""
    if computing_meta:
        return np.empty((0,) * (block.ndim if keepdims else 0), _reduced_dtype(name, block.dtype, asked))
    return np.asarray(_bcast._reduce(name, block, axis, keepdims, asked))


def _reduced_dtype(name: str, dtype: Any, asked: Any) -> np.dtype:
    return np.asarray(_bcast._reduce(name, np.zeros(1, dtype), None, False, asked)).dtype


def _dask_array(x: Any) -> da.Array:
    return x if isinstance(x, da.Array) else da.from_array(np.asarray(x), chunks=-1)


def _reduction(name: str, x: Any, axis: Any, keepdims: bool, dtype: Any, partials: str | None = None) -> da.Array:
    """dask.array.reduction with bcast's `name` on each chunk and bcast's
    `partials` (`name` unless given: nansum's partials add as sum's) on the
    partials, those of sum and prod already in the result's dtype, so the
    combine step adds them as they are."""
    array = _dask_array(x)
    out_dtype = _reduced_dtype(name, array.dtype, dtype)
    partials = partials or name
    chunk = partial(_reduce_block, name=name, asked=dtype)
    again = partial(_reduce_block, name=partials, asked=out_dtype if partials in ("sum", "prod") else None)
    return da.reduction(array, chunk, again, combine=again, axis=axis, keepdims=keepdims, dtype=out_dtype,
                        concatenate=True, name=f"bcast-{name}")


def sum(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> da.Array:  # noqa: A001
    """bcast's sum over a dask array: each chunk reduced by bcast, the partials too."""
    return _reduction("sum", x, axis, keepdims, dtype)


def prod(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> da.Array:
    """bcast's product over a dask array."""
    return _reduction("prod", x, axis, keepdims, dtype)


def amax(x: Any, axis: Any = None, keepdims: bool = False) -> da.Array:
    """bcast's largest element over a dask array (NaN propagates)."""
    return _reduction("max", x, axis, keepdims, None)


def amin(x: Any, axis: Any = None, keepdims: bool = False) -> da.Array:
    """bcast's smallest element over a dask array (NaN propagates)."""
    return _reduction("min", x, axis, keepdims, None)


def any(x: Any, axis: Any = None, keepdims: bool = False) -> da.Array:  # noqa: A001
    """Whether any element is nonzero, over a dask array."""
    return _reduction("any", x, axis, keepdims, None)


def all(x: Any, axis: Any = None, keepdims: bool = False) -> da.Array:  # noqa: A001
    """Whether every element is nonzero, over a dask array."""
    return _reduction("all", x, axis, keepdims, None)


def mean(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> da.Array:
    """bcast's mean over a dask array: the sum (in mean's accumulator: f64 for
    integers, f32 for f16) over the count, in the mean's dtype."""
    array = _dask_array(x)
    out_dtype = _reduced_dtype("mean", array.dtype, dtype)
    accumulator = np.float32 if out_dtype == np.float16 else out_dtype
    total = _reduction("sum", array, axis, keepdims, accumulator)
    return (total / np.dtype(accumulator).type(_count(array, axis))).astype(out_dtype)


def _count(array: da.Array, axis: Any) -> int:
    """The elements each result of a reduction along `axis` combines."""
    axes = range(array.ndim) if axis is None else [axis] if isinstance(axis, int) else axis
    count = 1
    for a in axes:
        count *= array.shape[a]
    return count


# ---- NOTE: [Composed reductions] over chunks: the same steps as bcast's own
# (src/api/composed_reductions.cpp), each a bcast reduction of chunks and
# partials or one bcast kernel per chunk.

def _spread(name: str, x: Any, axis: Any, dtype: Any, ddof: float, keepdims: bool,
            correction: float | None) -> da.Array:
    """var and std: the mean in the work dtype (f32 for halves, f64 for
    integers and bool, complex x complex), the squared deviations' sum over
    max(n - ddof, 0), then for std its square root; then the result's dtype."""
    ddof = _ddof(ddof, correction)
    array = _dask_array(x)
    result = _reduced_dtype(name, array.dtype, dtype)
    real = np.dtype(np.float32) if result == np.float16 else result
    work = np.result_type(real, np.complex64) if array.dtype.kind == "c" else real
    m = mean(array, axis, work, keepdims=True)
    w = dtype_name(work)
    squares = evaluate(f"real(({w}(x) - m) * conj({w}(x) - m))" if work.kind == "c" else f"({w}(x) - m) * ({w}(x) - m)",
                       x=array, m=m)
    v = _reduction("sum", squares, axis, keepdims, None) / real.type(builtins.max(_count(array, axis) - ddof, 0))
    spread = evaluate("sqrt(v)", v=v) if name == "std" else v
    return spread if spread.dtype == result else spread.astype(result)


def var(x: Any, axis: Any = None, dtype: Any = None, ddof: float = 0, keepdims: bool = False, *,
        correction: float | None = None) -> da.Array:
    """bcast's variance over a dask array, in two passes (the mean, then the
    squared deviations): NumPy's var, with the Array API's `correction`."""
    return _spread("var", x, axis, dtype, ddof, keepdims, correction)


def std(x: Any, axis: Any = None, dtype: Any = None, ddof: float = 0, keepdims: bool = False, *,
        correction: float | None = None) -> da.Array:
    """bcast's standard deviation over a dask array: the square root of var."""
    return _spread("std", x, axis, dtype, ddof, keepdims, correction)


def _arg_extremum(name: str, x: Any, axis: Any, keepdims: bool) -> da.Array:
    """argmin and argmax through dask.array's arg_reduction: each chunk's
    extremum and its index (bcast's amin/amax and argmin/argmax), then among
    the chunks' the extremum with the smallest index (NaN first, as NumPy;
    chunk order is not C order when axis is None)."""
    from dask.array.reductions import arg_chunk, arg_reduction
    extremum = "max" if name == "argmax" else "min"
    return arg_reduction(_dask_array(x), partial(arg_chunk, _bcast_reduction(extremum), _bcast_reduction(name)),
                         partial(_arg_partials, extremum, keep=True), partial(_arg_partials, extremum),
                         axis=axis, keepdims=keepdims)


def _bcast_reduction(name: str):
    def run(x: np.ndarray, axis: Any = None, keepdims: bool = False) -> np.ndarray:
        return np.asarray(_bcast._reduce(name, x, axis, keepdims, None))
    run.__name__ = name  # arg_chunk tells argmin from argmax by its argument's name
    return run


def _arg_partials(extremum: str, data: np.ndarray, axis: Any = None, keepdims: bool = False, keep: bool = False,
                  **_: Any) -> np.ndarray:
    """Chunks' (vals, arg) partials combined (keep: into partials again, else
    the indices): the extremum of vals, and the smallest arg that has it (or
    NaN where the extremum is NaN), as bcast's own argmin/argmax compose it."""
    vals, arg = data["vals"], data["arg"]
    along = None if len(axis) == vals.ndim or vals.ndim == 1 else axis[0]
    m = np.asarray(_bcast._reduce(extremum, vals, along, True, None))
    hit = "(v == m) | (isnan(v) & isnan(m))" if vals.dtype.kind in "fc" else "v == m"
    first = np.asarray(_bcast._evaluate(f"amin(where({hit}, a, {np.iinfo(np.int64).max}), axis={_axis_text(along)}, "
                                        "keepdims=True)", {"v": vals, "m": m, "a": arg}, None))
    if not keep:
        return first if keepdims else first.reshape(()) if along is None else first.squeeze(along)
    result = np.empty(m.shape, dtype=[("vals", m.dtype), ("arg", first.dtype)])
    result["vals"], result["arg"] = m, first
    return result


def _axis_text(axis: int | None) -> str:
    return "None" if axis is None else str(axis)


def argmin(x: Any, axis: int | None = None, keepdims: bool = False) -> da.Array:
    """The index of the first smallest element over a dask array (C order when axis is None)."""
    return _arg_extremum("argmin", x, axis, keepdims)


def argmax(x: Any, axis: int | None = None, keepdims: bool = False) -> da.Array:
    """The index of the first largest element over a dask array (C order when axis is None)."""
    return _arg_extremum("argmax", x, axis, keepdims)


def nansum(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> da.Array:
    """The sum over a dask array with NaN counted as zero: bcast's nansum per
    chunk, the partials added by its sum."""
    return _reduction("nansum", x, axis, keepdims, dtype, partials="sum")


def nanmin(x: Any, axis: Any = None, keepdims: bool = False) -> da.Array:
    """The smallest element that is not NaN (NaN where all are) over a dask array."""
    return _reduction("nanmin", x, axis, keepdims, None)


def nanmax(x: Any, axis: Any = None, keepdims: bool = False) -> da.Array:
    """The largest element that is not NaN (NaN where all are) over a dask array."""
    return _reduction("nanmax", x, axis, keepdims, None)


def nanmean(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> da.Array:
    """The mean of the elements that are not NaN over a dask array: their sum
    in mean's accumulator over their count, in the mean's dtype."""
    array = _dask_array(x)
    if array.dtype.kind not in "fc":
        return mean(array, axis, dtype, keepdims)
    result = _reduced_dtype("nanmean", array.dtype, dtype)
    accumulator = np.dtype(np.float32) if result == np.float16 else result
    total = nansum(array, axis, accumulator, keepdims)
    count = sum(evaluate("x == x", x=array), axis, None, keepdims)
    real = np.empty(0, accumulator).real.dtype
    mean_ = evaluate(f"t / {dtype_name(real)}(n)", t=total, n=count)
    return mean_ if mean_.dtype == result else mean_.astype(result)


def _binary(op: str):
    def run(x: Any, y: Any) -> da.Array:
        return evaluate(f"{op}(x, y)", x=x, y=y)
    run.__name__ = run.__qualname__ = op
    run.__doc__ = f"bcast's {op} of x and y over dask arrays, one kernel per output chunk."
    return run


for _op in BINARY:
    globals()[_op] = _binary(_op)
del _op


def _warm_here(specs: list) -> dict[str, Any]:
    """On one worker: plans each distinct chunk of every expression, which
    compiles (or loads from the disk cache) each kernel its tasks will use."""
    from itertools import product
    for text, out_chunks, arrays, numbers in specs:
        ndim = len(out_chunks)
        for out_block in product(*[sorted(set(dim)) for dim in out_chunks]):
            # Each operand's block: the output block's extents, 1 where it broadcasts.
            probes = {name: _probe(np.dtype(dtype), tuple(1 if extent == 1 else out_block[ndim - len(shape) + d]
                                                          for d, extent in enumerate(shape)))
                      for name, (dtype, shape) in arrays.items()}
            _bcast._describe(text, {**probes, **numbers})
    _bcast.wait_for_compiles()
    return _bcast.kernel_cache_stats()


def _stats_here() -> dict[str, Any]:
    return _bcast.kernel_cache_stats()


def cache_stats(client: Any) -> dict[str, dict[str, Any]]:
    """Each worker's kernel cache statistics (bcast.kernel_cache_stats()), by worker address."""
    return client.run(_stats_here)


def _threads_here(n: int) -> int:
    _bcast.set_num_threads(n)
    return _bcast.num_threads()


def set_num_threads(client: Any, n: int) -> dict[str, int]:
    """bcast.set_num_threads(n) on every worker of `client`. A worker whose
    threads already run one task per core wants 1 (docs/dask.md)."""
    return client.run(_threads_here, n)


def warm(client: Any, expressions: list[da.Array], workers: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """Compiles (or loads) on every worker of `client` (or those named) the
    kernels that the tasks of these results of evaluate() will run, before
    the first task. Returns each worker's cache statistics after."""
    specs = []
    for result in expressions:
        if result.name not in _WARM_SPECS:
            raise ValueError(f"bcast.dask.warm: {result.name} is not a result of bcast.dask.evaluate "
                             f"(or one of more than {_MAX_WARM_SPECS} made since)")
        specs.append(_WARM_SPECS[result.name])
    return client.run(_warm_here, specs, workers=workers)
