// .tar.gz through libarchive: pax-restricted tar, gzip filter.
#include "report/tarball.h"

#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>

namespace fusebox::report {

namespace fs = std::filesystem;

namespace {

struct WriterDeleter {
  void operator()(struct archive* a) const { archive_write_free(a); }
};
struct ReaderDeleter {
  void operator()(struct archive* a) const { archive_read_free(a); }
};
struct EntryDeleter {
  void operator()(struct archive_entry* e) const { archive_entry_free(e); }
};

Status ArchiveError(struct archive* a, const std::string& what) {
  const char* message = archive_error_string(a);
  return InvalidArgument(what + ": " + (message ? message : "libarchive error"));
}

}  // namespace

Status WriteTarGz(const std::string& dir, const std::string& prefix, const std::string& archive,
                  const std::vector<std::string>& skip) {
  std::error_code ec;
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    std::string path = it->path().string();
    if (std::find(skip.begin(), skip.end(), path) != skip.end()) continue;
    if (fs::equivalent(it->path(), archive, ec)) continue;
    files.push_back(it->path());
  }
  if (ec) return InvalidArgument(dir + ": cannot list: " + ec.message());
  std::sort(files.begin(), files.end());

  std::unique_ptr<struct archive, WriterDeleter> a(archive_write_new());
  if (archive_write_add_filter_gzip(a.get()) != ARCHIVE_OK ||
      archive_write_set_format_pax_restricted(a.get()) != ARCHIVE_OK) {
    return ArchiveError(a.get(), archive);
  }
  if (archive_write_open_filename(a.get(), archive.c_str()) != ARCHIVE_OK) return ArchiveError(a.get(), archive);
  std::vector<char> buffer(1 << 16);
  for (const fs::path& file : files) {
    std::string name = prefix + "/" + fs::relative(file, dir).string();
    std::unique_ptr<struct archive_entry, EntryDeleter> entry(archive_entry_new());
    archive_entry_set_pathname(entry.get(), name.c_str());
    archive_entry_set_size(entry.get(), static_cast<la_int64_t>(fs::file_size(file)));
    archive_entry_set_filetype(entry.get(), AE_IFREG);
    // Scripts stay executable.
    auto perms = fs::status(file).permissions();
    bool exec = (perms & fs::perms::owner_exec) != fs::perms::none;
    archive_entry_set_perm(entry.get(), exec ? 0755 : 0644);
    archive_entry_set_mtime(entry.get(), 0, 0);
    if (archive_write_header(a.get(), entry.get()) != ARCHIVE_OK) return ArchiveError(a.get(), name);
    std::ifstream in(file, std::ios::binary);
    while (in) {
      in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      std::streamsize n = in.gcount();
      if (n <= 0) break;
      if (archive_write_data(a.get(), buffer.data(), static_cast<size_t>(n)) < 0) return ArchiveError(a.get(), name);
    }
  }
  if (archive_write_close(a.get()) != ARCHIVE_OK) return ArchiveError(a.get(), archive);
  return Status::Ok();
}

StatusOr<std::vector<std::string>> ListTarGz(const std::string& archive) {
  std::unique_ptr<struct archive, ReaderDeleter> a(archive_read_new());
  archive_read_support_filter_gzip(a.get());
  archive_read_support_format_tar(a.get());
  if (archive_read_open_filename(a.get(), archive.c_str(), 1 << 16) != ARCHIVE_OK) {
    return ArchiveError(a.get(), archive);
  }
  std::vector<std::string> names;
  struct archive_entry* entry = nullptr;
  int r;
  while ((r = archive_read_next_header(a.get(), &entry)) == ARCHIVE_OK) {
    names.emplace_back(archive_entry_pathname(entry));
    archive_read_data_skip(a.get());
  }
  if (r != ARCHIVE_EOF) return ArchiveError(a.get(), archive);
  return names;
}

}  // namespace fusebox::report
