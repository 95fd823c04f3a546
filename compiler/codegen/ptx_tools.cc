// ptxas and the SASS disassemblers run as child processes: finding them, feeding them
// files in a private temporary folder, and reading what they print.
#include "compiler/codegen/ptx_tools.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <utility>

#include "compiler/support/subprocess.h"

namespace fusebox::codegen {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kSetupHint =
    "run scripts/setup.sh --with-cuda-tools to install nvidia-cuda-cuobjdump and "
    "nvidia-cuda-nvdisasm from PyPI";

std::string GetEnv(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

bool IsExecutableFile(const std::string& path) {
  std::error_code ec;
  return !path.empty() && fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '\r')) {
    text.remove_prefix(1);
  }
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r' ||
                           text.back() == '\n')) {
    text.remove_suffix(1);
  }
  return text;
}

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::string ReplaceAll(std::string text, std::string_view from, std::string_view to) {
  if (from.empty()) return text;
  size_t pos = 0;
  while ((pos = text.find(from, pos)) != std::string::npos) {
    text.replace(pos, from.size(), to);
    pos += to.size();
  }
  return text;
}

std::string JoinPlaces(const std::vector<std::string>& places) {
  if (places.empty()) return "nowhere (every search place is turned off)";
  std::string out;
  for (size_t i = 0; i < places.size(); ++i) {
    if (i > 0) out += ", ";
    out += places[i];
  }
  return out;
}

// sm_NN or sm_NNN with an optional "a" (arch-specific) or "f" (family) suffix.
Status CheckArch(std::string_view arch) {
  std::string_view digits = arch;
  bool ok = digits.rfind("sm_", 0) == 0;
  if (ok) {
    digits.remove_prefix(3);
    if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f')) digits.remove_suffix(1);
    ok = digits.size() >= 2 && digits.size() <= 3 &&
         std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
  }
  if (ok) return Status::Ok();
  return InvalidArgument("invalid GPU arch '" + std::string(arch) +
                         "': expected sm_NN with an optional a/f suffix (sm_80, sm_90a)");
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Finding the tools
// ---------------------------------------------------------------------------------------

std::string CudaToolsDir() {
  std::string dir = GetEnv("FUSEBOX_CUDA_TOOLS_DIR");
  if (!dir.empty()) return dir;
  std::string data_home = GetEnv("XDG_DATA_HOME");
  if (!data_home.empty()) return data_home + "/fusebox/cuda-tools";
  std::string home = GetEnv("HOME");
  if (!home.empty()) return home + "/.local/share/fusebox/cuda-tools";
  return "";
}

namespace {

// `tool` inside the venv: the links setup.sh makes in bin/, else where pip put the wheel
// (lib/python3.X/site-packages/nvidia/cuNN/bin/), newest CUDA major first.
std::string FindInToolsDir(const std::string& dir, std::string_view tool) {
  std::string linked = dir + "/bin/" + std::string(tool);
  if (IsExecutableFile(linked)) return linked;
  // Iterated with error codes: a folder we may not read is skipped, never thrown about.
  auto subdirs = [](const fs::path& parent, std::string_view prefix) {
    std::vector<fs::path> found;
    std::error_code ec;
    for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().filename().string().rfind(prefix, 0) == 0) found.push_back(it->path());
    }
    return found;
  };
  std::vector<std::string> candidates;
  for (const fs::path& lib : subdirs(fs::path(dir) / "lib", "python")) {
    for (const fs::path& cuda : subdirs(lib / "site-packages" / "nvidia", "cu")) {
      std::string path = (cuda / "bin" / std::string(tool)).string();
      if (IsExecutableFile(path)) candidates.push_back(path);
    }
  }
  if (candidates.empty()) return "";
  std::sort(candidates.begin(), candidates.end());
  return candidates.back();
}

