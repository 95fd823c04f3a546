// Parser tests: the syntax variants real dumps use, and that attributes land in the
// IR's typed fields. Malformed input is covered by malformed_test.cc.
#include "compiler/parser/parser.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ir/backend_config.h"

namespace fusebox {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::unique_ptr<Module> MustParse(std::string_view text) {
  auto m = ParseModule(text);
  EXPECT_TRUE(m.ok()) << m.status().message();
  if (!m.ok()) return nullptr;
  return std::move(m).value();
}

const Instruction* Find(const Module& m, const std::string& name) {
  for (const auto& c : m.computations()) {
    if (const Instruction* i = c->FindInstruction(name)) return i;
  }
  return nullptr;
}

// Print, reparse, print again: the two printed texts must be equal.
void ExpectFixedPoint(const Module& m) {
  std::string first = m.ToString();
  auto again = ParseModule(first);
  ASSERT_TRUE(again.ok()) << again.status().message() << "\n" << first;
  EXPECT_EQ(first, (*again)->ToString());
}

// A frontend attribute key that is not a name (an XLA proto may hold any string; the input
// fuzzer's `fingerprint_before_l(s`) is printed quoted, so the text parses back.
TEST(ParserTest, FrontendAttributeKeysThatAreNotNamesAreQuoted) {
  auto m = MustParse(
      "HloModule m, frontend_attributes={\"odd(key\"=\"1\",\"9lives\"=\"2\",plain.key-x=\"3\"}\n"
      "ENTRY e {\n  ROOT p = f32[2] parameter(0), frontend_attributes={\"a b\"=\"c\"}\n}\n");
  ASSERT_NE(m, nullptr);
  const std::string text = m->ToString();
  EXPECT_THAT(text, HasSubstr("\"odd(key\"=\"1\"")) << text;
  EXPECT_THAT(text, HasSubstr("\"9lives\"=\"2\"")) << text;
  EXPECT_THAT(text, HasSubstr("plain.key-x=\"3\"")) << text;
  EXPECT_THAT(text, HasSubstr("\"a b\"=\"c\"")) << text;
  ExpectFixedPoint(*m);
}

TEST(ParserTest, MinimalModuleWithHeaderAndLayouts) {
  auto m = MustParse(R"(
HloModule add_module, entry_computation_layout={(f32[2,3]{1,0}, f32[2,3]{0,1})->f32[2,3]{1,0}}

ENTRY %main (a: f32[2,3], b: f32[2,3]) -> f32[2,3] {
  %a = f32[2,3]{1,0} parameter(0)
  %b = f32[2,3]{0,1} parameter(1)
  ROOT %sum = f32[2,3]{1,0} add(f32[2,3]{1,0} %a, f32[2,3]{0,1} %b)
}
)");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name(), "add_module");
  ASSERT_TRUE(m->entry_computation_layout.has_value());
  EXPECT_EQ(m->entry_computation_layout->parameters.size(), 2u);
  EXPECT_EQ(m->entry_computation_layout->parameters[1].ToString(), "f32[2,3]{0,1}");
  const Computation* entry = m->entry();
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->name(), "main");
  EXPECT_EQ(entry->parameter_count(), 2);
  EXPECT_EQ(entry->root()->name(), "sum");
  EXPECT_EQ(entry->root()->operand(1)->name(), "b");
  EXPECT_EQ(entry->root()->shape().ToString(), "f32[2,3]{1,0}");
  EXPECT_EQ(entry->parameter(1)->users().size(), 1u);
  ExpectFixedPoint(*m);
}

