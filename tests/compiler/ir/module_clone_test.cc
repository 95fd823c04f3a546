// Module::Clone, the structural deep copy: every module of the corpus, the test data and
// the examples prints identically once cloned and has what a module parsed from its
// printed text has (order, users, fusion links, locations once LocateInPrintedText
// moved them); the copy shares nothing with the original.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "compiler/ir/module.h"
#include "compiler/parser/parser.h"

namespace fusebox {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> HloFiles(const fs::path& root) {
  std::vector<fs::path> files;
  if (!fs::is_directory(root)) return files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    const std::string ext = entry.path().extension().string();
    if (ext == ".hlo" || ext == ".txt") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Every parsed module of the corpus (the shared one when present), tests/data and
// assets/examples; files that are not meant to parse are left out.
std::vector<std::unique_ptr<Module>> AllModules(size_t* files_read) {
  std::vector<std::unique_ptr<Module>> modules;
  const fs::path source(FUSEBOX_SOURCE_DIR);
  *files_read = 0;
  for (const fs::path& root : {source / "../shared/corpus", source / "tests/data", source / "assets/examples"}) {
    for (const fs::path& path : HloFiles(root)) {
      auto parsed = ParseFile(path.string());
      if (!parsed.ok()) continue;
      ++*files_read;
      for (auto& m : parsed->modules) modules.push_back(std::move(m));
    }
  }
  return modules;
}

std::vector<std::string> Names(const std::vector<Instruction*>& list) {
  std::vector<std::string> names;
  for (const Instruction* i : list) names.push_back(i ? i->name() : "<null>");
  return names;
}

// The clone against the module parsed from the original's printed text: the old Clone.
void ExpectLikeReparsed(const Module& clone, const Module& reparsed, const std::string& what) {
  ASSERT_EQ(clone.computations().size(), reparsed.computations().size()) << what;
  ASSERT_NE(clone.entry(), nullptr) << what;
  EXPECT_EQ(clone.entry()->name(), reparsed.entry()->name()) << what;
  for (size_t c = 0; c < clone.computations().size(); ++c) {
    const Computation& a = *clone.computations()[c];
    const Computation& b = *reparsed.computations()[c];
    const std::string where = what + " %" + b.name();
    ASSERT_EQ(a.name(), b.name()) << what << ": computation " << c;
    EXPECT_EQ(a.location().line, b.location().line) << where;
    EXPECT_EQ(a.location().column, b.location().column) << where;
    EXPECT_EQ(a.is_entry(), b.is_entry()) << where;
    EXPECT_EQ(a.fusion_instruction() ? a.fusion_instruction()->name() : "",
              b.fusion_instruction() ? b.fusion_instruction()->name() : "") << where;
    EXPECT_EQ(Names(a.parameters()), Names(b.parameters())) << where;
    ASSERT_EQ(a.instructions().size(), b.instructions().size()) << where;
    for (size_t i = 0; i < a.instructions().size(); ++i) {
      const Instruction& x = *a.instructions()[i];
      const Instruction& y = *b.instructions()[i];
      ASSERT_EQ(x.name(), y.name()) << where << ": instruction " << i;
      EXPECT_EQ(Names(x.users()), Names(y.users())) << where << " %" << y.name();
      EXPECT_EQ(Names(x.control_successors()), Names(y.control_successors())) << where << " %" << y.name();
      EXPECT_EQ(x.location().line, y.location().line) << where << " %" << y.name();
      EXPECT_EQ(x.location().column, y.location().column) << where << " %" << y.name();
    }
  }
}

TEST(ModuleCloneTest, EveryModulePrintsIdenticallyAndMatchesItsReparse) {
  size_t files = 0;
  std::vector<std::unique_ptr<Module>> modules = AllModules(&files);
  EXPECT_GE(files, 229u);
  for (const auto& original : modules) {
    const std::string what = original->source_name() + " (" + original->name() + ")";
    std::unique_ptr<Module> clone = original->Clone();
    ASSERT_NE(clone, nullptr) << what;
    const std::string text = original->ToString();
    ASSERT_EQ(clone->ToString(), text) << what;
    EXPECT_EQ(clone->source_name(), original->source_name()) << what;
    EXPECT_EQ(clone->instruction_count(), original->instruction_count()) << what;

    ParseOptions options;
    options.filename = original->source_name();
    auto reparsed = ParseModule(text, options);
    ASSERT_TRUE(reparsed.ok()) << what << ": " << reparsed.status().message();
    clone->LocateInPrintedText();
    ExpectLikeReparsed(*clone, **reparsed, what);
    EXPECT_EQ(clone->ToString(), text) << what;
  }
}

TEST(ModuleCloneTest, KeepsLocationsOfTheFile) {
  // Not the printed layout: an extra blank line, indentation and a comment.
  auto module = ParseModule(R"(HloModule m

// a comment
ENTRY %main (p: f32[2]) -> f32[2] {

    %p = f32[2]{0} parameter(0)
    ROOT %n = f32[2]{0} negate(%p)
})");
  ASSERT_TRUE(module.ok()) << module.status().message();
  std::unique_ptr<Module> clone = (*module)->Clone();
  ASSERT_NE(clone, nullptr);
  const Instruction* n = clone->entry()->FindInstruction("n");
  EXPECT_EQ(n->location().line, 7);
  EXPECT_EQ(n->location().column, 10);
  EXPECT_EQ(clone->entry()->location().line, 4);
  clone->LocateInPrintedText();
  // HloModule m, blank, ENTRY ..., %p, ROOT %n.
  EXPECT_EQ(n->location().line, 5);
  EXPECT_EQ(n->location().column, 8);
  EXPECT_EQ(clone->entry()->location().line, 3);
  EXPECT_EQ(clone->entry()->location().column, 1);
  EXPECT_EQ((*module)->entry()->FindInstruction("n")->location().line, 7) << "the original moved";
}

constexpr const char* kCalls = R"(HloModule calls, replica_count=1

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %sum = f32[] add(%a, %b)
}

%fused (x: f32[4]) -> f32[4] {
  %x = f32[4]{0} parameter(0)
  ROOT %e = f32[4]{0} exponential(%x)
}

ENTRY %main (p: f32[4]) -> f32[] {
  %p = f32[4]{0} parameter(0)
  %c = f32[4]{0} constant({1, 2, 3, 4})
  %f = f32[4]{0} fusion(%p), kind=kLoop, calls=%fused
  %m = f32[4]{0} multiply(%f, %c), metadata={op_name="mul"}
  %z = f32[] constant(0)
  ROOT %r = f32[] reduce(%m, %z), dimensions={0}, to_apply=%add
})";

