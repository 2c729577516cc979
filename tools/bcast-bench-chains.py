#!/usr/bin/env python3
"""The expressions section's NumPy and numexpr figures, timed in one run with
bcast-bench's chains (run `bcast-bench --cases none --json` alongside, or pass
its path and this script runs it first): NumPy op by op, NumPy with `out=`
buffers, numexpr, and the memory-bound time of the chain's unique bytes at
the bandwidth of a plain f32 add timed here. One thread each.

usage: tools/bcast-bench-chains.py [PATH/TO/bcast-bench] [--repeat N]
Needs Debian's python3-numpy and python3-numexpr (/usr/bin/python3).
"""
import json
import os
import subprocess
import sys

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("NUMEXPR_NUM_THREADS", "1")
import numpy as np  # noqa: E402

from bench_timing import median_ms  # noqa: E402

try:
    import numexpr as ne  # noqa: E402
    ne.set_num_threads(1)
except ImportError:
    ne = None


def chains(rng):
    f32 = np.float32
    img = rng.integers(0, 256, (1080, 1920, 3), dtype=np.uint8)
    m3, s3 = rng.uniform(0.25, 4, 3).astype(f32), rng.uniform(0.25, 4, 3).astype(f32)
    x, y = rng.uniform(0.25, 4, (4096, 1024)).astype(f32), rng.uniform(0.25, 4, (4096, 1024)).astype(f32)
    m, r = rng.uniform(0.25, 4, (4096, 1)).astype(f32), rng.uniform(0.25, 4, (4096, 1)).astype(f32)
    g, b = rng.uniform(0.25, 4, 1024).astype(f32), rng.uniform(0.25, 4, 1024).astype(f32)
    u, v = rng.uniform(0.25, 4, (4096, 1)).astype(f32), rng.uniform(0.25, 4, (1, 4096)).astype(f32)
    w = rng.uniform(0.25, 4, (4096, 4096)).astype(f32)
    zero = f32(0)

    def with_out(shape, steps):
        bufs = [np.empty(shape, f32) for _ in range(2)]
        return lambda: steps(*bufs)

    return [
        ("(f32(x) - m) / s", [img, m3, s3],
         lambda: (img.astype(f32) - m3) / s3,
         with_out(img.shape, lambda t, o: (np.copyto(t, img, casting="unsafe"), np.subtract(t, m3, out=t),
                                           np.divide(t, s3, out=o))),
         "(x - m) / s", dict(x=img, m=m3, s=s3)),
        ("(x - m) * r * g + b", [x, m, r, g, b],
         lambda: (x - m) * r * g + b,
         with_out(x.shape, lambda t, o: (np.subtract(x, m, out=t), np.multiply(t, r, out=t), np.multiply(t, g, out=t),
                                         np.add(t, b, out=o))),
         "(x - m) * r * g + b", dict(x=x, m=m, r=r, g=g, b=b)),
        ("max(x + b + y, 0)", [x, b, y],
         lambda: np.maximum(x + b + y, zero),
         with_out(x.shape, lambda t, o: (np.add(x, b, out=t), np.add(t, y, out=t), np.maximum(t, zero, out=o))),
         "where(x + b + y > 0, x + b + y, 0)", dict(x=x, b=b, y=y)),
        ("u * v + w", [u, v, w],
         lambda: u * v + w,
         with_out(w.shape, lambda t, o: (np.multiply(u, v, out=t), np.add(t, w, out=o))),
         "u * v + w", dict(u=u, v=v, w=w)),
    ]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    repeat = 11
    if "--repeat" in sys.argv:
        repeat = int(sys.argv[sys.argv.index("--repeat") + 1])
        args = [a for a in args if a != str(repeat)]
    bcast = {}
    if args:
        p = subprocess.run([args[0], "--cases", "none", "--json", "--repeat", str(repeat)], capture_output=True,
                           text=True, check=True)
        bcast = {row["chain"]: row for row in json.loads(p.stdout) if "chain" in row}
    rng = np.random.default_rng(15)
    n = 16 << 20
    a, b, c = np.ones(n, np.float32), np.ones(n, np.float32), np.empty(n, np.float32)
    add_gbps = 3 * 4 * n / median_ms(lambda: np.add(a, b, out=c), repeat) / 1e6
    print(f"plain f32 add: {add_gbps:.1f} GB/s (one thread, NumPy)")
    print(f"{'chain':<22} {'bound ms':>9} {'numpy':>8} {'out=':>8} {'numexpr':>8} {'bcast-1':>8} {'bcast/numpy':>11} "
          f"{'bcast/numexpr':>13}")
    for name, inputs, plain, buffered, ne_text, ne_vars in chains(rng):
        out_bytes = np.broadcast_shapes(*[i.shape for i in inputs])
        unique = sum(i.nbytes for i in inputs) + int(np.prod(out_bytes)) * 4
        bound = unique / add_gbps / 1e6
        t_plain = median_ms(plain, repeat)
        t_out = median_ms(buffered, repeat)
        t_ne = median_ms(lambda: ne.evaluate(ne_text, local_dict=ne_vars), repeat) if ne else float("nan")
        b1 = bcast.get(name, {}).get("fused_1t_ms", float("nan"))
        print(f"{name:<22} {bound:>9.2f} {t_plain:>8.2f} {t_out:>8.2f} {t_ne:>8.2f} {b1:>8.2f} {t_plain / b1:>11.1f} "
              f"{t_ne / b1:>13.1f}")


if __name__ == "__main__":
    sys.exit(main())
