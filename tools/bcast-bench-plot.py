#!/usr/bin/env python3
"""bcast-bench's figures as a picture: for each large case, GB/s of bcast, the
STREAM add, Eigen and oneDNN on one thread and on n (bcast-bench's --threads,
all hardware threads by default); below, bcast's ratio to the STREAM add on
each. The tiny cases (ns a call) and the expression chains are not drawn.

usage: tools/bcast-bench-plot.py BENCH.json OUT.png [--title TEXT] [--table]
  BENCH.json  what `bcast-bench --json` printed (`-` for standard input)
  --table     also print the plotted numbers, a line a case, to standard output
Needs Debian's python3-matplotlib (/usr/bin/python3).
"""
import argparse
import json
import sys

import matplotlib

matplotlib.use("Agg")  # files only: no display
import matplotlib.pyplot as plt  # noqa: E402

# The bars of a case, in order: (JSON field, label, colour). n is the run's
# thread count.
SERIES = [
    ("bcast_1t_gbps", "bcast, 1 thread", "#1f5fa8"),
    ("bcast_nt_gbps", "bcast, {n} threads", "#6fa3dd"),
    ("stream_1t_gbps", "STREAM add, 1 thread", "#555555"),
    ("stream_nt_gbps", "STREAM add, {n} threads", "#aaaaaa"),
    ("eigen_gbps", "Eigen, 1 thread", "#b8651b"),
    ("eigen_nt_gbps", "Eigen, {n} threads", "#f0a868"),
    ("onednn_gbps", "oneDNN, 1 thread", "#2e8540"),
    ("onednn_nt_gbps", "oneDNN, {n} threads", "#8ccf98"),
]
RATIOS = [("ratio_1t_vs_stream", "1 thread", "#1f5fa8"), ("ratio_nt_vs_stream", "{n} threads", "#6fa3dd")]


def large_cases(rows):
    """The rows bcast-bench measured in GB/s: its cases, not tiny calls, chains or probes."""
    return [r for r in rows if "bcast_1t_gbps" in r and "stream_1t_gbps" in r]


def plot(rows, out, title):
    cases = large_cases(rows)
    if not cases:
        raise SystemExit("bcast-bench-plot: no large cases in the input (run bcast-bench --json without --cases none)")
    n = cases[0].get("threads", 0)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(max(10, 0.9 * len(cases) + 3), 9),
                                      gridspec_kw={"height_ratios": [3, 2]}, sharex=True)
    width = 0.8 / len(SERIES)
    xs = range(len(cases))
    for i, (field, label, colour) in enumerate(SERIES):
        # 0 is bcast-bench's "no figure" (no such form in the peer, or a wrong result).
        values = [r.get(field, 0) or 0 for r in cases]
        top.bar([x + (i - len(SERIES) / 2 + 0.5) * width for x in xs], values, width, label=label.format(n=n),
                color=colour)
    top.set_ylabel("GB/s (unique bytes read and written)")
    top.legend(ncol=4, fontsize=8, loc="upper right")
    top.grid(axis="y", alpha=0.3)
    width = 0.8 / len(RATIOS)
    for i, (field, label, colour) in enumerate(RATIOS):
        bottom.bar([x + (i - len(RATIOS) / 2 + 0.5) * width for x in xs], [r[field] for r in cases], width,
                   label="bcast / STREAM add, " + label.format(n=n), color=colour)
    bottom.axhline(1.0, color="black", linewidth=0.8)
    bottom.set_ylabel("bcast / STREAM add")
    bottom.legend(fontsize=8, loc="upper right")
    bottom.grid(axis="y", alpha=0.3)
    bottom.set_xticks(list(xs))
    bottom.set_xticklabels([r["case"] for r in cases], rotation=35, ha="right", fontsize=8)
    fig.suptitle(title or f"bcast-bench: bcast against the STREAM add and peers, 1 and {n} threads")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    return cases, n


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bench_json")
    parser.add_argument("out_png")
    parser.add_argument("--title", default="")
    parser.add_argument("--table", action="store_true")
    args = parser.parse_args()
    text = sys.stdin.read() if args.bench_json == "-" else open(args.bench_json).read()
    cases, n = plot(json.loads(text), args.out_png, args.title)
    if args.table:
        print("case\t" + "\t".join(f for f, _, _ in SERIES) + "\t" + "\t".join(f for f, _, _ in RATIOS))
        for r in cases:
            values = [r.get(f, 0) or 0 for f, _, _ in SERIES] + [r[f] for f, _, _ in RATIOS]
            print(r["case"] + "\t" + "\t".join(f"{v:.3f}" for v in values))


if __name__ == "__main__":
    main()
