// Imports the binary HLO protos XLA writes: an HloModuleProto, an HloProto (what
// `--xla_dump_hlo_as_proto` dumps as `*.hlo.pb`) or an HloSnapshot (a module with the
// arguments it ran on), plain or gzip-compressed. The module is turned into HLO text
// in XLA's syntax and parsed with Fusebox's own parser, so a proto and its `.txt` twin
// load into the same Module. See docs/hlo-protos.md.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/literal.h"
#include "compiler/ir/module.h"
#include "compiler/support/status.h"

namespace fusebox::xla {
class HloModuleProto;
class LiteralProto;
}  // namespace fusebox::xla

namespace fusebox::importers {

struct LoadedFile;  // importers/module_loader.h

enum class HloProtoKind { kModule, kHloProto, kSnapshot };

// "HloModuleProto", "HloProto", "HloSnapshot".
std::string_view HloProtoKindName(HloProtoKind kind);

struct ProtoImport {
  HloProtoKind kind = HloProtoKind::kModule;
  std::string hlo_text;               // the module as HLO text (XLA's syntax)
  std::unique_ptr<Module> module;     // hlo_text parsed by Fusebox's parser
  std::vector<Literal> arguments;     // HloSnapshot only
  std::optional<Literal> result;      // HloSnapshot only, when it has one
  std::string execution_platform;     // HloSnapshot only
  std::vector<std::string> warnings;  // fields not decoded, parser warnings
};

// Decodes `bytes` (an uncompressed proto). `filename` names the input in messages.
// Errors: "<file>: not an HLO proto (...)", "<file>: truncated at byte N of M ...",
// "<file>: instruction %x ... operand id N names no instruction ...", parser errors.
StatusOr<ProtoImport> ImportHloProto(std::string_view bytes, const std::string& filename);

// Reads `path`, gunzips it when it is gzip-compressed (by content, whatever the name),
// and imports it.
StatusOr<ProtoImport> ImportHloProtoFile(const std::string& path);

// For LoadFile: whether a file should be read as an HLO proto (a `.pb` / `.pb.gz` name,
// gzip content, or binary content), and the import as a LoadedFile (one module, the
// snapshot's arguments, the import's warnings as notes).
bool LooksLikeHloProtoFile(const std::string& path, std::string_view bytes);
StatusOr<LoadedFile> LoadHloProtoFile(const std::string& path);

// True when `bytes` start with the gzip magic number.
bool IsGzip(std::string_view bytes);

// Inflates a gzip stream; errors name `filename`. Refuses output above `max_bytes`.
StatusOr<std::string> Gunzip(std::string_view bytes, const std::string& filename,
                             int64_t max_bytes = int64_t{4} << 30);

// The HLO text of a decoded module. Warnings about fields that cannot be shown in
// text are appended to `warnings` when given.
StatusOr<std::string> HloModuleProtoToText(const xla::HloModuleProto& module,
                                           const std::string& filename,
                                           std::vector<std::string>* warnings = nullptr);

// A literal from its proto form (snapshot arguments, constants). Values are returned
// in logical (row-major) order whatever the proto's layout.
StatusOr<Literal> LiteralFromProto(const xla::LiteralProto& proto);

}  // namespace fusebox::importers
