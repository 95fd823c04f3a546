// The source map: kernels from the optimized module, code names from the backends,
// definitions found in the stage texts, and the JSON the CLI writes.
#include "compiler/session/source_map.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <set>
#include <string_view>

#include <nlohmann/json.hpp>

#include "compiler/codegen/cpu_compiler.h"
#include "compiler/codegen/gpu_compiler.h"
#include "compiler/ir/computation.h"
#include "compiler/ir/instruction.h"
#include "compiler/ir/library_calls.h"
#include "compiler/ir/opcode.h"
#include "compiler/ir/solver_plan.h"
#include "compiler/runtime/cpu_executable.h"
#include "compiler/session/compile_session.h"

namespace fusebox::session {
namespace {

void AddOnce(std::vector<std::string>& list, const std::string& name) {
  if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
}

bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' || c == '$';
}

// The name a line defines, and the 0-based column where it starts; "" when the line
// defines none. HLO: `[ROOT ]%name = ...`; LLVM IR: `define ... @name(`; PTX:
// `[.visible ].entry name(`.
enum class TextKind { kHlo, kLlvm, kPtx, kNone };

TextKind KindOfStage(const std::string& stage) {
  if (stage == "hlo" || stage == "optimized_hlo" || stage == "gpu_optimized_hlo") return TextKind::kHlo;
  if (stage.find("llvm_ir") != std::string::npos) return TextKind::kLlvm;
  if (stage == "ptx") return TextKind::kPtx;
  return TextKind::kNone;
}

std::string_view NameAt(std::string_view line, size_t start) {
  size_t end = start;
  while (end < line.size() && IsNameChar(line[end])) ++end;
  return line.substr(start, end - start);
}

std::string_view DefinedName(TextKind kind, std::string_view line, size_t* column) {
  switch (kind) {
    case TextKind::kHlo: {
      size_t at = line.find_first_not_of(' ');
      if (at == std::string_view::npos) return {};
      if (line.compare(at, 5, "ROOT ") == 0) at += 5;
      if (at >= line.size() || line[at] != '%') return {};
      std::string_view name = NameAt(line, at + 1);
      if (name.empty() || line.compare(at + 1 + name.size(), 3, " = ") != 0) return {};
      *column = at + 1;
      return name;
    }
    case TextKind::kLlvm: {
      if (line.compare(0, 7, "define ") != 0) return {};
      size_t at = line.find('@');
      if (at == std::string_view::npos) return {};
      size_t start = at + 1;
      if (start < line.size() && line[start] == '"') {
        size_t close = line.find('"', start + 1);
        if (close == std::string_view::npos) return {};
        *column = start + 1;
        return line.substr(start + 1, close - start - 1);
      }
      *column = start;
      return NameAt(line, start);
    }
    case TextKind::kPtx: {
      size_t at = line.find(".entry ");
      if (at == std::string_view::npos || line.compare(0, 2, "//") == 0) return {};
      size_t start = line.find_first_not_of(' ', at + 7);
      if (start == std::string_view::npos) return {};
      *column = start;
      return NameAt(line, start);
    }
    case TextKind::kNone: break;
  }
  return {};
}

// Every name the text defines -> where (the first definition of a name counts).
std::map<std::string, SourceLocation, std::less<>> Definitions(const std::string& stage, const std::string& text) {
  std::map<std::string, SourceLocation, std::less<>> found;
  const TextKind kind = KindOfStage(stage);
  if (kind == TextKind::kNone) return found;
  int64_t line_number = 0;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    ++line_number;
    size_t column = 0;
    std::string_view name = DefinedName(kind, std::string_view(text).substr(begin, end - begin), &column);
    if (!name.empty()) {
      found.emplace(std::string(name), SourceLocation{stage, line_number, static_cast<int64_t>(column) + 1});
    }
    if (end == text.size()) break;
    begin = end + 1;
  }
  return found;
}

nlohmann::ordered_json LocationJson(const SourceLocation& location) {
  nlohmann::ordered_json j;
  j["stage"] = location.stage;
  j["line"] = location.line;
  j["column"] = location.column;
  return j;
}

