"""bcast.dask against NumPy: on Dask's threaded scheduler and on a
distributed LocalCluster of worker processes on the loopback interface, with
chunk grids that do not line up, operands of extent 1 along chunked dims,
empty and Fortran-ordered chunks; warm() on every worker, the disk cache
shared by the workers, and a worker killed in the middle of a computation.
The distributed tests run once with the workers in each BCAST_JIT_MODE."""
import logging
import os
import signal
import uuid

import numpy as np
import pytest

try:
    import dask.array as da
    import distributed
except ImportError as missing:  # a failure, not a skip: ctest must not pass without them
    raise ImportError(f"bcast.dask's tests need Dask: install Debian's python3-dask and python3-distributed "
                      f"(tools/setup-deps.sh installs both): {missing}") from missing
import bcast  # noqa: E402
import bcast.dask  # noqa: E402

RNG = np.random.default_rng(20)


def bcast_tasks(result):
    return [k for k in dict(result.__dask_graph__()) if isinstance(k, tuple) and k[0] == result.name]


def test_grids_that_do_not_line_up_and_extent_one_operands():
    xv = RNG.standard_normal((700, 500)).astype(np.float32)
    yv = RNG.standard_normal((700, 500)).astype(np.float32)
    col = RNG.standard_normal((700, 1)).astype(np.float32)
    row = RNG.standard_normal(500).astype(np.float32)
    x = da.from_array(xv, chunks=(300, 200))
    y = da.from_array(yv, chunks=(250, 333))  # lines up with x's grid nowhere
    c = da.from_array(col, chunks=(100, 1))   # extent 1 along the chunked second dim
    result = bcast.dask.evaluate("(x - y) * c + r", x=x, y=y, c=c, r=row)
    assert len(bcast_tasks(result)) == result.npartitions  # one task per output chunk
    assert np.array_equal(result.compute(scheduler="threads"), (xv - yv) * col + row)


def test_empty_and_fortran_ordered_chunks_and_the_binary_ops():
    f = np.asfortranarray(RNG.standard_normal((60, 40)))
    x = da.from_array(f, chunks=(25, 15))  # each chunk a Fortran-ordered view
    y = da.from_array(np.arange(40.0), chunks=(((0, 40),)))
    assert np.array_equal(bcast.dask.mul(x, y).compute(), f * np.arange(40.0))
    empty = da.from_array(np.ones((0, 5), np.int16), chunks=((0,), (2, 3)))
    assert bcast.dask.add(empty, np.int16(3)).compute().shape == (0, 5)
    ragged = da.from_array(np.arange(10, dtype=np.int32), chunks=((0, 4, 0, 6),))
    assert np.array_equal(bcast.dask.sub(ragged, 1).compute(), np.arange(10, dtype=np.int32) - 1)


def test_u8_normalisation_promotes_as_numpy_2():
    img = RNG.integers(0, 256, (64, 48, 3), dtype=np.uint8)
    mean = np.array([0.485, 0.456, 0.406], np.float32)
    std = np.array([0.229, 0.224, 0.225], np.float32)
    x = bcast.var("x")
    result = bcast.dask.evaluate((x.astype("f32") - mean) / std, x=da.from_array(img, chunks=(20, 48, 3)))
    assert result.dtype == np.float32
    assert np.array_equal(result.compute(), (img.astype(np.float32) - mean) / std)


def test_a_python_complex_is_weak_and_complex_arrays_chunk():
    x = da.from_array(np.arange(12, dtype=np.float32).reshape(3, 4), chunks=(2, 3))
    z = da.from_array((np.arange(4) * (1 - 2j)).astype(np.complex64), chunks=2)
    result = bcast.dask.evaluate("x * s + z.conj()", x=x, s=2 - 1j, z=z)
    want = (np.arange(12, dtype=np.float32).reshape(3, 4) * (2 - 1j)
            + (np.arange(4) * (1 - 2j)).astype(np.complex64).conj())
    assert result.dtype == np.complex64 == want.dtype
    assert np.array_equal(result.compute(), want)


