#!/usr/bin/env python3
"""Math functions in kernels (NOTE: [Vector math]) against NumPy and numexpr.

One thread, 4 Mi elements: bcast.evaluate("fn(x)") vs NumPy's ufunc, numexpr
and PyTorch where they have the function, and np.copyto of the same bytes
(the memory bound), median of 7, elements per ns; bcast's and NumPy's calls
taken in turn, and "bcast / NumPy" the median of the pairs' ratios;
then the complex functions with a recipe (NOTE: [Complex math]) on c64 and
c128 alike, then five chains on [4096, 1024] (four f32, one complex64)
against NumPy op by op and numexpr.
Run:  BCAST_CACHE_DIR=off PYTHONPATH=build/python /usr/bin/python3 tools/bcast-bench-functions.py
      [--only exp,log] (those functions, then the chains) [--chains] (the chains alone)
      [--complex] (the complex functions alone)
      [--threads N] (bcast, numexpr and PyTorch on N threads; NumPy's ufuncs have one)
"""
import os
import platform
import re
import sys
import statistics
import time
import warnings

# Steady state: each call compiles its full kernel before it runs (NOTE: the
# default lets first calls run on a quicker tier while LLVM works, which on
# a busy machine can last through the repeats and halve a row).
os.environ.setdefault("BCAST_JIT_MODE", "sync")

import numpy as np  # noqa: E402
import bcast  # noqa: E402

try:
    import numexpr
except ImportError:
    numexpr = None

try:  # Debian's python3-torch, where installed: its CPU ops are a column
    import torch
except ImportError:
    torch = None

REPEATS = 7
N = 1 << 22


def median_ns(fn):
    fn()  # warm up: compile, fault the pages in
    times = []
    for _ in range(REPEATS):
        t = time.perf_counter_ns()
        fn()
        times.append(time.perf_counter_ns() - t)
    return statistics.median(times)


def paired_ns(fa, fb):
    """fa's and fb's calls taken in turn, REPEATS of each: their median times
    and the median of the pairs' ratios (fb's time over fa's), which a VM's
    drift from one second to the next moves far less than two medians
    taken one after the other."""
    fa()
    fb()
    ta, tb = [], []
    for _ in range(REPEATS):
        for fn, times in ((fa, ta), (fb, tb)):
            t = time.perf_counter_ns()
            fn()
            times.append(time.perf_counter_ns() - t)
    return statistics.median(ta), statistics.median(tb), statistics.median(b / a for a, b in zip(ta, tb))


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


# name, NumPy ufunc, domain of x (and y), arity: every function issue 30's
# section 3 names, sigmoid against NumPy's four ops.
FUNCTIONS = [
    ("exp", np.exp, (-80, 80), 1), ("exp2", np.exp2, (-100, 100), 1), ("expm1", np.expm1, (-5, 5), 1),
    ("log", np.log, (1e-3, 1e3), 1), ("log2", np.log2, (1e-3, 1e3), 1), ("log10", np.log10, (1e-3, 1e3), 1),
    ("log1p", np.log1p, (-0.99, 10), 1), ("sin", np.sin, (-10, 10), 1), ("cos", np.cos, (-10, 10), 1),
    ("tan", np.tan, (-1.5, 1.5), 1), ("arcsin", np.arcsin, (-1, 1), 1), ("arccos", np.arccos, (-1, 1), 1),
    ("arctan", np.arctan, (-10, 10), 1), ("arctan2", np.arctan2, (-10, 10), 2), ("sinh", np.sinh, (-10, 10), 1),
    ("cosh", np.cosh, (-10, 10), 1), ("tanh", np.tanh, (-10, 10), 1), ("arcsinh", np.arcsinh, (-10, 10), 1),
    ("arccosh", np.arccosh, (1, 10), 1), ("arctanh", np.arctanh, (-0.99, 0.99), 1), ("sigmoid", None, (-10, 10), 1),
    ("cbrt", np.cbrt, (-10, 10), 1), ("hypot", np.hypot, (-10, 10), 2), ("logaddexp", np.logaddexp, (-10, 10), 2),
    ("logaddexp2", np.logaddexp2, (-10, 10), 2), ("pow", np.power, (0.01, 10), 2),
    ("float_power", np.float_power, (0.01, 10), 2),
]
# numexpr 2.8's functions among them, and its spelling of the others it can
# write (its 1/(1+exp(-x)) for sigmoid, ** for pow); "-" for the rest.
NUMEXPR_FUNCTIONS = {"exp", "expm1", "log", "log10", "log1p", "sin", "cos", "tan", "arcsin", "arccos", "arctan",
                     "arctan2", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh"}
NUMEXPR_TEXT = {"sigmoid": "1 / (1 + exp(-x))", "pow": "x ** y"}
# The complex functions with a recipe; numexpr 2.8 has each but exp2 and
# log2, and computes c64 in c128.
COMPLEX_FUNCTIONS = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "sin", "cos", "tan", "arcsin",
                     "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh"]