// One side's kernels that run code or a library call, with their code and locations.
nlohmann::ordered_json KernelsJson(const std::map<std::string, KernelSource>& side, bool gpu) {
  using Json = nlohmann::ordered_json;
  Json kernels = Json::array();
  for (const auto& [name, kernel] : side) {
    if (!kernel.runs_code && kernel.code_names.empty() && kernel.library.empty()) continue;
    Json j;
    j["name"] = name;
    j["opcode"] = kernel.opcode;
    j["fusion_kind"] = kernel.fusion_kind.empty() ? Json(nullptr) : Json(kernel.fusion_kind);
    j["instructions"] = kernel.instructions;
    if (!gpu) {
      j["cpu"] = Json{{"llvm_functions", kernel.cpu_functions}, {"trace_names", kernel.cpu_trace_names}};
    } else {
      j["gpu"] = Json{{"llvm_functions", kernel.gpu_functions},
                      {"ptx_entries", kernel.ptx_entries},
                      {"trace_names", kernel.gpu_trace_names}};
      j["library_call"] = kernel.library.empty()
                              ? Json(nullptr)
                              : Json{{"library", kernel.library},
                                     {"routine", kernel.library_routine.empty() ? Json(nullptr)
                                                                                : Json(kernel.library_routine)},
                                     {"error", kernel.library_error.empty() ? Json(nullptr)
                                                                            : Json(kernel.library_error)}};
    }
    // The kernel's own definition first, then its code names'.
    Json locations = Json::object();
    std::vector<std::string> names = {name};
    names.insert(names.end(), kernel.code_names.begin(), kernel.code_names.end());
    for (const std::string& n : names) {
      auto it = kernel.locations.find(n);
      if (it == kernel.locations.end() || locations.contains(n)) continue;
      Json list = Json::array();
      for (const SourceLocation& l : it->second) list.push_back(LocationJson(l));
      locations[n] = std::move(list);
    }
    j["locations"] = std::move(locations);
    kernels.push_back(std::move(j));
  }
  return kernels;
}

}  // namespace

std::string SourceLocation::ToString() const {
  return stage + ":" + std::to_string(line) + ":" + std::to_string(column);
}

KernelSource& SourceMap::Side::KernelNamed(const std::string& name) {
  KernelSource& kernel = kernels[name];
  if (kernel.name.empty()) kernel.name = name;
  return kernel;
}

void SourceMap::MapKernels(const Module& optimized) {
  module_name_ = optimized.name();
  cpu_.Map(optimized, /*gpu=*/false);
}

void SourceMap::MapGpuKernels(const Module& gpu_optimized) {
  if (module_name_.empty()) module_name_ = gpu_optimized.name();
  gpu_.Map(gpu_optimized, /*gpu=*/true);
}

void SourceMap::Side::Map(const Module& optimized, bool gpu) {
  // Fused instructions at any depth run in the kernel of their outermost fusion.
  std::function<void(const Computation*, KernelSource&)> walk = [&](const Computation* c, KernelSource& kernel) {
    for (const auto& inst : c->instructions()) {
      kernel_of.emplace(inst->name(), kernel.name);
      kernel.instructions.push_back(inst->name());
      if (inst->opcode() == Opcode::kFusion && inst->fused_computation()) walk(inst->fused_computation(), kernel);
    }
  };
  // Regions a reduce, sort or scatter applies are no fusion computations either: their
  // instructions link to themselves, but run no code of their own.
  std::set<const Computation*> program;
  for (const Computation* c : ProgramComputations(optimized)) program.insert(c);
  for (const auto& computation : optimized.computations()) {
    if (computation->IsFusionComputation()) continue;
    const bool in_program = program.count(computation.get()) != 0;
    for (const auto& inst : computation->instructions()) {
      kernel_of[inst->name()] = inst->name();
      KernelSource& kernel = KernelNamed(inst->name());
      // On the GPU a library call runs NVIDIA's code, no kernel of Fusebox's
      // (AddGpuLibraryCalls says which library).
      if (gpu && in_program && IsLibraryCall(*inst) && GpuRouteOf(*inst) != GpuCallRoute::kOwnKernel &&
          kernel.library.empty()) {
        kernel.library = "library call";
      }
      kernel.opcode = std::string(OpcodeName(inst->opcode()));
      if (inst->fusion_kind()) kernel.fusion_kind = std::string(FusionKindName(*inst->fusion_kind()));
      kernel.runs_code = in_program && (gpu ? codegen::IsGpuKernel(*inst)
                                            : codegen::IsCpuKernel(*inst) || codegen::IsGpuKernel(*inst));
      kernel.instructions = {inst->name()};
      if (inst->opcode() == Opcode::kFusion && inst->fused_computation()) walk(inst->fused_computation(), kernel);
    }
  }
}

void SourceMap::MapInput(const Module& input) {
  if (module_name_.empty()) module_name_ = input.name();
  instructions_.clear();
  for (const auto& computation : input.computations()) {
    for (const auto& inst : computation->instructions()) {
      InstructionSource source;
      source.name = inst->name();
      source.opcode = std::string(OpcodeName(inst->opcode()));
      if (const std::string* kernel = KernelOf(inst->name())) source.kernel = *kernel;
      if (const std::string* kernel = GpuKernelOf(inst->name())) source.gpu_kernel = *kernel;
      instructions_.push_back(std::move(source));
    }
  }
}