TEST(ParserTest, NamesWithoutPercentCommentsAndNoRoot) {
  auto m = MustParse(R"(
// RUN: some-tool %s | FileCheck %s
/* a block
   comment */
add {
  lhs = f32[] parameter(0)  // trailing comment
  rhs = f32[] parameter(1)
  sum = f32[] add(lhs, rhs)
}

fused {
  p0 = f32[8] parameter(0)
  c0 = f32[] constant(0)
  ROOT r = f32[] reduce(p0, c0), dimensions={0}, to_apply=add
}
// CHECK: something
)");
  ASSERT_TRUE(m);
  // No header and no ENTRY: the last computation is the entry and names the module.
  EXPECT_EQ(m->entry()->name(), "fused");
  EXPECT_EQ(m->name(), "fused");
  // No ROOT: the last instruction is the root.
  EXPECT_EQ(m->FindComputation("add")->root()->name(), "sum");
  const Instruction* r = Find(*m, "r");
  ASSERT_NE(r, nullptr);
  EXPECT_THAT(r->dimensions(), ElementsAre(0));
  EXPECT_EQ(r->to_apply()->name(), "add");
  EXPECT_EQ(r->call_form(), CallForm::kToApply);
  ExpectFixedPoint(*m);
}

TEST(ParserTest, ForwardReferencesAndControlPredecessors) {
  auto m = MustParse(R"(
HloModule fwd
ENTRY e {
  ROOT out = f32[4] add(x, y), control-predecessors={z}
  x = f32[4] parameter(0)
  y = f32[4] negate(x)
  z = f32[4] exponential(x)
}
)");
  ASSERT_TRUE(m);
  const Instruction* out = Find(*m, "out");
  EXPECT_EQ(out->operand(0)->name(), "x");
  EXPECT_EQ(out->operand(1)->name(), "y");
  ASSERT_EQ(out->control_predecessors().size(), 1u);
  EXPECT_EQ(out->control_predecessors()[0]->name(), "z");
  EXPECT_EQ(Find(*m, "z")->control_successors().size(), 1u);
  ExpectFixedPoint(*m);
}

TEST(ParserTest, StackFrameTablesAndMetadata) {
  auto m = MustParse(R"(HloModule jit_f, entry_computation_layout={(f32[2]{0})->f32[2]{0}}

FileNames
1 "model.py"

FunctionNames
1 "<module>"
2 "f"

FileLocations
1 {file_name_id=1 function_name_id=1 line=10 end_line=10 column=4 end_column=9}
2 {file_name_id=1 function_name_id=2 line=3 end_line=3 column=11 end_column=20}

StackFrames
1 {file_location_id=1 parent_frame_id=1}
2 {file_location_id=2 parent_frame_id=1}

ENTRY %main.1 (x.1: f32[2]) -> f32[2] {
  %x.1 = f32[2]{0} parameter(0), metadata={op_name="x"}
  ROOT %neg = f32[2]{0} negate(%x.1), metadata={op_type="Neg" op_name="jit(f)/neg" source_file="model.py" source_line=3 source_end_line=3 source_column=11 source_end_column=20 stack_frame_id=2 deduplicated_name="n" scheduling_name="s" preserve_layout=true}
}
)");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->stack_frames.file_names, std::vector<std::string>{"model.py"});
  EXPECT_EQ(m->stack_frames.function_names.size(), 2u);
  EXPECT_EQ(m->stack_frames.file_locations[1].column, 11);
  EXPECT_EQ(m->stack_frames.stack_frames[1].file_location_id, 2);
  EXPECT_THAT(m->stack_frames.Describe(2), HasSubstr("model.py:3 (f)"));
  // Frame 2's parent is printed as 1, which XLA writes for "no parent" (it prints the
  // stored parent id plus one), so the chain stops at frame 2.
  EXPECT_EQ(m->stack_frames.Describe(2), "model.py:3 (f)");
  const OpMetadata* md = Find(*m, "neg")->metadata();
  ASSERT_NE(md, nullptr);
  EXPECT_EQ(md->op_type, "Neg");
  EXPECT_EQ(md->op_name, "jit(f)/neg");
  EXPECT_EQ(md->source_file, "model.py");
  EXPECT_EQ(md->source_line, 3);
  EXPECT_EQ(md->source_end_column, 20);
  EXPECT_EQ(md->stack_frame_id, 2);
  EXPECT_TRUE(md->preserve_layout);
  ExpectFixedPoint(*m);
}

