// Every host kernel's element step, for the one loop nest: its program on N
// inputs (a binary op's is the one-node op(x0, x1)).
#include "emit/expression_emitter.h"

#include <llvm/IR/IRBuilder.h>

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "emit/loop_nest_emitter.h"
#include "expr_kernel.h"
#include "function_table.h"
#include "ir/ir_complex.h"
#include "ir/ir_dtypes.h"
#include "ir/ir_helpers.h"
#include "ir/ir_nodes.h"
#include "ir/ir_ops.h"
#include "kernel_abi.h"
#include "math_recipes.h"

namespace bcast::jit {
namespace {

using llvm::Value;

// NOTE: [Recipe interleave]: a program that runs a recipe inline takes the
// fewest vectors an iteration of its recipes' rows; other programs keep the
// vectoriser's choice.
unsigned interleave_for(const ExprProgram& program) {
  unsigned interleave = 0;
  for (const ExprInstr& s : program.code) {
    const detail::FunctionRow* row = row_of(s);
    if (!row || !is_floating(s.in) || row->math.empty()) continue;
    const DType precision = s.in == DType::f64 ? DType::f64 : DType::f32;  // f16 and bf16 compute in f32
    if (const auto recipe = math::recipes::recipe_for(row->math, s.arity(), precision)) {
      const unsigned own = math::recipes::interleave_of(*recipe);
      interleave = interleave == 0 ? own : std::min(interleave, own);
    }
  }
  return interleave;
}

// A program value: its compute form, and a real value's bits as stored
// where the body has them (an input as loaded; the result of an op that
// copies its inputs' bits), for the ops that take them (emit_on_stored_bits).
struct ProgramValue {
  Parts parts;
  Value* stored = nullptr;
};

// The program per element, or per vector of `lanes` elements: every value
// in registers, f16 and bf16 rounded after each node.
class ExpressionBody final : public NestBody {
 public:
  explicit ExpressionBody(ExprProgram program) : program_(std::move(program)), interleave_(interleave_for(program_)) {
    dtype_.push_back(program_.out_dtype);
    for (DType d : program_.inputs) dtype_.push_back(d);
  }

  const std::vector<DType>& dtypes() const { return dtype_; }

  // Scalar j lives in ScalarSlot j of the context, stored in its dtype.
  void enter(llvm::IRBuilder<>& b, Value* args) override {
    if (program_.scalars.empty()) return;
    Value* context = load_field(b, args, offsetof(KernelArgs, context), b.getPtrTy(), "scalars");
    for (std::size_t j = 0; j < program_.scalars.size(); ++j) {
      const DType d = program_.scalars[j];
      Value* slot = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), context, kScalarSlotBytes * j);
      if (is_complex(d)) scalars_.push_back(load_complex(b, d, slot));
      else scalars_.push_back({to_compute(b, d, b.CreateLoad(storage_type(b.getContext(), d), slot, "s"))});
    }
  }

  llvm::StoreInst* compute_and_store(llvm::IRBuilder<>& b, const std::vector<Parts>& inputs, Value* out,
                                     unsigned lanes) override {
    const ProgramValue result = compute(b, inputs, lanes);
    const DType d = dtype_[0];
    if (is_complex(d)) {
      if (lanes > 1) return store_complex_vector(b, d, result.parts, out);
      store_complex(b, d, result.parts, out);
      return nullptr;  // two stores: never a streaming one (lanes 1)
    }
    llvm::StoreInst* store =
        result.stored != nullptr ? b.CreateStore(result.stored, out) : emit_store(b, d, result.parts.re, out);
    store->setAlignment(llvm::Align(dtype_size(d)));  // one element's: a vector type's own would be its size
    return store;
  }

  unsigned interleave() const override { return interleave_; }

 private:
  ProgramValue compute(llvm::IRBuilder<>& b, const std::vector<Parts>& inputs, unsigned lanes) {
    std::vector<ProgramValue> values;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      const DType d = dtype_[k + 1];
      if (is_complex(d)) values.push_back({inputs[k]});
      else values.push_back({{to_compute(b, d, inputs[k].re)}, inputs[k].re});
    }
    for (Parts s : scalars_) values.push_back({lanes > 1 ? splat_parts(b, lanes, s) : s});
    for (const ExprInstr& s : program_.code) {
      auto value = [&](int a) -> const ProgramValue& { return values[static_cast<std::size_t>(s.args[a])]; };
      if (is_complex(s.in) || is_complex(s.out)) {
        const Parts args[3] = {value(0).parts, s.arity() > 1 ? value(1).parts : Parts{},
                               s.arity() > 2 ? value(2).parts : Parts{}};
        const Parts v = emit_complex_instr(b, s, args);
        values.push_back({v.im ? v : Parts{round_to_storage(b, s.out, v.re)}});
        continue;
      }
      auto arg = [&](int a) { return value(a).parts.re; };
      const auto op = static_cast<Op>(s.code);
      if (s.kind == InstrKind::binary && on_stored_bits(op, s.in)) {
        auto bits = [&](int a) { return value(a).stored != nullptr ? value(a).stored : to_storage(b, s.in, arg(a)); };
        Value* r = emit_on_stored_bits(b, op, s.in, bits(0), bits(1));
        values.push_back({{to_compute(b, s.out, r)}, r});
        continue;
      }
      Value* v = nullptr;
      switch (s.kind) {
        case InstrKind::binary: v = emit_op(b, op, s.in, arg(0), arg(1)); break;
        case InstrKind::unary: v = emit_unary(b, static_cast<UnaryOp>(s.code), s.in, arg(0)); break;
        case InstrKind::cast: v = emit_cast(b, s.in, s.out, arg(0)); break;
        case InstrKind::ternary: v = emit_ternary(b, static_cast<TernaryOp>(s.code), s.in, arg(0), arg(1), arg(2)); break;
      }
      values.push_back({{round_to_storage(b, s.out, v)}});
    }
    return values[static_cast<std::size_t>(program_.result)];
  }

  ExprProgram program_;
  unsigned interleave_;      // interleave_for(program_)
  std::vector<DType> dtype_;  // out, then each input
  std::vector<Parts> scalars_;
};

}  // namespace

llvm::Function* emit_kernel(llvm::Module& module, const KernelKey& key, const CodegenSettings& settings,
                            const std::string& symbol) {
  ExpressionBody body(spec_of(key).program);
  return emit_loop_nest(module, key, settings, symbol, body.dtypes(), body);
}

}  // namespace bcast::jit
