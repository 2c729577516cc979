#!/usr/bin/env python3
"""bcast.dask against dask.array with NumPy chunks, in one run (docs/dask.md):

  workloads   the affine chain (x - m) * r * g + b on f32 x, and the u8
              normalisation (f32(img) - mean) / std; per-column operands;
  schedulers  Dask's threaded scheduler with 2 threads, and distributed with
              2 worker processes of 1 thread each on the loopback interface;
  baselines   bcast's own single-process fused bandwidth on the same data
              (bcast.evaluate into a preallocated result, 2 threads), and the
              scheduler's overhead per task (a graph of no-op tasks).

Inputs are made and kept in memory before any timing (in this process for
the threaded runs, on the workers for distributed). Each output chunk is
computed and dropped (a task takes its size), so no run keeps a whole result.

usage: PYTHONPATH=build/python tools/bcast-bench-dask.py [--gib 4] [--chunk-mib 64] [--repeat 3] [--json FILE]
"""
import argparse
import json
import logging
import sys
import time

import numpy as np
import dask
import dask.array as da

import bcast
import bcast.dask
from bench_timing import median_ms

COLS = 1024


def workloads(gib, chunk_mib):
    """name -> (bcast text, NumPy function, x dtype, rows, chunk rows)."""
    f32_rows = int(gib * 2**30 / (COLS * 4))
    u8_rows = f32_rows  # the same element count: 1/4 of the bytes in, the same out
    return {
        "affine f32": ("(x - m) * r * g + b", lambda x, m, r, g, b: (x - m) * r * g + b, np.float32, f32_rows,
                       int(chunk_mib * 2**20 / (COLS * 4))),
        "u8 normalisation": ("(f32(x) - m) / r", lambda x, m, r, g, b: (x.astype(np.float32) - m) / r, np.uint8,
                             u8_rows, int(chunk_mib * 2**20 / (COLS * 4))),
    }


def columns(rng):
    return {k: rng.random(COLS, dtype=np.float32) + 0.5 for k in "mrgb"}


def drop(block):
    return np.full((1,) * block.ndim, block.nbytes)


def run_through(result):
    """Computes every chunk of `result` and keeps only its size."""
    return da.map_blocks(drop, result, dtype=np.int64, chunks=(1,) * result.ndim).sum()


def overhead_per_task(get, tasks=2000):
    graph = da.map_blocks(lambda b: b, da.zeros(tasks, chunks=1, dtype=np.int8), dtype=np.int8).sum()
    start = time.perf_counter()
    get(graph)
    return (time.perf_counter() - start) / tasks * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=float, default=4.0, help="the f32 input's size")
    parser.add_argument("--chunk-mib", type=float, default=64.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json")
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    cols = columns(rng)
    figures = {}

    threaded = lambda graph: graph.compute(scheduler="threads", num_workers=2)  # noqa: E731
    figures["threaded overhead us/task"] = overhead_per_task(threaded)
    for name, (text, numpy_fn, dtype, rows, chunk_rows) in workloads(args.gib, args.chunk_mib).items():
        x = (rng.random((rows, COLS), dtype=np.float32) * 255).astype(dtype)
        out = np.empty((rows, COLS), np.float32)
        bytes_moved = x.nbytes + out.nbytes  # the fused kernel's traffic: x in, the result out
        bcast.set_num_threads(2)
        own = median_ms(lambda: bcast.evaluate(text, out=out, x=x, **cols), args.repeat)
        own_new = median_ms(lambda: bcast.evaluate(text, x=x, **cols), args.repeat)
        del out
        # The scheduler's two threads are the parallelism: bcast's own threads off.
        bcast.set_num_threads(1)
        dx = da.from_array(x, chunks=(chunk_rows, COLS))  # chunks are views of x
        dcols = {k: da.from_array(v, chunks=-1) for k, v in cols.items()}
        with_numpy = median_ms(lambda: threaded(run_through(numpy_fn(dx, **dcols))), args.repeat)
        with_bcast = median_ms(lambda: threaded(run_through(bcast.dask.evaluate(text, x=dx, **cols))), args.repeat)
        figures[f"{name}, threaded"] = {
            "gib_in": x.nbytes / 2**30, "chunks": dx.npartitions, "bcast_own_ms": own,
            "bcast_own_gbps": bytes_moved / own / 1e6, "bcast_own_new_result_ms": own_new,
            "dask_numpy_ms": with_numpy, "dask_bcast_ms": with_bcast,
            "speedup": with_numpy / with_bcast, "of_bcast_own": own / with_bcast}
        del x, dx

    import distributed
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None, silence_logs=logging.ERROR) as cluster, \
            distributed.Client(cluster) as client:
        def tasks_held(dask_scheduler=None):
            return len(dask_scheduler.tasks)

        def on_cluster(graph):
            """Computes the graph, then waits until the scheduler has let go of its
            keys: the next run of the same graph must compute, not find them."""
            idle = client.run_on_scheduler(tasks_held)
            result = client.compute(graph).result()
            while client.run_on_scheduler(tasks_held) > idle:
                time.sleep(0.01)
            return result

        figures["distributed overhead us/task"] = overhead_per_task(on_cluster)
        bcast.dask.set_num_threads(client, 1)  # two single-thread workers on two cores
        for name, (text, numpy_fn, dtype, rows, chunk_rows) in workloads(args.gib, args.chunk_mib).items():
            # Made on the workers and kept there.
            dx = (da.random.random((rows, COLS), chunks=(chunk_rows, COLS)) * 255).astype(dtype)
            dx = client.persist(dx)
            distributed.wait(dx)
            dcols = {k: client.scatter(v, broadcast=True) for k, v in cols.items()}
            dcols = {k: da.from_delayed(dask.delayed(v), shape=(COLS,), dtype=np.float32) for k, v in dcols.items()}
            bcast.dask.warm(client, [bcast.dask.evaluate(text, x=dx, **cols)])
            with_numpy = median_ms(lambda: on_cluster(run_through(numpy_fn(dx, **dcols))), args.repeat)
            with_bcast = median_ms(lambda: on_cluster(run_through(bcast.dask.evaluate(text, x=dx, **dcols))),
                                   args.repeat)
            figures[f"{name}, distributed"] = {"dask_numpy_ms": with_numpy, "dask_bcast_ms": with_bcast,
                                               "speedup": with_numpy / with_bcast}
            del dx

    for key, value in figures.items():
        print(f"{key}: " + (json.dumps({k: round(v, 3) for k, v in value.items()}) if isinstance(value, dict)
                            else f"{value:.1f}"))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
