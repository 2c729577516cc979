// The Ascend C writer: the LLVM emitter's kernel (jit/emit/ascend_emitter.cpp),
// step for step, as source text. Both walk the same lowering and the same
// tiling data; the call-by-call test keeps them in step.
#include "ascend_c_writer.h"

#include <algorithm>

#include <fmt/format.h>

#include "ascend_abi.h"
#include "ascend_c_values.h"
#include "ascend_lowering.h"
#include "expr_kernel.h"

namespace bcast::ascend {
namespace {

std::string round_name(RoundMode m) { return "RoundMode::" + std::string(round_mode_name(m)); }

class Writer {
 public:
  Writer(const KernelKey& key, const Product& product, AscendCForm form)
      : key_(key),
        product_(product),
        form_(form),
        lw_(lower_for_ascend(key, product)),
        inputs_(static_cast<int>(lw_.inputs.size())),
        outer_(std::max<int>(key.rank, 2) - 2) {}

  std::optional<std::string> write(std::string& why) {
    if (!lw_.refused.empty()) return why = lw_.refused, std::nullopt;
    for (const Step& st : lw_.steps)
      if (st.scalar_unit && scalar_expression(st).empty())
        return why = fmt::format("the scalar unit's {} is not written as Ascend C yet (casts to floats and "
                                 "add, sub, mul and div are)",
                                 st.node.kind == InstrKind::binary ? op_name(static_cast<Op>(st.node.code))
                                                                   : std::string_view("step")),
               std::nullopt;
    header();
    tiling_struct();
    raw("constexpr int32_t BUFFER_NUM = 2;  // at most; the tiling's slots says how many are used");
    raw("");
    raw("class BcastKernel {");
    raw(" public:");
    indent_ += 2;
    init();
    process();
    indent_ -= 2;
    raw(" private:");
    indent_ += 2;
    load_registers();
    copy_in();
    compute();
    copy_out();
    advance();
    copies();
    members();
    indent_ -= 2;
    raw("};");
    raw("");
    entry();
    return text_;
  }

 private:
  // ---- text ----
  void raw(std::string_view text) {
    text_ += (text.empty() ? std::string() : std::string(static_cast<std::size_t>(indent_), ' ')) + std::string(text) + "\n";
  }
  template <class... Args>
  void line(fmt::format_string<Args...> f, Args&&... args) {
    text_ += std::string(static_cast<std::size_t>(indent_), ' ') + fmt::format(f, std::forward<Args>(args)...) + "\n";
  }
  void open(const std::string& head) {
    line("{} {{", head);
    indent_ += 2;
  }
  void close(const char* tail = "}") {
    indent_ -= 2;
    line("{}", tail);
  }

  std::string in_type(int k) const { return ascend_c_type(lw_.inputs[static_cast<std::size_t>(k)]); }
  std::string out_type() const { return ascend_c_type(lw_.out); }
  std::int64_t in_size(int k) const { return static_cast<std::int64_t>(dtype_size(lw_.inputs[static_cast<std::size_t>(k)])); }
  bool has_queue(int k) const { return lw_.fetch[static_cast<std::size_t>(k)] != Fetch::scalar; }
  bool has_fetch(Fetch f) const { return std::find(lw_.fetch.begin(), lw_.fetch.end(), f) != lw_.fetch.end(); }
  Fetch fetch(int k) const { return lw_.fetch[static_cast<std::size_t>(k)]; }
  bool last(std::size_t i) const { return i + 1 == lw_.steps.size(); }
  bool has_buffer(std::size_t i) const { return !lw_.steps[i].scalar_unit && !last(i); }

  // The key up to its target: the host CPU and the code generator that
  // compiled the LLVM kernel do not change the written one.
  std::string portable_key() const {
    const std::string text = key_.to_string(), target = fmt::format(".ascend-sim-{}", product_.name);
    const std::size_t at = text.find(target);
    return at == std::string::npos ? text : text.substr(0, at + target.size());
  }

  // ---- the parts ----

  void header() {
    line("// {}: its Ascend C kernel, written by bcast (docs/ascend.md).", portable_key());
    std::string inputs;
    for (int k = 0; k < inputs_; ++k)
      inputs += fmt::format("{}x{} {} ({})", k ? ", " : "", k, fetch_name(fetch(k)), in_type(k));
    line("// Inputs: {}; out: {}. Product {}: {}.", inputs, out_type(), product_.name,
         product_.has_data_copy_pad ? "DataCopyPad" : "DataCopy only, whole 32-byte blocks");
    line("// Entry: {}.", form_ == AscendCForm::direct ? "direct launch (out, inputs, the tiling's GM address)"
                                                       : "operator project (inputs, out, workspace, tiling)");
    raw("#include \"kernel_operator.h\"");
    raw("");
    raw("using namespace AscendC;");
    raw("");
    raw("// This kernel's helpers.");
    raw("__aicore__ inline int64_t Min(int64_t a, int64_t b) { return a < b ? a : b; }");
    raw("__aicore__ inline int64_t Share(int64_t total, int64_t parts, int64_t part) {");
    raw("  return total / parts * part + (part < total % parts ? part : total % parts);");
    raw("}");
    raw("");
  }

