// Tests of the Shardy import: jax's real modules (tests/data/multidevice) come out in
// XLA's GSPMD form with no xla.sdy left, parameters get the shardings XLA gave them,
// manual regions become SPMDFullToShardShape/SPMDShardToFullShape with manual bodies; the
// module verifies, round-trips through text and computes what it did; unknown Shardy
// custom calls are errors that name the instruction.
#include "compiler/passes/shardy_import.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/ir/sharding.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/sharding_propagation.h"
#include "compiler/verifier/verifier.h"
#include "tests/compiler/passes/pass_test_util.h"

namespace fusebox::passes {
namespace {

using testing_util::Parse;
using testing_util::RunPassAndCheck;

const std::filesystem::path kData =
    std::filesystem::path(FUSEBOX_SOURCE_DIR) / "tests" / "data" / "multidevice";

std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string ShardingText(const Instruction* inst) {
  if (inst == nullptr || !inst->has_attributes() || !inst->attrs().has_sharding) return "<none>";
  return "{" + inst->attrs().sharding + "}";
}

// Every instruction of the module: no xla.sdy custom call, no xla.sdy frontend attribute.
void ExpectNoShardy(const Module& m) {
  for (const auto& [key, value] : m.frontend_attributes)
    EXPECT_EQ(key.rfind("xla.sdy.", 0), std::string::npos) << key;
  for (const auto& comp : m.computations()) {
    for (const auto& inst : comp->instructions()) {
      if (inst->opcode() == Opcode::kCustomCall) {
        EXPECT_EQ(inst->attrs().custom_call_target.rfind("xla.sdy.", 0), std::string::npos)
            << inst->ToString();
      }
      if (!inst->has_attributes()) continue;
      for (const auto& [key, value] : inst->attrs().frontend_attributes)
        EXPECT_EQ(key.rfind("xla.sdy.", 0), std::string::npos) << inst->ToString();
    }
  }
}

void ExpectVerifiesAndRoundTrips(const Module& m) {
  Status verified = Verify(m);
  EXPECT_TRUE(verified.ok()) << verified.message();
  std::string text = m.ToString();
  auto reparsed = ParseModule(text);
  ASSERT_TRUE(reparsed.ok()) << reparsed.status().message() << "\n" << text;
  EXPECT_EQ((*reparsed)->ToString(), text);
}

std::vector<const Instruction*> CustomCalls(const Computation& comp, const std::string& target) {
  std::vector<const Instruction*> out;
  for (const auto& inst : comp.instructions())
    if (inst->opcode() == Opcode::kCustomCall && inst->attrs().custom_call_target == target)
      out.push_back(inst.get());
  return out;
}

class RealModuleTest : public ::testing::TestWithParam<std::string> {};

// Import then propagation on jax's module: parameters end up with the shardings XLA's
// partitioned module has for them (XLA keeps them on its per-device parameters).
TEST_P(RealModuleTest, ImportsAndMatchesXlaParameterShardings) {
  const std::filesystem::path dir = kData / GetParam();
  if (!std::filesystem::exists(dir / "module.hlo")) GTEST_SKIP() << "no " << dir;
  auto m = Parse(ReadText(dir / "module.hlo"));
  ASSERT_NE(m, nullptr);
  const int64_t partitions = *m->num_partitions;
  ShardyImport import;
  PassContext context;
  auto changed = import.Run(*m, context);
  ASSERT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(m->num_partitions, partitions);
  ExpectNoShardy(*m);
  ExpectVerifiesAndRoundTrips(*m);
  for (const std::string& line : import.log()) std::cout << "  import: " << line << "\n";

  ShardingPropagation propagation;
  auto propagated = propagation.Run(*m, context);
  ASSERT_TRUE(propagated.ok()) << propagated.status().message();
  ExpectVerifiesAndRoundTrips(*m);
  for (const auto& inst : m->entry()->instructions())
    EXPECT_TRUE(inst->has_attributes() && inst->attrs().has_sharding) << inst->ToString();

  if (std::getenv("FUSEBOX_PRINT_MODULES") != nullptr) std::cout << m->ToString() << "\n";

  // Without manual regions the module means the same on one device: the interpreter gives
  // what it gave before (the original with FuncResultSharding read as the identity it is).
  const std::string original = ReadText(dir / "module.hlo");
  if (original.find("xla.sdy.GlobalToLocalShape") == std::string::npos) {
    std::string runnable = original;
    for (size_t at = runnable.find("xla.sdy.FuncResultSharding"); at != std::string::npos;
         at = runnable.find("xla.sdy.FuncResultSharding"))
      runnable.replace(at, std::string_view("xla.sdy.FuncResultSharding").size(), "Sharding");
    auto reference = Parse(runnable);
    ASSERT_NE(reference, nullptr);
    testing_util::ExpectSameResult(*reference, *m);
  }

  auto xla = Parse(ReadText(dir / "partitioned.hlo"));
  ASSERT_NE(xla, nullptr);
  ASSERT_EQ(xla->entry()->parameter_count(), m->entry()->parameter_count());
  for (int64_t p = 0; p < m->entry()->parameter_count(); ++p) {
    auto ours = ShardingOf(*m->entry()->parameter(p));
    auto theirs = ShardingOf(*xla->entry()->parameter(p));
    ASSERT_TRUE(ours.ok() && theirs.ok());
    ASSERT_TRUE(ours->has_value() && theirs->has_value()) << "parameter " << p;
    EXPECT_TRUE((*ours)->SameMeaning(**theirs))
        << GetParam() << " parameter " << p << ": ours " << (*ours)->ToString() << ", XLA's "
        << (*theirs)->ToString();
  }
}

INSTANTIATE_TEST_SUITE_P(Multidevice, RealModuleTest,
                         ::testing::Values("dp_train_step", "tp_mlp", "fsdp_layer",
                                           "shard_map_collectives", "sharded_xent", "psum_8dev",
                                           "nested_shard_map"));

// dp_train_step: a fully manual shard_map (call of the body) becomes XLA's form: per input
// a copy with the global sharding and an SPMDFullToShardShape with the per-device shape;
// the body is manual; per output a manual copy and an SPMDShardToFullShape.
TEST(ShardyImportTest, ShardMapBecomesFullToShardAndShardToFull) {
  auto m = Parse(ReadText(kData / "dp_train_step" / "module.hlo"));
  if (m == nullptr) GTEST_SKIP() << "no dp_train_step";
  ShardyImport import;
  PassContext context;
  ASSERT_TRUE(import.Run(*m, context).ok());
  const Computation& entry = *m->entry();
  auto f2s = CustomCalls(entry, "SPMDFullToShardShape");
  auto s2f = CustomCalls(entry, "SPMDShardToFullShape");
  ASSERT_EQ(f2s.size(), 6u);
  ASSERT_EQ(s2f.size(), 5u);
  for (const Instruction* f : f2s) {
    EXPECT_EQ(ShardingText(f), "{manual}");
    ASSERT_EQ(f->operand(0)->opcode(), Opcode::kCopy);
    EXPECT_EQ(f->operand(0)->operand(0)->opcode(), Opcode::kParameter);
  }
  // x: f32[16,16] split over 'd' on dim 0 -> f32[4,16] per device.
  const Instruction* x = entry.parameter(4);
  const Instruction* x_local = nullptr;
  for (const Instruction* f : f2s)
    if (f->operand(0)->operand(0) == x) x_local = f;
  ASSERT_NE(x_local, nullptr);
  EXPECT_EQ(x_local->shape().ToString(), "f32[4,16]{1,0}");
  EXPECT_EQ(ShardingText(x_local->operand(0)), "{devices=[4,1]<=[4]}");
  // Replicated inputs keep their shape.
  const Instruction* w_local = nullptr;
  for (const Instruction* f : f2s)
    if (f->operand(0)->operand(0) == entry.parameter(0)) w_local = f;
  ASSERT_NE(w_local, nullptr);
  EXPECT_EQ(w_local->shape().ToString(), "f32[16,32]{1,0}");
  EXPECT_EQ(ShardingText(w_local->operand(0)), "{replicated}");
  for (const Instruction* s : s2f) {
    EXPECT_EQ(ShardingText(s), "{replicated}");
    EXPECT_EQ(ShardingText(s->operand(0)), "{manual}");
  }
  // The call reads the per-device values; everything in its body is manual.
  const Instruction* call = nullptr;
  for (const auto& inst : entry.instructions())
    if (inst->opcode() == Opcode::kCall) call = inst.get();
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->operand(4), x_local);
  EXPECT_EQ(ShardingText(call), "{{manual}, {manual}, {manual}, {manual}, {manual}}");
  for (const auto& inst : call->to_apply()->instructions()) {
    auto s = ShardingOf(*inst);
    ASSERT_TRUE(s.ok() && s->has_value()) << inst->name();
    if ((*s)->IsTuple()) {
      for (const Sharding& e : (*s)->elements) EXPECT_EQ(e.ToString(), "{manual}") << inst->name();
    } else {
      EXPECT_EQ((*s)->ToString(), "{manual}") << inst->name();
    }
  }
  // The root reads the full-shape values.
  for (const Instruction* op : entry.root()->operands())
    EXPECT_EQ(op->attrs().custom_call_target, "SPMDShardToFullShape");
}

// psum_8dev: one input (no tuple around GlobalToLocalShape), outputs with a global shape
// bigger than the per-device one.
TEST(ShardyImportTest, SingleOperandRegion) {
  auto m = Parse(ReadText(kData / "psum_8dev" / "module.hlo"));
  if (m == nullptr) GTEST_SKIP() << "no psum_8dev";
  ShardyImport import;
  PassContext context;
  ASSERT_TRUE(import.Run(*m, context).ok());
  auto f2s = CustomCalls(*m->entry(), "SPMDFullToShardShape");
  auto s2f = CustomCalls(*m->entry(), "SPMDShardToFullShape");
  ASSERT_EQ(f2s.size(), 1u);
  EXPECT_EQ(f2s[0]->shape().ToString(), "f32[4,8]{1,0}");
  EXPECT_EQ(ShardingText(f2s[0]->operand(0)), "{devices=[8,1]<=[8]}");
  ASSERT_EQ(s2f.size(), 3u);
  std::vector<std::string> shapes;
  for (const Instruction* s : s2f) shapes.push_back(s->shape().ToString() + " " + ShardingText(s));
  std::sort(shapes.begin(), shapes.end());
  EXPECT_EQ(shapes,
            (std::vector<std::string>{"f32[32,8]{1,0} {devices=[8,1]<=[8]}",
                                      "f32[8,8]{1,0} {replicated}", "f32[8]{0} {replicated}"}));
}

// tp_mlp: parameter shardings from xla.sdy.sharding; the FuncResultSharding custom call
// becomes a Sharding constraint; the jax Sharding custom call stays.
TEST(ShardyImportTest, ParametersAndFuncResultSharding) {
  auto m = Parse(ReadText(kData / "tp_mlp" / "module.hlo"));
  if (m == nullptr) GTEST_SKIP() << "no tp_mlp";
  ShardyImport import;
  PassContext context;
  ASSERT_TRUE(import.Run(*m, context).ok());
  const Computation& entry = *m->entry();
  EXPECT_EQ(ShardingText(entry.parameter(0)), "{replicated}");
  EXPECT_EQ(ShardingText(entry.parameter(1)), "{devices=[1,4]<=[4]}");
  EXPECT_EQ(ShardingText(entry.parameter(2)), "{devices=[4,1]<=[4]}");
  auto constraints = CustomCalls(entry, "Sharding");
  ASSERT_EQ(constraints.size(), 2u);
  const Instruction* result = entry.FindInstruction("dot_general.5");
  ASSERT_NE(result, nullptr);
  EXPECT_EQ(result->attrs().custom_call_target, "Sharding");
  EXPECT_FALSE(result->attrs().custom_call_has_side_effect);
  EXPECT_EQ(ShardingText(result), "{replicated}");
  EXPECT_EQ(ShardingText(entry.FindInstruction("sharding_constraint.1")), "{devices=[1,4]<=[4]}");
  EXPECT_FALSE(m->has_frontend_attributes);
}

// The module in `path` after shardy-import, checked to hold no xla.sdy attribute, to verify
// and to print and parse back the same; null (with a failure) when any of that fails.
std::unique_ptr<Module> ImportFile(const std::filesystem::path& path) {
  auto m = Parse(ReadText(path));
  if (m == nullptr) return nullptr;
  ShardyImport import;
  PassContext context;
  auto changed = import.Run(*m, context);
  EXPECT_TRUE(changed.ok()) << changed.status().message();
  if (!changed.ok()) return nullptr;
  ExpectNoShardy(*m);
  ExpectVerifiesAndRoundTrips(*m);
  return m;
}

// A shard_map manual over one axis of two (jax's own output, snippets/partial_manual.hlo):
// the spellings XLA's shardy-xla pass wrote for it (partial_manual.after_shardy-xla.txt).
TEST(ShardyImportTest, PartialManualRegionMatchesXla) {
  auto m = ImportFile(kData / "snippets" / "partial_manual.hlo");
  ASSERT_NE(m, nullptr);
  PassContext context;
  auto f2s = CustomCalls(*m->entry(), "SPMDFullToShardShape");
  auto s2f = CustomCalls(*m->entry(), "SPMDShardToFullShape");
  ASSERT_EQ(f2s.size(), 1u);
  ASSERT_EQ(s2f.size(), 1u);
  EXPECT_EQ(f2s[0]->shape().ToString(), "f32[4,16]{1,0}");
  EXPECT_EQ(ShardingText(f2s[0]), "{devices=[1,1,2,2]<=[4] last_tile_dims={manual, replicated}}");
  EXPECT_EQ(ShardingText(f2s[0]->operand(0)), "{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  EXPECT_EQ(ShardingText(s2f[0]), "{replicated}");
  EXPECT_EQ(ShardingText(s2f[0]->operand(0)),
            "{devices=[1,1,2,2]<=[4] last_tile_dims={manual, replicated}}");
  // In the body, jax's constraint over the free axis 'model' gains the manual subgroup.
  const Computation* body = m->FindComputation("xla.sdy.manual_computation_body.2");
  ASSERT_NE(body, nullptr);
  auto body_constraints = CustomCalls(*body, "Sharding");
  ASSERT_EQ(body_constraints.size(), 2u);
  for (const Instruction* c : body_constraints)
    EXPECT_EQ(ShardingText(c), "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dims={manual}}");
  // The region's parameter is its (closed) in_sharding. What Shardy says nothing about
  // in a partially manual region is open: left to propagation, which makes every such
  // value manual, split over 'model' as its neighbours are (the psum as its operand).
  EXPECT_EQ(ShardingText(body->parameter(0)), ShardingText(f2s[0]));
  EXPECT_EQ(ShardingText(body->FindInstruction("mul.6")), "<none>");
  ShardingPropagation propagation;
  auto propagated = propagation.Run(*m, context);
  ASSERT_TRUE(propagated.ok()) << propagated.status().message();
  EXPECT_EQ(ShardingText(body->parameter(0)), ShardingText(f2s[0]));
  EXPECT_EQ(ShardingText(body->FindInstruction("mul.6")),
            "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dims={manual}}");
  EXPECT_EQ(ShardingText(body->FindInstruction("psum_invariant.5")),
            "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dims={manual}}");
  for (const auto& inst : body->instructions()) {
    auto s = ShardingOf(*inst);
    ASSERT_TRUE(s.ok() && s->has_value()) << inst->name();
    EXPECT_NE(ShardingText(inst.get()).find("manual"), std::string::npos) << inst->ToString();
  }
  // Outside the region, the constraints of the entry are GSPMD shardings.
  EXPECT_EQ(ShardingText(m->entry()->FindInstruction("sin.3")), "{devices=[2,2]<=[4]}");
  EXPECT_EQ(ShardingText(m->entry()->FindInstruction("add.10")),
            "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}");
}

std::string BackendConfig(const Instruction* inst) {
  return inst != nullptr && inst->has_attributes() && inst->attrs().has_backend_config ? inst->attrs().backend_config
                                                                                       : "<none>";
}

// jax leaves the free axis open ({?}) in a partially manual region: the dims without axes
// become XLA's unspecified_dims on the constraints and on both sides of each boundary (a
// Sharding custom call outside, in place of the copy); dims with axes ({"data", ?}) and
// closed constraints stay as they are.
TEST(ShardyImportTest, OpenDimsOfAPartiallyManualRegionBecomeUnspecifiedDims) {
  auto m = ImportFile(kData / "partial_manual_step" / "module.hlo");
  ASSERT_NE(m, nullptr);
  auto f2s = CustomCalls(*m->entry(), "SPMDFullToShardShape");
  ASSERT_EQ(f2s.size(), 3u);
  std::map<std::string, std::string> open;  // parameter -> unspecified dims at its boundary
  for (const Instruction* f : f2s) {
    const Instruction* outside = f->operand(0);
    ASSERT_EQ(outside->opcode(), Opcode::kCustomCall) << outside->ToString();
    EXPECT_EQ(outside->attrs().custom_call_target, "Sharding");
    EXPECT_EQ(BackendConfig(outside), BackendConfig(f));
    open[outside->operand(0)->name()] = BackendConfig(f);
  }
  // [{"data", ?}, {?}]: dim 0 stays open too, 'data' its floor (it may take more axes).
  EXPECT_EQ(open["x.1"], "unspecified_dims=[0,1]");
  EXPECT_EQ(open["w1.1"], "unspecified_dims=[0,1]");
  EXPECT_EQ(open["w2.1"], "unspecified_dims=[0,1]");
  const Computation* body = m->FindComputation("xla.sdy.manual_computation_body.5");
  ASSERT_NE(body, nullptr);
  EXPECT_EQ(BackendConfig(body->FindInstruction("dot_general.11")), "unspecified_dims=[0,1]");
  EXPECT_EQ(BackendConfig(body->FindInstruction("sharding_constraint.2")), "<none>");
  EXPECT_EQ(ShardingText(body->FindInstruction("sharding_constraint.2")),
            "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dims={manual}}");
  EXPECT_EQ(ShardingText(body->FindInstruction("dot_general.10")), "<none>");  // left to propagation
}

// A shard_map over 'model' in the body of one over 'data' (nested_shard_map): the outer
// region is manual over 'data', the inner one over both axes. The inner boundary reads the
// outer's partially manual values ('data' a manual subgroup, 'model' split as the inner
// in_shardings say) and gives back partially manual ones.
TEST(ShardyImportTest, NestedRegionIsManualOverItsAxesAndTheEnclosingOnes) {
  auto m = ImportFile(kData / "nested_shard_map" / "module.hlo");
  ASSERT_NE(m, nullptr);
  const Computation* outer = m->FindComputation("xla.sdy.manual_computation_body_0.5");
  const Computation* inner = m->FindComputation("xla.sdy.manual_computation_body.2");
  ASSERT_NE(outer, nullptr);
  ASSERT_NE(inner, nullptr);
  for (const auto& inst : inner->instructions()) {
    const std::string text = ShardingText(inst.get());
    EXPECT_TRUE(text == "{manual}" || text == "{{manual}, {manual}}") << inst->ToString();
  }
  auto f2s = CustomCalls(*outer, "SPMDFullToShardShape");
  ASSERT_EQ(f2s.size(), 3u);
  const char* outside[] = {"{devices=[1,1,2,4]<=[8] last_tile_dims={manual, replicated}}",
                           "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dims={manual}}",
                           "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dims={manual}}"};
  const char* shapes[] = {"f32[4,32]{1,0}", "f32[32,16]{1,0}", "f32[16,32]{1,0}"};
  for (size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(f2s[i]->shape().ToString(), shapes[i]);
    EXPECT_EQ(ShardingText(f2s[i]), "{manual}");
    EXPECT_EQ(f2s[i]->operand(0)->opcode(), Opcode::kCopy);  // no axis left to open dims on
    EXPECT_EQ(ShardingText(f2s[i]->operand(0)), outside[i]);
  }
  auto s2f = CustomCalls(*outer, "SPMDShardToFullShape");
  ASSERT_EQ(s2f.size(), 1u);
  EXPECT_EQ(ShardingText(s2f[0]->operand(0)), "{manual}");
  EXPECT_EQ(ShardingText(s2f[0]), "{devices=[1,1,2,4]<=[8] last_tile_dims={manual, replicated}}");
  // The outer region's boundaries in the entry are as for a region alone.
  auto entry_f2s = CustomCalls(*m->entry(), "SPMDFullToShardShape");
  ASSERT_EQ(entry_f2s.size(), 3u);
  EXPECT_EQ(ShardingText(entry_f2s[0]), "{devices=[1,1,2,4]<=[8] last_tile_dims={manual, replicated}}");
  EXPECT_EQ(CustomCalls(*m->entry(), "SPMDShardToFullShape").size(), 2u);
}

// A nested region may not make an enclosing region's axis manual again, nor name it in
// its shardings (the enclosing region has cut the values along it already).
TEST(ShardyImportTest, NestedRegionOverAnEnclosingAxisIsAnErrorNamingTheBoundary) {
  const std::string text = ReadText(kData / "nested_shard_map" / "module.hlo");
  auto import = [](std::string t) {
    auto m = Parse(t);
    EXPECT_NE(m, nullptr);
    ShardyImport pass;
    PassContext context;
    auto changed = pass.Run(*m, context);
    return changed.ok() ? std::string("ok") : std::string(changed.status().message());
  };
  const std::string inner_axes = R"(xla.sdy.manual_axes="#sdy<manual_axes{\"model\"}>")";
  std::string again = text;
  for (size_t at = again.find(inner_axes); at != std::string::npos; at = again.find(inner_axes, at + 1))
    again.replace(at, inner_axes.size(), R"(xla.sdy.manual_axes="#sdy<manual_axes{\"data\"}>")");
  const std::string a = import(again);
  EXPECT_NE(a.find("%shard_map.22"), std::string::npos) << a;
  EXPECT_NE(a.find("manual axis 'data' is already manual in the enclosing region"), std::string::npos) << a;
  std::string named = text;
  const std::string in = R"(<@mesh, [{?}, {\"model\", ?}]>)";
  ASSERT_NE(named.find(in), std::string::npos);
  named.replace(named.find(in), in.size(), R"(<@mesh, [{?}, {\"model\", \"data\"}]>)");
  const std::string b = import(named);
  EXPECT_NE(b.find("%shard_map.22"), std::string::npos) << b;
  EXPECT_NE(b.find("axis 'data' is already manual in the enclosing region"), std::string::npos) << b;
}

constexpr const char* kInlineRegion = R"(
HloModule m, num_partitions=4, frontend_attributes={xla.sdy.meshes={mesh = #sdy.mesh<["d"=4]>}}

%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

ENTRY %e (x: f32[16,8]) -> f32[8] {
  %x = f32[16,8]{1,0} parameter(0)
  %local = f32[LOCAL,8]{1,0} custom-call(%x), custom_call_target="xla.sdy.GlobalToLocalShape", custom_call_has_side_effect=true, frontend_attributes={xla.sdy.in_shardings="#sdy.sharding_per_value<[<@mesh, [{\"d\"}, {}]>]>",xla.sdy.manual_axes="#sdy<manual_axes{\"d\"}>"}
  %zero = f32[] constant(0)
  %partial = f32[8]{0} reduce(%local, %zero), dimensions={0}, to_apply=%sum
  %total = f32[8]{0} all-reduce(%partial), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=%sum
  ROOT %out = f32[8]{0} custom-call(%total), custom_call_target="xla.sdy.LocalToGlobalShape", custom_call_has_side_effect=true, frontend_attributes={xla.sdy.manual_axes="#sdy<manual_axes{\"d\"}>",xla.sdy.out_shardings="#sdy.sharding_per_value<[<@mesh, [{}]>]>"}
}
)";

std::string WithLocal(const std::string& local) {
  std::string text = kInlineRegion;
  text.replace(text.find("LOCAL"), 5, local);
  return text;
}

// A region written inline (no call): the instructions between the two ends are manual.
// A GlobalToLocalShape written with the global shape gets the per-device one.
TEST(ShardyImportTest, InlineRegionAndGlobalShapedResult) {
  for (const std::string local : {"4", "16"}) {
    auto m = Parse(WithLocal(local));
    ASSERT_NE(m, nullptr);
    ShardyImport import;
    PassContext context;
    auto changed = import.Run(*m, context);
    ASSERT_TRUE(changed.ok()) << changed.status().message();
    ExpectNoShardy(*m);
    ExpectVerifiesAndRoundTrips(*m);
    const Computation& entry = *m->entry();
    auto f2s = CustomCalls(entry, "SPMDFullToShardShape");
    ASSERT_EQ(f2s.size(), 1u);
    EXPECT_EQ(f2s[0]->shape().ToString(), "f32[4,8]{1,0}") << "written f32[" << local << ",8]";
    EXPECT_EQ(ShardingText(entry.FindInstruction("partial")), "{manual}");
    EXPECT_EQ(ShardingText(entry.FindInstruction("total")), "{manual}");
    EXPECT_EQ(entry.root()->attrs().custom_call_target, "SPMDShardToFullShape");
    EXPECT_EQ(ShardingText(entry.root()), "{replicated}");
    bool noted = false;
    for (const std::string& line : import.log())
      noted |= line.find("global shape") != std::string::npos;
    EXPECT_EQ(noted, local == "16");
  }
}

TEST(ShardyImportTest, WrongLocalShapeIsAnError) {
  auto m = Parse(WithLocal("5"));
  ASSERT_NE(m, nullptr);
  ShardyImport import;
  PassContext context;
  auto changed = import.Run(*m, context);
  ASSERT_FALSE(changed.ok());
  EXPECT_NE(changed.status().message().find("%local"), std::string::npos)
      << changed.status().message();
}

TEST(ShardyImportTest, UnknownShardyCustomCallIsAnErrorNamingIt) {
  auto m = Parse(R"(
HloModule m, num_partitions=2, frontend_attributes={xla.sdy.meshes={mesh = #sdy.mesh<["d"=2]>}}
ENTRY %e (x: f32[4]) -> f32[4] {
  %x = f32[4]{0} parameter(0)
  ROOT %g = f32[4]{0} custom-call(%x), custom_call_target="xla.sdy.ShardingGroup", custom_call_has_side_effect=true
}
)");
  ASSERT_NE(m, nullptr);
  ShardyImport import;
  PassContext context;
  auto changed = import.Run(*m, context);
  ASSERT_FALSE(changed.ok());
  EXPECT_NE(changed.status().message().find("%g"), std::string::npos) << changed.status().message();
  EXPECT_NE(changed.status().message().find("xla.sdy.ShardingGroup"), std::string::npos);
}

TEST(ShardyImportTest, UnknownMeshIsAnError) {
  auto m = Parse(R"(
HloModule m, num_partitions=2, frontend_attributes={xla.sdy.meshes={mesh = #sdy.mesh<["d"=2]>}}
ENTRY %e (x: f32[4]) -> f32[4] {
  ROOT %x = f32[4]{0} parameter(0), frontend_attributes={xla.sdy.sharding="#sdy.sharding<@other, [{\"d\"}]>"}
}
)");
  ASSERT_NE(m, nullptr);
  ShardyImport import;
  PassContext context;
  auto changed = import.Run(*m, context);
  ASSERT_FALSE(changed.ok());
  EXPECT_NE(changed.status().message().find("%x"), std::string::npos) << changed.status().message();
}

// Shardy shardings on a module the interpreter can run before and after: same values.
TEST(ShardyImportTest, ComputesTheSameAndLeavesPlainModulesAlone) {
  auto m = Parse(R"(
HloModule m, num_partitions=4, frontend_attributes={xla.sdy.meshes={mesh = #sdy.mesh<["a"=2, "b"=2]>}}
ENTRY %e (x: f32[8,4], y: f32[8,4]) -> (f32[8,4], f32[4]) {
  %x = f32[8,4]{1,0} parameter(0), frontend_attributes={xla.sdy.sharding="#sdy.sharding<@mesh, [{\"a\", \"b\"}, {}]>"}
  %y = f32[8,4]{1,0} parameter(1), frontend_attributes={xla.sdy.sharding="#sdy.sharding<@mesh, [{\"b\"}, {\"a\"}]>"}
  %m = f32[8,4]{1,0} multiply(%x, %y)
  %c = f32[8,4]{1,0} custom-call(%m), custom_call_target="Sharding", frontend_attributes={xla.sdy.sharding="#sdy.sharding_per_value<[<@mesh, [{}, {\"b\"}]>]>"}
  %z = f32[] constant(0)
  %r = f32[4]{0} reduce(%c, %z), dimensions={0}, to_apply=%sum
  ROOT %t = (f32[8,4]{1,0}, f32[4]{0}) tuple(%c, %r), frontend_attributes={xla.sdy.sharding="#sdy.sharding_per_value<[<@mesh, [{\"a\"}, {}]>, <@mesh, [{}]>]>"}
}
%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
)");
  ASSERT_NE(m, nullptr);
  ShardyImport import;
  EXPECT_TRUE(RunPassAndCheck(import, *m));
  ExpectNoShardy(*m);
  const Computation& entry = *m->entry();
  EXPECT_EQ(ShardingText(entry.FindInstruction("x")), "{devices=[4,1]<=[4]}");
  EXPECT_EQ(ShardingText(entry.FindInstruction("y")), "{devices=[2,2]<=[2,2]T(1,0)}");
  EXPECT_EQ(ShardingText(entry.FindInstruction("c")),
            "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}");
  EXPECT_EQ(ShardingText(entry.root()),
            "{{devices=[2,1,2]<=[4] last_tile_dim_replicate}, {replicated}}");

  // No xla.sdy at all: nothing to do.
  auto plain = Parse(R"(
HloModule m, num_partitions=2
ENTRY %e (x: f32[4]) -> f32[4] {
  ROOT %x = f32[4]{0} parameter(0), sharding={devices=[2]<=[2]}
}
)");
  ASSERT_NE(plain, nullptr);
  ShardyImport again;
  EXPECT_FALSE(RunPassAndCheck(again, *plain));
}

}  // namespace
}  // namespace fusebox::passes
