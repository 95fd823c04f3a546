// The tokenizers of text_tokenizers.h, a language each (HLO, LLVM IR, PTX, x86 / SASS
// assembly, diffs), and the display-column arithmetic.
#include "viewers/text_tokenizers.h"

#include <algorithm>
#include <cstddef>

#include "viewers/text_scan_internal.h"

namespace fusebox::viewers {

namespace {

using namespace text_internal;

// Collects tokens in order, filling the gaps between them with kText so they cover the
// line; neighbouring kText runs merge (names never do: NameAt needs each on its own).
class TokenSink {
 public:
  explicit TokenSink(int size) : size_(size) {}
  void Add(int begin, int end, TokenKind kind) {
    begin = std::max(begin, covered_);
    end = std::min(end, size_);
    if (end <= begin) return;
    if (begin > covered_) Push(covered_, begin, TokenKind::kText);
    Push(begin, end, kind);
  }
  std::vector<Token> Finish() {
    if (covered_ < size_) Push(covered_, size_, TokenKind::kText);
    return std::move(tokens_);
  }

 private:
  void Push(int begin, int end, TokenKind kind) {
    if (kind == TokenKind::kText && !tokens_.empty() && tokens_.back().kind == kind &&
        tokens_.back().end == begin) {
      tokens_.back().end = end;
    } else {
      tokens_.push_back(Token{begin, end, kind});
    }
    covered_ = end;
  }