def test_reductions_over_chunk_grids_that_do_not_line_up():
    """bcast.dask.sum & co.: one bcast reduction per chunk and of the partials, against NumPy."""
    x = RNG.standard_normal((37, 29, 11)).astype(np.float32)
    xd = da.from_array(x, chunks=(10, 7, 11))
    for axis in (None, 0, 1, (0, 2), -1):
        for keepdims in (False, True):
            for ours, theirs in ((bcast.dask.sum, np.sum), (bcast.dask.mean, np.mean)):
                got = ours(xd, axis=axis, keepdims=keepdims).compute(scheduler="threads")
                want = theirs(x.astype(np.float64), axis=axis, keepdims=keepdims)
                assert got.dtype == np.float32 and got.shape == want.shape
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
            for ours, theirs in ((bcast.dask.amax, np.max), (bcast.dask.amin, np.min)):
                np.testing.assert_array_equal(ours(xd, axis=axis, keepdims=keepdims).compute(), theirs(x, axis=axis, keepdims=keepdims))
    i = RNG.integers(-5, 5, (40, 30)).astype(np.int32)
    idd = da.from_array(i, chunks=(9, 13))
    assert bcast.dask.sum(idd).compute() == np.sum(i) and bcast.dask.sum(idd).dtype == np.int64
    np.testing.assert_array_equal(bcast.dask.prod(da.from_array(i % 3 + 1, chunks=(9, 13)), axis=0).compute(),
                                  np.prod(i % 3 + 1, axis=0))
    np.testing.assert_array_equal(bcast.dask.any(idd > 3, axis=1).compute(), np.any(i > 3, axis=1))
    np.testing.assert_array_equal(bcast.dask.all(idd > -5, axis=0).compute(), np.all(i > -5, axis=0))
    y = bcast.dask.evaluate("x * 2 + 1", x=xd)  # an elementwise graph, then its reduction
    np.testing.assert_allclose(bcast.dask.sum(y, axis=1).compute(), np.sum(x * 2 + 1, axis=1), rtol=1e-5, atol=1e-3)
    with pytest.raises(ValueError, match="holds a reduction; reduce the evaluated dask array with bcast.dask.sum"):
        bcast.dask.evaluate("x - mean(x, axis=0)", x=xd)


def test_composed_reductions_over_chunk_grids_that_do_not_line_up():
    """var, std, argmin, argmax and the nan- reductions over chunks, each built
    of bcast reductions and kernels, against NumPy (with NaN and ties)."""
    x = RNG.standard_normal((23, 17, 6)) * 3 + 10
    x[RNG.random(x.shape) < 0.1] = np.nan
    x[4, :, 2] = np.nan  # a whole lane of NaN
    for dtype in (np.float32, np.float64):
        xv = x.astype(dtype)
        xd = da.from_array(xv, chunks=(5, 9, 4))
        for axis in (None, 0, 1, (0, 2), -1):
            for keepdims in (False, True):
                for name, rtol in (("nansum", 1e-5), ("nanmean", 1e-5), ("nanmin", 0), ("nanmax", 0)):
                    got = getattr(bcast.dask, name)(xd, axis=axis, keepdims=keepdims).compute()
                    with np.errstate(all="ignore"), __import__("warnings").catch_warnings():
                        __import__("warnings").simplefilter("ignore")
                        want = getattr(np, name)(xv.astype(np.float64), axis=axis, keepdims=keepdims)
                    assert got.dtype == dtype and got.shape == want.shape, (name, axis)
                    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-4 if rtol else 0, err_msg=name)
        clean = np.nan_to_num(xv)
        cd = da.from_array(clean, chunks=(5, 9, 4))
        for axis in (None, 0, (1, 2), -1):
            for ddof, correction in ((0, None), (1, None), (0, 1.5)):
                for name in ("var", "std"):
                    got = getattr(bcast.dask, name)(cd, axis=axis, ddof=ddof, correction=correction, keepdims=True)
                    want = getattr(np, name)(clean.astype(np.float64), axis=axis, keepdims=True,
                                             ddof=correction if correction is not None else ddof)
                    assert got.dtype == dtype and got.shape == want.shape
                    np.testing.assert_allclose(got.compute(), want, rtol=1e-4 if dtype == np.float32 else 1e-12)
    ints = RNG.integers(-3, 4, (31, 12)).astype(np.int16)  # many ties: the first in C order wins
    idd = da.from_array(ints, chunks=(7, 5))
    for axis in (None, 0, 1):
        for name in ("argmin", "argmax"):
            got = getattr(bcast.dask, name)(idd, axis=axis).compute()
            np.testing.assert_array_equal(got, getattr(np, name)(ints, axis=axis), err_msg=f"{name} axis {axis}")
            assert got.dtype == np.int64
    with np.errstate(invalid="ignore"):
        for axis in (None, 0, 1):  # NaN is the extremum, as in NumPy
            xs = x[:, :, 0]
            for name in ("argmin", "argmax"):
                np.testing.assert_array_equal(
                    getattr(bcast.dask, name)(da.from_array(xs, chunks=(6, 4)), axis=axis).compute(),
                    getattr(np, name)(xs, axis=axis))
    np.testing.assert_array_equal(bcast.dask.argmax(idd, axis=1, keepdims=True).compute(),
                                  np.argmax(ints, axis=1, keepdims=True))
    np.testing.assert_allclose(bcast.dask.var(idd, axis=0).compute(), np.var(ints, axis=0), rtol=1e-12)
    assert bcast.dask.var(idd).dtype == np.float64 and bcast.dask.nanmean(idd).dtype == np.float64
    z = (RNG.standard_normal((14, 9)) + 1j * RNG.standard_normal((14, 9))).astype(np.complex64)
    zd = da.from_array(z, chunks=(4, 5))
    got = bcast.dask.var(zd, axis=1, ddof=1)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got.compute(), np.var(z.astype(np.complex128), axis=1, ddof=1), rtol=1e-5)
    h = RNG.standard_normal((40, 8)).astype(np.float16)
    got = bcast.dask.std(da.from_array(h, chunks=(9, 3)), axis=0)
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.compute(), np.std(h.astype(np.float64), axis=0), rtol=2e-3)


