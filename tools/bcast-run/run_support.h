// Helpers shared by bcast-run's single-op mode and its demo: random data,
// timing, byte counts and bit-exact comparison.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "bcast/bcast.h"
#include "timing.h"

namespace bcast::tools {

// Fills x with random values suited to its dtype: floats in [-10, 10), signed
// integers in [-100, 100], u8 over its whole range, bool 0 or 1.
void fill_random(const TensorView& x, std::mt19937_64& rng);

// Bytes a call must move: the distinct elements of each view (stride-0 dims
// count once) times the element size.
std::int64_t unique_bytes(const TensorView& x);

// One JSON object as --json prints it: a byte of a string that is not UTF-8
// (a file name, say) becomes U+FFFD instead of stopping the writer.
std::string json_text(const nlohmann::json& j);

// --json's timing fields: median_ns and the spread (min, quartiles, max).
nlohmann::json spread_json(const Spread& s);

// Index (in C order) of the first element where x and y differ bit for bit;
// nullopt when they are identical. Shapes and dtypes must match.
std::optional<std::int64_t> first_difference(const TensorView& x, const TensorView& y);

// --json's `cache` object: the kernel cache's counters.
nlohmann::json cache_json();

// --trace: the Ascend-style simulator's counters of the calling thread's
// last call, per block, or why it did not run there.
void print_trace();
// The same as JSON, for --trace --json.
nlohmann::json trace_json();
// A run that ends in failure, for main() to report on stderr (and with
// --json, as one JSON object on stdout): the exit status, a kind ("usage",
// "mismatch", or an error kind's name) and the message.
struct RunFailure : std::runtime_error {
  RunFailure(int exit_status, std::string failure_kind, const std::string& message)
      : std::runtime_error(message), status(exit_status), kind(std::move(failure_kind)) {}
  int status;
  std::string kind;
};

// --emit-ascend-c FILE: the last call's ascend-sim kernel as Ascend C source;
// false, with the reason on stderr, when the call did not run there or the
// writer cannot write its key.
bool write_ascend_c_source(const std::string& file, std::string_view form);

// Computes op(a, b) independently of the planner and executors (the naive executor).
Tensor expected_result(Op op, const TensorView& a, const TensorView& b);

}  // namespace bcast::tools
