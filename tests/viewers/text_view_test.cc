// TextView and DiffView, headless: tokenizers on real stage text (XLA's dumps, Fusebox's
// PTX and x86 assembly), names and definitions per language, search, highlight, the
// clipped renderer on a million lines, clicks and keys driven through ImGuiHarness, and
// the diff's rows and navigation.
#include "viewers/text_view.h"

#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tests/viewers/imgui_harness.h"
#include "viewers/diff_view.h"

namespace fusebox::viewers {
namespace {

using testing::FrameStats;
using testing::ImGuiHarness;

const std::string kDumps = std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/xla_dumps/";
const std::string kRunningExample =
    kDumps + "running_example/module_0000.jit_running_example.cpu_after_optimizations.txt";
const std::string kRunningExampleIr =
    kDumps +
    "running_example/"
    "module_0000.jit_running_example.__compute_module_wrapped_multiply.ir-with-opt.ll";
const std::string kSumAxis = std::string(FUSEBOX_SOURCE_DIR) +
                             "/tests/data/xla_corpus/tensorflow_tensorflow/third_party/xla/xla/"
                             "backends/cpu/benchmarks/hlo/sum_axis_1x4096x1024_bf16.hlo";

// GLFW key codes, as the app's backend feeds them.
constexpr int kKeyEnter = 257;
constexpr int kKeyEscape = 256;
constexpr int kKeyF3 = 292;
constexpr int kKeyF7 = 296;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) lines.push_back(line);
  return lines;
}

// The first line (0-based) that starts with `prefix`, -1 when none.
int LineStartingWith(const std::string& text, const std::string& prefix) {
  std::vector<std::string> lines = Lines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind(prefix, 0) == 0) return static_cast<int>(i);
  }
  return -1;
}

const char* KindName(TokenKind kind) {
  switch (kind) {
    case TokenKind::kText:
      return "text";
    case TokenKind::kKeyword:
      return "keyword";
    case TokenKind::kName:
      return "name";
    case TokenKind::kType:
      return "type";
    case TokenKind::kNumber:
      return "number";
    case TokenKind::kString:
      return "string";
    case TokenKind::kComment:
      return "comment";
    case TokenKind::kOpcode:
      return "opcode";
    case TokenKind::kAdded:
      return "added";
    case TokenKind::kRemoved:
      return "removed";
    case TokenKind::kRegister:
      return "register";
  }
  return "?";
}

// The token starting where `needle` first occurs in `line`, as "text/kind", so a failure
// shows what the tokenizer made of it.
std::string TokenAt(const std::string& line, TextLanguage language, const std::string& needle,
                    size_t from = 0) {
  size_t at = line.find(needle, from);
  if (at == std::string::npos) return "<needle not in line>";
  for (const Token& t : Tokenize(line, language)) {
    if (t.begin <= static_cast<int>(at) && static_cast<int>(at) < t.end) {
      return line.substr(static_cast<size_t>(t.begin), static_cast<size_t>(t.end - t.begin)) + "/" +
             KindName(t.kind);
    }
  }
  return "<no token>";
}
std::string Expect(const std::string& text, TokenKind kind) { return text + "/" + KindName(kind); }
// The kind at the first occurrence of `needle` (for plain text, which merges with the
// text around it).
std::string KindAt(const std::string& line, TextLanguage language, const std::string& needle) {
  size_t at = line.find(needle);
  if (at == std::string::npos) return "<needle not in line>";
  for (const Token& t : Tokenize(line, language)) {
    if (t.begin <= static_cast<int>(at) && static_cast<int>(at) < t.end) return KindName(t.kind);
  }
  return "<no token>";
}

// Tokens must cover the line in order, each non-empty.
void ExpectCovers(std::string_view line, TextLanguage language) {
  std::vector<Token> tokens = Tokenize(line, language);
  int at = 0;
  for (const Token& t : tokens) {
    ASSERT_EQ(t.begin, at) << "gap or overlap in: " << line;
    ASSERT_LT(t.begin, t.end) << "empty token in: " << line;
    at = t.end;
  }
  ASSERT_EQ(at, static_cast<int>(line.size())) << "not covered: " << line;
}

// A column inside the first occurrence of `needle` (one byte in, past any sigil).
int ColumnOf(const std::string& line, const std::string& needle) {
  size_t at = line.find(needle);
  EXPECT_NE(at, std::string::npos) << needle << " not in " << line;
  return static_cast<int>(at) + 1;
}

// Fusebox's own PTX for MNIST (`fusebox compile assets/examples/mnist_train_step.hlo
// --stage ptx`), trimmed: one kernel in full, a prototype and a function added around it.
const char* const kPtx = R"(//
// Generated by LLVM NVPTX Back-End
//

.version 7.8
.target sm_90
.address_size 64

	// .globl	fusion_2_kernel
.extern .func  (.param .b32 func_retval0) vprintf
(
	.param .b64 vprintf_param_0,
	.param .b64 vprintf_param_1
)
;
.global .align 4 .b8 fusion_table[16];

.visible .entry fusion_2_kernel(
	.param .u64 fusion_2_kernel_param_0,
	.param .u64 fusion_2_kernel_param_1
)
.maxntid 32, 1, 1
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<3>;
	.reg .f32 	%f<21>;
	.reg .b64 	%rd<30>;

	mov.u32 	%r1, %tid.x;
	setp.gt.u64 	%p1, %rd21, 9;
	@%p1 bra 	$L__BB11_2;
	ld.param.u64 	%rd11, [fusion_2_kernel_param_0];
	mul.rn.f32 	%f2, %f1, 0f3A83126F;
	{
	st.global.f32 	[%rd25], %f6;
	}
$L__BB11_2:
	ret;

}
.func  (.param .b32 func_retval0) helper_fn(
	.param .b32 helper_fn_param_0
)
{
	ret;
}
)";

// Fusebox's x86 assembly for MNIST (`--stage cpu_asm`), trimmed, plus a comment line as
// LLVM writes them and a hand-written function without .size.
const char* const kAsm = R"(	.text
	.file	"jit_mnist_train_step"
	.section	.ltext,"axl",@progbits
	.globl	fusion.15.kernel
	.p2align	4, 0x90
	.type	fusion.15.kernel,@function
fusion.15.kernel:
# %bb.0:
	cmpq	%rsi, %rdx
	jle	.LBB0_6
	movq	(%rdi), %r9
	testb	$1, %dil
	vaddps	(%r8,%rcx,8), %ymm0, %ymm0
	vmovups	32(%r9), %ymm1 {%k1} {z}
.LBB0_3:
	leaq	-1(%rdx), %rdi
	movabsq	$.LCPI9_1, %rax
	lock incl	(%rax)
.LBB0_6:
	vzeroupper
	retq
.Lfunc_end0:
	.size	fusion.15.kernel, .Lfunc_end0-fusion.15.kernel

	.section	.rodata.cst32,"aM",@progbits,32
	.p2align	5, 0x0
.LCPI1_0:
	.long	0x00000000
	.long	0x80000000
	.section	.ltext,"axl",@progbits
	.globl	fusion.13.kernel1
	.p2align	4, 0x90
	.type	fusion.13.kernel1,@function
fusion.13.kernel1:
	cmpq	%rdx, %rsi
	callq	*%r12
	retq
.Lfunc_end1:
	.size	fusion.13.kernel1, .Lfunc_end1-fusion.13.kernel1
handwritten:
	retq

other_fn:
	retq
)";

// A synthetic HLO module of `n` instructions, each using the one before: "%p.0" is the
// parameter, "%add.K" the K-th add. Line K+1 defines add.K (line 0 is the header).
std::string ChainHlo(int n) {
  std::string text = "ENTRY %main (p.0: f32[8]) -> f32[8] {\n  %p.0 = f32[8]{0} parameter(0)\n";
  std::string previous = "p.0";
  for (int k = 1; k < n; ++k) {
    std::string name = "add." + std::to_string(k);
    text += "  %" + name + " = f32[8]{0} add(%" + previous + ", %p.0)\n";
    previous = name;
  }
  text += "}\n";
  return text;
}

std::string NumberedLines(int n) {
  std::string text;
  for (int i = 0; i < n; ++i) text += "line " + std::to_string(i) + "\n";
  return text;
}

// Frames drawing `view`, keeping the last name a Draw returned.
struct ViewDriver {
  ImGuiHarness harness;
  TextView view;
  std::optional<std::string> clicked;
  std::function<void()> body = [this] {
    if (auto c = view.Draw("text")) clicked = c;
  };
  FrameStats Frame() { return harness.Frame(body); }
  void Frames(int n) {
    for (int i = 0; i < n; ++i) Frame();
  }
  // Clicks the character at byte `column` of `line` (which the last frame drew).
  void ClickAt(int line, int column, int button = 0) {
    std::optional<TextView::ScreenRect> rect = view.CharRect(line, column);
    ASSERT_TRUE(rect.has_value()) << "line " << line << " column " << column << " not drawn";
    harness.Click((rect->min_x + rect->max_x) / 2, (rect->min_y + rect->max_y) / 2, body, button);
  }
  // Clicks the gutter next to `line`: focuses the pane without touching a name.
  void ClickGutter(int line) {
    std::optional<TextView::ScreenRect> rect = view.CharRect(line, 0);
    ASSERT_TRUE(rect.has_value());
    harness.Click(rect->min_x - view.gutter_width() + 4, (rect->min_y + rect->max_y) / 2, body);
  }
  void Key(int key, bool ctrl = false, bool shift = false) {
    harness.SetCtrl(ctrl);
    harness.SetShift(shift);
    harness.SetKey(key, true);
    Frame();
    harness.SetKey(key, false);
    harness.SetCtrl(false);
    harness.SetShift(false);
    Frame();
  }
};

std::string ToLower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool Visible(std::pair<int, int> range, int line) {
  return line >= range.first && line < range.second;
}

// ---------------------------------------------------------------------------------------
// Languages and tokenizers

TEST(LanguageForStageTest, MapsStageNames) {
  EXPECT_EQ(LanguageForStage("hlo"), TextLanguage::kHlo);
  EXPECT_EQ(LanguageForStage("optimized_hlo"), TextLanguage::kHlo);
  EXPECT_EQ(LanguageForStage("xla_optimized_hlo"), TextLanguage::kHlo);
  EXPECT_EQ(LanguageForStage("xla_pass_0003"), TextLanguage::kHlo);
  EXPECT_EQ(LanguageForStage("llvm_ir"), TextLanguage::kLlvmIr);
  EXPECT_EQ(LanguageForStage("llvm_ir_optimized"), TextLanguage::kLlvmIr);
  EXPECT_EQ(LanguageForStage("gpu_llvm_ir_optimized"), TextLanguage::kLlvmIr);
  EXPECT_EQ(LanguageForStage("xla_llvm_ir"), TextLanguage::kLlvmIr);
  EXPECT_EQ(LanguageForStage("ptx"), TextLanguage::kPtx);
  EXPECT_EQ(LanguageForStage("xla_ptx"), TextLanguage::kPtx);
  EXPECT_EQ(LanguageForStage("cpu_asm"), TextLanguage::kAsm);
  EXPECT_EQ(LanguageForStage("xla_asm"), TextLanguage::kAsm);
  EXPECT_EQ(LanguageForStage("sass"), TextLanguage::kAsm);
  EXPECT_EQ(LanguageForStage("buffer_assignment"), TextLanguage::kPlain);
  EXPECT_EQ(LanguageForStage("ptxas_info"), TextLanguage::kPlain);
  EXPECT_EQ(LanguageForStage(""), TextLanguage::kPlain);
}

