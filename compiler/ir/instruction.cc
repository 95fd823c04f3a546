// Instruction graph edits (operands, users, control edges) and accessors.
#include "compiler/ir/instruction.h"

#include <algorithm>

#include "compiler/ir/computation.h"

namespace fusebox {

namespace {
void RemoveOne(std::vector<Instruction*>* list, Instruction* item) {
  auto it = std::find(list->begin(), list->end(), item);
  if (it != list->end()) list->erase(it);
}
void AddUnique(std::vector<Instruction*>* list, Instruction* item) {
  if (std::find(list->begin(), list->end(), item) == list->end()) list->push_back(item);
}
}  // namespace

Instruction::Instruction(Opcode opcode, std::string name, Shape shape)
    : opcode_(opcode), name_(std::move(name)), shape_(std::move(shape)) {}

Instruction::~Instruction() = default;

void Instruction::AppendOperand(Instruction* operand) {
  operands_.push_back(operand);
  AddUnique(&operand->users_, this);
}

void Instruction::ReplaceOperand(int64_t i, Instruction* operand) {
  Instruction* old = operands_[i];
  operands_[i] = operand;
  if (std::find(operands_.begin(), operands_.end(), old) == operands_.end()) {
    RemoveOne(&old->users_, this);
  }
  AddUnique(&operand->users_, this);
}

void Instruction::ReplaceAllUsesWith(Instruction* other) {
  std::vector<Instruction*> users = users_;
  for (Instruction* user : users) {
    for (int64_t i = 0; i < user->operand_count(); ++i) {
      if (user->operands_[i] == this) user->ReplaceOperand(i, other);
    }
  }
  if (parent_ && parent_->root() == this) parent_->set_root(other);
}

void Instruction::DetachFromOperands() {
  for (Instruction* operand : operands_) RemoveOne(&operand->users_, this);
  operands_.clear();
  for (Instruction* pred : control_predecessors_) RemoveOne(&pred->control_successors_, this);
  control_predecessors_.clear();
  for (Instruction* succ : control_successors_) RemoveOne(&succ->control_predecessors_, this);
  control_successors_.clear();
}

void Instruction::AddControlPredecessor(Instruction* pred) {
  control_predecessors_.push_back(pred);
  AddUnique(&pred->control_successors_, this);
}

const InstructionAttributes& Instruction::attrs() const {
  static const InstructionAttributes kEmpty;
  return attrs_ ? *attrs_ : kEmpty;
}

InstructionAttributes& Instruction::mutable_attrs() {
  if (!attrs_) attrs_ = std::make_unique<InstructionAttributes>();
  return *attrs_;
}

OpMetadata& Instruction::mutable_metadata() {
  if (!metadata_) metadata_ = std::make_unique<OpMetadata>();
  return *metadata_;
}

void Instruction::set_metadata(OpMetadata metadata) {
  metadata_ = std::make_unique<OpMetadata>(std::move(metadata));
}

const std::vector<int64_t>& Instruction::dimensions() const {
  static const std::vector<int64_t> kEmpty;
  const auto& dims = attrs().dimensions;
  return dims ? *dims : kEmpty;
}

std::unique_ptr<Instruction> Instruction::CloneWithOperands(
    const std::vector<Instruction*>& operands, std::string name) const {
  auto clone = std::make_unique<Instruction>(opcode_, std::move(name), shape_);
  for (Instruction* op : operands) clone->AppendOperand(op);
  clone->called_ = called_;
  clone->call_form_ = call_form_;
  clone->parameter_number_ = parameter_number_;
  if (literal_) clone->literal_ = std::make_unique<Literal>(*literal_);
  clone->literal_elided_ = literal_elided_;
  if (attrs_) clone->attrs_ = std::make_unique<InstructionAttributes>(*attrs_);
  if (metadata_) clone->metadata_ = std::make_unique<OpMetadata>(*metadata_);
  clone->location_ = location_;
  return clone;
}

bool Instruction::IsRoot() const { return parent_ != nullptr && parent_->root() == this; }
bool Instruction::IsFused() const { return parent_ != nullptr && parent_->IsFusionComputation(); }

}  // namespace fusebox
