"""The PEP 517 build backend behind `pip install .` (pyproject.toml): builds
the Python module with CMake for the interpreter that runs pip and packs
what `cmake --install --component python` lays out as a wheel.

    python3 -m venv --system-site-packages .venv
    .venv/bin/pip install --no-build-isolation .

The CMake tree is build/pip-<SOABI> in the source tree (kept, so a second
install only rebuilds what changed); `--config-settings build-dir=DIR`
moves it. It links libbcast statically (BUILD_SHARED_LIBS=OFF), so the
installed module needs only the system's shared libraries (libLLVM-19,
spdlog). Tests, tools and benchmarks are not built. CMAKE_BUILD_PARALLEL_LEVEL
and CMAKE_CXX_COMPILER_LAUNCHER (e.g. ccache) in the environment are honoured.
docs/python.md, "pip install", says more.

It is a backend of its own, not setuptools: CMake already lays the package
out, and setuptools would describe the same files a second time and write
build/lib.*, build/bdist.* and an .egg-info folder into the source tree.
It needs nothing but the standard library.
"""
from __future__ import annotations

import base64
import hashlib
import io
import os
import platform
import re
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import zipfile
from pathlib import Path
from typing import Any, Optional

SOURCE = Path(__file__).resolve().parents[2]
NAME = "bcast"
SUMMARY = "Elementwise ops and fused expressions on broadcasting arrays, JIT-compiled with LLVM"


def _version() -> str:
    """The project's version, from CMakeLists.txt's project(bcast VERSION x.y.z)."""
    text = (SOURCE / "CMakeLists.txt").read_text()
    found = re.search(r"project\(bcast\s+VERSION\s+([0-9.]+)", text)
    if not found:
        raise RuntimeError(f"bcast_wheel: no project(bcast VERSION ...) in {SOURCE / 'CMakeLists.txt'}")
    return found.group(1)


def _metadata() -> str:
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {_version()}\nSummary: {SUMMARY}\n"
            "Requires-Dist: numpy\n")


def _wheel_tag() -> str:
    """This interpreter's tag, e.g. cp311-cp311-linux_x86_64 (PEP 425)."""
    soabi = sysconfig.get_config_var("SOABI") or ""  # cpython-311-x86_64-linux-gnu
    parts = soabi.split("-")
    if parts[0] == "cpython":
        abi = "cp" + parts[1]
    else:
        abi = "_".join(parts[:2]).replace(".", "_")
    short = {"cpython": "cp", "pypy": "pp"}.get(sys.implementation.name, sys.implementation.name)
    interpreter = f"{short}{sys.version_info.major}{sys.version_info.minor}"
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"{interpreter}-{abi}-{plat}"


def _build_dir(config_settings: Optional[dict[str, Any]]) -> Path:
    chosen = (config_settings or {}).get("build-dir")
    if chosen:
        return Path(chosen).resolve()
    tag = sysconfig.get_config_var("SOABI") or sys.implementation.cache_tag
    return SOURCE / "build" / f"pip-{tag}"


def _require_numpy() -> None:
    """The module builds against NumPy's C headers, from this interpreter."""
    try:
        import numpy  # noqa: F401
    except ImportError:
        sys.exit(f"bcast: building the module needs NumPy, which {sys.executable} (Python "
                 f"{platform.python_version()}) cannot import: install it ({sys.executable} -m pip install numpy, "
                 "or Debian's python3-numpy for /usr/bin/python3); if pip isolated the build, "
                 "--no-build-isolation lets it use the NumPy installed")


def _run(*command: str) -> None:
    print("bcast_wheel:", " ".join(command), flush=True)
    subprocess.run(command, check=True)


def _cmake_build(build: Path, staging: Path) -> None:
    """Configures, builds only the module, and installs component "python"
    into staging (staging/bcast/...)."""
    _run("cmake", "-S", str(SOURCE), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
         "-DBUILD_SHARED_LIBS=OFF", "-DBCAST_BUILD_TESTS=OFF", "-DBCAST_BUILD_TOOLS=OFF",
         "-DBCAST_BUILD_PYTHON=ON", f"-DBCAST_PYTHON={sys.executable}", "-DBCAST_PYTHON_INSTALL_DIR=.")
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
    _run("cmake", "--build", str(build), "--target", "_bcast", "--parallel", jobs)
    _run("cmake", "--install", str(build), "--component", "python", "--prefix", str(staging), "--strip")


def _record_line(relative: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{relative},sha256={digest},{len(data)}"


def _write_wheel(wheel_directory: str, staging: Path) -> str:
    dist_info = f"{NAME}-{_version()}.dist-info"
    name = f"{NAME}-{_version()}-{_wheel_tag()}.whl"
    files = {p.relative_to(staging).as_posix(): p.read_bytes()
             for p in sorted((staging / NAME).rglob("*")) if p.is_file()}
    files[f"{dist_info}/METADATA"] = _metadata().encode()
    files[f"{dist_info}/WHEEL"] = (f"Wheel-Version: 1.0\nGenerator: bcast_wheel\nRoot-Is-Purelib: false\n"
                                   f"Tag: {_wheel_tag()}\n").encode()
    record = [_record_line(path, data) for path, data in files.items()] + [f"{dist_info}/RECORD,,"]
    files[f"{dist_info}/RECORD"] = ("\n".join(record) + "\n").encode()
    with zipfile.ZipFile(Path(wheel_directory) / name, "w", zipfile.ZIP_DEFLATED) as wheel:
        for path, data in files.items():
            info = zipfile.ZipInfo(path, date_time=(2024, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if path.endswith(".so") else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)
    return name


# PEP 517's hooks.

def get_requires_for_build_wheel(config_settings: Optional[dict[str, Any]] = None) -> list[str]:
    return ["numpy"]


def prepare_metadata_for_build_wheel(metadata_directory: str,
                                     config_settings: Optional[dict[str, Any]] = None) -> str:
    dist_info = Path(metadata_directory) / f"{NAME}-{_version()}.dist-info"
    dist_info.mkdir(parents=True, exist_ok=True)
    (dist_info / "METADATA").write_text(_metadata())
    return dist_info.name


def build_wheel(wheel_directory: str, config_settings: Optional[dict[str, Any]] = None,
                metadata_directory: Optional[str] = None) -> str:
    _require_numpy()
    with tempfile.TemporaryDirectory(prefix="bcast-wheel-") as staging:
        _cmake_build(_build_dir(config_settings), Path(staging))
        return _write_wheel(wheel_directory, Path(staging))


def build_sdist(sdist_directory: str, config_settings: Optional[dict[str, Any]] = None) -> str:
    """The source tree, less build trees, virtual environments and caches."""
    base = f"{NAME}-{_version()}"
    skipped_at_top = re.compile(r"build.*|\.venv.*|\.git|\.cache")
    skipped_anywhere = {"__pycache__", ".hypothesis"}

    def keep(info: tarfile.TarInfo) -> Optional[tarfile.TarInfo]:
        parts = Path(info.name).parts[1:]
        if parts and skipped_at_top.fullmatch(parts[0]):
            return None
        return None if skipped_anywhere & set(parts) else info

    name = f"{base}.tar.gz"
    with tarfile.open(Path(sdist_directory) / name, "w:gz") as sdist:
        sdist.add(SOURCE, arcname=base, filter=keep)
        pkg_info = _metadata().encode()
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        info.size = len(pkg_info)
        sdist.addfile(info, fileobj=io.BytesIO(pkg_info))
    return name