  // The host's tiling (NOTE: [Ascend tiling]) as far as this kernel reads
  // it: the fields in the host's order, then the expression's scalars, each
  // in its 8-byte slot as its own type.
  void tiling_struct() {
    raw("// NOTE: [Ascend tiling]: filled by the host, the same for every block.");
    open("struct BcastTilingData");
    raw("int64_t levels;");
    line("int64_t extents[{}];", kMaxLevels);
    line("int64_t strides[{}][{}];  // bytes", kMaxOperands, kMaxLevels);
    line("int64_t base[{}];", kMaxOperands);
    raw("int64_t rows, cols, pitch;");
    raw("int64_t row_tiles, col_tiles, tiles;");
    raw("int64_t slots;");
    line("int64_t column_mode[{}];  // 0 one value, 1 contiguous values, 2 strided values", kMaxOperands);
    line("int64_t row_resident[{}];  // 1: a row input is copied once a block", kMaxOperands);
    for (std::size_t j = 0; j < lw_.scalars.size(); ++j) {
      line("{} arg{};", ascend_c_type(lw_.scalars[j]), j);
      if (dtype_size(lw_.scalars[j]) < 8) line("uint8_t arg{}Pad[{}];", j, 8 - dtype_size(lw_.scalars[j]));
    }
    close("};");
    raw("");
    if (form_ == AscendCForm::operator_project) return;  // the framework's GET_TILING_DATA reads it
    raw("// The tiling, copied from GM into the kernel's own memory once a block.");
    open("__aicore__ inline void CopyTiling(BcastTilingData* tiling, GM_ADDR gm)");
    raw("const __gm__ int64_t* from = (const __gm__ int64_t*)gm;");
    raw("int64_t* to = (int64_t*)tiling;");
    raw("for (uint32_t i = 0; i < sizeof(BcastTilingData) / sizeof(int64_t); ++i) to[i] = from[i];");
    close();
    raw("");
  }

  void init() {
    std::string params = "GM_ADDR gm_out";
    for (int k = 0; k < inputs_; ++k) params += fmt::format(", GM_ADDR gm_x{}", k);
    open(fmt::format("__aicore__ inline void Init({}, const BcastTilingData& tiling)", params));
    raw("t = tiling;");
    line("outGm.SetGlobalBuffer((__gm__ {}*)gm_out);", out_type());
    for (int k = 0; k < inputs_; ++k) line("x{0}Gm.SetGlobalBuffer((__gm__ {1}*)gm_x{0});", k, in_type(k));
    raw("// The UB, in the launcher's order (NOTE: [Ascend UB layout]).");
    raw("const int64_t tileElems = t.rows * t.pitch;");
    if (has_fetch(Fetch::column)) raw("const int64_t columnBytes = (t.rows + 7) / 8 * 8 * 32;");
    for (int k = 0; k < inputs_; ++k)
      if (!has_queue(k)) line("pipe.InitBuffer(scalarX{}, 32);", k);
    if (lw_.gathers) raw("pipe.InitBuffer(offsets, t.pitch * 4);");
    for (int k = 0; k < inputs_; ++k) {
      if (!has_queue(k)) continue;
      const std::string bytes = fetch(k) == Fetch::stream   ? fmt::format("tileElems * {}", in_size(k))
                                : fetch(k) == Fetch::row    ? fmt::format("t.pitch * {}", in_size(k))
                                : fetch(k) == Fetch::gather ? std::string("t.pitch * 32")
                                                            : std::string("columnBytes");
      if (fetch(k) == Fetch::row) {  // a resident row needs its one row, no queue
        line("if (t.row_resident[{}]) pipe.InitBuffer(residentX{}, {});", k + 1, k, bytes);
        line("else pipe.InitBuffer(inQueueX{}, t.slots, {});", k, bytes);
      } else {
        line("pipe.InitBuffer(inQueueX{}, t.slots, {});", k, bytes);
      }
      if (fetch(k) == Fetch::column) line("pipe.InitBuffer(brcbX{}, columnBytes);", k);
      if (fetch(k) == Fetch::gather) line("pipe.InitBuffer(gatheredX{}, t.pitch * {});", k, in_size(k));
    }
    line("pipe.InitBuffer(outQueue, t.slots, tileElems * {});", dtype_size(lw_.out));
    for (std::size_t i = 0; i < lw_.steps.size(); ++i)
      if (has_buffer(i)) line("pipe.InitBuffer(step{}, tileElems * {});", i, result_bytes(lw_.steps[i]));
    raw("// This block's tiles, from its index alone (NOTE: [Ascend tiling]).");
    raw("const int64_t first = Share(t.tiles, GetBlockNum(), GetBlockIdx());");
    raw("count = Share(t.tiles, GetBlockNum(), GetBlockIdx() + 1) - first;");
    if (outer_ > 0) raw("int64_t slab = first / t.col_tiles / t.row_tiles;");
    raw("col0 = first % t.col_tiles * t.cols;");
    raw("row0 = first / t.col_tiles % t.row_tiles * t.rows;");
    for (int d = outer_ - 1; d >= 0; --d) {
      line("index[{0}] = slab % t.extents[{0}];", d);
      line("slab /= t.extents[{}];", d);
    }
    open(fmt::format("for (int k = 0; k < {}; ++k)", inputs_ + 1));
    line("offset[k] = t.base[k] + row0 * t.strides[k][{0}] + col0 * t.strides[k][{1}];", outer_, outer_ + 1);
    for (int d = 0; d < outer_; ++d) {
      line("offset[k] += index[{0}] * t.strides[k][{0}];", d);
      line("span[k][{0}] = (t.extents[{0}] - 1) * t.strides[k][{0}];", d);
    }
    line("colStep[k] = t.cols * t.strides[k][{}];", outer_ + 1);
    line("rowStep[k] = t.rows * t.strides[k][{}];", outer_);
    close();
    line("m = t.extents[{}];", outer_);
    line("n = t.extents[{}];", outer_ + 1);
    raw("fullElems = t.rows * t.pitch;");
    raw("lastElems = (m - (t.row_tiles - 1) * t.rows) * t.pitch;");
    close();
    raw("");
  }

