#!/usr/bin/env bash
# Installs the Debian packages bcast builds and tests with; quiet and offline when
# everything is already there (idempotent: run it as often as you like).
#   tools/setup-deps.sh         what the build and tests need
#   tools/setup-deps.sh fuzz    also clang-19's runtimes (libFuzzer, ASan, UBSan)
#   tools/setup-deps.sh static  also what -DBCAST_LLVM_STATIC=ON links (zstd)
set -euo pipefail

packages=(
  build-essential cmake
  llvm-19-dev              # the JIT (found with find_package(LLVM 19.1 CONFIG))
  libspdlog-dev            # logging
  libcli11-dev             # command-line parsing in tools/
  nlohmann-json3-dev       # --json output
  libxxhash-dev            # hashing kernel keys
  libsleef-dev             # SIMD exp, log, sin... in kernels (optional: without it, the C library's)
  libgtest-dev libgmock-dev
  libbenchmark-dev
  libeigen3-dev libdnnl-dev  # bcast-bench's peers (optional: the build goes on without them)
  python3 python3-numpy    # the test oracle, and what the Python module returns
  python3-mpmath           # the true values for the math functions' ULP bounds (tests/python/test_math_vs_mpmath.py)
  python3-dev pybind11-dev # the Python module (src/python)
  python3-venv python3-pip # `pip install .` into a venv (docs/python.md; the python_pip_install test)
  python3-pytest python3-hypothesis python3-mypy  # its tests (tests/python; mypy's stubtest checks the stubs)
  python3-dask python3-distributed  # bcast.dask (docs/dask.md) and its tests
  python3-numexpr          # numexpr's own test file runs against bcast.numexpr (tests/e2e/numexpr_own_tests.py)
  python3-matplotlib       # tools/bcast-bench-plot.py (docs/performance.md's picture; a test draws one)
  clang-19                 # the strict Ascend C check (tests/ascend_c/strict: __gm__ as a real address space)
)
case "${1:-}" in
  fuzz) packages+=(libclang-rt-19-dev) ;;  # the sanitizer and fuzz builds (tools/bcast-fuzz), with clang-19
  static) packages+=(libzstd-dev) ;;               # LLVM's static libraries link zstd
esac

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
echo "setup-deps: installing ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
