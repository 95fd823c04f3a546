// The compile session and the XLA-layout dump writer.
#include "compiler/session/compile_session.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "compiler/passes/optimization_pipeline.h"

namespace fusebox {

std::string_view StageName(Stage stage) {
  switch (stage) {
    case Stage::kHlo: return "hlo";
    case Stage::kOptimizedHlo: return "optimized_hlo";
  }
  return "?";
}

std::optional<Stage> ParseStage(std::string_view name) {
  if (name == "hlo") return Stage::kHlo;
  if (name == "optimized_hlo") return Stage::kOptimizedHlo;
  return std::nullopt;
}

CompileSession::CompileSession(std::unique_ptr<Module> module) : input_(std::move(module)) {}

Status CompileSession::Optimize(const PipelineOptions& options) {
  if (optimize_status_) return *optimize_status_;
  std::unique_ptr<Module> work = input_->Clone();
  if (work == nullptr) {
    optimize_status_ = Internal("could not copy module " + input_->name());
    return *optimize_status_;
  }
  Pipeline pipeline = MakeOptimizationPipeline();
  Status st = pipeline.Run(*work, options, context_, &pipeline_result_);
  optimize_status_ = st;
  if (st.ok()) optimized_ = std::move(work);
  return st;
}

StatusOr<std::string> CompileSession::StageText(Stage stage) {
  switch (stage) {
    case Stage::kHlo:
      return input_->ToString();
    case Stage::kOptimizedHlo: {
      Status st = Optimize();
      if (!st.ok()) return st;
      return optimized_->ToString();
    }
  }
  return Internal("unknown stage");
}

KernelCount CompileSession::kernels_after() const {
  return optimized_ ? CountKernels(*optimized_) : KernelCount{};
}

namespace {
std::string SafeName(const std::string& name) {
  std::string out = name;
  for (char& c : out) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
  }
  return out;
}

std::string Pad4(int64_t n) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%04lld", static_cast<long long>(n));
  return buf;
}
}  // namespace

StatusOr<std::vector<std::string>> WriteDump(CompileSession& session, const std::string& dir,
                                             int module_id) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return InvalidArgument(dir + ": cannot create folder: " + ec.message());
  Status st = session.Optimize();
  if (!st.ok()) return st;
  std::string prefix = dir + "/module_" + Pad4(module_id) + "." + SafeName(session.input().name());
  std::vector<std::string> written;
  auto write = [&](const std::string& path, const std::string& text) -> Status {
    std::ofstream out(path, std::ios::binary);
    if (!out) return InvalidArgument(path + ": cannot write");
    out << text;
    written.push_back(path);
    return Status::Ok();
  };
  RETURN_IF_ERROR(write(prefix + ".before_optimizations.txt", session.input().ToString()));
  const PipelineResult& result = session.pipeline_result();
  for (size_t i = 0; i < result.passes.size(); ++i) {
    const PassRecord& record = result.passes[i];
    if (!record.has_snapshot) continue;
    std::string next = i + 1 < result.passes.size() ? result.passes[i + 1].name : "end";
    RETURN_IF_ERROR(write(prefix + "." + Pad4(static_cast<int64_t>(i)) + "." + result.pipeline_name +
                              ".after_" + record.name + ".before_" + next + ".txt",
                          record.snapshot));
  }
  RETURN_IF_ERROR(write(prefix + ".cpu_after_optimizations.txt", session.optimized_module()->ToString()));
  nlohmann::ordered_json j;
  j["module"] = session.input().name();
  j["kernels_before"] = session.kernels_before().kernels;
  j["kernels_after"] = session.kernels_after().kernels;
  j["passes"] = nlohmann::ordered_json::array();
  for (const PassRecord& r : result.passes) {
    j["passes"].push_back({{"name", r.name}, {"changed", r.changed}, {"skipped", r.skipped},
                           {"wall_ns", r.wall_ns}, {"instructions", r.instruction_count}});
  }
  j["decisions"] = nlohmann::ordered_json::array();
  for (const FusionDecision& d : session.pass_context().decisions()) {
    j["decisions"].push_back({{"pass", d.pass}, {"computation", d.computation},
                              {"producer", d.producer}, {"consumer", d.consumer},
                              {"fused", d.fused}, {"reason", d.reason}, {"fusion", d.fusion}});
  }
  RETURN_IF_ERROR(write(prefix + ".fusion_decisions.json", j.dump(2) + "\n"));
  return written;
}

}  // namespace fusebox