  void process() {
    open("__aicore__ inline void Process()");
    raw("if (count <= 0) return;");
    raw("LoadRegisters();");
    open("for (int64_t i = 0; i < count; ++i)");
    raw("CopyIn();");
    raw("Compute();");
    raw("CopyOut();");
    raw("if (i + 1 < count) Advance();");
    close();
    close();
    raw("");
  }

  // Scalar inputs (GetValue once a block), the expression's scalars, and what
  // the scalar unit computes from them.
  void load_registers() {
    open("__aicore__ inline void LoadRegisters()");
    for (int k = 0; k < inputs_; ++k) {
      if (has_queue(k)) continue;
      const std::string len = product_.has_data_copy_pad ? std::to_string(in_size(k)) : "1";
      line("LocalTensor<{}> sx{} = scalarX{}.Get<{}>();", in_type(k), k, k, in_type(k));
      copy_call("sx" + std::to_string(k), k + 1, "1", len, "0", "0", in_type(k));
      event_pair("MTE2_S", k);
      line("s{} = sx{}.GetValue(0);", k, k);
    }
    for (int k = 0; k < inputs_; ++k) {  // a resident row: copied once a block, before V reads it
      if (fetch(k) != Fetch::row) continue;
      open(fmt::format("if (t.row_resident[{}])", k + 1));
      line("LocalTensor<{0}> rx{1} = residentX{1}.Get<{0}>();", in_type(k), k);
      const std::string len = product_.has_data_copy_pad ? fmt::format("n * {}", in_size(k))
                                                         : fmt::format("(n * {} + 31) / 32", in_size(k));
      copy_call("rx" + std::to_string(k), k + 1, "1", len, "0", "0", in_type(k));
      event_pair("MTE2_V", k);
      close();
    }
    if (lw_.gathers) {  // Gather's byte offsets: a block a lane, as the gather copies lay the elements
      raw("LocalTensor<int32_t> index = offsets.Get<int32_t>();");
      raw("CreateVecIndex(index, (int32_t)0, t.cols);");
      raw("Muls(index, index, (int32_t)32, t.cols);");
    }
    for (std::size_t i = 0; i < lw_.steps.size(); ++i) {
      const Step& st = lw_.steps[i];
      if (st.scalar_unit) {
        line("r{} = {};", i, scalar_expression(st));
      } else if (st.negate_scalar && is_floating(st.dtype)) {
        line("neg{} = -{};", i, reg(st.args[1], st.dtype));
      } else if (st.negate_scalar) {  // wrapping, as the vector unit's integers do
        const std::string t = ascend_c_type(st.dtype);
        line("neg{} = static_cast<{}>(0u - static_cast<u{}>({}));", i, t, t, reg(st.args[1], st.dtype));
      }
    }
    close();
    raw("");
  }