TEST(TokenizeTest, HloInstructionFromXlaDump) {
  // Lines of XLA's cpu_after_optimizations dump, as written.
  const std::string text = ReadFile(kRunningExample);
  const std::vector<std::string> lines = Lines(text);
  const std::string add = lines[static_cast<size_t>(LineStartingWith(text, "  %add.0 = "))];
  const auto hlo = TextLanguage::kHlo;
  EXPECT_EQ(TokenAt(add, hlo, "%add.0"), Expect("%add.0", TokenKind::kName));
  EXPECT_EQ(TokenAt(add, hlo, "f32[256,256]{1,0}"), Expect("f32[256,256]{1,0}", TokenKind::kType));
  EXPECT_EQ(TokenAt(add, hlo, "add("), Expect("add", TokenKind::kOpcode));
  EXPECT_EQ(TokenAt(add, hlo, "%mul.0"), Expect("%mul.0", TokenKind::kName));
  EXPECT_EQ(TokenAt(add, hlo, "%param_0.3"), Expect("%param_0.3", TokenKind::kName));
  EXPECT_EQ(TokenAt(add, hlo, "metadata"),
            Expect(R"(metadata={op_name="jit(running_example)/add" stack_frame_id=5})",
                   TokenKind::kComment));

  const std::string root =
      lines[static_cast<size_t>(LineStartingWith(text, "  ROOT %reduce_sum.0"))];
  EXPECT_EQ(TokenAt(root, hlo, "ROOT"), Expect("ROOT", TokenKind::kKeyword));
  EXPECT_EQ(TokenAt(root, hlo, "f32[]"), Expect("f32[]", TokenKind::kType));
  EXPECT_EQ(TokenAt(root, hlo, "reduce("), Expect("reduce", TokenKind::kOpcode));
  EXPECT_EQ(TokenAt(root, hlo, "dimensions"), Expect("dimensions", TokenKind::kKeyword));
  EXPECT_EQ(TokenAt(root, hlo, "0,1}"), Expect("0", TokenKind::kNumber));
  EXPECT_EQ(TokenAt(root, hlo, "to_apply"), Expect("to_apply", TokenKind::kKeyword));
  EXPECT_EQ(TokenAt(root, hlo, "%region_0.1"), Expect("%region_0.1", TokenKind::kName));

  const std::string constant = lines[static_cast<size_t>(LineStartingWith(text, "  %constant = "))];
  EXPECT_EQ(TokenAt(constant, hlo, "1.52587891e-05"), Expect("1.52587891e-05", TokenKind::kNumber));
  EXPECT_EQ(TokenAt(constant, hlo, "constant("), Expect("constant", TokenKind::kOpcode));

  const std::string fusion = lines[static_cast<size_t>(LineStartingWith(text, "  %ynn_fusion = "))];
  EXPECT_EQ(TokenAt(fusion, hlo, "kind"), Expect("kind", TokenKind::kKeyword));
  EXPECT_EQ(TokenAt(fusion, hlo, "%fused_computation"),
            Expect("%fused_computation", TokenKind::kName));
  EXPECT_EQ(TokenAt(fusion, hlo, "\"outer_dimension_partitions\""),
            Expect("\"outer_dimension_partitions\"", TokenKind::kString));
}

TEST(TokenizeTest, HloHeadersAndModuleLine) {
  const std::string text = ReadFile(kRunningExample);
  const std::vector<std::string> lines = Lines(text);
  const auto hlo = TextLanguage::kHlo;
  const std::string computation =
      lines[static_cast<size_t>(LineStartingWith(text, "%fused_computation "))];
  EXPECT_EQ(TokenAt(computation, hlo, "%fused_computation"),
            Expect("%fused_computation", TokenKind::kName));
  EXPECT_EQ(TokenAt(computation, hlo, "param_0.3:"), Expect("param_0.3", TokenKind::kName));
  EXPECT_EQ(TokenAt(computation, hlo, "f32[256,256]"), Expect("f32[256,256]", TokenKind::kType));
  EXPECT_EQ(TokenAt(computation, hlo, "->"), Expect(") -> ", TokenKind::kText));

  const std::string entry = lines[static_cast<size_t>(LineStartingWith(text, "ENTRY "))];
  EXPECT_EQ(TokenAt(entry, hlo, "ENTRY"), Expect("ENTRY", TokenKind::kKeyword));
  EXPECT_EQ(TokenAt(entry, hlo, "%main.2"), Expect("%main.2", TokenKind::kName));
  EXPECT_EQ(TokenAt(entry, hlo, "x.1:"), Expect("x.1", TokenKind::kName));

  const std::string module = lines[0];
  EXPECT_EQ(TokenAt(module, hlo, "HloModule"), Expect("HloModule", TokenKind::kKeyword));
  EXPECT_EQ(TokenAt(module, hlo, "jit_running_example"),
            Expect("jit_running_example", TokenKind::kName));
  EXPECT_EQ(TokenAt(module, hlo, "true"), Expect("true", TokenKind::kNumber));
  EXPECT_EQ(TokenAt(module, hlo, "entry_computation_layout"),
            Expect("entry_computation_layout", TokenKind::kKeyword));
}

TEST(TokenizeTest, HloWithoutPercentSigns) {
  // Newer XLA prints names without '%' (the corpus file is XLA's own benchmark HLO).
  const std::string text = ReadFile(kSumAxis);
  const std::vector<std::string> lines = Lines(text);
  const auto hlo = TextLanguage::kHlo;
  const std::string reduce =
      lines[static_cast<size_t>(LineStartingWith(text, "  reduce_sum.7 = "))];
  EXPECT_EQ(TokenAt(reduce, hlo, "reduce_sum.7"), Expect("reduce_sum.7", TokenKind::kName));
  EXPECT_EQ(TokenAt(reduce, hlo, "reduce("), Expect("reduce", TokenKind::kOpcode));
  EXPECT_EQ(TokenAt(reduce, hlo, "convert_element_type.2"),
            Expect("convert_element_type.2", TokenKind::kName));
  EXPECT_EQ(TokenAt(reduce, hlo, "constant.1"), Expect("constant.1", TokenKind::kName));
  EXPECT_EQ(TokenAt(reduce, hlo, "region_0.1"), Expect("region_0.1", TokenKind::kName));
  EXPECT_EQ(TokenAt(reduce, hlo, "dimensions"), Expect("dimensions", TokenKind::kKeyword));

  const std::string root =
      lines[static_cast<size_t>(LineStartingWith(text, "  ROOT reduce_sum.5 = "))];
  EXPECT_EQ(TokenAt(root, hlo, "reduce_sum.5"), Expect("reduce_sum.5", TokenKind::kName));
  EXPECT_EQ(TokenAt(root, hlo, "reduce_sum.3"), Expect("reduce_sum.3", TokenKind::kName));

  const std::string region = lines[static_cast<size_t>(LineStartingWith(text, "region_0.1 {"))];
  EXPECT_EQ(TokenAt(region, hlo, "region_0.1"), Expect("region_0.1", TokenKind::kName));
  const std::string entry = lines[static_cast<size_t>(LineStartingWith(text, "ENTRY main.2 {"))];
  EXPECT_EQ(TokenAt(entry, hlo, "main.2"), Expect("main.2", TokenKind::kName));

  // Literals and enum values are not names; dashes belong to names and opcodes.
  const std::string nan = "  constant.2 = bf16[] constant(nan)";
  EXPECT_EQ(TokenAt(nan, hlo, "nan"), Expect("nan", TokenKind::kNumber));
  const std::string gte =
      "  %get-tuple-element.5 = f32[10]{0} get-tuple-element(%tuple.3), index=1";
  EXPECT_EQ(TokenAt(gte, hlo, "%get-tuple-element.5"),
            Expect("%get-tuple-element.5", TokenKind::kName));
  EXPECT_EQ(TokenAt(gte, hlo, "get-tuple-element("),
            Expect("get-tuple-element", TokenKind::kOpcode));
  EXPECT_EQ(TokenAt(gte, hlo, "index"), Expect("index", TokenKind::kKeyword));
  const std::string cmp = "  eq.2 = pred[] compare(sort.4, constant.3), direction=EQ";
  EXPECT_EQ(TokenAt(cmp, hlo, "pred[]"), Expect("pred[]", TokenKind::kType));
  EXPECT_EQ(KindAt(cmp, hlo, "EQ"), "text");
  EXPECT_EQ(TokenAt(cmp, hlo, "sort.4"), Expect("sort.4", TokenKind::kName));
  const std::string tuple =
      "  ROOT tuple.9 = (f32[8]{0}, /*index=1*/s32[]) tuple(a.1, b.2), calls=c.3, "
      "sharding={replicated}";
  EXPECT_EQ(TokenAt(tuple, hlo, "/*index=1*/"), Expect("/*index=1*/", TokenKind::kComment));
  EXPECT_EQ(TokenAt(tuple, hlo, "s32[]"), Expect("s32[]", TokenKind::kType));
  EXPECT_EQ(TokenAt(tuple, hlo, "tuple("), Expect("tuple", TokenKind::kOpcode));
  EXPECT_EQ(TokenAt(tuple, hlo, "b.2"), Expect("b.2", TokenKind::kName));
  EXPECT_EQ(TokenAt(tuple, hlo, "c.3"), Expect("c.3", TokenKind::kName));
  EXPECT_EQ(KindAt(tuple, hlo, "replicated"), "text");
  const std::string f8 = "  %c = f8e4m3fn[4]{0} convert(%x)";
  EXPECT_EQ(TokenAt(f8, hlo, "f8e4m3fn[4]{0}"), Expect("f8e4m3fn[4]{0}", TokenKind::kType));
}

