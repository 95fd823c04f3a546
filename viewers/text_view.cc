// The stage text pane: per-language tokenizers (one line at a time, no state across lines,
// so any visible line can be coloured on its own), a definition index built on first use,
// and an ImGuiListClipper-driven renderer that lays out only the visible lines and, of
// those, only the visible columns.
#include "viewers/text_view.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace fusebox::viewers {

namespace {

using std::string_view;

// ASCII classification without the C locale (bytes >= 0x80 are never letters here).
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsAlnum(char c) { return IsAlpha(c) || IsDigit(c); }
bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}
char ToLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool StartsWith(string_view s, string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool EndsWith(string_view s, string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
string_view TrimLeft(string_view s) {
  size_t i = 0;
  while (i < s.size() && IsSpace(s[i])) ++i;
  return s.substr(i);
}
string_view TrimRight(string_view s) {
  size_t n = s.size();
  while (n > 0 && IsSpace(s[n - 1])) --n;
  return s.substr(0, n);
}
string_view Trim(string_view s) { return TrimRight(TrimLeft(s)); }

// Whether `word` is one of the space-separated words of `list`.
bool InWordList(string_view list, string_view word) {
  if (word.empty()) return false;
  for (size_t at = list.find(word); at != string_view::npos; at = list.find(word, at + 1)) {
    const size_t end = at + word.size();
    if ((at == 0 || list[at - 1] == ' ') && (end == list.size() || list[end] == ' ')) return true;
  }
  return false;
}

int Size(string_view s) { return static_cast<int>(std::min<size_t>(s.size(), INT_MAX)); }

// Past the closing quote of the string starting at s[i] == '"' (backslash escapes), or the
// end of the line when it is not closed.
int SkipString(string_view s, int i) {
  const int n = Size(s);
  for (int k = i + 1; k < n; ++k) {
    if (s[k] == '\\') {
      ++k;
    } else if (s[k] == '"') {
      return k + 1;
    }
  }
  return n;
}

// Past the '}' matching the '{' at s[i] (strings skipped), or the end of the line.
int MatchBrace(string_view s, int i) {
  const int n = Size(s);
  int depth = 0;
  for (int k = i; k < n; ++k) {
    if (s[k] == '"') {
      k = SkipString(s, k) - 1;
    } else if (s[k] == '{') {
      ++depth;
    } else if (s[k] == '}' && --depth == 0) {
      return k + 1;
    }
  }
  return n;
}

// A number starting at s[i] (a digit): decimal, float with exponent, hex (0x1F, PTX's
// 0f3F800000), with any letters that follow glued on (suffixes, "3x3" window sizes).
int ScanNumber(string_view s, int i) {
  const int n = Size(s);
  const bool hex = i + 1 < n && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X');
  int k = i;
  while (k < n) {
    char c = s[k];
    if (IsAlnum(c) || c == '.' || c == '_') {
      ++k;
    } else if ((c == '+' || c == '-') && !hex && k > i && (s[k - 1] == 'e' || s[k - 1] == 'E') &&
               k + 1 < n && IsDigit(s[k + 1])) {
      ++k;
    } else {
      break;
    }
  }
  return k;
}

// A number may start with a '-' when the character before cannot end a word ("-1", but
// not the dash in "a-1").
bool NumberStartsAt(string_view s, int i) {
  const int n = Size(s);
  if (IsDigit(s[i])) return i == 0 || !(IsAlpha(s[i - 1]) || s[i - 1] == '_');
  return s[i] == '-' && i + 1 < n && IsDigit(s[i + 1]) &&
         (i == 0 || !(IsAlnum(s[i - 1]) || s[i - 1] == '_' || s[i - 1] == '.'));
}

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

// XLA names: letters, digits, '_', '.', '-' ("get-tuple-element.5", "param_0.1"), but
// not the '-' of "->".
bool IsHloNameChar(char c) { return IsAlnum(c) || c == '_' || c == '.' || c == '-'; }
int ScanHloName(string_view s, int i) {
  const int n = Size(s);
  int k = i;
  while (k < n && IsHloNameChar(s[k])) {
    if (s[k] == '-' && k + 1 < n && s[k + 1] == '>') break;
    ++k;
  }
  return k;
}
bool IsHloNameStart(char c) { return IsAlpha(c) || c == '_'; }

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

bool IsLlvmNameChar(char c) { return IsAlnum(c) || c == '-' || c == '$' || c == '.' || c == '_'; }
int ScanLlvmName(string_view s, int i) {
  const int n = Size(s);
  while (i < n && IsLlvmNameChar(s[i])) ++i;
  return i;
}

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

bool IsPtxNameChar(char c) { return IsAlnum(c) || c == '_' || c == '$'; }
int ScanPtxName(string_view s, int i) {
  const int n = Size(s);
  while (i < n && IsPtxNameChar(s[i])) ++i;
  return i;
}

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

bool IsAsmSymbolChar(char c) { return IsAlnum(c) || c == '_' || c == '.' || c == '$'; }
int ScanAsmSymbol(string_view s, int i) {
  const int n = Size(s);
  while (i < n && IsAsmSymbolChar(s[i])) ++i;
  return i;
}

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

// --- display columns ---

constexpr int kTabWidth = 4;

// Bytes in the valid UTF-8 character at s[i], 0 when the bytes there are not one.
int Utf8Length(string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  int len = 0;
  if (c < 0x80) {
    return 1;
  } else if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
  } else {
    return 0;
  }
  if (i + static_cast<size_t>(len) > s.size()) return 0;
  for (int k = 1; k < len; ++k) {
    if ((static_cast<unsigned char>(s[i + static_cast<size_t>(k)]) & 0xC0) != 0x80) return 0;
  }
  return len;
}

// One display cell at byte `i`, column `column`: returns the bytes it spans and sets its
// width in columns.
int CellAt(string_view s, size_t i, int column, int* width) {
  if (s[i] == '\t') {
    *width = kTabWidth - column % kTabWidth;
    return 1;
  }
  *width = 1;
  int len = Utf8Length(s, i);
  return len == 0 ? 1 : len;
}

// Whether a definition's name could be `name`: the index stores names without sigils.
string_view StripSigil(string_view name) {
  if (!name.empty() && (name[0] == '%' || name[0] == '@')) name.remove_prefix(1);
  if (name.size() >= 2 && name.front() == '"' && name.back() == '"') {
    name = name.substr(1, name.size() - 2);
  }
  return name;
}

// --- definition indexing, one pass over the lines per language ---

// The function name of an LLVM "define"/"declare" line: the first @name, followed by '('.
string_view LlvmFunctionName(string_view line) {
  size_t at = line.find('@');
  if (at == string_view::npos) return {};
  const int start = static_cast<int>(at) + 1;
  int end = start < Size(line) && line[start] == '"' ? SkipString(line, start)
                                                     : ScanLlvmName(line, start);
  if (end >= Size(line) || line[end] != '(') return {};
  return StripSigil(line.substr(at, end - static_cast<int>(at)));
}

// The name of a PTX ".entry name(" / ".func (.param ...) name(" line, "" when none.
string_view PtxEntryName(string_view t) {
  size_t comment = t.find("//");
  if (comment != string_view::npos) t = t.substr(0, comment);
  for (string_view directive : {string_view(".entry"), string_view(".func")}) {
    size_t at = t.find(directive);
    while (at != string_view::npos) {
      const size_t after = at + directive.size();
      const bool starts = at == 0 || IsSpace(t[at - 1]);
      const bool ends = after >= t.size() || IsSpace(t[after]) || t[after] == '(';
      if (starts && ends) {
        int k = static_cast<int>(after);
        const int n = Size(t);
        while (k < n && IsSpace(t[k])) ++k;
        if (k < n && t[k] == '(') {  // .func's return value
          int depth = 0;
          for (; k < n; ++k) {
            if (t[k] == '(') ++depth;
            if (t[k] == ')' && --depth == 0) break;
          }
          ++k;
          while (k < n && IsSpace(t[k])) ++k;
        }
        int end = ScanPtxName(t, k);
        return t.substr(std::min(k, n), std::max(0, end - k));
      }
      at = t.find(directive, at + 1);
    }
  }
  return {};
}

// The variable a PTX state-space declaration names: ".param .u64 fusion_param_0,",
// ".shared .align 16 .b8 lhs[1024];" -> the identifier before '[', ',', ';', ')' or '='.
string_view PtxDeclaredName(string_view t) {
  size_t comment = t.find("//");
  if (comment != string_view::npos) t = t.substr(0, comment);
  size_t stop = t.find_first_of("[,;)=");
  string_view head = TrimRight(t.substr(0, stop));
  size_t k = head.size();
  while (k > 0 && IsPtxNameChar(head[k - 1])) --k;
  string_view name = head.substr(k);
  if (name.empty() || IsDigit(name[0]) || k == 0 || !IsSpace(head[k - 1])) return {};
  return name;
}

bool IsPtxVariableDeclaration(string_view t) {
  for (string_view prefix : {".visible ", ".extern ", ".weak "}) {
    if (StartsWith(t, prefix)) t = TrimLeft(t.substr(prefix.size()));
  }
  return StartsWith(t, ".shared ") || StartsWith(t, ".global ") || StartsWith(t, ".const ") ||
         StartsWith(t, ".local ") || StartsWith(t, ".param ");
}

// An assembly label at column 0 ("fusion_2:", ".LBB0_3:"), "" when the line is not one.
string_view AsmLabel(string_view line) {
  int end = ScanAsmSymbol(line, 0);
  if (end == 0 || end >= Size(line) || line[end] != ':') return {};
  return line.substr(0, end);
}

// Token colours, tuned for ImGui's dark theme.
constexpr ImU32 kTokenColours[] = {
    IM_COL32(220, 220, 220, 255),  // kText (replaced by the style's text colour)
    IM_COL32(198, 120, 221, 255),  // kKeyword
    IM_COL32(97, 175, 239, 255),   // kName
    IM_COL32(86, 182, 194, 255),   // kType
    IM_COL32(209, 154, 102, 255),  // kNumber
    IM_COL32(152, 195, 121, 255),  // kString
    IM_COL32(110, 118, 129, 255),  // kComment
    IM_COL32(229, 192, 123, 255),  // kOpcode
    IM_COL32(120, 220, 120, 255),  // kAdded
    IM_COL32(240, 110, 110, 255),  // kRemoved
    IM_COL32(224, 128, 150, 255),  // kRegister
};

constexpr ImU32 kHighlightFirst = IM_COL32(255, 200, 60, 56);
constexpr ImU32 kHighlightOther = IM_COL32(90, 160, 255, 36);
constexpr ImU32 kCursorLine = IM_COL32(255, 255, 255, 18);
constexpr ImU32 kMatch = IM_COL32(255, 230, 0, 70);
constexpr ImU32 kCurrentMatch = IM_COL32(255, 140, 0, 170);
constexpr ImU32 kAddedLine = IM_COL32(60, 170, 60, 45);
constexpr ImU32 kRemovedLine = IM_COL32(200, 60, 60, 45);
constexpr ImU32 kGutterBackground = IM_COL32(0, 0, 0, 40);

// GLFW's key codes for the keys ImGui 1.86 has no ImGuiKey for (the backend writes
// io.KeysDown[GLFW_KEY_*]; letters are their ASCII capitals).
constexpr int kGlfwKeyF3 = 292;

}  // namespace