  // One pipe waiting for another within a block: an event ID that is free
  // now (Set and Wait are adjacent, so it need not be held).
  void event_pair(const char* event, int k) {
    line("const TEventID event{0}X{1} = pipe.FetchEventID(HardEvent::{0});", event, k);
    line("SetFlag<HardEvent::{0}>(event{0}X{1});", event, k);
    line("WaitFlag<HardEvent::{0}>(event{0}X{1});", event, k);
  }

  void copy_in() {
    open("__aicore__ inline void CopyIn()");
    raw("rowsHere = Min(t.rows, m - row0);");
    raw("colsHere = Min(t.cols, n - col0);");
    for (int k = 0; k < inputs_; ++k) {
      if (!has_queue(k)) continue;
      if (fetch(k) == Fetch::row) open(fmt::format("if (!t.row_resident[{}])", k + 1));
      line("LocalTensor<{0}> x{1} = inQueueX{1}.AllocTensor<{0}>();", in_type(k), k);
      if (fetch(k) == Fetch::column) copy_column(k);
      else if (fetch(k) == Fetch::gather)
        copy_call("x" + std::to_string(k), k + 1, "colsHere", std::to_string(in_size(k)),
                  fmt::format("t.strides[{}][{}] - {}", k + 1, outer_ + 1, in_size(k)), "0", in_type(k));
      else line("CopyRows(x{0}, x{0}Gm, {1}, {2}, colsHere, true);", k, k + 1, fetch(k) == Fetch::row ? "1" : "rowsHere");
      line("inQueueX{0}.EnQue(x{0});", k);
      if (fetch(k) == Fetch::row) close();
    }
    close();
    raw("");
  }

  void copy_column(int k) {
    const std::int64_t size = in_size(k);
    line("const int64_t mode{0} = t.column_mode[{1}];", k, k + 1);
    line("const int64_t values{0} = mode{0} == 0 ? 1 : rowsHere;", k);
    std::string len = fmt::format("mode{0} == 2 ? {1} : values{0} * {1}", k, size);
    std::string gap =
        fmt::format("mode{0} == 2 && rowsHere > 1 ? t.strides[{1}][{2}] - {3} : 0", k, k + 1, outer_, size);
    if (!product_.has_data_copy_pad) {  // DataCopy counts whole blocks (the launcher refuses what is not)
      len = "(" + len + ") / 32";
      gap = "(" + gap + ") / 32";
    }
    copy_call("x" + std::to_string(k), k + 1, fmt::format("mode{} == 2 ? rowsHere : 1", k), len, gap, "0", in_type(k));
  }

  void compute() {
    open("__aicore__ inline void Compute()");
    for (int k = 0; k < inputs_; ++k) {
      if (fetch(k) == Fetch::row)
        line("LocalTensor<{0}> x{1} = t.row_resident[{2}] ? residentX{1}.Get<{0}>() : inQueueX{1}.DeQue<{0}>();",
             in_type(k), k, k + 1);
      else if (has_queue(k)) line("LocalTensor<{0}> x{1} = inQueueX{1}.DeQue<{0}>();", in_type(k), k);
    }
    line("LocalTensor<{0}> z = outQueue.AllocTensor<{0}>();", out_type());
    for (int k = 0; k < inputs_; ++k) {
      if (fetch(k) == Fetch::gather)
        line("Gather(gatheredX{0}.Get<{1}>(), x{0}, offsets.Get<uint32_t>(), 0, colsHere);", k, in_type(k));
      if (fetch(k) != Fetch::column) continue;
      line("const int64_t mode{0} = t.column_mode[{1}];", k, k + 1);
      line("if (mode{0} != 2) Brcb(brcbX{0}.Get<{1}>(), x{0}, ((mode{0} == 0 ? 1 : rowsHere) + 7) / 8, BrcbRepeatParams(1, 8));",
           k, in_type(k));
    }
    if (lw_.per_row) {
      line("if (t.cols <= {}) {{  // a repeat a row, up to 255 rows a call", row_repeat_cols(lw_));
      indent_ += 2;
      open(fmt::format("for (int64_t r = 0; r < rowsHere; r += {})", kMaxRepeatTimes));
      line("const int64_t rowsNow = Min(rowsHere - r, {});", kMaxRepeatTimes);
      for (std::size_t i = 0; i < lw_.steps.size(); ++i)
        if (!lw_.steps[i].scalar_unit) repeat_step(i);
      close();
      close("} else {");
      indent_ += 2;
      open("for (int64_t r = 0; r < rowsHere; ++r)");
      for (std::size_t i = 0; i < lw_.steps.size(); ++i)
        if (!lw_.steps[i].scalar_unit) row_step(i);
      close();
      close();
    } else {
      raw("const int64_t elems = rowsHere == t.rows ? fullElems : lastElems;");
      for (std::size_t i = 0; i < lw_.steps.size(); ++i)
        if (!lw_.steps[i].scalar_unit) tile_step(i);
    }
    raw("outQueue.EnQue(z);");
    for (int k = 0; k < inputs_; ++k) {
      if (fetch(k) == Fetch::row)
        line("if (!t.row_resident[{1}]) inQueueX{0}.FreeTensor(x{0});", k, k + 1);
      else if (has_queue(k)) line("inQueueX{0}.FreeTensor(x{0});", k);
    }
    close();
    raw("");
  }