TEST(TokenizeTest, LlvmIrFromXlaDump) {
  const std::string text = ReadFile(kRunningExampleIr);
  const std::vector<std::string> lines = Lines(text);
  const auto ir = TextLanguage::kLlvmIr;
  const std::string define = lines[static_cast<size_t>(LineStartingWith(text, "define "))];
  EXPECT_EQ(TokenAt(define, ir, "define"), Expect("define", TokenKind::kKeyword));
  EXPECT_EQ(TokenAt(define, ir, "noalias"), Expect("noalias", TokenKind::kKeyword));
  EXPECT_EQ(TokenAt(define, ir, "ptr"), Expect("ptr", TokenKind::kType));
  EXPECT_EQ(TokenAt(define, ir, "@wrapped_multiply"),
            Expect("@wrapped_multiply", TokenKind::kName));
  EXPECT_EQ(TokenAt(define, ir, "%0"), Expect("%0", TokenKind::kName));
  EXPECT_EQ(TokenAt(define, ir, "#0"), Expect("#0", TokenKind::kComment));

  const std::string load = lines[static_cast<size_t>(LineStartingWith(text, "  %4 = load"))];
  EXPECT_EQ(TokenAt(load, ir, "%4"), Expect("%4", TokenKind::kName));
  EXPECT_EQ(TokenAt(load, ir, "load"), Expect("load", TokenKind::kOpcode));
  EXPECT_EQ(TokenAt(load, ir, "i64"), Expect("i64", TokenKind::kType));
  EXPECT_EQ(TokenAt(load, ir, "align"), Expect("align", TokenKind::kKeyword));
  EXPECT_EQ(TokenAt(load, ir, "4, !"), Expect("4", TokenKind::kNumber));
  EXPECT_EQ(TokenAt(load, ir, "!invariant.load"), Expect("!invariant.load", TokenKind::kComment));

  const std::string br = lines[static_cast<size_t>(LineStartingWith(text, "  br i1"))];
  EXPECT_EQ(TokenAt(br, ir, "br"), Expect("br", TokenKind::kOpcode));
  EXPECT_EQ(TokenAt(br, ir, "i1"), Expect("i1", TokenKind::kType));
  EXPECT_EQ(TokenAt(br, ir, "%.lr.ph"), Expect("%.lr.ph", TokenKind::kName));

  const std::string label = lines[static_cast<size_t>(LineStartingWith(text, ".lr.ph:"))];
  EXPECT_EQ(TokenAt(label, ir, ".lr.ph"), Expect(".lr.ph", TokenKind::kName));
  EXPECT_EQ(TokenAt(label, ir, "; preds"), Expect("; preds = %1", TokenKind::kComment));

  EXPECT_EQ(TokenAt(lines[0], ir, ";"), Expect(lines[0], TokenKind::kComment));
  const std::string source = lines[static_cast<size_t>(LineStartingWith(text, "source_filename"))];
  EXPECT_EQ(TokenAt(source, ir, "source_filename"), Expect("source_filename", TokenKind::kKeyword));
  EXPECT_EQ(TokenAt(source, ir, "\""),
            Expect("\"__compute_module___compute_module_wrapped_multiply\"", TokenKind::kString));
  const std::string store = "  store float %15, ptr %9, align 1";
  EXPECT_EQ(TokenAt(store, ir, "store"), Expect("store", TokenKind::kOpcode));
  EXPECT_EQ(TokenAt(store, ir, "float"), Expect("float", TokenKind::kType));

  const std::string vector = "  %v = fadd fast <4 x float> %a, %b";
  EXPECT_EQ(TokenAt(vector, ir, "<4"), Expect("<4 x float>", TokenKind::kType));
  EXPECT_EQ(TokenAt(vector, ir, "fast"), Expect("fast", TokenKind::kKeyword));
  const std::string call = "  %r = tail call float @llvm.fma.f32(float %x, float %y, float %z)";
  EXPECT_EQ(TokenAt(call, ir, "call"), Expect("call", TokenKind::kOpcode));
  EXPECT_EQ(TokenAt(call, ir, "@llvm.fma.f32"), Expect("@llvm.fma.f32", TokenKind::kName));
  EXPECT_EQ(TokenAt("  ret void", ir, "ret"), Expect("ret", TokenKind::kOpcode));
  EXPECT_EQ(TokenAt("declare void @llvm.nvvm.barrier0() #2", ir, "declare"),
            Expect("declare", TokenKind::kKeyword));
  EXPECT_EQ(TokenAt("  %a = alloca [8 x [4 x i32]], align 16", TextLanguage::kLlvmIr, "["),
            Expect("[8 x [4 x i32]]", TokenKind::kType));
}

TEST(TokenizeTest, PtxFromFuseboxOutput) {
  const auto ptx = TextLanguage::kPtx;
  const std::string entry = ".visible .entry fusion_2_kernel(";
  EXPECT_EQ(TokenAt(entry, ptx, ".visible"), Expect(".visible", TokenKind::kKeyword));
  EXPECT_EQ(TokenAt(entry, ptx, ".entry"), Expect(".entry", TokenKind::kKeyword));
  EXPECT_EQ(TokenAt(entry, ptx, "fusion_2_kernel"), Expect("fusion_2_kernel", TokenKind::kName));
  const std::string param = "\t.param .u64 fusion_2_kernel_param_0,";
  EXPECT_EQ(TokenAt(param, ptx, ".param"), Expect(".param", TokenKind::kKeyword));
  EXPECT_EQ(TokenAt(param, ptx, ".u64"), Expect(".u64", TokenKind::kType));
  EXPECT_EQ(TokenAt(param, ptx, "fusion_2"), Expect("fusion_2_kernel_param_0", TokenKind::kName));
  const std::string reg = "\t.reg .b64 \t%rd<30>;";
  EXPECT_EQ(TokenAt(reg, ptx, ".reg"), Expect(".reg", TokenKind::kKeyword));
  EXPECT_EQ(TokenAt(reg, ptx, ".b64"), Expect(".b64", TokenKind::kType));
  EXPECT_EQ(TokenAt(reg, ptx, "%rd"), Expect("%rd", TokenKind::kRegister));
  EXPECT_EQ(TokenAt(reg, ptx, "30"), Expect("30", TokenKind::kNumber));
  const std::string ld = "\tld.param.u64 \t%rd11, [fusion_2_kernel_param_0];";
  EXPECT_EQ(TokenAt(ld, ptx, "ld.param.u64"), Expect("ld.param.u64", TokenKind::kOpcode));
  EXPECT_EQ(TokenAt(ld, ptx, "%rd11"), Expect("%rd11", TokenKind::kRegister));
  EXPECT_EQ(TokenAt(ld, ptx, "fusion_2"), Expect("fusion_2_kernel_param_0", TokenKind::kName));
  const std::string mov = "\tmov.u32 \t%r1, %tid.x;";
  EXPECT_EQ(TokenAt(mov, ptx, "%tid.x"), Expect("%tid.x", TokenKind::kRegister));
  const std::string bra = "\t@%p1 bra \t$L__BB11_2;";
  EXPECT_EQ(TokenAt(bra, ptx, "%p1"), Expect("%p1", TokenKind::kRegister));
  EXPECT_EQ(TokenAt(bra, ptx, "bra"), Expect("bra", TokenKind::kOpcode));
  EXPECT_EQ(TokenAt(bra, ptx, "$L__BB11_2"), Expect("$L__BB11_2", TokenKind::kName));
  EXPECT_EQ(TokenAt("$L__BB11_2:", ptx, "$L"), Expect("$L__BB11_2", TokenKind::kName));
  const std::string mul = "\tmul.rn.f32 \t%f2, %f1, 0f3A83126F;";
  EXPECT_EQ(TokenAt(mul, ptx, "0f3A83126F"), Expect("0f3A83126F", TokenKind::kNumber));
  EXPECT_EQ(TokenAt("\t// demoted variable", ptx, "//"),
            Expect("// demoted variable", TokenKind::kComment));
  EXPECT_EQ(KindAt(".target sm_90", ptx, "sm_90"), "text");
  EXPECT_EQ(TokenAt(".version 7.8", ptx, "7.8"), Expect("7.8", TokenKind::kNumber));
  EXPECT_EQ(TokenAt("\tret;", ptx, "ret"), Expect("ret", TokenKind::kOpcode));
}

TEST(TokenizeTest, AsmFromFuseboxOutput) {
  const auto s = TextLanguage::kAsm;
  EXPECT_EQ(TokenAt("fusion.15.kernel:", s, "fusion"),
            Expect("fusion.15.kernel", TokenKind::kName));
  EXPECT_EQ(TokenAt(".LBB0_3:", s, ".LBB"), Expect(".LBB0_3", TokenKind::kName));
  const std::string vadd = "\tvaddps\t(%r8,%rcx,8), %ymm0, %ymm0";
  EXPECT_EQ(TokenAt(vadd, s, "vaddps"), Expect("vaddps", TokenKind::kOpcode));
  EXPECT_EQ(TokenAt(vadd, s, "%r8"), Expect("%r8", TokenKind::kRegister));
  EXPECT_EQ(TokenAt(vadd, s, "8)"), Expect("8", TokenKind::kNumber));
  EXPECT_EQ(TokenAt(vadd, s, "%ymm0"), Expect("%ymm0", TokenKind::kRegister));
  const std::string test = "\ttestb\t$1, %dil";
  EXPECT_EQ(TokenAt(test, s, "$1"), Expect("$1", TokenKind::kNumber));
  const std::string jle = "\tjle\t.LBB0_6";
  EXPECT_EQ(TokenAt(jle, s, "jle"), Expect("jle", TokenKind::kOpcode));
  EXPECT_EQ(TokenAt(jle, s, ".LBB0_6"), Expect(".LBB0_6", TokenKind::kName));
  const std::string size = "\t.size\tfusion.15.kernel, .Lfunc_end0-fusion.15.kernel";
  EXPECT_EQ(TokenAt(size, s, ".size"), Expect(".size", TokenKind::kKeyword));
  EXPECT_EQ(TokenAt(size, s, "fusion"), Expect("fusion.15.kernel", TokenKind::kName));
  EXPECT_EQ(TokenAt(size, s, ".Lfunc_end0"), Expect(".Lfunc_end0", TokenKind::kName));
  const std::string section = "\t.section\t.rodata.cst32,\"aM\",@progbits,32";
  EXPECT_EQ(TokenAt(section, s, ".section"), Expect(".section", TokenKind::kKeyword));
  EXPECT_EQ(KindAt(section, s, ".rodata"), "text");
  EXPECT_EQ(TokenAt(section, s, "\"aM\""), Expect("\"aM\"", TokenKind::kString));
  EXPECT_EQ(TokenAt(section, s, "@progbits"), Expect("@progbits", TokenKind::kKeyword));
  const std::string masked = "\tvmovups\t32(%r9), %ymm1 {%k1} {z}";
  EXPECT_EQ(TokenAt(masked, s, "%k1"), Expect("%k1", TokenKind::kRegister));
  EXPECT_EQ(KindAt(masked, s, "z}"), "text");
  const std::string movabs = "\tmovabsq\t$.LCPI9_1, %rax";
  EXPECT_EQ(TokenAt(movabs, s, ".LCPI9_1"), Expect(".LCPI9_1", TokenKind::kName));
  EXPECT_EQ(TokenAt("# %bb.0:", s, "#"), Expect("# %bb.0:", TokenKind::kComment));
  EXPECT_EQ(TokenAt("\tcmpq\t%rsi, %rdx # compare", s, "#"),
            Expect("# compare", TokenKind::kComment));
  const std::string lock = "\tlock incl\t(%rax)";
  EXPECT_EQ(TokenAt(lock, s, "incl"), Expect("incl", TokenKind::kOpcode));
  EXPECT_EQ(TokenAt("\t.type\tfusion.15.kernel,@function", s, "@function"),
            Expect("@function", TokenKind::kKeyword));
  EXPECT_EQ(TokenAt("\tleaq\t-1(%rdx), %rdi", s, "-1"), Expect("-1", TokenKind::kNumber));
}

