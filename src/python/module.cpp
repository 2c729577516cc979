// The module `bcast._bcast`, which the package bcast (bcast/__init__.py)
// re-exports: this file is its table of contents. The ops and prepared calls
// are called by CPython directly (op_functions.cpp, prepared_object.cpp); the
// rest is bound with pybind11 here. docs/python.md is its manual.
#define BCAST_PYTHON_IMPORTS_NUMPY
#include "numpy_api.h"

#include <algorithm>

#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bcast/bcast.h"
#include "fault_injection.h"
#include "function_table.h"
#include "op_functions.h"
#include "operand.h"
#include "prepared_object.h"
#include "python_errors.h"
#include "result_array.h"
#include "stats_json.h"
#include "text_memo.h"

namespace py = pybind11;

namespace bcast::python {
namespace {

py::object evaluate_text(const std::string& text, const py::dict& given, const py::object& out) {
  const NamedOperands named(given.ptr());
  const Expr e = parsed_expression(text, named.expr_operands());  // NOTE: [Text memo]
  // A lower bound of the result's elements, for NOTE: [GIL]: its largest input's.
  std::int64_t numel = 0;
  for (const Operand& o : named.operands()) numel = std::max(numel, o.is_number() ? 1 : o.view().numel());
  PyObject* result = run_call(
      out.is_none() ? nullptr : out.ptr(), numel, [&](const TensorView& o) { evaluate(e, o); },
      [&] { return evaluate(e); });
  return py::reinterpret_steal<py::object>(result);
}

// NOTE: [Reduction table]'s reductions as bcast.sum, bcast.amax, ...: axis
// None, an int or a sequence of ints; dtype None or anything np.dtype takes.
py::object reduce_call(const std::string& name, py::handle x, const py::object& axis, bool keepdims,
                       const py::object& dtype, double ddof) {
  const std::optional<ReduceOp> op = parse_reduce(name);
  if (!op) throw Error(ErrorKind::value, "'" + name + "' is not a reduction");
  // Anything with __index__ is an axis (np.int64 too, as NumPy takes it); else a sequence of them.
  const auto index = [&](PyObject* o) {
    const Py_ssize_t v = PyNumber_AsSsize_t(o, PyExc_OverflowError);
    if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
    if (v < INT32_MIN || v > INT32_MAX)
      throw Error(ErrorKind::value, name + ": axis " + std::to_string(v) + " is out of range");
    return static_cast<int>(v);
  };
  Axes axes;
  if (PyIndex_Check(axis.ptr())) {
    axes = Axes(index(axis.ptr()));
  } else if (!axis.is_none()) {
    std::vector<int> list;
    for (const py::handle a : py::iter(axis)) list.push_back(index(a.ptr()));
    axes = Axes(std::move(list));
  }
  std::optional<DType> d;
  if (!dtype.is_none()) {
    PyArray_Descr* descr = nullptr;
    if (PyArray_DescrConverter(dtype.ptr(), &descr) != NPY_SUCCEED) throw py::error_already_set();
    d = bcast_dtype(descr);
    Py_DECREF(descr);
    if (!d) throw Error(ErrorKind::dtype, name + ": dtype=" + py::str(dtype).cast<std::string>() + " is not one bcast has");
  }
  const Operand in = Operand::array(x.ptr(), "x");
  Tensor result;
  {
    const GilRelease unlocked(in.view().numel());
    result = reduce(*op, in.view(), axes, keepdims, d, ddof);
  }
  return py::reinterpret_steal<py::object>(to_numpy(std::move(result)));
}

py::dict describe_text(const std::string& text, const py::dict& given) {
  const NamedOperands named(given.ptr());
  const ExprInfo info = describe(parse_expression(text, named.expr_operands()));
  std::vector<std::string> in_dtypes;
  for (DType d : info.in_dtypes) in_dtypes.emplace_back(dtype_name(d));
  py::dict d;
  d["structure"] = info.structure;
  d["inputs"] = info.inputs;
  d["in_dtypes"] = in_dtypes;
  d["out_dtype"] = std::string(dtype_name(info.out_dtype));
  d["out_shape"] = py::tuple(py::cast(info.out_shape));
  d["broadcast_type"] = info.broadcast_type;
  d["kernel"] = info.kernel;
  d["passes"] = info.passes;
  return d;
}

// The counters in the shape bcast-run --json and the memory dump give them
// (stats_json.h: one list of fields).
py::object from_json(const nlohmann::json& value) { return py::module_::import("json").attr("loads")(value.dump()); }
py::dict cache_stats() { return from_json(cache_totals_json(kernel_cache_stats())); }
py::list cache_entries() { return from_json(cache_entries_json(kernel_cache_entries())); }

py::list settings() {
  py::list list;
  for (const SettingInfo& s : effective_settings()) {
    py::dict d;
    d["name"] = s.name;
    d["value"] = s.value;
    d["default"] = s.default_value;
    d["accepted"] = s.accepted;
    d["help"] = s.help;
    d["source"] = std::string(setting_source_name(s.source));
    list.append(d);
  }
  return list;
}

template <class T, class Parse>
std::vector<T> parse_names(const std::vector<std::string>& names, Parse parse, const char* what) {
  std::vector<T> parsed;
  for (const std::string& name : names) {
    const auto value = parse(name);
    if (!value) throw Error(ErrorKind::value, std::string("pregenerate: '") + name + "' is not " + what);
    parsed.push_back(*value);
  }
  return parsed;
}

std::size_t pregenerate_names(const std::vector<std::string>& ops, const std::vector<std::string>& dtypes, int max_rank,
                              int threads) {
  const auto op_list = parse_names<Op>(ops, parse_op, "an op");
  const auto dtype_list = parse_names<DType>(dtypes, parse_dtype, "a dtype");
  const py::gil_scoped_release unlocked;
  return pregenerate(op_list, dtype_list, max_rank, threads);
}

py::dict info() {
  const RuntimeInfo r = runtime_info();
  py::dict d;
  d["version"] = r.version;
  d["llvm_version"] = r.llvm_version;
  d["host_cpu"] = r.host_cpu;
  d["host_triple"] = r.host_triple;
  d["stream_min_bytes"] = r.stream_min_bytes;
  d["stream_decision"] = r.stream_decision;
  return d;
}

py::dict ascend_trace() {
  const AscendTrace t = last_ascend_trace();
  py::dict d;
  d["kernel"] = t.kernel;
  d["fallback"] = t.fallback;
  d["product"] = t.product;
  d["tiles"] = t.tiles;
  d["blocks"] = t.blocks.size();
  d["estimated_us"] = t.kernel.empty() ? 0.0 : t.estimated_us();
  return d;
}

void add_functions(py::module_& m) {
  // For the tests: raises bcast's error of a kind, as a call would (the
  // module has no call that can raise every kind).
  m.def("_raise_error", [](const std::string& kind, const std::string& message) {
    for (ErrorKind k : {ErrorKind::shape, ErrorKind::dtype, ErrorKind::index, ErrorKind::value, ErrorKind::io,
                        ErrorKind::memory})
      if (error_kind_name(k) == kind) throw Error(k, message);
    throw Error(ErrorKind::value, "_raise_error: no error kind '" + kind + "'");
  });
  // For the tests of NOTE: [GIL]: holds every background compile at its start
  // until called with false (fault_injection.h), so that a call waiting for
  // one is inside bcast for as long as the test wants.
  m.def("_hold_compiles", [](bool held) { fault::set(fault::Fault::hold_compile, held); }, py::arg("held"));
  m.def("_functions", [] {
    py::list rows;  // NOTE: [Function table]: (name, arity, aliases) per function, for bcast.expr
    for (const detail::FunctionRow& r : detail::all_functions()) {
      const std::vector<std::string_view> names = detail::names_of(r);
      rows.append(py::make_tuple(std::string(r.name), static_cast<int>(r.arity),
                                 py::tuple(py::cast(std::vector<std::string>(names.begin() + 1, names.end())))));
    }
    return rows;
  });
  m.def("_evaluate", &evaluate_text, py::arg("text"), py::arg("operands"), py::arg("out") = py::none());
  m.def("_reduce", &reduce_call, py::arg("name"), py::arg("x"), py::arg("axis"), py::arg("keepdims"), py::arg("dtype"),
        py::arg("ddof") = 0.0);
  m.def("_describe", &describe_text, py::arg("text"), py::arg("operands"));
  m.def("_prepare_op", [](const std::string& op, py::handle a, py::handle b, py::handle out) {
    return py::reinterpret_steal<py::object>(prepare_op(op, a.ptr(), b.ptr(), out.is_none() ? nullptr : out.ptr()));
  }, py::arg("op"), py::arg("a"), py::arg("b"), py::arg("out") = py::none());
  m.def("_prepare_expression", [](const std::string& text, const py::dict& operands) {
    return py::reinterpret_steal<py::object>(prepare_expression(text, operands.ptr()));
  }, py::arg("text"), py::arg("operands"));

  m.def("set_setting", [](const std::string& name, const std::string& value) { set_setting(name, value); },
        py::arg("name"), py::arg("value"), "Sets a BCAST_* setting for this process (the API wins over the environment).");
  m.def("get_setting", [](const std::string& name) { return get_setting(name); }, py::arg("name"),
        "A BCAST_* setting's effective value, as text.");
  m.def("settings", &settings, "Every setting: name, value, default, accepted, help, source.");
  m.def("set_num_threads", &set_num_threads, py::arg("n"), "Threads one call may use; 0: one per hardware thread.");
  m.def("num_threads", &num_threads);
  m.def("last_call_threads", &last_call_threads, "Threads that ran this thread's last call.");
  m.def("set_jit_enabled", &set_jit_enabled, py::arg("enabled"));
  m.def("jit_enabled", &jit_enabled);
  m.def("wait_for_compiles", [] {
    const py::gil_scoped_release unlocked;
    wait_for_compiles();
  }, "Blocks until no background compile is queued or running.");
  m.def("set_kernel_cache_capacity", &set_kernel_cache_capacity, py::arg("kernels"));
  m.def("kernel_cache_capacity", &kernel_cache_capacity);
  m.def("clear_kernel_cache", &clear_kernel_cache, "Drops every kernel and resets the counters.");
  m.def("kernel_cache_stats", &cache_stats, "The in-memory kernel cache's counters.");
  m.def("kernel_cache_entries", &cache_entries, "Per kernel key: its counters.");
  m.def("pregenerate", &pregenerate_names, py::arg("ops"), py::arg("dtypes"), py::arg("max_rank"),
        py::arg("threads") = 0,
        "Compiles (or loads) the kernels of every broadcast type up to max_rank levels; returns how many are ready.");
  m.def("last_ascend_trace", &ascend_trace,
        "What this thread's last op under BCAST_TARGET=ascend-sim did: kernel (empty if it ran on the host), "
        "fallback (why), product, tiles, blocks, estimated_us (docs/ascend.md).");
  m.def("runtime_info", &info, "bcast's and LLVM's versions, the host CPU and triple.");
}

}  // namespace
}  // namespace bcast::python

PYBIND11_MODULE(_bcast, m) {
  using namespace bcast::python;
  if (_import_array() < 0) throw py::error_already_set();
  m.doc() = "bcast's compiled core; use the package bcast.";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const bcast::Error& e) {
      raise(e);
    }
  });
  if (PyModule_AddFunctions(m.ptr(), op_function_table()) < 0) throw py::error_already_set();
  add_prepared_type(m.ptr());
  add_functions(m);
}
