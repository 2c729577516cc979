#!/usr/bin/env python3
"""The settings table of src/settings/config.cpp is the only copy: the table of
docs/settings.md must be exactly what `bcast-cache env --markdown` prints from
it, and the public header keeps no copy of its own.

usage: settings_table.py PATH/TO/bcast-cache PATH/TO/docs/settings.md PATH/TO/include/bcast/config.h
"""
import os
import subprocess
import sys

CACHE, PAGE, HEADER = sys.argv[1:4]

env = {k: v for k, v in os.environ.items() if not k.startswith("BCAST_")}
printed = subprocess.run([CACHE, "env", "--markdown"], capture_output=True, text=True, env=env, check=True).stdout
lines = open(PAGE).read().split("\n")
start = lines.index(printed.split("\n")[0])
end = next(i for i in range(start, len(lines)) if not lines[i].startswith("|"))
in_page = "\n".join(lines[start:end]) + "\n"
failures = []
if in_page != printed:
    failures.append(f"{PAGE}'s settings table differs from `bcast-cache env --markdown`; paste its output:\n" + printed)
if printed.count("\n| `BCAST_") < 16:
    failures.append(f"the printed table has too few variables:\n{printed}")
if any(line.lstrip("/ ").startswith("| BCAST_") for line in open(HEADER)):
    failures.append(f"{HEADER} keeps a copy of the settings table")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