TEST(TokenizeTest, SassAsAssembly) {
  // `fusebox compile ... --stage sass` (nvdisasm's text).
  const auto s = TextLanguage::kAsm;
  const std::string ldc =
      "        /*0000*/                   LDC R1, c[0x0][0x28] ;                  /* "
      "0x00000a00ff017b82 */";
  EXPECT_EQ(TokenAt(ldc, s, "/*0000*/"), Expect("/*0000*/", TokenKind::kComment));
  EXPECT_EQ(TokenAt(ldc, s, "LDC"), Expect("LDC", TokenKind::kOpcode));
  EXPECT_EQ(TokenAt(ldc, s, "R1"), Expect("R1", TokenKind::kRegister));
  EXPECT_EQ(TokenAt(ldc, s, "0x28"), Expect("0x28", TokenKind::kNumber));
  EXPECT_EQ(TokenAt(ldc, s, "/* 0x"), Expect("/* 0x00000a00ff017b82 */", TokenKind::kComment));
  const std::string lea = "        /*00b0*/              @!P1 LEA R4, P0, R2, R4, 0x2 ;";
  EXPECT_EQ(TokenAt(lea, s, "P1"), Expect("P1", TokenKind::kRegister));
  EXPECT_EQ(TokenAt(lea, s, "LEA"), Expect("LEA", TokenKind::kOpcode));
  EXPECT_EQ(TokenAt(lea, s, "P0"), Expect("P0", TokenKind::kRegister));
  const std::string s2r = "        /*0010*/                   S2UR UR4, SR_CTAID.X ;";
  EXPECT_EQ(TokenAt(s2r, s, "UR4"), Expect("UR4", TokenKind::kRegister));
  EXPECT_EQ(TokenAt(s2r, s, "SR_CTAID.X"), Expect("SR_CTAID.X", TokenKind::kRegister));
  EXPECT_EQ(TokenAt("\t\tFunction : fusion_kernel", s, "Function"),
            Expect("Function", TokenKind::kKeyword));
  EXPECT_EQ(TokenAt("\t\tFunction : fusion_kernel", s, "fusion"),
            Expect("fusion_kernel", TokenKind::kName));

  TextView view;
  view.SetText(
      "\tcode for sm_90\n\n\t\tFunction : fusion_kernel\n"
      "        /*0000*/                   LDC R1, c[0x0][0x28] ;\n"
      "        /*0010*/                   EXIT ;\n\n"
      "\t\tFunction : fusion_2_kernel\n"
      "        /*0000*/                   EXIT ;\n",
      TextLanguage::kAsm);
  EXPECT_EQ(view.DefinitionRange("fusion_kernel"), std::make_pair(2, 4));
  EXPECT_EQ(view.DefinitionRange("fusion_2_kernel"), std::make_pair(6, 7));
}

TEST(TokenizeTest, DiffAndPlain) {
  const auto d = TextLanguage::kDiff;
  EXPECT_EQ(TokenAt("+  %add.1 = f32[] add()", d, "+"),
            Expect("+  %add.1 = f32[] add()", TokenKind::kAdded));
  EXPECT_EQ(TokenAt("-  %x = f32[] y()", d, "-"), Expect("-  %x = f32[] y()", TokenKind::kRemoved));
  EXPECT_EQ(TokenAt("@@ -1,3 +1,4 @@", d, "@@"), Expect("@@ -1,3 +1,4 @@", TokenKind::kKeyword));
  EXPECT_EQ(TokenAt("--- before", d, "-"), Expect("--- before", TokenKind::kKeyword));
  EXPECT_EQ(TokenAt("+++ after", d, "+"), Expect("+++ after", TokenKind::kKeyword));
  EXPECT_EQ(TokenAt("  same", d, "same"), Expect("  same", TokenKind::kText));
  EXPECT_EQ(TokenAt("%add.1 = 3", TextLanguage::kPlain, "%"),
            Expect("%add.1 = 3", TokenKind::kText));
  EXPECT_TRUE(Tokenize("", TextLanguage::kHlo).empty());
  EXPECT_TRUE(Tokenize("", TextLanguage::kPlain).empty());
}

TEST(TokenizeTest, TokensCoverEveryLineOfRealFiles) {
  std::vector<std::pair<std::string, TextLanguage>> files = {
      {ReadFile(kRunningExample), TextLanguage::kHlo},
      {ReadFile(kSumAxis), TextLanguage::kHlo},
      {ReadFile(kRunningExampleIr), TextLanguage::kLlvmIr},
      {ReadFile(
           kDumps +
           "cifar_cnn_train_step/module_0000.jit_cifar_cnn_train_step.cpu_after_optimizations.txt"),
       TextLanguage::kHlo},
      {kPtx, TextLanguage::kPtx},
      {kAsm, TextLanguage::kAsm},
  };
  int lines = 0;
  for (const auto& [text, language] : files) {
    for (const std::string& line : Lines(text)) {
      ExpectCovers(line, language);
      // Every language's tokenizer must also survive every other language's text.
      for (TextLanguage other : {TextLanguage::kPlain, TextLanguage::kHlo, TextLanguage::kLlvmIr,
                                 TextLanguage::kPtx, TextLanguage::kAsm, TextLanguage::kDiff}) {
        ExpectCovers(line, other);
      }
      ++lines;
    }
  }
  EXPECT_GT(lines, 800);
}

