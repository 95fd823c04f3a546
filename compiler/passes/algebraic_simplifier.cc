// The algebraic simplifier: one handler per opcode, each a few local rewrites.
#include "compiler/passes/algebraic_simplifier.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <memory>
#include <string>
#include <vector>

#include "compiler/passes/constant_folding.h"
#include "compiler/support/planted_bugs.h"
#include "compiler/verifier/shape_inference.h"

namespace fusebox::passes {

namespace {

bool IsConstantWithValues(const Instruction* inst) {
  return inst->opcode() == Opcode::kConstant && inst->literal() != nullptr &&
         !inst->literal_elided();
}

// The literal of a constant (or of the scalar constant a broadcast spreads) whose
// elements are all the same bits; null otherwise. Element 0 then is the value of all.
const Literal* UniformConstant(const Instruction* inst) {
  if (inst->opcode() == Opcode::kBroadcast) inst = inst->operand(0);
  if (!IsConstantWithValues(inst)) return nullptr;
  const Literal* literal = inst->literal();
  if (!literal->shape().IsArray() || literal->element_count() == 0) return nullptr;
  uint64_t first = literal->GetBits(0);
  for (int64_t i = 1; i < literal->element_count(); ++i) {
    if (literal->GetBits(i) != first) return nullptr;
  }
  return literal;
}

// Whether every element of `inst` is the small integer `value` (0 or 1 here), read in
// the element type: -0.0 counts as 0, `true` as 1.
bool IsUniformValue(const Instruction* inst, int64_t value) {
  const Literal* literal = UniformConstant(inst);
  if (literal == nullptr) return false;
  PrimitiveType type = literal->shape().element_type();
  if (IsPred(type)) return literal->GetBool(0) == (value != 0);
  if (IsInteger(type)) return literal->GetInt64(0) == value;
  if (IsFloat(type)) return literal->GetDouble(0) == static_cast<double>(value);
  if (IsComplex(type)) {
    return literal->GetComplex(0) == std::complex<double>(static_cast<double>(value), 0.0);
  }
  return false;
}

bool IsIdentityPermutation(const std::vector<int64_t>& dims) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

// One sweep's worth of rewrites over a computation.
class Simplifier {
 public:
  explicit Simplifier(Module& module) : module_(module) {}

  // Returns whether `inst` was rewritten (its uses now point elsewhere).
  bool Visit(Instruction* inst) {
    if (TryFoldScalarConstants(inst)) return true;
    switch (inst->opcode()) {
      case Opcode::kAdd: return HandleAdd(inst);
      case Opcode::kSubtract: return HandleSubtract(inst);
      case Opcode::kMultiply: return HandleMultiply(inst);
      case Opcode::kDivide: return HandleDivide(inst);
      case Opcode::kPower: return HandlePower(inst);
      case Opcode::kAnd: return HandleAnd(inst);
      case Opcode::kOr: return HandleOr(inst);
      case Opcode::kSelect: return HandleSelect(inst);
      case Opcode::kNegate:
      case Opcode::kNot: return HandleInvolution(inst);
      case Opcode::kBroadcast: return HandleBroadcast(inst);
      case Opcode::kReshape: return HandleReshape(inst);
      case Opcode::kTranspose: return HandleTranspose(inst);
      case Opcode::kConvert: return HandleConvert(inst);
      case Opcode::kCopy: return HandleCopy(inst);
      case Opcode::kSlice: return HandleSlice(inst);
      case Opcode::kConcatenate: return HandleConcatenate(inst);
      case Opcode::kPad: return HandlePad(inst);
      case Opcode::kReduce: return HandleReduce(inst);
      case Opcode::kDynamicSlice: return HandleDynamicSlice(inst);
      default: return false;
    }
  }

 private:
  // Redirects the uses of `old` to `existing`, only when the shapes are equal including
  // layout (otherwise the users would see a different buffer layout).
  bool ReplaceWithExisting(Instruction* old, Instruction* existing) {
    if (old == existing || old->shape() != existing->shape()) return false;
    old->ReplaceAllUsesWith(existing);
    return true;
  }

  // A new instruction named after its opcode, with `like`'s shape and metadata.
  std::unique_ptr<Instruction> Make(Opcode opcode, const Instruction* like,
                                    const std::vector<Instruction*>& operands) {
    auto inst = std::make_unique<Instruction>(opcode, module_.UniqueName(std::string(OpcodeName(opcode))),
                                              like->shape());
    for (Instruction* op : operands) inst->AppendOperand(op);
    if (like->metadata() != nullptr) inst->set_metadata(*like->metadata());
    return inst;
  }