int DecimalDigits(int64_t n) {
  int d = 1;
  while (n >= 10) {
    n /= 10;
    ++d;
  }
  return d;
}

// ---------------------------------------------------------------------------------------

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

uint32_t TokenColor(TokenKind kind) {
  if (kind == TokenKind::kText && ImGui::GetCurrentContext() != nullptr) {
    return ImGui::GetColorU32(ImGuiCol_Text);
  }
  return kTokenColours[static_cast<int>(kind)];
}

void DrawColouredLine(ImDrawList* draw_list, float x, float y, float char_width,
                      std::string_view line, const std::vector<Token>& tokens, float clip_min_x,
                      float clip_max_x) {
  if (line.empty() || char_width <= 0) return;
  const int first_col = std::max(0, static_cast<int>(std::floor((clip_min_x - x) / char_width)));
  const float last = std::ceil((clip_max_x - x) / char_width) + 1;
  if (last <= static_cast<float>(first_col)) return;
  const int last_col =
      last > static_cast<float>(INT_MAX / 2) ? INT_MAX / 2 : static_cast<int>(last);
  ImFont* font = ImGui::GetFont();
  const float font_size = ImGui::GetFontSize();
  std::string run;
  int run_col = -1;
  TokenKind run_kind = TokenKind::kText;
  auto flush = [&] {
    if (!run.empty()) {
      draw_list->AddText(font, font_size, ImVec2(x + static_cast<float>(run_col) * char_width, y),
                         TokenColor(run_kind), run.data(), run.data() + run.size());
    }
    run.clear();
    run_col = -1;
  };
  size_t token = 0;
  size_t i = 0;
  int col = 0;
  while (i < line.size() && col < last_col) {
    while (token < tokens.size() && tokens[token].end <= static_cast<int>(i)) ++token;
    const TokenKind kind = token < tokens.size() && tokens[token].begin <= static_cast<int>(i)
                               ? tokens[token].kind
                               : TokenKind::kText;
    int width = 1;
    const int len = CellAt(line, i, col, &width);
    if (col + width > first_col) {
      if (run_col >= 0 && kind != run_kind) flush();
      if (run_col < 0) {
        run_col = col;
        run_kind = kind;
      }
      const auto byte = static_cast<unsigned char>(line[i]);
      if (byte == '\t') {
        run.append(static_cast<size_t>(width), ' ');
      } else if (byte < 0x20 || byte == 0x7F || (byte >= 0x80 && Utf8Length(line, i) == 0)) {
        run.push_back('?');  // control characters and bytes that are not UTF-8
      } else {
        run.append(line.substr(i, static_cast<size_t>(len)));
      }
    }
    col += width;
    i += static_cast<size_t>(len);
  }
  flush();
}

