#include "compiler/runtime/autotune_cache.h"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace fusebox::runtime {

namespace {

bool HasBreak(const std::string& s) { return s.find_first_of("\t\n\r") != std::string::npos; }

std::vector<std::string> SplitTabs(const std::string& line) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (true) {
    const size_t tab = line.find('\t', start);
    fields.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) return fields;
    start = tab + 1;
  }
}

// "1f,0,40" -> {0x1f, 0, 0x40}; false on anything else (an empty list is allowed).
bool ParseNumbers(const std::string& text, std::vector<uint64_t>* out) {
  out->clear();
  if (text.empty()) return true;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string word = text.substr(start, comma - start);
    if (word.empty() || word.size() > 16 || word.find_first_not_of("0123456789abcdef") != std::string::npos) {
      return false;
    }
    out->push_back(std::strtoull(word.c_str(), nullptr, 16));
    start = comma + 1;
  }
  return true;
}

}  // namespace

AutotuneCache& AutotuneCache::Process() {
  static AutotuneCache* cache = new AutotuneCache();
  return *cache;
}

std::optional<AutotuneRecord> AutotuneCache::Find(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = records_.find(key);
  if (it == records_.end()) return std::nullopt;
  return it->second;
}

Status AutotuneCache::Insert(const std::string& key, const AutotuneRecord& record) {
  if (key.empty() || HasBreak(key)) return InvalidArgument("autotune cache: a key must be one line without tabs");
  if (HasBreak(record.text)) return InvalidArgument("autotune cache: a choice's text must be one line without tabs");
  std::lock_guard<std::mutex> lock(mutex_);
  records_[key] = record;
  return Status::Ok();
}

size_t AutotuneCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return records_.size();
}

void AutotuneCache::Clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  records_.clear();
}

Status AutotuneCache::LoadText(const std::string& text, const std::string& name, size_t* loaded) {
  std::map<std::string, AutotuneRecord> read;
  std::istringstream in(text);
  std::string line;
  int64_t number = 0;
  bool header = false;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string where = name + ":" + std::to_string(number) + ": ";
    if (!header) {
      if (line != kHeader) {
        return InvalidArgument(where + "not a Fusebox autotune cache (its first line must be '" + kHeader + "')");
      }
      header = true;
      continue;
    }
    if (line.empty()) continue;
    const std::vector<std::string> fields = SplitTabs(line);
    if (fields.size() != 4) {
      return InvalidArgument(where + "expected 4 tab-separated fields (key, moved, numbers, text), found " +
                             std::to_string(fields.size()));
    }
    AutotuneRecord record;
    if (fields[0].empty()) return InvalidArgument(where + "empty key");
    if (fields[1] != "0" && fields[1] != "1") {
      return InvalidArgument(where + "the second field (moved) must be 0 or 1, not '" + fields[1] + "'");
    }
    record.moved = fields[1] == "1";
    if (!ParseNumbers(fields[2], &record.numbers)) {
      return InvalidArgument(where + "the third field must be comma-separated hexadecimal numbers, not '" + fields[2] +
                             "'");
    }
    record.text = fields[3];
    read[fields[0]] = std::move(record);
  }
  if (!header) return InvalidArgument(name + ":1: empty file, not a Fusebox autotune cache");
  if (loaded != nullptr) *loaded = read.size();
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [key, record] : read) records_[key] = std::move(record);
  return Status::Ok();
}

Status AutotuneCache::Load(const std::string& path, size_t* loaded) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("autotune cache " + path + ": " + std::strerror(errno));
  // The first line decides before the rest is read: a file that is not a cache (a binary,
  // a dump) is refused without reading it whole.
  std::string first;
  char c = 0;
  while (first.size() <= 64 && in.get(c) && c != '\n') first += c;
  if (!first.empty() && first.back() == '\r') first.pop_back();
  if (first != kHeader) return LoadText(first.substr(0, 64) + "\n", path, loaded);
  std::ostringstream text;
  text << first << '\n' << in.rdbuf();
  if (in.bad()) return InvalidArgument("autotune cache " + path + ": read failed");
  return LoadText(text.str(), path, loaded);
}