  // Adds `replacement` (built by Make) and redirects `old`'s uses to it, after checking
  // that shape inference agrees with the shape it was given.
  bool ReplaceWithNew(Instruction* old, std::unique_ptr<Instruction> replacement) {
    StatusOr<Shape> inferred = InferShape(*replacement);
    bool agrees = inferred.ok() ? ShapesAgree(*inferred, replacement->shape())
                                : inferred.status().code() == StatusCode::kUnimplemented;
    if (!agrees) {
      replacement->DetachFromOperands();
      return false;
    }
    Instruction* added = old->parent()->AddInstruction(std::move(replacement));
    old->ReplaceAllUsesWith(added);
    return true;
  }

  // Elementwise ops on scalar constants become a constant; the interpreter computes it so
  // the value is exactly what running the op would give.
  bool TryFoldScalarConstants(Instruction* inst) {
    if (!IsElementwise(inst->opcode()) || inst->operand_count() == 0) return false;
    if (!inst->shape().IsScalar()) return false;
    for (const Instruction* op : inst->operands()) {
      if (!IsConstantWithValues(op) || !op->shape().IsScalar()) return false;
    }
    StatusOr<Literal> value = EvaluateOnConstantOperands(*inst);
    if (!value.ok() || !value->shape().IsScalar() ||
        value->shape().element_type() != inst->shape().element_type()) {
      return false;
    }
    ReplaceWithConstant(inst, *value);
    return true;
  }

  // x + 0 -> x, 0 + x -> x. For floats this turns -0 + 0 (= +0) into -0, as XLA does.
  bool HandleAdd(Instruction* inst) {
    Instruction* lhs = inst->operand(0);
    Instruction* rhs = inst->operand(1);
    if (IsUniformValue(rhs, 0) && ReplaceWithExisting(inst, lhs)) return true;
    return IsUniformValue(lhs, 0) && ReplaceWithExisting(inst, rhs);
  }

  // x - 0 -> x.
  bool HandleSubtract(Instruction* inst) {
    return IsUniformValue(inst->operand(1), 0) && ReplaceWithExisting(inst, inst->operand(0));
  }

  // x * 1 -> x, 1 * x -> x; x * 0 -> 0 for integers (for floats NaN * 0 and inf * 0 are NaN).
  bool HandleMultiply(Instruction* inst) {
    Instruction* lhs = inst->operand(0);
    Instruction* rhs = inst->operand(1);
    if (IsPred(inst->shape().element_type())) return false;
    if (BugPlanted(PlantedBug::kMultiplyByOneFoldedToOne) && IsUniformValue(rhs, 1)) {
      return ReplaceWithExisting(inst, rhs);
    }
    if (IsUniformValue(rhs, 1) && ReplaceWithExisting(inst, lhs)) return true;
    if (IsUniformValue(lhs, 1) && ReplaceWithExisting(inst, rhs)) return true;
    if (IsInteger(inst->shape().element_type())) {
      if (IsUniformValue(rhs, 0) && ReplaceWithExisting(inst, rhs)) return true;
      if (IsUniformValue(lhs, 0) && ReplaceWithExisting(inst, lhs)) return true;
    }
    return false;
  }

  // x / 1 -> x; for real floats x / 2^k -> x * 2^-k when 2^-k is exact in the type: both
  // are the correctly rounded value of the same real number.
  bool HandleDivide(Instruction* inst) {
    Instruction* lhs = inst->operand(0);
    Instruction* rhs = inst->operand(1);
    if (IsUniformValue(rhs, 1) && ReplaceWithExisting(inst, lhs)) return true;
    PrimitiveType type = inst->shape().element_type();
    if (!IsFloat(type)) return false;
    const Literal* divisor = UniformConstant(rhs);
    if (divisor == nullptr) return false;
    double d = divisor->GetDouble(0);
    if (!std::isfinite(d) || d == 0) return false;
    int exponent = 0;
    if (std::fabs(std::frexp(d, &exponent)) != 0.5) return false;  // not a power of two
    double reciprocal = 1.0 / d;
    Literal scalar(Shape::Scalar(type));
    scalar.SetDouble(0, reciprocal);
    if (scalar.GetDouble(0) != reciprocal) return false;  // not representable exactly

    // The reciprocal takes the divisor's form: a constant of its shape, or a broadcast
    // of a new scalar constant.
    Instruction* factor = nullptr;
    if (rhs->opcode() == Opcode::kConstant) {
      factor = NewConstant(rhs, scalar);
    } else {
      Instruction* scalar_constant = NewConstant(rhs->operand(0), scalar);
      auto broadcast = Make(Opcode::kBroadcast, rhs, {scalar_constant});
      broadcast->mutable_attrs().dimensions = rhs->dimensions();
      factor = rhs->parent()->AddInstruction(std::move(broadcast));
    }
    return ReplaceWithNew(inst, Make(Opcode::kMultiply, inst, {lhs, factor}));
  }

