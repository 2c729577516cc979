"""The module's surface: zero copy both ways, DLPack, errors and their
exceptions, prepared calls, settings and the cache, threads, leaks, and the
type stubs against the module."""
import concurrent.futures
import ctypes
import gc
import json
import os
import platform
import resource
import subprocess
import sys
import tracemalloc

import numpy as np
import pytest

import bcast


# ---- Zero copy ----

def test_inputs_are_read_in_place():
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = base[:, ::-2]  # negative strides, a view
    b = np.arange(2, dtype=np.float32)
    c = np.empty((3, 2), np.float32)
    bcast.add(a, b, out=c)
    base[0, 3] = 100  # the element a[0, 0] reads
    bcast.add(a, b, out=c)
    assert c[0, 0] == 100


def test_results_own_bcasts_buffer_through_a_capsule():
    r = bcast.mul(np.ones((4, 5), np.float64), np.ones(5))
    assert type(r.base).__name__ == "PyCapsule" and "bcast.Tensor" in repr(r.base)
    assert r.ctypes.data % 64 == 0  # bcast's alignment, not NumPy's
    assert r.flags.writeable and not r.flags.owndata
    view = r[1:]
    del r
    gc.collect()
    assert (view == 1).all()  # the buffer lives as long as a view of it


def test_fortran_inputs_give_a_fortran_result():
    a = np.asfortranarray(np.ones((3, 4), np.float32))
    assert bcast.add(a, a).flags.f_contiguous  # NumPy's order='K'


def test_a_0d_result_is_a_numpy_scalar():
    r = bcast.add(np.float32(2), np.float32(3))
    assert isinstance(r, np.float32) and r == 5
    assert isinstance(bcast.add(2, 3), np.int64)


