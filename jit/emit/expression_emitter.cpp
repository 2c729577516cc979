// An expression kernel's element step, for the one loop nest: its program on N inputs.
#include "emit/expression_emitter.h"

#include <llvm/IR/IRBuilder.h>

#include <cstddef>
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

// NOTE: [Math recipes]: a program that runs a recipe inline computes a long
// chain of dependent steps per vector, which one vector an iteration leaves
// waiting on latency: its vectorised loop interleaves four (measured on the
// Zen 5 VM, 4 Mi elements: f32 log2 0.69x -> 0.87x NumPy, arctan 0.98x ->
// 1.2x). Other programs keep the vectoriser's choice.
unsigned interleave_for(const ExprProgram& program) {
  for (const ExprInstr& s : program.code) {
    if ((s.kind != InstrKind::unary && s.kind != InstrKind::binary) || !is_floating(s.in)) continue;
    const detail::FunctionRow& row = s.kind == InstrKind::unary ? detail::row(static_cast<UnaryOp>(s.code))
                                                                : detail::row(static_cast<Op>(s.code));
    const DType precision = s.in == DType::f64 ? DType::f64 : DType::f32;  // f16 and bf16 compute in f32
    if (!row.math.empty() && math::recipes::recipe_for(row.math, s.arity(), precision)) return 4;
  }
  return 0;
}

// The program per element, or per vector of `lanes` elements: every value
// in registers, f16 and bf16 rounded after each node.
class ExpressionBody final : public NestBody {
 public:
  explicit ExpressionBody(const KernelKey& key)
      : spec_(expr_kernel_spec(key.expr)), program_(spec_.program), interleave_(interleave_for(program_)) {
    dtype_.push_back(program_.out_dtype);
    for (DType d : program_.inputs) dtype_.push_back(d);
  }

  const std::vector<DType>& dtypes() const { return dtype_; }
  const std::vector<InnerStride>& inner() const { return spec_.inner; }

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

  Parts convert(llvm::IRBuilder<>& b, int k, Value* stored) override { return {to_compute(b, dtype_[k], stored)}; }

  // NOTE: [Complex in IR]: a complex input's parts.
  Parts load(llvm::IRBuilder<>& b, int k, Value* address, unsigned lanes) override {
    const DType d = dtype_[k];
    if (is_complex(d)) return lanes == 1 ? load_complex(b, d, address) : load_complex_vector(b, d, address, lanes);
    llvm::Type* element = storage_type(b.getContext(), d);
    if (lanes == 1) return convert(b, k, b.CreateLoad(element, address));
    return convert(b, k, b.CreateAlignedLoad(llvm::FixedVectorType::get(element, lanes), address, llvm::Align(dtype_size(d))));
  }

  llvm::StoreInst* compute_and_store(llvm::IRBuilder<>& b, const std::vector<Parts>& inputs, Value* out,
                                     unsigned lanes) override {
    const Parts result = compute(b, inputs, lanes);
    const DType d = dtype_[0];
    if (is_complex(d)) {
      if (lanes > 1) return store_complex_vector(b, d, result, out);
      store_complex(b, d, result, out);
      return nullptr;  // two stores: never a streaming one (lanes 1)
    }
    llvm::StoreInst* store = emit_store(b, d, result.re, out);
    store->setAlignment(llvm::Align(dtype_size(d)));  // one element's: a vector type's own would be its size
    return store;
  }

  unsigned interleave() const override { return interleave_; }

 private:
  Parts compute(llvm::IRBuilder<>& b, const std::vector<Parts>& inputs, unsigned lanes) {
    std::vector<Parts> values = inputs;
    for (Parts s : scalars_) values.push_back(lanes > 1 ? splat(b, lanes, s) : s);
    for (const ExprInstr& s : program_.code) {
      if (is_complex(s.in) || is_complex(s.out)) {
        const Parts args[3] = {values[static_cast<std::size_t>(s.args[0])],
                               s.arity() > 1 ? values[static_cast<std::size_t>(s.args[1])] : Parts{},
                               s.arity() > 2 ? values[static_cast<std::size_t>(s.args[2])] : Parts{}};
        const Parts v = emit_complex_instr(b, s, args);
        values.push_back(v.im ? v : Parts{round_to_storage(b, s.out, v.re)});
        continue;
      }
      auto arg = [&](int a) { return values[static_cast<std::size_t>(s.args[a])].re; };
      Value* v = nullptr;
      switch (s.kind) {
        case InstrKind::binary: v = emit_op(b, static_cast<Op>(s.code), s.in, arg(0), arg(1)); break;
        case InstrKind::unary: v = emit_unary(b, static_cast<UnaryOp>(s.code), s.in, arg(0)); break;
        case InstrKind::cast: v = emit_cast(b, s.in, s.out, arg(0)); break;
        case InstrKind::ternary: v = emit_ternary(b, static_cast<TernaryOp>(s.code), s.in, arg(0), arg(1), arg(2)); break;
      }
      values.push_back({round_to_storage(b, s.out, v)});
    }
    return values[static_cast<std::size_t>(program_.result)];
  }

  static Parts splat(llvm::IRBuilder<>& b, unsigned lanes, Parts x) {
    return {b.CreateVectorSplat(lanes, x.re), x.im ? b.CreateVectorSplat(lanes, x.im) : nullptr};
  }

  const ExprKernelSpec& spec_;
  const ExprProgram& program_;
  unsigned interleave_;      // interleave_for(program_)
  std::vector<DType> dtype_;  // out, then each input
  std::vector<Parts> scalars_;
};

}  // namespace

llvm::Function* emit_expression_kernel(llvm::Module& module, const KernelKey& key, const CodegenSettings& settings,
                                       const std::string& symbol) {
  ExpressionBody body(key);
  return emit_loop_nest(module, key, settings, symbol, body.dtypes(), body.inner(), body);
}

}  // namespace bcast::jit