TEST(ParserTest, StackFrameTablesAfterTheComputations) {
  auto m = MustParse(R"(HloModule trailing

ENTRY %main (x: f32[]) -> f32[] {
  ROOT %x = f32[] parameter(0), metadata={op_name="x" stack_frame_id=1}
}

FileNames
1 "a.py"

FunctionNames
1 "f"

FileLocations
1 {file_name_id=1 function_name_id=1 line=7 end_line=7 column=1 end_column=2}

StackFrames
1 {file_location_id=1 parent_frame_id=1}
)");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->stack_frames.stack_frames.size(), 1u);
  EXPECT_THAT(m->stack_frames.Describe(1), HasSubstr("a.py:7 (f)"));
  ExpectFixedPoint(*m);
}

TEST(ParserTest, SeveralModulesInOneFile) {
  auto r = ParseModules(R"(
HloModule first
ENTRY e { ROOT p = f32[] parameter(0) }

// -----

e2 { ROOT p = s32[] parameter(0) }

// -----
HloModule third
ENTRY e { ROOT c = pred[] constant(true) }
HloModule fourth
ENTRY e { ROOT c = u8[] constant(255) }
)");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->modules.size(), 4u);
  EXPECT_EQ(r->modules[0]->name(), "first");
  EXPECT_EQ(r->modules[1]->name(), "e2");
  EXPECT_EQ(r->modules[2]->name(), "third");
  EXPECT_EQ(r->modules[3]->name(), "fourth");
}