# y's domain: x's for the functions of two like arguments, else [-4, 4].
SAME_DOMAIN = {"arctan2", "hypot", "logaddexp", "logaddexp2"}


def print_row(name, dtype, paired, numexpr_call, torch_call, data):
    """One table row: bcast's and NumPy's times and their ratio (paired_ns),
    then numexpr's and PyTorch's
    calls where they have the function (None, or a RuntimeError: "-") and the
    copy of data's bytes; elements per ns to 3 figures."""
    def rate(call):
        if call is None:
            return "-"
        try:
            return f"{N / median_ns(call):.3g}"
        except RuntimeError:  # PyTorch 1.13 lacks some complex functions
            return "-"
    same = np.empty_like(data)
    t_c = median_ns(lambda: np.copyto(same, data))
    t_b, t_n, ratio = paired
    print(f"| {name} | {np.dtype(dtype).name} | {N / t_b:.3g} | {N / t_n:.3g} | {rate(numexpr_call)} | "
          f"{rate(torch_call)} | {N / t_c:.3g} | {ratio:.2f}x |")


def complex_rows(rng, only):
    """The complex functions: parts uniform in [-5, 5], 4 Mi elements; el/ns."""
    if only and not set(only) & set(COMPLEX_FUNCTIONS):
        return
    print("\n| fn | dtype | bcast el/ns | NumPy el/ns | numexpr el/ns | PyTorch el/ns | copy el/ns | bcast / NumPy |")
    print("|---|---|---|---|---|---|---|---|")
    for name in COMPLEX_FUNCTIONS:
        if only and name not in only:
            continue
        for dtype in (np.complex64, np.complex128):
            z = (rng.uniform(-5, 5, N) + 1j * rng.uniform(-5, 5, N)).astype(dtype)
            out = np.empty_like(z)
            ufunc = getattr(np, name)
            paired = paired_ns(lambda: bcast.evaluate(f"{name}(z)", out=out, z=z), lambda: ufunc(z, out=out))
            torch_fn = getattr(torch, name, None) if torch else None
            tz, tout = (torch.from_numpy(z), torch.from_numpy(out)) if torch_fn else (None, None)
            print_row(name, dtype, paired,
                      (lambda: numexpr.evaluate(f"{name}(z)", local_dict={"z": z}, out=out, casting="unsafe"))
                      if numexpr and name in NUMEXPR_FUNCTIONS else None,
                      (lambda: torch_fn(tz, out=tout)) if torch_fn else None, z)


