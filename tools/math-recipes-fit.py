#!/usr/bin/env python3
"""The polynomials of NOTE: [Math recipes]: src/core/widened_math.h's (f64)
and src/core/f32_math.h's (f32, rounded to float by the recipe).

Each is the interpolant of its function at the Chebyshev nodes of its
interval (near-minimax), solved in mpmath at 200 bits, its coefficients
rounded to double; printed with the largest relative error of the rounded
polynomial's result on 20,001 points of the interval, computed as the
header's recipe computes it (in exact arithmetic, so only the fit's error):

  expm1(r) = r + r**2 g(r),          |r| <= ln2 / 2        (g: degree 6; f32: 4)
  ln(m)    = 2t + t**3 h(t**2),      t = (m - 1) / (m + 1), m in [sqrt(1/2), sqrt(2))
  tanh(x)  = x + x**3 p(x**2),       |x| <= 0.9            (f32: degree 6)
  sinh(x)  = x + x**3 q(x**2),       |x| <= 1.5            (f32: degree 4)
  atan(z)  = z + z**3 a(z**2),       |z| <= 1              (f32: degree 9)
  asin(x)  = x + x**3 b(x**2),       |x| <= 1/2            (f32: degree 5)
  atanh(x) = x + x**3 c(x**2),       |x| < 1/2             (f32: degree 5)
  asinh(x) = x + x**3 s(x**2),       |x| < 1/2             (f32: degree 4)
  ln(m)    = 2t + t**3 h(t**2),      as above              (f32: degree 2)
  sin(r)   = r + r**3 S(r**2),       |r| <= pi/2           (S: degree 5)

and src/core/f64_math.h's (f64, NOTE: [F64 math]):

  expm1(r) = r + r**2 g(r),          |r| <= ln2 / 2        (g: degree 10)
  ln(m)    = 2t + t**3 h(t**2),      as above              (h: degree 6)
  sinh(x)  = x + x**3 q(x**2),       |x| <= 1              (q: degree 6)

and src/core/f64_trig.h's (f64, NOTE: [F64 trig]):

  sin(r)   = r + r**3 S(r**2),       |r| <= pi/4           (S: degree 6)
  cos(r)   = 1 - r**2/2 + r**4 C(r**2), |r| <= pi/4        (C: degree 5)
  tan(r)   = r + r**3 (1/3 + s P(s) / Q(s)), s = r**2, |r| <= pi/4  (P: degree 2, Q: 3)

Run:  /usr/bin/python3 tools/math-recipes-fit.py
"""
import mpmath as mp

mp.mp.prec = 200


def fit(f, a, b, degree):
    """Coefficients c0..cn (doubles) of the interpolant of f at the Chebyshev nodes of [a, b]."""
    n = degree + 1
    nodes = [(a + b) / 2 + (b - a) / 2 * mp.cos(mp.pi * (2 * i + 1) / (2 * n)) for i in range(n)]
    vandermonde = mp.matrix([[x**j for j in range(n)] for x in nodes])
    c = mp.lu_solve(vandermonde, mp.matrix([f(x) for x in nodes]))
    return [float(c[j]) for j in range(n)]


def horner(c, x):
    r = mp.mpf(0)
    for cj in reversed(c):
        r = r * x + cj
    return r


def worst(true, approx, a, b, points=20001):
    return max(abs(approx(x) / true(x) - 1) for x in (a + (b - a) * i / (points - 1) for i in range(points))
               if true(x) != 0)


def show(name, c, err):
    print(f"// {name}: largest relative error 2**{float(mp.log(err, 2)):.1f}")
    print("{" + ", ".join(float.hex(v) for v in c) + "}")


def odd_tail(f, c0, c1_of):
    """(f(x) - x) / x**3 as a function of s = x**2 (the polynomial an odd
    function's f(x) = x + x**3 p(x**2) needs), its series c0 + c1_of(s) near 0,
    where the quotient would cancel."""
    def tail(s):
        x = mp.sqrt(s)
        return (f(x) - x) / x**3 if s > mp.mpf(2)**-40 else c0 + c1_of(s)
    return tail


half_ln2 = mp.log(2) / 2