  void copy_out() {
    open("__aicore__ inline void CopyOut()");
    line("LocalTensor<{0}> z = outQueue.DeQue<{0}>();", out_type());
    raw("CopyRows(z, outGm, 0, rowsHere, colsHere, false);");
    raw("outQueue.FreeTensor(z);");
    close();
    raw("");
  }

  void advance() {
    const int operands = inputs_ + 1;
    open("__aicore__ inline void Advance()");
    raw("col0 += t.cols;");
    line("for (int k = 0; k < {}; ++k) offset[k] += colStep[k];", operands);
    raw("if (col0 < n) return;");
    raw("col0 = 0;");
    raw("row0 += t.rows;");
    line("for (int k = 0; k < {}; ++k) offset[k] += rowStep[k] - t.col_tiles * colStep[k];", operands);
    raw("if (row0 < m) return;");
    raw("row0 = 0;");
    line("for (int k = 0; k < {}; ++k) offset[k] -= t.row_tiles * rowStep[k];", operands);
    for (int d = outer_ - 1; d >= 0; --d) {
      open(fmt::format("if (index[{0}] + 1 < t.extents[{0}])", d));
      line("++index[{}];", d);
      line("for (int k = 0; k < {}; ++k) offset[k] += t.strides[k][{}];", operands, d);
      raw("return;");
      close();
      line("index[{}] = 0;", d);
      line("for (int k = 0; k < {}; ++k) offset[k] -= span[k][{}];", operands, d);
    }
    close();
    raw("");
  }

  // The copies of a tile's rows: a block a row, each row of the UB `pitch`
  // elements apart (the LLVM kernel's copy_rows).
  void copies() {
    raw("template <class T>");
    open("__aicore__ inline void CopyRows(const LocalTensor<T>& ub, const GlobalTensor<T>& gm, int k, int64_t rows, "
         "int64_t cols, bool in)");
    raw("const int64_t len = cols * (int64_t)sizeof(T), ubRow = t.pitch * (int64_t)sizeof(T);");
    line("const int64_t gmGap = rows > 1 ? t.strides[k][{}] - len : 0;", outer_);
    raw("const int64_t ubGap = (ubRow - (len + 31) / 32 * 32) / 32;");
    if (product_.has_data_copy_pad) {
      line("const DataCopyExtParams p{{(uint16_t)rows, (uint32_t)len, (uint32_t)(in ? gmGap : ubGap), "
           "(uint32_t)(in ? ubGap : gmGap), 0}};");
      raw("if (in) DataCopyPad(ub, gm[offset[k] / (int64_t)sizeof(T)], p, DataCopyPadExtParams<T>());");
      raw("else DataCopyPad(gm[offset[k] / (int64_t)sizeof(T)], ub, p);");
    } else {
      line("const DataCopyParams p{{(uint16_t)rows, (uint16_t)(len / 32), (uint16_t)(in ? gmGap / 32 : ubGap), "
           "(uint16_t)(in ? ubGap : gmGap / 32)}};");
      raw("if (in) DataCopy(ub, gm[offset[k] / (int64_t)sizeof(T)], p);");
      raw("else DataCopy(gm[offset[k] / (int64_t)sizeof(T)], ub, p);");
    }
    close();
    raw("");
  }

  // One copy of input k - 1's GM into the UB with the product's instruction
  // (the gaps: GM's, UB's, as NOTE: [Copy parameters] counts them).
  void copy_call(const std::string& ub, int k, const std::string& count, const std::string& len, const std::string& gap,
                 const std::string& dst_gap, const std::string& type) {
    const std::string gm = fmt::format("x{}Gm[offset[{}] / {}]", k - 1, k, dtype_size(lw_.inputs[k - 1]));
    if (product_.has_data_copy_pad)
      line(
          "DataCopyPad({}, {}, DataCopyExtParams{{(uint16_t)({}), (uint32_t)({}), (uint32_t)({}), (uint32_t)({}), 0}}, "
          "DataCopyPadExtParams<{}>());",
          ub, gm, count, len, gap, dst_gap, type);
    else
      line("DataCopy({}, {}, DataCopyParams{{(uint16_t)({}), (uint16_t)({}), (uint16_t)({}), (uint16_t)({})}});", ub, gm,
           count, len, gap, dst_gap);
  }