void SourceMap::AddCpuCode(const codegen::CpuCode& code) {
  for (const auto& [function, hlo] : code.function_to_hlo()) {
    KernelSource& kernel = cpu_.KernelNamed(hlo);
    AddOnce(kernel.cpu_functions, function);
    AddOnce(kernel.code_names, function);
  }
  // The CPU tracer names each run after the kernel (profiler/cpu_tracer.cc).
  for (const auto& kernel : code.kernels()) {
    if (kernel->hlo != nullptr) AddOnce(cpu_.KernelNamed(kernel->hlo->name()).cpu_trace_names, kernel->name);
  }
}

void SourceMap::AddGpuCode(const codegen::GpuCode& code) {
  for (const auto& [function, hlo] : code.function_to_hlo()) {
    KernelSource& kernel = gpu_.KernelNamed(hlo);
    AddOnce(kernel.gpu_functions, function);
    AddOnce(kernel.ptx_entries, function);  // NVPTX makes each kernel function an entry
    AddOnce(kernel.code_names, function);
  }
  // CUPTI names each run after the launched entry (profiler/cupti_tracer.cc).
  for (const auto& kernel : code.kernels()) {
    if (kernel->hlo == nullptr) continue;
    KernelSource& source = gpu_.KernelNamed(kernel->hlo->name());
    for (const codegen::GpuLaunch* launch : kernel->EveryLaunch()) AddOnce(source.gpu_trace_names, launch->function);
  }
}

void SourceMap::AddGpuLibraryCalls(const std::vector<GpuLibraryCall>& calls) {
  for (const GpuLibraryCall& call : calls) {
    KernelSource& kernel = gpu_.KernelNamed(call.name);
    kernel.library = call.library;
    kernel.library_routine = call.routine;
    kernel.library_error = call.error;
    // The input's dot or convolution runs in the call that replaced it.
    if (!call.source.empty() && gpu_.kernel_of.count(call.source) == 0) gpu_.kernel_of[call.source] = call.name;
  }
}

void SourceMap::AddLocations(const std::string& stage, const std::string& text) {
  const auto found = Definitions(stage, text);
  if (found.empty()) return;
  AddOnce(stages_, stage);
  if (stage == "hlo") {
    for (InstructionSource& inst : instructions_) {
      if (auto it = found.find(inst.name); it != found.end()) inst.location = it->second;
    }
    return;
  }
  const bool gpu = stage.rfind("gpu_", 0) == 0 || stage == "ptx";
  const bool module_stage = stage == "optimized_hlo" || stage == "gpu_optimized_hlo";
  for (auto& [name, kernel] : (gpu ? gpu_ : cpu_).kernels) {
    std::vector<std::string> names = module_stage ? std::vector<std::string>{name} : kernel.code_names;
    for (const std::string& n : names) {
      auto it = found.find(n);
      if (it == found.end()) continue;
      auto& list = kernel.locations[n];
      if (std::find(list.begin(), list.end(), it->second) == list.end()) list.push_back(it->second);
    }
  }
}

void SourceMap::Side::Merge(const Side& other) {
  for (const auto& [inst, kernel] : other.kernel_of) kernel_of[inst] = kernel;
  for (const auto& [name, theirs] : other.kernels) {
    KernelSource& ours = KernelNamed(name);
    if (ours.opcode.empty()) {
      ours.opcode = theirs.opcode;
      ours.fusion_kind = theirs.fusion_kind;
      ours.runs_code = theirs.runs_code;
      ours.instructions = theirs.instructions;
    }
    if (!theirs.library.empty() && (ours.library.empty() || !theirs.library_routine.empty() ||
                                    !theirs.library_error.empty())) {
      ours.library = theirs.library;
      ours.library_routine = theirs.library_routine;
      ours.library_error = theirs.library_error;
    }
    for (const auto& f : theirs.cpu_functions) AddOnce(ours.cpu_functions, f);
    for (const auto& f : theirs.gpu_functions) AddOnce(ours.gpu_functions, f);
    for (const auto& f : theirs.ptx_entries) AddOnce(ours.ptx_entries, f);
    for (const auto& f : theirs.cpu_trace_names) AddOnce(ours.cpu_trace_names, f);
    for (const auto& f : theirs.gpu_trace_names) AddOnce(ours.gpu_trace_names, f);
    for (const auto& f : theirs.code_names) AddOnce(ours.code_names, f);
    for (const auto& [n, locations] : theirs.locations) {
      auto& list = ours.locations[n];
      for (const SourceLocation& l : locations) {
        if (std::find(list.begin(), list.end(), l) == list.end()) list.push_back(l);
      }
    }
  }
}

void SourceMap::Merge(const SourceMap& other) {
  if (module_name_.empty()) module_name_ = other.module_name_;
  cpu_.Merge(other.cpu_);
  gpu_.Merge(other.gpu_);
  if (instructions_.empty()) instructions_ = other.instructions_;
  for (const auto& s : other.stages_) AddOnce(stages_, s);
  for (const auto& n : other.notes_) notes_.push_back(n);
}

