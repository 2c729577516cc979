#!/usr/bin/env python3
"""Every example in the README and docs/*.md runs as written: the code blocks
are read from the pages themselves (never copied here) and run against this
build.

- ```cpp: each block is compiled against the build's headers and library and
  run in a process of its own. A block with a `main` is a program; any other is
  a fragment: its #include and `using` lines open a file of its own and its
  other lines become the body of a function. A block right after the marker
  `<!-- docs: continues -->` continues the page's previous ```cpp block (the
  same function: the README's expression example uses the tensors of the one
  before). The blocks compile two at a time into one program.
- ```python: each block runs as a script with the build's module.
- ```sh: each command line runs in bash (-o pipefail), in a scratch folder per
  page, with bcast-run and bcast-cache found on PATH (the build's tools/),
  `python3` the interpreter that has NumPy, `build/` the build folder, the
  files the lines read (img.npy, ...) made beforehand, and one scratch disk
  cache (BCAST_CACHE_DIR) for the whole run. Lines that cannot run here are in
  SKIPPED_LINES, each with its reason; a SKIPPED_LINES entry that matches no
  line is a failure (the page changed: the list must follow).
- Blocks in ```text, ```cmake or no language are output or build files: not run.

It prints what it ran and what it skipped, with the reasons.

usage: docs_examples.py --source REPO --build BUILD --tools DIR --cxx COMPILER
         --library LIBBCAST [--cxx-flags F;F] --python PYTHON [--python-dir DIR]
         [--python-env K=V;K=V]
"""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

# Shell lines that do not run here: (page, regular expression on the line, reason).
SKIPPED_LINES = [
    ("README.md", r"^tools/bcast-dev (run|test)\b",
     "the set-up: installs Debian packages and builds everything (what made this build)"),
    ("docs/performance.md", r"^tools/bcast-dev test\b",
     "the set-up: installs Debian packages and builds everything (what made this build)"),
    ("README.md", r"^(/usr/bin/python3 -m venv |\.venv/bin/(pip|python) )",
     "pip builds the module again (minutes); the python_pip_install test runs these lines in a fresh venv"),
    ("docs/python.md", r"^(/usr/bin/python3 -m venv |\.venv/bin/(pip|python) )",
     "the README's venv lines again (python_pip_install runs them)"),
    ("README.md", r"^cmake --install build --prefix /opt/bcast$",
     "installs into /opt; the installed_package test installs into a scratch prefix and runs what it installed"),
    ("docs/performance.md", r"build/tools/bcast-bench --repeat 9",
     "the benchmark: minutes on a quiet machine (bench_plot runs bcast-bench and plots it)"),
    ("docs/performance.md", r"tools/bcast-bench-reductions.py --repeat 9",
     "the reductions' benchmark: a minute or more, with NumPy, numexpr and PyTorch beside it"),
    ("docs/performance.md", r"build/tools/bcast-bench --reductions all",
     "the reductions' benchmark (bench_reductions runs two of its cases once)"),
    ("docs/python.md", r"^LD_PRELOAD=.*build-fuzz/python",
     "needs the ASan build in build-fuzz (clang-19); its ctest entries run the module that way"),
    ("docs/reliability.md", r"^cd build-(fuzz|tsan) && ctest",
     "runs the test suites of the sanitizer builds build-fuzz and build-tsan"),
]

# Files the shell lines read, made in each page's scratch folder: (name, dtype, shape).
INPUT_FILES = [("img.npy", "f4", (8, 16, 3)), ("mean.npy", "f4", (3,)), ("img_u8.npy", "u1", (8, 16, 3))]

CONTINUES = "<!-- docs: continues -->"
RUN_TIMEOUT_S = 300

failures, skipped, twice, ran = [], [], [], {"cpp": 0, "python": 0, "sh": 0}


def parse_args():
    p = argparse.ArgumentParser()
    for name in ["--source", "--build", "--tools", "--cxx", "--library", "--python"]:
        p.add_argument(name, required=True)
    p.add_argument("--cxx-flags", default="")
    p.add_argument("--python-dir", default="")
    p.add_argument("--python-env", default="")
    return p.parse_args()


