// Which vector math should bcast's JIT kernels call?  Speed and accuracy of
// scalar glibc libm, glibc libmvec (AVX-512) and SLEEF 3.5 (AVX-512, u10 and
// u35) on 4 Mi elements of f32 and f64, next to a copy of the same bytes.
//
// Build and run (from the repository root; needs libc6-dev, libsleef3):
//   g++ -std=c++20 -O2 -mavx512f -mavx512dq -mfma bench/vector_math/vector_math_choice.cpp -o /tmp/vmc -ldl -lm && /tmp/vmc bench/vector_math/numpy_side.py
//
// Standalone: no bcast code.  Both vector libraries export the same GNU
// vector-ABI names (_ZGVeN16v_expf, ...), so they are dlopen'ed RTLD_LOCAL
// and each name is looked up in one library's handle; linking both would
// silently bind every name to whichever comes first.  The last argument, if
// given, is numpy_side.py: it is run here (same machine, same moment, same
// inputs) and its figures join the table.
#include <immintrin.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

constexpr std::size_t N = std::size_t{1} << 22;
constexpr int REPS = 7;  // timed runs per column per round

// Inputs: a Weyl sequence frac(i*phi) mapped onto the domain.  Well spread,
// not ordered, and computed with the same IEEE double operations in
// numpy_side.py, so NumPy sees the same inputs.
static double weyl(std::size_t i, double step) {
    return std::fmod(double(i) * step, 1.0);
}
constexpr double PHI = 0.6180339887498949;   // first argument
constexpr double SQ2 = 0.41421356237309515;  // second argument

struct Dom { double lo, hi; bool logu; };  // logu: log-uniform on [lo,hi]

template <class T> static std::vector<T> make_input(Dom d, double step) {
    std::vector<T> v(N);
    for (std::size_t i = 0; i < N; ++i) {
        double u = weyl(i, step);
        v[i] = d.logu ? T(std::exp(std::log(d.lo) + (std::log(d.hi) - std::log(d.lo)) * u))
                      : T(d.lo + (d.hi - d.lo) * u);
    }
    return v;
}

struct Case {
    const char* key;     // also numpy_side.py's key
    const char* name;    // the scalar libm name of the f64 version
    int arity;
    Dom a, b;            // b used when arity == 2
    Dom a32;             // f32 domain of a (differs where f32 would overflow)
    bool u35;            // SLEEF has a _u35 variant
};

static const Case CASES[] = {
    {"exp",      "exp",   1, {-700, 700, false}, {}, {-87, 88, false}, false},
    {"log",      "log",   1, {1e-300, 1e300, true}, {}, {1e-30, 1e30, true}, true},
    {"sin",      "sin",   1, {-10, 10, false}, {}, {-10, 10, false}, true},
    {"sin1000",  "sin",   1, {-1000, 1000, false}, {}, {-1000, 1000, false}, true},
    {"cos",      "cos",   1, {-10, 10, false}, {}, {-10, 10, false}, true},
    {"cos1000",  "cos",   1, {-1000, 1000, false}, {}, {-1000, 1000, false}, true},
    {"tanh",     "tanh",  1, {-10, 10, false}, {}, {-10, 10, false}, true},
    {"expm1",    "expm1", 1, {-5, 5, false}, {}, {-5, 5, false}, false},
    {"log1p",    "log1p", 1, {-0.99, 10, false}, {}, {-0.99, 10, false}, false},
    {"atan2",    "atan2", 2, {-10, 10, false}, {-10, 10, false}, {-10, 10, false}, true},
    {"pow",      "pow",   2, {0.01, 100, false}, {-10, 10, false}, {0.01, 100, false}, false},
    {"sinh",     "sinh",  1, {-20, 20, false}, {}, {-20, 20, false}, true},
    {"arcsin",   "asin",  1, {-1, 1, false}, {}, {-1, 1, false}, true},
};

