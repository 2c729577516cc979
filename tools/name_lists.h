// Op and dtype names from the command line (--warm-ops add,mul ...), shared by
// the tools. An unknown name is an Error(value) naming the option and the name.
#pragma once

#include <string>
#include <vector>

#include "bcast/bcast.h"

namespace bcast::tools {

// `parse` maps a name to a value, or nullopt for a name it does not know.
template <class T, class Parse>
std::vector<T> values_from_names(const std::vector<std::string>& names, const std::string& option, Parse parse,
                                 const char* what) {
  std::vector<T> values;
  for (const std::string& name : names) {
    const std::optional<T> value = parse(name);
    if (!value) throw Error(ErrorKind::value, option + ": unknown " + what + " '" + name + "'");
    values.push_back(*value);
  }
  return values;
}

inline std::vector<Op> ops_from_names(const std::vector<std::string>& names, const std::string& option) {
  return values_from_names<Op>(names, option, parse_op, "op");
}

inline std::vector<DType> dtypes_from_names(const std::vector<std::string>& names, const std::string& option) {
  return values_from_names<DType>(names, option, parse_dtype, "dtype");
}

}  // namespace bcast::tools