def pages(root):
    yield "README.md"
    for name in sorted(os.listdir(os.path.join(root, "docs"))):
        if name.endswith(".md"):
            yield "docs/" + name


def code_blocks(root, page):
    """(language, first line number of the code, lines, continues) of each fenced block."""
    lines = open(os.path.join(root, page)).read().split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^```(\S*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        start = i + 1
        end = start
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        continues = i > 0 and lines[i - 1].strip() == CONTINUES
        yield m.group(1), start + 1, lines[start:end], continues
        i = end + 1


def fail(what, proc=None):
    if proc is not None:
        what += f": exit {proc.returncode}\n    stdout: {proc.stdout[-1500:]!r}\n    stderr: {proc.stderr[-1500:]!r}"
    failures.append(what)


# ---- C++ ----------------------------------------------------------------------------------------

def cpp_examples(root):
    """[(name, page, [(first line, lines)])], a continued block joining its predecessor."""
    examples = []
    for page in pages(root):
        last = None
        for lang, line, body, continues in code_blocks(root, page):
            if lang != "cpp":
                continue
            if continues and last is not None:
                last[2].append((line, body))
            else:
                if continues:
                    fail(f"{page}:{line}: {CONTINUES} but no ```cpp block before it")
                last = (f"{page}:{line}", page, [(line, body)])
                examples.append(last)
    return examples


def translation_unit(page, parts, function):
    """A fragment as a file: its #include and using lines first, the rest in
    `function`; #line keeps the compiler's messages on the page's lines."""
    head, body = [], []
    for first, lines in parts:
        body.append(f'#line {first} "{page}"')
        for n, text in enumerate(lines):
            if re.match(r"\s*(#include|using namespace)\b", text):
                head += [f'#line {first + n} "{page}"', text]
                body.append("")
            else:
                body.append(text)
    return "\n".join(head + [f"void {function}() {{"] + body + ["}", ""])


