// bcast-run's operand syntax: a .npy file with an optional NumPy basic index,
// or a literal for random data.
//   img.npy            the whole array
//   img.npy[..., ::-1] a view of it (no copy)
//   f32[8,1,3]         random f32 data of shape (8,1,3); f32[] is a scalar
#pragma once

#include <optional>
#include <random>
#include <string>
#include <utility>

#include "bcast/bcast.h"

namespace bcast::tools {

struct Operand {
  std::string spec;
  Tensor storage;   // owns the memory
  TensorView view;  // what the op sees: storage, or an indexed view of it
};

// "f32[8,1,3]" -> (f32, {8,1,3}); "f32[]" -> (f32, {}); nullopt when spec does
// not look like a literal (no known dtype before '[' or no closing ']').
// Throws Error(value) for a literal with a bad extent ("f32[2,x]", "f32[-1]").
std::optional<std::pair<DType, Shape>> parse_shape_literal(const std::string& spec);

// Throws bcast::Error for a malformed literal, an unreadable or corrupt file, or
// a bad index expression.
Operand load_operand(const std::string& spec, std::mt19937_64& rng);

// `x` as the operand's text after its literal or file name asks: indexes
// ("[::-1]", "[1:, None]"), ".T" (dims reversed) and ".permute(1,0)", in any
// number and order: "f32[8,3][::-1].T". Throws Error(value) naming what it
// cannot read.
TensorView apply_view_suffix(const TensorView& x, std::string_view suffix, const std::string& spec);

// Where the file part of a file operand ends: the whole spec, or the part
// before an index ("img.bin[::-1]"), whichever is a .npy file by its magic
// bytes (any name); else after ".npy" in the name; else nullopt.
std::optional<std::size_t> npy_path_end(const std::string& spec);

}  // namespace bcast::tools
