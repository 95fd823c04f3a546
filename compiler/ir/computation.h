// HLO computations: an ordered list of instructions with parameters and a root.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/ir/instruction.h"

namespace fusebox {

class Module;

class Computation {
 public:
  explicit Computation(std::string name) : name_(std::move(name)) {}
  Computation(const Computation&) = delete;
  Computation& operator=(const Computation&) = delete;

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  Module* parent() const { return parent_; }
  void set_parent(Module* module) { parent_ = module; }

  // Adds an instruction at the end (or before `before`); parameters are also
  // registered by their parameter number.
  Instruction* AddInstruction(std::unique_ptr<Instruction> instruction);
  // Removes an instruction that has no users; returns false if it still has users.
  bool RemoveInstruction(Instruction* instruction);
  // Puts `replacement` (already in this computation) in `old`'s place: old's users, root
  // role and control edges move to it, then `old` is removed.
  void ReplaceInstruction(Instruction* old, Instruction* replacement);
  // Renames one of this computation's instructions; FindInstruction follows.
  void RenameInstruction(Instruction* instruction, std::string name);

  const std::vector<std::unique_ptr<Instruction>>& instructions() const { return instructions_; }
  int64_t instruction_count() const { return static_cast<int64_t>(instructions_.size()); }
  Instruction* root() const { return root_; }
  void set_root(Instruction* root) { root_ = root; }
  // Parameters ordered by number; null slots where a number is missing.
  const std::vector<Instruction*>& parameters() const { return parameters_; }
  Instruction* parameter(int64_t i) const { return parameters_[i]; }
  int64_t parameter_count() const { return static_cast<int64_t>(parameters_.size()); }
  Instruction* FindInstruction(const std::string& name) const;

  // Instructions with operands before users (stable: text order where possible).
  std::vector<Instruction*> PostOrder() const;

  bool is_entry() const { return is_entry_; }
  void set_is_entry(bool entry) { is_entry_ = entry; }
  // The fusion instruction that calls this computation, if it is a fused computation.
  Instruction* fusion_instruction() const { return fusion_instruction_; }
  void set_fusion_instruction(Instruction* fusion) { fusion_instruction_ = fusion; }
  bool IsFusionComputation() const { return fusion_instruction_ != nullptr; }

  // execution_thread="..." printed after the closing brace; empty means main.
  const std::string& execution_thread() const { return execution_thread_; }
  void set_execution_thread(std::string thread) { execution_thread_ = std::move(thread); }

  // Signature shape: (params) -> root shape.
  Shape ComputeProgramShapeResult() const { return root_ ? root_->shape() : Shape(); }

  SourceLocation location() const { return location_; }
  void set_location(SourceLocation loc) { location_ = loc; }

  // The whole computation in XLA's text form.
  std::string ToString() const;
  void AppendTo(std::string* out) const;

 private:
  std::string name_;
  Module* parent_ = nullptr;
  std::vector<std::unique_ptr<Instruction>> instructions_;
  std::unordered_map<std::string, Instruction*> by_name_;
  std::vector<Instruction*> parameters_;
  Instruction* root_ = nullptr;
  bool is_entry_ = false;
  Instruction* fusion_instruction_ = nullptr;
  std::string execution_thread_;
  SourceLocation location_;
};

}  // namespace fusebox