// ---------------------------------------------------------------------------------------
// TextView: text, lines, definitions

void TextView::SetText(std::string text, TextLanguage language) {
  if (language == language_ && text == text_) return;
  text_ = std::move(text);
  language_ = language;
  line_starts_.clear();
  max_columns_ = 0;
  const char* data = text_.data();
  const size_t size = text_.size();
  line_starts_.reserve(static_cast<size_t>(std::count(text_.begin(), text_.end(), '\n')) + 1);
  size_t start = 0;
  while (start < size) {
    line_starts_.push_back(static_cast<int64_t>(start));
    const void* newline = std::memchr(data + start, '\n', size - start);
    const size_t end =
        newline ? static_cast<size_t>(static_cast<const char*>(newline) - data) : size;
    // Bytes bound the columns from above, except for tabs.
    const size_t tabs = static_cast<size_t>(std::count(data + start, data + end, '\t'));
    const size_t columns = end - start + tabs * (kTabWidth - 1);
    max_columns_ =
        static_cast<int>(std::min<size_t>(std::max<size_t>(max_columns_, columns), INT_MAX / 4));
    start = end + 1;
  }
  definitions_built_ = false;
  definitions_.clear();
  definition_slots_.clear();
  cursor_line_ = -1;
  context_line_ = -1;
  context_target_.reset();
  hover_line_ = -1;
  scroll_to_line_ = -1;
  scroll_to_column_ = -1;
  pending_scroll_y_ = -1;
  scroll_to_top_ = true;
  last_visible_ = {0, 0};
  RecomputeMatches();
  if (!matches_.empty()) current_match_ = 0;
  RecomputeHighlight();
  scroll_to_highlight_ = highlight_first_line_ >= 0;
}

std::string_view TextView::Line(int line) const {
  if (line < 0 || line >= line_count()) return {};
  const size_t begin = static_cast<size_t>(line_starts_[static_cast<size_t>(line)]);
  size_t end = line + 1 < line_count()
                   ? static_cast<size_t>(line_starts_[static_cast<size_t>(line) + 1]) - 1
                   : text_.size();
  if (end > begin && text_[end - 1] == '\n') --end;
  if (end > begin && text_[end - 1] == '\r') --end;
  return std::string_view(text_).substr(begin, end - begin);
}

// The index is a flat open-addressing table over a vector of entries whose names view
// text_; each slot keeps the name's hash, so a probe reads a name only when the hashes
// agree. The lines are scanned first into candidates, then inserted with the slots of the
// candidates a little ahead prefetched: a million definitions cost about a third of what
// they did one by one (a node-based map spent most of a second on them).
int TextView::SlotOf(std::string_view name, size_t hash) const {
  const size_t mask = definition_slots_.size() - 1;
  const auto tag = static_cast<uint32_t>(hash >> 32);
  size_t slot = hash & mask;
  while (true) {
    const DefinitionSlot& s = definition_slots_[slot];
    if (s.entry < 0) break;
    if (s.tag == tag && definitions_[static_cast<size_t>(s.entry)].name == name) break;
    slot = (slot + 1) & mask;
  }
  return static_cast<int>(slot);
}

int TextView::AddDefinition(std::string_view name, int line, int end, int rank) const {
  candidates_.push_back(Definition{name, line, end, rank});
  return static_cast<int>(candidates_.size()) - 1;
}

