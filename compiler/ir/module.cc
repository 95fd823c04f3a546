// Module bookkeeping: computations, entry, reachability, the deep copy, the program
// computations, stack-frame descriptions.
#include "compiler/ir/module.h"

#include <unordered_map>
#include <unordered_set>

#include "compiler/ir/printer_internal.h"

namespace fusebox {

Computation* Module::AddComputation(std::unique_ptr<Computation> computation) {
  Computation* raw = computation.get();
  raw->set_parent(this);
  for (const auto& inst : raw->instructions()) {
    if (inst->id() < 0) inst->set_id(NextInstructionId());
  }
  by_name_.emplace(raw->name(), raw);
  computations_.push_back(std::move(computation));
  return raw;
}

Computation* Module::FindComputation(const std::string& name) const {
  auto it = by_name_.find(name);
  if (it != by_name_.end() && it->second->name() == name) return it->second;
  for (const auto& c : computations_) {
    if (c->name() == name) return c.get();
  }
  return nullptr;
}

void Module::set_entry(Computation* entry) {
  if (entry_) entry_->set_is_entry(false);
  entry_ = entry;
  if (entry_) entry_->set_is_entry(true);
}

int Module::RemoveUnreachableComputations() {
  if (!entry_) return 0;
  std::unordered_set<const Computation*> reachable;
  std::vector<const Computation*> work = {entry_};
  reachable.insert(entry_);
  while (!work.empty()) {
    const Computation* c = work.back();
    work.pop_back();
    for (const auto& inst : c->instructions()) {
      for (Computation* callee : inst->called_computations()) {
        if (callee && reachable.insert(callee).second) work.push_back(callee);
      }
    }
  }
  int removed = 0;
  for (auto it = computations_.begin(); it != computations_.end();) {
    if (!reachable.count(it->get())) {
      auto named = by_name_.find((*it)->name());
      if (named != by_name_.end() && named->second == it->get()) by_name_.erase(named);
      it = computations_.erase(it);
      ++removed;
    } else {
      ++it;
    }
  }
  return removed;
}

std::string Module::UniqueName(const std::string& prefix) {
  if (names_in_use_.empty()) {
    for (const auto& c : computations_) {
      names_in_use_.insert(c->name());
      for (const auto& inst : c->instructions()) names_in_use_.insert(inst->name());
    }
  }
  std::string base = prefix.empty() ? "v" : prefix;
  std::string name = base;
  // Continue from the last suffix handed out for this prefix.
  int64_t& next = next_suffix_[base];
  while (names_in_use_.count(name)) name = base + "." + std::to_string(++next);
  names_in_use_.insert(name);
  return name;
}

int64_t Module::instruction_count() const {
  int64_t n = 0;
  for (const auto& c : computations_) n += c->instruction_count();
  return n;
}

namespace {

// The copy of `from`'s instructions, computations and edges inside the cloned module.
class CloneMap {
 public:
  Computation* Of(const Computation* c) const {
    auto it = computations_.find(c);
    return it == computations_.end() ? nullptr : it->second;
  }
  Instruction* Of(const Instruction* i) const {
    auto it = instructions_.find(i);
    return it == instructions_.end() ? nullptr : it->second;
  }
  void Add(const Computation* from, Computation* to) { computations_.emplace(from, to); }
  void Add(const Instruction* from, Instruction* to) { instructions_.emplace(from, to); }

