// The Ascend-style lowering of a kernel key on a product: how each input
// reaches a tile, and the vector instructions that compute it (NOTE:
// [Ascend lowering]). Shared by the LLVM emitter and the Ascend C writer, so
// both write the same kernel; independent of shapes.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ascend_isa.h"
#include "ascend_product.h"
#include "expr_program.h"
#include "kernel_key.h"

namespace bcast::ascend {

// NOTE: [Ascend lowering] A tile is `rows` rows of the plan's second level
// by `cols` elements of its innermost one, each row padded in the UB to
// `pitch` elements (32 bytes of every dtype). Each input reaches it as
//   stream:  it varies along both: copied with the tile, a block per row;
//   row:     it repeats along the rows (a [1, n] row): it stays resident,
//            copied once a block and read by every row of every tile, when
//            tiles are whole rows and it repeats along the outer levels too;
//            else its row piece is copied with each tile and read by every
//            row of it;
//   column:  it repeats along the row (an [m, 1] column): the tile's `rows`
//            values are copied and Brcb spreads them, a 32-byte block a row,
//            for the instructions to read with a block stride of 0;
//   scalar:  it repeats along every level (one element): read once per block
//            into a register (GetValue), used by the scalar forms (Adds,
//            Muls, Maxs, Mins) or spread by Duplicate;
//   gather:  its innermost stride is not 1 (a transposed or sliced view):
//            DataCopyPad moves each element of the tile's row into a 32-byte
//            block of its own, and Gather packs them, through byte offsets
//            made once a block (CreateVecIndex, Muls); tiles are then one row
//            of at most 4095 elements (a copy's blocks).
// The program's nodes become vector instructions: an op its instruction
// where the product has it for the dtype; bf16 arithmetic through f32 and
// back (Cast, exact as NumPy's rounding); a cast the Cast pair, or two Casts
// through a type that holds the source exactly. Anything else is refused with
// the missing instruction named, and the call runs on the host.
enum class Fetch : std::uint8_t { stream, row, column, scalar, gather };
std::string_view fetch_name(Fetch f);

// A value a step reads: an input's tile data, a scalar register (an input
// fetched as a scalar, an expression's scalar argument, or what the scalar
// unit computed from registers), or an earlier step's tile.
struct Ref {
  enum Kind : std::uint8_t { input, scalar_input, scalar_arg, scalar_step, constant, step } kind = input;
  int index = 0;  // a constant's: its bits (a half 1.0 is 0x3c00)
  bool is_register() const {
    return kind == scalar_input || kind == scalar_arg || kind == scalar_step || kind == constant;
  }
};

// One step of a tile. A vector instruction: binary, args[0] op args[1], both
// tensors; a scalar form, args[0] op register args[1] (negated first for a
// subtraction lowered to Adds); Duplicate of register args[0]; Cast of
// args[0]; Compare of args[0] and args[1] into a bit array (`mode` its
// CMPMODE); Select of args[0] where args[2]'s bit is set, else the register
// args[1]. Or, with `scalar_unit`, the program node `node` computed on
// registers by the scalar unit (args are then registers, up to three).
//
// A comparison (eq .. ge, on half and float; EQ and NE on int32_t where the
// product compares int32_t) is Compare into bits, Select between a half 1.0
// (Duplicate) and 0, and Cast to uint8_t: NumPy's bool of 0 and 1; NE on
// int32_t is EQ with the two swapped. It needs whole tiles (a bit array a
// row would not start on 32 bytes): with a row or column input it falls back.
struct Step {
  Instr instr = Instr::Add;
  DType dtype = DType::f32;      // the instruction's type (dst's for Cast)
  DType src_dtype = DType::f32;  // Cast's source
  std::array<Ref, 3> args{};
  RoundMode round = RoundMode::none;
  std::uint8_t mode = 0;  // Compare's CMPMODE, Select's SELMODE
  bool negate_scalar = false;
  bool scalar_unit = false;
  ExprInstr node{};
};

struct Lowering {
  std::vector<DType> inputs;    // each input's dtype
  std::vector<Fetch> fetch;     // each input's
  std::vector<DType> scalars;   // the expression's scalar arguments' kernel dtypes
  std::vector<Step> steps;      // the last one writes out's tile
  DType out = DType::f32;
  bool per_row = false;         // a row or column input: steps run a row at a time
  bool gathers = false;         // a gather input: tiles are one row
  std::int64_t count_granule = 1;  // elements every count-form call must cover a multiple of (Compare: 256 bytes)
  std::string refused;          // why the product cannot run the key, naming the instruction; "" when it can
};

// NOTE: [Rows in repeats] A per-row lowering whose tiling's rows (its
// `cols`, not a tile's last piece: the pitch is a repeat stride, at most 255
// blocks) are at most this many elements runs each step as level-0 calls of
// a repeat a row: mask
// = the row's elements, repeat = up to 255 rows, each operand's repeat
// stride its row pitch in blocks (a row input's 0, a column's one block or
// 0), so one call covers 255 rows where the per-row loop made 255 calls.
// A repeat is 256 bytes of the widest element any step reads or writes.
std::int64_t row_repeat_cols(const Lowering& lw);

// The UB bytes an element of step `s`'s result takes in its tile buffer (a
// Compare's bit array: one, generously).
inline std::int64_t result_bytes(const Step& s) {
  return s.instr == Instr::Compare ? 1 : static_cast<std::int64_t>(dtype_size(s.dtype));
}

// The lowering of `key` (a binary op's, or an expression's) for `product`.
Lowering lower_for_ascend(const KernelKey& key, const Product& product);

}  // namespace bcast::ascend