  // A step of the scalar unit as C, with bcast's semantics (as the LLVM
  // kernel's scalar code computes it: f16 and bf16 in float, integers
  // wrapping, integer division true division in double); "" for one this
  // writer does not spell.
  std::string scalar_expression(const Step& st) const {
    const ExprInstr& n = st.node;
    const std::string out = ascend_c_type(n.out);
    if (n.kind == InstrKind::cast) {
      if (is_floating(n.in) && !is_floating(n.out)) return "";  // bcast saturates; C leaves it undefined
      return fmt::format("static_cast<{}>({})", out, reg(st.args[0], n.in));
    }
    if (n.kind != InstrKind::binary || n.in == DType::boolean) return "";
    const auto op = static_cast<Op>(n.code);
    const char* sign = op == Op::add ? "+" : op == Op::sub ? "-" : op == Op::mul ? "*" : op == Op::div ? "/" : nullptr;
    if (sign == nullptr) return "";
    const std::string a = reg(st.args[0], n.in), b = reg(st.args[1], n.in);
    if (op == Op::div && !is_floating(n.in))
      return fmt::format("static_cast<double>({}) / static_cast<double>({})", a, b);
    if (!is_floating(n.in)) {
      const std::string u = "u" + ascend_c_type(n.in);
      return fmt::format("static_cast<{}>(static_cast<{}>({}) {} static_cast<{}>({}))", out, u, a, sign, u, b);
    }
    if (n.in == DType::f16 || n.in == DType::bf16)
      return fmt::format("static_cast<{}>(static_cast<float>({}) {} static_cast<float>({}))", out, a, sign, b);
    return fmt::format("{} {} {}", a, sign, b);
  }

  // ---- the steps ----

  // A register's C expression; a constant is `type`'s bits.
  std::string reg(const Ref& r, DType type) const {
    switch (r.kind) {
      case Ref::constant:
        return ascend_c_literal(type, static_cast<std::uint32_t>(r.index));
      case Ref::scalar_input: return fmt::format("s{}", r.index);
      case Ref::scalar_arg:
        return fmt::format("t.arg{}", r.index);
      case Ref::scalar_step: return fmt::format("r{}", r.index);
      default: return "0";
    }
  }

  // A tensor operand of step i: its LocalTensor, its element offset at row
  // r, and its repeat stride a row in blocks (NOTE: [Rows in repeats]).
  struct Place {
    std::string tensor, row_offset, row_blocks;
    bool column = false;
  };
  Place place(const Ref& r) const {
    auto row_stride_blocks = [](std::int64_t size) { return fmt::format("t.pitch * {} / 32", size); };
    if (r.kind == Ref::step) {
      const auto i = static_cast<std::size_t>(r.index);
      const std::string type = lw_.steps[i].instr == Instr::Compare ? "uint8_t" : ascend_c_type(lw_.steps[i].dtype);
      return {last(i) ? "z" : fmt::format("step{}.Get<{}>()", i, type), "r * t.pitch",
              row_stride_blocks(static_cast<std::int64_t>(dtype_size(lw_.steps[i].dtype)))};
    }
    const int k = r.index;
    if (fetch(k) == Fetch::row) return {fmt::format("x{}", k), "0", "0"};
    if (fetch(k) == Fetch::gather)
      return {fmt::format("gatheredX{}.Get<{}>()", k, in_type(k)), "r * t.pitch", row_stride_blocks(in_size(k))};
    if (fetch(k) == Fetch::column)
      return {fmt::format("(mode{0} == 2 ? x{0} : brcbX{0}.Get<{1}>())", k, in_type(k)),
              fmt::format("(mode{} == 0 ? 0 : r * {})", k, kBlockBytes / in_size(k)),
              fmt::format("mode{} == 0 ? 0 : 1", k), true};
    return {fmt::format("x{}", k), "r * t.pitch", row_stride_blocks(in_size(k))};
  }

  std::string scalar_of(const Step& st, std::size_t i) const {
    if (st.instr == Instr::Duplicate) return reg(st.args[0], st.dtype);
    return st.negate_scalar ? fmt::format("neg{}", i) : reg(st.args[1], st.dtype);
  }