void TextView::BuildDefinitions() const {
  definitions_.clear();
  definition_slots_.clear();
  candidates_.clear();
  definitions_built_ = true;
  ScanDefinitions();
  size_t slots = 64;
  while (slots < candidates_.size() * 2) slots *= 2;
  definition_slots_.assign(slots, DefinitionSlot{});
  definitions_.reserve(candidates_.size());
  std::vector<size_t> hashes(candidates_.size());
  for (size_t k = 0; k < candidates_.size(); ++k) {
    hashes[k] = std::hash<std::string_view>()(candidates_[k].name);
  }
  constexpr size_t kAhead = 16;
  const size_t mask = slots - 1;
  for (size_t k = 0; k < candidates_.size(); ++k) {
    if (k + kAhead < candidates_.size())
      __builtin_prefetch(&definition_slots_[hashes[k + kAhead] & mask]);
    const Definition& candidate = candidates_[k];
    DefinitionSlot& slot =
        definition_slots_[static_cast<size_t>(SlotOf(candidate.name, hashes[k]))];
    if (slot.entry < 0) {
      slot = DefinitionSlot{static_cast<uint32_t>(hashes[k] >> 32),
                            static_cast<int>(definitions_.size())};
      definitions_.push_back(candidate);
    } else if (candidate.rank < definitions_[static_cast<size_t>(slot.entry)].rank) {
      definitions_[static_cast<size_t>(slot.entry)] = candidate;  // a body over a prototype
    }
  }
  candidates_.clear();
  candidates_.shrink_to_fit();
}

void TextView::ScanDefinitions() const {
  const int count = line_count();
  // A block (computation, function, kernel) stays open until its closing line.
  int open = -1;
  auto close = [&](int end) {
    if (open >= 0) candidates_[static_cast<size_t>(open)].end = end;
    open = -1;
  };
  auto open_block = [&](std::string_view name, int line, int rank) {
    close(line - 1);
    open = AddDefinition(name, line, line, rank);
  };
  int last_content = -1;  // the last line that is not blank
  switch (language_) {
    case TextLanguage::kHlo:
      for (int i = 0; i < count; ++i) {
        string_view l = Line(i);
        if (l.empty()) continue;
        if (l[0] == '}') {
          close(i);
          continue;
        }
        if (!IsSpace(l[0]) && TrimRight(l).back() == '{') {
          // "ENTRY %main.5 (p: f32[8]) -> f32[8] {", "region_0.1 {"
          string_view rest = l;
          if (StartsWith(rest, "ENTRY ")) rest = TrimLeft(rest.substr(6));
          if (!rest.empty() && rest[0] == '%') rest.remove_prefix(1);
          const int end = ScanHloName(rest, 0);
          if (end > 0 && IsHloNameStart(rest[0])) {
            string_view after = TrimLeft(rest.substr(static_cast<size_t>(end)));
            if (!after.empty() && (after[0] == '(' || after[0] == '{')) {
              open_block(rest.substr(0, static_cast<size_t>(end)), i, 0);
              continue;
            }
          }
        }
        // "  %add.3 = f32[8] add(...)", "  ROOT tuple.5 = (...) tuple(...)"
        string_view rest = TrimLeft(l);
        if (StartsWith(rest, "ROOT ")) rest = TrimLeft(rest.substr(5));
        if (!rest.empty() && rest[0] == '%') rest.remove_prefix(1);
        const int end = ScanHloName(rest, 0);
        if (end == 0 || !IsHloNameStart(rest[0])) continue;
        string_view after = TrimLeft(rest.substr(static_cast<size_t>(end)));
        if (!after.empty() && after[0] == '=' && (after.size() < 2 || after[1] != '=')) {
          AddDefinition(rest.substr(0, static_cast<size_t>(end)), i, i, 1);
        }
      }
      close(count - 1);
      break;
    case TextLanguage::kLlvmIr:
      for (int i = 0; i < count; ++i) {
        string_view l = Line(i);
        if (l.empty()) continue;
        if (l[0] == '}') {
          close(i);
        } else if (StartsWith(l, "define ")) {
          string_view name = LlvmFunctionName(l);
          if (!name.empty()) open_block(name, i, 0);
        } else if (StartsWith(l, "declare ")) {
          string_view name = LlvmFunctionName(l);
          if (!name.empty()) AddDefinition(name, i, i, 2);
        } else if (l[0] == '@' || l[0] == '%') {
          // A global ("@buffer = constant ...") or a named type ("%struct.x = type {...}").
          int end = l.size() > 1 && l[1] == '"' ? SkipString(l, 1) : ScanLlvmName(l, 1);
          string_view after = TrimLeft(l.substr(static_cast<size_t>(end)));
          if (end > 1 && StartsWith(after, "=")) {
            AddDefinition(StripSigil(l.substr(0, static_cast<size_t>(end))), i, i, 1);
          }
        }
      }
      close(count - 1);
      break;
    case TextLanguage::kPtx: {
      string_view header;  // an .entry / .func whose body or ';' has not come yet
      int header_line = -1;
      for (int i = 0; i < count; ++i) {
        string_view l = Line(i);
        string_view t = Trim(l);
        if (!l.empty() && l[0] == '}') {
          close(i);
          continue;
        }
        if (header_line < 0) {
          string_view name = PtxEntryName(t);
          if (!name.empty()) {
            header = name;
            header_line = i;
            t = t.substr(t.find(name) + name.size());  // the rest may hold '{' or ';'
          }
        }
        if (header_line >= 0) {
          string_view code = TrimRight(t.substr(0, t.find("//")));
          if (StartsWith(t, ".param")) {
            string_view param = PtxDeclaredName(t);
            if (!param.empty()) AddDefinition(param, i, i, 3);
          }
          if (code.find('{') != string_view::npos) {
            open_block(header, header_line, 0);
            header_line = -1;
          } else if (!code.empty() && code.back() == ';') {
            AddDefinition(header, header_line, i, 2);  // a prototype: .extern .func f(...);
            header_line = -1;
          }
          continue;
        }
        if (!l.empty() && (IsAlpha(l[0]) || l[0] == '_' || l[0] == '$')) {
          const int end = ScanPtxName(l, 0);
          if (end < Size(l) && l[end] == ':')
            AddDefinition(l.substr(0, static_cast<size_t>(end)), i, i, 1);
          continue;
        }
        if (IsPtxVariableDeclaration(t)) {
          string_view name = PtxDeclaredName(t);
          if (!name.empty()) AddDefinition(name, i, i, 3);
        }
      }
      close(count - 1);
      break;
    }
    case TextLanguage::kAsm: {
      bool function_end_seen = false;  // .Lfunc_end: the .size directive may follow
      for (int i = 0; i < count; ++i) {
        string_view l = Line(i);
        string_view label = AsmLabel(l);
        string_view t = Trim(l);
        if (function_end_seen) {
          if (StartsWith(t, ".size")) close(i);
          close(last_content);
          function_end_seen = false;
        }
        if (StartsWith(t, "Function : ")) {  // SASS: up to the next function
          string_view name = Trim(t.substr(11));
          if (!name.empty()) {
            close(last_content);
            open_block(name, i, 0);
          }
        } else if (!label.empty()) {
          if (StartsWith(label, ".L")) {
            AddDefinition(label, i, i, 1);
            if (StartsWith(label, ".Lfunc_end") && open >= 0) function_end_seen = true;
          } else {
            close(last_content);
            open_block(label, i, 0);
          }
        } else if (open >= 0 && StartsWith(t, ".size")) {
          close(i);
        }
        if (!t.empty()) last_content = i;
      }
      close(last_content);
      break;
    }
    case TextLanguage::kPlain:
    case TextLanguage::kDiff:
      break;
  }
}