class DLPackOnly:
    """A producer that offers nothing but DLPack, as a PyTorch tensor does."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, stream=None):
        return self.array.__dlpack__()

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


class InterfaceOnly:
    def __init__(self, array):
        self.__array_interface__ = array.__array_interface__
        self.keep = array


def test_dlpack_tensors_come_in_without_a_copy():
    base = np.arange(6, dtype=np.float32).reshape(2, 3)
    a = base[:, ::-1]
    out = np.zeros((2, 3), np.float32)
    bcast.add(DLPackOnly(a), DLPackOnly(np.ones(3, np.float32)), out=DLPackOnly(out))
    assert (out == a + 1).all()  # written through the DLPack view of out's memory
    base[0, 0] = 50
    assert bcast.add(DLPackOnly(a), 0.0)[0, 2] == 50


def test_results_leave_through_dlpack_without_a_copy():
    r = bcast.add(np.ones(4, np.int32), np.ones(4, np.int32))
    back = np.from_dlpack(r)
    assert back.ctypes.data == r.ctypes.data and (back == 2).all()


def test_array_interface_objects_are_operands():
    a = np.arange(4, dtype=np.int16)
    out = np.zeros(4, np.int16)
    bcast.add(InterfaceOnly(a), a, out=InterfaceOnly(out))
    assert (out == 2 * a).all()


def test_read_only_inputs_misaligned_and_byte_swapped_ones():
    a = np.arange(5, dtype=np.float64)
    a.flags.writeable = False
    swapped = np.arange(5, dtype=">f8")
    raw = np.zeros(5 * 8 + 1, np.uint8)[1:].view(np.float64)  # misaligned
    raw[:] = 1
    assert (bcast.add(a, swapped) == 2 * np.arange(5)).all()
    assert (bcast.add(raw, a) == a + 1).all()


# ---- Errors: each kind its exception, the message intact, out untouched ----

@pytest.mark.parametrize("call, exception, kind, words", [
    (lambda out: bcast.add(np.ones((2, 3)), np.ones(4), out=out), ValueError, "shape",
     "add: shapes [2, 3] and [4] do not broadcast"),
    (lambda out: bcast.pow(np.ones(3, np.int32), np.ones(3, np.int32), out=out), TypeError, "dtype", "pow"),
    (lambda out: bcast.evaluate("x[5]", x=np.ones(3), out=out), ValueError, "value", "position"),
    (lambda out: bcast.add(np.ones(3, np.uint8), 300, out=out), ValueError, "value", "add: 300 does not fit u8"),
    (lambda out: bcast.add(np.ones(3), np.ones(3), out=np.ones(3)[::-1][::-1].reshape(3)[:1]), ValueError,
     "shape", "out"),
    (lambda out: bcast.set_setting("BCAST_OPT_LEVEL", "7"), ValueError, "value", "BCAST_OPT_LEVEL"),
    (lambda out: bcast.add(np.ones(3, "M8[s]"), np.ones(3), out=out), TypeError, "dtype", "datetime64"),
])
def test_each_error_kind_is_its_exception_and_out_is_untouched(call, exception, kind, words):
    out = np.full(3, 7.0)
    with pytest.raises(exception) as info:
        call(out)
    assert words in str(info.value)
    if hasattr(info.value, "kind"):
        assert info.value.kind == kind
    assert (out == 7.0).all()


# Messages in the caller's words: the function called and the number as
# written, not the one-node expression 'a+b' a call with a number runs as; a
# Python int is a Python int, not an i64 operand. The whole message, exactly.
@pytest.mark.parametrize("call, exception, message", [
    (lambda: bcast.add(np.zeros(3, np.uint8), 300), ValueError,
     "add: 300 does not fit u8 (a Python int takes the other operand's dtype, as in NumPy 2; to compute in u16, "
     "make either operand u16)"),
    (lambda: bcast.sub(-1, np.zeros(3, np.uint8)), ValueError,
     "sub: -1 does not fit u8 (a Python int takes the other operand's dtype, as in NumPy 2; to compute in i16, "
     "make either operand i16)"),
    (lambda: bcast.add(np.zeros(3, np.uint64), 2**63), ValueError,
     "b: the Python integer 9223372036854775808 does not fit i64"),
    (lambda: bcast.evaluate("x + n", x=np.zeros(3, np.uint8), n=300), ValueError,
     "expression 'x+n': n = 300 does not fit u8 (a Python int takes the other operand's dtype, as in NumPy 2; to "
     "compute in u16, make either operand u16)"),
    (lambda: bcast.evaluate("log1p_(x)", x=np.ones(3)), ValueError,
     "expression \"log1p_(x)\": at position 0: unknown function 'log1p_' (did you mean log1p, log10 or log?); every function is in "
     "docs/semantics.md#expressions"),
    (lambda: bcast.evaluate("x << 2.5", x=np.arange(3, dtype=np.int32)), TypeError,
     "expression 'x<<2.5': left_shift is not defined for dtype f64 (operands i32 and the Python float 2.5)"),
    (lambda: bcast.gcd(np.arange(3, dtype=np.float32), 2), TypeError,
     "gcd: not defined for dtype f32 (operands f32 and the Python int 2)"),
    (lambda: bcast.mul(np.ones(2, np.float32), np.ones(2, np.int32), out=np.ones(2, np.float32)), TypeError,
     "mul: out has dtype f32 but the result is f64"),
])
def test_messages_name_what_the_caller_wrote(call, exception, message):
    with pytest.raises(exception) as info:
        call()
    assert str(info.value) == message


def test_index_and_memory_errors():
    # No call of the module indexes (NumPy does its own): the table's index
    # row is checked through the hook that raises a bcast error of a kind.
    with pytest.raises(IndexError) as info:
        bcast._bcast._raise_error("index", "index 5 is out of range for axis 0 with extent 3")
    assert info.value.kind == "index" and str(info.value) == "index 5 is out of range for axis 0 with extent 3"
    for kind, exception in [("shape", ValueError), ("dtype", TypeError), ("value", ValueError),
                            ("memory", MemoryError), ("io", OSError)]:
        with pytest.raises(exception):
            bcast._bcast._raise_error(kind, "m")
    with pytest.raises(MemoryError) as info:
        bcast.add(np.lib.stride_tricks.as_strided(np.ones(1), shape=(1 << 40,), strides=(0,)), 1.0)
    assert info.value.kind == "memory"
    p = bcast.prepare("add", np.ones(3), np.ones(3))
    with pytest.raises(ValueError) as info:
        p(np.ones(4), np.ones(4))
    assert "prepared for" in str(info.value)


def test_read_only_out_is_refused():
    out = np.zeros(3)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="out: the array is read-only"):
        bcast.add(np.ones(3), np.ones(3), out=out)


# ---- The same text again (NOTE: [Text memo]) ----

LAYER_NORM = ("(r - mean(r, axis=-1, keepdims=True)) / sqrt(mean((r - mean(r, axis=-1, keepdims=True))**2, "
              "axis=-1, keepdims=True) + 1e-5) * g + b")


def numpy_layer_norm(r, g, b):
    c = r - r.mean(axis=-1, keepdims=True, dtype=np.float32)
    return c / np.sqrt((c * c).mean(axis=-1, keepdims=True, dtype=np.float32) + np.float32(1e-5)) * g + b


@pytest.mark.parametrize("text", [LAYER_NORM, "r * g + b", "sum(r * g)"])
def test_the_same_text_reads_each_calls_arrays(text):
    rng = np.random.default_rng(30)
    r, g, b = (rng.standard_normal(s).astype(np.float32) for s in ((8, 64), 64, 64))
    want = {LAYER_NORM: numpy_layer_norm, "r * g + b": lambda r, g, b: r * g + b,
            "sum(r * g)": lambda r, g, b: (r * g).sum(dtype=np.float64)}[text]
    results = []
    for call in range(4):
        r[...] = rng.standard_normal(r.shape)  # rewritten in place: the same array, new values
        results.append((bcast.evaluate(text, r=r, g=g, b=b), want(r, g, b)))
    ints = r.view(np.int32)  # another dtype at the same place, then the same layout elsewhere
    results.append((bcast.evaluate(text, r=ints, g=g, b=b), want(ints, g, b)))
    other = r.copy() * 3
    results.append((bcast.evaluate(text, r=other, g=g, b=b), want(other, g, b)))
    results.append((bcast.evaluate(text, r=r, g=g, b=2.0), want(r, g, 2.0)))  # an array then a number
    for k, (got, expected) in enumerate(results):
        np.testing.assert_allclose(got, expected, rtol=2e-5, atol=2e-5, err_msg=f"call {k}")
    assert results[0][0] is not results[1][0] and not np.array_equal(results[0][0], results[1][0])


# ---- Prepared calls and expressions ----

def test_prepared_op_takes_new_data_and_checks_layouts():
    a, b = np.ones((3, 4), np.float32), np.arange(4, dtype=np.float32)
    p = bcast.prepare("sub", a, b)
    assert p.inputs == ("a", "b") and p.out_shape == (3, 4) and p.out_dtype == np.float32
    c = np.empty((3, 4), np.float32)
    assert p(a * 2, b, out=c) is c and (c == 2 - b).all()
    assert (p(a, b) == a - b).all()
    assert (p(b=b, a=a) == a - b).all()
    with pytest.raises(TypeError, match="'c'"):
        p(a, b, c=c)


def test_prepared_expression_by_name_and_position():
    x, m, s = np.arange(6.0).reshape(2, 3), np.ones(3), np.full(3, 2.0)
    q = bcast.prepare("(x - m) / s + 1", x=x, m=m, s=s)
    assert q.inputs == ("x", "m", "s")
    assert (q(x=x + 1, m=m, s=s) == (x + 1 - m) / s + 1).all()
    assert (q(x, m, s) == (x - m) / s + 1).all()
    # Two names bound to one array stay two inputs.
    r = bcast.prepare("x * y", x=x, y=x)
    assert r.inputs == ("x", "y") and (r(x, x + 1) == x * (x + 1)).all()


def test_expr_objects_bind_arrays_and_vars():
    img = np.arange(24, dtype=np.uint8).reshape(2, 3, 4)
    mean, std = np.float32(3.5), np.float32(2)
    x = bcast.var("x")
    e = (x.astype("f32") - np.array(mean)) / np.array(std)
    assert (bcast.evaluate(e, x=img) == (img.astype(np.float32) - mean) / std).all()
    with pytest.raises(TypeError):
        bool(x > 1)
    info = bcast.describe(e, x=img)
    assert info["out_dtype"] == "f32" and info["out_shape"] == (2, 3, 4)


# ---- Settings, the cache, pregenerate ----

def test_settings_cache_statistics_and_pregenerate(restore_settings):
    names = {s["name"] for s in bcast.settings()}
    assert "BCAST_OPT_LEVEL" in names
    bcast.set_setting("BCAST_OPT_LEVEL", "1")
    assert bcast.get_setting("BCAST_OPT_LEVEL") == "1"
    bcast.clear_kernel_cache()
    # Rank 1 has 3 broadcast types (and, on x86-64, streaming twins).
    assert bcast.pregenerate(["add"], ["f32"], 1) >= 3
    stats = bcast.kernel_cache_stats()
    assert stats["compiles"] + stats["disk_hits"] >= 1
    assert all(e["key"] for e in bcast.kernel_cache_entries())
    with pytest.raises(ValueError, match="'nope' is not an op"):
        bcast.pregenerate(["nope"], ["f32"], 1)
    bcast.set_num_threads(1)
    assert bcast.num_threads() == 1
    assert bcast.runtime_info()["version"] == bcast.__version__


def test_describe_starts_the_compile_but_runs_no_call_on_the_fallback(restore_settings):
    # async: describe finds the kernel pending; it ran no call, so it counts
    # no fallback (bcast.dask.warm describes every chunk, then the tasks run).
    bcast.set_setting("BCAST_JIT_MODE", "async")
    bcast.set_setting("BCAST_CACHE_DIR", "off")
    bcast.clear_kernel_cache()
    x = np.ones((3, 5), np.int16)
    info = bcast.describe("x * 7 - 3", x=x)
    assert info["kernel"] != "reference"
    bcast.wait_for_compiles()
    stats = bcast.kernel_cache_stats()
    assert stats["compiles"] >= 1 and stats["fallback_calls"] == 0, stats
    assert (bcast.evaluate("x * 7 - 3", x=x) == 4).all()
    stats = bcast.kernel_cache_stats()
    assert stats["fallback_calls"] == 0 and stats["hits"] >= 1, stats


# ---- Threads ----

def test_calls_from_many_python_threads_at_once():
    rng = np.random.default_rng(7)
    cases = [(rng.standard_normal((64, 257)).astype(np.float32), rng.standard_normal(257).astype(np.float32))
             for _ in range(16)]
    p = bcast.prepare("mul", cases[0][0], cases[0][1])

    def work(i):
        a, b = cases[i % len(cases)]
        for _ in range(20):
            assert (bcast.add(a, b) == a + b).all()
            assert (p(a, b) == a * b).all()
            assert (bcast.evaluate("max(a - b, 0)", a=a, b=b) == np.maximum(a - b, 0)).all()
        return i

    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        assert sorted(pool.map(work, range(32))) == list(range(32))


def test_large_calls_let_go_of_the_gil(restore_settings):
    """A large call waits, inside bcast, for a compile that only another
    Python thread releases: it returns only if it let go of the GIL. The
    switch interval is made so long that the interpreter never hands the GIL
    over by itself, so the other thread runs while `inside` is set only if
    the call let go of it (a call that kept it would wait for ever, which
    ctest reports when its timeout ends the test)."""
    import sys
    import threading
    x = np.ones(1 << 16, np.float32)  # over kGilFreeElements (4,096)
    text = "x * 3 + 1"
    bcast.set_setting("BCAST_CACHE_DIR", "off")
    bcast.clear_kernel_cache()
    bcast.set_setting("BCAST_JIT_MODE", "async")
    bcast._bcast._hold_compiles(True)
    interval = sys.getswitchinterval()
    inside, seen = [False], []
    go = threading.Event()

    def release():
        go.wait()
        seen.append(inside[0])  # this thread holds the GIL: the call let go of it
        bcast._bcast._hold_compiles(False)

    t = threading.Thread(target=release)
    try:
        bcast.describe(text, x=x)  # the kernel's compile, queued and held
        bcast.set_setting("BCAST_JIT_MODE", "sync")  # a call waits for it
        sys.setswitchinterval(1e6)
        t.start()
        inside[0] = True
        go.set()
        result = bcast.evaluate(text, x=x)
        inside[0] = False
        t.join()
    finally:
        sys.setswitchinterval(interval)
        bcast._bcast._hold_compiles(False)
    assert seen == [True]
    assert (result == 4).all()
    assert bcast.kernel_cache_stats()["fallback_calls"] == 0  # it ran on the compiled kernel


# ---- Leaks ----

def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def live_kib():
    """The process's memory in use, in KiB: RSS, or under ASan (the sanitizer
    builds preload its runtime) the bytes its allocator has handed out and
    not had back, since freed blocks wait in ASan's quarantine (256 MiB) and
    grow RSS with no leak at all."""
    try:
        allocated = ctypes.CDLL(None).__sanitizer_get_current_allocated_bytes
    except AttributeError:
        return rss_kib()
    allocated.restype = ctypes.c_size_t
    return allocated() // 1024


def test_many_calls_do_not_grow_memory():
    a, b = np.ones((8, 16), np.float32), np.ones(16, np.float32)
    out = np.empty((8, 16), np.float32)
    p = bcast.prepare("add", a, b)

    def round_of_calls(n):
        for _ in range(n):
            bcast.add(a, b)
            bcast.add(a, 2.5)
            p(a, b, out=out)
            bcast.evaluate("x * 2 - y", x=a, y=b)
            try:
                bcast.add(a, np.ones(3, np.float32))
            except ValueError:
                pass

    round_of_calls(2000)
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    round_of_calls(2000)
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    grown = sum(s.size_diff for s in after.compare_to(before, "filename"))
    assert grown < 64 * 1024, f"Python allocations grew by {grown} bytes over 10,000 calls"
    start = live_kib()
    round_of_calls(20000)  # 100,000 calls
    assert live_kib() - start < 8 * 1024, "memory in use grew by more than 8 MiB over 100,000 calls"


# ---- NOTE: [Python call memo] ----

def test_repeated_plain_calls_run_prepared_and_stay_right():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((5, 7)).astype(np.float32)
    b = rng.standard_normal(7).astype(np.float32)
    other = rng.standard_normal((2, 7)).astype(np.float32)
    out = np.empty((5, 7), np.float32)
    for i in range(6):  # same layouts, new data: the memo's path from the third call
        x = a + i
        assert (bcast.sub(x, b) == x - b).all()
        assert bcast.sub(x, b, out=out) is out and (out == x - b).all()
        assert (bcast.sub(other, b) == other - b).all()  # another layout in between
        assert (bcast.sub(x, b) == x - b).all()
    x = a.copy()
    for _ in range(3):  # in place, out being an input exactly
        want = x * 2
        bcast.add(x, x, out=x)
        assert (x == want).all()
    base = np.zeros(12, np.float32)
    for _ in range(3):  # out overlapping an input otherwise is refused, memo or not
        with pytest.raises(ValueError, match="overlaps"):
            bcast.add(base[:7], base[:7], out=base[5:12])


def test_a_setting_change_ends_the_memo_so_verbose_lines_name_the_plain_api(restore_settings, tmp_path):
    a, b = np.ones((3, 4), np.float32), np.ones(4, np.float32)
    for _ in range(3):
        bcast.add(a, b)  # memoised as a prepared call by now
    log = tmp_path / "stderr"
    with open(log, "w") as f:
        saved = os.dup(2)
        os.dup2(f.fileno(), 2)
        try:
            bcast.set_setting("BCAST_VERBOSE", "1")
            bcast.add(a, b)
            bcast.add(a, b)
        finally:
            bcast.set_setting("BCAST_VERBOSE", "0")
            os.dup2(saved, 2)
            os.close(saved)
    lines = [line for line in log.read_text().splitlines() if line.startswith("bcast_verbose;exec;")]
    assert len(lines) == 2 and all(line.split(";")[2] == "op" for line in lines), lines


# ---- Import ----

def test_import_without_numpy_is_one_line_naming_the_interpreter_and_the_package():
    # A child for which `import numpy` raises ImportError (None in
    # sys.modules does that), as in an interpreter without NumPy.
    child = """import json, sys