// ---- the reference: long double libm for f64, double libm for f32 ----------
// (glibc's double functions are within 1 ulp of double, i.e. 2^-29 of a float
// ulp; its long double ones give 11 bits beyond double.)
template <class R> static R ref(const std::string& f, R x, R y) {
    using std::exp, std::log, std::sin, std::cos, std::tanh, std::expm1, std::log1p,
        std::sinh, std::asin, std::atan2, std::pow;  // overloads for double and long double
    if (f == "exp") return exp(x);
    if (f == "log") return log(x);
    if (f == "sin") return sin(x);
    if (f == "cos") return cos(x);
    if (f == "tanh") return tanh(x);
    if (f == "expm1") return expm1(x);
    if (f == "log1p") return log1p(x);
    if (f == "sinh") return sinh(x);
    if (f == "asin") return asin(x);
    if (f == "atan2") return atan2(x, y);
    if (f == "pow") return pow(x, y);
    std::abort();
}

// Error in units of T's last place at the reference value (so a result that
// rounded up to the next power of two is not measured in its larger ulp).
// Non-finite disagreements are counted, not measured.
template <class T> struct Ulp {
    double max = 0;
    long bad = 0;
    void add(T got, long double ref) {
        if (std::isnan(ref) || std::isinf(ref)) {
            if (!(std::isnan(ref) ? std::isnan(got) : got == T(ref))) ++bad;
            return;
        }
        if (!std::isfinite(got)) { ++bad; return; }
        constexpr int p = std::numeric_limits<T>::digits;               // 24 or 53
        constexpr int emin = std::numeric_limits<T>::min_exponent - p;  // -149 / -1074
        int e = 0;
        if (ref != 0) frexpl(ref, &e);                                   // ref = m*2^e, m in [.5,1)
        long double ulp = ldexpl(1.0L, std::max(e - p, emin));
        max = std::max(max, double(fabsl((long double)got - ref) / ulp));
    }
};

// ---- the implementations ---------------------------------------------------
template <class T> using S1 = T (*)(T);
template <class T> using S2 = T (*)(T, T);
using V16 = __m512 (*)(__m512);
using V16x2 = __m512 (*)(__m512, __m512);
using V8 = __m512d (*)(__m512d);
using V8x2 = __m512d (*)(__m512d, __m512d);

static void* lib_mvec;
static void* lib_sleef;

static void* sym(void* lib, const std::string& n) {
    void* p = dlsym(lib, n.c_str());
    if (!p) { std::fprintf(stderr, "missing %s\n", n.c_str()); std::exit(1); }
    return p;
}

// GNU vector-ABI name: _ZGV e(AVX-512) N(unmasked) 16|8 v|vv <name>[f]
template <class T> static std::string vabi(const Case& c, const char* suffix = "") {
    bool f = sizeof(T) == 4;
    return std::string("_ZGVe") + "N" + (f ? "16" : "8") + (c.arity == 2 ? "vv_" : "v_") +
           c.name + (f ? "f" : "") + suffix;
}

// One call per vector of lanes, as a JIT kernel would make it.
template <class T> static void run_vec(void* fn, int arity, const T* a, const T* b, T* out) {
    if constexpr (sizeof(T) == 4) {
        for (std::size_t i = 0; i < N; i += 16) {
            __m512 x = _mm512_loadu_ps(a + i);
            __m512 r = arity == 1 ? V16(fn)(x) : V16x2(fn)(x, _mm512_loadu_ps(b + i));
            _mm512_storeu_ps(out + i, r);
        }
    } else {
        for (std::size_t i = 0; i < N; i += 8) {
            __m512d x = _mm512_loadu_pd(a + i);
            __m512d r = arity == 1 ? V8(fn)(x) : V8x2(fn)(x, _mm512_loadu_pd(b + i));
            _mm512_storeu_pd(out + i, r);
        }
    }
}

