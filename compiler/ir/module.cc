// Module bookkeeping: computations, entry, reachability, stack-frame descriptions.
#include "compiler/ir/module.h"

#include <unordered_set>

#include "compiler/parser/parser.h"

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

std::unique_ptr<Module> Module::Clone() const {
  ParseOptions options;
  options.filename = source_name_;
  auto parsed = ParseModule(ToString(), options);
  if (!parsed.ok()) return nullptr;  // cannot happen for a module that printed
  (*parsed)->set_name(name_);
  return std::move(parsed).value();
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
