// A naive model of the Ascend-style vector and copy instructions, written from
// the documentation's words alone (docs/ascend.md): one element or one block
// at a time, every address computed on its own, arithmetic in native C++. It
// shares nothing with src/ascend/ but the call structures; the fuzz target
// fuzz_ascend and AscendNaiveModel.* compare the simulator with it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace bcast::test {

// Decodes a call (a vector instruction over i16, u16, i32 or f32, or a copy)
// and a UB's contents from `data`, runs it on the simulator and on the
// model, and returns "" when both agree: both refuse it, or both accept it
// and leave the same bytes. Otherwise the call and the first difference.
std::string compare_ascend_with_naive_model(const std::uint8_t* data, std::size_t size);

}  // namespace bcast::test