  // A constant shaped like `like` with every element `value`'s element 0.
  Instruction* NewConstant(const Instruction* like, const Literal& value) {
    auto constant = std::make_unique<Instruction>(Opcode::kConstant, module_.UniqueName("constant"),
                                                  like->shape());
    auto literal = std::make_unique<Literal>(like->shape());
    for (int64_t i = 0; i < literal->element_count(); ++i) literal->SetBits(i, value.GetBits(0));
    constant->set_literal(std::move(literal));
    if (like->metadata() != nullptr) constant->set_metadata(*like->metadata());
    return like->parent()->AddInstruction(std::move(constant));
  }

  // power(x, 2) -> x * x for real floats and integers (complex powers round differently).
  bool HandlePower(Instruction* inst) {
    PrimitiveType type = inst->shape().element_type();
    if (!IsFloat(type) && !IsInteger(type)) return false;
    const Literal* exponent = UniformConstant(inst->operand(1));
    if (exponent == nullptr) return false;
    bool is_two = IsFloat(type) ? exponent->GetDouble(0) == 2.0 : exponent->GetInt64(0) == 2;
    if (!is_two) return false;
    Instruction* x = inst->operand(0);
    return ReplaceWithNew(inst, Make(Opcode::kMultiply, inst, {x, x}));
  }

  // and(x, true) -> x, and(x, false) -> false (pred only; for integers `true` is all ones).
  bool HandleAnd(Instruction* inst) {
    if (!IsPred(inst->shape().element_type())) return false;
    for (int64_t i = 0; i < 2; ++i) {
      Instruction* c = inst->operand(i);
      Instruction* other = inst->operand(1 - i);
      if (IsUniformValue(c, 1) && ReplaceWithExisting(inst, other)) return true;
      if (IsUniformValue(c, 0) && ReplaceWithExisting(inst, c)) return true;
    }
    return false;
  }

  // or(x, false) -> x, or(x, true) -> true (pred only).
  bool HandleOr(Instruction* inst) {
    if (!IsPred(inst->shape().element_type())) return false;
    for (int64_t i = 0; i < 2; ++i) {
      Instruction* c = inst->operand(i);
      Instruction* other = inst->operand(1 - i);
      if (IsUniformValue(c, 0) && ReplaceWithExisting(inst, other)) return true;
      if (IsUniformValue(c, 1) && ReplaceWithExisting(inst, c)) return true;
    }
    return false;
  }

  // select(true, a, b) -> a, select(false, a, b) -> b, select(p, a, a) -> a.
  bool HandleSelect(Instruction* inst) {
    Instruction* pred = inst->operand(0);
    Instruction* on_true = inst->operand(1);
    Instruction* on_false = inst->operand(2);
    if (on_true == on_false) return ReplaceWithExisting(inst, on_true);
    if (IsUniformValue(pred, 1)) return ReplaceWithExisting(inst, on_true);
    if (IsUniformValue(pred, 0)) return ReplaceWithExisting(inst, on_false);
    return false;
  }

  // negate(negate(x)) -> x, not(not(x)) -> x (bitwise not is an involution too).
  bool HandleInvolution(Instruction* inst) {
    Instruction* op = inst->operand(0);
    if (op->opcode() != inst->opcode()) return false;
    return ReplaceWithExisting(inst, op->operand(0));
  }

