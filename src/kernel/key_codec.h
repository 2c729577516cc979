// The text of a kernel key, both ways, driven by one table of fields:
//   op . dtype . [type] . layout . target . cpu . O<level>[q] . <tuning>
//   add.f32.[expand_b,same].uuz.nt.host.znver5.O2.1a2b3c4d
//   expr[(x0-x1)/x2].u8,f32,f32.[expand_bc,same].uzzz.host.znver5.O2.1a2b3c4d
// The first three name the spec (NOTE: [Expression kernels]): a binary op's,
// op(x0, x1), as the op and its dtype; any other as its structure and its
// leaves' types. The layout is the inner strides of out and each input, then
// each loop variant's suffix as its row prints it (NOTE: [Loop variants]);
// the tuning is a hash of the CPU features and vector width.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "kernel_key.h"

namespace bcast {

std::string key_to_string(const KernelKey& key);
std::string layout_code(const KernelKey& key);

// A key text split into its fields; the codegen field is "cpu.O<level>.<tuning>".
struct KeyFields {
  std::string op, dtype, type, layout, target, codegen;
  std::string cpu;
  int opt_level = -1;
};
std::optional<KeyFields> split_kernel_key(std::string_view text);

// The key that `text` names, given the interned codegen settings it was made
// with (a caller that does not know them finds candidates from the fields'
// cpu and opt level). nullopt when a field does not parse or the key would
// print otherwise.
std::optional<KernelKey> parse_kernel_key(std::string_view text, std::uint32_t codegen);

// The same from fields kept apart, as a disk cache file's header keeps them.
std::optional<KernelKey> parse_kernel_key(const KeyFields& fields, std::uint32_t codegen);

}  // namespace bcast