std::string AutotuneCache::ToText() const {
  std::string out = std::string(kHeader) + "\n";
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [key, record] : records_) {
    out += key;
    out += record.moved ? "\t1\t" : "\t0\t";
    for (size_t i = 0; i < record.numbers.size(); ++i) {
      char word[24];
      std::snprintf(word, sizeof(word), "%s%" PRIx64, i == 0 ? "" : ",", record.numbers[i]);
      out += word;
    }
    out += "\t" + record.text + "\n";
  }
  return out;
}

Status AutotuneCache::Save(const std::string& path) const {
  const std::string text = ToText();
  const std::string temp = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) return Unavailable("autotune cache " + path + ": cannot write " + temp + ": " + std::strerror(errno));
    out << text;
    out.flush();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(temp, ignored);
      return Unavailable("autotune cache " + path + ": write failed");
    }
  }
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    return Unavailable("autotune cache " + path + ": " + ec.message());
  }
  return Status::Ok();
}

namespace {

std::string Words(std::initializer_list<int64_t> numbers) {
  std::string out;
  for (int64_t n : numbers) out += (out.empty() ? "" : ",") + std::to_string(n);
  return out;
}

std::string ViewWords(const ConvTensorView& v) {
  return Words({v.dims[0], v.dims[1], v.dims[2], v.dims[3]}) + "/" +
         Words({v.strides[0], v.strides[1], v.strides[2], v.strides[3]});
}

std::string OperandWords(const GemmOperandPlan& p) {
  return std::to_string(p.operand) + (p.transpose ? "T" : "N") + " ld=" + std::to_string(p.ld) +
         " bs=" + std::to_string(p.batch_stride) + " " + std::string(GemmDataTypeName(p.type));
}

std::string Real(double x) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.17g", x);
  return buf;
}

}  // namespace

std::string AutotuneScope(const std::string& library, const std::string& device_name, int compute_major,
                          int compute_minor) {
  std::string scope = library + " | " + device_name + " sm_" + std::to_string(compute_major) +
                      std::to_string(compute_minor);
  for (char& c : scope) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return scope;
}

std::string GemmAutotuneKey(const std::string& scope, const GemmPlan& plan, int64_t max_workspace) {
  const char* compute = plan.compute == GemmComputeType::kF32FastTf32 ? "tf32"
                        : plan.compute == GemmComputeType::kF64      ? "f64"
                                                                     : "f32";
  return scope + " | gemm m=" + std::to_string(plan.m) + " n=" + std::to_string(plan.n) +
         " k=" + std::to_string(plan.k) + " batch=" + std::to_string(plan.batch) + " A=" + OperandWords(plan.a) +
         " B=" + OperandWords(plan.b) + " C=ld=" + std::to_string(plan.ldc) + " bs=" + std::to_string(plan.c_batch_stride) +
         " " + std::string(GemmDataTypeName(plan.c_type)) + " compute=" + compute + " alpha=" + Real(plan.alpha) +
         " beta=" + Real(plan.beta) + " epilogue=" + std::string(GemmEpilogueName(plan.epilogue)) +
         (plan.bias_operand >= 0 ? " bias" : "") + " workspace<=" + std::to_string(max_workspace);
}

std::string ConvAutotuneKey(const std::string& scope, const ConvPlan& plan, FilterLayout layout, bool split,
                            int64_t max_workspace) {
  std::string key = scope + " | " + std::string(ConvCallName(plan.call)) + " x=" + ViewWords(plan.input) +
                    " w=" + ViewWords(plan.kernel) + " y=" + ViewWords(plan.output) +
                    " pad=" + Words({plan.padding[0], plan.padding[1]}) +
                    " stride=" + Words({plan.stride[0], plan.stride[1]}) +
                    " dilation=" + Words({plan.dilation[0], plan.dilation[1]}) + " groups=" + std::to_string(plan.groups) +
                    " " + std::string(GemmDataTypeName(plan.type)) + (plan.tf32 ? " tf32" : " fma") +
                    " filter=" + std::string(FilterLayoutName(layout));
  if (plan.bias_activation) {
    const ConvBiasActivation& f = *plan.bias_activation;
    key += " fused=" + ConvBiasActivationName(f) + " alpha1=" + Real(f.alpha1) + " alpha2=" + Real(f.alpha2) +
           (f.side_input ? " side" : "") + (split ? " split" : "");
  }
  return key + " workspace<=" + std::to_string(max_workspace);
}

}  // namespace fusebox::runtime