std::unique_ptr<Module> Parse(const char* text) {
  auto parsed = ParseModule(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  return parsed.ok() ? std::move(parsed).value() : nullptr;
}

TEST(ModuleCloneTest, CalledComputationsPointIntoTheClone) {
  std::unique_ptr<Module> original = Parse(kCalls);
  ASSERT_NE(original, nullptr);
  std::unique_ptr<Module> clone = original->Clone();
  ASSERT_NE(clone, nullptr);
  std::unordered_set<const Computation*> own;
  for (const auto& c : clone->computations()) own.insert(c.get());
  std::unordered_set<const Computation*> theirs;
  for (const auto& c : original->computations()) theirs.insert(c.get());
  ASSERT_TRUE(own.count(clone->entry()));
  int calls = 0;
  for (const auto& c : clone->computations()) {
    EXPECT_EQ(c->parent(), clone.get());
    EXPECT_FALSE(theirs.count(c.get())) << "%" << c->name() << " is the original's";
    for (const auto& inst : c->instructions()) {
      EXPECT_EQ(inst->parent(), c.get());
      for (const Instruction* op : inst->operands()) EXPECT_EQ(op->parent(), c.get()) << "%" << inst->name();
      for (const Computation* callee : inst->called_computations()) {
        ++calls;
        EXPECT_TRUE(own.count(callee)) << "%" << inst->name() << " calls the original's %" << callee->name();
      }
    }
  }
  EXPECT_EQ(calls, 2);
  const Computation* fused = clone->FindComputation("fused");
  ASSERT_NE(fused, nullptr);
  ASSERT_NE(fused->fusion_instruction(), nullptr);
  EXPECT_EQ(fused->fusion_instruction(), clone->entry()->FindInstruction("f"));
}

TEST(ModuleCloneTest, ChangingTheCloneLeavesTheOriginal) {
  std::unique_ptr<Module> original = Parse(kCalls);
  ASSERT_NE(original, nullptr);
  const std::string before = original->ToString();
  std::unique_ptr<Module> clone = original->Clone();
  ASSERT_NE(clone, nullptr);
  Computation* entry = clone->entry();
  Instruction* m = entry->FindInstruction("m");
  Instruction* c = entry->FindInstruction("c");
  Instruction* r = entry->FindInstruction("r");
  Instruction* f = entry->FindInstruction("f");
  ASSERT_TRUE(m && c && r && f);
  m->set_name("renamed");
  m->mutable_metadata().op_name = "changed";
  r->ReplaceOperand(0, c);
  r->mutable_attrs().dimensions = std::vector<int64_t>{};
  auto literal = std::make_unique<Literal>(c->shape());
  literal->SetDouble(0, 42);
  c->set_literal(std::move(literal));
  f->mutable_attrs().fusion_kind = FusionKind::kInput;
  clone->FindComputation("fused")->set_name("refused");
  clone->FindComputation("add")->root()->set_name("total");
  clone->replica_count = 4;
  clone->stack_frames.file_names.push_back("x.py");
  EXPECT_NE(clone->ToString(), before);
  EXPECT_EQ(original->ToString(), before);
  // The original's edges are its own: %m still has its user, %c only %m.
  const Instruction* om = original->entry()->FindInstruction("m");
  ASSERT_NE(om, nullptr);
  ASSERT_EQ(om->user_count(), 1);
  EXPECT_EQ(om->users()[0], original->entry()->root());
  EXPECT_EQ(original->entry()->FindInstruction("c")->user_count(), 1);
}

TEST(ModuleCloneTest, NamesWhatPassesCreateAsAParsedModuleDoes) {
  std::unique_ptr<Module> original = Parse(kCalls);
  ASSERT_NE(original, nullptr);
  // The original hands out "t" and "t.1", then loses "t.1"; a parsed copy starts afresh.
  EXPECT_EQ(original->UniqueName("t"), "t");
  EXPECT_EQ(original->UniqueName("t"), "t.1");
  EXPECT_EQ(original->UniqueName("m"), "m.1");
  std::unique_ptr<Module> clone = original->Clone();
  ASSERT_NE(clone, nullptr);
  auto reparsed = ParseModule(original->ToString());
  ASSERT_TRUE(reparsed.ok());
  for (const char* prefix : {"t", "m", "m", "add", "fused"}) {
    EXPECT_EQ(clone->UniqueName(prefix), (*reparsed)->UniqueName(prefix)) << prefix;
  }
  // Ids stay unique: new instructions get ids after the copied ones.
  std::unordered_set<int64_t> ids;
  for (const auto& comp : clone->computations()) {
    for (const auto& inst : comp->instructions()) EXPECT_TRUE(ids.insert(inst->id()).second);
  }
  EXPECT_FALSE(ids.count(clone->NextInstructionId()));
}

}  // namespace
}  // namespace fusebox