TEST(ParserTest, ShapesDynamicTupleTokenAndRichLayouts) {
  auto m = MustParse(R"(
HloModule shapes
ENTRY e {
  p0 = f32[<=4,?,3]{2,1,0} parameter(0)
  p1 = (s32[], (pred[2], token[]), /*index=2*/bf16[2,2]{0,1:T(8,128)(2,1)L(4)#(s32)*(s64)E(16)S(1)SC(0:1,2)M(8)}) parameter(1)
  p2 = s4[8]{0:E(4)} parameter(2)
  p3 = f32[16]{0:D(C+~)} parameter(3)
  ROOT t = (f32[<=4,?,3], s4[8]) tuple(p0, p2)
}
)");
  ASSERT_TRUE(m);
  const Shape& s0 = Find(*m, "p0")->shape();
  EXPECT_TRUE(s0.is_dynamic_dimension(0));
  EXPECT_EQ(s0.dimensions(0), 4);
  EXPECT_EQ(s0.dimensions(1), kUnboundedSize);
  const Shape& s1 = Find(*m, "p1")->shape();
  ASSERT_TRUE(s1.IsTuple());
  EXPECT_TRUE(s1.tuple_shapes(1).tuple_shapes(1).IsToken());
  const Layout& l = s1.tuple_shapes(2).layout();
  EXPECT_THAT(l.minor_to_major, ElementsAre(0, 1));
  ASSERT_EQ(l.tiles.size(), 2u);
  EXPECT_THAT(l.tiles[0].dimensions, ElementsAre(8, 128));
  EXPECT_EQ(l.tail_padding_alignment_in_elements, 4);
  EXPECT_EQ(l.index_primitive_type, PrimitiveType::kS32);
  EXPECT_EQ(l.pointer_primitive_type, PrimitiveType::kS64);
  EXPECT_EQ(l.element_size_in_bits, 16);
  EXPECT_EQ(l.memory_space, 1);
  ASSERT_EQ(l.split_configs.size(), 1u);
  EXPECT_THAT(l.split_configs[0].split_indices, ElementsAre(1, 2));
  EXPECT_EQ(l.dynamic_shape_metadata_prefix_bytes, 8);
  EXPECT_EQ(Find(*m, "p2")->shape().layout().element_size_in_bits, 4);
  const Layout& l3 = Find(*m, "p3")->shape().layout();
  ASSERT_EQ(l3.dim_level_types.size(), 1u);
  EXPECT_EQ(l3.dim_level_types[0], DimLevelType::kCompressed);
  ExpectFixedPoint(*m);
}

TEST(ParserTest, ConstantsOfManyTypes) {
  auto m = MustParse(R"(
HloModule consts
ENTRY e {
  a = f32[2,2] constant({ { 1, 2.5 }, { -inf, nan } })
  b = s8[3] constant({-128, 0, 127})
  c = u64[] constant(18446744073709551615)
  d = pred[2] constant({true, false})
  e = c64[2] constant({(1, 2), (3.5, -4)})
  f = bf16[] constant(0.1)
  g = f8e4m3fn[2] constant({448, -0.5})
  h = f32[100] constant({...})
  i = (f32[], s32[2]) constant((1, {2, 3}))
  j = s4[2] constant({-8, 7})
  ROOT t = (f32[2,2], s8[3]) tuple(a, b)
}
)");
  ASSERT_TRUE(m);
  const Literal* a = Find(*m, "a")->literal();
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->GetDouble(1), 2.5);
  EXPECT_TRUE(std::isinf(a->GetDouble(2)));
  EXPECT_TRUE(std::isnan(a->GetDouble(3)));
  EXPECT_EQ(Find(*m, "b")->literal()->GetInt64(0), -128);
  EXPECT_EQ(Find(*m, "c")->literal()->GetUint64(0), 18446744073709551615ull);
  EXPECT_FALSE(Find(*m, "d")->literal()->GetBool(1));
  EXPECT_EQ(Find(*m, "e")->literal()->GetComplex(1), std::complex<double>(3.5, -4));
  EXPECT_NEAR(Find(*m, "f")->literal()->GetDouble(0), 0.1, 1e-3);
  EXPECT_EQ(Find(*m, "g")->literal()->GetDouble(0), 448);
  EXPECT_TRUE(Find(*m, "h")->literal_elided());
  EXPECT_EQ(Find(*m, "h")->literal(), nullptr);
  const Literal* i = Find(*m, "i")->literal();
  ASSERT_EQ(i->tuple_elements().size(), 2u);
  EXPECT_EQ(i->tuple_elements()[1].GetInt64(1), 3);
  EXPECT_EQ(Find(*m, "j")->literal()->GetInt64(0), -8);
  ExpectFixedPoint(*m);
}

TEST(ParserTest, ConvolutionWindowDotGatherScatterSlicePad) {
  auto m = MustParse(R"(
HloModule ops
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY e {
  in = f32[1,8,8,3] parameter(0)
  k = f32[3,3,3,16] parameter(1)
  conv = f32[1,4,4,16] convolution(in, k), window={size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=1x1 rhs_dilate=1x1}, dim_labels=b01f_01io->b01f, feature_group_count=1
  x = f32[2,3,4] parameter(2)
  y = f32[2,4,5] parameter(3)
  dot = f32[2,3,5] dot(x, y), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}, operand_precision={highest,DEFAULT}
  idx = s32[5,1] parameter(4)
  g = f32[5,3,4] gather(x, idx), offset_dims={1,2}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3,4}, indices_are_sorted=true
  upd = f32[5,3,4] parameter(5)
  sc = f32[2,3,4] scatter(x, idx, upd), update_window_dims={1,2}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, unique_indices=true, to_apply=add
  sl = f32[1,2,2] slice(x), slice={[0:1], [0:3:2], [1:4:2]}
  zero = f32[] constant(0)
  pd = f32[4,5,9] pad(x, zero), padding=1_1x-1_0x0_1_1
  cmp = pred[2,3,4] compare(x, x), direction=LT, type=TOTALORDER
  ROOT t = (f32[1,4,4,16], f32[2,3,5]) tuple(conv, dot)
}
)");
  ASSERT_TRUE(m);
  const InstructionAttributes& conv = Find(*m, "conv")->attrs();
  ASSERT_TRUE(conv.window.has_value());
  ASSERT_EQ(conv.window->dimensions.size(), 2u);
  EXPECT_EQ(conv.window->dimensions[0].size, 3);
  EXPECT_EQ(conv.window->dimensions[1].stride, 2);
  EXPECT_EQ(conv.window->dimensions[1].padding_high, 1);
  EXPECT_EQ(conv.window->ToString(), "size=3x3 stride=2x2 pad=1_1x1_1");
  ASSERT_TRUE(conv.convolution_dimension_numbers.has_value());
  EXPECT_EQ(conv.convolution_dimension_numbers->input_feature_dimension, 3);
  EXPECT_EQ(conv.convolution_dimension_numbers->kernel_output_feature_dimension, 3);
  EXPECT_THAT(conv.convolution_dimension_numbers->kernel_spatial_dimensions, ElementsAre(0, 1));
  EXPECT_EQ(conv.convolution_dimension_numbers->ToString(), "b01f_01io->b01f");
  const InstructionAttributes& dot = Find(*m, "dot")->attrs();
  EXPECT_THAT(dot.dot_dimension_numbers->lhs_contracting_dimensions, ElementsAre(2));
  EXPECT_THAT(dot.dot_dimension_numbers->rhs_batch_dimensions, ElementsAre(0));
  EXPECT_THAT(dot.operand_precision, ElementsAre(Precision::kHighest, Precision::kDefault));
  const InstructionAttributes& g = Find(*m, "g")->attrs();
  EXPECT_THAT(g.gather_dimension_numbers->offset_dims, ElementsAre(1, 2));
  EXPECT_EQ(g.gather_dimension_numbers->index_vector_dim, 1);
  EXPECT_THAT(g.gather_slice_sizes, ElementsAre(1, 3, 4));
  EXPECT_TRUE(g.indices_are_sorted);
  const Instruction* sc = Find(*m, "sc");
  EXPECT_THAT(sc->attrs().scatter_dimension_numbers->update_window_dims, ElementsAre(1, 2));
  EXPECT_TRUE(sc->attrs().unique_indices);
  EXPECT_EQ(sc->to_apply()->name(), "add");
  const auto& slice = Find(*m, "sl")->attrs().slice;
  ASSERT_EQ(slice.size(), 3u);
  EXPECT_EQ(slice[1].stride, 2);
  EXPECT_EQ(slice[2].start, 1);
  const auto& pad = Find(*m, "pd")->attrs().padding;
  ASSERT_EQ(pad.size(), 3u);
  EXPECT_EQ(pad[1].low, -1);
  EXPECT_EQ(pad[2].interior, 1);
  const InstructionAttributes& cmp = Find(*m, "cmp")->attrs();
  EXPECT_EQ(cmp.comparison_direction, ComparisonDirection::kLt);
  EXPECT_EQ(cmp.comparison_type, ComparisonType::kTotalOrder);
  ExpectFixedPoint(*m);
}