const std::string* SourceMap::Side::KernelOf(const std::string& instruction) const {
  auto it = kernel_of.find(instruction);
  return it == kernel_of.end() ? nullptr : &it->second;
}

const KernelSource* SourceMap::Side::Find(const std::string& name) const {
  auto it = kernels.find(name);
  return it == kernels.end() ? nullptr : &it->second;
}

const std::string* SourceMap::KernelOf(const std::string& instruction) const { return cpu_.KernelOf(instruction); }
const KernelSource* SourceMap::FindKernel(const std::string& name) const { return cpu_.Find(name); }
const std::string* SourceMap::GpuKernelOf(const std::string& instruction) const { return gpu_.KernelOf(instruction); }
const KernelSource* SourceMap::FindGpuKernel(const std::string& name) const { return gpu_.Find(name); }

std::vector<std::string> SourceMap::LinkedNames(const std::string& instruction) const {
  std::vector<std::string> names;
  if (instruction.empty()) return names;
  names.push_back(instruction);
  std::string kernel = instruction;
  if (const std::string* k = KernelOf(instruction)) kernel = *k;
  if (kernel != instruction) names.push_back(kernel);
  if (const KernelSource* source = FindKernel(kernel)) {
    for (const std::string& f : source->code_names) names.push_back(f);
  }
  std::string gpu_kernel = kernel;
  if (!gpu_.kernel_of.empty()) {
    const std::string* k = GpuKernelOf(instruction);
    gpu_kernel = k != nullptr ? *k : instruction;
  }
  AddOnce(names, gpu_kernel);
  if (const KernelSource* source = FindGpuKernel(gpu_kernel)) {
    for (const std::string& f : source->code_names) AddOnce(names, f);
  }
  return names;
}

std::string SourceMap::ToJson(int indent) const {
  using Json = nlohmann::ordered_json;
  Json root;
  root["schema"] = "fusebox.source_map/2";
  root["module"] = module_name_;
  root["stages"] = stages_;
  root["notes"] = notes_;
  Json instructions = Json::array();
  for (const InstructionSource& inst : instructions_) {
    Json j;
    j["name"] = inst.name;
    j["opcode"] = inst.opcode;
    j["kernel"] = inst.kernel.empty() ? Json(nullptr) : Json(inst.kernel);
    j["gpu_kernel"] = inst.gpu_kernel.empty() ? Json(nullptr) : Json(inst.gpu_kernel);
    j["location"] = inst.location ? LocationJson(*inst.location) : Json(nullptr);
    instructions.push_back(std::move(j));
  }
  root["instructions"] = std::move(instructions);
  root["kernels"] = KernelsJson(cpu_.kernels, /*gpu=*/false);
  root["gpu_kernels"] = KernelsJson(gpu_.kernels, /*gpu=*/true);
  return root.dump(indent) + "\n";
}


StatusOr<SourceMap> BuildSourceMap(CompileSession& session, const SourceMapOptions& options) {
  RETURN_IF_ERROR(session.Optimize());
  SourceMap map;
  map.MapKernels(*session.optimized_module());
  // The GPU side from the module the GPU stages come from; a GPU pipeline that fails
  // leaves a note (the CPU side stands).
  const bool gpu_module = options.gpu && session.OptimizeForGpu().ok();
  if (gpu_module) map.MapGpuKernels(*session.gpu_optimized_module());
  std::vector<Stage> stages = {Stage::kHlo, Stage::kOptimizedHlo};
  if (options.cpu) {
    auto cpu = session.CpuCompile();
    if (cpu.ok()) {
      map.AddCpuCode((*cpu)->code());
      stages.insert(stages.end(), {Stage::kLlvmIr, Stage::kLlvmIrOptimized});
    } else {
      map.AddNote("cpu: " + cpu.status().message());
    }
  }
  if (options.gpu) {
    if (gpu_module) stages.push_back(Stage::kGpuOptimizedHlo);
    auto gpu = session.GpuCompile();
    if (gpu.ok()) {
      map.AddGpuCode(**gpu);
      map.AddGpuLibraryCalls(session.gpu_library_calls());
      stages.insert(stages.end(), {Stage::kGpuLlvmIr, Stage::kGpuLlvmIrOptimized, Stage::kPtx});
    } else {
      map.AddNote("gpu: " + gpu.status().message());
    }
  }
  map.MapInput(session.input());  // after the library calls: an input dot's call is its GPU kernel
  for (Stage stage : stages) {
    ASSIGN_OR_RETURN(std::string text, session.StageText(stage));
    map.AddLocations(std::string(StageName(stage)), text);
  }
  return map;
}

}  // namespace fusebox::session
