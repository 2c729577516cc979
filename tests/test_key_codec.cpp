// The key codec (src/kernel/key_codec.h): every key that bcast makes, of every
// loop variant and target, prints to a text that parses back to the same key;
// texts that no key prints do not parse.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "codegen_settings.h"
#include "expr_kernel.h"
#include "function_table.h"
#include "kernel_key.h"
#include "kernel_provider.h"
#include "key_codec.h"
#include "targets.h"
#include "test_support.h"
#include "variant.h"

namespace bcast {
namespace {

using DC = DimCode;

// Plans that reach every variant: each type's pre-generation plans, plus a
// transposed input, a batched transposed input and strided and broadcast views.
std::vector<BroadcastPlan> plans_of(const Target& target, const BroadcastType& type) {
  PregenerationSet set{.target = target, .type = type, .stream_min_bytes = 0};
  for (const VariantRow& row : variant_table())
    if (row.pregenerate != nullptr) row.pregenerate(set);
  std::vector<BroadcastPlan> plans = set.plans;
  if (type.size() >= 2) {
    BroadcastPlan t = contiguous_plan(type, std::vector<std::int64_t>(type.size(), 64));
    const std::size_t rows = type.size() - 2, cols = type.size() - 1;
    for (const int k : {kA, kB})
      if (t.strides[k][cols] == 1 && t.strides[k][rows] != 0) {
        BroadcastPlan transposed = t;
        std::swap(transposed.strides[k][rows], transposed.strides[k][cols]);
        plans.push_back(transposed);
      }
  }
  if (!type.empty()) {
    BroadcastPlan strided = contiguous_plan(type, std::vector<std::int64_t>(type.size(), 8));
    for (auto& s : strided.strides[kB]) s *= 3;
    plans.push_back(strided);
  }
  return plans;
}

TEST(KeyCodec, EveryKeyOfEveryVariantAndTargetRoundTrips) {
  std::map<std::string, int> keys_with;  // variant name -> keys that carry it
  int keys = 0;
  for (const TargetKind kind : {TargetKind::host, TargetKind::ascend_sim}) {
    const Target& target = target_for(kind);
    for (const auto& [op, dtype] : test::supported_pairs()) {
      if (op != Op::add && op != Op::eq && op != Op::max) continue;
      for (int rank = 0; rank <= 4; ++rank)
        for (const BroadcastType& type : types_of_rank(rank))
          for (const BroadcastPlan& plan : plans_of(target, type))
            for (const std::uint64_t threshold : {kNeverStream, std::uint64_t{0}}) {
              const KernelKey key = make_kernel_key(target, op, dtype, plan, provider::current_codegen_id(), threshold);
              const std::string text = key.to_string();
              ASSERT_EQ(parse_kernel_key(text, key.codegen), key) << text;
              const std::optional<KeyFields> fields = split_kernel_key(text);
              ASSERT_TRUE(fields.has_value()) << text;
              EXPECT_EQ(fields->layout, key.layout_code()) << text;
              const std::string model = target.model_name();
              EXPECT_EQ(fields->target, std::string(target.name()) + (model.empty() ? "" : "-" + model)) << text;
              ++keys;
              for (const VariantRow& row : variant_table())
                if (row.in_key != nullptr && row.in_key(key)) ++keys_with[std::string(row.name)];
            }
    }
  }
  // The property is vacuous for a variant no key carries.
  EXPECT_GT(keys, 10000);
  EXPECT_GT(keys_with["fixed rows"], 0);
  EXPECT_GT(keys_with["transposed tiles"], 0);
  if (target_for(TargetKind::host).can_stream_stores()) {
    EXPECT_GT(keys_with["streaming stores"], 0);
  }
}

// An expression kernel's key for inputs of these dtypes and layouts, out
// contiguous in their broadcast shape.
KernelKey expression_key(const std::string& structure, const std::vector<DType>& dtypes,
                         const std::vector<Layout>& layouts, std::uint64_t threshold) {
  std::vector<LeafType> types;
  std::vector<const Layout*> pointers;
  Shape out;
  for (std::size_t i = 0; i < layouts.size(); ++i) {
    types.push_back({ScalarKind::strong, dtypes[i]});
    pointers.push_back(&layouts[i]);
    out = broadcast_infer_shape(out, layouts[i].shape);
  }
  const BroadcastPlan plan = plan_broadcast(Layout::contiguous(out), pointers);
  return make_expr_kernel_key(target_for(TargetKind::host), structure, types, {{ScalarKind::weak_float, DType::f64}},
                              plan, provider::current_codegen_id(), threshold);
}

// NOTE: [Loop variants] serve expressions as binary ops: each row's suffix
// on a key of N inputs of mixed dtypes prints and parses back.
TEST(KeyCodec, EveryExpressionKeyOfEveryVariantRoundTrips) {
  const Layout full = Layout::contiguous({300, 4}), column = Layout::contiguous({300, 1}),
               row = Layout::contiguous({1, 4}), wide = Layout::contiguous({64, 96}),
               transposed = Layout::column_major({64, 96}), wide_row = Layout::contiguous({1, 96});
  const std::vector<DType> mixed{DType::f32, DType::i32, DType::f16}, with_complex{DType::c64, DType::f32, DType::f32};
  std::map<std::string, int> keys_with;
  for (const std::uint64_t threshold : {kNeverStream, std::uint64_t{0}})
    for (const std::vector<DType>& dtypes : {mixed, with_complex})
      for (const std::vector<Layout>& layouts : std::vector<std::vector<Layout>>{
               {full, column, row}, {column, row, full}, {transposed, wide, wide_row}, {wide, wide_row, transposed},
               {wide, transposed, wide_row}, {wide, wide, wide}}) {
        const KernelKey key = expression_key("x0*x1+x2-s0", dtypes, layouts, threshold);
        const std::string text = key.to_string();
        EXPECT_EQ(parse_kernel_key(text, key.codegen), key) << text;
        for (const VariantRow& row_ : variant_table())
          if (row_.in_key != nullptr && row_.in_key(key)) ++keys_with[std::string(row_.name)];
      }
  EXPECT_GT(keys_with["fixed rows"], 0);
  EXPECT_GT(keys_with["transposed tiles"], 0);
  if (target_for(TargetKind::host).can_stream_stores()) {
    EXPECT_GT(keys_with["streaming stores"], 0);
  }
  // Texts one edit away, which no expression key prints.
  const KernelKey fixed = expression_key("x0*x1+x2-s0", mixed, {full, column, row}, kNeverStream);
  const KernelKey tiles = expression_key("x0*x1+x2-s0", mixed, {wide, wide_row, transposed}, kNeverStream);
  ASSERT_THAT(fixed.to_string(), ::testing::HasSubstr(".uuzu.r4-4-4-1-0."));
  ASSERT_THAT(tiles.to_string(), ::testing::HasSubstr(".uuus.tc."));
  auto with = [](const KernelKey& key, const std::string& from, const std::string& to) {
    std::string t = key.to_string();
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  for (const std::string& bad : {
           with(fixed, ".r4-4-4-1-0.", ".r4-4-4-1."),      // a step short
           with(fixed, ".r4-4-4-1-0.", ".r4-4-4-1-0-0."),  // a step over
           with(tiles, ".tc.", ".td."),                    // no fourth input
           with(tiles, ".tc.", ".tb."),                    // b is not strided
           with(tiles, "f32,i32,f16", "c64,i32,f16"),      // no tiles with a complex operand
           with(tiles, ".uuus.", ".uuu."),                 // a letter short of the inputs
       })
    EXPECT_EQ(parse_kernel_key(bad, tiles.codegen), std::nullopt) << bad;
}

// The program a binary op's kernel computed before its key was the one-node
// expression's (the binary emitter's and the Ascend-style lowering's): out =
// op(x0, x1) on two inputs of `dtype`, in the op's result dtype.
ExprProgram binary_program(Op op, DType dtype) {
  ExprProgram p;
  p.inputs = {dtype, dtype};
  p.code.push_back(ExprInstr{.kind = InstrKind::binary, .code = static_cast<std::uint8_t>(op), .in = dtype,
                             .out = detail::result_dtype_of(op, dtype), .args = {0, 1, -1}});
  p.result = 2;
  p.out_dtype = detail::result_dtype_of(op, dtype);
  return p;
}

// NOTE: [Expression kernels]: a binary op's key is the key of its one-node
// expression op(x0, x1): the same id, the same kernel; it prints as the op
// ("add.f32..."), and its program is the one binary keys had
// (binary_program), instruction for instruction.
TEST(BinaryKeys, AreTheirOneNodeExpressionsKeysAndPrintAsTheOp) {
  const Target& host = target_for(TargetKind::host);
  const BroadcastPlan plan = contiguous_plan({DC::expand_b, DC::same}, {64, 300});
  int pairs = 0;
  for (const auto& [op, dtype] : test::supported_pairs()) {
    const std::string name = std::string(op_name(op)) + "." + std::string(dtype_name(dtype));
    ExprSpecPin pin;
    const KernelKey key = make_kernel_key(host, op, dtype, plan, provider::current_codegen_id(), kNeverStream, &pin);
    const LeafType input{ScalarKind::strong, dtype};
    const KernelKey expression =
        make_expr_kernel_key(host, binary_structure(op), {input, input}, {}, plan, provider::current_codegen_id());
    EXPECT_EQ(expression, key) << name;
    EXPECT_THAT(key.to_string(), ::testing::StartsWith(name + ".[expand_b,same].uuu.")) << name;
    EXPECT_EQ(binary_op_of(*pin), op) << name;
    const ExprProgram binary = binary_program(op, dtype);
    ASSERT_EQ(pin->program.code.size(), binary.code.size()) << name;
    const ExprInstr &got = pin->program.code[0], &want = binary.code[0];
    EXPECT_TRUE(got.kind == want.kind && got.code == want.code && got.in == want.in && got.out == want.out &&
                got.args == want.args)
        << name;
    EXPECT_EQ(pin->program.result, binary.result) << name;
    EXPECT_EQ(key.dtype, binary.out_dtype) << name;
    ++pairs;
  }
  EXPECT_GT(pairs, 200);
  // An expression of one node on inputs of another form is not a binary key.
  const LeafType f32{ScalarKind::strong, DType::f32}, i32{ScalarKind::strong, DType::i32};
  for (const KernelKey& key :
       {make_expr_kernel_key(host, "x1+x0", {f32, f32}, {}, plan, provider::current_codegen_id()),
        make_expr_kernel_key(host, "x0+x1", {f32, i32}, {}, plan, provider::current_codegen_id())})
    EXPECT_THAT(key.to_string(), ::testing::StartsWith("expr[")) << key.to_string();
}

TEST(KeyCodec, ParsingNeedsTheSettingsTheKeyWasMadeWith) {
  const Target& host = target_for(TargetKind::host);
  const KernelKey key =
      make_kernel_key(host, Op::add, DType::f32, BroadcastType{DC::expand_b, DC::same}, provider::current_codegen_id());
  CodegenSettings other = codegen_settings(key.codegen);
  other.opt_level = other.opt_level == 3 ? 2 : 3;
  EXPECT_EQ(parse_kernel_key(key.to_string(), intern_codegen_settings(other)), std::nullopt);
}

// Texts one edit away from a real key, which no key prints.
TEST(KeyCodec, TextsNoKeyPrintsDoNotParse) {
  const Target& host = target_for(TargetKind::host);
  BroadcastPlan rows = contiguous_plan({DC::same, DC::expand_b}, {64, 4});
  const KernelKey fixed = make_kernel_key(host, Op::add, DType::f32, rows, provider::current_codegen_id());
  const std::string text = fixed.to_string();
  ASSERT_THAT(text, ::testing::HasSubstr(".uuz.r4-4-4-1."));
  const std::uint32_t codegen = fixed.codegen;
  auto with = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  for (const std::string& bad : {
           with(".r4-4-4-1.", ".r17-17-17-0."),  // longer than kFixedRowMax
           with(".r4-4-4-1.", ".r4-4-4-3."),     // a step that is not 0, 1 or the row
           with(".r4-4-4-1.", ".r04-4-4-1."),    // not as printed
           with(".r4-4-4-1.", ".r4-4-4-1.ta."),  // transposed tiles never go with fixed rows
           with(".r4-4-4-1.", ".r4-4-4-1.xx."),  // no variant has this tag
           with(".uuz.", ".uuq."),               // no such inner stride
           with("[same,expand_b]", "[same,expand_c]"), with("add.", "plus."), with(".host.", ".gpu."),
           text.substr(0, text.size() - 1),  // another tuning hash
       })
    EXPECT_EQ(parse_kernel_key(bad, codegen), std::nullopt) << bad;
  EXPECT_EQ(parse_kernel_key(text, codegen), fixed);
}

}  // namespace
}  // namespace bcast
