// Packing a report folder into one .tar.gz to attach to a bug (libarchive).
#pragma once

#include <string>
#include <vector>

#include "compiler/support/status.h"

namespace fusebox::report {

// Writes `archive` (a .tar.gz) holding every regular file under `dir`, stored under
// `prefix/` plus their path relative to `dir`. Files in `skip` (full paths) are left out.
Status WriteTarGz(const std::string& dir, const std::string& prefix, const std::string& archive,
                  const std::vector<std::string>& skip = {});

// The member names of a .tar.gz (for checks and tests).
StatusOr<std::vector<std::string>> ListTarGz(const std::string& archive);

}  // namespace fusebox::report
