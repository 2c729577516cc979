#!/usr/bin/env python3
"""tools/bcast-bench-plot.py on what bcast-bench prints: a real run of one
large case (its JSON fields are the ones the script reads), drawn to a PNG of
the figure's size; the --table numbers are the JSON's own; input without a
large case is refused.

usage: bench_plot.py PATH/TO/bcast-bench PATH/TO/bcast-bench-plot.py
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

BENCH, PLOT = sys.argv[1], sys.argv[2]
failures = []


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


def main():
    bench = subprocess.run([BENCH, "--cases", "15", "--chains", "none", "--repeat", "2", "--threads", "2", "--json"],
                           capture_output=True, text=True)
    if bench.returncode != 0:
        print(f"FAIL: bcast-bench: exit {bench.returncode}: {bench.stderr}")
        return 1
    rows = json.loads(bench.stdout)
    with tempfile.TemporaryDirectory() as tmp:
        data, png = os.path.join(tmp, "bench.json"), os.path.join(tmp, "bench.png")
        with open(data, "w") as f:
            f.write(bench.stdout)
        p = subprocess.run([sys.executable, PLOT, data, png, "--table"], capture_output=True, text=True)
        if p.returncode != 0:
            failures.append(f"plot: exit {p.returncode}: {p.stderr}")
        else:
            size = png_size(png)
            # figsize max(10, 0.9 * 1 + 3) x 9 inches at 110 dpi.
            if size != (1100, 990):
                failures.append(f"the picture is {size}, not a 1100 x 990 PNG")
            lines = p.stdout.strip().splitlines()
            header = lines[0].split("\t")
            row = rows[0]
            for line in lines[1:]:
                cells = line.split("\t")
                if cells[0] != row["case"]:
                    failures.append(f"table case {cells[0]!r}, JSON {row['case']!r}")
                for field, cell in zip(header[1:], cells[1:]):
                    want = row.get(field)
                    if want is None or abs(float(cell) - want) > 5e-4 * max(1.0, abs(want)):
                        failures.append(f"{field}: table {cell}, JSON {want}")
            for field in ("bcast_nt_gbps", "stream_nt_gbps", "eigen_nt_gbps", "onednn_nt_gbps"):
                if field not in header:
                    failures.append(f"the table has no {field}")
        empty = os.path.join(tmp, "empty.json")
        with open(empty, "w") as f:
            json.dump([{"case": "11 [16]+[16]", "plain_ns": 60}], f)
        p = subprocess.run([sys.executable, PLOT, empty, png], capture_output=True, text=True)
        if p.returncode == 0 or "no large cases" not in p.stderr:
            failures.append(f"input without large cases: exit {p.returncode}, {p.stderr!r}")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
