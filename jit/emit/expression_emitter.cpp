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
// A reduction kernel's (NOTE: [Reduction kernels]): out is the accumulator,
// each value combined into it.
class ExpressionBody final : public NestBody {
 public:
  ExpressionBody(ExprProgram program, const KernelKey& key)
      : program_(std::move(program)),
        interleave_(interleave_for(program_)),
        dear_(calls_math_function(program_) || divides(program_)),
        reduce_(key.reduce != ReduceForm::none),
        rows_(key.reduce == ReduceForm::rows),
        combine_(combine_op(key.combine)),
        accumulator_(key.accumulator) {
    dtype_.push_back(reduce_ ? accumulator_ : program_.out_dtype);
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
    if (reduce_) {  // out = out op value, in the accumulator's dtype
      llvm::Type* stored = storage_type(b.getContext(), accumulator_);
      if (lanes > 1) stored = llvm::FixedVectorType::get(stored, lanes);
      llvm::LoadInst* old = b.CreateLoad(stored, out);
      old->setAlignment(llvm::Align(dtype_size(accumulator_)));
      llvm::StoreInst* store =
          emit_store(b, accumulator_, accumulate(b, inputs, to_compute(b, accumulator_, old), lanes), out);
      store->setAlignment(llvm::Align(dtype_size(accumulator_)));
      return store;
    }
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

  Value* accumulate(llvm::IRBuilder<>& b, const std::vector<Parts>& inputs, Value* acc, unsigned lanes) override {
    Value* v = compute(b, inputs, lanes).parts.re;  // a reduction's value is real (reduction_kernel_valid)
    if (program_.out_dtype != accumulator_) v = emit_cast(b, program_.out_dtype, accumulator_, v);
    const bool extremum = combine_ == Op::max || combine_ == Op::min;
    if (rows_ && lanes > 1 && extremum && (accumulator_ == DType::f32 || accumulator_ == DType::f64))
      return emit_extremum_step(b, combine_ == Op::max, acc, v);
    return emit_op(b, combine_, accumulator_, acc, v);
  }

  // The executor's Reducer::combine(a, c) on each lane: the op that
  // accumulate() combines with where the form is not rows.
  Value* combine(llvm::IRBuilder<>& b, Value* a, Value* c) override { return emit_op(b, combine_, accumulator_, a, c); }

  // The executor's (reduce_executor.cpp): 0, 1, +-inf or the integer
  // extremes, false or true.
  Value* identity(llvm::IRBuilder<>& b, unsigned lanes) override {
    llvm::Type* t = compute_type(b.getContext(), accumulator_);
    const bool floating = is_floating(accumulator_);
    Value* v = nullptr;
    switch (combine_) {
      case Op::add:
        v = llvm::Constant::getNullValue(t);
        break;
      case Op::mul:
        v = floating ? llvm::ConstantFP::get(t, 1.0) : llvm::ConstantInt::get(t, 1);
        break;
      case Op::logical_or:
        v = b.getFalse();
        break;
      case Op::logical_and:
        v = b.getTrue();
        break;
      default: {  // min starts at the largest value, max at the smallest
        const bool largest = combine_ == Op::min;
        const unsigned bits = t->getScalarSizeInBits();
        if (accumulator_ == DType::boolean)
          v = b.getInt1(largest);
        else if (floating)
          v = llvm::ConstantFP::getInfinity(t, !largest);
        else if (is_unsigned(accumulator_))
          v = largest ? llvm::ConstantInt::get(t, llvm::APInt::getMaxValue(bits)) : llvm::ConstantInt::get(t, 0);
        else
          v = llvm::ConstantInt::get(
              t, largest ? llvm::APInt::getSignedMaxValue(bits) : llvm::APInt::getSignedMinValue(bits));
      }
    }
    return lanes > 1 ? b.CreateVectorSplat(lanes, v) : v;
  }

  unsigned interleave() const override { return interleave_; }
  bool partial_vectors() const override { return dear_; }

 private:
  static Op combine_op(detail::Combine c) {
    switch (c) {
      case detail::Combine::multiply:
        return Op::mul;
      case detail::Combine::minimum:
        return Op::min;
      case detail::Combine::maximum:
        return Op::max;
      case detail::Combine::logical_or:
        return Op::logical_or;
      case detail::Combine::logical_and:
        return Op::logical_and;
      default:
        return Op::add;
    }
  }

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
  bool dear_;                // it calls a math function or divides
  bool reduce_;
  bool rows_;  // a rows kernel's, whose steps are one chain through each accumulator
  Op combine_;
  DType accumulator_;
  std::vector<DType> dtype_;  // out (a reduction's accumulator), then each input
  std::vector<Parts> scalars_;
};

}  // namespace

llvm::Function* emit_kernel(llvm::Module& module, const KernelKey& key, const CodegenSettings& settings,
                            const std::string& symbol) {
  ExpressionBody body(spec_of(key).program, key);
  return emit_loop_nest(module, key, settings, symbol, body.dtypes(), body);
}

}  // namespace bcast::jit