TEST(ParserTest, FusionWhileConditionalAndCalls) {
  auto m = MustParse(R"(
HloModule control
%fused_computation (p0: f32[4], p1: f32[4]) -> f32[4] {
  %p0 = f32[4]{0} parameter(0)
  %p1 = f32[4]{0} parameter(1)
  ROOT %m = f32[4]{0} multiply(%p0, %p1)
}
%cond (s: (s32[], f32[4])) -> pred[] {
  %s = (s32[], f32[4]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %n = s32[] constant(10)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}
%body (s: (s32[], f32[4])) -> (s32[], f32[4]) {
  %s = (s32[], f32[4]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %v = f32[4] get-tuple-element(%s), index=1
  %one = s32[] constant(1)
  %i2 = s32[] add(%i, %one)
  ROOT %t = (s32[], f32[4]) tuple(%i2, %v)
}
%b0 (x: f32[4]) -> f32[4] { ROOT %x = f32[4] parameter(0) }
%b1 (x: f32[4]) -> f32[4] { %x = f32[4] parameter(0)  ROOT %n = f32[4] negate(%x) }
ENTRY %main (a: f32[4], b: f32[4], k: s32[]) -> f32[4] {
  %a = f32[4]{0} parameter(0)
  %b = f32[4]{0} parameter(1)
  %k = s32[] parameter(2)
  %f = f32[4]{0} fusion(%a, %b), kind=kLoop, calls=%fused_computation, backend_config={"outer_dimension_partitions":["2"]}
  %zero = s32[] constant(0)
  %init = (s32[], f32[4]) tuple(%zero, %f)
  %w = (s32[], f32[4]) while(%init), condition=%cond, body=%body, backend_config={"known_trip_count":{"n":"10"}}
  %r = f32[4] get-tuple-element(%w), index=1
  %c = f32[4] conditional(%k, %r, %r), branch_computations={%b0, %b1}
  %pred = pred[] constant(true)
  %c2 = f32[4] conditional(%pred, %c, %c), true_computation=%b0, false_computation=%b1
  ROOT %call = f32[4] call(%c2), to_apply=%b1
}
)");
  ASSERT_TRUE(m);
  const Instruction* f = Find(*m, "f");
  EXPECT_EQ(f->fusion_kind(), FusionKind::kLoop);
  EXPECT_EQ(f->fused_computation()->name(), "fused_computation");
  EXPECT_EQ(f->fused_computation()->fusion_instruction(), f);
  EXPECT_TRUE(m->FindComputation("fused_computation")->IsFusionComputation());
  auto json = BackendConfigJson(*f);
  ASSERT_TRUE(json.has_value());
  EXPECT_EQ((*json)["outer_dimension_partitions"][0], "2");
  const Instruction* w = Find(*m, "w");
  EXPECT_EQ(w->while_condition()->name(), "cond");
  EXPECT_EQ(w->while_body()->name(), "body");
  const Instruction* c = Find(*m, "c");
  EXPECT_EQ(c->call_form(), CallForm::kBranches);
  ASSERT_EQ(c->called_computations().size(), 2u);
  EXPECT_EQ(c->called_computation(1)->name(), "b1");
  EXPECT_EQ(Find(*m, "c2")->call_form(), CallForm::kTrueFalse);
  ExpectFixedPoint(*m);
}

TEST(ParserTest, CollectivesCustomCallsAndGenericAttributes) {
  auto r = ParseModules(R"(
HloModule coll, replica_count=8, num_partitions=2, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {0}) }, buffer_donor={ (1, {}) }, frontend_attributes={xla.sdy.meshes="{mesh = #sdy.mesh<[\"x\"=2]>}"}, some_new_header_attribute=42
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY e {
  p = f32[8] parameter(0), sharding={devices=[2]0,1}, parameter_replication={true}
  ar = f32[8] all-reduce(p), channel_id=3, replica_groups={{0,1,2,3},{4,5,6,7}}, use_global_device_ids=true, to_apply=add
  ag = f32[32] all-gather(ar), dimensions={0}, replica_groups=[2,4]<=[4,2]T(1,0), channel_id=4
  cp = f32[8] collective-permute(ar), source_target_pairs={{0,1},{1,0}}, channel_id=5
  cc = (f32[8], s32[]) custom-call(p, ag), custom_call_target="my_op", api_version=API_VERSION_TYPED_FFI, custom_call_has_side_effect=true, output_to_operand_aliasing={{0}: (0, {})}, operand_layout_constraints={f32[8]{0}, f32[32]{0}}, backend_config="opaque string", frontend_attributes={_xla_compute_type="host",b="2"}, statistics={visualizing_index=1,stat-0=0.5}, origin={{"x"}}, my_new_attribute={a, b}
  ROOT out = (f32[8], f32[8]) tuple(ar, cp)
}
)");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Module& m = *r->modules[0];
  EXPECT_EQ(m.replica_count, 8);
  EXPECT_EQ(m.num_partitions, 2);
  EXPECT_EQ(m.is_scheduled, true);
  ASSERT_EQ(m.input_output_alias.size(), 2u);
  EXPECT_EQ(m.input_output_alias[0].kind, "may-alias");
  EXPECT_THAT(m.input_output_alias[1].parameter_index, ElementsAre(0));
  ASSERT_EQ(m.buffer_donor.size(), 1u);
  EXPECT_EQ(m.buffer_donor[0].parameter_number, 1);
  ASSERT_EQ(m.frontend_attributes.size(), 1u);
  EXPECT_EQ(m.frontend_attributes[0].second, "{mesh = #sdy.mesh<[\"x\"=2]>}");
  ASSERT_EQ(m.raw_attributes.size(), 1u);
  EXPECT_EQ(m.raw_attributes[0].value, "42");
  const Instruction* p = Find(m, "p");
  EXPECT_EQ(p->attrs().sharding, "devices=[2]0,1");
  EXPECT_THAT(p->attrs().parameter_replication, ElementsAre(true));
  const InstructionAttributes& ar = Find(m, "ar")->attrs();
  EXPECT_EQ(ar.channel_id, 3);
  ASSERT_TRUE(ar.replica_groups.has_value());
  EXPECT_THAT(ar.replica_groups->groups[1], ElementsAre(4, 5, 6, 7));
  EXPECT_EQ(ar.use_global_device_ids, true);
  const InstructionAttributes& ag = Find(m, "ag")->attrs();
  EXPECT_TRUE(ag.replica_groups->iota);
  EXPECT_THAT(ag.replica_groups->iota_transpose_perm, ElementsAre(1, 0));
  EXPECT_EQ(ag.replica_groups->ToString(), "[2,4]<=[4,2]T(1,0)");
  EXPECT_EQ(Find(m, "cp")->attrs().source_target_pairs.size(), 2u);
  const InstructionAttributes& cc = Find(m, "cc")->attrs();
  EXPECT_EQ(cc.custom_call_target, "my_op");
  EXPECT_EQ(cc.api_version, CustomCallApiVersion::kTypedFfi);
  EXPECT_TRUE(cc.custom_call_has_side_effect);
  ASSERT_EQ(cc.output_to_operand_aliasing.size(), 1u);
  EXPECT_EQ(cc.operand_layout_constraints.size(), 2u);
  EXPECT_TRUE(cc.backend_config_is_string);
  EXPECT_EQ(cc.backend_config, "opaque string");
  EXPECT_FALSE(BackendConfigJson(*Find(m, "cc")).has_value());
  ASSERT_EQ(cc.frontend_attributes.size(), 2u);
  EXPECT_EQ(cc.frontend_attributes[0].first, "_xla_compute_type");
  EXPECT_EQ(cc.statistics, "visualizing_index=1,stat-0=0.5");
  ASSERT_EQ(cc.raw.size(), 2u);
  EXPECT_EQ(cc.raw[0].name, "origin");
  EXPECT_EQ(cc.raw[1].name, "my_new_attribute");
  EXPECT_EQ(cc.raw[1].value, "{a, b}");
  // The unknown attribute is reported as a warning with its location.
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_THAT(r->warnings[0].message, HasSubstr("my_new_attribute"));
  EXPECT_EQ(r->warnings[0].location.line, 9);
  ExpectFixedPoint(m);
}