  int size_;
  int covered_ = 0;
  std::vector<Token> tokens_;
};

// "/* ... */" and "..." read the same in HLO, PTX and assembly: adds the comment or
// string starting at s[i] and returns its end, or i when neither starts there.
int AddBlockCommentOrString(string_view s, int i, TokenSink& out) {
  const int n = Size(s);
  if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
    size_t close = s.find("*/", static_cast<size_t>(i) + 2);
    int end = close == string_view::npos ? n : static_cast<int>(close) + 2;
    out.Add(i, end, TokenKind::kComment);
    return end;
  }
  if (s[i] == '"') {
    int end = SkipString(s, i);
    out.Add(i, end, TokenKind::kString);
    return end;
  }
  return i;
}

// --- HLO ---

// Primitive types as shapes print them: pred, s4..s64, u4..u64, f16/f32/f64, bf16, c64,
// c128, the f8/f4 families (f8e4m3fn, f8e5m2fnuz, ...), tf32, token, opaque.
bool IsHloPrimitiveType(string_view w) {
  if (w == "pred" || w == "token" || w == "opaque" || w == "bf16" || w == "tf32") return true;
  if (w.size() < 2) return false;
  if (w[0] == 's' || w[0] == 'u' || w[0] == 'c' || w[0] == 'f') {
    size_t k = 1;
    while (k < w.size() && IsDigit(w[k])) ++k;
    if (k == 1) return false;
    if (k == w.size()) return true;
    // f8e4m3fn, f4e2m1fn, f8e8m0fnu: digits, 'e', digits, 'm', digits, then letters.
    if (w[0] != 'f' || w[k] != 'e') return false;
    size_t j = k + 1;
    while (j < w.size() && IsDigit(w[j])) ++j;
    if (j == k + 1 || j >= w.size() || w[j] != 'm') return false;
    size_t m = j + 1;
    while (m < w.size() && IsDigit(w[m])) ++m;
    if (m == j + 1) return false;
    for (; m < w.size(); ++m) {
      if (!IsAlpha(w[m])) return false;
    }
    return true;
  }
  return false;
}

// Attributes whose value names computations: "calls=fused_computation" in XLA's newer,
// sigil-free text is as much a link as "calls=%fused_computation".
bool IsHloComputationKey(string_view w) {
  return w == "calls" || w == "to_apply" || w == "condition" || w == "body" ||
         w == "branch_computations" || w == "called_computations" || w == "true_computation" ||
         w == "false_computation" || w == "select" || w == "scatter";
}

bool IsHloLiteralWord(string_view w) {
  return w == "true" || w == "false" || w == "nan" || w == "inf";
}

// A shape from its '[' at s[i]: dimensions, then a layout in braces when one follows.
int ScanShapeTail(string_view s, int i) {
  const int n = Size(s);
  int k = i;
  while (k < n && s[k] != ']') ++k;
  if (k < n) ++k;
  if (k < n && s[k] == '{') k = MatchBrace(s, k);
  return k;
}

std::vector<Token> TokenizeHlo(string_view s) {
  const int n = Size(s);
  TokenSink out(n);
  int paren = 0;
  int brace = 0;
  bool assigned = false;  // past the " = " of an instruction
  bool opcode_seen = false;
  int operand_paren = -1;     // paren depth of the opcode's operand list, while inside it
  bool constant_op = false;   // constant(...) holds literals, not operands
  int name_value_brace = -1;  // inside a calls= / to_apply= value opened at this depth
  bool first_word = true;     // no word yet except ROOT / ENTRY
  bool module_name_next = false;
  const bool column0 = n > 0 && !IsSpace(s[0]);
  int i = 0;
  while (i < n) {
    const char c = s[i];
    if (int end = AddBlockCommentOrString(s, i, out); end > i) {
      i = end;
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      out.Add(i, n, TokenKind::kComment);
      break;
    }
    if (c == '%') {
      int end = ScanHloName(s, i + 1);
      if (end > i + 1) {
        out.Add(i, end, TokenKind::kName);
        first_word = false;
        i = end;
        continue;
      }
    }
    if (NumberStartsAt(s, i)) {
      int end = ScanNumber(s, c == '-' ? i + 1 : i);
      out.Add(i, end, TokenKind::kNumber);
      i = end;
      continue;
    }
    if (IsHloNameStart(c)) {
      int end = ScanHloName(s, i);
      string_view word = s.substr(i, end - i);
      const char next = end < n ? s[end] : '\0';  // right after the word
      int k = end;
      while (k < n && s[k] == ' ') ++k;
      const char after = k < n ? s[k] : '\0';  // after spaces
      const char after2 = k + 1 < n ? s[k + 1] : '\0';
      TokenKind kind = TokenKind::kText;
      bool keep_first = false;
      if (next == '[' && IsHloPrimitiveType(word)) {
        end = ScanShapeTail(s, end);
        kind = TokenKind::kType;
      } else if (word == "metadata" && next == '=' && end + 1 < n && s[end + 1] == '{') {
        // Source locations and op names: useful, but dimmed so the data flow stands out.
        end = MatchBrace(s, end + 1);
        kind = TokenKind::kComment;
      } else if (first_word && (word == "ROOT" || word == "ENTRY")) {
        kind = TokenKind::kKeyword;
        keep_first = true;
      } else if (first_word && word == "HloModule") {
        kind = TokenKind::kKeyword;
        module_name_next = true;
      } else if (module_name_next) {
        kind = TokenKind::kName;
        module_name_next = false;
      } else if (first_word && !assigned && after == '=' && after2 != '=') {
        kind = TokenKind::kName;  // "name = shape opcode(...)": the instruction defined
      } else if (next == '=' && (end + 1 >= n || s[end + 1] != '=')) {
        kind = TokenKind::kKeyword;  // attribute key
        if (IsHloComputationKey(word)) name_value_brace = brace;
      } else if (next == '(' && assigned && !opcode_seen) {
        kind = TokenKind::kOpcode;
        opcode_seen = true;
        operand_paren = paren + 1;
        constant_op = word == "constant";
      } else if (IsHloLiteralWord(word)) {
        kind = TokenKind::kNumber;
      } else if (name_value_brace >= 0) {
        kind = TokenKind::kName;
      } else if (operand_paren >= 0 && paren >= operand_paren && !constant_op) {
        kind = TokenKind::kName;  // an operand
      } else if (after == ':' && paren > 0) {
        kind = TokenKind::kName;  // a parameter in a computation's signature
      } else if (column0 && first_word && (after == '(' || after == '{')) {
        kind = TokenKind::kName;  // a computation header without '%'
      }
      if (!keep_first) first_word = false;
      out.Add(i, end, kind);
      i = end;
      continue;
    }
    switch (c) {
      case '(':
        ++paren;
        break;
      case ')':
        if (paren == operand_paren) operand_paren = -1;
        --paren;
        break;
      case '{':
        ++brace;
        break;
      case '}':
        --brace;
        if (name_value_brace > brace) name_value_brace = -1;
        break;
      case ',':
        if (name_value_brace == brace) name_value_brace = -1;
        break;
      case '=':
        if (!assigned && paren == 0 && brace == 0) assigned = true;
        break;
      default:
        break;
    }
    ++i;
  }
  return out.Finish();
}

// --- LLVM IR ---

bool IsLlvmType(string_view w) {
  if (w.size() >= 2 && w[0] == 'i') {
    return std::all_of(w.begin() + 1, w.end(), [](char c) { return IsDigit(c); });
  }
  return InWordList(
      "void half bfloat float double fp128 x86_fp80 ppc_fp128 ptr label metadata token x86_amx "
      "opaque",
      w);
}

bool IsLlvmInstruction(string_view w) {
  return InWordList(
      "ret br switch indirectbr invoke resume unreachable callbr fneg add fadd sub fsub mul fmul "
      "udiv sdiv fdiv urem srem frem shl lshr ashr and or xor extractelement insertelement "
      "shufflevector extractvalue insertvalue alloca load store fence cmpxchg atomicrmw "
      "getelementptr trunc zext sext fptrunc fpext fptoui fptosi uitofp sitofp ptrtoint inttoptr "
      "bitcast addrspacecast icmp fcmp phi select call freeze va_arg landingpad",
      w);
}

bool IsLlvmKeyword(string_view w) {
  return InWordList(
      "define declare target datalayout triple source_filename attributes global constant private "
      "internal external linkonce linkonce_odr weak weak_odr common appending dso_local "
      "local_unnamed_addr unnamed_addr align noalias nocapture noundef nonnull readonly writeonly "
      "readnone nuw nsw exact inbounds fast nnan ninf nsz arcp contract afn reassoc to type "
      "zeroinitializer undef poison null true false tail musttail notail volatile atomic syncscope "
      "section comdat personality addrspace dereferenceable captures none nofree ptx_kernel eq ne "
      "ugt uge ult ule sgt sge slt sle oeq ogt oge olt ole one ord ueq une uno x vscale unordered "
      "monotonic acquire release acq_rel seq_cst nneg disjoint samesign alwaysinline noinline "
      "nounwind hidden protected",
      w);
}

// "<4 x float>", "[8 x [4 x i32]]", "<vscale x 2 x i64>" from the bracket at s[i]: the
// end of the whole type, or -1 when the brackets hold something else.
int ScanLlvmAggregateType(string_view s, int i) {
  const int n = Size(s);
  int k = i + 1;
  while (k < n && s[k] == ' ') ++k;
  if (s.substr(k, 7) == "vscale ") {
    k += 7;
    if (s.substr(k, 2) != "x ") return -1;
    k += 2;
  }
  const int digits = k;
  while (k < n && IsDigit(s[k])) ++k;
  if (k == digits || s.substr(k, 3) != " x ") return -1;
  int depth = 0;
  for (int j = i; j < n; ++j) {
    if (s[j] == '<' || s[j] == '[' || s[j] == '{') ++depth;
    if ((s[j] == '>' || s[j] == ']' || s[j] == '}') && --depth == 0) return j + 1;
  }
  return -1;
}

std::vector<Token> TokenizeLlvm(string_view s) {
  const int n = Size(s);
  TokenSink out(n);
  int i = 0;
  // A basic block label at column 0: "16:", ".lr.ph:", "entry:".
  if (n > 0 && IsLlvmNameChar(s[0])) {
    int end = ScanLlvmName(s, 0);
    if (end < n && s[end] == ':') {
      out.Add(0, end, TokenKind::kName);
      i = end;
    }
  }
  while (i < n) {
    const char c = s[i];
    if (c == ';') {
      out.Add(i, n, TokenKind::kComment);
      break;
    }
    if (c == '"' ||
        (c == 'c' && i + 1 < n && s[i + 1] == '"' && (i == 0 || !IsLlvmNameChar(s[i - 1])))) {
      int end = SkipString(s, c == 'c' ? i + 1 : i);
      out.Add(i, end, TokenKind::kString);
      i = end;
      continue;
    }
    if ((c == '@' || c == '%') && i + 1 < n) {
      int end = s[i + 1] == '"' ? SkipString(s, i + 1) : ScanLlvmName(s, i + 1);
      if (end > i + 1) {
        out.Add(i, end, TokenKind::kName);
        i = end;
        continue;
      }
    }
    if (c == '!' && i + 1 < n && (IsLlvmNameChar(s[i + 1]))) {
      int end = ScanLlvmName(s, i + 1);
      out.Add(i, end, TokenKind::kComment);  // metadata: !3, !invariant.load
      i = end;
      continue;
    }
    if (c == '#' && i + 1 < n && IsDigit(s[i + 1])) {
      int end = i + 1;
      while (end < n && IsDigit(s[end])) ++end;
      out.Add(i, end, TokenKind::kComment);  // attribute group
      i = end;
      continue;
    }
    if (c == '<' || c == '[') {
      int end = ScanLlvmAggregateType(s, i);
      if (end > i) {
        out.Add(i, end, TokenKind::kType);
        i = end;
        continue;
      }
    }
    if (NumberStartsAt(s, i)) {
      int end = ScanNumber(s, c == '-' ? i + 1 : i);
      out.Add(i, end, TokenKind::kNumber);
      i = end;
      continue;
    }
    if (IsAlpha(c) || c == '_') {
      int end = i;
      while (end < n && (IsAlnum(s[end]) || s[end] == '_' || s[end] == '.')) ++end;
      string_view word = s.substr(i, end - i);
      TokenKind kind = TokenKind::kText;
      if (IsLlvmType(word)) {
        kind = TokenKind::kType;
      } else if (IsLlvmInstruction(word)) {
        kind = TokenKind::kOpcode;
      } else if (IsLlvmKeyword(word)) {
        kind = TokenKind::kKeyword;
      }
      out.Add(i, end, kind);
      i = end;
      continue;
    }
    ++i;
  }
  return out.Finish();
}

// --- PTX ---

bool IsPtxType(string_view w) {
  if (w == ".pred" || w == ".v2" || w == ".v4" || w == ".v8" || w == ".f16x2" || w == ".bf16" ||
      w == ".bf16x2" || w == ".tf32" || w == ".e4m3" || w == ".e5m2") {
    return true;
  }
  if (w.size() < 3 || w[0] != '.') return false;
  const char k = w[1];
  if (k != 'b' && k != 'u' && k != 's' && k != 'f') return false;
  return std::all_of(w.begin() + 2, w.end(), [](char c) { return IsDigit(c); });
}

// Directives whose operands are settings, not symbols (".target sm_90").
bool IsPtxSettingDirective(string_view w) {
  return w == ".version" || w == ".target" || w == ".address_size" || w == ".maxntid" ||
         w == ".reqntid" || w == ".minnctapersm" || w == ".maxnreg" || w == ".pragma" ||
         w == ".file" || w == ".loc" || w == ".section";
}

std::vector<Token> TokenizePtx(string_view s) {
  const int n = Size(s);
  TokenSink out(n);
  bool statement_start = true;
  bool setting = false;  // in a statement that starts with a setting directive
  int i = 0;
  while (i < n) {
    const char c = s[i];
    if (IsSpace(c)) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      out.Add(i, n, TokenKind::kComment);
      break;
    }
    if (int end = AddBlockCommentOrString(s, i, out); end > i) {
      i = end;
      continue;
    }
    if (c == '@' && statement_start) {
      // Guard predicate "@%p1" / "@!%p1": the instruction still follows.
      int k = i + 1;
      if (k < n && s[k] == '!') ++k;
      if (k < n && s[k] == '%') {
        int end = k + 1;
        while (end < n && (IsPtxNameChar(s[end]) || s[end] == '.')) ++end;
        out.Add(k, end, TokenKind::kRegister);
        i = end;
        continue;
      }
      ++i;
      continue;
    }
    if (c == '%') {
      int end = i + 1;
      while (end < n && (IsPtxNameChar(s[end]) || s[end] == '.')) ++end;
      out.Add(i, end, TokenKind::kRegister);
      i = end;
      continue;
    }
    if (c == '.' && i + 1 < n && IsAlpha(s[i + 1])) {
      int end = i + 1;
      while (end < n && (IsAlnum(s[end]) || s[end] == '_')) ++end;
      string_view word = s.substr(i, end - i);
      if (statement_start) setting = IsPtxSettingDirective(word);
      statement_start = false;
      out.Add(i, end, IsPtxType(word) ? TokenKind::kType : TokenKind::kKeyword);
      i = end;
      continue;
    }
    if (NumberStartsAt(s, i)) {
      int end = ScanNumber(s, c == '-' ? i + 1 : i);
      out.Add(i, end, TokenKind::kNumber);
      i = end;
      continue;
    }
    if (IsAlpha(c) || c == '_' || c == '$') {
      if (statement_start) {
        int name_end = ScanPtxName(s, i);
        if (name_end < n && s[name_end] == ':') {
          out.Add(i, name_end, TokenKind::kName);  // a label
          i = name_end + 1;
          continue;
        }
        int end = i;
        while (end < n && (IsPtxNameChar(s[end]) || s[end] == '.')) ++end;
        out.Add(i, end, TokenKind::kOpcode);  // "ld.param.u64", "bra.uni", "ret"
        statement_start = false;
        i = end;
        continue;
      }
      int end = ScanPtxName(s, i);
      out.Add(i, end, setting ? TokenKind::kText : TokenKind::kName);
      i = end;
      continue;
    }
    if (c == ';' || c == '{' || c == '}') {
      statement_start = true;
      setting = false;
    }
    ++i;
  }
  return out.Finish();
}

