// The stage text's languages and their tokenizers: one line at a time, no state across
// lines, so any visible line can be coloured on its own; the names a click can follow;
// display columns (tabs, UTF-8). No ImGui: the text pane (text_view.h) draws with these.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fusebox::viewers {

enum class TextLanguage { kPlain, kHlo, kLlvmIr, kPtx, kAsm, kDiff };

// The language of a stage by its name: "hlo", "optimized_hlo", "xla_pass_0003" and
// anything ending in "hlo" -> kHlo; "*llvm_ir*" -> kLlvmIr; "ptx" -> kPtx; "cpu_asm",
// "xla_asm", "sass" -> kAsm; else kPlain.
TextLanguage LanguageForStage(std::string_view stage);

// One coloured run of a line. kKeyword: HLO's ROOT / ENTRY / attribute keys, LLVM's
// define / declare / linkage and flags, PTX and assembler directives; kOpcode: HLO opcodes,
// LLVM IR instructions (call, load, store, br, ret, ...), PTX instructions, x86 mnemonics;
// kName: names a click can follow (%instr, @function, %local, labels, kernels, symbols);
// kRegister: PTX and x86 registers (%rd4, %rax); kComment also covers HLO metadata={...}
// and LLVM metadata (!3) and attribute groups (#0); kAdded / kRemoved: diff lines.
enum class TokenKind {
  kText,
  kKeyword,
  kName,
  kType,
  kNumber,
  kString,
  kComment,
  kOpcode,
  kAdded,
  kRemoved,
  kRegister,
};
struct Token {
  int begin = 0;  // byte offsets in the line
  int end = 0;
  TokenKind kind = TokenKind::kText;
};
// Splits one line into coloured runs (the tokens cover the line, in order; an empty line
// has none).
std::vector<Token> Tokenize(std::string_view line, TextLanguage language);

// The name a click at byte `column` of `line` refers to, without sigils ("%add.3" ->
// "add.3", "@fusion_2" -> "fusion_2"); nullopt when the column is not on a name.
std::optional<std::string> NameAt(std::string_view line, int column, TextLanguage language);

// Display geometry shared with DiffView (and tests): tabs expand to 4-column stops, each
// UTF-8 character and each byte that is not valid UTF-8 takes one column.
int DisplayColumns(std::string_view line);
// The display column at which byte `byte` starts (the width of the line past its end).
int ColumnOfByte(std::string_view line, int byte);
// The first byte of the character at display `column` (a tab covers all its columns);
// line.size() past the end, 0 for negative columns.
int ByteAtColumn(std::string_view line, int column);

}  // namespace fusebox::viewers
