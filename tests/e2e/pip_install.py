#!/usr/bin/env python3
"""`pip install .` as the README shows it: a fresh virtual environment with
the system's site-packages, pip's build of the module (tools/wheel/bcast_wheel.py)
with --no-build-isolation, then the README's Python line run by the
environment's python. Checks the printed result against NumPy's (the same
line with np.add for bcast.add), that the stubs and py.typed are installed,
and that the installed module needs no libbcast (ldd).

Exits 77 (ctest: skipped) where the interpreter has no venv or ensurepip
(Debian's python3-venv).

usage: pip_install.py SOURCE_DIR WORK_DIR BUILD_DIR   (run with the interpreter to test)

The venv is WORK_DIR/venv; pip's CMake tree is BUILD_DIR/pip-<SOABI>, which
for the build tree `build` is the one a `pip install .` of the source tree
uses by default: kept, so only the first of them compiles everything.
"""
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time

SOURCE, WORK, BUILD = sys.argv[1:4]
SKIP = 77


def readme_line():
    """The code of the README's `.venv/bin/python -c "..."` line."""
    text = open(os.path.join(SOURCE, "README.md")).read()
    found = re.search(r'^\.venv/bin/python -c "(.*)"$', text, flags=re.M)
    if not found:
        sys.exit("README.md has no `.venv/bin/python -c \"...\"` line in its Python section")
    return found.group(1)


def run(*command, **kwargs):
    print("+", " ".join(command), flush=True)
    return subprocess.run(command, check=True, text=True, **kwargs)


missing = [m for m in ("venv", "ensurepip") if importlib.util.find_spec(m) is None]
if missing:
    print(f"SKIPPED: {sys.executable} has no {' or '.join(missing)}: install Debian's python3-venv "
          "(tools/setup-deps.sh)")
    sys.exit(SKIP)

venv = os.path.join(WORK, "venv")
shutil.rmtree(venv, ignore_errors=True)
run(sys.executable, "-m", "venv", "--system-site-packages", venv)
python = os.path.join(venv, "bin", "python")
env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1")
env.pop("PYTHONPATH", None)  # the installed module, not a build tree's
if "CMAKE_CXX_COMPILER_LAUNCHER" not in env and shutil.which("ccache"):
    env["CMAKE_CXX_COMPILER_LAUNCHER"] = "ccache"
    print("pip's build compiles through ccache")
start = time.monotonic()
# --no-index: nothing to fetch (NumPy is the system's).
tree = os.path.join(BUILD, "pip-" + sysconfig.get_config_var("SOABI"))
run(python, "-m", "pip", "install", "--no-build-isolation", "--no-index", "--config-settings", f"build-dir={tree}",
    SOURCE, env=env)
print(f"pip install: {time.monotonic() - start:.0f} s")

line = readme_line()
got = run(python, "-c", line, env=env, cwd=WORK, capture_output=True).stdout
expected = run(sys.executable, "-c", line.replace("bcast.add", "np.add").replace("import bcast, ", "import "),
               env=env, cwd=WORK, capture_output=True).stdout
print("README's line printed:\n" + got)
failures = []
if got != expected:
    failures.append(f"the README's line printed\n{got}NumPy's result is\n{expected}")

where = run(python, "-c", "import bcast, os; print(os.path.dirname(bcast.__file__))", env=env, cwd=WORK,
            capture_output=True).stdout.strip()
if not where.startswith(os.path.realpath(venv)) and not where.startswith(venv):
    failures.append(f"bcast was imported from {where}, not from the environment {venv}")
for name in ("__init__.pyi", "expr.pyi", "dask.pyi", "py.typed", "__init__.py", "expr.py", "dask.py"):
    if not os.path.isfile(os.path.join(where, name)):
        failures.append(f"pip did not install bcast/{name} (in {where})")
modules = [f for f in os.listdir(where) if f.startswith("_bcast") and f.endswith(".so")]
if len(modules) != 1:
    failures.append(f"{where} has {modules}, not one _bcast*.so")
else:
    ldd = run("ldd", os.path.join(where, modules[0]), capture_output=True).stdout
    print("ldd:\n" + ldd)
    if "not found" in ldd or "libbcast" in ldd:
        failures.append(f"the installed module is not self-contained:\n{ldd}")

for failure in failures:
    print("FAILED:", failure)
sys.exit(1 if failures else 0)
