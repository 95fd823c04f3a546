// The definition index's scanners (text_definitions.h), one per language, and the LLVM
// IR %local lookup that walks the function around a line.
#include "viewers/text_definitions.h"

#include <algorithm>
#include <string>

#include "viewers/text_scan_internal.h"

namespace fusebox::viewers {

namespace {

using namespace text_internal;

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

// Collects definitions in line order. A block (computation, function, kernel) stays open
// until its closing line; opening the next one closes it on the line before.
class DefinitionSink {
 public:
  // Adds a definition; returns its index (for the end of a block to be filled in).
  int Add(string_view name, int line, int end, int rank) {
    definitions_.push_back(TextDefinition{name, line, end, rank});
    return static_cast<int>(definitions_.size()) - 1;
  }
  void Open(string_view name, int line, int rank) {
    Close(line - 1);
    open_ = Add(name, line, line, rank);
  }
  void Close(int end) {
    if (open_ >= 0) definitions_[static_cast<size_t>(open_)].end = end;
    open_ = -1;
  }
  bool is_open() const { return open_ >= 0; }
  std::vector<TextDefinition> Finish() { return std::move(definitions_); }

 private:
  std::vector<TextDefinition> definitions_;
  int open_ = -1;
};

// HLO: computations ("ENTRY %main.5 (p: f32[8]) -> f32[8] {", "region_0.1 {") up to
// their '}', instructions ("%add.3 = ...", "ROOT tuple.5 = ...") on their line.
void ScanHloDefinitions(const TextLines& lines, DefinitionSink& out) {
  const int count = lines.count();
  for (int i = 0; i < count; ++i) {
    string_view l = lines.Line(i);
    if (l.empty()) continue;
    if (l[0] == '}') {
      out.Close(i);
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
          out.Open(rest.substr(0, static_cast<size_t>(end)), i, 0);
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
      out.Add(rest.substr(0, static_cast<size_t>(end)), i, i, 1);
    }
  }
  out.Close(count - 1);
}

// LLVM IR: "define"d functions up to their '}', "declare"d ones, @globals and named types.
void ScanLlvmDefinitions(const TextLines& lines, DefinitionSink& out) {
  const int count = lines.count();
  for (int i = 0; i < count; ++i) {
    string_view l = lines.Line(i);
    if (l.empty()) continue;
    if (l[0] == '}') {
      out.Close(i);
    } else if (StartsWith(l, "define ")) {
      string_view name = LlvmFunctionName(l);
      if (!name.empty()) out.Open(name, i, 0);
    } else if (StartsWith(l, "declare ")) {
      string_view name = LlvmFunctionName(l);
      if (!name.empty()) out.Add(name, i, i, 2);
    } else if (l[0] == '@' || l[0] == '%') {
      // A global ("@buffer = constant ...") or a named type ("%struct.x = type {...}").
      int end = l.size() > 1 && l[1] == '"' ? SkipString(l, 1) : ScanLlvmName(l, 1);
      string_view after = TrimLeft(l.substr(static_cast<size_t>(end)));
      if (end > 1 && StartsWith(after, "=")) {
        out.Add(StripSigil(l.substr(0, static_cast<size_t>(end))), i, i, 1);
      }
    }
  }
  out.Close(count - 1);
}

// PTX: .entry / .func bodies (a header may span lines up to its '{' or, for a prototype,
// its ';') with their .param names, labels, and state-space variables.
void ScanPtxDefinitions(const TextLines& lines, DefinitionSink& out) {
  const int count = lines.count();
  string_view header;  // an .entry / .func whose body or ';' has not come yet
  int header_line = -1;
  for (int i = 0; i < count; ++i) {
    string_view l = lines.Line(i);
    string_view t = Trim(l);
    if (!l.empty() && l[0] == '}') {
      out.Close(i);
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
        if (!param.empty()) out.Add(param, i, i, 3);
      }
      if (code.find('{') != string_view::npos) {
        out.Open(header, header_line, 0);
        header_line = -1;
      } else if (!code.empty() && code.back() == ';') {
        out.Add(header, header_line, i, 2);  // a prototype: .extern .func f(...);
        header_line = -1;
      }
      continue;
    }
    if (!l.empty() && (IsAlpha(l[0]) || l[0] == '_' || l[0] == '$')) {
      const int end = ScanPtxName(l, 0);
      if (end < Size(l) && l[end] == ':') out.Add(l.substr(0, static_cast<size_t>(end)), i, i, 1);
      continue;
    }
    if (IsPtxVariableDeclaration(t)) {
      string_view name = PtxDeclaredName(t);
      if (!name.empty()) out.Add(name, i, i, 3);
    }
  }
  out.Close(count - 1);
}

// Assembly: a function from its label (or SASS's "Function : name") to its .size
// directive, the next function or its last line; local labels (.LBB0_3) on their line.
void ScanAsmDefinitions(const TextLines& lines, DefinitionSink& out) {
  const int count = lines.count();
  int last_content = -1;           // the last line that is not blank
  bool function_end_seen = false;  // .Lfunc_end: the .size directive may follow
  for (int i = 0; i < count; ++i) {
    string_view l = lines.Line(i);
    string_view label = AsmLabel(l);
    string_view t = Trim(l);
    if (function_end_seen) {
      if (StartsWith(t, ".size")) out.Close(i);
      out.Close(last_content);
      function_end_seen = false;
    }
    if (StartsWith(t, "Function : ")) {  // SASS: up to the next function
      string_view name = Trim(t.substr(11));
      if (!name.empty()) {
        out.Close(last_content);
        out.Open(name, i, 0);
      }
    } else if (!label.empty()) {
      if (StartsWith(label, ".L")) {
        out.Add(label, i, i, 1);
        if (StartsWith(label, ".Lfunc_end") && out.is_open()) function_end_seen = true;
      } else {
        out.Close(last_content);
        out.Open(label, i, 0);
      }
    } else if (out.is_open() && StartsWith(t, ".size")) {
      out.Close(i);
    }
    if (!t.empty()) last_content = i;
  }
  out.Close(last_content);
}

}  // namespace

