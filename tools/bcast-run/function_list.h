// bcast-run --functions: every function of the table (NOTE: [Function table])
// as docs/semantics.md prints it.
#pragma once

#include <string>

namespace bcast::tools {

// One markdown table, a row per function: its names, arity, the dtypes it
// has loops for, its result, its accuracy and what it computes.
std::string function_table_markdown();

}  // namespace bcast::tools
