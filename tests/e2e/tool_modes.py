#!/usr/bin/env python3
"""The tools keep their run bits: in git's index, every file under tools/ and
.ci/ that starts with "#!" has mode 100755, and every 100755 file there starts
with "#!" (docs show them run as `tools/NAME ...`; a file stored without its
bit answers `Permission denied`). Skips (exit 77) when the source is not a git
checkout, as in a source archive.

usage: tool_modes.py PATH/TO/REPOSITORY
"""
import shutil
import subprocess
import sys

ROOT = sys.argv[1]
FOLDERS = ["tools", ".ci"]


def git(*args, **kw):
    return subprocess.run(["git", "-C", ROOT, *args], capture_output=True, check=False, **kw)


def main():
    if shutil.which("git") is None:
        print(f"SKIP: git is not installed: the modes of {ROOT}'s files in git cannot be read")
        return 77
    if git("rev-parse", "--is-inside-work-tree").returncode != 0:
        print(f"SKIP: {ROOT} is not a git checkout: no index to read the modes from")
        return 77
    staged = git("ls-files", "-s", "--", *FOLDERS, text=True).stdout.splitlines()
    entries = []  # (mode, blob, path)
    for line in staged:
        meta, path = line.split("\t", 1)
        mode, blob, _ = meta.split()
        if mode != "120000":  # symbolic links carry no mode of their own
            entries.append((mode, blob, path))
    # The first bytes of each file as the index holds it, in one git process.
    batch = "".join(f"{blob}\n" for _, blob, _ in entries).encode()
    out = git("cat-file", "--batch", input=batch).stdout
    failures, pos, scripts = [], 0, 0
    for mode, blob, path in entries:
        header_end = out.index(b"\n", pos)
        size = int(out[pos:header_end].split()[2])
        content = out[header_end + 1:header_end + 1 + size]
        pos = header_end + 1 + size + 1
        shebang = content.startswith(b"#!")
        scripts += shebang
        if shebang and mode != "100755":
            failures.append(f"{path} starts with #! but is {mode} in git: git update-index --chmod=+x {path}")
        if mode == "100755" and not shebang:
            failures.append(f"{path} is 100755 in git but has no #! line")
    for f in failures:
        print("FAIL:", f)
    print(f"{len(entries)} files under {', '.join(FOLDERS)}: {scripts} scripts, {len(failures)} failures")
    return 1 if failures or not entries else 0


if __name__ == "__main__":
    sys.exit(main())
