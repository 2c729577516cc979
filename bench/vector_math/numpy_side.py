"""NumPy's side of vector_math_choice.cpp: same functions, sizes and inputs.

Run by vector_math_choice.cpp (so both share the machine's load at the time);
alone: /usr/bin/python3 bench/vector_math/numpy_side.py
Prints one line per case: "<key>/<f32|f64> <median ms> <max ULP>".
"""
import math
import time

import numpy as np

N = 1 << 22
REPS = 7
PHI = 0.6180339887498949
SQ2 = 0.41421356237309515

# key, numpy ufunc, arity, f64 domain of a, domain of b, f32 domain of a
# (a domain is (lo, hi, log-uniform)); as CASES in vector_math_choice.cpp.
CASES = [
    ("exp", np.exp, 1, (-700, 700, False), None, (-87, 88, False)),
    ("log", np.log, 1, (1e-300, 1e300, True), None, (1e-30, 1e30, True)),
    ("sin", np.sin, 1, (-10, 10, False), None, (-10, 10, False)),
    ("sin1000", np.sin, 1, (-1000, 1000, False), None, (-1000, 1000, False)),
    ("cos", np.cos, 1, (-10, 10, False), None, (-10, 10, False)),
    ("cos1000", np.cos, 1, (-1000, 1000, False), None, (-1000, 1000, False)),
    ("tanh", np.tanh, 1, (-10, 10, False), None, (-10, 10, False)),
    ("expm1", np.expm1, 1, (-5, 5, False), None, (-5, 5, False)),
    ("log1p", np.log1p, 1, (-0.99, 10, False), None, (-0.99, 10, False)),
    ("atan2", np.arctan2, 2, (-10, 10, False), (-10, 10, False), (-10, 10, False)),
    ("pow", np.power, 2, (0.01, 100, False), (-10, 10, False), (0.01, 100, False)),
    ("sinh", np.sinh, 1, (-20, 20, False), None, (-20, 20, False)),
    ("arcsin", np.arcsin, 1, (-1, 1, False), None, (-1, 1, False)),
]


def make_input(dom, step, dtype):
    # the C++ side's Weyl sequence, with the same double operations
    u = np.fmod(np.arange(N, dtype=np.float64) * step, 1.0)
    lo, hi, logu = dom
    if logu:
        # math.exp is glibc's exp, as in the C++ (np.exp may differ by an ulp)
        t = math.log(lo) + (math.log(hi) - math.log(lo)) * u
        return np.array([math.exp(v) for v in t.tolist()]).astype(dtype)
    return (lo + (hi - lo) * u).astype(dtype)


def max_ulp(got, ref, dtype):
    # the C++ side's measure: |got - ref| over the ulp of the exact value
    fi = np.finfo(dtype)
    p = fi.nmant + 1
    emin = int(fi.minexp) - p + 1
    _, e = np.frexp(ref)
    ulp = np.ldexp(np.ones_like(ref), np.maximum(e - p, emin))
    ok = np.isfinite(ref) & np.isfinite(got)
    return float(np.max(np.abs(got[ok].astype(ref.dtype) - ref[ok]) / ulp[ok]))


def main():
    for dtype, name in ((np.float32, "f32"), (np.float64, "f64")):
        wide = np.float64 if dtype == np.float32 else np.longdouble
        for key, f, arity, da, db, da32 in CASES:
            a = make_input(da32 if dtype == np.float32 else da, PHI, dtype)
            args = (a,) if arity == 1 else (a, make_input(db, SQ2, dtype))
            out = np.empty(N, dtype)
            f(*args, out=out)  # warm
            t = []
            for _ in range(REPS):
                s = time.perf_counter()
                f(*args, out=out)
                t.append((time.perf_counter() - s) * 1e3)
            ref = f(*(x.astype(wide) for x in args))
            print(f"{key}/{name} {sorted(t)[REPS // 2]:.4f} {max_ulp(out, ref, dtype):.4f}", flush=True)


if __name__ == "__main__":
    main()