template <class T> static void run_scalar(void* fn, int arity, const T* a, const T* b, T* out) {
    if (arity == 1) { auto f = S1<T>(fn); for (std::size_t i = 0; i < N; ++i) out[i] = f(a[i]); }
    else { auto f = S2<T>(fn); for (std::size_t i = 0; i < N; ++i) out[i] = f(a[i], b[i]); }
}

// The memory bound: the same loads and stores as the kernels, no math.  Not
// glibc memcpy: at 16-32 MiB it switches to non-temporal stores, which no
// compute loop above gets.
template <class T> static void run_copy(void*, int arity, const T* a, const T* b, T* out) {
    for (std::size_t i = 0; i < N; i += 64 / sizeof(T)) {
        __m512i x = _mm512_loadu_si512(a + i);
        if (arity == 2) x = _mm512_xor_si512(x, _mm512_loadu_si512(b + i));  // read b too
        _mm512_storeu_si512(out + i, x);
    }
}

using Runner = void (*)(void*, int, const void*, const void*, void*);

// Columns of the table.  Each round times every column REPS times, the
// columns interleaved so that load from elsewhere on the machine falls on all
// of them alike; a cell's time is the median over ROUNDS of each round's median.
enum Col { COPY, LIBM, MVEC, SLEEF10, SLEEF35, NUMPY, NCOL };
constexpr int ROUNDS = 3;

struct Row {
    std::string label;                 // the first three table cells
    std::vector<double> ms[NCOL];      // one median per round
    double ulp[NCOL] = {-1, -1, -1, -1, -1, -1};
    long bad[NCOL] = {};
};

static double median(std::vector<double> v) {
    if (v.empty()) return -1;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

static std::string dom(Dom d) {
    char s[64];
    std::snprintf(s, sizeof s, d.logu ? "[%.0e,%.0e] log" : "[%g,%g]", d.lo, d.hi);
    return s;
}

template <class T> static void one_case(const Case& c, int round, Row& row) {
    bool f32 = sizeof(T) == 4;
    Dom da = f32 ? c.a32 : c.a;
    std::vector<T> a = make_input<T>(da, PHI), b = c.arity == 2 ? make_input<T>(c.b, SQ2) : a;
    std::vector<T> out(N, T(0));
    row.label = std::string(c.key) + " | " + (f32 ? "f32" : "f64") + " | " + dom(da) +
                (c.arity == 2 ? " × " + dom(c.b) : "");

    auto R = [](auto p) { return reinterpret_cast<Runner>(p); };
    std::string scal = std::string(c.name) + (f32 ? "f" : "");
    struct Impl { Col col; Runner run; void* fn; };
    std::vector<Impl> impls = {
        {COPY, R(&run_copy<T>), nullptr},
        {LIBM, R(&run_scalar<T>), sym(RTLD_DEFAULT, scal)},
        {MVEC, R(&run_vec<T>), sym(lib_mvec, vabi<T>(c))},
        {SLEEF10, R(&run_vec<T>), sym(lib_sleef, vabi<T>(c))},
    };
    if (c.u35) impls.push_back({SLEEF35, R(&run_vec<T>), sym(lib_sleef, vabi<T>(c, "_u35"))});
    auto call = [&](const Impl& m) { m.run(m.fn, c.arity, a.data(), b.data(), out.data()); };

    if (round == 0) {  // accuracy: deterministic, so measured once
        std::vector<long double> ref(N);
        for (std::size_t i = 0; i < N; ++i)
            ref[i] = f32 ? (long double)::ref<double>(c.name, a[i], b[i])
                         : ::ref<long double>(c.name, a[i], b[i]);
        for (const Impl& m : impls) {
            if (!m.fn) continue;
            call(m);
            Ulp<T> u;
            for (std::size_t i = 0; i < N; ++i) u.add(out[i], ref[i]);
            row.ulp[m.col] = u.max;
            row.bad[m.col] = u.bad;
        }
    }

    for (const Impl& m : impls) call(m);  // warm: page faults, lazy binding
    std::vector<double> t[NCOL];
    for (int r = 0; r < REPS; ++r)
        for (const Impl& m : impls) {
            auto s = std::chrono::steady_clock::now();
            call(m);
            t[m.col].push_back(
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s).count());
        }
    for (const Impl& m : impls) row.ms[m.col].push_back(median(t[m.col]));
}

