// The intrinsic calls of an Ascend-style kernel, built in IR.
#include "emit/ascend_calls.h"

#include <cstddef>
#include <type_traits>

namespace bcast::jit {
namespace {

using namespace bcast::ascend;
using llvm::Value;

// The LLVM type of a C parameter or result type of NOTE: [Ascend intrinsics].
template <class T>
llvm::Type* llvm_type(llvm::LLVMContext& c) {
  if constexpr (std::is_void_v<T>) return llvm::Type::getVoidTy(c);
  else if constexpr (std::is_pointer_v<T>) return llvm::PointerType::get(c, 0);
  else return llvm::IntegerType::get(c, 8 * sizeof(T));
}

template <class Prototype>
struct FunctionTypeOf;
template <class Result, class... Params>
struct FunctionTypeOf<Result(Params...)> {
  static llvm::FunctionType* get(llvm::LLVMContext& c) {
    return llvm::FunctionType::get(llvm_type<Result>(c), {llvm_type<Params>(c)...}, false);
  }
};


struct IntrinsicDecl {
  const char* symbol;
  llvm::FunctionType* (*type)(llvm::LLVMContext&);
};
#define BCAST_INTRINSIC_DECL(symbol, prototype) {#symbol, &FunctionTypeOf<ascend::prototype>::get},
constexpr IntrinsicDecl kIntrinsics[] = {BCAST_ASCEND_INTRINSICS(BCAST_INTRINSIC_DECL)};
#undef BCAST_INTRINSIC_DECL

}  // namespace

// One value per entry of BCAST_ASCEND_INTRINSICS, in its order (kIntrinsics').
#define BCAST_INTRINSIC_VALUE(symbol, prototype) symbol,
enum class AscendCalls::Intrinsic : int { BCAST_ASCEND_INTRINSICS(BCAST_INTRINSIC_VALUE) };
#undef BCAST_INTRINSIC_VALUE

AscendCalls::AscendCalls(llvm::Module& module, llvm::IRBuilder<>& b, Value* ctx)
    : module_(module), b_(b), ctx_(ctx),
      copy_call_(b.CreateAlloca(llvm::ArrayType::get(b.getInt8Ty(), sizeof(CopyCall)), nullptr, "copy_call")),
      vector_call_(b.CreateAlloca(llvm::ArrayType::get(b.getInt8Ty(), sizeof(VectorCall)), nullptr, "vector_call")) {}

void AscendCalls::vector(const Vector& f) {
  Value* c = vector_call_;
  b_.CreateMemSet(c, b_.getInt8(0), sizeof(VectorCall), llvm::MaybeAlign(8));
  store8(c, offsetof(VectorCall, instr), static_cast<std::uint8_t>(f.instr));
  store8(c, offsetof(VectorCall, dtype), static_cast<std::uint8_t>(f.dtype));
  store8(c, offsetof(VectorCall, src_dtype), static_cast<std::uint8_t>(f.src_dtype));
  store8(c, offsetof(VectorCall, mode), f.mode);
  store64(c, offsetof(VectorCall, dst), f.dst);
  if (f.src0) store64(c, offsetof(VectorCall, src0), f.src0);
  if (f.src1) store64(c, offsetof(VectorCall, src1), f.src1);
  if (f.sel) store64(c, offsetof(VectorCall, sel), f.sel);
  if (f.scalar) store64(c, offsetof(VectorCall, scalar), f.scalar);
  store64(c, offsetof(VectorCall, count), f.count ? f.count : b_.getInt64(-1));
  if (f.mask) store64(c, offsetof(VectorCall, mask) + offsetof(Mask, count), f.mask);
  if (f.repeat) store64(c, offsetof(VectorCall, repeat_times), f.repeat);
  const std::int64_t p[] = {f.params.dst_blk, f.params.src0_blk, f.params.src1_blk,
                            f.params.dst_rep, f.params.src0_rep, f.params.src1_rep};
  for (int i = 0; i < 6; ++i)
    store64(c, offsetof(VectorCall, params) + 8 * i, i >= 3 && f.rep[i - 3] ? f.rep[i - 3] : b_.getInt64(p[i]));
  call(Intrinsic::bcast_sim_vector, {ctx_, c});
}

void AscendCalls::copy(Instr instr, CopyDir dir, Value* ub, Value* gm, int operand, std::int64_t element_bytes,
                       Value* count, Value* len, Value* src_gap, Value* dst_gap) {
  Value* c = copy_call_;
  b_.CreateMemSet(c, b_.getInt8(0), sizeof(CopyCall), llvm::MaybeAlign(8));
  store8(c, offsetof(CopyCall, instr), static_cast<std::uint8_t>(instr));
  store8(c, offsetof(CopyCall, dir), static_cast<std::uint8_t>(dir));
  store64(c, offsetof(CopyCall, ub), ub);
  b_.CreateStore(gm, b_.CreateConstGEP1_64(b_.getInt8Ty(), c, offsetof(CopyCall, gm)));
  b_.CreateStore(b_.getInt32(static_cast<std::uint32_t>(operand)),
                 b_.CreateConstGEP1_64(b_.getInt8Ty(), c, offsetof(CopyCall, operand)));
  store64(c, offsetof(CopyCall, element_bytes), b_.getInt64(element_bytes));
  store64(c, offsetof(CopyCall, block_count), count);
  store64(c, offsetof(CopyCall, block_len), len);
  store64(c, offsetof(CopyCall, src_gap), src_gap);
  store64(c, offsetof(CopyCall, dst_gap), dst_gap);
  call(Intrinsic::bcast_sim_copy, {ctx_, c});
}

void AscendCalls::queue(QueueOp op, int queue, Value* slot32) {
  call(Intrinsic::bcast_sim_queue, {ctx_, b_.getInt32(static_cast<std::uint32_t>(op)),
                                    b_.getInt32(static_cast<std::uint32_t>(queue)), slot32});
}

void AscendCalls::flag(bool set, Pipe from, Pipe to, int event) {
  call(Intrinsic::bcast_sim_flag, {ctx_, b_.getInt32(set ? 1 : 0), b_.getInt32(static_cast<std::uint32_t>(from)),
                                   b_.getInt32(static_cast<std::uint32_t>(to)),
                                   b_.getInt32(static_cast<std::uint32_t>(event))});
}

Value* AscendCalls::get_value(Value* ub, int bytes) {
  return call(Intrinsic::bcast_sim_get_value, {ctx_, ub, b_.getInt32(static_cast<std::uint32_t>(bytes))});
}

void AscendCalls::tile_done() { call(Intrinsic::bcast_sim_tile_done, {ctx_}); }

// Calls an intrinsic, declared from its shared prototype; the verifier
// rejects a call whose arguments do not match it.
Value* AscendCalls::call(Intrinsic which, std::initializer_list<Value*> args) {
  const IntrinsicDecl& decl = kIntrinsics[static_cast<std::size_t>(which)];
  llvm::FunctionCallee callee = module_.getOrInsertFunction(decl.symbol, decl.type(module_.getContext()));
  return b_.CreateCall(callee, args);
}

void AscendCalls::store8(Value* base, std::size_t offset, std::uint8_t v) {
  b_.CreateStore(b_.getInt8(v), b_.CreateConstGEP1_64(b_.getInt8Ty(), base, offset));
}

void AscendCalls::store64(Value* base, std::size_t offset, Value* v) {
  b_.CreateStore(v, b_.CreateConstGEP1_64(b_.getInt8Ty(), base, offset));
}

}  // namespace bcast::jit