// --- x86 assembly (AT&T, as LLVM prints it) ---

// Directives whose operands are symbols (".globl f", ".size f, .Lfunc_end0-f").
bool IsAsmSymbolDirective(string_view w) {
  return w == ".globl" || w == ".global" || w == ".type" || w == ".size" || w == ".weak" ||
         w == ".hidden" || w == ".local" || w == ".set" || w == ".equ" || w == ".long" ||
         w == ".quad" || w == ".word" || w == ".short" || w == ".protected" || w == ".internal" ||
         w == ".comm" || w == ".lcomm" || w == ".reloc";
}

bool IsAsmPrefix(string_view w) {
  return w == "lock" || w == "rep" || w == "repe" || w == "repz" || w == "repne" || w == "repnz" ||
         w == "notrack" || w == "data16" || w == "addr32";
}

// SASS registers: R0, RZ, UR4, URZ, P0, PT, UP0, UPT, SR_TID.X, SR_CTAID.X, ...
bool IsSassRegister(string_view w) {
  if (w == "RZ" || w == "URZ" || w == "PT" || w == "UPT" || StartsWith(w, "SR_")) return true;
  size_t k = 0;
  if (StartsWith(w, "UR") || StartsWith(w, "UP")) {
    k = 2;
  } else if (StartsWith(w, "R") || StartsWith(w, "P")) {
    k = 1;
  } else {
    return false;
  }
  return k < w.size() && std::all_of(w.begin() + static_cast<std::ptrdiff_t>(k), w.end(),
                                     [](char c) { return IsDigit(c); });
}

