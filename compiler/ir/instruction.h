// HLO instructions: name, opcode, shape, operands, called computations and typed
// attributes. Instructions are owned by their computation; operands and users are
// non-owning pointers kept consistent by the mutators here.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/attributes.h"
#include "compiler/ir/literal.h"
#include "compiler/ir/opcode.h"
#include "compiler/ir/shape.h"

namespace fusebox {

class Computation;

// Where something came from in a parsed file; line and column are 1-based, 0 if unknown.
struct SourceLocation {
  int32_t line = 0;
  int32_t column = 0;
  bool known() const { return line > 0; }
};

// How called computations are spelled in text; decided by the opcode and, for
// conditionals and custom calls, by how the source wrote them.
enum class CallForm : uint8_t {
  kNone,
  kToApply,             // to_apply=%c (reduce, map, sort, call, all-reduce, scatter, ...)
  kCalls,               // calls=%c (fusion, async-start) or calls={%a, %b}
  kConditionBody,       // condition=%c, body=%b (while)
  kBranches,            // branch_computations={%a, %b} (conditional)
  kTrueFalse,           // true_computation=%a, false_computation=%b (conditional)
  kSelectScatter,       // select=%a, scatter=%b (select-and-scatter)
  kCalledComputations,  // called_computations={%a, %b} (custom-call)
};

class Instruction {
 public:
  Instruction(Opcode opcode, std::string name, Shape shape);
  Instruction(const Instruction&) = delete;
  Instruction& operator=(const Instruction&) = delete;
  ~Instruction();

  Opcode opcode() const { return opcode_; }
  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  const Shape& shape() const { return shape_; }
  Shape* mutable_shape() { return &shape_; }
  void set_shape(Shape shape) { shape_ = std::move(shape); }
  Computation* parent() const { return parent_; }
  void set_parent(Computation* parent) { parent_ = parent; }
  // Unique within the module; assigned when added to a computation.
  int64_t id() const { return id_; }
  void set_id(int64_t id) { id_ = id; }

  // --- Operands and users ---
  const std::vector<Instruction*>& operands() const { return operands_; }
  Instruction* operand(int64_t i) const { return operands_[i]; }
  int64_t operand_count() const { return static_cast<int64_t>(operands_.size()); }
  void AppendOperand(Instruction* operand);
  void ReplaceOperand(int64_t i, Instruction* operand);
  const std::vector<Instruction*>& users() const { return users_; }
  int64_t user_count() const { return static_cast<int64_t>(users_.size()); }
  // Makes every user of this instruction use `other` instead.
  void ReplaceAllUsesWith(Instruction* other);
  // Drops all operand and control edges (before deletion).
  void DetachFromOperands();

  // --- Control edges: control-predecessors={%a, %b} ---
  const std::vector<Instruction*>& control_predecessors() const { return control_predecessors_; }
  const std::vector<Instruction*>& control_successors() const { return control_successors_; }
  void AddControlPredecessor(Instruction* pred);

  // --- Called computations ---
  const std::vector<Computation*>& called_computations() const { return called_; }
  Computation* called_computation(int64_t i = 0) const { return called_[i]; }
  void AppendCalledComputation(Computation* c) { called_.push_back(c); }
  void set_called_computation(int64_t i, Computation* c) { called_[i] = c; }
  CallForm call_form() const { return call_form_; }
  void set_call_form(CallForm form) { call_form_ = form; }
  // For fusions: the fused computation; for while: condition / body.
  Computation* fused_computation() const { return called_.empty() ? nullptr : called_[0]; }
  Computation* while_condition() const { return called_.size() > 0 ? called_[0] : nullptr; }
  Computation* while_body() const { return called_.size() > 1 ? called_[1] : nullptr; }
  Computation* to_apply() const { return called_.empty() ? nullptr : called_[0]; }

  // --- Opcode-specific scalars kept inline ---
  int64_t parameter_number() const { return parameter_number_; }
  void set_parameter_number(int64_t n) { parameter_number_ = n; }
  const Literal* literal() const { return literal_.get(); }
  void set_literal(std::unique_ptr<Literal> literal) { literal_ = std::move(literal); }
  // Constant printed as `{...}`: its values were elided by the writer of the file.
  bool literal_elided() const { return literal_elided_; }
  void set_literal_elided(bool elided) { literal_elided_ = elided; }

  // --- Attributes ---
  bool has_attributes() const { return attrs_ != nullptr; }
  const InstructionAttributes& attrs() const;
  InstructionAttributes& mutable_attrs();

  // Shorthands for the most used attributes.
  const std::vector<int64_t>& dimensions() const;
  int64_t tuple_index() const { return attrs().tuple_index; }
  std::optional<FusionKind> fusion_kind() const { return attrs().fusion_kind; }
  const OpMetadata* metadata() const { return metadata_.get(); }
  OpMetadata& mutable_metadata();
  void set_metadata(OpMetadata metadata);
  void clear_metadata() { metadata_.reset(); }

  // Where the instruction was defined in the parsed text (for messages).
  const SourceLocation& location() const { return location_; }
  void set_location(SourceLocation loc) { location_ = loc; }

  // A copy of this instruction (opcode, shape, attributes, metadata, literal, called
  // computations, parameter number) with other operands and name; no users, no parent,
  // no control edges.
  std::unique_ptr<Instruction> CloneWithOperands(const std::vector<Instruction*>& operands,
                                                 std::string name) const;

  // `%name = f32[2]{0} add(%a, %b), attrs...` (no indentation, no ROOT).
  std::string ToString() const;
  // The attributes part only, starting with ", " when non-empty.
  std::string AttributesToString() const;

  bool IsRoot() const;
  bool IsFused() const;  // lives in a fusion computation

 private:
  Opcode opcode_;
  std::string name_;
  Shape shape_;
  Computation* parent_ = nullptr;
  int64_t id_ = -1;
  std::vector<Instruction*> operands_;
  std::vector<Instruction*> users_;
  std::vector<Instruction*> control_predecessors_;
  std::vector<Instruction*> control_successors_;
  std::vector<Computation*> called_;
  CallForm call_form_ = CallForm::kNone;
  int64_t parameter_number_ = -1;
  std::unique_ptr<Literal> literal_;
  bool literal_elided_ = false;
  std::unique_ptr<InstructionAttributes> attrs_;
  std::unique_ptr<OpMetadata> metadata_;
  SourceLocation location_;
};

}  // namespace fusebox