  // broadcast with identity dimensions of the same shape -> operand;
  // broadcast(broadcast(x)) -> broadcast(x) with the composed dimension map.
  bool HandleBroadcast(Instruction* inst) {
    Instruction* op = inst->operand(0);
    const std::vector<int64_t>& dims = inst->dimensions();
    if (op->shape().IsArray() && op->shape().rank() == inst->shape().rank() &&
        IsIdentityPermutation(dims) && ReplaceWithExisting(inst, op)) {
      return true;
    }
    if (op->opcode() != Opcode::kBroadcast) return false;
    const std::vector<int64_t>& inner = op->dimensions();
    std::vector<int64_t> composed;
    for (int64_t d : inner) {
      if (d < 0 || d >= static_cast<int64_t>(dims.size())) return false;
      composed.push_back(dims[d]);
    }
    auto replacement = Make(Opcode::kBroadcast, inst, {op->operand(0)});
    replacement->mutable_attrs().dimensions = composed;
    return ReplaceWithNew(inst, std::move(replacement));
  }

  // reshape to the same shape -> operand; reshape(reshape(x)) -> reshape(x).
  bool HandleReshape(Instruction* inst) {
    Instruction* op = inst->operand(0);
    if (ReplaceWithExisting(inst, op)) return true;
    if (op->opcode() != Opcode::kReshape) return false;
    Instruction* x = op->operand(0);
    if (ReplaceWithExisting(inst, x)) return true;
    return ReplaceWithNew(inst, Make(Opcode::kReshape, inst, {x}));
  }

  // identity transpose -> operand; transpose(transpose(x)) -> one transpose (or x).
  bool HandleTranspose(Instruction* inst) {
    Instruction* op = inst->operand(0);
    const std::vector<int64_t>& perm = inst->dimensions();
    if (IsIdentityPermutation(perm)) return ReplaceWithExisting(inst, op);
    if (op->opcode() == Opcode::kDot) return SwapDotOperands(inst, op);
    if (op->opcode() != Opcode::kTranspose) return false;
    const std::vector<int64_t>& inner = op->dimensions();
    std::vector<int64_t> composed;
    for (int64_t p : perm) {
      if (p < 0 || p >= static_cast<int64_t>(inner.size())) return false;
      composed.push_back(inner[p]);
    }
    Instruction* x = op->operand(0);
    if (IsIdentityPermutation(composed)) return ReplaceWithExisting(inst, x);
    auto replacement = Make(Opcode::kTranspose, inst, {x});
    replacement->mutable_attrs().dimensions = composed;
    return ReplaceWithNew(inst, std::move(replacement));
  }

