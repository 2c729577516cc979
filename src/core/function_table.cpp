// The function table's look-ups (the rows are in function_table.h).
#include "function_table.h"

#include <unordered_map>
#include <vector>

namespace bcast::detail {

std::optional<DType> loop_for(const FunctionRow& r, DType d) {
  if (r.loops.contains(d)) return d;
  if (d == DType::boolean && !r.bool_casts) return std::nullopt;
  // NumPy's order of loops: bool, the integers from narrow to wide, the floats, the complex.
  static constexpr DType kOrder[] = {DType::boolean, DType::i8,  DType::u8,  DType::i16, DType::u16,
                                     DType::i32,     DType::u32, DType::i64, DType::u64, DType::f16,
                                     DType::bf16,    DType::f32, DType::f64, DType::c64, DType::c128};
  for (DType loop : kOrder)
    if (r.loops.contains(loop) && promote_types(d, loop) == loop) return loop;  // d casts to it safely
  return std::nullopt;
}

namespace {
std::vector<FunctionRow> every_row() {
  std::vector<FunctionRow> rows(kBinaryRows.begin(), kBinaryRows.end());
  rows.insert(rows.end(), kUnaryRows.begin(), kUnaryRows.end());
  rows.insert(rows.end(), kTernaryRows.begin(), kTernaryRows.end());
  return rows;
}

}  // namespace

std::vector<std::string_view> names_of(const FunctionRow& r) {
  std::vector<std::string_view> names{r.name};
  for (std::string_view rest = r.aliases; !rest.empty();) {
    const std::size_t space = rest.find(' ');
    names.push_back(rest.substr(0, space));
    rest = space == std::string_view::npos ? std::string_view{} : rest.substr(space + 1);
  }
  return names;
}

std::span<const FunctionRow> all_functions() {
  static const std::vector<FunctionRow> rows = every_row();
  return rows;
}

// Every name and alias, indexed once: the grammar looks up each call it reads.
const FunctionRow* find_function(std::string_view name, Arity arity) {
  static const std::unordered_map<std::string_view, const FunctionRow*> by_name = [] {
    std::unordered_map<std::string_view, const FunctionRow*> index;
    for (const FunctionRow& r : all_functions())
      for (std::string_view n : names_of(r)) index.emplace(n, &r);
    return index;
  }();
  const auto found = by_name.find(name);
  return found != by_name.end() && found->second->arity == arity ? found->second : nullptr;
}

}  // namespace bcast::detail
