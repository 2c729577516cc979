#!/usr/bin/env python3
"""End-to-end test of expressions: `bcast-run -e` on random expressions over
random .npy views must give NumPy 2's results (NEP 50 promotion, switched on
in Debian's NumPy 1.24 by np._set_promotion_state("weak")) bit for bit, and
must refuse what NumPy refuses. Also: the promotion table against
np.result_type for every pair of dtypes, and a binary op on mixed dtypes.

The random expressions use the ops whose results NumPy defines exactly
(no transcendentals, pow or fma: their accuracy is checked elsewhere), cast
only inputs to integers (NumPy leaves out-of-range float casts undefined),
and differ from NumPy where bcast documents it: floor, ceil and round keep
an integer's dtype, and are not defined on bool, nor is floor_div on two bools.

usage: expressions_vs_numpy.py PATH/TO/bcast-run
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

from numpy_floats import ulp_distance

np._set_promotion_state("weak")

BCAST_RUN = sys.argv[1]
RNG = np.random.default_rng(15)
CAST_RNG = np.random.default_rng(28)  # its own, so that the other checks draw what they always drew
DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i8": np.int8, "i16": np.int16,
          "i32": np.int32, "i64": np.int64, "u8": np.uint8, "u16": np.uint16, "u32": np.uint32,
          "u64": np.uint64, "bool": np.bool_}
NAME_OF = {np.dtype(t): n for n, t in DTYPES.items()}
failures = []


# ---- the documented semantics, on NumPy ----

def keeps_integers(f):
    def g(x):
        x = np.asarray(x)
        if x.dtype == np.bool_:
            raise TypeError("not defined for bool")
        return x.copy() if x.dtype.kind in "iu" else f(x)
    return g


def floor_div(a, b):
    if np.asarray(a).dtype == np.bool_ and np.asarray(b).dtype == np.bool_:
        raise TypeError("floor_div is not defined for bool")
    return np.floor_divide(a, b)


def where(c, a, b):
    return np.where(np.asarray(c).astype(bool), a, b).astype(np.result_type(a, b))


def cast_to(name):
    return lambda x: np.asarray(x).astype(DTYPES[name])


NAMESPACE = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide, "floor_div": floor_div,
    "max": np.maximum, "min": np.minimum, "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal, "logical_and": np.logical_and, "logical_or": np.logical_or,
    "logical_xor": np.logical_xor, "bit_and": np.bitwise_and, "bit_or": np.bitwise_or, "bit_xor": np.bitwise_xor,
    "neg": np.negative, "abs": np.absolute, "floor": keeps_integers(np.floor), "ceil": keeps_integers(np.ceil),
    "round": keeps_integers(np.rint), "logical_not": np.logical_not, "bit_not": np.invert, "where": where,
    "clamp": np.clip,
}
NAMESPACE.update({name: cast_to(name) for name in DTYPES})


# ---- random cases ----

BINARY = ["add", "sub", "mul", "div", "floor_div", "max", "min", "eq", "lt", "ge", "logical_and", "logical_xor",
          "bit_and", "bit_xor"]
UNARY = ["neg", "abs", "floor", "ceil", "round", "logical_not", "bit_not"]


def random_values(dtype, shape):
    if dtype == "bool":
        return RNG.integers(0, 2, size=shape).astype(np.bool_)
    if dtype.startswith("f"):
        return RNG.uniform(-10, 10, size=shape).astype(DTYPES[dtype])
    low = 0 if dtype.startswith("u") else -20
    return RNG.integers(low, 40, size=shape).astype(DTYPES[dtype])


def random_operand(tmp, name, shape):
    """An array of `shape` that is a view of a saved parent: sliced with
    steps (negative too), or the parent itself in C or Fortran order."""
    dtype = RNG.choice(list(DTYPES))
    steps = [int(RNG.choice([1, 1, 2, -1])) for _ in shape]
    parent_shape = [max(e * abs(s), 1) + int(RNG.integers(0, 2)) for e, s in zip(shape, steps)]
    parent = random_values(dtype, parent_shape)
    if RNG.integers(0, 2):
        parent = np.asfortranarray(parent)
    index = []
    for e, s in zip(shape, steps):
        if e == 0:
            index.append("0:0")
        elif s > 0:
            index.append(f"0:{e * s}:{s}")
        else:
            index.append(f"{e * -s - 1}::{s}" if e * -s - 1 >= 0 else "::-1")
    path = os.path.join(tmp, f"{name}.npy")
    np.save(path, parent)
    view = eval(f"parent[{','.join(index)}]") if shape else parent[()]
    spec = f"{path}[{','.join(index)}]" if shape else path
    return np.asarray(view), spec


def random_expression(names, arrays, depth=0):
    choice = 0 if depth >= 4 else int(RNG.integers(0, 10))
    if choice <= 1:
        if depth > 0 and RNG.integers(0, 5) == 0:
            return str(int(RNG.integers(0, 6))) if RNG.integers(0, 2) else f"{RNG.integers(-8, 9) / 4:.2f}"
        return str(RNG.choice(names))
    if choice <= 5:
        op = RNG.choice(BINARY)
        return f"{op}({random_expression(names, arrays, depth + 1)},{random_expression(names, arrays, depth + 1)})"
    if choice <= 7:
        return f"{RNG.choice(UNARY)}({random_expression(names, arrays, depth + 1)})"
    if choice == 8:  # casts: to floats and bool anything, to integers only an integer or bool input
        to = str(RNG.choice(list(DTYPES)))
        if to[0] in "iu":
            exact = [n for n in names if arrays[n].dtype.kind in "iub"]
            return f"{to}({RNG.choice(exact)})" if exact else str(RNG.choice(names))
        return f"{to}({random_expression(names, arrays, depth + 1)})"
    op = RNG.choice(["where", "clamp"])
    return f"{op}({random_expression(names, arrays, depth + 1)},{random_expression(names, arrays, depth + 1)}," \
           f"{random_expression(names, arrays, depth + 1)})"


def same_bits(got, want):
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    if got.dtype.kind == "f":
        both_nan = np.isnan(got) & np.isnan(want)
        bits = f"u{got.dtype.itemsize}"
        return bool(np.all(both_nan | (got.view(bits) == want.view(bits))))
    return bool(np.array_equal(got, want))


def run_against(label, want, args, out):
    """bcast-run -e ARGS -o OUT --check against NumPy's `want`, or against
    its refusal when `want` is the exception NumPy raised: the result, or
    None when there is none to compare (a failure is recorded then)."""
    p = subprocess.run([BCAST_RUN, "-e", *args, "-o", out, "--check"], capture_output=True, text=True)
    if isinstance(want, Exception):
        if p.returncode != 3 or os.path.exists(out):
            failures.append(f"{label}: NumPy refuses it ({want}), bcast-run exits {p.returncode}: {p.stderr!r}")
        return None
    if p.returncode != 0:
        failures.append(f"{label}: exit {p.returncode}: {p.stderr.strip()}")
        return None
    got = np.load(out)
    os.remove(out)
    return got


def check_random_expressions(tmp, cases):
    refused = ran = 0
    for case in range(cases):
        full = [int(RNG.integers(1, 6)) for _ in range(int(RNG.integers(0, 4)))]
        names = [f"x{k}" for k in range(int(RNG.integers(1, 7)))]
        arrays, specs = {}, []
        for name in names:
            rank = int(RNG.integers(0, len(full) + 1))
            shape = [e if RNG.integers(0, 10) >= 3 else 1 for e in full[len(full) - rank:]]
            arrays[name], spec = random_operand(tmp, f"{name}_{case}", shape)
            specs.append(f"{name}={spec}")
        text = random_expression(names, arrays)
        if not any(name in text for name in names):  # bcast needs a tensor operand
            text = f"add({text},{names[0]})"
        out = os.path.join(tmp, "out.npy")
        try:
            with np.errstate(all="ignore"):
                want = np.asarray(eval(text, {"__builtins__": {}}, {**NAMESPACE, **arrays}))
        except (TypeError, OverflowError, np.core._exceptions._UFuncNoLoopError) as e:
            want = e
        got = run_against(f"{text} on {specs}", want, [text, *specs], out)
        refused += isinstance(want, Exception)
        if got is None:
            continue
        ran += 1
        if not same_bits(got, want):
            failures.append(f"{text}: bcast {got.dtype}{got.shape} {got.ravel()[:6]} vs NumPy {want.dtype}"
                            f"{want.shape} {want.ravel()[:6]} (inputs {specs})")
    return ran, refused


# The transcendental functions: bcast calls the C library (expf, exp, ...),
# NumPy its own SIMD code (SVML on AVX-512 hosts); docs/semantics.md promises this
# many ULP of NumPy's result, per result dtype. sigmoid is NumPy's
# 1 / (1 + exp(-x)) op by op, rounded once in bcast.
TRANSCENDENTAL_ULPS = {"f16": 1, "f32": 4, "f64": 4}
SPECIAL_FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.7, -3.7, 10.0, -88.7, 88.7, 710.0, -710.0,
                  1e-3, 1e-30, 6e-8, 65504.0, 3.0e38, np.inf, -np.inf, np.nan]


def numpy_unary(op, x):
    if op == "sigmoid":  # in the float dtype NumPy's exp picks for x
        xf = x.astype(np.exp(np.zeros(1, x.dtype)).dtype)
        return 1 / (1 + np.exp(-xf))
    return NAMESPACE[op](x) if op in NAMESPACE else getattr(np, {"sqrt": "sqrt", "exp": "exp", "log": "log",
                                                                  "sin": "sin", "cos": "cos", "tanh": "tanh"}[op])(x)


def check_unary_special_values(tmp):
    """Every unary op on special values of every dtype NumPy has: exact ops bit
    for bit, the transcendentals within TRANSCENDENTAL_ULPS, NaN where NumPy
    has NaN; and where NumPy refuses, bcast refuses too (exit 3)."""
    worst = {}
    for name, t in DTYPES.items():
        if name.startswith("f"):
            with np.errstate(all="ignore"):
                values = np.array(SPECIAL_FLOATS, np.float64).astype(t)
        elif name == "bool":
            values = np.array([False, True])
        else:
            info = np.iinfo(t)
            values = np.array(sorted({0, 1, 2, 7, 100, int(info.max), int(info.min), int(info.min) + 1,
                                      int(info.max) - 1} | ({-1, -7} if info.min < 0 else set())), t)
        path = os.path.join(tmp, f"special_{name}.npy")
        np.save(path, values)
        for op in ["neg", "abs", "sqrt", "exp", "log", "sin", "cos", "tanh", "sigmoid", "floor", "ceil", "round",
                   "logical_not", "bit_not"]:
            try:
                with np.errstate(all="ignore"):
                    want = np.asarray(numpy_unary(op, values))
            except TypeError as e:
                want = e
            out = os.path.join(tmp, "unary.npy")
            got = run_against(f"{op} on {name}", want, [f"{op}(x)", f"x={path}"], out)
            if got is None:
                continue
            if op in ("floor", "ceil", "round") and name[0] in "iu":
                want = values  # an integer is its own floor (bcast's documented rule; NumPy 1.24 gives floats)
            if op in TRANSCENDENTAL_ULPS or op in ("exp", "log", "sin", "cos", "tanh", "sigmoid"):
                if got.dtype != want.dtype or np.any(np.isnan(got) != np.isnan(want)):
                    failures.append(f"{op} on {name}: {got.dtype} {got} vs NumPy {want.dtype} {want}")
                    continue
                finite = ~np.isnan(got)
                ulps = int(ulp_distance(got[finite], want[finite]).max(initial=0))
                key = NAME_OF[got.dtype]
                worst[key] = max(worst.get(key, 0), ulps)
                if ulps > TRANSCENDENTAL_ULPS[key]:
                    failures.append(f"{op} on {name}: {ulps} ULP from NumPy (bound {TRANSCENDENTAL_ULPS[key]}): "
                                    f"{got} vs {want}")
            elif not same_bits(got, want):
                failures.append(f"{op} on {name}: {got.dtype} {got} vs NumPy {want.dtype} {want}")
    return worst


def saturated_cast(values, to):
    """bcast's rule for a float cast to an integer (NOTE: [Float to integer]
    in docs/semantics.md), written out here: NumPy's cast where the truncated
    value fits `to` (the only values NumPy defines), else the nearer limit,
    and 0 for NaN. Also which elements NumPy defines."""
    info = np.iinfo(to)
    v = values.astype(np.float64)  # exact for f16, f32 and f64
    t = np.trunc(v)
    defined = ~np.isnan(v) & (t >= float(info.min)) & (t <= float(info.max))
    # float(info.max) of i64 and u64 rounds up to 2^63 and 2^64, which do not fit.
    defined &= ~((t == float(info.max)) & (float(info.max) != info.max))
    want = np.zeros(values.shape, to)
    with np.errstate(all="ignore"):
        want[defined] = values[defined].astype(to)
    want[~np.isnan(v) & (t < 0) & ~defined] = info.min
    want[~np.isnan(v) & (t > 0) & ~defined] = info.max
    return want, defined


def check_float_to_integer_casts(tmp):
    """Every float dtype NumPy has cast to every integer dtype and bool, on
    random values: random bits (huge, tiny, NaN, infinite), values within 2 of
    the target's limits, small values with fractions. Where NumPy defines the
    result it must be NumPy's; elsewhere bcast's saturation rule. Returns how
    many elements NumPy defined and how many it left to the rule."""
    defined_count = saturated_count = 0
    for name in ["f16", "f32", "f64"]:
        t = DTYPES[name]
        bits = CAST_RNG.integers(0, 2**64, 3000, dtype=np.uint64).astype(f"u{np.dtype(t).itemsize}", casting="unsafe")
        random_bits = bits.view(t)
        for to_name, to in DTYPES.items():
            if name == to_name or to_name[0] not in "iub":
                continue
            if to_name == "bool":
                low, high = 0.0, 1.0
            else:
                info = np.iinfo(to)
                low, high = float(info.min), float(info.max)
            with np.errstate(all="ignore"):
                near = np.where(CAST_RNG.integers(0, 2, 3000) == 1, low, high) + CAST_RNG.uniform(-2, 2, 3000)
                values = np.where(np.arange(3000) % 3 == 0, random_bits.astype(np.float64),
                                  np.where(np.arange(3000) % 3 == 1, near, CAST_RNG.uniform(-300, 300, 3000))).astype(t)
                values[::3] = random_bits[::3]  # the bits themselves, NaN payloads and all
            path = os.path.join(tmp, f"cast_{name}.npy")
            np.save(path, values)
            out = os.path.join(tmp, "cast_out.npy")
            if to_name == "bool":
                with np.errstate(all="ignore"):
                    want, defined = values.astype(np.bool_), np.ones(values.shape, bool)
            else:
                want, defined = saturated_cast(values, to)
            got = run_against(f"{to_name}({name})", want, [f"{to_name}(x)", f"x={path}"], out)
            if got is None:
                continue
            defined_count += int(defined.sum())
            saturated_count += int((~defined).sum())
            if got.dtype != want.dtype or not np.array_equal(got, want):
                bad = np.flatnonzero(got != want)[:4]
                failures.append(f"{to_name}({name}): at {bad.tolist()} bcast {got[bad].tolist()}, want "
                                f"{want[bad].tolist()} for {values[bad].tolist()} "
                                f"({'NumPy' if defined[bad[0]] else 'the saturation rule'})")
    return defined_count, saturated_count


def check_promotion_table(tmp):
    """bcast's promotion of every pair of dtypes against np.result_type: the
    dtype of x + y (bool + bool is or, still bool)."""
    for a in DTYPES:
        for b in DTYPES:
            p = subprocess.run([BCAST_RUN, "-e", "x + y", f"x={a}[2]", f"y={b}[2]", "--json"], capture_output=True,
                               text=True)
            want = NAME_OF[np.result_type(DTYPES[a], DTYPES[b])]
            got = json.loads(p.stdout.strip().splitlines()[-1])["out_dtype"] if p.returncode == 0 else p.stderr
            if got != want:
                failures.append(f"promotion of {a} and {b}: bcast {got}, np.result_type {want}")


def check_mixed_binary(tmp):
    """bcast-run sub img_u8.npy mean_f32.npy: NumPy says f32."""
    img = os.path.join(tmp, "img.npy")
    mean = os.path.join(tmp, "mean.npy")
    np.save(img, random_values("u8", (5, 7, 3)))
    np.save(mean, np.array([123.7, 116.3, 103.5], np.float32))
    out = os.path.join(tmp, "out.npy")
    p = subprocess.run([BCAST_RUN, "sub", img, mean, "-o", out, "--json"], capture_output=True, text=True)
    if p.returncode != 0:
        failures.append(f"sub u8 f32: exit {p.returncode}: {p.stderr}")
        return
    if not same_bits(np.load(out), np.subtract(np.load(img), np.load(mean))):
        failures.append("sub u8 f32: differs from NumPy")


def check_verbose_names_the_kernel():
    """BCAST_VERBOSE prints one line per expression call, with its kernel key."""
    p = subprocess.run([BCAST_RUN, "-e", "x*2+y", "x=f32[4,4]", "y=i32[4]", "--json"], capture_output=True, text=True,
                       env=dict(os.environ, BCAST_VERBOSE="1"))
    key = json.loads(p.stdout.strip().splitlines()[-1])["kernel"] if p.returncode == 0 else "?"
    if f"bcast_verbose;exec;expr;expr;f32[4,4] i32[4];f64[4,4];[expand_b,same];{key};" not in p.stderr:
        failures.append(f"BCAST_VERBOSE's line for an expression: {p.stderr!r}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        check_promotion_table(tmp)
        check_mixed_binary(tmp)
        worst = check_unary_special_values(tmp)
        cast_defined, cast_saturated = check_float_to_integer_casts(tmp)
        check_verbose_names_the_kernel()
        ran, refused = check_random_expressions(tmp, 160)
    for f in failures[:20]:
        print("FAIL:", f)
    print("transcendentals, largest ULP from NumPy by result dtype: " +
          ", ".join(f"{d} {u} (bound {TRANSCENDENTAL_ULPS[d]})" for d, u in sorted(worst.items())))
    print(f"float to integer casts: {cast_defined} elements NumPy defines, {cast_saturated} by the saturation rule")
    print(f"{ran} random expressions equal NumPy's, {refused} refused by both; {len(failures)} failures")
    if cast_defined < 10000 or cast_saturated < 10000:
        print("FAIL: too few cast elements on one side of the range")
        return 1
    if ran < 80:
        print("FAIL: too few expressions ran")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