std::vector<Token> TokenizeAsm(string_view s) {
  const int n = Size(s);
  TokenSink out(n);
  bool statement_start = true;
  string_view directive;
  int i = 0;
  while (i < n) {
    const char c = s[i];
    if (IsSpace(c)) {
      ++i;
      continue;
    }
    // '#' is AT&T's comment; SASS (cuobjdump, nvdisasm) writes /*0040*/ addresses and
    // "//" comments.
    if (c == '#' || (c == '/' && i + 1 < n && s[i + 1] == '/')) {
      out.Add(i, n, TokenKind::kComment);
      break;
    }
    if (int end = AddBlockCommentOrString(s, i, out); end > i) {
      i = end;
      continue;
    }
    if (c == '@' && statement_start && i + 1 < n && (s[i + 1] == '!' || IsAlpha(s[i + 1]))) {
      // A SASS guard predicate, "@P0" / "@!P1": the instruction still follows.
      int begin = s[i + 1] == '!' ? i + 2 : i + 1;
      int end = begin;
      while (end < n && (IsAlnum(s[end]) || s[end] == '_')) ++end;
      if (IsSassRegister(s.substr(begin, end - begin))) {
        out.Add(begin, end, TokenKind::kRegister);
        i = end;
        continue;
      }
    }
    if (statement_start && IsAsmSymbolChar(c)) {
      int end = ScanAsmSymbol(s, i);
      if (end < n && s[end] == ':') {
        out.Add(i, end, TokenKind::kName);  // a label ("fusion_2:", ".LBB0_3:")
        i = end + 1;
        continue;
      }
    }
    if (c == '%') {
      int end = i + 1;
      while (end < n && (IsAlnum(s[end]) || s[end] == '_')) ++end;
      out.Add(i, end, TokenKind::kRegister);
      i = end;
      continue;
    }
    if (c == '$' && i + 1 < n && (IsDigit(s[i + 1]) || s[i + 1] == '-')) {
      int end = i + 1 < n && s[i + 1] == '-' ? i + 2 : i + 1;
      end = ScanNumber(s, end);
      out.Add(i, end, TokenKind::kNumber);  // an immediate
      i = end;
      continue;
    }
    if (c == '$') {  // "$symbol": the symbol's address; the symbol is the link
      ++i;
      continue;
    }
    if (c == '@') {
      int end = i + 1;
      while (end < n && (IsAlnum(s[end]) || s[end] == '_')) ++end;
      out.Add(i, end, TokenKind::kKeyword);  // @function, @progbits, @PLT
      i = end;
      continue;
    }
    if (NumberStartsAt(s, i)) {
      int end = ScanNumber(s, c == '-' ? i + 1 : i);
      out.Add(i, end, TokenKind::kNumber);
      i = end;
      continue;
    }
    if (IsAsmSymbolChar(c)) {
      int end = ScanAsmSymbol(s, i);
      string_view word = s.substr(i, end - i);
      TokenKind kind = TokenKind::kName;
      if (IsSassRegister(word)) {
        kind = TokenKind::kRegister;
      } else if (statement_start && word == "Function") {
        kind = TokenKind::kKeyword;  // SASS's "Function : name"
        statement_start = false;
      } else if (statement_start && c == '.') {
        kind = TokenKind::kKeyword;
        directive = word;
        statement_start = false;
      } else if (statement_start) {
        kind = TokenKind::kOpcode;
        statement_start = IsAsmPrefix(word);
      } else if (!directive.empty() && !IsAsmSymbolDirective(directive)) {
        kind = TokenKind::kText;  // ".section .rodata", ".p2align 4"
      } else if (i > 0 && s[i - 1] == '{') {
        kind = TokenKind::kText;  // AVX-512 "{z}", "{sae}"
      }
      out.Add(i, end, kind);
      i = end;
      continue;
    }
    if (c == ';') {
      statement_start = true;
      directive = {};
    }
    ++i;
  }
  return out.Finish();
}