int TextView::FindDefinition(std::string_view name) const { return DefinitionRange(name).first; }

std::pair<int, int> TextView::DefinitionRange(std::string_view name) const {
  if (!definitions_built_) BuildDefinitions();
  name = StripSigil(name);
  if (name.empty()) return {-1, -1};
  const int entry =
      definition_slots_[static_cast<size_t>(SlotOf(name, std::hash<std::string_view>()(name)))]
          .entry;
  if (entry < 0) return {-1, -1};
  const Definition& d = definitions_[static_cast<size_t>(entry)];
  return {d.line, std::max(d.line, d.end)};
}

int TextView::FindLocalDefinition(std::string_view name, int near_line) const {
  if (language_ != TextLanguage::kLlvmIr || name.empty()) return -1;
  int start = -1;
  for (int i = std::min(near_line, line_count() - 1); i >= 0; --i) {
    string_view l = Line(i);
    if (StartsWith(l, "define ")) {
      start = i;
      break;
    }
    if (i != near_line && StartsWith(l, "}")) return -1;
  }
  if (start < 0) return -1;
  const std::string local = "%" + std::string(name);
  auto is_local_at = [&](string_view l, size_t at) {
    const size_t after = at + local.size();
    return l.substr(at, local.size()) == local && (after >= l.size() || !IsLlvmNameChar(l[after]));
  };
  for (int i = start; i < line_count(); ++i) {
    string_view l = Line(i);
    if (i > start && StartsWith(l, "}")) break;
    if (i == start) {  // a parameter: "define void @f(ptr %0, i64 %1)"
      for (size_t at = l.find(local); at != string_view::npos; at = l.find(local, at + 1)) {
        if (is_local_at(l, at)) return i;
      }
      continue;
    }
    string_view t = TrimLeft(l);
    if (is_local_at(t, 0) && StartsWith(TrimLeft(t.substr(local.size())), "=")) return i;
    if (StartsWith(l, name) && l.size() > name.size() && l[name.size()] == ':') return i;
  }
  return -1;
}

