// The layout of a new output: dense, with its dims in the memory order of the
// inputs, as NumPy's order='K' lays out a ufunc's result.
#pragma once

#include <vector>

#include "bcast/layout.h"

namespace bcast {

// NOTE: [Output order] A new output is laid out in the order its inputs walk
// memory, so that out and the inputs walk memory together (the planner then
// merges their dims into long rows) and the result keeps the inputs' order,
// as NumPy's order='K' does. Starting from C order, each dim moves inside
// another when every input that moves along both (the broadcast ones do not)
// moves less along it, and at least one does; where the inputs disagree or
// none moves along both, the C order stays. Strides are positive whatever the
// inputs' signs.
//   a, b Fortran-order [4,3]               -> Fortran order, strides (1,4)
//   a Fortran-order [4,3], b [3]           -> Fortran order (b says nothing about dim 0)
//   a Fortran-order, b C-order [4,3]       -> C order (they disagree)
//   a [2,3,4] permuted to dims (2,0,1)     -> the same permutation, strides (1,12,4)
// Inputs are aligned on the right, as broadcasting aligns them.
Layout output_layout(const Shape& shape, const std::vector<const Layout*>& inputs);

}  // namespace bcast