TEST(TokenizeTest, RandomBytesNeverBreakTheTokenizers) {
  std::mt19937 rng(1234);
  const std::string alphabet = "%@\"{}[]()<>=,;:#/*-+.$!\\\t aZ09_xfe\xff\xc3\xa9";
  std::uniform_int_distribution<size_t> pick(0, alphabet.size() - 1);
  std::uniform_int_distribution<int> length(0, 60);
  for (int n = 0; n < 3000; ++n) {
    std::string line;
    for (int k = length(rng); k > 0; --k) line += alphabet[pick(rng)];
    for (TextLanguage language : {TextLanguage::kPlain, TextLanguage::kHlo, TextLanguage::kLlvmIr,
                                  TextLanguage::kPtx, TextLanguage::kAsm, TextLanguage::kDiff}) {
      ExpectCovers(line, language);
      for (int c = -1; c <= static_cast<int>(line.size()); ++c) {
        std::optional<std::string> name = NameAt(line, c, language);
        if (name) {
          EXPECT_FALSE(name->empty());
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------
// Names

TEST(NameAtTest, StripsSigilsPerLanguage) {
  const std::string hlo = "  ROOT %add.3 = f32[8]{0} add(%p.0, param_1.2), to_apply=%region_0.1";
  EXPECT_EQ(NameAt(hlo, ColumnOf(hlo, "%add.3") - 1, TextLanguage::kHlo), "add.3");  // on the '%'
  EXPECT_EQ(NameAt(hlo, ColumnOf(hlo, "add.3") + 3, TextLanguage::kHlo), "add.3");  // its last char
  EXPECT_EQ(NameAt(hlo, ColumnOf(hlo, "%p.0"), TextLanguage::kHlo), "p.0");
  EXPECT_EQ(NameAt(hlo, ColumnOf(hlo, "param_1.2"), TextLanguage::kHlo), "param_1.2");
  EXPECT_EQ(NameAt(hlo, ColumnOf(hlo, "%region_0.1"), TextLanguage::kHlo), "region_0.1");
  EXPECT_EQ(NameAt(hlo, ColumnOf(hlo, "f32"), TextLanguage::kHlo), std::nullopt);
  EXPECT_EQ(NameAt(hlo, ColumnOf(hlo, "add("), TextLanguage::kHlo), std::nullopt);  // the opcode
  EXPECT_EQ(NameAt(hlo, ColumnOf(hlo, "ROOT"), TextLanguage::kHlo), std::nullopt);
  EXPECT_EQ(NameAt(hlo, -1, TextLanguage::kHlo), std::nullopt);
  EXPECT_EQ(NameAt(hlo, static_cast<int>(hlo.size()), TextLanguage::kHlo), std::nullopt);
  EXPECT_EQ(NameAt(hlo, ColumnOf(hlo, "add.3"), TextLanguage::kPlain), std::nullopt);

  const std::string ir = "  %5 = call ptr @fusion_2(ptr %0, ptr @\"quoted name\")";
  EXPECT_EQ(NameAt(ir, ColumnOf(ir, "@fusion_2"), TextLanguage::kLlvmIr), "fusion_2");
  EXPECT_EQ(NameAt(ir, ColumnOf(ir, "%0"), TextLanguage::kLlvmIr), "0");
  EXPECT_EQ(NameAt(ir, ColumnOf(ir, "%5") - 1, TextLanguage::kLlvmIr), "5");
  EXPECT_EQ(NameAt(ir, ColumnOf(ir, "quoted"), TextLanguage::kLlvmIr), "quoted name");
  EXPECT_EQ(NameAt(ir, ColumnOf(ir, "call"), TextLanguage::kLlvmIr), std::nullopt);

  const std::string ptx = "\tld.param.u64 \t%rd11, [fusion_2_kernel_param_0];";
  EXPECT_EQ(NameAt(ptx, ColumnOf(ptx, "fusion_2"), TextLanguage::kPtx), "fusion_2_kernel_param_0");
  EXPECT_EQ(NameAt(ptx, ColumnOf(ptx, "%rd11"), TextLanguage::kPtx), std::nullopt);  // a register

  const std::string s = "\tjle\t.LBB0_6";
  EXPECT_EQ(NameAt(s, ColumnOf(s, ".LBB0_6"), TextLanguage::kAsm), ".LBB0_6");
  EXPECT_EQ(NameAt("fusion.15.kernel:", 3, TextLanguage::kAsm), "fusion.15.kernel");
  EXPECT_EQ(NameAt("\tmovq\t%rax, %rbx", 7, TextLanguage::kAsm), std::nullopt);
}

// ---------------------------------------------------------------------------------------
// Definitions

TEST(DefinitionTest, HloInstructionsAndComputations) {
  const std::string text = ReadFile(kRunningExample);
  TextView view;
  view.SetText(text, TextLanguage::kHlo);
  const int add = LineStartingWith(text, "  %add.0 = ");
  ASSERT_GE(add, 0);
  EXPECT_EQ(view.FindDefinition("add.0"), add);
  EXPECT_EQ(view.FindDefinition("%add.0"), add);  // a sigil is ignored
  EXPECT_EQ(view.DefinitionRange("add.0"), std::make_pair(add, add));
  EXPECT_EQ(view.FindDefinition("wrapped_multiply"),
            LineStartingWith(text, "  ROOT %wrapped_multiply = "));
  EXPECT_EQ(view.FindDefinition("param_0.3"), LineStartingWith(text, "  %param_0.3 = "));

  const int fused = LineStartingWith(text, "%fused_computation ");
  ASSERT_GE(fused, 0);
  std::pair<int, int> range = view.DefinitionRange("fused_computation");
  EXPECT_EQ(range.first, fused);
  EXPECT_EQ(view.Line(range.second), "}");
  EXPECT_EQ(range.second, fused + 10);  // nine instructions
  EXPECT_TRUE(view.Line(range.second - 1).find("ROOT %reduce_sum.0") != std::string_view::npos);

  const int entry = LineStartingWith(text, "ENTRY %main.2 ");
  range = view.DefinitionRange("main.2");
  EXPECT_EQ(range.first, entry);
  EXPECT_EQ(view.Line(range.second), "}");
  EXPECT_EQ(range.second, view.line_count() - 2);  // the file ends with a blank line
  EXPECT_EQ(view.DefinitionRange("region_0.1"),
            std::make_pair(LineStartingWith(text, "%region_0.1 "),
                           LineStartingWith(text, "%region_0.1 ") + 4));

  EXPECT_EQ(view.FindDefinition("missing"), -1);
  EXPECT_EQ(view.DefinitionRange("missing"), std::make_pair(-1, -1));
  EXPECT_EQ(view.FindDefinition(""), -1);
  // Only definitions, not uses or the metadata's op names.
  EXPECT_EQ(view.FindDefinition("reduce_sum"), -1);
  EXPECT_EQ(view.FindDefinition("jit_running_example"), -1);
}

TEST(DefinitionTest, HloWithoutPercentAndSimilarNames) {
  const std::string text = ReadFile(kSumAxis);
  TextView view;
  view.SetText(text, TextLanguage::kHlo);
  EXPECT_EQ(view.FindDefinition("reduce_sum.7"), LineStartingWith(text, "  reduce_sum.7 = "));
  EXPECT_EQ(view.FindDefinition("convert_element_type.3"),
            LineStartingWith(text, "  ROOT convert_element_type.3"));
  EXPECT_EQ(view.DefinitionRange("region_0.1"), std::make_pair(2, 6));
  EXPECT_EQ(view.DefinitionRange("main.2"), std::make_pair(8, 14));

  // "add.1" must not be found as the prefix of "add.12", nor "fusion" in "fusion.3".
  TextView similar;
  similar.SetText(
      "HloModule m\n\n"
      "fused_computation.3 (param_0: f32[8]) -> f32[8] {\n"
      "  param_0 = f32[8]{0} parameter(0)\n"
      "  ROOT add.12 = f32[8]{0} add(param_0, param_0)\n"
      "}\n\n"
      "ENTRY main {\n"
      "  p = f32[8]{0} parameter(0)\n"
      "  add.1 = f32[8]{0} add(p, p)\n"
      "  fusion.3 = f32[8]{0} fusion(add.1), kind=kLoop, calls=fused_computation.3\n"
      "  ROOT all-reduce.2 = f32[8]{0} all-reduce(fusion.3), to_apply=fused_computation.3\n"
      "}\n",
      TextLanguage::kHlo);
  EXPECT_EQ(similar.FindDefinition("add.1"), 9);
  EXPECT_EQ(similar.FindDefinition("add.12"), 4);
  EXPECT_EQ(similar.FindDefinition("fusion.3"), 10);
  EXPECT_EQ(similar.FindDefinition("fusion"), -1);
  EXPECT_EQ(similar.FindDefinition("all-reduce.2"), 11);
  EXPECT_EQ(similar.DefinitionRange("fused_computation.3"), std::make_pair(2, 5));
  EXPECT_EQ(similar.DefinitionRange("main"), std::make_pair(7, 12));
  EXPECT_EQ(similar.FindDefinition("param_0"), 3);
}

TEST(DefinitionTest, LlvmFunctions) {
  const std::string text = ReadFile(kRunningExampleIr);
  TextView view;
  view.SetText(text, TextLanguage::kLlvmIr);
  const int define = LineStartingWith(text, "define ");
  std::pair<int, int> range = view.DefinitionRange("wrapped_multiply");
  EXPECT_EQ(range.first, define);
  EXPECT_EQ(view.Line(range.second), "}");
  EXPECT_GT(range.second, range.first + 10);
  EXPECT_EQ(view.FindDefinition("@wrapped_multiply"), define);
  EXPECT_EQ(view.FindDefinition("4"), -1);  // locals are not module-level definitions

  // As Fusebox's CPU backend prints them: the kernel and its ".body" helper.
  TextView kernels;
  kernels.SetText(
      "; ModuleID = 'm'\n"
      "@table = private constant [4 x i32] [i32 1, i32 2, i32 3, i32 4]\n"
      "\n"
      "define internal void @fusion.15.kernel.body(ptr noalias align 16 %0, i64 %1) #0 {\n"
      "  ret void\n"
      "}\n"
      "\n"
      "define void @fusion.15.kernel(ptr %0, i64 %1, i64 %2) #1 {\n"
      "entry:\n"
      "  call void @fusion.15.kernel.body(ptr %0, i64 %1)\n"
      "  ret void\n"
      "}\n"
      "\n"
      "declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1\n",
      TextLanguage::kLlvmIr);
  EXPECT_EQ(kernels.DefinitionRange("fusion.15.kernel"), std::make_pair(7, 11));
  EXPECT_EQ(kernels.DefinitionRange("fusion.15.kernel.body"), std::make_pair(3, 5));
  EXPECT_EQ(kernels.FindDefinition("llvm.nvvm.read.ptx.sreg.tid.x"), 13);
  EXPECT_EQ(kernels.FindDefinition("table"), 1);
}

TEST(DefinitionTest, PtxEntriesParamsAndLabels) {
  TextView view;
  view.SetText(kPtx, TextLanguage::kPtx);
  const std::string text = kPtx;
  const int entry = LineStartingWith(text, ".visible .entry fusion_2_kernel(");
  ASSERT_GE(entry, 0);
  std::pair<int, int> range = view.DefinitionRange("fusion_2_kernel");
  EXPECT_EQ(range.first, entry);
  EXPECT_EQ(view.Line(range.second), "}");
  EXPECT_EQ(view.Line(range.second - 2), "\tret;");  // the nested "\t}" does not end it
  EXPECT_EQ(view.FindDefinition("fusion_2_kernel_param_0"), entry + 1);
  EXPECT_EQ(view.FindDefinition("$L__BB11_2"), LineStartingWith(text, "$L__BB11_2:"));
  EXPECT_EQ(view.FindDefinition("fusion_table"), LineStartingWith(text, ".global .align 4"));
  // A prototype spans its header to the ';'.
  const int extern_line = LineStartingWith(text, ".extern .func");
  range = view.DefinitionRange("vprintf");
  EXPECT_EQ(range.first, extern_line);
  EXPECT_EQ(view.Line(range.second), ";");
  // A .func with a return value, then its body.
  const int helper = LineStartingWith(text, ".func  (.param .b32 func_retval0) helper_fn(");
  range = view.DefinitionRange("helper_fn");
  EXPECT_EQ(range.first, helper);
  EXPECT_EQ(range.second, helper + 5);
  EXPECT_EQ(view.FindDefinition("rd11"), -1);
  EXPECT_EQ(view.FindDefinition("sm_90"), -1);
}

TEST(DefinitionTest, AsmFunctionsAndLocalLabels) {
  TextView view;
  view.SetText(kAsm, TextLanguage::kAsm);
  const std::string text = kAsm;
  const int f15 = LineStartingWith(text, "fusion.15.kernel:");
  std::pair<int, int> range = view.DefinitionRange("fusion.15.kernel");
  EXPECT_EQ(range.first, f15);
  EXPECT_EQ(range.second, LineStartingWith(text, "\t.size\tfusion.15.kernel"));
  const int f13 = LineStartingWith(text, "fusion.13.kernel1:");
  range = view.DefinitionRange("fusion.13.kernel1");
  EXPECT_EQ(range.first, f13);
  EXPECT_EQ(range.second, LineStartingWith(text, "\t.size\tfusion.13.kernel1"));
  EXPECT_EQ(view.DefinitionRange(".LBB0_3"),
            std::make_pair(LineStartingWith(text, ".LBB0_3:"), LineStartingWith(text, ".LBB0_3:")));
  EXPECT_EQ(view.FindDefinition(".LCPI1_0"), LineStartingWith(text, ".LCPI1_0:"));
  // Without .size: up to the next function's label (blank lines left out).
  const int handwritten = LineStartingWith(text, "handwritten:");
  EXPECT_EQ(view.DefinitionRange("handwritten"), std::make_pair(handwritten, handwritten + 1));
  EXPECT_EQ(view.DefinitionRange("other_fn"), std::make_pair(handwritten + 3, handwritten + 4));
  EXPECT_EQ(view.FindDefinition("fusion"), -1);
}

TEST(DefinitionTest, PlainAndDiffHaveNone) {
  TextView view;
  view.SetText("%a = f32[] add()\nfoo:\n", TextLanguage::kPlain);
  EXPECT_EQ(view.FindDefinition("a"), -1);
  view.SetText("+%a = f32[] add()\n", TextLanguage::kDiff);
  EXPECT_EQ(view.FindDefinition("a"), -1);
}

// The scanners of text_definitions.h work on a text and its line starts, without a view:
// every definition in line order, blocks with their last line, ranks for duplicates.
TEST(DefinitionTest, ScannersWorkWithoutAView) {
  const std::string text =
      "declare void @g(ptr)\n"
      "define void @g(ptr %0) {\n"
      "entry:\n"
      "  %1 = load float, ptr %0\n"
      "  ret void\n"
      "}\n";
  std::vector<int64_t> starts;
  for (size_t i = 0; i < text.size(); i = text.find('\n', i) + 1) starts.push_back(static_cast<int64_t>(i));
  const TextLines lines{text, &starts};
  ASSERT_EQ(lines.count(), 6);
  EXPECT_EQ(lines.Line(3), "  %1 = load float, ptr %0");
  const std::vector<TextDefinition> found = ScanDefinitions(lines, TextLanguage::kLlvmIr);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].name, "g");  // the prototype, rank 2
  EXPECT_EQ(found[0].rank, 2);
  EXPECT_EQ(std::make_pair(found[1].line, found[1].end), std::make_pair(1, 5));  // the body
  EXPECT_EQ(found[1].rank, 0);
  EXPECT_EQ(FindLlvmLocalDefinition(lines, "1", 4), 3);
  EXPECT_EQ(FindLlvmLocalDefinition(lines, "0", 4), 1);  // a parameter
  EXPECT_EQ(FindLlvmLocalDefinition(lines, "entry", 4), 2);
  EXPECT_EQ(FindLlvmLocalDefinition(lines, "2", 4), -1);
  EXPECT_TRUE(ScanDefinitions(lines, TextLanguage::kPlain).empty());
}

// ---------------------------------------------------------------------------------------
// Lines and display columns

TEST(TextViewTest, SplitsLines) {
  TextView view;
  EXPECT_EQ(view.line_count(), 0);
  view.SetText("a\nb", TextLanguage::kPlain);
  EXPECT_EQ(view.line_count(), 2);
  EXPECT_EQ(view.Line(1), "b");
  view.SetText("a\nb\n", TextLanguage::kPlain);
  EXPECT_EQ(view.line_count(), 2);
  EXPECT_EQ(view.Line(1), "b");
  view.SetText("\n", TextLanguage::kPlain);
  EXPECT_EQ(view.line_count(), 1);
  EXPECT_EQ(view.Line(0), "");
  view.SetText("x\r\ny\r\n\n", TextLanguage::kPlain);
  EXPECT_EQ(view.line_count(), 3);
  EXPECT_EQ(view.Line(0), "x");
  EXPECT_EQ(view.Line(2), "");
  EXPECT_EQ(view.Line(-1), "");
  EXPECT_EQ(view.Line(3), "");
  view.SetText("", TextLanguage::kHlo);
  EXPECT_EQ(view.line_count(), 0);
  EXPECT_EQ(view.language(), TextLanguage::kHlo);
}

TEST(TextViewTest, DisplayColumns) {
  EXPECT_EQ(DisplayColumns(""), 0);
  EXPECT_EQ(DisplayColumns("abc"), 3);
  EXPECT_EQ(DisplayColumns("\tab"), 6);
  EXPECT_EQ(DisplayColumns("a\tb"), 5);
  EXPECT_EQ(DisplayColumns("abcd\tb"), 9);
  EXPECT_EQ(DisplayColumns("\xc3\xa9t\xc3\xa9"), 3);  // é t é
  EXPECT_EQ(DisplayColumns("\xff\xfe ab \xc3"), 7);   // invalid bytes: one each
  EXPECT_EQ(ColumnOfByte("\tab", 1), 4);
  EXPECT_EQ(ColumnOfByte("\xc3\xa9x", 2), 1);
  EXPECT_EQ(ColumnOfByte("\xc3\xa9x", 1), 0);  // inside é
  EXPECT_EQ(ByteAtColumn("\tx", 2), 0);        // inside the tab
  EXPECT_EQ(ByteAtColumn("\tx", 4), 1);
  EXPECT_EQ(ByteAtColumn("\xc3\xa9x", 1), 2);
  EXPECT_EQ(ByteAtColumn("ab", 7), 2);
  EXPECT_EQ(ByteAtColumn("ab", -3), 0);
}

// ---------------------------------------------------------------------------------------
// Search

TEST(SearchTest, CountsAndNavigates) {
  const std::string text = ReadFile(kRunningExample);
  TextView view;
  view.SetText(text, TextLanguage::kHlo);
  // Case-insensitive, non-overlapping, counted independently here.
  const std::string lower = ToLower(text);
  int expected = 0;
  for (size_t at = lower.find("param"); at != std::string::npos; at = lower.find("param", at + 5))
    ++expected;
  ASSERT_GT(expected, 5);
  view.SetSearch("PARAM");
  EXPECT_TRUE(view.search_open());
  EXPECT_EQ(view.match_count(), expected);
  EXPECT_EQ(view.current_match(), 0);
  EXPECT_EQ(view.search_status(), "1 of " + std::to_string(expected));
  std::pair<int, int> first = view.match_position(0);
  EXPECT_EQ(
      ToLower(std::string(view.Line(first.first).substr(static_cast<size_t>(first.second), 5))),
      "param");
  view.NextMatch();
  EXPECT_EQ(view.current_match(), 1);
  EXPECT_EQ(view.search_status(), "2 of " + std::to_string(expected));
  view.NextMatch(-1);
  view.NextMatch(-1);
  EXPECT_EQ(view.current_match(), expected - 1);  // wraps
  view.NextMatch(1);
  EXPECT_EQ(view.current_match(), 0);
  // Matches are in text order.
  for (int i = 1; i < view.match_count(); ++i) {
    EXPECT_LT(view.match_position(i - 1), view.match_position(i));
  }
  EXPECT_EQ(view.match_position(expected), std::make_pair(-1, -1));

  view.SetSearch("no such thing");
  EXPECT_EQ(view.match_count(), 0);
  EXPECT_EQ(view.search_status(), "no matches");
  view.NextMatch();  // nothing to go to
  EXPECT_EQ(view.current_match(), -1);
  view.SetSearch("");
  EXPECT_EQ(view.search_status(), "");
  // The query survives new text.
  view.SetSearch("aa");
  view.SetText("aaaa\nbAa\n", TextLanguage::kPlain);
  EXPECT_EQ(view.match_count(), 3);
}

TEST(SearchTest, CurrentMatchIsScrolledIntoView) {
  ViewDriver d;
  d.view.SetText(NumberedLines(2000), TextLanguage::kPlain);
  d.Frame();
  EXPECT_TRUE(Visible(d.view.last_visible_lines(), 0));
  d.view.SetSearch("line 1500");
  ASSERT_EQ(d.view.match_count(), 1);
  d.Frame();
  EXPECT_TRUE(Visible(d.view.last_visible_lines(), 1500)) << d.view.last_visible_lines().first;
  EXPECT_TRUE(d.view.CharRect(1500, 0).has_value());
  // A new query starts from the top of the view: "line 1" matches 1, 10-19, 100-199, 1000-1999.
  d.view.SetSearch("line 1");
  ASSERT_EQ(d.view.match_count(), 1111);
  EXPECT_GE(d.view.match_position(d.view.current_match()).first, d.view.last_visible_lines().first);
  d.view.NextMatch(-1);
  d.Frame();
  EXPECT_TRUE(
      Visible(d.view.last_visible_lines(), d.view.match_position(d.view.current_match()).first));

  // A match far right on a long line scrolls sideways.
  std::string text = NumberedLines(10) + std::string(5000, 'x') + "needle\n";
  d.view.SetText(text, TextLanguage::kPlain);
  d.Frame();
  EXPECT_FALSE(d.view.CharRect(10, 5000).has_value());
  d.view.SetSearch("NEEDLE");
  d.Frame();
  EXPECT_TRUE(d.view.CharRect(10, 5000).has_value());
  EXPECT_FALSE(d.view.CharRect(10, 0).has_value());
}

TEST(SearchTest, KeyboardDrivesTheSearchBar) {
  ViewDriver d;
  d.view.SetText(NumberedLines(1000), TextLanguage::kPlain);
  d.Frames(2);
  // Keys go to a focused pane: click the gutter first.
  d.ClickGutter(3);
  EXPECT_EQ(d.view.cursor_line(), 3);
  EXPECT_FALSE(d.view.search_open());
  d.Key('F', /*ctrl=*/true);
  EXPECT_TRUE(d.view.search_open());
  d.Frames(2);  // the box takes keyboard focus
  d.harness.Type("LINE 5");
  d.Frames(2);
  EXPECT_EQ(d.view.search(), "LINE 5");
  EXPECT_EQ(d.view.match_count(), 111);  // line 5, 50-59, 500-599
  EXPECT_EQ(d.view.search_status(), "1 of 111");
  d.Key(kKeyEnter);
  EXPECT_EQ(d.view.search_status(), "2 of 111");
  d.Frames(2);  // the box is focused again after Enter
  d.Key(kKeyEnter);
  EXPECT_EQ(d.view.search_status(), "3 of 111");
  d.Frames(2);
  d.Key(kKeyEnter, false, /*shift=*/true);
  EXPECT_EQ(d.view.search_status(), "2 of 111");
  d.Key(kKeyF3);
  EXPECT_EQ(d.view.search_status(), "3 of 111");
  d.Frames(2);
  d.Key(kKeyEscape);
  EXPECT_FALSE(d.view.search_open());
  EXPECT_EQ(d.view.match_count(), 0);
  d.Frames(2);
  // Reopening brings the query back.
  d.ClickGutter(d.view.last_visible_lines().first + 2);
  d.Key('F', true);
  EXPECT_TRUE(d.view.search_open());
  EXPECT_EQ(d.view.match_count(), 111);
}

// ---------------------------------------------------------------------------------------
// Highlight

TEST(HighlightTest, HighlightsDefinitionsFirstNameFirst) {
  const std::string text = ReadFile(kRunningExample);
  TextView view;
  view.SetText(text, TextLanguage::kHlo);
  view.SetHighlight({"missing", "fused_computation", "ynn_fusion", "fused_computation"});
  ASSERT_EQ(view.highlight_ranges().size(), 2u);  // found ones, once each
  EXPECT_EQ(view.highlight_ranges()[0], view.DefinitionRange("fused_computation"));
  EXPECT_EQ(view.highlight_ranges()[1], view.DefinitionRange("ynn_fusion"));
  EXPECT_EQ(view.first_highlighted_line(), view.FindDefinition("fused_computation"));
  view.SetHighlight({});
  EXPECT_EQ(view.first_highlighted_line(), -1);
  EXPECT_TRUE(view.highlight_ranges().empty());
  view.SetHighlight({"nothing"});
  EXPECT_EQ(view.first_highlighted_line(), -1);
}

TEST(HighlightTest, ScrollsToTheFirstBlockAndFollowsNewText) {
  ViewDriver d;
  d.view.SetText(ChainHlo(5000), TextLanguage::kHlo);
  d.Frame();
  EXPECT_FALSE(Visible(d.view.last_visible_lines(), 4000));
  d.view.SetHighlight({"add.3999", "add.10"});
  EXPECT_EQ(d.view.first_highlighted_line(), 4000);
  d.Frame();
  EXPECT_TRUE(Visible(d.view.last_visible_lines(), 4000));
  // New text: the names are found again where they now are.
  d.view.SetText(ChainHlo(3000) + "\n", TextLanguage::kHlo);
  EXPECT_EQ(d.view.first_highlighted_line(), 11);  // add.3999 is gone; add.10 is at line 11
  d.Frame();
  EXPECT_TRUE(Visible(d.view.last_visible_lines(), 11));
  // Already visible: no scroll.
  d.view.SetHighlight({"add.12"});
  d.Frame();
  EXPECT_TRUE(Visible(d.view.last_visible_lines(), 12));
}

TEST(HighlightTest, DrawsTranslucentBackgrounds) {
  ViewDriver d;
  d.view.SetText(ChainHlo(50), TextLanguage::kHlo);
  const FrameStats plain = d.Frame();
  d.view.SetHighlight({"main", "add.3"});
  const FrameStats highlighted = d.Frame();
  // One rectangle (4 vertices) per highlighted visible line, per block.
  const int visible = d.view.last_visible_lines().second - d.view.last_visible_lines().first;
  EXPECT_GE(highlighted.vertices - plain.vertices, 4 * (visible + 1));
}

// ---------------------------------------------------------------------------------------
// Drawing: clipping, odd input

TEST(DrawTest, MillionLinesDrawOnlyVisibleLines) {
  std::string text;
  text.reserve(16 * 1000000);
  for (int i = 0; i < 1000000; ++i) {
    text += "%v.";
    text += std::to_string(i);
    text += " = f32[] x()\n";
  }
  ViewDriver d;
  const auto start = std::chrono::steady_clock::now();
  d.view.SetText(std::move(text), TextLanguage::kHlo);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("SetText of 1,000,000 lines: %.1f ms\n", ms);
  ASSERT_EQ(d.view.line_count(), 1000000);
  FrameStats stats = d.Frame();
  std::pair<int, int> visible = d.view.last_visible_lines();
  EXPECT_EQ(visible.first, 0);
  EXPECT_GT(visible.second - visible.first, 10);
  EXPECT_LT(visible.second - visible.first, 200);
  EXPECT_LT(stats.vertices, 60000);
  const auto index_start = std::chrono::steady_clock::now();
  EXPECT_EQ(d.view.FindDefinition("v.999999"), 999999);
  std::printf(
      "Definition index of 1,000,000 lines: %.1f ms\n",
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - index_start)
          .count());
  d.view.ScrollToLine(999999);
  stats = d.Frame();
  visible = d.view.last_visible_lines();
  EXPECT_TRUE(Visible(visible, 999999)) << visible.first << ".." << visible.second;
  EXPECT_LT(visible.second - visible.first, 200);
  EXPECT_LT(stats.vertices, 60000);
  d.view.ScrollToLine(500000);
  d.Frame();
  EXPECT_TRUE(Visible(d.view.last_visible_lines(), 500000));
  // The wheel scrolls through the clipper too.
  d.harness.MoveMouse(600, 400);
  const int before = d.view.last_visible_lines().first;
  d.harness.Wheel(-5);
  d.Frame();
  d.Frame();
  EXPECT_GT(d.view.last_visible_lines().first, before);
}

TEST(DrawTest, OddInputsDraw) {
  ViewDriver d;
  for (TextLanguage language : {TextLanguage::kPlain, TextLanguage::kHlo, TextLanguage::kLlvmIr,
                                TextLanguage::kPtx, TextLanguage::kAsm, TextLanguage::kDiff}) {
    d.view.SetText("", language);
    d.Frames(2);
    EXPECT_EQ(d.view.last_visible_lines(), std::make_pair(0, 0));
    d.view.SetText("no trailing newline", language);
    d.Frame();
    EXPECT_EQ(d.view.last_visible_lines(), std::make_pair(0, 1));
    std::string odd = "\ttab\tbed\n\xff\xfe\x80 not utf8 \xc3\n";
    odd += std::string("nul\0byte\x01\x7f", 10) + "\n";
    odd += "\xe2\x82\xac euro \xf0\x9f\x98\x80 emoji\n\n\n";
    d.view.SetText(odd, language);
    d.Frame();
    EXPECT_EQ(d.view.line_count(), 6);
    EXPECT_EQ(d.view.last_visible_lines(), std::make_pair(0, 6));
  }
  // A tab expands to the next 4-column stop on screen too.
  d.view.SetText("\tx\nab\tx\n", TextLanguage::kPlain);
  d.Frame();
  ASSERT_TRUE(d.view.CharRect(0, 1).has_value());
  ASSERT_TRUE(d.view.CharRect(1, 0).has_value());
  const float cw = d.view.CharRect(1, 0)->max_x - d.view.CharRect(1, 0)->min_x;
  EXPECT_FLOAT_EQ(d.view.CharRect(0, 1)->min_x - d.view.CharRect(1, 0)->min_x, 4 * cw);
  EXPECT_FLOAT_EQ(d.view.CharRect(1, 3)->min_x, d.view.CharRect(0, 1)->min_x);
}

TEST(DrawTest, VeryLongLineIsClippedSideways) {
  ViewDriver d;
  std::string line;
  for (int i = 0; i < 100000; ++i) line += "%a." + std::to_string(i) + ", ";
  d.view.SetText("short\n" + line + "\nshort\n", TextLanguage::kHlo);
  d.Frame();
  const FrameStats stats = d.Frame();
  EXPECT_LT(stats.vertices, 20000);  // about a megabyte of text on one line
  EXPECT_TRUE(d.view.CharRect(1, 0).has_value());
  EXPECT_FALSE(d.view.CharRect(1, 100000).has_value());
  // There is a horizontal scrollbar: its range covers the line.
  ImGuiWindow* child = nullptr;
  for (ImGuiWindow* w : ImGui::GetCurrentContext()->Windows) {
    if (std::string(w->Name).find("##text") != std::string::npos) child = w;
  }
  ASSERT_NE(child, nullptr);
  EXPECT_TRUE(child->ScrollbarX);
  const float cw = d.view.CharRect(1, 1)->min_x - d.view.CharRect(1, 0)->min_x;
  EXPECT_GT(child->ScrollMax.x, cw * static_cast<float>(d.view.Line(1).size()) - 1400);
  // Scrolled to its end, the line's last characters are drawn.
  ImGui::SetScrollX(child, child->ScrollMax.x);
  d.Frames(2);
  EXPECT_TRUE(d.view.CharRect(1, static_cast<int>(d.view.Line(1).size()) - 3).has_value());
  EXPECT_FALSE(d.view.CharRect(1, 0).has_value());
}

// ---------------------------------------------------------------------------------------
// Mouse: click to go to a definition, hover, context menu, Ctrl+C

TEST(ClickTest, GeometryFollowsLineHeightAndGutter) {
  // Where a character is drawn, worked out the way a user of ImGui would: rows of
  // GetTextLineHeightWithSpacing from the top of the pane, columns of one glyph width
  // right of the gutter.
  ViewDriver d;
  d.view.SetText(ChainHlo(100), TextLanguage::kHlo);
  d.Frame();
  const float line_h = ImGui::GetTextLineHeightWithSpacing();
  const float cw = ImGui::CalcTextSize("M").x;
  const ImVec2 top_left = ImGui::GetStyle().WindowPadding;  // the harness window's content
  EXPECT_GT(d.view.gutter_width(), 3 * cw);
  for (int line : {0, 1, 7, 30}) {
    std::optional<TextView::ScreenRect> first = d.view.CharRect(line, 0);
    ASSERT_TRUE(first.has_value());
    EXPECT_FLOAT_EQ(first->min_y, top_left.y + static_cast<float>(line) * line_h);
    EXPECT_FLOAT_EQ(first->max_y - first->min_y, line_h);
    EXPECT_GE(first->min_x, top_left.x + d.view.gutter_width());
    EXPECT_LT(first->min_x, top_left.x + d.view.gutter_width() + 2 * cw);
    EXPECT_FLOAT_EQ(d.view.CharRect(line, 5)->min_x, first->min_x + 5 * cw);
  }
  // A click placed by that arithmetic lands on the name.
  const int line = 30;
  const int column = ColumnOf(std::string(d.view.Line(line)), "%add.28");
  const float x = d.view.CharRect(line, 0)->min_x + (static_cast<float>(column) + 0.5f) * cw;
  const float y = top_left.y + (static_cast<float>(line) + 0.5f) * line_h;
  d.harness.Click(x, y, d.body);
  EXPECT_EQ(d.clicked, "add.28");
  EXPECT_EQ(d.view.cursor_line(), 29);
  EXPECT_FALSE(d.view.CharRect(line, 100000).has_value());
  EXPECT_FALSE(d.view.CharRect(5000, 0).has_value());
}

TEST(ClickTest, ClickingANameJumpsToItsDefinitionAndReturnsIt) {
  ViewDriver d;
  d.view.SetText(ChainHlo(3000), TextLanguage::kHlo);
  d.view.ScrollToLine(2500);
  d.Frame();
  ASSERT_TRUE(Visible(d.view.last_visible_lines(), 2500));
  ASSERT_FALSE(Visible(d.view.last_visible_lines(), 1));
  // Line 2500 defines add.2499 and uses add.2498 and p.0 (defined on line 1).
  const std::string line(d.view.Line(2500));
  d.ClickAt(2500, ColumnOf(line, "%p.0") + 1);
  ASSERT_TRUE(d.clicked.has_value());
  EXPECT_EQ(*d.clicked, "p.0");
  d.Frame();
  EXPECT_TRUE(Visible(d.view.last_visible_lines(), 1));
  EXPECT_EQ(d.view.cursor_line(), 1);

  // Clicking a use nearby: the definition is already visible, no scroll needed.
  d.clicked.reset();
  d.view.ScrollToLine(40);
  d.Frame();
  const std::string use(d.view.Line(40));
  d.ClickAt(40, ColumnOf(use, "%add.38"));
  EXPECT_EQ(d.clicked, "add.38");
  EXPECT_EQ(d.view.cursor_line(), 39);

  // Not a name: nothing returned, the line becomes the current one.
  d.clicked.reset();
  d.Frame();
  d.ClickAt(40, ColumnOf(use, "f32"));
  EXPECT_FALSE(d.clicked.has_value());
  EXPECT_EQ(d.view.cursor_line(), 40);
  // A name without a definition in this text is not returned either.
  d.view.SetText("  %x = f32[] add(%nowhere, %x)\n", TextLanguage::kHlo);
  d.Frame();
  d.ClickAt(0, ColumnOf(std::string(d.view.Line(0)), "%nowhere"));
  EXPECT_FALSE(d.clicked.has_value());
}

TEST(ClickTest, NamesWithDotsDashesAndOtherLanguages) {
  ViewDriver d;
  d.view.SetText(kAsm, TextLanguage::kAsm);
  d.Frame();
  const int jle = LineStartingWith(kAsm, "\tjle");
  d.ClickAt(jle, ColumnOf(std::string(d.view.Line(jle)), ".LBB0_6"));
  EXPECT_EQ(d.clicked, ".LBB0_6");
  EXPECT_EQ(d.view.cursor_line(), LineStartingWith(kAsm, ".LBB0_6:"));

  d.clicked.reset();
  d.view.SetText(kPtx, TextLanguage::kPtx);
  d.Frame();
  const int ld = LineStartingWith(kPtx, "\tld.param.u64");
  d.ClickAt(ld, ColumnOf(std::string(d.view.Line(ld)), "fusion_2_kernel_param_0"));
  EXPECT_EQ(d.clicked, "fusion_2_kernel_param_0");
  // A register is no link.
  d.clicked.reset();
  d.Frame();
  d.ClickAt(ld, ColumnOf(std::string(d.view.Line(ld)), "%rd11"));
  EXPECT_FALSE(d.clicked.has_value());

  d.view.SetText(
      "HloModule m\n\nENTRY main {\n  all-reduce.12 = f32[8]{0} parameter(0)\n"
      "  ROOT get-tuple-element.3 = f32[8]{0} negate(all-reduce.12)\n}\n",
      TextLanguage::kHlo);
  d.Frame();
  d.ClickAt(4, ColumnOf(std::string(d.view.Line(4)), "all-reduce.12") + 6);
  EXPECT_EQ(d.clicked, "all-reduce.12");
  EXPECT_EQ(d.view.cursor_line(), 3);
}

TEST(ClickTest, LlvmLocalsJumpWithinTheirFunction) {
  ViewDriver d;
  const std::string text = ReadFile(kRunningExampleIr);
  d.view.SetText(text, TextLanguage::kLlvmIr);
  d.Frame();
  const int use = LineStartingWith(text, "  %4 = load i64, ptr %3");
  const int def = LineStartingWith(text, "  %3 = load ptr");
  d.ClickAt(use, ColumnOf(std::string(d.view.Line(use)), "%3"));
  EXPECT_FALSE(d.clicked.has_value());  // a local is not a selection
  EXPECT_EQ(d.view.cursor_line(), def);
  // A parameter's definition is the define line; a label's is its line.
  const int gep = LineStartingWith(text, "  %2 = getelementptr");
  d.Frame();
  d.ClickAt(gep, ColumnOf(std::string(d.view.Line(gep)), "%0"));
  EXPECT_EQ(d.view.cursor_line(), LineStartingWith(text, "define "));
  const int br = LineStartingWith(text, "  br i1");
  d.Frame();
  d.ClickAt(br, ColumnOf(std::string(d.view.Line(br)), "%.lr.ph"));
  EXPECT_EQ(d.view.cursor_line(), LineStartingWith(text, ".lr.ph:"));
  d.Frame();
  d.ClickAt(
      LineStartingWith(text, "define "),
      ColumnOf(std::string(d.view.Line(LineStartingWith(text, "define "))), "@wrapped_multiply"));
  EXPECT_EQ(d.clicked, "wrapped_multiply");
}

TEST(ClickTest, HoverShowsAHandOverLinkedNames) {
  ViewDriver d;
  d.view.SetText(ChainHlo(20), TextLanguage::kHlo);
  d.Frame();
  const std::string line(d.view.Line(5));
  std::optional<TextView::ScreenRect> name = d.view.CharRect(5, ColumnOf(line, "%add.3"));
  std::optional<TextView::ScreenRect> type = d.view.CharRect(5, ColumnOf(line, "f32"));
  ASSERT_TRUE(name && type);
  d.harness.MoveMouse(name->min_x + 1, name->min_y + 2);
  d.Frame();
  EXPECT_EQ(ImGui::GetMouseCursor(), ImGuiMouseCursor_Hand);
  d.harness.MoveMouse(type->min_x + 1, type->min_y + 2);
  d.Frame();
  EXPECT_EQ(ImGui::GetMouseCursor(), ImGuiMouseCursor_Arrow);
}

TEST(ClickTest, CtrlCCopiesTheClickedLineAndTheMenuCopiesNames) {
  ViewDriver d;
  d.view.SetText(ChainHlo(20), TextLanguage::kHlo);
  d.Frame();
  const std::string line(d.view.Line(7));
  d.ClickAt(7, ColumnOf(line, "f32"));
  EXPECT_EQ(d.view.cursor_line(), 7);
  ImGui::SetClipboardText("");
  d.Key('C', /*ctrl=*/true);
  EXPECT_STREQ(ImGui::GetClipboardText(), line.c_str());

  // Right click on a name opens the menu; its second item copies the name.
  d.ClickAt(7, ColumnOf(line, "%add.5"), /*button=*/1);
  ImGuiContext& g = *ImGui::GetCurrentContext();
  ASSERT_EQ(g.OpenPopupStack.Size, 1);
  ImGuiWindow* menu = g.OpenPopupStack[0].Window;
  ASSERT_NE(menu, nullptr);
  const float item_h = ImGui::GetFontSize() + g.Style.ItemSpacing.y;
  const float x = menu->Pos.x + g.Style.WindowPadding.x + 10;
  const float y = menu->Pos.y + g.Style.WindowPadding.y + item_h * 1.5f;
  d.harness.Click(x, y, d.body);
  EXPECT_STREQ(ImGui::GetClipboardText(), "add.5");
  EXPECT_EQ(g.OpenPopupStack.Size, 0);
  // The first item copies the line.
  d.ClickAt(3, ColumnOf(std::string(d.view.Line(3)), "%add.2"), 1);
  ASSERT_EQ(g.OpenPopupStack.Size, 1);
  menu = g.OpenPopupStack[0].Window;
  d.harness.Click(menu->Pos.x + g.Style.WindowPadding.x + 10,
                  menu->Pos.y + g.Style.WindowPadding.y + item_h * 0.5f, d.body);
  EXPECT_EQ(std::string(ImGui::GetClipboardText()), std::string(d.view.Line(3)));
}

TEST(ClickTest, SameTextKeepsTheViewState) {
  ViewDriver d;
  const std::string text = ChainHlo(500);
  d.view.SetText(text, TextLanguage::kHlo);
  d.view.ScrollToLine(300);
  d.Frame();
  d.ClickAt(300, ColumnOf(std::string(d.view.Line(300)), "f32"));
  d.view.SetText(text, TextLanguage::kHlo);  // e.g. every frame
  d.Frame();
  EXPECT_EQ(d.view.cursor_line(), 300);
  EXPECT_TRUE(Visible(d.view.last_visible_lines(), 300));
  d.view.SetText(text + "\n", TextLanguage::kHlo);  // new text: back to the top
  d.Frame();
  EXPECT_EQ(d.view.cursor_line(), -1);
  EXPECT_TRUE(Visible(d.view.last_visible_lines(), 0));
}

// ---------------------------------------------------------------------------------------
// DiffView

TEST(DiffViewTest, SideBySideAlignsChangesAndUnifiedListsEveryLine) {
  DiffView view;
  view.SetTexts("a\nb\nc\n", "a\nx\nc\nd\n", "before", "after", TextLanguage::kPlain);
  EXPECT_EQ(view.diff().added, 2);
  EXPECT_EQ(view.diff().removed, 1);
  ASSERT_EQ(view.row_count(), 4);  // a|a, b|x, c|c, -|d
  const auto& rows = view.rows();
  EXPECT_EQ(rows[0].left->text, "a");
  EXPECT_EQ(rows[0].right->text, "a");
  EXPECT_EQ(rows[1].left->text, "b");
  EXPECT_EQ(rows[1].right->text, "x");
  EXPECT_EQ(rows[3].left, nullptr);
  EXPECT_EQ(rows[3].right->text, "d");
  EXPECT_FALSE(rows[0].changed());
  EXPECT_TRUE(rows[1].changed());
  EXPECT_EQ(view.change_count(), 2);
  EXPECT_EQ(view.change_row(0), 1);
  EXPECT_EQ(view.change_row(1), 3);
  EXPECT_EQ(view.change_row(2), -1);

  view.SetMode(DiffView::Mode::kUnified);
  ASSERT_EQ(view.row_count(), 5);  // a, -b, +x, c, +d
  EXPECT_EQ(view.rows()[1].left->kind, DiffLine::Kind::kRemoved);
  EXPECT_EQ(view.rows()[2].left->kind, DiffLine::Kind::kAdded);
  EXPECT_EQ(view.rows()[1].right, nullptr);
  EXPECT_EQ(view.change_count(), 2);

  // Uneven runs: three removed beside one added.
  view.SetMode(DiffView::Mode::kSideBySide);
  view.SetTexts("k\n1\n2\n3\nk\n", "k\nX\nk\n", "a", "b");
  ASSERT_EQ(view.row_count(), 5);
  EXPECT_EQ(view.rows()[1].right->text, "X");
  EXPECT_EQ(view.rows()[2].right, nullptr);
  EXPECT_EQ(view.rows()[3].left->text, "3");
  EXPECT_EQ(view.change_count(), 1);
  // Line numbers of both sides.
  EXPECT_EQ(view.rows()[4].left->old_line, 5);
  EXPECT_EQ(view.rows()[4].right->new_line, 3);
}

TEST(DiffViewTest, ChangesOnlyShowsHunksWithContext) {
  std::string before, after;
  for (int i = 0; i < 100; ++i) {
    before += "line " + std::to_string(i) + "\n";
    after += (i == 10 || i == 80 ? "changed " : "line ") + std::to_string(i) + "\n";
  }
  DiffView view;
  view.SetTexts(before, after, "before", "after");
  EXPECT_EQ(view.row_count(), 100);
  view.SetChangesOnly(true);
  ASSERT_EQ(view.diff().hunks.size(), 2u);
  // Side by side: a header and 3 + 1 + 3 rows per hunk.
  EXPECT_EQ(view.row_count(), 2 * (1 + 7));
  EXPECT_EQ(view.rows()[0].hunk, 0);
  EXPECT_EQ(view.rows()[8].hunk, 1);
  EXPECT_EQ(view.rows()[1].left->text, "line 7");
  EXPECT_EQ(view.change_count(), 2);
  EXPECT_EQ(view.change_row(0), 4);
  view.SetMode(DiffView::Mode::kUnified);
  size_t expected = 0;
  for (const DiffHunk& h : view.diff().hunks) expected += 1 + h.lines.size();
  EXPECT_EQ(static_cast<size_t>(view.row_count()), expected);
  EXPECT_EQ(view.row_count(), 2 * (1 + 8));
}

TEST(DiffViewTest, NextChangeScrollsAndWraps) {
  std::string before, after;
  for (int i = 0; i < 3000; ++i) {
    before += "line " + std::to_string(i) + "\n";
    after += (i == 100 || i == 1500 || i == 2900 ? "changed " : "line ") + std::to_string(i) + "\n";
  }
  ImGuiHarness harness;
  DiffView view;
  view.SetTexts(before, after, "before", "after", TextLanguage::kPlain);
  auto body = [&] { view.Draw("diff"); };
  harness.Frame(body);
  std::pair<int, int> visible = view.last_visible_rows();
  EXPECT_EQ(visible.first, 0);
  EXPECT_LT(visible.second - visible.first, 200);
  ASSERT_EQ(view.change_count(), 3);
  view.NextChange();
  harness.Frame(body);
  EXPECT_EQ(view.current_change(), 0);
  EXPECT_TRUE(Visible(view.last_visible_rows(), view.change_row(0)));
  view.NextChange();
  harness.Frame(body);
  EXPECT_TRUE(Visible(view.last_visible_rows(), view.change_row(1)));
  EXPECT_FALSE(Visible(view.last_visible_rows(), view.change_row(0)));
  view.NextChange();
  view.NextChange();  // wraps to the first
  harness.Frame(body);
  EXPECT_EQ(view.current_change(), 0);
  EXPECT_TRUE(Visible(view.last_visible_rows(), view.change_row(0)));
  view.NextChange(-1);  // back to the last
  EXPECT_EQ(view.current_change(), 2);
  harness.Frame(body);
  EXPECT_TRUE(Visible(view.last_visible_rows(), view.change_row(2)));
  // Switching modes keeps the current change in view.
  view.SetMode(DiffView::Mode::kUnified);
  harness.Frame(body);
  EXPECT_EQ(view.current_change(), 2);
  EXPECT_TRUE(Visible(view.last_visible_rows(), view.change_row(2)));
  view.SetChangesOnly(true);
  harness.Frame(body);
  EXPECT_TRUE(Visible(view.last_visible_rows(), view.change_row(2)));
  EXPECT_EQ(view.row_count(), 3 * (1 + 8));
}

TEST(DiffViewTest, ToolbarAndF7) {
  ImGuiHarness harness;
  DiffView view;
  std::string before, after;
  for (int i = 0; i < 500; ++i) {
    before += "line " + std::to_string(i) + "\n";
    after += (i % 100 == 50 ? "changed " : "line ") + std::to_string(i) + "\n";
  }
  view.SetTexts(before, after, "before", "after");
  auto body = [&] { view.Draw("diff"); };
  harness.Frame(body);
  // Click "Unified" (the second radio button, right of "Side by side").
  ImGuiContext& g = *ImGui::GetCurrentContext();
  const float radio_y = g.Style.WindowPadding.y + ImGui::GetFrameHeight() / 2;
  const float unified_x = g.Style.WindowPadding.x + ImGui::GetFrameHeight() +
                          g.Style.ItemInnerSpacing.x + ImGui::CalcTextSize("Side by side").x +
                          g.Style.ItemSpacing.x + 5;
  harness.Click(unified_x, radio_y, body);
  EXPECT_EQ(view.mode(), DiffView::Mode::kUnified);
  // Focus the rows and press F7.
  harness.Click(600, 400, body);
  harness.SetKey(kKeyF7, true);
  harness.Frame(body);
  harness.SetKey(kKeyF7, false);
  harness.Frame(body);
  EXPECT_EQ(view.current_change(), 0);
  harness.SetShift(true);
  harness.SetKey(kKeyF7, true);
  harness.Frame(body);
  harness.SetKey(kKeyF7, false);
  harness.SetShift(false);
  harness.Frame(body);
  EXPECT_EQ(view.current_change(), view.change_count() - 1);
}

TEST(DiffViewTest, IdenticalEmptyAndOddTextsDraw) {
  ImGuiHarness harness;
  DiffView view;
  auto body = [&] { view.Draw("diff"); };
  view.SetTexts("", "", "a", "b");
  EXPECT_TRUE(view.diff().identical());
  EXPECT_EQ(view.row_count(), 0);
  view.NextChange();
  EXPECT_EQ(view.current_change(), -1);
  harness.Frame(body);
  view.SetChangesOnly(true);
  harness.Frame(body);
  view.SetChangesOnly(false);
  view.SetTexts("same\nsame\n", "same\nsame", "a", "b");
  EXPECT_EQ(view.row_count(), 2);
  EXPECT_EQ(view.change_count(), 0);
  harness.Frame(body);
  std::string odd_before = "\t%x = f32[] add(%a, %b)\n\xff\xfe\n" + std::string(200000, 'y') + "\n";
  std::string odd_after = "\t%x = f32[] add(%a, %c)\n\xc3\n" + std::string(200001, 'y') + "\n";
  view.SetTexts(odd_before, odd_after, "a", "b", TextLanguage::kHlo);
  for (DiffView::Mode mode : {DiffView::Mode::kSideBySide, DiffView::Mode::kUnified}) {
    view.SetMode(mode);
    FrameStats stats = harness.Frame(body);
    EXPECT_LT(stats.vertices, 40000);
    view.SetChangesOnly(true);
    harness.Frame(body);
    view.SetChangesOnly(false);
  }
  // A large diff draws only the visible rows.
  std::string big_before, big_after;
  for (int i = 0; i < 50000; ++i) {
    big_before += "%v." + std::to_string(i) + " = f32[] x()\n";
    big_after += (i == 25000 ? "%w." : "%v.") + std::to_string(i) + " = f32[] x()\n";
  }
  view.SetMode(DiffView::Mode::kSideBySide);
  view.SetTexts(big_before, big_after, "a", "b");
  FrameStats stats = harness.Frame(body);
  EXPECT_LT(view.last_visible_rows().second - view.last_visible_rows().first, 200);
  EXPECT_LT(stats.vertices, 60000);
  view.NextChange();
  harness.Frame(body);
  EXPECT_TRUE(Visible(view.last_visible_rows(), 25000));
}

}  // namespace
}  // namespace fusebox::viewers
