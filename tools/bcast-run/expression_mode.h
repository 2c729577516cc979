// bcast-run -e: one expression over named operands.
//   bcast-run -e "(f32(x) - m) / s" x=img.npy m=f32[3] s=0.5 --json
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bcast::tools {

struct ExpressionRun {
  std::string expression;
  std::vector<std::string> operands;  // NAME=OPERAND
  std::string output;
  bool check = false, json = false, trace = false;
  std::string emit_ascend_c;  // a file for the call's ascend-sim kernel as Ascend C
  std::string ascend_c_form;  // its entry: kAscendCFormNames
  int repeat = 0;
  std::uint64_t seed = 0;
};

// The exit status: 0, 1 when --check finds a difference, 2 for a malformed
// NAME=OPERAND. Throws bcast::Error for invalid input (the caller's exit 3).
int run_expression_mode(const ExpressionRun& run);

}  // namespace bcast::tools
