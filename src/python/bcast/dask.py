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
from typing import Any

import numpy as np
import dask.array as da
from dask.base import tokenize

from . import _bcast, _text_and_operands
from .expr import BINARY, _numpy_dtype

__all__ = ["evaluate", "warm", "cache_stats", "set_num_threads", *BINARY]

# A result of evaluate(), by name -> what warm() needs to compile its kernels:
# (text, the output's chunks, name -> (dtype, shape) of each array, numbers).
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
        if any(np.isnan(extent) for extent in array.shape):
            raise ValueError(f"bcast.dask: operand {name} has chunks of unknown size {array.chunks}: Dask cannot "
                             f"line its chunks up with the others' (call {name}.compute_chunk_sizes() first)")
        arrays[name] = array
    if not arrays:
        raise ValueError("bcast.dask.evaluate: no array operand (evaluate numbers with bcast.evaluate)")
    # bcast checks the shapes and dtypes (its messages name the operands) and
    # gives the result's dtype and shape.
    info = _bcast._describe(text, {**{n: _probe(a.dtype, a.shape) for n, a in arrays.items()}, **numbers})
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
