#!/usr/bin/env python3
"""Every Python source of the project parses: the files under tools/, tests/,
src/python/, bench/ and .ci/ that end in .py or start with a python "#!" line.
A tool that only a person runs (the benchmarks) has no other test that would
notice a syntax error in it. Nothing is written (no __pycache__).

usage: python_sources_compile.py PATH/TO/REPOSITORY
"""
import pathlib
import sys

ROOT = pathlib.Path(sys.argv[1])
FOLDERS = ["tools", "tests", "src/python", "bench", ".ci"]


def is_python(path):
    if path.suffix == ".py":
        return True
    try:
        with path.open("rb") as f:
            first = f.readline()
    except OSError:
        return False
    return first.startswith(b"#!") and b"python" in first


def main():
    checked, broken = 0, []
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts or not is_python(path):
                continue
            checked += 1
            try:
                compile(path.read_bytes(), str(path), "exec", dont_inherit=True)
            except SyntaxError as e:
                broken.append(f"{path.relative_to(ROOT)}:{e.lineno}: {e.msg}")
    for line in broken:
        print(line)
    print(f"{checked} Python sources, {len(broken)} that do not parse")
    return 1 if broken or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