// Searches the places `search` allows, in the documented order. Returns the path, an empty
// string when not found (with every place looked in appended to `looked`), or an error
// when `env_var` names something that is not an executable file.
StatusOr<std::string> FindTool(std::string_view tool, const char* env_var, bool in_tools_dir,
                               const ToolSearchOptions& search, std::vector<std::string>* looked) {
  if (search.use_environment) {
    std::string value = GetEnv(env_var);
    looked->push_back("$" + std::string(env_var));
    if (!value.empty()) {
      if (IsExecutableFile(value)) return value;
      return Unavailable("$" + std::string(env_var) + " is set to '" + value +
                         "', which is not an executable file");
    }
  }
  if (search.use_cuda_dirs) {
    std::vector<std::string> dirs;
    std::string cuda_home = GetEnv("CUDA_HOME");
    if (!cuda_home.empty()) dirs.push_back(cuda_home + "/bin");
    if (std::find(dirs.begin(), dirs.end(), "/usr/local/cuda/bin") == dirs.end()) {
      dirs.push_back("/usr/local/cuda/bin");
    }
    for (const std::string& dir : dirs) {
      looked->push_back(dir);
      std::string path = dir + "/" + std::string(tool);
      if (IsExecutableFile(path)) return path;
    }
  }
  if (in_tools_dir && search.use_tools_dir) {
    std::string dir = CudaToolsDir();
    if (!dir.empty()) {
      looked->push_back(dir);
      std::string path = FindInToolsDir(dir, tool);
      if (!path.empty()) return path;
    }
  }
  if (search.use_path) {
    looked->push_back("$PATH");
    std::string path_var = GetEnv("PATH");
    std::string_view rest = path_var;
    while (!rest.empty()) {
      size_t colon = rest.find(':');
      std::string_view dir = rest.substr(0, colon);
      rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
      if (dir.empty()) continue;  // an empty entry means ".", which we do not search
      std::string path = std::string(dir) + "/" + std::string(tool);
      if (IsExecutableFile(path)) return path;
    }
  }
  return std::string();
}

}  // namespace

StatusOr<std::string> FindPtxas(const ToolSearchOptions& search) {
  std::vector<std::string> looked;
  ASSIGN_OR_RETURN(std::string path, FindTool("ptxas", "FUSEBOX_PTXAS", false, search, &looked));
  if (!path.empty()) return path;
  return Unavailable("ptxas not found: looked in " + JoinPlaces(looked));
}

StatusOr<SassDisassembler> FindSassDisassembler(const ToolSearchOptions& search) {
  std::vector<std::string> looked;
  SassDisassembler found;
  ASSIGN_OR_RETURN(found.cuobjdump,
                   FindTool("cuobjdump", "FUSEBOX_CUOBJDUMP", true, search, &looked));
  std::vector<std::string> looked_nvdisasm;
  ASSIGN_OR_RETURN(found.nvdisasm,
                   FindTool("nvdisasm", "FUSEBOX_NVDISASM", true, search, &looked_nvdisasm));
  if (!found.cuobjdump.empty() || !found.nvdisasm.empty()) return found;
  // Both searches share their places but the environment variable: list each place once,
  // the variables first.
  for (const std::string& place : looked_nvdisasm) {
    if (std::find(looked.begin(), looked.end(), place) != looked.end()) continue;
    auto after_variables = std::find_if(looked.begin(), looked.end(), [](const std::string& p) {
      return p.rfind("$FUSEBOX_", 0) != 0;
    });
    looked.insert(place.rfind("$FUSEBOX_", 0) == 0 ? after_variables : looked.end(), place);
  }
  return Unavailable("no cuobjdump or nvdisasm found (looked in " + JoinPlaces(looked) + ")");
}

// ---------------------------------------------------------------------------------------
// Running a tool
// ---------------------------------------------------------------------------------------

