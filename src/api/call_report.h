// BCAST_VERBOSE's lines for prepares and calls (NOTE: [Verbose lines]): one
// line per prepare() ("create") and per call ("exec"), the same fields for
// ops and expressions, direct and prepared.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "bcast/ops.h"
#include "bcast/tensor.h"
#include "broadcast_plan.h"
#include "dispatch.h"

namespace bcast::report {

// How the application reached the call.
enum class Api { op, prepared, expr, prepared_expr };

struct CallLine {
  Api api = Api::op;
  std::string_view op;                // the op's name, or "expr"
  std::vector<TensorView> inputs;     // dtype and shape of each
  DType out_dtype = DType::f32;
  Shape out_shape;
  const BroadcastPlan* plan = nullptr;
  std::string_view kernel;            // the key, or "reference"
  std::string_view outcome;           // outcome_name()
  int threads = 0;                    // exec: threads the call ran on (NOTE: [Threads used]); create: 0
  std::chrono::steady_clock::duration took{};
  std::string_view expression;        // the expression's text; empty for an op
};

// Writes the line to the bcast.verbose logger; event is "create" or "exec".
void print(std::string_view event, const CallLine& line);

// The line of a binary op's prepare or call, its key worked out from `plan`
// and the target the kernel ran on.
void binary(std::string_view event, Api api, Op op, const TensorView& a, const TensorView& b, DType out_dtype,
            const Shape& out_shape, const BroadcastPlan& plan, const SelectedKernel& kernel, int threads,
            std::chrono::steady_clock::duration took);

// Whether BCAST_VERBOSE asks for lines: one relaxed load, for the hot paths.
bool wanted();

}  // namespace bcast::report