std::string_view TextLines::Line(int line) const {
  if (line < 0 || line >= count()) return {};
  const std::vector<int64_t>& starts = *line_starts;
  const size_t begin = static_cast<size_t>(starts[static_cast<size_t>(line)]);
  size_t end = line + 1 < count() ? static_cast<size_t>(starts[static_cast<size_t>(line) + 1]) - 1
                                  : text.size();
  if (end > begin && text[end - 1] == '\n') --end;
  if (end > begin && text[end - 1] == '\r') --end;
  return text.substr(begin, end - begin);
}

std::vector<TextDefinition> ScanDefinitions(const TextLines& lines, TextLanguage language) {
  DefinitionSink out;
  switch (language) {
    case TextLanguage::kHlo:
      ScanHloDefinitions(lines, out);
      break;
    case TextLanguage::kLlvmIr:
      ScanLlvmDefinitions(lines, out);
      break;
    case TextLanguage::kPtx:
      ScanPtxDefinitions(lines, out);
      break;
    case TextLanguage::kAsm:
      ScanAsmDefinitions(lines, out);
      break;
    case TextLanguage::kPlain:
    case TextLanguage::kDiff:
      break;
  }
  return out.Finish();
}

int FindLlvmLocalDefinition(const TextLines& lines, std::string_view name, int near_line) {
  if (name.empty()) return -1;
  int start = -1;
  for (int i = std::min(near_line, lines.count() - 1); i >= 0; --i) {
    string_view l = lines.Line(i);
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
  for (int i = start; i < lines.count(); ++i) {
    string_view l = lines.Line(i);
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

}  // namespace fusebox::viewers
