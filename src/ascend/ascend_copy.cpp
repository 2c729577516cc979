// The copy instructions' semantics, checks and price (NOTE: [Copy parameters]).
#include "ascend_copy.h"

#include <cmath>
#include <cstring>

#include <fmt/format.h>

namespace bcast::ascend {
namespace {

std::int64_t round_up(std::int64_t x, std::int64_t m) { return (x + m - 1) / m * m; }

// Where block i of a copy lies on each side, in bytes from its start.
struct Geometry {
  std::int64_t len = 0;                      // valid bytes a block
  std::int64_t left = 0;                     // UB bytes of left padding before them
  std::int64_t ub_pitch = 0, gm_pitch = 0;   // bytes from one block to the next
  std::int64_t ub_block = 0;                 // UB bytes a block occupies
};

Geometry geometry(const CopyCall& c) {
  Geometry g;
  const bool from_gm = c.dir == CopyDir::gm_to_ub;
  const std::int64_t gm_gap = from_gm ? c.src_gap : c.dst_gap;
  const std::int64_t ub_gap = from_gm ? c.dst_gap : c.src_gap;
  if (c.instr == Instr::DataCopy) {
    g.len = c.block_len * kBlockBytes;
    g.ub_block = g.len;
    g.gm_pitch = g.len + gm_gap * kBlockBytes;
  } else {
    g.len = c.block_len;
    g.left = c.left_pad * c.element_bytes;
    g.ub_block = round_up(g.left + c.block_len + c.right_pad * c.element_bytes, kBlockBytes);
    g.gm_pitch = g.len + gm_gap;
  }
  g.ub_pitch = g.ub_block + ub_gap * kBlockBytes;
  return g;
}

// One block's cycles (NOTE: [Ascend cost model]): its bytes rounded up to
// the 32-byte move, at the bandwidth its GM alignment allows.
double block_cycles(const CopyEngine& e, const char* gm, std::int64_t len) {
  const auto address = reinterpret_cast<std::uintptr_t>(gm);
  const double efficiency = address % static_cast<std::uintptr_t>(e.aligned_gm_bytes) == 0 ? 1.0 : e.unaligned_efficiency;
  return static_cast<double>(e.block_setup) + static_cast<double>(round_up(len, kBlockBytes)) / (e.bytes_per_cycle * efficiency);
}

// Fills a DataCopyPad block's pads in the UB (NOTE: [Copy parameters]).
void fill_pads(const CopyCall& c, const Geometry& g, char* block) {
  const std::int64_t size = c.element_bytes;
  auto fill = [&](std::int64_t from, std::int64_t to, const void* value) {
    for (std::int64_t p = from; p + size <= to; p += size) std::memcpy(block + p, value, static_cast<std::size_t>(size));
  };
  const std::int64_t data_end = g.left + g.len;
  const std::int64_t pads_end = data_end + c.right_pad * size;
  if (c.pad) {
    fill(0, g.left, &c.pad_value);
    fill(data_end, g.ub_block, &c.pad_value);
  } else {
    char first[8];
    std::memcpy(first, block + g.left, static_cast<std::size_t>(size));
    fill(pads_end, g.ub_block, first);
  }
}
}  // namespace

std::string describe(const CopyCall& c, const std::string& name, std::ptrdiff_t gm_offset) {
  const bool from_gm = c.dir == CopyDir::gm_to_ub;
  const std::string gm = fmt::format("{}+{:#x}", name, gm_offset);
  const std::string ub = fmt::format("ub {:#x}", c.ub);
  const char* unit = c.instr == Instr::DataCopy ? "blocks" : "bytes";
  std::string text = fmt::format("{}({} <- {}, {} x {} {}, gaps {}/{})", instr_name(c.instr), from_gm ? ub : gm,
                                 from_gm ? gm : ub, c.block_count, c.block_len, unit, c.src_gap, c.dst_gap);
  if (c.pad) text.insert(text.size() - 1, fmt::format(", pad {:#x}", c.pad_value));
  return text;
}

CopyIssue execute(UbBytes ub, const Product& product, const CopyCall& c, const std::vector<GmRegion>& regions,
                  const std::vector<std::string>& names) {
  CopyIssue issue;
  const bool from_gm = c.dir == CopyDir::gm_to_ub;
  const bool valid_operand = c.operand >= 0 && c.operand < static_cast<int>(regions.size());
  const std::string name = valid_operand ? names[static_cast<std::size_t>(c.operand)] : "?";
  const GmRegion region = valid_operand ? regions[static_cast<std::size_t>(c.operand)] : GmRegion{};
  const std::string call = describe(c, name, valid_operand ? c.gm - region.begin : 0);
  auto fail = [&](const std::string& what) {
    issue.error = call + ": " + what;
    return issue;
  };
  if (!valid_operand) return fail(fmt::format("no operand {}", c.operand));
  if (c.instr == Instr::DataCopyPad && !product.has_data_copy_pad)
    return fail(fmt::format("{} has no DataCopyPad; DataCopy moves whole 32-byte blocks", product.name));
  if (c.instr != Instr::DataCopy && c.instr != Instr::DataCopyPad) return fail("not a copy instruction");
  if (c.block_count < 1 || c.block_count > 4095) return fail(fmt::format("block count {} is outside 1 .. 4095", c.block_count));
  if (c.block_len < 1 || c.block_len > 65535) return fail(fmt::format("block length {} is outside 1 .. 65535", c.block_len));
  if (c.src_gap < 0 || c.dst_gap < 0) return fail("a gap is negative");
  if ((c.pad || c.left_pad > 0 || c.right_pad > 0) && (!from_gm || c.instr != Instr::DataCopyPad))
    return fail("padding applies to DataCopyPad into the UB");
  if (c.left_pad < 0 || c.right_pad < 0 || c.left_pad * c.element_bytes > kBlockBytes ||
      c.right_pad * c.element_bytes > kBlockBytes)
    return fail(fmt::format("a pad of {} or {} elements is outside 0 .. 32 bytes", c.left_pad, c.right_pad));
  if (c.instr == Instr::DataCopyPad && c.block_len % c.element_bytes != 0)
    return fail(fmt::format("block length {} bytes is not a whole number of {}-byte elements", c.block_len,
                            c.element_bytes));
  if (c.ub % kBlockBytes != 0) return fail(fmt::format("UB address {:#x} is not a multiple of {} bytes", c.ub, kBlockBytes));

  const Geometry g = geometry(c);
  const std::int64_t ub_end = c.ub + (c.block_count - 1) * g.ub_pitch + g.ub_block;
  if (c.ub < 0 || ub_end > static_cast<std::int64_t>(ub.size()))
    return fail(fmt::format("UB range [{:#x}, {:#x}) overflows the {}-byte UB", c.ub, ub_end, ub.size()));
  for (std::int64_t i = 0; i < c.block_count; ++i) {
    const char* block = c.gm + i * g.gm_pitch;
    if (block < region.begin || block + g.len > region.end)
      return fail(fmt::format("block {}'s GM range [{:#x}, {:#x}) is outside {}'s buffer of {} bytes ({} bytes past "
                              "its end)",
                              i, block - region.begin, block + g.len - region.begin, name,
                              region.end - region.begin, std::max<std::ptrdiff_t>(0, block + g.len - region.end)));
  }

  issue.ub = {c.ub, ub_end};
  const CopyEngine& engine = from_gm ? product.mte2 : product.mte3;
  double cycles = static_cast<double>(engine.setup);
  for (std::int64_t i = 0; i < c.block_count; ++i) {
    char* u = ub.data() + c.ub + i * g.ub_pitch;
    const char* m = c.gm + i * g.gm_pitch;
    if (from_gm) {
      std::memcpy(u + g.left, m, static_cast<std::size_t>(g.len));
      if (c.instr == Instr::DataCopyPad) fill_pads(c, g, u);
    } else {
      std::memcpy(const_cast<char*>(m), u, static_cast<std::size_t>(g.len));
    }
    issue.gm.emplace_back(m, m + g.len);
    issue.bytes += g.len;
    cycles += block_cycles(engine, m, g.len);
  }
  issue.cycles = static_cast<std::int64_t>(std::ceil(cycles));
  return issue;
}

}  // namespace bcast::ascend