 private:
  std::unordered_map<const Computation*, Computation*> computations_;
  std::unordered_map<const Instruction*, Instruction*> instructions_;
};

// A computation's instructions without their edges (added once every instruction of the
// module exists), in print order, with their ids.
Computation* CopyNodes(const Computation& from, Module& to, CloneMap& map) {
  auto copy = std::make_unique<Computation>(from.name());
  copy->set_location(from.location());
  copy->set_execution_thread(from.execution_thread());
  Computation* raw = to.AddComputation(std::move(copy));
  map.Add(&from, raw);
  std::vector<const Instruction*> order = ir_internal::InstructionsInPrintOrder(from);
  // Elements read as `%tuple#i` come last, as the parser makes them.
  for (const Instruction* element : ir_internal::TupleOperandElements(from)) order.push_back(element);
  for (const Instruction* inst : order) {
    std::unique_ptr<Instruction> twin = inst->CloneWithOperands({}, inst->name());
    twin->set_id(inst->id());
    map.Add(inst, raw->AddInstruction(std::move(twin)));
  }
  raw->set_root(from.root() ? map.Of(from.root()) : nullptr);
  return raw;
}

// Operands, then control predecessors, instruction by instruction in print order: the
// order the parser adds them in, so every user list comes out as a parsed module's.
// Called computations point at the copies; a fused computation's fusion instruction is
// the last fusion calling it. False when an edge or a call leaves the module.
bool CopyEdges(const Computation& from, const CloneMap& map) {
  // The parser links `%tuple#i` elements to their tuples before any other operand.
  for (const Instruction* element : ir_internal::TupleOperandElements(from)) {
    Instruction* mapped = map.Of(element->operand(0));
    if (mapped == nullptr) return false;
    map.Of(element)->AppendOperand(mapped);
  }
  for (const Instruction* inst : ir_internal::InstructionsInPrintOrder(from)) {
    Instruction* twin = map.Of(inst);
    for (const Instruction* operand : inst->operands()) {
      Instruction* mapped = map.Of(operand);
      if (mapped == nullptr) return false;
      twin->AppendOperand(mapped);
    }
    for (const Instruction* pred : inst->control_predecessors()) {
      Instruction* mapped = map.Of(pred);
      if (mapped == nullptr) return false;
      twin->AddControlPredecessor(mapped);
    }
    for (size_t i = 0; i < inst->called_computations().size(); ++i) {
      const Computation* original = inst->called_computations()[i];
      Computation* callee = map.Of(original);
      if (original != nullptr && callee == nullptr) return false;
      twin->set_called_computation(static_cast<int64_t>(i), callee);
      if (callee != nullptr && inst->opcode() == Opcode::kFusion) callee->set_fusion_instruction(twin);
    }
  }
  return true;
}

}  // namespace

std::unique_ptr<Module> Module::Clone() const {
  auto clone = std::make_unique<Module>(name_);
  clone->source_name_ = source_name_;
  clone->next_id_ = next_id_;
  clone->entry_computation_layout = entry_computation_layout;
  clone->input_output_alias = input_output_alias;
  clone->has_input_output_alias = has_input_output_alias;
  clone->buffer_donor = buffer_donor;
  clone->has_buffer_donor = has_buffer_donor;
  clone->is_scheduled = is_scheduled;
  clone->replica_count = replica_count;
  clone->num_partitions = num_partitions;
  clone->frontend_attributes = frontend_attributes;
  clone->has_frontend_attributes = has_frontend_attributes;
  clone->alias_passthrough_params = alias_passthrough_params;
  clone->allow_spmd_sharding_propagation_to_parameters = allow_spmd_sharding_propagation_to_parameters;
  clone->has_allow_spmd_to_parameters = has_allow_spmd_to_parameters;
  clone->allow_spmd_sharding_propagation_to_output = allow_spmd_sharding_propagation_to_output;
  clone->has_allow_spmd_to_output = has_allow_spmd_to_output;
  clone->raw_attributes = raw_attributes;
  clone->stack_frames = stack_frames;

  CloneMap map;
  const std::vector<const Computation*> order = ir_internal::ComputationsInPrintOrder(*this);
  for (const Computation* comp : order) CopyNodes(*comp, *clone, map);
  for (const Computation* comp : order) {
    if (!CopyEdges(*comp, map)) return nullptr;
  }
  clone->set_entry(entry_ ? map.Of(entry_) : nullptr);
  return clone;
}

std::vector<Computation*> ProgramComputations(const Module& module, const ProgramWalk& walk) {
  std::vector<Computation*> out;
  if (module.entry() == nullptr) return out;
  std::unordered_set<const Computation*> seen = {module.entry()};
  // Breadth first reads `out` as its queue; depth first keeps a stack.
  std::vector<Computation*> stack = {module.entry()};
  if (walk.breadth_first) out.push_back(module.entry());
  auto visit = [&](const Computation& comp) {
    for (const auto& inst : comp.instructions()) {
      const Opcode op = inst->opcode();
      const bool calls_program = op == Opcode::kWhile || op == Opcode::kConditional || op == Opcode::kCall ||
                                 (walk.through_async_start && op == Opcode::kAsyncStart);
      if (!calls_program) continue;
      for (Computation* callee : inst->called_computations()) {
        if (callee == nullptr || (walk.skip_fused && callee->IsFusionComputation())) continue;
        if (!seen.insert(callee).second) continue;
        (walk.breadth_first ? out : stack).push_back(callee);
      }
    }
  };
  if (walk.breadth_first) {
    for (size_t i = 0; i < out.size(); ++i) visit(*out[i]);
    return out;
  }
  while (!stack.empty()) {
    Computation* comp = stack.back();
    stack.pop_back();
    out.push_back(comp);
    visit(*comp);
  }
  return out;
}

std::string StackFrameIndex::Describe(int64_t frame_id) const {
  std::string out;
  int guard = 0;
  while (frame_id > 0 && frame_id <= static_cast<int64_t>(stack_frames.size()) && guard++ < 64) {
    const Frame& frame = stack_frames[frame_id - 1];
    if (frame.file_location_id > 0 &&
        frame.file_location_id <= static_cast<int64_t>(file_locations.size())) {
      const FileLocation& loc = file_locations[frame.file_location_id - 1];
      std::string file = loc.file_name_id > 0 && loc.file_name_id <= static_cast<int64_t>(file_names.size())
                             ? file_names[loc.file_name_id - 1] : "?";
      std::string fn = loc.function_name_id > 0 &&
                               loc.function_name_id <= static_cast<int64_t>(function_names.size())
                           ? function_names[loc.function_name_id - 1] : "?";
      if (!out.empty()) out += " <- ";
      out += file + ":" + std::to_string(loc.line) + " (" + fn + ")";
    }
    // XLA's text prints a frame's parent one higher than the id it stores: 1 means "no
    // parent", N + 1 means frame N (its HloModuleProto twin says so).
    frame_id = frame.parent_frame_id - 1;
  }
  return out;
}

}  // namespace fusebox
