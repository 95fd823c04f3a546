#include "compiler/backend/layout_normalization.h"

#include <string>

namespace fusebox::backend {

namespace {

std::vector<int64_t> MajorToMinor(const Shape& shape) {
  std::vector<int64_t> order;
  if (shape.has_layout() && static_cast<int64_t>(shape.layout().minor_to_major.size()) == shape.rank()) {
    order.assign(shape.layout().minor_to_major.rbegin(), shape.layout().minor_to_major.rend());
  } else {
    for (int64_t d = 0; d < shape.rank(); ++d) order.push_back(d);
  }
  return order;
}

bool IsIdentity(const std::vector<int64_t>& order) {
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

}  // namespace

// Buffers are row-major, so a bitcast between shapes with other layouts becomes what it
// means logically (as the interpreter evaluates it): a transpose of the operand into its
// physical order, a reshape to the result's physical dimensions, a transpose back to the
// result's logical order.
Status RewriteLayoutBitcasts(Module& module, std::string_view backend) {
  for (const auto& comp : module.computations()) {
    std::vector<Instruction*> bitcasts;
    for (const auto& inst : comp->instructions()) {
      if (inst->opcode() == Opcode::kBitcast) bitcasts.push_back(inst.get());
    }
    for (Instruction* bitcast : bitcasts) {
      Instruction* operand = bitcast->operand(0);
      const Shape& in = operand->shape();
      const Shape& out = bitcast->shape();
      if (!in.IsArray() || !out.IsArray()) continue;
      std::vector<int64_t> in_order = MajorToMinor(in), out_order = MajorToMinor(out);
      if (IsIdentity(in_order) && IsIdentity(out_order)) continue;
      if (in.element_type() != out.element_type()) {
        return Unimplemented(std::string(backend) + ": " + bitcast->name() +
                             ": a bitcast that changes the element type under a non-default layout");
      }
      auto make = [&](Opcode op, Shape shape, Instruction* from, std::vector<int64_t> dims) {
        auto inst = std::make_unique<Instruction>(op, module.UniqueName(std::string(OpcodeName(op))), std::move(shape));
        inst->AppendOperand(from);
        if (op == Opcode::kTranspose) inst->mutable_attrs().dimensions = std::move(dims);
        return comp->AddInstruction(std::move(inst));
      };
      Instruction* value = operand;
      if (!IsIdentity(in_order)) {
        std::vector<int64_t> dims;
        for (int64_t d : in_order) dims.push_back(in.dimensions(d));
        value = make(Opcode::kTranspose, Shape(in.element_type(), dims), value, in_order);
      }
      std::vector<int64_t> out_physical;
      for (int64_t d : out_order) out_physical.push_back(out.dimensions(d));
      value = make(Opcode::kReshape, Shape(out.element_type(), out_physical), value, {});
      if (!IsIdentity(out_order)) {
        std::vector<int64_t> inverse(out_order.size());
        for (size_t k = 0; k < out_order.size(); ++k) inverse[out_order[k]] = static_cast<int64_t>(k);
        value = make(Opcode::kTranspose, Shape(out.element_type(), out.dimensions()), value, inverse);
      }
      bitcast->ReplaceAllUsesWith(value);
      comp->RemoveInstruction(bitcast);
    }
  }
  return Status::Ok();
}

void SetDefaultLayouts(Module& module) {
  for (const auto& comp : module.computations()) {
    for (const auto& inst : comp->instructions()) inst->mutable_shape()->SetDefaultLayout();
  }
}

Status NormalizeLayoutsForBackend(Module& module, std::string_view backend) {
  RETURN_IF_ERROR(RewriteLayoutBitcasts(module, backend));
  SetDefaultLayouts(module);
  return Status::Ok();
}

}  // namespace fusebox::backend
