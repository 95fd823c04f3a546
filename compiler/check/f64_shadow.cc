// Widening a module to f64 for the numeric check's shadow run.
#include "compiler/check/f64_shadow.h"

#include <unordered_map>

namespace fusebox {

namespace {

bool Widens(PrimitiveType type) {
  return (IsFloat(type) && type != PrimitiveType::kF64) || type == PrimitiveType::kC64;
}

bool HasWideningLeaf(const Shape& shape) {
  if (shape.IsTuple()) {
    for (const Shape& element : shape.tuple_shapes()) {
      if (HasWideningLeaf(element)) return true;
    }
    return false;
  }
  return shape.IsArray() && Widens(shape.element_type());
}

// Ops whose result depends on the bits of their types, not only on values.
bool KeepsTypes(Opcode opcode) {
  switch (opcode) {
    case Opcode::kBitcastConvert:
    case Opcode::kReducePrecision:
    case Opcode::kCustomCall:
    case Opcode::kStochasticConvert:
    case Opcode::kInfeed:
    case Opcode::kOutfeed:
    case Opcode::kSend:
    case Opcode::kRecv:
    case Opcode::kRngBitGenerator:
      return true;
    default:
      return false;
  }
}

Instruction* AddConvert(Module& module, Computation& computation, Instruction* operand,
                        const Shape& shape) {
  auto convert = std::make_unique<Instruction>(Opcode::kConvert,
                                               module.UniqueName(operand->name() + ".shadow"), shape);
  convert->AppendOperand(operand);
  return computation.AddInstruction(std::move(convert));
}

}  // namespace

Shape WidenToF64(const Shape& shape) {
  Shape out = shape;
  if (out.IsTuple()) {
    for (Shape& element : *out.mutable_tuple_shapes()) element = WidenToF64(element);
    return out;
  }
  if (!out.IsArray() || !Widens(out.element_type())) return out;
  out.set_element_type(IsComplex(out.element_type()) ? PrimitiveType::kC128 : PrimitiveType::kF64);
  if (out.has_layout()) out.mutable_layout()->element_size_in_bits = 0;
  return out;
}

Literal WidenLiteralToF64(const Literal& literal) {
  if (literal.shape().IsTuple()) {
    Literal out(WidenToF64(literal.shape()));
    for (size_t i = 0; i < literal.tuple_elements().size(); ++i) {
      out.tuple_elements()[i] = WidenLiteralToF64(literal.tuple_elements()[i]);
    }
    return out;
  }
  const PrimitiveType type = literal.shape().element_type();
  if (!literal.shape().IsArray() || !Widens(type)) return literal;
  Literal out = Literal::CreateUninitialized(WidenToF64(literal.shape()));
  const int64_t count = literal.element_count();
  if (IsComplex(type)) {
    for (int64_t i = 0; i < count; ++i) out.SetComplex(i, literal.GetComplex(i));
  } else {
    for (int64_t i = 0; i < count; ++i) out.SetDouble(i, literal.GetDouble(i));
  }
  return out;
}

StatusOr<std::unique_ptr<Module>> MakeF64Shadow(const Module& module) {
  std::unique_ptr<Module> shadow = module.Clone();
  if (!shadow || !shadow->entry()) return Internal("the module has no entry computation to widen");
  shadow->entry_computation_layout.reset();
  for (const auto& computation : shadow->computations()) {
    // Snapshot the instruction list: converts are added while walking.
    std::vector<Instruction*> instructions;
    for (const auto& ins : computation->instructions()) instructions.push_back(ins.get());
    std::unordered_map<const Instruction*, Shape> original;
    for (Instruction* ins : instructions) {
      original.emplace(ins, ins->shape());
      if (KeepsTypes(ins->opcode())) continue;
      if (!HasWideningLeaf(ins->shape())) continue;
      ins->set_shape(WidenToF64(ins->shape()));
      if (ins->opcode() == Opcode::kConstant && ins->literal() != nullptr) {
        ins->set_literal(std::make_unique<Literal>(WidenLiteralToF64(*ins->literal())));
      }
    }
    for (Instruction* ins : instructions) {
      if (!KeepsTypes(ins->opcode())) continue;
      for (int64_t i = 0; i < ins->operand_count(); ++i) {
        Instruction* operand = ins->operand(i);
        const Shape& wanted = original.at(operand);
        if (operand->shape() == wanted) continue;
        if (wanted.IsTuple()) {
          return Unimplemented("%" + ins->name() + " (" + std::string(OpcodeName(ins->opcode())) +
                               ") takes a tuple of floating values; the f64 shadow keeps its types "
                               "and cannot convert a tuple");
        }
        ins->ReplaceOperand(i, AddConvert(*shadow, *computation, operand, wanted));
      }
      if (!HasWideningLeaf(ins->shape())) continue;
      if (ins->shape().IsTuple()) {
        return Unimplemented("%" + ins->name() + " (" + std::string(OpcodeName(ins->opcode())) +
                             ") returns a tuple of floating values; the f64 shadow keeps its types "
                             "and cannot convert a tuple");
      }
      std::vector<Instruction*> users = ins->users();
      const bool was_root = computation->root() == ins;
      Instruction* widened = AddConvert(*shadow, *computation, ins, WidenToF64(ins->shape()));
      for (Instruction* user : users) {
        for (int64_t i = 0; i < user->operand_count(); ++i) {
          if (user->operand(i) == ins) user->ReplaceOperand(i, widened);
        }
      }
      if (was_root) computation->set_root(widened);
    }
  }
  return shadow;
}

}  // namespace fusebox