def test_what_dask_cannot_chunk_is_said_in_the_error():
    x = da.from_array(np.arange(10.0), chunks=5)
    unknown = x[x > 3]  # chunk sizes known only after computing
    with pytest.raises(ValueError, match="unknown size.*compute_chunk_sizes"):
        bcast.dask.evaluate("a + b", a=unknown, b=1.0)
    with pytest.raises(ValueError, match=r"y has shape \[4\], which does not broadcast with x \[10\]"):
        bcast.dask.add(x, da.ones(4, chunks=2))
    with pytest.raises(TypeError, match="datetime64"):
        bcast.dask.add(x, np.ones(10, "M8[s]"))


def jit_mode_here():
    return bcast.get_setting("BCAST_JIT_MODE")


@pytest.fixture(scope="module", params=["sync", "async"])
def cluster(request, tmp_path_factory):
    """Two worker processes sharing a fresh disk cache, in one BCAST_JIT_MODE;
    only the workers see these settings (this process keeps its own, so that
    its describe() of a result writes nothing into the workers' cache)."""
    cache = tmp_path_factory.mktemp(f"bcast-cache-{request.param}")
    env = {"BCAST_CACHE_DIR": str(cache), "BCAST_JIT_MODE": request.param}
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None, silence_logs=logging.ERROR, env=env) as c:
        with distributed.Client(c) as client:
            assert set(client.run(jit_mode_here).values()) == {request.param}
            yield client


def test_distributed_workers_share_the_disk_cache_and_warm_before_the_first_task(cluster):
    xv = RNG.standard_normal((400, 300)).astype(np.float32)
    g = RNG.standard_normal(300).astype(np.float32)
    result = bcast.dask.evaluate("(x - 1.5) * g + 2", x=da.from_array(xv, chunks=(100, 150)), g=g)
    first, second = sorted(cluster.scheduler_info()["workers"])
    warmed = bcast.dask.warm(cluster, [result], workers=[first])
    assert warmed[first]["compiles"] >= 1
    warmed = bcast.dask.warm(cluster, [result], workers=[second])
    assert warmed[second]["disk_hits"] >= 1 and warmed[second]["compiles"] == 0  # from the first one's files
    before = bcast.dask.warm(cluster, [result])
    assert np.array_equal(result.compute(), (xv - np.float32(1.5)) * g + 2)
    after = bcast.dask.cache_stats(cluster)
    for worker in after:  # every task found its kernel ready
        assert after[worker]["misses"] == before[worker]["misses"], (before, after)
        assert after[worker]["fallback_calls"] == 0


FREE_CHUNKS = 4


def gated_block(seed_block, block_info=None, gate=""):
    """A chunk of inputs. From the FREE_CHUNKS-th on, a chunk says which
    worker started it and waits for the test's go: the test kills a worker
    while it holds one (events, not sleeps, decide when)."""
    row = block_info[None]["chunk-location"][0]
    if row >= FREE_CHUNKS:
        distributed.Queue(gate + "-started").put(distributed.get_worker().address)
        distributed.Event(gate + "-go").wait()
    return np.random.default_rng(row).standard_normal(block_info[None]["chunk-shape"]).astype(np.float32)


def test_a_worker_killed_mid_compute_costs_a_retry_not_a_result(cluster):
    shape, chunks = (4000, 256), (100, 256)
    gate = f"bcast-kill-{uuid.uuid4().hex}"
    started = distributed.Queue(gate + "-started", client=cluster)
    go = distributed.Event(gate + "-go", client=cluster)
    x = da.map_blocks(gated_block, da.zeros(shape, chunks=chunks, dtype=np.float32), dtype=np.float32, gate=gate)
    result = bcast.dask.evaluate("max(x * 3 - 1, 0)", x=x)
    want = np.maximum(np.concatenate([np.random.default_rng(i).standard_normal(chunks).astype(np.float32)
                                      for i in range(shape[0] // chunks[0])]) * 3 - 1, 0)
    pids = cluster.run(os.getpid)
    future = cluster.compute(result)
    victim = started.get()  # a worker holding a chunk it has not finished
    assert not future.done()  # no chunk past FREE_CHUNKS can finish before the go
    os.kill(pids[victim], signal.SIGKILL)
    go.set()
    assert np.array_equal(future.result(), want)