  // transpose(dot(a, b)) -> dot(b, a) when the transpose only moves b's free dimensions
  // in front of a's (batch dimensions staying first): (A B)^T = B^T A^T, and a dot takes
  // its operands in any orientation, so the swapped dot writes the transposed result
  // directly instead of a GEMM followed by a transposing copy. Gradients of weights
  // come out of jax this way (dot over the batch and sequence, then a transpose into
  // the weight's [in, out] order). Otherwise, when the transpose moves the dot's minor
  // dimension and the swapped dot's minor dimension is the one the transpose puts last,
  // -> transpose(dot(b, a)) with the remaining permutation, which keeps the minor
  // dimension in place (rows move whole): attention's einsum("bhqk,bkhd->bqhd") is
  // lowered as V^T P^T, [b,h,d,q], transposed to [b,q,h,d]; swapped it is P V, [b,h,q,d],
  // and the transpose moves rows of d. Only when the transpose is the dot's one user, so
  // no product is computed twice.
  bool SwapDotOperands(Instruction* inst, Instruction* dot) {
    const auto& numbers = dot->attrs().dot_dimension_numbers;
    if (!numbers || dot->user_count() != 1 || !dot->attrs().sparsity.empty()) return false;
    if (!dot->attrs().dot_algorithm.empty() || dot->operand_count() != 2) return false;
    auto free_dims = [](int64_t rank, const std::vector<int64_t>& batch, const std::vector<int64_t>& contracting) {
      return rank - static_cast<int64_t>(batch.size() + contracting.size());
    };
    const int64_t batch = static_cast<int64_t>(numbers->lhs_batch_dimensions.size());
    const int64_t lhs_free = free_dims(dot->operand(0)->shape().rank(), numbers->lhs_batch_dimensions,
                                       numbers->lhs_contracting_dimensions);
    const int64_t rhs_free = free_dims(dot->operand(1)->shape().rank(), numbers->rhs_batch_dimensions,
                                       numbers->rhs_contracting_dimensions);
    const int64_t rank = batch + lhs_free + rhs_free;
    const std::vector<int64_t>& perm = inst->dimensions();
    if (lhs_free == 0 || rhs_free == 0 || static_cast<int64_t>(perm.size()) != rank) return false;
    // position[d]: where the original output's dimension d sits in the swapped dot's.
    std::vector<int64_t> position(rank);
    for (int64_t d = 0; d < batch; ++d) position[d] = d;
    for (int64_t d = 0; d < lhs_free; ++d) position[batch + d] = batch + rhs_free + d;
    for (int64_t d = 0; d < rhs_free; ++d) position[batch + lhs_free + d] = batch + d;
    std::vector<int64_t> rest;  // the transpose left after the swap
    for (int64_t p : perm) {
      if (p < 0 || p >= rank) return false;
      rest.push_back(position[p]);
    }
    const bool exact = IsIdentityPermutation(rest);
    if (!exact && (rest.back() != rank - 1 || perm.back() == rank - 1)) return false;

    auto swapped = Make(Opcode::kDot, dot, {dot->operand(1), dot->operand(0)});
    InstructionAttributes& attrs = swapped->mutable_attrs();
    attrs = dot->attrs();
    attrs.dot_dimension_numbers = DotDimensionNumbers{numbers->rhs_batch_dimensions, numbers->rhs_contracting_dimensions,
                                                      numbers->lhs_batch_dimensions, numbers->lhs_contracting_dimensions};
    if (attrs.operand_precision.size() == 2) std::swap(attrs.operand_precision[0], attrs.operand_precision[1]);
    std::vector<int64_t> dims(rank);
    for (int64_t d = 0; d < rank; ++d) dims[position[d]] = dot->shape().dimensions(d);
    if (exact) {
      *swapped->mutable_shape() = inst->shape();
      return ReplaceWithNew(inst, std::move(swapped));
    }
    *swapped->mutable_shape() = Shape(dot->shape().element_type(), dims);
    swapped->mutable_shape()->SetDefaultLayout();
    StatusOr<Shape> inferred = InferShape(*swapped);
    if (!inferred.ok() || !ShapesAgree(*inferred, swapped->shape())) {
      swapped->DetachFromOperands();
      return false;
    }
    Instruction* added = inst->parent()->AddInstruction(std::move(swapped));
    auto transpose = Make(Opcode::kTranspose, inst, {added});
    transpose->mutable_attrs().dimensions = rest;
    if (ReplaceWithNew(inst, std::move(transpose))) return true;
    inst->parent()->RemoveInstruction(added);
    return false;
  }

  // convert to the operand's own type -> operand.
  bool HandleConvert(Instruction* inst) {
    Instruction* op = inst->operand(0);
    if (op->shape().element_type() != inst->shape().element_type()) return false;
    return ReplaceWithExisting(inst, op);
  }

  // copy keeping the layout -> operand; copy(copy(x)) -> copy(x).
  bool HandleCopy(Instruction* inst) {
    Instruction* op = inst->operand(0);
    if (ReplaceWithExisting(inst, op)) return true;
    if (op->opcode() != Opcode::kCopy) return false;
    Instruction* x = op->operand(0);
    if (ReplaceWithExisting(inst, x)) return true;
    return ReplaceWithNew(inst, Make(Opcode::kCopy, inst, {x}));
  }

  // slice of the whole operand with stride 1 -> operand.
  bool HandleSlice(Instruction* inst) {
    Instruction* op = inst->operand(0);
    const std::vector<SliceDimension>& slice = inst->attrs().slice;
    if (!op->shape().IsArray() || static_cast<int64_t>(slice.size()) != op->shape().rank()) {
      return false;
    }
    for (size_t i = 0; i < slice.size(); ++i) {
      if (slice[i].start != 0 || slice[i].stride != 1 ||
          slice[i].limit != op->shape().dimensions(static_cast<int64_t>(i))) {
        return false;
      }
    }
    return ReplaceWithExisting(inst, op);
  }

  // concatenate of a single operand -> operand.
  bool HandleConcatenate(Instruction* inst) {
    return inst->operand_count() == 1 && ReplaceWithExisting(inst, inst->operand(0));
  }

  // pad with no padding anywhere -> operand.
  bool HandlePad(Instruction* inst) {
    for (const PaddingDimension& p : inst->attrs().padding) {
      if (p.low != 0 || p.high != 0 || p.interior != 0) return false;
    }
    return ReplaceWithExisting(inst, inst->operand(0));
  }