TEST(ParserTest, OmittedShapesAreInferred) {
  auto m = MustParse(R"(
HloModule infer
ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[2,3] parameter(1)
  s = add(a, b)
  ROOT t = tuple(s, a)
}
)");
  ASSERT_TRUE(m);
  EXPECT_EQ(Find(*m, "s")->shape().ToString(false), "f32[2,3]");
  EXPECT_EQ(m->entry()->root()->shape().ToString(false), "(f32[2,3], f32[2,3])");
  ExpectFixedPoint(*m);
}

TEST(ParserTest, ExecutionThreadAndAsync) {
  auto m = MustParse(R"(
HloModule async
%async_comp (p: f32[4]) -> f32[4] {
  %p = f32[4] parameter(0)
  ROOT %n = f32[4] negate(%p)
}, execution_thread="parallel"
ENTRY %e (x: f32[4]) -> f32[4] {
  %x = f32[4] parameter(0)
  %start = ((f32[4]), f32[4], s32[]) async-start(%x), async_execution_thread="parallel", calls=%async_comp
  ROOT %done = f32[4] async-done(%start), async_execution_thread="parallel", calls=%async_comp
}
)");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->FindComputation("async_comp")->execution_thread(), "parallel");
  EXPECT_EQ(Find(*m, "start")->attrs().async_execution_thread, "parallel");
  ExpectFixedPoint(*m);
}

