// Running a pipeline with verification, timing and snapshots.
#include "compiler/passes/pipeline.h"

#include <algorithm>
#include <regex>

#include "compiler/verifier/verifier.h"
#include "compiler/support/timer.h"

namespace fusebox::passes {

std::vector<FusionDecision> PassContext::DecisionsFor(const std::string& instruction) const {
  std::vector<FusionDecision> out;
  for (const FusionDecision& d : decisions_) {
    if (d.producer == instruction || d.consumer == instruction || d.fusion == instruction) {
      out.push_back(d);
    }
  }
  return out;
}

std::vector<std::string> Pipeline::PassNames() const {
  std::vector<std::string> names;
  for (const auto& p : passes_) names.emplace_back(p->name());
  return names;
}

Status Pipeline::Run(Module& module, const PipelineOptions& options, PassContext& context,
                     PipelineResult* result) const {
  result->pipeline_name = name_;
  ScopedSpan pipeline_span(options.trace, compile_category::kStage, "pipeline " + name_);
  if (options.keep_text_before) {
    ScopedSpan print_span(options.trace, compile_category::kPrint, "text before");
    result->before = module.ToString();
  }
  std::regex snapshot_re;
  bool snapshots = !options.snapshot_pass_regex.empty();
  if (snapshots) {
    try {
      snapshot_re = std::regex(options.snapshot_pass_regex);
    } catch (const std::regex_error& e) {
      return InvalidArgument("bad pass regex '" + options.snapshot_pass_regex + "': " + e.what());
    }
  }
  auto listed = [](const std::vector<std::string>& list, std::string_view name) {
    return std::find(list.begin(), list.end(), name) != list.end();
  };
  for (const std::string& name : options.disabled_passes) {
    if (!listed(PassNames(), name)) {
      return InvalidArgument("no pass named '" + name + "' in pipeline " + name_);
    }
  }
  for (const std::string& name : options.only_passes) {
    if (!listed(PassNames(), name)) {
      return InvalidArgument("no pass named '" + name + "' in pipeline " + name_);
    }
  }
  Stopwatch total;
  size_t done = 0;
  for (const auto& pass : passes_) {
    if (options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed)) return Cancelled();
    if (done > 0 && options.progress) options.progress(done, passes_.size(), result->passes.back().name);
    ++done;
    PassRecord record;
    record.name = std::string(pass->name());
    if (listed(options.disabled_passes, record.name) ||
        (!options.only_passes.empty() && !listed(options.only_passes, record.name))) {
      record.skipped = true;
      result->passes.push_back(std::move(record));
      continue;
    }
    // One clock reading serves the record (the stepper's time) and the trace's span.
    const int64_t begin_ns = NowNanos();
    StatusOr<bool> changed = pass->Run(module, context);
    const int64_t end_ns = NowNanos();
    record.wall_ns = end_ns - begin_ns;
    if (!changed.ok()) {
      result->passes.push_back(record);
      return changed.status().WithPrefix("pass " + record.name + ": ");
    }
    record.changed = *changed;
    record.instruction_count = module.instruction_count();
    if (options.trace != nullptr) {
      options.trace->Record(compile_category::kPass, record.name, begin_ns, end_ns,
                            {{"pipeline", name_},
                             {"changed", record.changed ? "yes" : "no"},
                             {"instructions", std::to_string(record.instruction_count)}});
    }
    if (options.verify_between_passes && record.changed) {
      VerifierOptions vopts;
      vopts.filename = module.source_name() + " after pass " + record.name;
      ScopedSpan verify_span(options.trace, compile_category::kVerify, "verify");
      verify_span.Arg("after", record.name);
      Status verified = Verify(module, vopts);
      verify_span.End();
      if (!verified.ok()) {
        result->passes.push_back(record);
        return Internal("pass " + record.name + " left a module that does not verify:\n" +
                        verified.message());
      }
    }
    if (snapshots && std::regex_search(record.name, snapshot_re) &&
        (record.changed || !options.snapshot_only_when_changed)) {
      ScopedSpan print_span(options.trace, compile_category::kPrint, "snapshot");
      print_span.Arg("after", record.name);
      record.has_snapshot = true;
      record.snapshot = module.ToString();
    }
    result->passes.push_back(std::move(record));
  }
  result->total_ns = total.ElapsedNanos();
  if (options.progress && !result->passes.empty()) options.progress(passes_.size(), passes_.size(), result->passes.back().name);
  return Status::Ok();
}

}  // namespace fusebox::passes
