#!/usr/bin/env python3
"""The function table of src/core/function_table.h is the only copy: the table
in docs/semantics.md ("Functions") must be exactly what `bcast-run
--functions` prints from it, and name every single-output ufunc of NumPy's
(its list read from NumPy) but the ones bcast leaves out on purpose.

usage: functions_table.py PATH/TO/bcast-run PATH/TO/docs/semantics.md
"""
import re
import subprocess
import sys

import numpy as np

RUN, PAGE = sys.argv[1:3]
NOT_ELEMENTWISE = {"matmul", "isnat", "divmod", "frexp", "modf"}  # a product, datetimes, two results

printed = subprocess.run([RUN, "--functions"], capture_output=True, text=True, check=True).stdout
lines = open(PAGE).read().split("\n")
failures = []
try:
    start = lines.index(printed.split("\n")[0])
    end = next(i for i in range(start, len(lines)) if not lines[i].startswith("|"))
    if "\n".join(lines[start:end]) + "\n" != printed:
        failures.append(f"{PAGE}'s function table differs from `bcast-run --functions`; paste its output:\n{printed}")
except ValueError:
    failures.append(f"{PAGE} has no function table; paste `bcast-run --functions`:\n{printed}")
named = set(re.findall(r"`([a-z_0-9]+)`", printed))
ufuncs = {n for n in dir(np) if isinstance(getattr(np, n), np.ufunc)} - NOT_ELEMENTWISE
missing = sorted(ufuncs - named)
if missing:
    failures.append(f"NumPy ufuncs with no row or alias: {missing}")
for f in failures:
    print("FAIL:", f)
print(f"{len(named)} names, {len(ufuncs)} of NumPy's ufuncs among them" if not missing else "")
sys.exit(1 if failures else 0)