static std::string cell(const Row& r, int col) {
    double ms = median(r.ms[col]);
    if (ms < 0) return "—";
    char s[96];
    int n = std::snprintf(s, sizeof s, "%.2f · %.2f", ms, N / (ms * 1e6));
    if (r.ulp[col] >= 0) n += std::snprintf(s + n, sizeof s - n, " · %.2f", r.ulp[col]);
    if (r.bad[col]) std::snprintf(s + n, sizeof s - n, " (%ld non-finite wrong)", r.bad[col]);
    return s;
}

// numpy_side.py prints "<key>/<f32|f64> <ms> <ulp>" per case.
static void numpy_round(const char* script, std::map<std::string, Row*>& by_key) {
    std::string cmd = std::string("/usr/bin/python3 ") + script;
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return;
    char key[64];
    double ms, ulp;
    while (std::fscanf(p, "%63s %lf %lf", key, &ms, &ulp) == 3)
        if (by_key.count(key)) {
            by_key[key]->ms[NUMPY].push_back(ms);
            by_key[key]->ulp[NUMPY] = ulp;
        }
    pclose(p);
}

int main(int argc, char** argv) {
    lib_mvec = dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL);
    lib_sleef = dlopen("libsleefgnuabi.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!lib_mvec || !lib_sleef) { std::fprintf(stderr, "dlopen: %s\n", dlerror()); return 1; }

    constexpr std::size_t NC = std::size(CASES);
    std::vector<Row> rows(2 * NC);  // f32 cases, then f64
    std::map<std::string, Row*> by_key;
    for (std::size_t i = 0; i < NC; ++i) {
        by_key[std::string(CASES[i].key) + "/f32"] = &rows[i];
        by_key[std::string(CASES[i].key) + "/f64"] = &rows[NC + i];
    }
    for (int round = 0; round < ROUNDS; ++round) {
        if (argc > 1) numpy_round(argv[1], by_key);
        for (std::size_t i = 0; i < NC; ++i) one_case<float>(CASES[i], round, rows[i]);
        for (std::size_t i = 0; i < NC; ++i) one_case<double>(CASES[i], round, rows[NC + i]);
        std::fprintf(stderr, "round %d done\n", round + 1);
    }

    std::printf("N = %zu elements, one thread; time = median over %d rounds of the median of %d runs;\n"
                "cells: ms · elements/ns · max ULP over the N inputs\n\n", N, ROUNDS, REPS);
    std::printf("| fn | type | domain | copy | libm scalar | libmvec AVX-512 | SLEEF u10 AVX-512 "
                "| SLEEF u35 AVX-512 | NumPy 1.24 |\n|---|---|---|---|---|---|---|---|---|\n");
    std::vector<double> spread;  // (max - min) / median of a cell's round medians
    for (const Row& r : rows) {
        std::printf("| %s |", r.label.c_str());
        for (int col = 0; col < NCOL; ++col) {
            std::printf(" %s |", cell(r, col).c_str());
            if (r.ms[col].size() > 1) {
                auto [lo, hi] = std::minmax_element(r.ms[col].begin(), r.ms[col].end());
                spread.push_back((*hi - *lo) / median(r.ms[col]));
            }
        }
        std::printf("\n");
    }
    std::sort(spread.begin(), spread.end());
    if (!spread.empty())
        std::printf("\nround-to-round spread of a cell ((max-min)/median): median %.0f%%, 90th percentile "
                    "%.0f%%, worst %.0f%%\n", 100 * spread[spread.size() / 2],
                    100 * spread[spread.size() * 9 / 10], 100 * spread.back());
}
