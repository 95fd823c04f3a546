// Tests for the HLO proto importer: every `*.hlo.pb` of the real XLA dumps loads to the
// same module as its `.txt` twin; gzip, HloSnapshot arguments, and bad input (corrupt,
// truncated, bad gzip, dangling ids) give clear errors, never crashes.
#include "importers/hlo_proto.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "compiler/parser/parser.h"
#include "importers/module_loader.h"
#include "importers/proto/xla_hlo.pb.h"

namespace fusebox {
namespace {

namespace fs = std::filesystem;
namespace px = ::fusebox::xla;

fs::path DumpRoot() { return fs::path(FUSEBOX_SOURCE_DIR) / "tests" / "data" / "xla_dumps"; }

std::vector<std::string> DumpProtoFiles() {
  std::vector<std::string> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(DumpRoot(), ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (it->is_regular_file() && name.size() > 7 && name.ends_with(".hlo.pb"))
      files.push_back(it->path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void WriteBytes(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

fs::path TempPath(const std::string& name) {
  return fs::path(testing::TempDir()) / ("hlo_proto_test_" + name);
}

std::string GzipCompress(std::string_view bytes) {
  z_stream zs;
  std::memset(&zs, 0, sizeof zs);
  EXPECT_EQ(deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY),
            Z_OK);
  std::string out(deflateBound(&zs, bytes.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  zs.avail_in = static_cast<uInt>(bytes.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// The `.txt` twin of a dump's `.hlo.pb`, printed by Fusebox.
std::string TwinText(const std::string& proto_path) {
  std::string txt =
      proto_path.substr(0, proto_path.size() - std::string(".hlo.pb").size()) + ".txt";
  auto parsed = ParseFile(txt);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  if (!parsed.ok()) return "";
  EXPECT_EQ(parsed->modules.size(), 1u);
  Module& module = *parsed->modules.front();
  // Normalization: the text header's allow_spmd_sharding_propagation_to_parameters /
  // _to_output come from the HloModuleConfig XLA compiled with. HloProto does not carry
  // the config (only the module), so a proto cannot show them; drop them from the twin.
  module.has_allow_spmd_to_parameters = false;
  module.allow_spmd_sharding_propagation_to_parameters.clear();
  module.has_allow_spmd_to_output = false;
  module.allow_spmd_sharding_propagation_to_output.clear();
  return module.ToString();
}

// --- Every dump's proto against its text twin ---

class DumpProtoTest : public testing::TestWithParam<std::string> {};

TEST_P(DumpProtoTest, MatchesTextTwin) {
  const std::string& path = GetParam();
  auto imported = importers::ImportHloProtoFile(path);
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  EXPECT_EQ(imported->kind, importers::HloProtoKind::kHloProto);  // what --xla_dump_hlo_as_proto writes
  ASSERT_NE(imported->module, nullptr);
  EXPECT_EQ(imported->module->source_name(), path);
  EXPECT_TRUE(imported->arguments.empty());
  for (const std::string& w : imported->warnings) ADD_FAILURE() << "unexpected warning: " << w;
  std::string twin = TwinText(path);
  ASSERT_FALSE(twin.empty());
  EXPECT_EQ(imported->module->ToString(), twin);
}

std::string TestNameOf(const testing::TestParamInfo<std::string>& info) {
  fs::path p(info.param);
  std::string name = p.parent_path().filename().string() + "_" + p.filename().string();
  name = name.substr(0, name.size() - std::string(".hlo.pb").size());
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(XlaDumps, DumpProtoTest, testing::ValuesIn(DumpProtoFiles()), TestNameOf);

TEST(HloProtoTest, FindsTheDumpProtos) {
  // The four dump folders hold 125 `.hlo.pb` files; an empty list would make the
  // parameterized test above vacuous.
  EXPECT_GE(DumpProtoFiles().size(), 100u);
}

fs::path MnistOptimized() {
  return DumpRoot() / "mnist_train_step" /
         "module_0000.jit_mnist_train_step.cpu_after_optimizations.hlo.pb";
}

TEST(HloProtoTest, BareModuleProtoImportsLikeTheHloProto) {
  px::HloProto hlo;
  ASSERT_TRUE(hlo.ParseFromString(ReadBytes(MnistOptimized())));
  std::string bytes = hlo.hlo_module().SerializeAsString();
  auto bare = importers::ImportHloProto(bytes, "bare.pb");
  ASSERT_TRUE(bare.ok()) << bare.status().message();
  EXPECT_EQ(bare->kind, importers::HloProtoKind::kModule);
  auto wrapped = importers::ImportHloProtoFile(MnistOptimized().string());
  ASSERT_TRUE(wrapped.ok()) << wrapped.status().message();
  EXPECT_EQ(bare->module->ToString(), wrapped->module->ToString());
  EXPECT_EQ(bare->hlo_text, wrapped->hlo_text);
}

TEST(HloProtoTest, ScheduledModuleKeepsScheduleOrder) {
  auto imported = importers::ImportHloProtoFile(MnistOptimized().string());
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  EXPECT_TRUE(imported->module->is_scheduled.value_or(false));
  EXPECT_NE(imported->hlo_text.find("is_scheduled=true"), std::string::npos);
}

// --- gzip ---

TEST(HloProtoTest, GzipRoundTrip) {
  std::string bytes = ReadBytes(MnistOptimized());
  fs::path gz = TempPath("mnist.hlo.pb.gz");
  WriteBytes(gz, GzipCompress(bytes));
  auto from_gz = importers::ImportHloProtoFile(gz.string());
  ASSERT_TRUE(from_gz.ok()) << from_gz.status().message();
  auto plain = importers::ImportHloProto(bytes, "plain");
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_EQ(from_gz->module->ToString(), plain->module->ToString());

  // Detected by content, whatever the name says.
  fs::path misnamed = TempPath("mnist_gz_without_suffix.bin");
  WriteBytes(misnamed, GzipCompress(bytes));
  EXPECT_TRUE(importers::ImportHloProtoFile(misnamed.string()).ok());

  // And through the general file loader.
  auto loaded = importers::LoadFile(gz.string());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  ASSERT_EQ(loaded->modules.size(), 1u);
  EXPECT_EQ(loaded->modules[0]->ToString(), plain->module->ToString());
  EXPECT_TRUE(loaded->arguments.empty());
}

TEST(HloProtoTest, BadGzipNamesTheFile) {
  fs::path bad = TempPath("bad.hlo.pb.gz");
  std::string garbage = "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03 this is not deflate data at all";
  WriteBytes(bad, garbage);
  auto result = importers::ImportHloProtoFile(bad.string());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(result.status().message().find(bad.string()), std::string::npos)
      << result.status().message();
  EXPECT_NE(result.status().message().find("gzip"), std::string::npos) << result.status().message();

  // A gzip file cut in half.
  std::string gz = GzipCompress(ReadBytes(MnistOptimized()));
  fs::path cut = TempPath("cut.hlo.pb.gz");
  WriteBytes(cut, std::string_view(gz).substr(0, gz.size() / 2));
  auto truncated = importers::ImportHloProtoFile(cut.string());
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.status().message().find(cut.string() + ": gzip stream ends early"),
            std::string::npos)
      << truncated.status().message();
}

// --- HloSnapshot ---

px::ShapeProto ArrayShape(px::PrimitiveType type, std::vector<int64_t> dims,
                          std::vector<int64_t> minor_to_major) {
  px::ShapeProto s;
  s.set_element_type(type);
  for (int64_t d : dims) s.add_dimensions(d);
  for (int64_t d : minor_to_major) s.mutable_layout()->add_minor_to_major(d);
  return s;
}

px::HloInstructionProto* AddInstruction(px::HloComputationProto* comp, const std::string& name,
                                        const std::string& opcode, int64_t id,
                                        const px::ShapeProto& shape) {
  px::HloInstructionProto* inst = comp->add_instructions();
  inst->set_name(name);
  inst->set_opcode(opcode);
  inst->set_id(id);
  *inst->mutable_shape() = shape;
  return inst;
}

// ENTRY main { p0 = f32[2,2] parameter(0); p1 = f32[2,2]{0,1} parameter(1); ROOT sum = add(p0, p1)
// }
px::HloModuleProto SmallModule() {
  px::HloModuleProto m;
  m.set_name("snapshot_module");
  m.set_entry_computation_name("main");
  m.set_entry_computation_id(7);
  px::HloComputationProto* comp = m.add_computations();
  comp->set_name("main");
  comp->set_id(7);
  comp->set_root_id(3);
  AddInstruction(comp, "p0", "parameter", 1, ArrayShape(px::F32, {2, 2}, {1, 0}));
  px::HloInstructionProto* p1 =
      AddInstruction(comp, "p1", "parameter", 2, ArrayShape(px::F32, {2, 2}, {0, 1}));
  p1->set_parameter_number(1);
  px::HloInstructionProto* sum =
      AddInstruction(comp, "sum", "add", 3, ArrayShape(px::F32, {2, 2}, {1, 0}));
  sum->add_operand_ids(1);
  sum->add_operand_ids(2);
  sum->mutable_metadata()->set_op_name("jit(f)/add");
  return m;
}

TEST(HloProtoTest, SnapshotArgumentsAndResult) {
  px::HloSnapshot snapshot;
  *snapshot.mutable_hlo()->mutable_hlo_module() = SmallModule();
  snapshot.set_execution_platform("Host");
  px::LiteralProto* a0 = snapshot.add_arguments();
  *a0->mutable_shape() = ArrayShape(px::F32, {2, 2}, {1, 0});
  for (float v : {1.0f, 2.0f, 3.0f, 4.0f}) a0->add_f32s(v);
  // Column-major storage: the proto lists [0,0], [1,0], [0,1], [1,1].
  px::LiteralProto* a1 = snapshot.add_arguments();
  *a1->mutable_shape() = ArrayShape(px::F32, {2, 2}, {0, 1});
  for (float v : {10.0f, 30.0f, 20.0f, 40.0f}) a1->add_f32s(v);
  px::LiteralProto* result = snapshot.mutable_result();
  *result->mutable_shape() = ArrayShape(px::F32, {2, 2}, {1, 0});
  for (float v : {11.0f, 22.0f, 33.0f, 44.0f}) result->add_f32s(v);

  std::string bytes = snapshot.SerializeAsString();
  auto imported = importers::ImportHloProto(bytes, "snapshot.pb");
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  EXPECT_EQ(imported->kind, importers::HloProtoKind::kSnapshot);
  EXPECT_EQ(imported->execution_platform, "Host");
  ASSERT_EQ(imported->arguments.size(), 2u);
  for (int64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(imported->arguments[0].GetDouble(i), static_cast<double>(i + 1)) << i;
    EXPECT_EQ(imported->arguments[1].GetDouble(i), static_cast<double>(10 * (i + 1))) << i;
  }
  ASSERT_TRUE(imported->result.has_value());
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(imported->result->GetDouble(i), 11.0 * (i + 1)) << i;

  const Module& m = *imported->module;
  EXPECT_EQ(m.name(), "snapshot_module");
  ASSERT_NE(m.entry(), nullptr);
  EXPECT_EQ(m.entry()->name(), "main");
  EXPECT_EQ(m.entry()->root()->name(), "sum");
  EXPECT_EQ(m.entry()->parameter(1)->shape().ToString(), "f32[2,2]{0,1}");
  ASSERT_NE(m.entry()->root()->metadata(), nullptr);
  EXPECT_EQ(m.entry()->root()->metadata()->op_name, "jit(f)/add");

  // LoadFile hands the arguments on.
  fs::path path = TempPath("snapshot.pb");
  WriteBytes(path, bytes);
  auto loaded = importers::LoadFile(path.string());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  ASSERT_EQ(loaded->modules.size(), 1u);
  ASSERT_EQ(loaded->arguments.size(), 2u);
  EXPECT_EQ(loaded->arguments[1].GetDouble(1), 20.0);
}

TEST(HloProtoTest, LiteralElementTypes) {
  px::LiteralProto bf16;
  *bf16.mutable_shape() = ArrayShape(px::BF16, {2}, {0});
  bf16.set_bf16s(std::string("\x80\x3f\x00\xc0", 4));  // 1.0, -2.0 little-endian
  auto b = importers::LiteralFromProto(bf16);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->GetDouble(0), 1.0);
  EXPECT_EQ(b->GetDouble(1), -2.0);

  px::LiteralProto s8;
  *s8.mutable_shape() = ArrayShape(px::S8, {3}, {0});
  s8.set_s8s(std::string("\x01\xff\x80", 3));
  auto s = importers::LiteralFromProto(s8);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->GetInt64(0), 1);
  EXPECT_EQ(s->GetInt64(1), -1);
  EXPECT_EQ(s->GetInt64(2), -128);

  px::LiteralProto s4;  // one element per byte
  *s4.mutable_shape() = ArrayShape(px::S4, {2}, {0});
  s4.set_s4s(std::string("\x07\x0f", 2));
  auto i4 = importers::LiteralFromProto(s4);
  ASSERT_TRUE(i4.ok()) << i4.status().message();
  EXPECT_EQ(i4->GetInt64(0), 7);
  EXPECT_EQ(i4->GetInt64(1), -1);

  px::LiteralProto pred;
  *pred.mutable_shape() = ArrayShape(px::PRED, {2}, {0});
  pred.add_preds(true);
  pred.add_preds(false);
  auto p = importers::LiteralFromProto(pred);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_TRUE(p->GetBool(0));
  EXPECT_FALSE(p->GetBool(1));

  px::LiteralProto c64;
  *c64.mutable_shape() = ArrayShape(px::C64, {1}, {0});
  c64.add_c64s(1.5f);
  c64.add_c64s(-2.0f);
  auto c = importers::LiteralFromProto(c64);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->GetComplex(0), std::complex<double>(1.5, -2.0));

  px::LiteralProto tuple;
  *tuple.mutable_shape()->mutable_tuple_shapes()->Add() = s8.shape();
  tuple.mutable_shape()->set_element_type(px::TUPLE);
  *tuple.add_tuple_literals() = s8;
  auto t = importers::LiteralFromProto(tuple);
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->tuple_elements().size(), 1u);
  EXPECT_EQ(t->tuple_elements()[0].GetInt64(2), -128);

  px::LiteralProto short_data;
  *short_data.mutable_shape() = ArrayShape(px::F32, {3}, {0});
  short_data.add_f32s(1.0f);
  auto bad = importers::LiteralFromProto(short_data);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("holds 1 values, the shape needs 3"), std::string::npos)
      << bad.status().message();
}

px::HloComputationProto* AddComputation(px::HloModuleProto* m, const std::string& name, int64_t id,
                                        int64_t root_id) {
  px::HloComputationProto* comp = m->add_computations();
  comp->set_name(name);
  comp->set_id(id);
  comp->set_root_id(root_id);
  return comp;
}

TEST(HloProtoTest, ControlFlowFollowsXlaConventions) {
  px::ShapeProto s32 = ArrayShape(px::S32, {}, {});
  px::ShapeProto f32 = ArrayShape(px::F32, {}, {});
  px::ShapeProto pred = ArrayShape(px::PRED, {}, {});
  px::HloModuleProto m;
  m.set_name("control_flow");
  m.set_entry_computation_name("main");
  m.set_entry_computation_id(5);
  px::HloComputationProto* cond = AddComputation(&m, "cond", 1, 12);
  AddInstruction(cond, "c.p", "parameter", 10, s32);
  px::HloInstructionProto* ten = AddInstruction(cond, "c.k", "constant", 11, s32);
  *ten->mutable_literal()->mutable_shape() = s32;
  ten->mutable_literal()->add_s32s(10);
  px::HloInstructionProto* lt = AddInstruction(cond, "c.lt", "compare", 12, pred);
  lt->add_operand_ids(10);
  lt->add_operand_ids(11);
  lt->set_comparison_direction("LT");
  lt->set_comparison_type("SIGNED");  // the default for s32: not printed
  px::HloComputationProto* body = AddComputation(&m, "body", 2, 21);
  AddInstruction(body, "b.p", "parameter", 20, s32);
  AddInstruction(body, "b.neg", "negate", 21, s32)->add_operand_ids(20);
  px::HloComputationProto* then_branch = AddComputation(&m, "then", 3, 31);
  AddInstruction(then_branch, "t.p", "parameter", 30, f32);
  AddInstruction(then_branch, "t.neg", "negate", 31, f32)->add_operand_ids(30);
  px::HloComputationProto* else_branch = AddComputation(&m, "else", 4, 41);
  AddInstruction(else_branch, "e.p", "parameter", 40, f32);
  AddInstruction(else_branch, "e.abs", "abs", 41, f32)->add_operand_ids(40);
  px::HloComputationProto* main = AddComputation(&m, "main", 5, 55);
  AddInstruction(main, "x", "parameter", 50, s32);
  px::HloInstructionProto* loop = AddInstruction(main, "w", "while", 51, s32);
  loop->add_operand_ids(50);
  loop->add_called_computation_ids(2);  // XLA stores the body first
  loop->add_called_computation_ids(1);
  px::HloInstructionProto* eq = AddInstruction(main, "eq", "compare", 52, pred);
  eq->add_operand_ids(51);
  eq->add_operand_ids(50);
  eq->set_comparison_direction("EQ");
  eq->set_comparison_type("UNSIGNED");  // not the default for s32: printed
  AddInstruction(main, "f", "parameter", 53, f32)->set_parameter_number(1);
  px::HloInstructionProto* branch = AddInstruction(main, "choose", "conditional", 55, f32);
  for (int64_t id : {52, 53, 53}) branch->add_operand_ids(id);
  branch->add_called_computation_ids(3);
  branch->add_called_computation_ids(4);

  auto imported = importers::ImportHloProto(m.SerializeAsString(), "control_flow.pb");
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  const std::string& text = imported->hlo_text;
  EXPECT_NE(text.find("condition=%cond, body=%body"), std::string::npos) << text;
  EXPECT_NE(text.find("true_computation=%then, false_computation=%else"), std::string::npos)
      << text;
  const Computation* entry = imported->module->entry();
  ASSERT_NE(entry, nullptr);
  const Instruction* w = entry->FindInstruction("w");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->while_condition()->name(), "cond");
  EXPECT_EQ(w->while_body()->name(), "body");
  EXPECT_EQ(entry->root()->call_form(), CallForm::kTrueFalse);
  EXPECT_EQ(entry->FindInstruction("eq")->attrs().comparison_type, ComparisonType::kUnsigned);
  const Computation* c = imported->module->FindComputation("cond");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->root()->attrs().comparison_type.has_value());
  EXPECT_EQ(c->FindInstruction("c.k")->literal()->GetInt64(0), 10);
  // Text written from the imported module parses back to the same module.
  auto reparsed = ParseModule(imported->module->ToString());
  ASSERT_TRUE(reparsed.ok()) << reparsed.status().message();
  EXPECT_EQ((*reparsed)->ToString(), imported->module->ToString());
}

TEST(HloProtoTest, ShardingCollectivesAndCustomCalls) {
  px::ShapeProto vec = ArrayShape(px::F32, {8}, {0});
  px::ShapeProto scalar = ArrayShape(px::F32, {}, {});
  px::HloModuleProto m;
  m.set_name("spmd");
  m.set_entry_computation_name("main");
  px::HloComputationProto* sum = AddComputation(&m, "sum", 1, 3);
  AddInstruction(sum, "a", "parameter", 1, scalar);
  AddInstruction(sum, "b", "parameter", 2, scalar)->set_parameter_number(1);
  px::HloInstructionProto* add = AddInstruction(sum, "ab", "add", 3, scalar);
  add->add_operand_ids(1);
  add->add_operand_ids(2);
  px::HloComputationProto* main = AddComputation(&m, "main", 2, 12);
  px::HloInstructionProto* p = AddInstruction(main, "p", "parameter", 10, vec);
  px::OpSharding* tiled = p->mutable_sharding();
  tiled->set_type(px::OpSharding::OTHER);
  for (int64_t d : {4, 2}) tiled->add_tile_assignment_dimensions(d);
  tiled->add_iota_reshape_dims(8);
  tiled->set_replicate_on_last_tile_dim(true);
  (*p->mutable_frontend_attributes()->mutable_map())["_xla_compute_type"] = "host";
  px::HloInstructionProto* ar = AddInstruction(main, "ar", "all-reduce", 11, vec);
  ar->add_operand_ids(10);
  ar->add_called_computation_ids(1);
  ar->set_channel_id(3);
  ar->set_use_global_device_ids(true);
  auto* iota = ar->mutable_collective_device_list()->mutable_iota_replica_group_list();
  iota->set_num_replica_groups(2);
  iota->set_num_devices_per_group(4);
  iota->add_iota_reshape_dims(4);
  iota->add_iota_reshape_dims(2);
  iota->add_iota_transpose_perm(1);
  iota->add_iota_transpose_perm(0);
  px::HloInstructionProto* cc = AddInstruction(main, "cc", "custom-call", 12, vec);
  cc->add_operand_ids(11);
  cc->set_custom_call_target("my_kernel");
  cc->set_backend_config("opaque bytes");
  cc->set_custom_call_api_version(px::API_VERSION_STATUS_RETURNING);
  cc->set_custom_call_has_side_effect(true);
  cc->mutable_sharding()->set_type(px::OpSharding::REPLICATED);

  auto imported = importers::ImportHloProto(m.SerializeAsString(), "spmd.pb");
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  EXPECT_TRUE(imported->warnings.empty());
  const Computation* entry = imported->module->entry();
  const InstructionAttributes& pa = entry->FindInstruction("p")->attrs();
  EXPECT_EQ(pa.sharding, "devices=[4,2]<=[8] last_tile_dim_replicate");
  ASSERT_EQ(pa.frontend_attributes.size(), 1u);
  EXPECT_EQ(pa.frontend_attributes[0].second, "host");
  const InstructionAttributes& ra = entry->FindInstruction("ar")->attrs();
  ASSERT_TRUE(ra.replica_groups.has_value());
  EXPECT_EQ(ra.replica_groups->ToString(), "[2,4]<=[4,2]T(1,0)");
  EXPECT_EQ(ra.channel_id, 3);
  EXPECT_EQ(ra.use_global_device_ids, true);
  EXPECT_EQ(entry->FindInstruction("ar")->to_apply()->name(), "sum");
  const InstructionAttributes& ca = entry->root()->attrs();
  EXPECT_EQ(ca.custom_call_target, "my_kernel");
  EXPECT_TRUE(ca.backend_config_is_string);
  EXPECT_EQ(ca.backend_config, "opaque bytes");
  EXPECT_EQ(ca.api_version, CustomCallApiVersion::kStatusReturning);
  EXPECT_TRUE(ca.custom_call_has_side_effect);
  EXPECT_EQ(ca.sharding, "replicated");
}

TEST(HloProtoTest, ConstantWithoutDataLoadsElided) {
  px::HloModuleProto m = SmallModule();
  px::HloComputationProto* comp = m.mutable_computations(0);
  px::HloInstructionProto* big =
      AddInstruction(comp, "big", "constant", 4, ArrayShape(px::F32, {2, 2}, {1, 0}));
  *big->mutable_literal()->mutable_shape() = big->shape();  // shape, but no values
  px::HloInstructionProto* small =
      AddInstruction(comp, "small", "constant", 5, ArrayShape(px::S32, {2}, {0}));
  *small->mutable_literal()->mutable_shape() = small->shape();
  small->mutable_literal()->add_s32s(-3);
  small->mutable_literal()->add_s32s(9);
  auto imported = importers::ImportHloProto(m.SerializeAsString(), "elided.pb");
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  const Instruction* b = imported->module->entry()->FindInstruction("big");
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(b->literal_elided());
  const Instruction* s = imported->module->entry()->FindInstruction("small");
  ASSERT_NE(s, nullptr);
  ASSERT_NE(s->literal(), nullptr);
  EXPECT_EQ(s->literal()->GetInt64(0), -3);
  EXPECT_EQ(s->literal()->GetInt64(1), 9);
  ASSERT_EQ(imported->warnings.size(), 1u);
  EXPECT_NE(imported->warnings[0].find("elided"), std::string::npos) << imported->warnings[0];
}

// --- Bad input ---

TEST(HloProtoTest, RandomBytesAreNotAnHloProto) {
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 200; ++trial) {
    std::string bytes(static_cast<size_t>(1 + rng() % 4096), '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    auto result = importers::ImportHloProto(bytes, "random.pb");
    ASSERT_FALSE(result.ok()) << "trial " << trial;
    EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(result.status().message().rfind("random.pb: not an HLO proto (", 0), 0u)
        << "trial " << trial << ": " << result.status().message();
  }
  fs::path path = TempPath("random.hlo.pb");
  WriteBytes(path, "\x9a\x17\xff\x00\x12\x34 random bytes");
  auto loaded = importers::LoadFile(path.string());
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find(path.string() + ": not an HLO proto"), std::string::npos)
      << loaded.status().message();
}

TEST(HloProtoTest, TruncatedFileSaysWhereAndWhatSurvives) {
  std::string bytes = ReadBytes(MnistOptimized());
  fs::path path = TempPath("half.hlo.pb");
  std::string half = bytes.substr(0, bytes.size() / 2);
  WriteBytes(path, half);
  auto result = importers::ImportHloProtoFile(path.string());
  ASSERT_FALSE(result.ok());
  const std::string& msg = result.status().message();
  EXPECT_EQ(msg.rfind(path.string() + ": truncated HLO proto: decoding stopped at byte ", 0), 0u)
      << msg;
  EXPECT_NE(msg.find(" of " + std::to_string(half.size())), std::string::npos) << msg;
  EXPECT_NE(msg.find("of the computations are complete (the last is %"), std::string::npos) << msg;

  // Every cut point gives an error, never a crash or a bogus module.
  for (size_t cut = 1; cut < bytes.size(); cut += bytes.size() / 97) {
    auto r = importers::ImportHloProto(std::string_view(bytes).substr(0, cut), "cut.pb");
    EXPECT_FALSE(r.ok()) << "cut at " << cut;
  }
}

TEST(HloProtoTest, MutatedProtosNeverCrash) {
  // Byte flips in a real dump: whatever they turn into (huge shapes, bad ids, broken
  // wire data), the import returns a module or an error.
  std::string original = ReadBytes(DumpRoot() / "reduce_sum" /
                                   "module_0000.jit_reduce_sum.cpu_after_optimizations.hlo.pb");
  ASSERT_FALSE(original.empty());
  std::mt19937 rng(99);
  int ok = 0;
  for (int trial = 0; trial < 500; ++trial) {
    std::string bytes = original;
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) bytes[rng() % bytes.size()] = static_cast<char>(rng());
    auto result = importers::ImportHloProto(bytes, "mutated.pb");
    if (result.ok()) {
      ++ok;
      EXPECT_NE(result->module, nullptr);
    } else {
      EXPECT_EQ(result.status().message().rfind("mutated.pb", 0), 0u) << result.status().message();
    }
  }
  EXPECT_GT(ok, 0);  // flips inside names and metadata strings still load
}

