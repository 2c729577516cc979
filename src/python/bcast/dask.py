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
from .expr import BINARY, _numpy_dtype

__all__ = ["evaluate", "warm", "cache_stats", "set_num_threads", "sum", "prod", "mean", "amax", "amin", "any", "all",
           *BINARY]

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
                         "bcast.dask.sum, prod, mean, amax, amin, any or all (one bcast reduction per chunk, the "
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


def _reduction(name: str, x: Any, axis: Any, keepdims: bool, dtype: Any) -> da.Array:
    """dask.array.reduction with bcast on each chunk and on the partials (the
    partials of sum and prod already in the result's dtype, so the combine
    step adds them as they are)."""
    array = x if isinstance(x, da.Array) else da.from_array(np.asarray(x), chunks=-1)
    out_dtype = _reduced_dtype(name, array.dtype, dtype)
    chunk = partial(_reduce_block, name=name, asked=dtype)
    again = partial(_reduce_block, name=name, asked=out_dtype if name in ("sum", "prod") else None)
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
    array = x if isinstance(x, da.Array) else da.from_array(np.asarray(x), chunks=-1)
    out_dtype = _reduced_dtype("mean", array.dtype, dtype)
    accumulator = np.float32 if out_dtype == np.float16 else out_dtype
    total = _reduction("sum", array, axis, keepdims, accumulator)
    axes = range(array.ndim) if axis is None else [axis] if isinstance(axis, int) else axis
    count = 1
    for a in axes:
        count *= array.shape[a]
    return (total / np.dtype(accumulator).type(count)).astype(out_dtype)


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