namespace {

// A private folder under $TMPDIR (mkdtemp, mode 0700), removed with everything in it.
class TempDir {
 public:
  explicit TempDir(std::string_view prefix) {
    std::error_code ec;
    fs::path base = fs::temp_directory_path(ec);
    if (ec) base = "/tmp";
    std::string pattern = (base / (std::string(prefix) + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      status_ = Unavailable("cannot create a temporary folder in " + base.string() + ": " +
                            std::strerror(errno));
    } else {
      path_ = pattern;
    }
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const Status& status() const { return status_; }
  std::string File(std::string_view name) const { return path_ + "/" + std::string(name); }
  const std::string& path() const { return path_; }

 private:
  Status status_;
  std::string path_;
};

Status WriteFile(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return Unavailable("cannot write " + path);
  return Status::Ok();
}

StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Unavailable("cannot read " + path);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// What a tool said, less ptxas's "info" chatter: the lines that explain a failure.
std::string ErrorLines(std::string_view log) {
  std::string out;
  for (std::string_view line : SplitLines(log)) {
    line = Trim(line);
    if (line.empty() || line.rfind("ptxas info", 0) == 0) continue;
    if (!out.empty()) out += '\n';
    out += line;
  }
  return out.empty() ? std::string(Trim(log)) : out;
}

std::string DescribeExit(const ProcessResult& result) {
  if (result.signal != 0) return "killed by signal " + std::to_string(result.signal);
  return "exit " + std::to_string(result.exit_code);
}

}  // namespace

// ---------------------------------------------------------------------------------------
// ptxas
// ---------------------------------------------------------------------------------------

std::string PtxasCacheDir() {
  if (std::string dir = GetEnv("FUSEBOX_CACHE_DIR"); !dir.empty()) return dir + "/ptxas";
  if (std::string dir = GetEnv("XDG_CACHE_HOME"); !dir.empty()) return dir + "/fusebox/ptxas";
  if (std::string home = GetEnv("HOME"); !home.empty()) return home + "/.cache/fusebox/ptxas";
  return "";
}

namespace {

// Two 64-bit FNV-1a hashes with different offsets over the same bytes: a 128-bit name.
struct ContentHash {
  uint64_t a = 14695981039346656037ull;
  uint64_t b = 0x9e3779b97f4a7c15ull;
  void Add(std::string_view bytes) {
    for (unsigned char c : bytes) {
      a = (a ^ c) * 1099511628211ull;
      b = (b ^ c) * 1099511628211ull;
    }
    a = (a ^ 0xff) * 1099511628211ull;  // a separator, so that ("ab","c") != ("a","bc")
    b = (b ^ 0xfe) * 1099511628211ull;
  }
  std::string Hex() const {
    char buffer[33];
    std::snprintf(buffer, sizeof buffer, "%016llx%016llx", static_cast<unsigned long long>(a),
                  static_cast<unsigned long long>(b));
    return buffer;
  }
};

// The cache entry's file stem: everything that decides the cubin, ptxas itself included.
std::string CacheKey(const std::string& ptxas, const std::vector<std::string>& argv, std::string_view ptx) {
  ContentHash hash;
  std::error_code ec;
  hash.Add(ptxas);
  hash.Add(std::to_string(fs::file_size(ptxas, ec)));
  const auto written = fs::last_write_time(ptxas, ec);
  hash.Add(std::to_string(written.time_since_epoch().count()));
  for (size_t i = 1; i < argv.size(); ++i) hash.Add(argv[i]);
  hash.Add(ptx);
  return hash.Hex();
}

// A cubin and log an earlier run stored; nullopt when there is none or it does not read.
std::optional<PtxasResult> ReadCached(const std::string& stem) {
  auto cubin = ReadFile(stem + ".cubin");
  auto log = ReadFile(stem + ".log");
  if (!cubin.ok() || !log.ok() || cubin->size() < 4 || cubin->compare(0, 4, "\x7f" "ELF") != 0) return std::nullopt;
  PtxasResult result;
  result.cubin = std::move(*cubin);
  result.log = std::move(*log);
  result.kernels = ParsePtxasInfo(result.log);
  result.from_cache = true;
  return result;
}

// Stores through a temporary name and a rename, so that a reader never sees half a file;
// a cache that cannot be written is skipped (the result is still good).
void WriteCached(const std::string& dir, const std::string& stem, const PtxasResult& result) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return;
  const std::string suffix = ".tmp" + std::to_string(::getpid());
  for (const auto& [ext, bytes] : {std::pair<std::string, const std::string*>{".log", &result.log},
                                   std::pair<std::string, const std::string*>{".cubin", &result.cubin}}) {
    if (!WriteFile(stem + ext + suffix, *bytes).ok()) return;
    fs::rename(stem + ext + suffix, stem + ext, ec);
    if (ec) return;
  }
}

}  // namespace

StatusOr<PtxasResult> AssemblePtx(std::string_view ptx, std::string_view arch,
                                  const PtxasOptions& options) {
  RETURN_IF_ERROR(CheckArch(arch));
  ScopedSpan span(options.trace, compile_category::kPtxas, "ptxas");
  span.Arg("arch", arch).Arg("ptx_bytes", static_cast<int64_t>(ptx.size()));
  ASSIGN_OR_RETURN(std::string ptxas, FindPtxas(options.search));
  std::vector<std::string> argv = {ptxas, "-arch=" + std::string(arch), "-v"};
  if (options.opt_level >= 0) argv.push_back("-O" + std::to_string(options.opt_level));
  if (options.threads != 1) argv.push_back("--split-compile=" + std::to_string(std::max(0, options.threads)));
  argv.insert(argv.end(), options.extra_args.begin(), options.extra_args.end());
  std::string cache_stem;
  if (!options.cache_dir.empty()) {
    cache_stem = options.cache_dir + "/" + CacheKey(ptxas, argv, ptx);
    if (std::optional<PtxasResult> cached = ReadCached(cache_stem)) {
      span.Arg("cache", "hit");
      return std::move(*cached);
    }
  }
  span.Arg("cache", cache_stem.empty() ? "off" : "miss");
  TempDir dir("fusebox-ptxas");
  RETURN_IF_ERROR(dir.status());
  const std::string ptx_path = dir.File("kernel.ptx");
  const std::string cubin_path = dir.File("kernel.cubin");
  RETURN_IF_ERROR(WriteFile(ptx_path, ptx));

  argv.insert(argv.end(), {"-o", cubin_path, ptx_path});
  ProcessOptions process;
  process.argv = argv;
  process.timeout_seconds = options.timeout_seconds;
  ASSIGN_OR_RETURN(ProcessResult run, RunProcess(process));

  PtxasResult result;
  result.log =
      ReplaceAll(ReplaceAll(ReplaceAll(run.output, ptx_path, "<ptx>"), cubin_path, "<cubin>"),
                 dir.path(), "<tmp>");
  if (run.timed_out) {
    return Unavailable("ptxas (" + ptxas + ") did not finish within " +
                       std::to_string(options.timeout_seconds) + " s and was killed");
  }
  if (run.exit_code != 0) {
    std::string lines = ErrorLines(result.log);
    if (result.log.find("is not defined for option 'gpu-name'") != std::string::npos) {
      return InvalidArgument("ptxas (" + ptxas + ") does not support " + std::string(arch) +
                             " (CUDA 13's ptxas starts at sm_75): " + lines);
    }
    std::string message = "ptxas rejected the PTX for " + std::string(arch) + " (" +
                          DescribeExit(run) + "):\n" + lines;
    if (result.log.find("SM version specified by .target is higher") != std::string::npos) {
      message += "\n(the PTX's .target names a newer GPU than " + std::string(arch) + ")";
    }
    return InvalidArgument(message);
  }
  ASSIGN_OR_RETURN(result.cubin, ReadFile(cubin_path));
  if (result.cubin.empty())
    return Internal("ptxas (" + ptxas + ") succeeded but wrote an empty cubin");
  result.kernels = ParsePtxasInfo(result.log);
  if (!cache_stem.empty()) WriteCached(options.cache_dir, cache_stem, result);
  return result;
}

namespace {

// "12", "used 1 barriers" -> the number and what follows it ("barriers").
bool SplitCount(std::string_view item, int64_t* value, std::string_view* what) {
  item = Trim(item);
  if (item.rfind("used ", 0) == 0) item.remove_prefix(5);
  auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), *value);
  if (ec != std::errc()) return false;
  *what = Trim(item.substr(static_cast<size_t>(end - item.data())));
  return true;
}