// --- diff ---

std::vector<Token> TokenizeDiff(string_view s) {
  const int n = Size(s);
  TokenSink out(n);
  if (StartsWith(s, "@@") || StartsWith(s, "+++ ") || StartsWith(s, "--- ") ||
      StartsWith(s, "diff ") || s == "+++" || s == "---") {
    out.Add(0, n, TokenKind::kKeyword);
  } else if (StartsWith(s, "+")) {
    out.Add(0, n, TokenKind::kAdded);
  } else if (StartsWith(s, "-")) {
    out.Add(0, n, TokenKind::kRemoved);
  }
  return out.Finish();
}

}  // namespace

TextLanguage LanguageForStage(std::string_view stage) {
  if (stage.find("llvm_ir") != std::string_view::npos) return TextLanguage::kLlvmIr;
  if (EndsWith(stage, "hlo") || StartsWith(stage, "xla_pass_")) return TextLanguage::kHlo;
  if (stage == "ptx" || stage == "xla_ptx") return TextLanguage::kPtx;
  if (stage == "cpu_asm" || stage == "xla_asm" || stage == "sass") return TextLanguage::kAsm;
  if (stage == "diff" || EndsWith(stage, "_diff")) return TextLanguage::kDiff;
  return TextLanguage::kPlain;
}