sys.modules["numpy"] = None
try:
    import bcast
except ImportError as e:
    print(json.dumps({"cause": type(e.__cause__).__name__, "extension_loaded": "bcast._bcast" in sys.modules}))
    raise
"""
    run = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=60)
    assert run.returncode == 1, run.stderr
    expected = (f"ImportError: bcast needs NumPy, which {sys.executable} (Python {platform.python_version()}) "
                f"cannot import: install it ({sys.executable} -m pip install numpy, or Debian's python3-numpy "
                "for /usr/bin/python3)")
    assert run.stderr.strip().splitlines()[-1] == expected, run.stderr
    assert "initialization failed" not in run.stderr
    # NumPy's own error stays chained; the extension was never loaded.
    assert json.loads(run.stdout) == {"cause": "ModuleNotFoundError", "extension_loaded": False}


def test_numpy_scalars_are_strong_and_python_numbers_weak():
    """NEP 50: np.float64(2.5) is an f64 operand (np.float64 subclasses float,
    yet NumPy 2 promotes it as an array); Python's 2.5 takes the array's dtype."""
    x = np.arange(3, dtype=np.float32)
    assert bcast.add(x, np.float64(2.5)).dtype == np.float64
    assert np.asarray(bcast.evaluate("x + s", x=x, s=np.float64(2.5))).dtype == np.float64
    assert np.asarray(bcast.evaluate("x + s", x=x, s=2.5)).dtype == np.float32
    assert np.asarray(bcast.evaluate(bcast.var("x") * np.float64(2), x=x)).dtype == np.float64
    assert np.asarray(bcast.evaluate(bcast.var("x") * 2.0, x=x)).dtype == np.float32
    assert np.asarray(bcast.evaluate("x * n", x=x.astype(np.int8), n=np.int64(3))).dtype == np.int64
    assert np.asarray(bcast.evaluate("x * n", x=x.astype(np.int8), n=3)).dtype == np.int8


@pytest.mark.parametrize("text, want", [("cos(1+1)", np.cos(np.float64(2))), ("7 < 5", np.False_),
                                        ("1 + 2.5", np.float64(3.5)), ("2 ** 10 % 7", np.int64(2 ** 10 % 7)),
                                        ("arctan2(1, 2)", np.arctan2(np.float64(1), np.float64(2)))])
def test_an_expression_of_scalars_alone_is_a_0d_array(text, want):
    """As numexpr and NumPy: Python's arithmetic on the numbers, a 0-d result."""
    got = np.asarray(bcast.evaluate(text))
    assert got.shape == () and got.dtype == np.asarray(want).dtype, (text, got)
    close = got == want or (got.dtype.kind == "f" and abs(got - want) <= 2 * np.spacing(abs(want)))  # 2 ULP (arctan2)
    assert close, (text, got, want)