// What follows the number in a `ptxas -v` item -> the field it fills.
constexpr std::pair<std::string_view, int64_t PtxasKernelInfo::*> kInfoFields[] = {
    {"registers", &PtxasKernelInfo::registers},
    {"barriers", &PtxasKernelInfo::barriers},
    {"bytes smem", &PtxasKernelInfo::shared_bytes},
    {"bytes cmem[0]", &PtxasKernelInfo::constant_bytes},
    {"bytes stack frame", &PtxasKernelInfo::stack_frame_bytes},
    {"bytes spill stores", &PtxasKernelInfo::spill_store_bytes},
    {"bytes spill loads", &PtxasKernelInfo::spill_load_bytes},
};

void ApplyItems(std::string_view list, PtxasKernelInfo* info) {
  while (!list.empty()) {
    size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    int64_t value = 0;
    std::string_view what;
    if (!SplitCount(item, &value, &what)) continue;
    for (const auto& [name, member] : kInfoFields) {
      if (what == name) info->*member = value;
    }
    // Others ("bytes cumulative stack size", "bytes cmem[2]", "textures") are not kept.
  }
}

// 'name' -> name; a name without quotes is taken as it is.
std::string_view Unquote(std::string_view text) {
  text = Trim(text);
  if (text.size() >= 2 && text.front() == '\'' && text.back() == '\'') {
    text = text.substr(1, text.size() - 2);
  }
  return text;
}

}  // namespace