  // The call of step i over `elems` elements from offset `at` (count form).
  void count_call(const Step& st, std::size_t i, const std::string& dst, const Place& a, const Place& b,
                  const std::string& at_dst, const std::string& at_a, const std::string& at_b, const std::string& elems) {
    const std::string name(instr_name(st.instr));
    const std::string d = dst + "[" + at_dst + "]";
    if (st.instr == Instr::Duplicate) return line("Duplicate({}, {}, {});", d, scalar_of(st, i), elems);
    const std::string x = a.tensor + "[" + at_a + "]";
    if (st.instr == Instr::Cast) return line("Cast({}, {}, {}, {});", d, x, round_name(st.round), elems);
    if (st.instr == Instr::Compare)
      return line("Compare({}, {}, {}[{}], CMPMODE::{}, {});", d, x, b.tensor, at_b,
                  cmp_mode_name(static_cast<CmpMode>(st.mode)), elems);
    if (st.instr == Instr::Select) {
      const Place sel = place(st.args[2]);
      return line("Select({}, {}[0], {}, {}, SELMODE::VSEL_TENSOR_SCALAR_MODE, {});", d, sel.tensor, x, scalar_of(st, i),
                  elems);
    }
    if (st.args[1].is_register()) return line("{}({}, {}, {}, {});", name, d, x, scalar_of(st, i), elems);
    line("{}({}, {}, {}[{}], {});", name, d, x, b.tensor, at_b, elems);
  }

  void tile_step(std::size_t i) {
    const Step& st = lw_.steps[i];
    const Place dst = place(Ref{Ref::step, static_cast<int>(i)});
    const Place a = st.instr == Instr::Duplicate ? Place{} : place(st.args[0]);
    const Place b = st.args[1].is_register() || st.instr == Instr::Cast || st.instr == Instr::Duplicate ? Place{}
                                                                                                     : place(st.args[1]);
    count_call(st, i, dst.tensor, a, b, "0", "0", "0", "elems");
  }

  // Step i over rows [r, r + n), a repeat a row (NOTE: [Rows in repeats]).
  void repeat_step(std::size_t i) {
    const Step& st = lw_.steps[i];
    const bool dup = st.instr == Instr::Duplicate, cast = st.instr == Instr::Cast;
    const Place dst = place(Ref{Ref::step, static_cast<int>(i)});
    const Place a = dup ? Place{} : place(st.args[0]);
    const bool b_tensor = !dup && !cast && !st.args[1].is_register();
    const Place b = b_tensor ? place(st.args[1]) : Place{};
    auto at = [](const Place& p) { return p.tensor + "[" + p.row_offset + "]"; };
    auto blk = [](const Place& p) { return p.column ? 0 : 1; };
    const std::string name(instr_name(st.instr)), count = "(uint64_t)colsHere, (uint8_t)rowsNow";
    if (dup) return line("Duplicate({}, {}, {}, 1, (uint8_t)({}));", at(dst), scalar_of(st, i), count, dst.row_blocks);
    if (b_tensor)
      return line("{}({}, {}, {}, {}, BinaryRepeatParams({}, {}, {}, (uint8_t)({}), (uint8_t)({}), (uint8_t)({})));",
                  name, at(dst), at(a), at(b), count, blk(dst), blk(a), blk(b), dst.row_blocks, a.row_blocks,
                  b.row_blocks);
    line("{}({}, {}, {}, {}, UnaryRepeatParams({}, {}, (uint8_t)({}), (uint8_t)({})));", name, at(dst), at(a),
         cast ? round_name(st.round) : scalar_of(st, i), count, blk(dst), blk(a), dst.row_blocks, a.row_blocks);
  }

  // Step i over row r: the count form, or, with a column operand, full
  // repeats and a tail read through block and repeat strides of 0.
  void row_step(std::size_t i) {
    const Step& st = lw_.steps[i];
    const Place dst = place(Ref{Ref::step, static_cast<int>(i)});
    const bool dup = st.instr == Instr::Duplicate, cast = st.instr == Instr::Cast;
    const Place a = dup ? Place{} : place(st.args[0]);
    const bool b_tensor = !dup && !cast && !st.args[1].is_register();
    const Place b = b_tensor ? place(st.args[1]) : Place{};
    if (!a.column && !b.column) {
      count_call(st, i, dst.tensor, a, b, dst.row_offset, a.row_offset, b.row_offset, "colsHere");
      return;
    }
    const std::int64_t dst_size = static_cast<std::int64_t>(dtype_size(st.dtype));
    const std::int64_t src_size = static_cast<std::int64_t>(dtype_size(cast ? st.src_dtype : st.dtype));
    const std::int64_t per_repeat = kRepeatBytes / std::max(dst_size, src_size);
    auto rep = [&](const Place& p, std::int64_t size) { return p.column ? 0 : per_repeat * size / kBlockBytes; };
    auto blk = [](const Place& p) { return p.column ? 0 : 1; };
    const std::string params =
        b_tensor ? fmt::format("BinaryRepeatParams({}, {}, {}, {}, {}, {})", 1, blk(a), blk(b), rep(dst, dst_size),
                               rep(a, src_size), rep(b, src_size))
                 : fmt::format("UnaryRepeatParams({}, {}, {}, {})", 1, blk(a), rep(dst, dst_size), rep(a, src_size));
    const std::string name(instr_name(st.instr));
    line("const int64_t full{0} = colsHere / {1}, tail{0} = colsHere % {1};", i, per_repeat);
    for (const bool tail : {false, true}) {
      const std::string more = tail ? fmt::format(" + full{} * {}", i, per_repeat) : "";
      auto at = [&](const Place& p) { return p.tensor + "[" + p.row_offset + (p.column ? "" : more) + "]"; };
      const std::string mask = tail ? fmt::format("(uint64_t)tail{}", i) : fmt::format("(uint64_t){}", per_repeat);
      const std::string repeat = tail ? "1" : fmt::format("(uint8_t)full{}", i);
      std::string args = at(dst) + ", " + at(a);
      if (cast) args += ", " + round_name(st.round);
      else if (b_tensor) args += ", " + at(b);
      else args += ", " + scalar_of(st, i);
      line("if ({}{} > 0) {}({}, {}, {}, {});", tail ? "tail" : "full", i, name, args, mask, repeat, params);
    }
  }

