// Which kernels of the disk cache a `bcast-cache show` argument names.
#pragma once

#include <string>
#include <vector>

#include "cache/disk_cache.h"

namespace bcast::tools {

// The readable files that `arg` names, in the listing's order:
//   - the file whose key is `arg`, when there is one: that file alone;
//   - else every file whose key starts with `arg`
//     ("add.f16.[expand_b,same,expand_b].uuz.ascend-sim-910b", "add.f32");
//   - and, when `arg` is 4 to 16 hex digits, every file whose own hash
//     (its name, "65ba0e8952e1ef3c.bck") or whose key's tuning hash (the
//     field that ends every key, "...host.znver5.O2.74404425") starts with it.
// Examples: "74404425" names every kernel built with this host's settings;
// "65ba0e89" the one file of that name.
std::vector<const jit::DiskFile*> files_named_by(const std::vector<jit::DiskFile>& files, const std::string& arg);

// The hash a disk cache file is named by (its name less ".bck").
std::string file_hash(const jit::DiskFile& file);

}  // namespace bcast::tools