std::vector<PtxasKernelInfo> ParsePtxasInfo(std::string_view text) {
  std::vector<PtxasKernelInfo> kernels;
  // ptxas's last line has no newline, so outputs pasted together can run one "ptxas info"
  // into the previous line; cut lines before every "ptxas info" not at their start.
  std::vector<std::string_view> lines;
  for (std::string_view line : SplitLines(text)) {
    size_t cut;
    while ((cut = line.find("ptxas info", 1)) != std::string_view::npos) {
      lines.push_back(line.substr(0, cut));
      line.remove_prefix(cut);
    }
    lines.push_back(line);
  }

  int current = -1;            // the entry function being compiled
  std::string properties_for;  // the function the next stack/spill line belongs to
  std::map<std::string, std::string> early_properties;  // stack/spill lines seen before their entry
  auto find_kernel = [&](std::string_view name) -> PtxasKernelInfo* {
    for (auto it = kernels.rbegin(); it != kernels.rend(); ++it) {
      if (it->name == name) return &*it;
    }
    return nullptr;
  };
  for (std::string_view raw : lines) {
    std::string_view line = Trim(raw);
    if (line.rfind("ptxas info", 0) == 0) {
      size_t colon = line.find(':');
      if (colon == std::string_view::npos) continue;
      std::string_view message = Trim(line.substr(colon + 1));
      constexpr std::string_view kCompiling = "Compiling entry function ";
      constexpr std::string_view kProperties = "Function properties for ";
      constexpr std::string_view kUsed = "Used ";
      if (message.rfind(kCompiling, 0) == 0) {
        message.remove_prefix(kCompiling.size());
        PtxasKernelInfo info;
        size_t for_pos = message.rfind(" for ");
        if (for_pos != std::string_view::npos) {
          info.name = std::string(Unquote(message.substr(0, for_pos)));
          info.arch = std::string(Unquote(message.substr(for_pos + 5)));
        } else {
          info.name = std::string(Unquote(message));
        }
        auto early = early_properties.find(info.name);
        if (early != early_properties.end()) {
          ApplyItems(early->second, &info);
          early_properties.erase(early);
        }
        kernels.push_back(std::move(info));
        current = static_cast<int>(kernels.size()) - 1;
        properties_for.clear();
      } else if (message.rfind(kProperties, 0) == 0) {
        message.remove_prefix(kProperties.size());
        if (!message.empty() && message.back() == ':') message.remove_suffix(1);
        properties_for = std::string(Unquote(message));
      } else if (message.rfind(kUsed, 0) == 0 && current >= 0) {
        message.remove_prefix(kUsed.size());
        ApplyItems(message, &kernels[static_cast<size_t>(current)]);
      }
      continue;
    }
    // The indented line after "Function properties for NAME".
    if (!properties_for.empty() && line.find("bytes stack frame") != std::string_view::npos) {
      if (PtxasKernelInfo* kernel = find_kernel(properties_for)) {
        ApplyItems(line, kernel);
      } else {
        early_properties[properties_for] = std::string(line);
      }
      properties_for.clear();
    }
  }
  return kernels;
}

// ---------------------------------------------------------------------------------------
// SASS
// ---------------------------------------------------------------------------------------