std::optional<TextView::Target> TextView::TargetAt(int line, int column) const {
  string_view l = Line(line);
  if (column < 0 || column >= Size(l)) return std::nullopt;
  for (const Token& t : Tokenize(l, language_)) {
    if (column < t.begin || column >= t.end) continue;
    if (t.kind != TokenKind::kName) return std::nullopt;
    string_view name =
        StripSigil(l.substr(static_cast<size_t>(t.begin), static_cast<size_t>(t.end - t.begin)));
    if (name.empty()) return std::nullopt;
    Target target;
    target.name = std::string(name);
    target.token = t;
    target.line = FindDefinition(name);
    target.global = target.line >= 0;
    // An LLVM %local: its definition in the enclosing function comes first, since the
    // same "%5" is defined in every function.
    if (language_ == TextLanguage::kLlvmIr && l[static_cast<size_t>(t.begin)] == '%') {
      int local = FindLocalDefinition(name, line);
      if (local >= 0) {
        target.line = local;
        target.global = false;
      }
    }
    return target;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------
// TextView: highlight, scrolling, search

void TextView::SetHighlight(const std::vector<std::string>& names) {
  highlight_names_ = names;
  RecomputeHighlight();
  scroll_to_highlight_ = highlight_first_line_ >= 0;
}

void TextView::RecomputeHighlight() {
  highlight_ranges_.clear();
  highlight_first_line_ = -1;
  for (const std::string& name : highlight_names_) {
    std::pair<int, int> range = DefinitionRange(name);
    if (range.first < 0) continue;
    if (std::find(highlight_ranges_.begin(), highlight_ranges_.end(), range) !=
        highlight_ranges_.end()) {
      continue;
    }
    highlight_ranges_.push_back(range);
  }
  if (!highlight_ranges_.empty()) highlight_first_line_ = highlight_ranges_.front().first;
}

void TextView::ScrollToLine(int line) {
  if (line_count() == 0) return;
  scroll_to_line_ = std::clamp(line, 0, line_count() - 1);
  scroll_to_column_ = -1;
}

void TextView::SetSearch(std::string query) {
  query.erase(
      std::remove_if(query.begin(), query.end(), [](char c) { return c == '\n' || c == '\r'; }),
      query.end());
  search_ = std::move(query);
  const size_t copied = std::min(search_.size(), sizeof(search_buffer_) - 1);
  std::memcpy(search_buffer_, search_.data(), copied);
  search_buffer_[copied] = '\0';
  if (!search_.empty()) search_open_ = true;
  RecomputeMatches();
  if (matches_.empty()) return;
  // The first match at or below the top of the view, as editors do.
  const int top = last_visible_.first;
  auto it = std::lower_bound(matches_.begin(), matches_.end(), top,
                             [](const Match& m, int line) { return m.line < line; });
  current_match_ = it == matches_.end() ? 0 : static_cast<int>(it - matches_.begin());
  scroll_to_line_ = matches_[static_cast<size_t>(current_match_)].line;
  scroll_to_column_ = matches_[static_cast<size_t>(current_match_)].column;
}

void TextView::RecomputeMatches() {
  matches_.clear();
  current_match_ = -1;
  if (search_.empty()) return;
  std::string lower(search_.size(), '\0');
  std::transform(search_.begin(), search_.end(), lower.begin(), ToLower);
  auto equal = [](char a, char b) { return ToLower(a) == b; };
  for (int i = 0; i < line_count(); ++i) {
    string_view l = Line(i);
    auto from = l.begin();
    while (true) {
      auto found = std::search(from, l.end(), lower.begin(), lower.end(), equal);
      if (found == l.end()) break;
      matches_.push_back(Match{i, static_cast<int>(found - l.begin())});
      from = found + static_cast<std::ptrdiff_t>(lower.size());
    }
  }
}

void TextView::NextMatch(int direction) {
  if (matches_.empty()) return;
  const int n = match_count();
  if (current_match_ < 0) {
    current_match_ = direction >= 0 ? 0 : n - 1;
  } else {
    current_match_ = ((current_match_ + (direction >= 0 ? 1 : -1)) % n + n) % n;
  }
  scroll_to_line_ = matches_[static_cast<size_t>(current_match_)].line;
  scroll_to_column_ = matches_[static_cast<size_t>(current_match_)].column;
}

std::string TextView::search_status() const {
  if (search_.empty()) return "";
  if (matches_.empty()) return "no matches";
  return std::to_string(current_match_ + 1) + " of " + std::to_string(matches_.size());
}

std::pair<int, int> TextView::match_position(int index) const {
  if (index < 0 || index >= match_count()) return {-1, -1};
  const Match& m = matches_[static_cast<size_t>(index)];
  return {m.line, m.column};
}

void TextView::CloseSearch() {
  search_open_ = false;
  focus_search_ = false;
  search_.clear();  // the box keeps its text for Ctrl+F to bring back
  matches_.clear();
  current_match_ = -1;
}

std::optional<TextView::ScreenRect> TextView::CharRect(int line, int column) const {
  if (line < last_visible_.first || line >= last_visible_.second || line_height_ <= 0 ||
      column < 0 || column > static_cast<int>(Line(line).size())) {
    return std::nullopt;
  }
  const float x = origin_x_ + static_cast<float>(ColumnOfByte(Line(line), column)) * char_width_;
  if (x < text_clip_min_x_ - 0.5f || x + char_width_ > text_clip_max_x_ + 0.5f) return std::nullopt;
  const float y = origin_y_ + static_cast<float>(line) * line_height_;
  return ScreenRect{x, y, x + char_width_, y + line_height_};
}

void TextView::CopyToClipboard(const std::string& text) const {
  ImGui::SetClipboardText(text.c_str());
}

// ---------------------------------------------------------------------------------------
// TextView: drawing

void TextView::HandleKeys() {
  ImGuiIO& io = ImGui::GetIO();
  if (!pane_focused_ && !search_active_) return;
  if (io.KeyCtrl && ImGui::IsKeyPressed('F', false)) {  // GLFW_KEY_F
    search_open_ = true;
    focus_search_ = true;
    if (search_.empty() && search_buffer_[0] != '\0') SetSearch(search_buffer_);
  }
  if (search_open_ && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false)) {
    CloseSearch();
  }
  if (ImGui::IsKeyPressed(kGlfwKeyF3)) NextMatch(io.KeyShift ? -1 : 1);
  if (!pane_focused_) return;  // the rest belongs to the search box while it is active
  if (search_open_ && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Enter))) {
    NextMatch(io.KeyShift ? -1 : 1);
  }
  if (io.KeyCtrl && ImGui::IsKeyPressed('C', false) && cursor_line_ >= 0) {  // GLFW_KEY_C
    CopyToClipboard(std::string(Line(cursor_line_)));
  }
  const float page = std::max(line_height_, view_height_ - line_height_);
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_PageDown)))
    pending_scroll_y_ = scroll_y_ + page;
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_PageUp))) {
    pending_scroll_y_ = std::max(0.0f, scroll_y_ - page);
  }
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Home), false)) pending_scroll_y_ = 0;
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_End), false)) {
    pending_scroll_y_ = static_cast<float>(line_count()) * std::max(1.0f, line_height_);
  }
}

void TextView::DrawSearchBar() {
  ImGuiIO& io = ImGui::GetIO();
  if (focus_search_) {
    ImGui::SetKeyboardFocusHere();
    focus_search_ = false;
  }
  ImGui::SetNextItemWidth(
      std::min(320.0f, std::max(80.0f, ImGui::GetContentRegionAvail().x * 0.5f)));
  const bool enter =
      ImGui::InputTextWithHint("##find", "find (case-insensitive)", search_buffer_,
                               sizeof(search_buffer_), ImGuiInputTextFlags_EnterReturnsTrue);
  const bool edited = ImGui::IsItemEdited();
  search_active_ = ImGui::IsItemActive();
  if (edited) SetSearch(search_buffer_);
  if (enter) {
    NextMatch(io.KeyShift ? -1 : 1);
    // Enter ends a single-line edit in ImGui; keep typing in the box.
    ImGui::SetKeyboardFocusHere(-1);
    search_active_ = true;
  }
  ImGui::SameLine();
  std::string status = search_status();
  if (matches_.empty() && !search_.empty()) {
    ImGui::TextColored(ImVec4(0.95f, 0.45f, 0.45f, 1.0f), "%s", status.c_str());
  } else {
    ImGui::TextUnformatted(status.c_str());
  }
  ImGui::SameLine();
  if (ImGui::ArrowButton("##previous", ImGuiDir_Up)) NextMatch(-1);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Previous match (Shift+Enter)");
  ImGui::SameLine();
  if (ImGui::ArrowButton("##next", ImGuiDir_Down)) NextMatch(1);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Next match (Enter, F3)");
  ImGui::SameLine();
  if (ImGui::SmallButton("x")) CloseSearch();
}