std::vector<Token> Tokenize(std::string_view line, TextLanguage language) {
  switch (language) {
    case TextLanguage::kHlo:
      return TokenizeHlo(line);
    case TextLanguage::kLlvmIr:
      return TokenizeLlvm(line);
    case TextLanguage::kPtx:
      return TokenizePtx(line);
    case TextLanguage::kAsm:
      return TokenizeAsm(line);
    case TextLanguage::kDiff:
      return TokenizeDiff(line);
    case TextLanguage::kPlain:
      break;
  }
  TokenSink out(Size(line));
  return out.Finish();
}

std::optional<std::string> NameAt(std::string_view line, int column, TextLanguage language) {
  if (column < 0 || column >= Size(line)) return std::nullopt;
  for (const Token& t : Tokenize(line, language)) {
    if (column < t.begin || column >= t.end) continue;
    if (t.kind != TokenKind::kName) return std::nullopt;
    string_view name = StripSigil(line.substr(t.begin, t.end - t.begin));
    if (name.empty()) return std::nullopt;
    return std::string(name);
  }
  return std::nullopt;
}

int DisplayColumns(std::string_view line) { return ColumnOfByte(line, Size(line)); }

int ColumnOfByte(std::string_view line, int byte) {
  int column = 0;
  size_t i = 0;
  const size_t target = static_cast<size_t>(std::max(0, byte));
  while (i < line.size() && i < target) {
    int width = 1;
    i += static_cast<size_t>(CellAt(line, i, column, &width));
    column += width;
  }
  // Inside a multi-byte character: that character's column.
  if (i > target && target < line.size()) {
    column = ColumnOfByte(line, static_cast<int>(target) - 1);
  }
  return column;
}

int ByteAtColumn(std::string_view line, int column) {
  if (column <= 0) return 0;
  int col = 0;
  size_t i = 0;
  while (i < line.size()) {
    int width = 1;
    int len = CellAt(line, i, col, &width);
    if (col + width > column) return static_cast<int>(i);
    col += width;
    i += static_cast<size_t>(len);
  }
  return Size(line);
}

}  // namespace fusebox::viewers
