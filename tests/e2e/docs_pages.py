#!/usr/bin/env python3
"""The README is the front page and the docs/ pages hold the rest: the README
has the two set-up commands, a C++ and a command-line example and a link to
each page; every relative link in the README and the pages points at a file
that exists (and, with a #fragment, at a heading of it).

usage: docs_pages.py PATH/TO/REPOSITORY
"""
import os
import re
import sys

ROOT = sys.argv[1]
PAGES = ["semantics.md", "cli.md", "settings.md", "cache.md", "logging.md", "ascend.md", "reliability.md",
         "performance.md", "architecture.md"]
failures = []


def anchors(path):
    """GitHub's anchors of a page's headings."""
    out = set()
    fence = False
    for line in open(path):
        if line.startswith("```"):
            fence = not fence
        if not fence and line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out


def check_links(path):
    text = open(path).read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, fragment = target.partition("#")
        full = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
        if not os.path.exists(full):
            failures.append(f"{os.path.relpath(path, ROOT)}: link to {target}: no such file")
        elif fragment and full.endswith(".md") and fragment not in anchors(full):
            failures.append(f"{os.path.relpath(path, ROOT)}: link to {target}: no such heading")


readme = os.path.join(ROOT, "README.md")
text = open(readme).read()
for needed in ["tools/bcast-dev run", "tools/bcast-dev test", "```cpp", "bcast-run add", "cmake --install"]:
    if needed not in text:
        failures.append(f"README.md lacks {needed!r}")
for page in PAGES:
    if f"(docs/{page})" not in text:
        failures.append(f"README.md does not link docs/{page}")
    if not os.path.exists(os.path.join(ROOT, "docs", page)):
        failures.append(f"docs/{page} does not exist")
if text.count("\n") > 200:
    failures.append(f"README.md has {text.count(chr(10))} lines: the front page, not the manual (at most 200)")
check_links(readme)
for page in sorted(os.listdir(os.path.join(ROOT, "docs"))):
    if page.endswith(".md"):
        check_links(os.path.join(ROOT, "docs", page))
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