def main():
    threads = int(sys.argv[sys.argv.index("--threads") + 1]) if "--threads" in sys.argv else 1
    bcast.set_num_threads(threads)
    if torch:
        torch.set_num_threads(threads)
    print(f"CPU: {cpu_name()}, {os.cpu_count()} cores visible; {threads} thread(s); NumPy {np.__version__}; "
          f"numexpr {numexpr.__version__ if numexpr else 'absent'}; PyTorch {torch.__version__ if torch else 'absent'}")
    rng = np.random.default_rng(1)
    if numexpr:
        numexpr.set_num_threads(threads)  # its VML is absent in Debian's build: numexpr computes element by element
    if "--complex" not in sys.argv:
        print("\n| fn | dtype | bcast el/ns | NumPy el/ns | numexpr el/ns | PyTorch el/ns | copy el/ns | bcast / NumPy |")
        print("|---|---|---|---|---|---|---|---|")
    only = sys.argv[sys.argv.index("--only") + 1].split(",") if "--only" in sys.argv else None
    for name, ufunc, (lo, hi), arity in FUNCTIONS:
        if "--chains" in sys.argv or "--complex" in sys.argv or (only and name not in only):
            continue
        for dtype in (np.float32, np.float64):
            x = rng.uniform(lo, hi, N).astype(dtype)
            y = (rng.uniform(lo, hi, N) if name in SAME_DOMAIN else rng.uniform(-4, 4, N)).astype(dtype)
            out = np.empty(N, np.float64 if name == "float_power" else dtype)
            text = f"{name}(x, y)" if arity == 2 else f"{name}(x)"
            ops = {"x": x, "y": y} if arity == 2 else {"x": x}
            if name == "sigmoid":
                def numpy_fn():
                    np.negative(x, out=out); np.exp(out, out=out); np.add(out, 1, out=out); np.divide(1, out, out=out)
            elif arity == 2:
                def numpy_fn():
                    ufunc(x, y, out=out)
            else:
                def numpy_fn():
                    ufunc(x, out=out)
            paired = paired_ns(lambda: bcast.evaluate(text, out=out, **ops), numpy_fn)
            torch_fn = getattr(torch, {"pow": "pow", "arctan2": "atan2"}.get(name, name), None) if torch else None
            targs = (torch.from_numpy(x), torch.from_numpy(y))[:arity] if torch_fn else ()
            tout = torch.from_numpy(out) if torch_fn else None
            ne_text = NUMEXPR_TEXT.get(name, text) if name in NUMEXPR_FUNCTIONS or name in NUMEXPR_TEXT else None
            print_row(name, dtype, paired,
                      (lambda: numexpr.evaluate(ne_text, local_dict=ops, out=out, casting="unsafe"))
                      if numexpr and ne_text else None,
                      (lambda: torch_fn(*targs, out=tout)) if torch_fn else None, x)

    if "--chains" not in sys.argv:
        complex_rows(rng, only)
    if "--complex" in sys.argv:
        return

    x = rng.standard_normal((4096, 1024)).astype(np.float32) * 3
    m = x.max(axis=1, keepdims=True)
    out = np.empty_like(x)
    tmp = np.empty_like(x)
    n = x.size

    def np_silu():
        np.negative(x, out=tmp); np.exp(tmp, out=tmp); np.add(tmp, 1, out=tmp); np.divide(x, tmp, out=out)

    def np_gelu():
        np.multiply(x, x, out=tmp); np.multiply(tmp, x, out=tmp); np.multiply(tmp, np.float32(0.044715), out=tmp)
        np.add(tmp, x, out=tmp); np.multiply(tmp, np.float32(0.7978845608), out=tmp)
        np.tanh(tmp, out=tmp); np.add(tmp, 1, out=tmp); np.multiply(x, tmp, out=out); np.multiply(out, np.float32(0.5), out=out)

    def np_softmax():
        np.subtract(x, m, out=out); np.exp(out, out=out)

    def np_softplus():
        np.abs(x, out=tmp); np.negative(tmp, out=tmp); np.exp(tmp, out=tmp); np.log1p(tmp, out=tmp)
        np.maximum(x, 0, out=out); np.add(out, tmp, out=out)

    chains = [
        ("SiLU", "x * sigmoid(x)", "x / (1 + exp(-x))", np_silu),
        ("GELU tanh", "0.5 * x * (1 + tanh(0.7978845608 * (x + 0.044715 * x**3)))",
         "0.5 * x * (1 + tanh(0.7978845608 * (x + 0.044715 * x**3)))", np_gelu),
        ("softmax numerator", "exp(x - m)", "exp(x - m)", np_softmax),
        ("softplus", "log1p(exp(-abs(x))) + maximum(x, 0)", "log1p(exp(-abs(x))) + where(x > 0, x, 0)", np_softplus),
    ]
    # The complex chain: c64 z, w [4096, 1024], |z * w + 1j| as f32.
    z = (rng.standard_normal((4096, 1024)) + 1j * rng.standard_normal((4096, 1024))).astype(np.complex64)
    w = (rng.standard_normal((4096, 1024)) + 1j * rng.standard_normal((4096, 1024))).astype(np.complex64)
    ctmp = np.empty_like(z)

    def np_complex():
        np.multiply(z, w, out=ctmp); np.add(ctmp, 1j, out=ctmp); np.abs(ctmp, out=out)

    print(f"\n[4096, 1024] f32 (the complex chain: c64 inputs, f32 result), {threads} thread(s), elements per ns")
    print("\n| chain | bcast | NumPy op by op | numexpr | bcast / NumPy | bcast / numexpr |")
    print("|---|---|---|---|---|---|")
    chains.append(("complex abs(z*w+1j)", "abs(z * w + 1j)", "abs(z * w + 1j)", np_complex))
    names = {"x": x, "m": m, "z": z, "w": w}
    for name, text, ne_text, numpy_fn in chains:
        ops = {k: v for k, v in names.items() if re.search(rf"\b{k}\b", text)}
        t_b, t_n, ratio_n = paired_ns(lambda: bcast.evaluate(text, out=out, **ops), numpy_fn)
        if numexpr:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", np.ComplexWarning)
                t_e = median_ns(lambda: numexpr.evaluate(ne_text, local_dict=ops, out=out, casting="unsafe"))
            ne = f"{n / t_e:.2f}"
            ratio = f"{t_e / t_b:.2f}x"
        else:
            ne = ratio = "-"
        print(f"| {name} | {n / t_b:.2f} | {n / t_n:.2f} | {ne} | {ratio_n:.2f}x | {ratio} |")


if __name__ == "__main__":
    main()