  // ---- members and the entry ----

  void members() {
    raw("TPipe pipe;");
    for (int k = 0; k < inputs_; ++k)
      if (has_queue(k)) line("TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX{};", k);
    raw("TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue;");
    for (int k = 0; k < inputs_; ++k) {
      if (!has_queue(k)) line("TBuf<QuePosition::VECCALC> scalarX{};", k);
      if (fetch(k) == Fetch::column) line("TBuf<QuePosition::VECCALC> brcbX{};", k);
      if (fetch(k) == Fetch::gather) line("TBuf<QuePosition::VECCALC> gatheredX{};", k);
      if (fetch(k) == Fetch::row) line("TBuf<QuePosition::VECCALC> residentX{};", k);
    }
    if (lw_.gathers) raw("TBuf<QuePosition::VECCALC> offsets;");
    for (std::size_t i = 0; i < lw_.steps.size(); ++i)
      if (has_buffer(i)) line("TBuf<QuePosition::VECCALC> step{};", i);
    line("GlobalTensor<{}> outGm;", out_type());
    for (int k = 0; k < inputs_; ++k) line("GlobalTensor<{}> x{}Gm;", in_type(k), k);
    raw("BcastTilingData t;");
    raw("int64_t count = 0, row0 = 0, col0 = 0, rowsHere = 0, colsHere = 0, m = 0, n = 0, fullElems = 0, lastElems = 0;");
    const int operands = inputs_ + 1;
    line("int64_t offset[{0}] = {{}}, colStep[{0}] = {{}}, rowStep[{0}] = {{}};", operands);
    if (outer_ > 0) line("int64_t index[{0}] = {{}}, span[{1}][{0}] = {{}};", outer_, operands);
    for (int k = 0; k < inputs_; ++k)
      if (!has_queue(k)) line("{} s{}{{}};", in_type(k), k);
    for (std::size_t i = 0; i < lw_.steps.size(); ++i) {
      const Step& st = lw_.steps[i];
      if (st.scalar_unit)
        line("{} r{}{{}};", ascend_c_type(st.node.out), i);
      else if (st.negate_scalar)
        line("{} neg{}{{}};", ascend_c_type(st.dtype), i);
    }
  }

  // AscendCForm's entry point.
  void entry() {
    std::string inputs, args = "gm_out";
    for (int k = 0; k < inputs_; ++k) {
      inputs += fmt::format("GM_ADDR gm_x{}, ", k);
      args += fmt::format(", gm_x{}", k);
    }
    if (form_ == AscendCForm::direct) {
      open(fmt::format("extern \"C\" __global__ __aicore__ void bcast_kernel(GM_ADDR gm_out, {}GM_ADDR tiling)",
                       inputs));
      raw("BcastTilingData tilingData;");
      raw("CopyTiling(&tilingData, tiling);");
    } else {
      open(
          fmt::format("extern \"C\" __global__ __aicore__ void bcast_kernel({}GM_ADDR gm_out, GM_ADDR /* workspace */, "
                      "GM_ADDR tiling)",
                      inputs));
      raw("GET_TILING_DATA(tilingData, tiling);");
    }
    raw("BcastKernel op;");
    line("op.Init({}, tilingData);", args);
    raw("op.Process();");
    close();
  }

  const KernelKey& key_;
  const Product& product_;
  AscendCForm form_;
  Lowering lw_;
  int inputs_, outer_;
  std::string text_;
  int indent_ = 0;
};

}  // namespace

std::optional<std::string> write_ascend_c(const KernelKey& key, const Product& product, std::string& why,
                                          AscendCForm form) {
  return Writer(key, product, form).write(why);
}

}  // namespace bcast::ascend