px::HloProto MnistProto() {
  px::HloProto hlo;
  EXPECT_TRUE(hlo.ParseFromString(ReadBytes(MnistOptimized())));
  return hlo;
}

TEST(HloProtoTest, DanglingOperandIdNamesTheInstruction) {
  px::HloProto hlo = MnistProto();
  px::HloComputationProto* comp = hlo.mutable_hlo_module()->mutable_computations(0);
  px::HloInstructionProto* victim = nullptr;
  for (auto& inst : *comp->mutable_instructions()) {
    if (inst.operand_ids_size() > 0) {
      victim = &inst;
      break;
    }
  }
  ASSERT_NE(victim, nullptr);
  victim->set_operand_ids(0, 987654321);
  auto result = importers::ImportHloProto(hlo.SerializeAsString(), "dangling.pb");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(),
            "dangling.pb: instruction %" + victim->name() + " in computation %" + comp->name() +
                ": operand 0 has id 987654321, which names no instruction of the "
                "computation");
}

TEST(HloProtoTest, DanglingCalledComputationAndEntry) {
  px::HloProto hlo = MnistProto();
  px::HloModuleProto* m = hlo.mutable_hlo_module();
  px::HloInstructionProto* caller = nullptr;
  for (auto& comp : *m->mutable_computations()) {
    for (auto& inst : *comp.mutable_instructions()) {
      if (inst.called_computation_ids_size() > 0 && caller == nullptr) caller = &inst;
    }
  }
  ASSERT_NE(caller, nullptr);
  caller->set_called_computation_ids(0, 424242);
  auto result = importers::ImportHloProto(hlo.SerializeAsString(), "calls.pb");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("instruction %" + caller->name()), std::string::npos);
  EXPECT_NE(
      result.status().message().find("calls computation id 424242, which is not in the module"),
      std::string::npos)
      << result.status().message();

  px::HloProto no_entry = MnistProto();
  no_entry.mutable_hlo_module()->set_entry_computation_name("nowhere");
  no_entry.mutable_hlo_module()->set_entry_computation_id(31337);
  auto missing = importers::ImportHloProto(no_entry.SerializeAsString(), "entry.pb");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find(
                "entry.pb: the entry computation %nowhere (id 31337) is not among"),
            std::string::npos)
      << missing.status().message();
}

TEST(HloProtoTest, UnknownOpcodeIsReportedByTheParser) {
  px::HloProto hlo = MnistProto();
  px::HloInstructionProto* inst =
      hlo.mutable_hlo_module()->mutable_computations(0)->mutable_instructions(0);
  inst->set_opcode("frobnicate");
  auto result = importers::ImportHloProto(hlo.SerializeAsString(), "opcode.pb");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("opcode.pb (decoded to HLO text):"), std::string::npos)
      << result.status().message();
  EXPECT_NE(result.status().message().find("unknown opcode 'frobnicate'"), std::string::npos)
      << result.status().message();
}

TEST(HloProtoTest, EmptyAndNonProtoFiles) {
  auto empty = importers::ImportHloProto("", "empty.pb");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(), "empty.pb: not an HLO proto (the file is empty)");
  // Valid protobuf that holds no module.
  px::LiteralProto literal;
  literal.add_f32s(1.0f);
  auto other = importers::ImportHloProto(literal.SerializeAsString(), "literal.pb");
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().message().rfind("literal.pb: not an HLO proto (", 0), 0u)
      << other.status().message();
  auto missing = importers::ImportHloProtoFile(TempPath("does_not_exist.pb").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace fusebox