def g_true(r):  # (expm1(r) - r) / r**2, its series near 0, where the quotient would cancel
    return (mp.expm1(r) - r) / r**2 if abs(r) > mp.mpf(2)**-40 else mp.mpf(1) / 2 + r / 6 + r * r / 24


g = fit(g_true, -half_ln2, half_ln2, 6)
show("g, degree 6", g, worst(mp.expm1, lambda r: r + r * r * horner(g, mp.mpf(r)), -half_ln2, half_ln2))

t_max = (mp.sqrt(2) - 1) / (mp.sqrt(2) + 1)


def h_true(s):  # (2 atanh(t) / t - 2) / t**2 of s = t**2, its series near 0
    return (2 * mp.atanh(mp.sqrt(s)) / mp.sqrt(s) - 2) / s if s > mp.mpf(2)**-40 else mp.mpf(2) / 3 + 2 * s / 5


h = fit(h_true, 0, t_max**2, 4)


def log_of_t(t):
    return 2 * t + t**3 * horner(h, t * t)


show("h, degree 4", h, worst(lambda t: 2 * mp.atanh(t), log_of_t, -t_max, t_max))

# f32 (NOTE: [F32 math]): printed as decimals, rounded to float by the recipe.
g32 = fit(g_true, -half_ln2, half_ln2, 4)
show("g32, degree 4", g32, worst(mp.expm1, lambda r: r + r * r * horner(g32, mp.mpf(r)), -half_ln2, half_ln2))
print("{" + ", ".join(repr(v) for v in g32) + "}")

def fit_odd(name, f, end, degree, c0, c1_of):
    """f(x) = x + x**3 p(x**2) on |x| <= end: p's coefficients, printed (hex
    and decimal) with the largest relative error of f's polynomial."""
    p = fit(odd_tail(f, c0, c1_of), 0, end**2, degree)
    show(f"{name}, degree {degree}", p, worst(f, lambda x: x + x**3 * horner(p, x * x), mp.mpf(2)**-20, end))
    print("{" + ", ".join(repr(v) for v in p) + "}")
    return p


half = mp.mpf(1) / 2
p32 = fit_odd("p32 (tanh)", mp.tanh, mp.mpf("0.9"), 6, -mp.mpf(1) / 3, lambda s: 2 * s / 15)
q32 = fit_odd("q32 (sinh)", mp.sinh, mp.mpf("1.5"), 4, mp.mpf(1) / 6, lambda s: s / 120)
# The inverse trigonometric functions' cores: atan(z) = z + z**3 a(z**2)
# for |z| <= 1 and asin(x) = x + x**3 b(x**2) for |x| <= 1/2.
a32 = fit_odd("a32 (atan)", mp.atan, mp.mpf(1), 9, -mp.mpf(1) / 3, lambda s: s / 5)
b32 = fit_odd("b32 (asin)", mp.asin, half, 5, mp.mpf(1) / 6, lambda s: 3 * s / 40)
# The inverse hyperbolics' series: atanh(x) = x + x**3 c(x**2) and asinh(x)
# = x + x**3 s(x**2) for |x| < 1/2, and ln m = 2t + t**3 h(t**2) (as h
# above) for atanh's quotient of mantissas.
c32 = fit_odd("c32 (atanh)", mp.atanh, half, 5, mp.mpf(1) / 3, lambda s: s / 5)
s32 = fit_odd("s32 (asinh)", mp.asinh, half, 4, -mp.mpf(1) / 6, lambda s: 3 * s / 40)
# tan's (f32): tan r = r + r**3 t(r**2) on |r| <= pi/4 and a hair (k pi/2
# rounded from x 2/pi lands a hair beyond).
quarter_pi = mp.pi / 4 + mp.mpf(2)**-20
t32 = fit_odd("t32 (tan)", mp.tan, quarter_pi, 6, mp.mpf(1) / 3, lambda s: 2 * s / 15)

h32 = fit(h_true, 0, t_max**2, 2)
show("h32, degree 2", h32, worst(lambda t: 2 * mp.atanh(t), lambda t: 2 * t + t**3 * horner(h32, t * t), -t_max, t_max, 4001))
print("{" + ", ".join(repr(v) for v in h32) + "}")