def build_cpp(args, examples, work):
    """One program for every example: `examples N` runs example N."""
    sources, names = [], []
    for i, (name, page, parts) in enumerate(examples):
        src = os.path.join(work, f"example_{i}.cpp")
        whole = "\n".join("\n".join(lines) for _, lines in parts)
        if re.search(r"\bint\s+main\s*\(", whole):
            fail(f"{name}: a ```cpp block with its own main is not supported here yet")
            continue
        open(src, "w").write(translation_unit(page, parts, f"docs_example_{i}"))
        sources.append(src)
        names.append(i)
    main = os.path.join(work, "examples_main.cpp")
    decls = "".join(f"void docs_example_{i}();\n" for i in names)
    table = "".join(f"    docs_example_{i},\n" for i in names)
    open(main, "w").write(f"""#include <cstdlib>
{decls}
int main(int argc, char** argv) {{
  void (*examples[])() = {{
{table}  }};
  examples[std::atoi(argv[1])]();
}}
""")
    exe = os.path.join(work, "examples")
    lib = args.library
    flags = [f for f in args.cxx_flags.split(";") if f]
    compile_one = [args.cxx, "-std=c++20", "-O0", "-Wall", "-I", os.path.join(args.source, "include"), *flags, "-c"]
    t = time.time()
    # Two at a time: the machines this runs on have 2 cores or more.
    jobs, objects, pending = sources + [main], [], []
    for src in jobs:
        objects.append(src[:-len(".cpp")] + ".o")
        pending.append((src, subprocess.Popen(compile_one + [src, "-o", objects[-1]], cwd=args.source,
                                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
        if len(pending) == 2 or src == jobs[-1]:
            for name, proc in pending:
                out, err = proc.communicate()
                if proc.returncode != 0:
                    proc.stdout, proc.stderr = out, err
                    fail(f"{os.path.basename(name)} does not compile (file:line are the pages')", proc)
            pending = []
    if failures:
        return None
    link = subprocess.run([args.cxx, *flags, *objects, "-o", exe, lib, f"-Wl,-rpath,{os.path.dirname(lib)}",
                           "-pthread"], capture_output=True, text=True)
    print(f"compiled {len(sources)} C++ examples: {time.time() - t:.1f} s")
    if link.returncode != 0:
        fail("the C++ examples do not link", link)
        return None
    return exe


def run_cpp(exe, examples, env, work):
    t = time.time()
    for i, (name, _, parts) in enumerate(examples):
        p = subprocess.run([exe, str(i)], capture_output=True, text=True, errors="replace", env=env, cwd=work, timeout=RUN_TIMEOUT_S)
        ran["cpp"] += 1
        if p.returncode != 0:
            fail(f"C++ example {name} (blocks at lines {[first for first, _ in parts]})", p)
    print(f"ran {len(examples)} C++ examples: {time.time() - t:.1f} s")


# ---- Python -------------------------------------------------------------------------------------

def python_has(python, module):
    return subprocess.run([python, "-c", f"import {module}"], capture_output=True).returncode == 0


def run_python(args, root, env, work):
    for page in pages(root):
        for lang, line, body, _ in code_blocks(root, page):
            if lang != "python":
                continue
            where = f"{page}:{line}"
            text = "\n".join(body)
            if not args.python_dir:
                skipped.append(("python", where, "the Python module is not built (BCAST_BUILD_PYTHON=OFF)"))
                continue
            if re.search(r"^import dask|bcast\.dask", text, re.M) and not python_has(args.python, "dask"):
                skipped.append(("python", where, f"{args.python} has no dask (Debian's python3-dask)"))
                continue
            t = time.time()
            p = subprocess.run([args.python, "-c", text], capture_output=True, text=True, errors="replace", env=env, cwd=work,
                               timeout=RUN_TIMEOUT_S)
            ran["python"] += 1
            print(f"  python {where}: {time.time() - t:.1f} s")
            if p.returncode != 0:
                fail(f"Python example {where}", p)


# ---- shell --------------------------------------------------------------------------------------

def command_lines(body):
    """(offset, line) of each command, a trailing backslash joining the next line."""
    out, pending, first = [], "", 0
    for n, text in enumerate(body):
        if not pending:
            first = n
        if text.rstrip().endswith("\\"):
            pending += text.rstrip()[:-1] + " "
            continue
        line = (pending + text).strip()
        pending = ""
        if line and not line.startswith("#"):
            out.append((first, line))
    return out


def python_env(env, extra):
    """env with the sanitizer runtime a sanitized module needs in the interpreter
    (--python-env's K=V;K=V, empty in a plain build)."""
    return dict(env, **dict(kv.split("=", 1) for kv in extra.split(";") if kv))


def run_line(command, env, folder):
    """bash -o pipefail -c COMMAND; stdout is a file, as a terminal would be
    to the reader (perf record writes its data to stdout when that is a pipe)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.run(["bash", "-o", "pipefail", "-c", command], stdout=out, stderr=err, env=env, cwd=folder,
                           timeout=RUN_TIMEOUT_S)
        out.seek(0)
        err.seek(0)
        p.stdout, p.stderr = (f.read().decode(errors="replace") for f in (out, err))
    return p


def perf_can_record(work):
    if shutil.which("perf") is None:
        return "perf is not installed (Debian's linux-perf)"
    p = subprocess.run(["perf", "record", "-o", os.path.join(work, "probe.data"), "true"], capture_output=True,
                       text=True, cwd=work)
    return None if p.returncode == 0 else f"perf cannot record here: {p.stderr.strip()[-200:]}"


def make_inputs(folder, python, env):
    script = "import numpy as np, sys\n" + "".join(
        f"np.save({name!r}, (np.arange(np.prod({shape!r})) % 200).astype({dtype!r}).reshape({shape!r}))\n"
        for name, dtype, shape in INPUT_FILES)
    subprocess.run([python, "-c", script], check=True, cwd=folder, env=env)


def run_shell(args, root, env, work, app):
    used, seen = set(), {}
    perf_problem = perf_can_record(work)
    perf_maps = set(f for f in os.listdir("/tmp") if f.startswith("perf-"))
    for page in pages(root):
        folder = os.path.join(work, "sh", page.replace("/", "_"))
        os.makedirs(folder)
        os.symlink(args.build, os.path.join(folder, "build"))
        make_inputs(folder, args.python, env)
        if app:  # logging.md pipes "./app"'s stderr: a program that calls bcast (the README's first example)
            open(os.path.join(folder, "app"), "w").write(f"#!/bin/sh\nexec {app[0]} {app[1]}\n")
            os.chmod(os.path.join(folder, "app"), 0o755)
        for lang, line, body, _ in code_blocks(root, page):
            if lang != "sh":
                continue
            for offset, command in command_lines(body):
                where = f"{page}:{line + offset}"
                listed = next((i for i, (pg, pattern, _) in enumerate(SKIPPED_LINES)
                               if pg == page and re.search(pattern, command)), None)
                reason = None if listed is None else SKIPPED_LINES[listed][2]
                used.add(listed)
                if reason is None and re.match(r"(\w+=\S+ )*perf ", command) and perf_problem:
                    reason = perf_problem
                if reason is None and "./app" in command and not app:
                    reason = "./app is the README's first C++ example, which did not build"
                if reason:
                    skipped.append(("sh", f"{where}: {command[:70]}", reason))
                    continue
                words = tuple(shlex.split(command, comments=True))
                if words in seen:  # the same command on an earlier page (the demo): it ran there
                    twice.append(f"{where} (as {seen[words]})")
                    continue
                seen[words] = where
                t = time.time()
                runs_python = re.search(r"\bpython3?\b", command)
                p = run_line(command, python_env(env, args.python_env) if runs_python else env, folder)
                ran["sh"] += 1
                print(f"  sh {where}: {time.time() - t:.1f} s: {command[:90]}")
                if p.returncode != 0:
                    fail(f"shell line {where}: {command}", p)
    for i, (page, pattern, _) in enumerate(SKIPPED_LINES):
        if i not in used:
            fail(f"SKIPPED_LINES entry ({page}, {pattern!r}) matches no line: the page changed; update the list")
    # BCAST_PROFILE=perf writes /tmp/perf-PID.map: remove the ones these lines made.
    for f in set(f for f in os.listdir("/tmp") if f.startswith("perf-")) - perf_maps:
        os.remove(os.path.join("/tmp", f))


def main():
    args = parse_args()
    root = args.source
    started = time.time()
    with tempfile.TemporaryDirectory(prefix="bcast-docs-") as work:
        bin_dir = os.path.join(work, "bin")
        os.makedirs(bin_dir)
        os.symlink(args.python, os.path.join(bin_dir, "python3"))  # the docs' `python3`: the one with NumPy
        cache = os.path.join(work, "cache")
        os.makedirs(cache, mode=0o700)  # a user's cache folder, as any earlier bcast call leaves it
        env = dict(os.environ, BCAST_CACHE_DIR=cache, PATH=os.pathsep.join([bin_dir, args.tools, os.environ["PATH"]]))
        for var in ["BCAST_JIT_MODE", "BCAST_LOG_LEVEL", "BCAST_VERBOSE"]:
            env.pop(var, None)  # the examples run under the defaults a reader has
        # The sanitizer runtime a sanitized module needs in the interpreter, and only
        # there: the sanitized tools and C++ examples link their own (a preloaded
        # second runtime stops them). Shell lines that run python3 get it too.
        py_env = dict(python_env(env, args.python_env), PYTHONPATH=args.python_dir)

        examples = cpp_examples(root)
        app = None
        if args.library.endswith(".a"):
            for name, _, _ in examples:
                skipped.append(("cpp", name, "a static libbcast: its LLVM and other link dependencies are not "
                                             "known here (the installed_package test links one)"))
        else:
            exe = build_cpp(args, examples, work)
            if exe:
                run_cpp(exe, examples, env, work)
                readme = [i for i, (_, page, _) in enumerate(examples) if page == "README.md"]
                app = (exe, readme[0]) if readme else None
        run_shell(args, root, env, work, app)
        run_python(args, root, py_env, work)

    print(f"ran {ran['cpp']} C++ examples, {ran['sh']} shell lines, {ran['python']} Python blocks "
          f"in {time.time() - started:.0f} s; skipped {len(skipped)}:")
    for kind, where, reason in skipped:
        print(f"  SKIPPED {kind} {where}: {reason}")
    if twice:
        print(f"{len(twice)} shell lines repeat a line of an earlier page and ran there: {', '.join(twice)}")
    for f in failures:
        print("FAIL:", f)
    if not failures and ran["cpp"] + ran["sh"] + ran["python"] == 0:
        print("FAIL: nothing ran")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