  // reduce over no dimensions, or only over dimensions of size 1, applies the reducer to
  // (init, x) once per element: with init the reducer's identity (add 0, multiply 1,
  // and true, or false) that is x, reshaped to the result shape.
  bool HandleReduce(Instruction* inst) {
    if (inst->operand_count() != 2 || !inst->shape().IsArray()) return false;
    const Shape& in = inst->operand(0)->shape();
    if (!in.IsArray()) return false;
    for (int64_t d : inst->dimensions()) {
      if (d < 0 || d >= in.rank() || in.dimensions(d) != 1) return false;
    }
    const Computation* reducer = inst->to_apply();
    if (reducer == nullptr || reducer->root() == nullptr || reducer->parameter_count() != 2) {
      return false;
    }
    const Instruction* root = reducer->root();
    if (root->operand_count() != 2 ||
        root->operand(0)->opcode() != Opcode::kParameter ||
        root->operand(1)->opcode() != Opcode::kParameter ||
        root->operand(0) == root->operand(1)) {
      return false;
    }
    Instruction* init = inst->operand(1);
    PrimitiveType type = inst->shape().element_type();
    bool identity = false;
    switch (root->opcode()) {
      case Opcode::kAdd: identity = IsUniformValue(init, 0); break;
      case Opcode::kMultiply: identity = IsUniformValue(init, 1); break;
      case Opcode::kAnd: identity = IsPred(type) && IsUniformValue(init, 1); break;
      case Opcode::kOr: identity = IsPred(type) && IsUniformValue(init, 0); break;
      default: break;
    }
    if (!identity) return false;
    if (inst->dimensions().empty()) return ReplaceWithExisting(inst, inst->operand(0));
    return ReplaceWithNew(inst, Make(Opcode::kReshape, inst, {inst->operand(0)}));
  }

  // dynamic-slice with constant starts -> slice. XLA clamps each start into
  // [0, operand_dim - slice_size], so the slice uses the clamped starts.
  bool HandleDynamicSlice(Instruction* inst) {
    Instruction* op = inst->operand(0);
    if (!op->shape().IsArray()) return false;
    int64_t rank = op->shape().rank();
    if (inst->operand_count() != rank + 1 || inst->shape().rank() != rank) return false;
    std::vector<SliceDimension> slice;
    for (int64_t i = 0; i < rank; ++i) {
      const Instruction* start = inst->operand(i + 1);
      if (!IsConstantWithValues(start) || !start->shape().IsScalar()) return false;
      PrimitiveType type = start->shape().element_type();
      int64_t size = inst->shape().dimensions(i);
      int64_t max_start = op->shape().dimensions(i) - size;
      if (max_start < 0) return false;
      int64_t s = 0;
      if (IsSignedInt(type)) {
        s = std::clamp(start->literal()->GetInt64(0), int64_t{0}, max_start);
      } else if (IsUnsignedInt(type)) {
        s = static_cast<int64_t>(
            std::min(start->literal()->GetUint64(0), static_cast<uint64_t>(max_start)));
      } else {
        return false;
      }
      slice.push_back({s, s + size, 1});
    }
    auto replacement = Make(Opcode::kSlice, inst, {op});
    replacement->mutable_attrs().slice = slice;
    return ReplaceWithNew(inst, std::move(replacement));
  }

  Module& module_;
};

}  // namespace

StatusOr<bool> AlgebraicSimplifier::Run(Module& module, PassContext& /*context*/) {
  bool changed = false;
  std::vector<Computation*> computations;
  for (const auto& c : module.computations()) {
    if (!c->IsFusionComputation()) computations.push_back(c.get());
  }
  Simplifier simplifier(module);
  for (Computation* computation : computations) {
    for (int64_t sweep = 0; sweep < options_.max_iterations; ++sweep) {
      bool swept_change = false;
      for (Instruction* inst : computation->PostOrder()) {
        // Dead instructions keep their (rewritable) form; skipping them is what lets the
        // sweep reach a fixed point without deleting anything.
        if (inst->user_count() == 0 && !inst->IsRoot()) continue;
        if (!inst->control_predecessors().empty() || !inst->control_successors().empty()) {
          continue;
        }
        if (simplifier.Visit(inst)) swept_change = true;
      }
      if (!swept_change) break;
      changed = true;
    }
  }
  return changed;
}

}  // namespace fusebox::passes