# f32 sin and cos computed in f64 (NOTE: [Widened math]): sin r = r + r**3
# S(r**2) on |r| <= pi/2 and a hair (x - n pi, n rounded from x / pi),
# printed as hex doubles.
half_pi = mp.pi / 2 + mp.mpf(2)**-20
s64 = fit(odd_tail(mp.sin, -mp.mpf(1) / 6, lambda s: s / 120), 0, half_pi**2, 5)
show("S (widened sin), degree 5", s64, worst(mp.sin, lambda x: x + x**3 * horner(s64, x * x), mp.mpf(2)**-20, half_pi, 4001))

# f64 (NOTE: [F64 math]): printed as hex doubles.
g64 = fit(g_true, -half_ln2, half_ln2, 10)
show("g64, degree 10", g64, worst(mp.expm1, lambda r: r + r * r * horner(g64, mp.mpf(r)), -half_ln2, half_ln2, 4001))
h64 = fit(h_true, 0, t_max**2, 6)
show("h64, degree 6", h64, worst(lambda t: 2 * mp.atanh(t), lambda t: 2 * t + t**3 * horner(h64, t * t), -t_max, t_max, 4001))
q64 = fit(odd_tail(mp.sinh, mp.mpf(1) / 6, lambda s: s / 120), 0, 1, 6)
show("q64, degree 6", q64, worst(mp.sinh, lambda x: x + x**3 * horner(q64, x * x), mp.mpf(2)**-20, 1, 4001))

# f64 sin and cos (NOTE: [F64 trig]) on tan's interval above, |r| <= pi/4
# and a hair.
sin64 = fit(odd_tail(mp.sin, -mp.mpf(1) / 6, lambda s: s / 120), 0, quarter_pi**2, 6)
show("S (f64 sin), degree 6", sin64,
     worst(mp.sin, lambda x: x + x**3 * horner(sin64, x * x), mp.mpf(2)**-20, quarter_pi, 4001))


def cos_tail(s):  # (cos r - 1 + s/2) / s**2 of s = r**2, its series near 0
    r = mp.sqrt(s)
    return (mp.cos(r) - 1 + s / 2) / s**2 if s > mp.mpf(2)**-40 else mp.mpf(1) / 24 - s / 720


cos64 = fit(cos_tail, 0, quarter_pi**2, 5)
show("C (f64 cos), degree 5", cos64,
     worst(mp.cos, lambda x: 1 - x * x / 2 + x**4 * horner(cos64, x * x), mp.mpf(2)**-20, quarter_pi, 4001))


def fit_rational(f, a, b, m, n):
    """P (degree m) and Q (degree n, Q(0) = 1), doubles, with P = f Q at the
    m + n + 1 Chebyshev nodes of [a, b]: a linear system in their coefficients."""
    k = m + n + 1
    nodes = [(a + b) / 2 + (b - a) / 2 * mp.cos(mp.pi * (2 * i + 1) / (2 * k)) for i in range(k)]
    rows = [[x**j for j in range(m + 1)] + [-f(x) * x**j for j in range(1, n + 1)] for x in nodes]
    c = mp.lu_solve(mp.matrix(rows), mp.matrix([f(x) for x in nodes]))
    return [float(c[j]) for j in range(m + 1)], [1.0] + [float(c[m + j]) for j in range(1, n + 1)]


# f64 tan (NOTE: [F64 trig]) on the same interval: tan r = r + r**3 (1/3 +
# s P(s) / Q(s)), s = r**2; P of degree 2, Q of degree 3.
def tan_rest(s):  # ((tan r - r) / r**3 - 1/3) / s, its series near 0
    r = mp.sqrt(s)
    return ((mp.tan(r) - r) / r**3 - mp.mpf(1) / 3) / s if s > mp.mpf(2)**-40 else mp.mpf(2) / 15 + 17 * s / 315


tan_p64, tan_q64 = fit_rational(tan_rest, 0, quarter_pi**2, 2, 3)
err = worst(mp.tan, lambda x: x + x**3 * (mp.mpf(1) / 3 + x * x * horner(tan_p64, x * x) / horner(tan_q64, x * x)),
            mp.mpf(2)**-20, quarter_pi, 4001)
show("P (f64 tan), degree 2", tan_p64, err)
show("Q (f64 tan), degree 3", tan_q64, err)
