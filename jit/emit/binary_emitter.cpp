// A binary op's element step, for the one loop nest.
#include "emit/binary_emitter.h"

#include <vector>

#include "emit/loop_nest_emitter.h"
#include "function_table.h"
#include "ir/ir_dtypes.h"
#include "ir/ir_ops.h"

namespace bcast::jit {
namespace {

using llvm::Value;

// out = op(a, b) with a and b as stored (storage types), scalars or vectors
// alike: the ops that copy an input's bits take them as stored
// (emit_on_stored_bits), the rest convert to the compute type first.
class BinaryBody final : public NestBody {
 public:
  explicit BinaryBody(const KernelKey& key) : op_(key.op), dtype_(key.dtype), out_(detail::result_dtype_of(key.op, key.dtype)) {}

  Parts convert(llvm::IRBuilder<>&, int, Value* stored) override { return {stored}; }

  Parts load(llvm::IRBuilder<>& b, int, Value* address, unsigned lanes) override {
    llvm::Type* element = storage_type(b.getContext(), dtype_);
    if (lanes == 1) return {b.CreateLoad(element, address)};
    return {b.CreateAlignedLoad(llvm::FixedVectorType::get(element, lanes), address, llvm::Align(dtype_size(dtype_)))};
  }

  // Aligned to one element (a vector type's own alignment would be its size).
  llvm::StoreInst* compute_and_store(llvm::IRBuilder<>& b, const std::vector<Parts>& in, Value* out,
                                     unsigned) override {
    Value* x = in[0].re;
    Value* y = in[1].re;
    Value* bits = emit_on_stored_bits(b, op_, dtype_, x, y);
    llvm::StoreInst* store =
        bits != nullptr ? b.CreateStore(bits, out)
                        : emit_store(b, out_, emit_op(b, op_, dtype_, to_compute(b, dtype_, x), to_compute(b, dtype_, y)), out);
    store->setAlignment(llvm::Align(dtype_size(out_)));
    return store;
  }

 private:
  Op op_;
  DType dtype_, out_;
};

}  // namespace

llvm::Function* emit_kernel(llvm::Module& module, const KernelKey& key, const CodegenSettings& settings,
                            const std::string& symbol) {
  BinaryBody body(key);
  const std::vector<DType> dtypes{detail::result_dtype_of(key.op, key.dtype), key.dtype, key.dtype};
  return emit_loop_nest(module, key, settings, symbol, dtypes, {key.inner.begin(), key.inner.end()}, body);
}

}  // namespace bcast::jit