StatusOr<std::string> DisassembleCubin(std::string_view cubin, std::string_view arch,
                                       const SassOptions& options) {
  if (!arch.empty()) RETURN_IF_ERROR(CheckArch(arch));
  StatusOr<SassDisassembler> tools = FindSassDisassembler(options.search);
  if (!tools.ok()) {
    std::string message = "SASS unavailable: " + tools.status().message();
    if (message.find("no cuobjdump or nvdisasm found") != std::string::npos) {
      message += "; " + std::string(kSetupHint);
    }
    return Unavailable(message);
  }
  TempDir dir("fusebox-sass");
  RETURN_IF_ERROR(dir.status());
  const std::string cubin_path = dir.File("kernel.cubin");
  RETURN_IF_ERROR(WriteFile(cubin_path, cubin));

  std::vector<std::string> argv;
  std::vector<std::string> env;
  std::string tool_name;
  if (!tools->cuobjdump.empty()) {
    tool_name = "cuobjdump";
    argv = {tools->cuobjdump, "-sass", cubin_path};
    // CUDA 13's cuobjdump runs nvdisasm for -sass, found via $NVDISASM_PATH or $PATH.
    if (!tools->nvdisasm.empty()) {
      env.push_back("NVDISASM_PATH=" + fs::path(tools->nvdisasm).parent_path().string());
    }
  } else {
    tool_name = "nvdisasm";
    argv = {tools->nvdisasm, "-c", cubin_path};  // -c: code sections only
  }
  ProcessOptions process;
  process.argv = argv;
  process.env_overrides = env;
  process.timeout_seconds = options.timeout_seconds;
  ASSIGN_OR_RETURN(ProcessResult run, RunProcess(process));
  std::string output =
      ReplaceAll(ReplaceAll(run.output, cubin_path, "<cubin>"), dir.path(), "<tmp>");
  if (run.timed_out) {
    return Unavailable("SASS unavailable: " + tool_name + " (" + argv[0] +
                       ") did not finish within " + std::to_string(options.timeout_seconds) +
                       " s and was killed");
  }
  if (run.exit_code != 0) {
    std::string message = "SASS unavailable: " + tool_name + " (" + argv[0] + ") failed (" +
                          DescribeExit(run) + "): " + ErrorLines(output);
    if (output.find("Could not find executable file 'nvdisasm'") != std::string::npos) {
      message += "; " + std::string(kSetupHint);
      return Unavailable(message);
    }
    return InvalidArgument(message);
  }
  // Both listings name the cubin's arch on a ".target" line.
  std::vector<std::string> targets;
  for (std::string_view line : SplitLines(output)) {
    line = Trim(line);
    if (line.rfind(".target", 0) == 0) targets.emplace_back(Trim(line.substr(7)));
  }
  if (!arch.empty() && !targets.empty() &&
      std::find(targets.begin(), targets.end(), arch) == targets.end()) {
    return InvalidArgument("the cubin holds code for " + targets.front() + ", not " +
                           std::string(arch));
  }
  size_t first = output.find_first_not_of('\n');
  if (first == std::string::npos) {
    return InvalidArgument("SASS unavailable: " + tool_name + " (" + argv[0] +
                           ") printed nothing for the cubin");
  }
  return output.substr(first);
}

// ---------------------------------------------------------------------------------------
// The ptxas_info table
// ---------------------------------------------------------------------------------------

std::string FormatPtxasInfo(const std::vector<PtxasKernelInfo>& kernels) {
  if (kernels.empty()) return "no kernels\n";
  const std::vector<std::string> headers = {"kernel",       "arch",        "registers",
                                            "smem",         "cmem[0]",     "stack",
                                            "spill stores", "spill loads", "barriers"};
  std::vector<std::vector<std::string>> rows;
  for (const PtxasKernelInfo& k : kernels) {
    rows.push_back({k.name, k.arch, std::to_string(k.registers), std::to_string(k.shared_bytes),
                    std::to_string(k.constant_bytes), std::to_string(k.stack_frame_bytes),
                    std::to_string(k.spill_store_bytes), std::to_string(k.spill_load_bytes),
                    std::to_string(k.barriers)});
  }
  std::vector<size_t> widths;
  for (const std::string& h : headers) widths.push_back(h.size());
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  // Names and arch left-aligned, numbers right-aligned; no trailing spaces.
  auto format_row = [&](const std::vector<std::string>& row) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      if (c > 0) line += "  ";
      std::string pad(widths[c] - row[c].size(), ' ');
      line += c < 2 ? row[c] + pad : pad + row[c];
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line + "\n";
  };
  std::string out = format_row(headers);
  for (const auto& row : rows) out += format_row(row);
  int64_t spilling = std::count_if(kernels.begin(), kernels.end(), [](const PtxasKernelInfo& k) {
    return k.spill_store_bytes > 0 || k.spill_load_bytes > 0;
  });
  out += std::to_string(kernels.size()) + (kernels.size() == 1 ? " kernel" : " kernels") + ", " +
         std::to_string(spilling) + " with register spills\n";
  return out;
}

std::string_view PtxEntryText(std::string_view ptx, std::string_view name) {
  const std::string head = ".entry " + std::string(name) + "(";
  size_t begin = ptx.find(head);
  // The name must end where the parameter list starts (not `<name>_t64(`: the "(" is
  // part of the pattern) and the line must be an entry's (".visible .entry", ".entry").
  if (begin == std::string_view::npos) return {};
  const size_t line = ptx.rfind('\n', begin);
  begin = line == std::string_view::npos ? 0 : line + 1;
  // An entry's body closes with a "}" alone on its line.
  const size_t end = ptx.find("\n}", begin);
  if (end == std::string_view::npos) return {};
  return ptx.substr(begin, end + 2 - begin);
}

}  // namespace fusebox::codegen