TEST(ParserTest, ErrorsNameFileLineAndColumnWithCaret) {
  ParseOptions options;
  options.filename = "model.hlo";
  auto r = ParseModule("HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT q = f32[2] frobnicate(p)\n}\n",
                       options);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("model.hlo:4:19: unknown opcode 'frobnicate'"));
  EXPECT_THAT(r.status().message(), HasSubstr("\n                    ^"));
}

// Newer XLA (jax 0.11's dumps) writes a user's get-tuple-element as `%tuple#i` in its
// operand list, with no line of its own. Each (tuple, index) becomes one get-tuple-element
// that prints back the same way; the module clones and prints as it was read (the GPU
// dump tests run such modules: tests/importers/dump_index_test.cc).
TEST(ParserTest, TupleElementOperandShorthand) {
  const std::string text = R"(HloModule shorthand, entry_computation_layout={(f32[4]{0})->(f32[4]{0}, f32[4]{0})}

%pair (p: f32[4]) -> (f32[4], f32[4]) {
  %p = f32[4]{0} parameter(0)
  %n = f32[4]{0} negate(%p)
  ROOT %t = (f32[4]{0}, f32[4]{0}) tuple(%p, %n)
}

ENTRY %e (x: f32[4]) -> (f32[4], f32[4]) {
  %x = f32[4]{0} parameter(0)
  %c = (f32[4]{0}, f32[4]{0}) call(%x), to_apply=%pair
  %a = f32[4]{0} add(%c#0, %c#1)
  %m = f32[4]{0} multiply(%a, %c#1)
  ROOT %r = (f32[4]{0}, f32[4]{0}) tuple(%m, %c#0)
}
)";
  auto m = MustParse(text);
  ASSERT_TRUE(m);
  const Instruction* a = Find(*m, "a");
  ASSERT_EQ(a->operand_count(), 2);
  EXPECT_EQ(a->operand(0)->opcode(), Opcode::kGetTupleElement);
  EXPECT_EQ(a->operand(0)->tuple_index(), 0);
  EXPECT_EQ(a->operand(1)->tuple_index(), 1);
  EXPECT_EQ(a->operand(0)->operand(0), Find(*m, "c"));
  EXPECT_EQ(Find(*m, "m")->operand(1), a->operand(1)) << "one element per (tuple, index)";
  EXPECT_EQ(m->ToString(), text);
  auto clone = m->Clone();
  ASSERT_NE(clone, nullptr);
  EXPECT_EQ(clone->ToString(), text);
  ExpectFixedPoint(*m);
  // Errors name the operand.
  auto bad_index = ParseModule("HloModule b\nENTRY e {\n  x = f32[4] parameter(0)\n  t = (f32[4], f32[4]) tuple(x, x)\n"
                               "  ROOT y = f32[4] negate(t#2)\n}\n");
  ASSERT_FALSE(bad_index.ok());
  EXPECT_THAT(bad_index.status().message(), HasSubstr("5:26: operand %t#2: %t has 2 tuple elements"));
  auto not_tuple = ParseModule("HloModule b\nENTRY e {\n  x = f32[4] parameter(0)\n  ROOT y = f32[4] negate(x#0)\n}\n");
  ASSERT_FALSE(not_tuple.ok());
  EXPECT_THAT(not_tuple.status().message(), HasSubstr("%x is not a tuple"));
  auto no_digits = ParseModule("HloModule b\nENTRY e {\n  x = f32[4] parameter(0)\n  ROOT y = f32[4] negate(x#)\n}\n");
  ASSERT_FALSE(no_digits.ok());
  EXPECT_THAT(no_digits.status().message(), HasSubstr("expected a tuple index after '#'"));
}

TEST(ParserTest, ParseShapeOnItsOwn) {
  auto s = ParseShape("(f32[2,3]{0,1}, s32[])");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->ToString(), "(f32[2,3]{0,1}, s32[])");
  EXPECT_FALSE(ParseShape("f32[2] junk").ok());
}

}  // namespace
}  // namespace fusebox
