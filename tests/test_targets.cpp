// The target objects (src/kernel/target.h) answer from their own facts: the
// host from the code generator's description of it, the Ascend-style target
// from the simulator's model.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ascend_product.h"
#include "ascend_target.h"
#include "bcast/config.h"
#include "bcast/runtime.h"
#include "cache/kernel_cache.h"
#include "host_target.h"
#include "kernel_provider.h"
#include "targets.h"
#include "test_support.h"

namespace bcast {
namespace {

TEST(Targets, TheFactoryMakesOneObjectPerKind) {
  EXPECT_EQ(target_for(TargetKind::host).kind(), TargetKind::host);
  EXPECT_EQ(target_for(TargetKind::ascend_sim).kind(), TargetKind::ascend_sim);
  EXPECT_EQ(&target_for(TargetKind::host), &target_for(TargetKind::host));
  EXPECT_EQ(target_for(TargetKind::host).name(), "host");
  EXPECT_EQ(target_for(TargetKind::ascend_sim).name(), "ascend-sim");
}

TEST(Targets, TheHostAnswersFromItsDescription) {
  const Target& host = target_for(TargetKind::host);
  const HostDescription& described = provider::host_description();
  EXPECT_EQ(host.features(), described.features);
  EXPECT_EQ(host.line_bytes(), 64);
  EXPECT_GT(host.auto_stream_bytes(1), 0u);
  EXPECT_THAT(host.auto_stream_decision(1), ::testing::HasSubstr("for 1 thread: "));
  EXPECT_TRUE(host.has_loop_variants());
  EXPECT_TRUE(host.jit_symbols().empty());
  EXPECT_EQ(host.can_stream_stores(), described.triple.starts_with("x86_64"));
  const std::string features = "," + described.features + ",";
  const bool avx512 = features.find(",+avx512f,") != std::string::npos;
  const bool avx = features.find(",+avx,") != std::string::npos;
  if (described.triple.starts_with("x86_64")) {
    EXPECT_EQ(host.vector_bits(), avx512 ? 512 : avx ? 256 : 128);
  } else {
    EXPECT_EQ(host.vector_bits(), 128);
  }
}

// Facts come from the description, not from the machine bcast was built on.
TEST(Targets, AHostIsDescribedNotCompiledIn) {
  const HostTarget arm({.triple = "aarch64-unknown-linux-gnu", .cpu = "neoverse-v1", .features = "+neon,+sve"});
  EXPECT_FALSE(arm.can_stream_stores());
  EXPECT_EQ(arm.vector_bits(), 128);
  const HostTarget avx2({.triple = "x86_64-pc-linux-gnu", .cpu = "haswell", .features = "+avx,+avx2,+fma"});
  EXPECT_TRUE(avx2.can_stream_stores());
  EXPECT_EQ(avx2.vector_bits(), 256);
  const HostTarget sse({.triple = "x86_64-pc-linux-gnu", .cpu = "x86-64", .features = "+sse2,+avx512fake"});
  EXPECT_EQ(sse.vector_bits(), 128) << "a feature whose name only starts with a real one does not count";
}

TEST(Targets, TheAscendTargetIsItsSimulatorsModel) {
  const Target& ascend = target_for(TargetKind::ascend_sim);
  EXPECT_EQ(ascend.line_bytes(), ascend::kAlign);
  EXPECT_EQ(ascend.vector_bits(), 8 * ascend::kRepeatBytes);
  EXPECT_FALSE(ascend.can_stream_stores());
  EXPECT_FALSE(ascend.has_loop_variants());
  std::vector<std::string> names;
  for (const JitSymbol& s : ascend.jit_symbols()) {
    names.push_back(s.name);
    EXPECT_NE(s.address, nullptr) << s.name;
  }
  EXPECT_THAT(names, ::testing::UnorderedElementsAre("bcast_sim_copy", "bcast_sim_vector", "bcast_sim_queue",
                                                     "bcast_sim_flag", "bcast_sim_get_value", "bcast_sim_tile_done"));
}

// NOTE: [Target models]: one ascend-sim target a product, each its own model
// in the keys; the setting names every product the table has.
TEST(Targets, EachProductIsAModelOfTheAscendTarget) {
  std::vector<std::string> accepted;
  for (const ascend::Product& p : ascend::products()) {
    const test::ScopedSetting product("BCAST_ASCEND_PRODUCT", std::string(p.name));
    const Target& t = target_for(TargetKind::ascend_sim);
    EXPECT_EQ(t.model_name(), p.name);
    EXPECT_EQ(ascend::products()[t.model() - 1u].name, p.name);
    const KernelKey key = make_kernel_key(t, Op::add, DType::f32, BroadcastType{DimCode::same}, provider::current_codegen_id());
    EXPECT_NE(key.to_string().find(".ascend-sim-" + std::string(p.name) + "."), std::string::npos) << key.to_string();
  }
  for (const SettingInfo& s : effective_settings())
    if (s.name == "BCAST_ASCEND_PRODUCT") {
      EXPECT_EQ(s.accepted, ascend::product_names());
    }
}

// A public setter tells the provider, which tells jit/'s cache at once: its
// capacity changes before any other call reaches the provider.
TEST(Targets, ASetterReachesTheJitCacheAtOnce) {
  const std::size_t before = kernel_cache_capacity();
  set_kernel_cache_capacity(7);
  EXPECT_EQ(jit::kernel_cache().capacity(), 7u);
  set_kernel_cache_capacity(before);
  EXPECT_EQ(jit::kernel_cache().capacity(), before);
}

}  // namespace
}  // namespace bcast
