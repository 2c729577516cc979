// Op and dtype names from the command line (--warm-ops add,mul ...), shared by
// the tools. An unknown name is an Error(value) naming the option and the name.
#pragma once

#include <string>
#include <vector>

#include "bcast/bcast.h"

namespace bcast::tools {

inline std::vector<Op> ops_from_names(const std::vector<std::string>& names, const std::string& option) {
  std::vector<Op> ops;
  for (const std::string& name : names) {
    const std::optional<Op> op = parse_op(name);
    if (!op) throw Error(ErrorKind::value, option + ": unknown op '" + name + "'");
    ops.push_back(*op);
  }
  return ops;
}

inline std::vector<DType> dtypes_from_names(const std::vector<std::string>& names, const std::string& option) {
  std::vector<DType> dtypes;
  for (const std::string& name : names) {
    const std::optional<DType> dtype = parse_dtype(name);
    if (!dtype) throw Error(ErrorKind::value, option + ": unknown dtype '" + name + "'");
    dtypes.push_back(*dtype);
  }
  return dtypes;
}

}  // namespace bcast::tools
