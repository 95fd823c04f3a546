// --inputs files: .npy lists, .npz archives (read with libarchive) and HloSnapshots (read
// with the HLO proto importer), matched to the entry parameters with messages that name
// both sides of a mismatch.
#include "importers/argument_files.h"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>

#include "compiler/interpreter/npy.h"
#include "importers/hlo_proto.h"

namespace fusebox::importers {

namespace {

struct ArchiveReader {
  void operator()(struct archive* a) const { archive_read_free(a); }
};

bool EndsWith(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The first `count` bytes of a file (fewer when it is shorter; empty when unreadable).
std::string Head(const std::string& path, size_t count) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes(count, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(count));
  bytes.resize(static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return bytes;
}

Status CheckReadable(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return NotFound(path + ": no such file");
  if (std::filesystem::is_directory(path, ec)) {
    return InvalidArgument(path +
                           ": is a folder; --inputs takes .npy files, one .npz or one "
                           "HloSnapshot .pb");
  }
  return Status::Ok();
}

// "parameter 2 (%var.1)", and with the shape "parameter 2 (%var.1, f32[8])".
std::string ParameterWhat(const Instruction* parameter) {
  return "parameter " + std::to_string(parameter->parameter_number()) + " (%" + parameter->name() +
         ")";
}
std::string ParameterWithShape(const Instruction* parameter) {
  return "parameter " + std::to_string(parameter->parameter_number()) + " (%" + parameter->name() +
         ", " + parameter->shape().ToString(false) + ")";
}

// "var.1" -> "var": the name without the ".N" XLA appends to make names unique; empty
// when there is no such suffix.
std::string WithoutNumberSuffix(const std::string& name) {
  const size_t dot = name.rfind('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == name.size()) return "";
  for (size_t i = dot + 1; i < name.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return "";
  }
  return name.substr(0, dot);
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) text += (i > 0 ? ", " : "") + names[i];
  return text.empty() ? "nothing" : text;
}

StatusOr<ArgumentFiles> FromNpyFiles(const Computation& entry,
                                     const std::vector<std::string>& paths) {
  if (static_cast<int64_t>(paths.size()) != entry.parameter_count()) {
    // The files by name (a few): a lone file named .npz that holds one .npy array lands
    // here, and the message should say which file was read as an array.
    std::string which;
    for (size_t i = 0; i < paths.size() && i < 4; ++i) which += (i > 0 ? ", " : "") + paths[i];
    if (paths.size() > 4) which += ", ...";
    if (paths.size() == 1 && EndsWith(paths[0], ".npz")) which += ": a .npy array, not an .npz archive";
    return InvalidArgument("--inputs has " + std::to_string(paths.size()) + " file(s) (" + which +
                           ") but the entry computation %" + entry.name() + " takes " +
                           std::to_string(entry.parameter_count()) +
                           " parameter(s) (or give one .npz, or one HloSnapshot .pb)");
  }
  ArgumentFiles files;
  for (size_t i = 0; i < paths.size(); ++i) {
    const Instruction* parameter = entry.parameter(static_cast<int64_t>(i));
    ASSIGN_OR_RETURN(Literal literal,
                     interpreter::ReadNpy(paths[i], &parameter->shape(), ParameterWhat(parameter)));
    files.arguments.push_back(std::move(literal));
    files.sources.push_back(paths[i]);
  }
  return files;
}

StatusOr<ArgumentFiles> FromNpz(const Computation& entry, const std::string& path) {
  ASSIGN_OR_RETURN(std::vector<NpzMember> members, ReadNpz(path));
  std::map<std::string, size_t> by_name;
  std::vector<std::string> member_names;
  for (size_t m = 0; m < members.size(); ++m) {
    if (!by_name.emplace(members[m].name, m).second) {
      return InvalidArgument(path + ": holds two members named '" + members[m].name + "'");
    }
    member_names.push_back(members[m].name);
  }
  // Each parameter takes its member; each member goes to one parameter.
  std::vector<int64_t> taken_by(members.size(), -1);
  std::vector<size_t> chosen;
  for (int64_t p = 0; p < entry.parameter_count(); ++p) {
    const Instruction* parameter = entry.parameter(p);
    std::vector<std::string> candidates = {parameter->name()};
    if (std::string base = WithoutNumberSuffix(parameter->name()); !base.empty()) {
      candidates.push_back(base);
    }
    candidates.push_back("arr_" + std::to_string(p));
    std::optional<size_t> found;
    for (const std::string& candidate : candidates) {
      if (auto it = by_name.find(candidate); it != by_name.end()) {
        found = it->second;
        break;
      }
    }
    if (!found) {
      std::string expected;
      for (size_t c = 0; c < candidates.size(); ++c) {
        expected += (c == 0 ? "'" : c + 1 == candidates.size() ? "' or '" : "', '") + candidates[c];
      }
      return InvalidArgument(path + ": no member for " + ParameterWithShape(parameter) +
                             ": expected " + expected + "'; the archive holds " +
                             std::to_string(members.size()) + " (" + JoinNames(member_names) +
                             ") for " + std::to_string(entry.parameter_count()) + " parameter(s)");
    }
    if (taken_by[*found] >= 0) {
      return InvalidArgument(path + ": member '" + members[*found].name + "' matches both " +
                             ParameterWhat(entry.parameter(taken_by[*found])) + " and " +
                             ParameterWhat(parameter) +
                             "; name the members after the "
                             "parameters' full names");
    }
    taken_by[*found] = p;
    chosen.push_back(*found);
  }
  for (size_t m = 0; m < members.size(); ++m) {
    if (taken_by[m] >= 0) continue;
    std::vector<std::string> names;
    for (int64_t p = 0; p < entry.parameter_count(); ++p) {
      names.push_back(entry.parameter(p)->name());
    }
    return InvalidArgument(
        path + ": member '" + members[m].name + "' matches no parameter: " + "the archive holds " +
        std::to_string(members.size()) + " arrays but the entry computation %" + entry.name() +
        " takes " + std::to_string(entry.parameter_count()) + " parameter(s) (" + JoinNames(names) +
        "; positionally arr_0 .. arr_" + std::to_string(entry.parameter_count() - 1) + ")");
  }
  ArgumentFiles files;
  for (int64_t p = 0; p < entry.parameter_count(); ++p) {
    const Instruction* parameter = entry.parameter(p);
    const NpzMember& member = members[chosen[p]];
    const std::string source = path + " member '" + member.name + "'";
    ASSIGN_OR_RETURN(Literal literal,
                     interpreter::ParseNpy(member.bytes, source, &parameter->shape(), ParameterWhat(parameter)));
    files.arguments.push_back(std::move(literal));
    files.sources.push_back(source);
  }
  return files;
}

// `literal` with exactly `want` (layouts included), when its element types and dimensions
// are `want`'s; literals store elements in logical order whatever the layout.
StatusOr<Literal> WithShape(const Literal& literal, const Shape& want, const std::string& what) {
  const auto mismatch = [&] {
    return InvalidArgument(what + " is " + literal.shape().ToString(false) + " but should be " +
                           want.ToString(false));
  };
  if (want.IsTuple() != literal.shape().IsTuple()) return mismatch();
  if (want.IsTuple()) {
    if (want.tuple_shapes().size() != literal.tuple_elements().size()) return mismatch();
    Literal result(want);
    for (size_t k = 0; k < want.tuple_shapes().size(); ++k) {
      ASSIGN_OR_RETURN(result.tuple_elements()[k],
                       WithShape(literal.tuple_elements()[k], want.tuple_shapes()[k], what));
    }
    return result;
  }
  if (!want.IsArray() || !literal.shape().IsArray()) {
    if (want.element_type() != literal.shape().element_type()) return mismatch();
    return literal;
  }
  if (want.element_type() != literal.shape().element_type() ||
      want.dimensions() != literal.shape().dimensions()) {
    return mismatch();
  }
  Literal result = Literal::CreateUninitialized(want);
  if (result.size_bytes() != literal.size_bytes()) return mismatch();
  if (result.size_bytes() > 0) {
    std::memcpy(result.untyped_data(), literal.untyped_data(),
                static_cast<size_t>(result.size_bytes()));
  }
  return result;
}

StatusOr<ArgumentFiles> FromSnapshot(const Module& module, const std::string& path) {
  const Computation& entry = *module.entry();
  ASSIGN_OR_RETURN(ProtoImport imported, ImportHloProtoFile(path));
  if (imported.kind != HloProtoKind::kSnapshot) {
    return InvalidArgument(path + ": an " + std::string(HloProtoKindName(imported.kind)) +
                           " holds a module but no arguments; --inputs takes an HloSnapshot "
                           "(XLA writes them with --xla_dump_hlo_snapshots)");
  }
  if (static_cast<int64_t>(imported.arguments.size()) != entry.parameter_count()) {
    return InvalidArgument(path + ": the snapshot holds " +
                           std::to_string(imported.arguments.size()) +
                           " argument(s) but the entry computation %" + entry.name() + " takes " +
                           std::to_string(entry.parameter_count()) + " parameter(s)");
  }
  ArgumentFiles files;
  for (int64_t p = 0; p < entry.parameter_count(); ++p) {
    const Instruction* parameter = entry.parameter(p);
    const std::string source = path + " argument " + std::to_string(p);
    ASSIGN_OR_RETURN(Literal literal,
                     WithShape(imported.arguments[p], parameter->shape(),
                               source + " (for " + ParameterWhat(parameter) + ")"));
    files.arguments.push_back(std::move(literal));
    files.sources.push_back(source);
  }
  if (imported.module != nullptr && imported.module->name() != module.name()) {
    files.notes.push_back(path + ": the snapshot recorded module '" + imported.module->name() +
                          "'; its arguments are given to '" + module.name() + "'");
  }
  return files;
}

}  // namespace

StatusOr<std::vector<NpzMember>> ReadNpz(const std::string& path) {
  RETURN_IF_ERROR(CheckReadable(path));
  std::unique_ptr<struct archive, ArchiveReader> a(archive_read_new());
  const auto error = [&](const std::string& what) {
    const char* message = archive_error_string(a.get());
    return InvalidArgument(path + ": " + what + (message ? std::string(": ") + message : ""));
  };
  if (archive_read_support_format_zip(a.get()) != ARCHIVE_OK) return error("cannot read zip");
  if (archive_read_open_filename(a.get(), path.c_str(), 64 * 1024) != ARCHIVE_OK) {
    return error("not an .npz archive (a zip of .npy files)");
  }
  std::vector<NpzMember> members;
  struct archive_entry* entry = nullptr;
  int status = ARCHIVE_OK;
  while ((status = archive_read_next_header(a.get(), &entry)) == ARCHIVE_OK) {
    if (archive_entry_filetype(entry) == AE_IFDIR) continue;
    const char* pathname = archive_entry_pathname(entry);
    NpzMember member;
    member.name = pathname != nullptr ? pathname : "";
    std::vector<char> buffer(64 * 1024);
    la_ssize_t n = 0;
    while ((n = archive_read_data(a.get(), buffer.data(), buffer.size())) > 0) {
      member.bytes.append(buffer.data(), static_cast<size_t>(n));
    }
    if (n < 0) return error("cannot read member '" + member.name + "'");
    if (EndsWith(member.name, ".npy")) member.name.resize(member.name.size() - 4);
    members.push_back(std::move(member));
  }
  if (status != ARCHIVE_EOF) {
    return error(members.empty()
                     ? "not an .npz archive (a zip of .npy files)"
                     : "damaged after " + std::to_string(members.size()) + " member(s)");
  }
  return members;
}

StatusOr<ArgumentFiles> LoadArgumentFiles(const Module& module,
                                          const std::vector<std::string>& paths) {
  const Computation* entry = module.entry();
  if (entry == nullptr) {
    return InvalidArgument("module '" + module.name() + "' has no entry computation");
  }
  if (paths.size() == 1) {
    const std::string& path = paths[0];
    RETURN_IF_ERROR(CheckReadable(path));
    const std::string head = Head(path, 4096);
    const bool npy = head.rfind("\x93NUMPY", 0) == 0;
    if (!npy && (head.rfind("PK\x03\x04", 0) == 0 || head.rfind("PK\x05\x06", 0) == 0 ||
                 EndsWith(path, ".npz"))) {
      return FromNpz(*entry, path);
    }
    if (!npy && !EndsWith(path, ".npy") && LooksLikeHloProtoFile(path, head)) {
      return FromSnapshot(module, path);
    }
  }
  return FromNpyFiles(*entry, paths);
}

}  // namespace fusebox::importers