std::optional<std::string> TextView::Draw(const char* id) {
  std::optional<std::string> clicked;
  ImGuiIO& io = ImGui::GetIO();
  ImGui::PushID(id);
  HandleKeys();
  if (search_open_) {
    DrawSearchBar();
  } else {
    search_active_ = false;
  }

  const float line_h = ImGui::GetTextLineHeightWithSpacing();
  const float font_h = ImGui::GetFontSize();
  // The glyph advance itself: CalcTextSize rounds widths up to whole pixels, which would
  // drift tokens apart by a fraction of a pixel per character.
  const float cw = std::max(1.0f, ImGui::GetFont()->GetCharAdvance('M') * ImGui::GetFontSize() /
                                      ImGui::GetFont()->FontSize);
  const float pad = std::floor(cw * 0.5f) + 2;
  const float gutter_w = static_cast<float>(std::max(3, DecimalDigits(line_count())) + 1) * cw + pad;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float content_w = gutter_w + pad + static_cast<float>(max_columns_ + 2) * cw;
  const float content_h = static_cast<float>(line_count()) * line_h;

  // Scroll requests go in before BeginChild so they apply in this frame (ImGui's
  // SetNextWindowScroll, with the explicit content size making the scroll range known).
  const bool h_scrollbar = content_w > avail.x;
  const float view_h =
      std::max(line_h, avail.y - (h_scrollbar ? ImGui::GetStyle().ScrollbarSize : 0.0f));
  const float text_w = std::max(cw, avail.x - gutter_w - pad);
  float target_x = -1;
  float target_y = -1;
  if (scroll_to_top_) {
    target_x = 0;
    target_y = 0;
    scroll_to_top_ = false;
  }
  const float current_y = target_y >= 0 ? target_y : scroll_y_;
  auto line_visible = [&](int line) {
    const float y = static_cast<float>(line) * line_h;
    return y >= current_y && y + line_h <= current_y + view_h;
  };
  if (pending_scroll_y_ >= 0) {
    target_y = pending_scroll_y_;
    pending_scroll_y_ = -1;
  }
  if (scroll_to_highlight_ && !highlight_ranges_.empty()) {
    const auto [first, last] = highlight_ranges_.front();
    if (!line_visible(first) ||
        !line_visible(std::min(last, first + static_cast<int>(view_h / line_h) - 2))) {
      target_y = std::max(0.0f, static_cast<float>(first - 2) * line_h);
    }
  }
  scroll_to_highlight_ = false;
  if (scroll_to_line_ >= 0 && scroll_to_line_ < line_count()) {
    if (!line_visible(scroll_to_line_)) {
      target_y =
          std::max(0.0f, static_cast<float>(scroll_to_line_) * line_h - (view_h - line_h) * 0.5f);
    }
    if (scroll_to_column_ >= 0) {
      const float x =
          static_cast<float>(ColumnOfByte(Line(scroll_to_line_), scroll_to_column_)) * cw;
      const float current_x = target_x >= 0 ? target_x : scroll_x_;
      if (x < current_x || x + cw * 8 > current_x + text_w) {
        target_x = std::max(0.0f, x - text_w / 3);
      }
    }
  }
  scroll_to_line_ = -1;
  scroll_to_column_ = -1;
  if (target_x >= 0 || target_y >= 0) ImGui::SetNextWindowScroll(ImVec2(target_x, target_y));
  ImGui::SetNextWindowContentSize(ImVec2(content_w, content_h));
  ImGui::BeginChild("##text", ImVec2(0, 0), false,
                    ImGuiWindowFlags_HorizontalScrollbar | ImGuiWindowFlags_NoNavInputs);

  ImGuiWindow* window = ImGui::GetCurrentWindow();
  ImDrawList* draw_list = ImGui::GetWindowDrawList();
  pane_focused_ = ImGui::IsWindowFocused();
  const ImRect inner = window->InnerRect;  // the visible area, without scrollbars
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  scroll_x_ = ImGui::GetScrollX();
  scroll_y_ = ImGui::GetScrollY();
  line_height_ = line_h;
  char_width_ = cw;
  gutter_width_ = gutter_w;
  origin_y_ = origin.y;
  origin_x_ = origin.x + gutter_w + pad;
  text_clip_min_x_ = inner.Min.x + gutter_w;
  text_clip_max_x_ = inner.Max.x;
  view_height_ = inner.GetHeight();
  view_width_ = std::max(0.0f, inner.GetWidth() - gutter_w);
  const float text_dy = (line_h - font_h) * 0.5f;

  // What the mouse is over: a line, and on it maybe a name.
  const ImVec2 mouse = io.MousePos;
  const bool hovered = ImGui::IsWindowHovered() && inner.Contains(mouse);
  int mouse_line = -1;
  std::optional<Target> hover;
  if (hovered) {
    mouse_line = static_cast<int>(std::floor((mouse.y - origin_y_) / line_h));
    if (mouse_line < 0 || mouse_line >= line_count()) mouse_line = -1;
  }
  if (mouse_line >= 0 && mouse.x >= text_clip_min_x_) {
    const int col = static_cast<int>(std::floor((mouse.x - origin_x_) / cw));
    if (col >= 0) hover = TargetAt(mouse_line, ByteAtColumn(Line(mouse_line), col));
  }

  draw_list->AddRectFilled(inner.Min, ImVec2(inner.Min.x + gutter_w, inner.Max.y),
                           kGutterBackground);
  draw_list->PushClipRect(ImVec2(text_clip_min_x_, inner.Min.y), inner.Max, true);
  const size_t query_size = search_.size();
  std::vector<std::pair<int, int>> drawn;
  ImGuiListClipper clipper;
  clipper.Begin(line_count(), line_h);
  while (clipper.Step()) {
    drawn.emplace_back(clipper.DisplayStart, clipper.DisplayEnd);
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const string_view line = Line(i);
      const float y = origin_y_ + static_cast<float>(i) * line_h;
      const ImVec2 row_min(text_clip_min_x_, y);
      const ImVec2 row_max(text_clip_max_x_, y + line_h);
      if (language_ == TextLanguage::kDiff) {
        if (StartsWith(line, "+") && !StartsWith(line, "+++")) {
          draw_list->AddRectFilled(row_min, row_max, kAddedLine);
        } else if (StartsWith(line, "-") && !StartsWith(line, "---")) {
          draw_list->AddRectFilled(row_min, row_max, kRemovedLine);
        }
      }
      for (size_t r = 0; r < highlight_ranges_.size(); ++r) {
        if (i >= highlight_ranges_[r].first && i <= highlight_ranges_[r].second) {
          draw_list->AddRectFilled(row_min, row_max, r == 0 ? kHighlightFirst : kHighlightOther);
        }
      }
      if (i == cursor_line_) draw_list->AddRectFilled(row_min, row_max, kCursorLine);
      if (!matches_.empty()) {
        auto it = std::lower_bound(matches_.begin(), matches_.end(), i,
                                   [](const Match& m, int l) { return m.line < l; });
        for (; it != matches_.end() && it->line == i; ++it) {
          const float x0 = origin_x_ + static_cast<float>(ColumnOfByte(line, it->column)) * cw;
          const float x1 = origin_x_ + static_cast<float>(ColumnOfByte(
                                           line, it->column + static_cast<int>(query_size))) *
                                           cw;
          const bool current = it - matches_.begin() == current_match_;
          draw_list->AddRectFilled(ImVec2(x0, y), ImVec2(std::max(x1, x0 + 2), y + line_h),
                                   current ? kCurrentMatch : kMatch);
        }
      }
      if (!line.empty()) {
        DrawColouredLine(draw_list, origin_x_, y + text_dy, cw, line, Tokenize(line, language_),
                         text_clip_min_x_, text_clip_max_x_);
      }
      if (hover && hover->line >= 0 && i == mouse_line) {
        const float x0 =
            origin_x_ + static_cast<float>(ColumnOfByte(line, hover->token.begin)) * cw;
        const float x1 = origin_x_ + static_cast<float>(ColumnOfByte(line, hover->token.end)) * cw;
        const float underline = y + text_dy + font_h;
        draw_list->AddLine(ImVec2(x0, underline), ImVec2(x1, underline),
                           TokenColor(TokenKind::kName), 1.0f);
      }
    }
  }
  draw_list->PopClipRect();
  if (drawn.empty()) {
    last_visible_ = {0, 0};
  } else {
    last_visible_ = {drawn.front().first, drawn.front().second};
    for (const auto& [begin, end] : drawn) {
      last_visible_.first = std::min(last_visible_.first, begin);
      last_visible_.second = std::max(last_visible_.second, end);
    }
  }
  // Line numbers, in the gutter that does not scroll sideways.
  const ImU32 number_colour = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const ImU32 current_colour = ImGui::GetColorU32(ImGuiCol_Text);
  char number[16];
  for (const auto& [begin, end] : drawn) {
    for (int i = begin; i < end; ++i) {
      const int len = std::snprintf(number, sizeof(number), "%d", i + 1);
      const float x = inner.Min.x + gutter_w - pad - static_cast<float>(len) * cw;
      bool strong = i == cursor_line_;
      for (const auto& range : highlight_ranges_) strong |= i >= range.first && i <= range.second;
      draw_list->AddText(ImVec2(x, origin_y_ + static_cast<float>(i) * line_h + text_dy),
                         strong ? current_colour : number_colour, number, number + len);
    }
  }

  // The mouse: hand and definition tooltip over a name that leads somewhere, click to go.
  if (hover && hover->line >= 0) {
    ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);
    if (hover_line_ == mouse_line && hover_begin_ == hover->token.begin) {
      hover_time_ += io.DeltaTime;
    } else {
      hover_line_ = mouse_line;
      hover_begin_ = hover->token.begin;
      hover_time_ = 0;
    }
    if (hover_time_ > 0.5f && hover->line != mouse_line && !ImGui::IsMouseDown(0)) {
      std::string definition(Trim(Line(hover->line)).substr(0, 160));
      ImGui::SetTooltip("line %d: %s", hover->line + 1, definition.c_str());
    }
  } else {
    hover_line_ = -1;
    hover_begin_ = -1;
    hover_time_ = 0;
  }
  auto go_to = [&](const Target& target) {
    if (target.line < 0) return;
    cursor_line_ = target.line;
    scroll_to_line_ = target.line;
    scroll_to_column_ = 0;
    if (target.global) clicked = target.name;
  };
  if (hovered && ImGui::IsMouseClicked(0)) {
    if (mouse_line >= 0) cursor_line_ = mouse_line;
    if (hover) go_to(*hover);
  }
  if (hovered && ImGui::IsMouseClicked(1) && mouse_line >= 0) {
    cursor_line_ = mouse_line;
    context_line_ = mouse_line;
    context_target_ = hover;
    ImGui::OpenPopup("##context");
  }
  if (ImGui::BeginPopup("##context")) {
    const std::string name = context_target_ ? context_target_->name : "";
    if (ImGui::MenuItem("Copy line", "Ctrl+C", false, context_line_ >= 0)) {
      CopyToClipboard(std::string(Line(context_line_)));
    }
    if (ImGui::MenuItem("Copy name", nullptr, false, !name.empty())) {
      CopyToClipboard(name);
    }
    if (ImGui::MenuItem("Go to definition", nullptr, false,
                        context_target_ && context_target_->line >= 0)) {
      go_to(*context_target_);
    }
    if (ImGui::MenuItem("Find name", "Ctrl+F", false, !name.empty())) {
      SetSearch(name);
      focus_search_ = true;
    }
    ImGui::Separator();
    if (ImGui::MenuItem("Copy all", nullptr, false, !text_.empty())) CopyToClipboard(text_);
    ImGui::EndPopup();
  }
  ImGui::EndChild();
  ImGui::PopID();
  return clicked;
}

}  // namespace fusebox::viewers
