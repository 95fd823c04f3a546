// Shape inference for control flow, tuples and calls: tuple, get-tuple-element, map,
// sort, while, conditional, call, fusion.
#include <algorithm>
#include <set>

#include "compiler/support/strings.h"
#include "compiler/verifier/shape_inference.h"
#include "compiler/verifier/shape_inference_internal.h"

namespace fusebox::shape_inference_internal {

StatusOr<Shape> InferTuple(const Instruction& ins) {
  std::vector<Shape> elements;
  for (const Instruction* op : ins.operands()) elements.push_back(NoLayout(op->shape()));
  return Shape::Tuple(std::move(elements));
}

StatusOr<Shape> InferGetTupleElement(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 1));
  const Shape& t = OperandShape(ins, 0);
  if (!t.IsTuple()) {
    return Invalid("get-tuple-element operand must be a tuple, got ", Str(t));
  }
  const int64_t index = ins.attrs().tuple_index;
  if (index < 0 || index >= t.tuple_size()) {
    return Invalid("get-tuple-element index=", index, " is out of range for ", Str(t), " (",
                   t.tuple_size(), " element(s))");
  }
  return NoLayout(t.tuple_shapes(index));
}

StatusOr<Shape> InferMap(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandsAtLeast(ins, 1));
  const Shape& first = OperandShape(ins, 0);
  std::vector<Shape> params;
  for (int64_t i = 0; i < ins.operand_count(); ++i) {
    const Shape& s = OperandShape(ins, i);
    RETURN_IF_ERROR(ExpectArray(s, "a map operand"));
    if (!SameDims(s, first)) {
      return Invalid("map operands have different dimensions: ", Str(first), " and ", Str(s));
    }
    params.push_back(Shape::Scalar(s.element_type()));
  }
  ASSIGN_OR_RETURN(const Computation* fn, Called(ins, 0, "to_apply"));
  RETURN_IF_ERROR(CheckParameters(fn, params, "map to_apply"));
  ASSIGN_OR_RETURN(Shape root, RootShape(fn));
  if (!root.IsScalar()) {
    return Invalid("map to_apply computation ", CompName(fn), " returns ", Str(root),
                   " but must return a scalar");
  }
  return WithType(first, root.element_type());
}

StatusOr<Shape> InferSort(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandsAtLeast(ins, 1));
  const Shape& first = OperandShape(ins, 0);
  std::vector<Shape> results, params;
  for (int64_t i = 0; i < ins.operand_count(); ++i) {
    const Shape& s = OperandShape(ins, i);
    RETURN_IF_ERROR(ExpectArray(s, "a sort operand"));
    if (!SameDims(s, first)) {
      return Invalid("sort operands have different dimensions: ", Str(first), " and ", Str(s));
    }
    results.push_back(NoLayout(s));
    params.push_back(Shape::Scalar(s.element_type()));
    params.push_back(Shape::Scalar(s.element_type()));
  }
  const std::vector<int64_t>& dims = ins.dimensions();
  if (dims.size() != 1 || dims[0] < 0 || dims[0] >= std::max<int64_t>(first.rank(), 1)) {
    return Invalid("sort dimensions=", DimList(dims), " must name one dimension of ", Str(first));
  }
  ASSIGN_OR_RETURN(const Computation* cmp, Called(ins, 0, "to_apply"));
  RETURN_IF_ERROR(CheckParameters(cmp, params, "sort comparator"));
  ASSIGN_OR_RETURN(Shape root, RootShape(cmp));
  if (!ShapesAgree(root, Shape::Scalar(PrimitiveType::kPred))) {
    return Invalid("sort comparator ", CompName(cmp), " returns ", Str(root),
                   " but must return pred[]");
  }
  return TupleOrSingle(std::move(results));
}

StatusOr<Shape> InferWhile(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 1));
  const Shape& init = OperandShape(ins, 0);
  ASSIGN_OR_RETURN(const Computation* cond, Called(ins, 0, "condition"));
  ASSIGN_OR_RETURN(const Computation* body, Called(ins, 1, "body"));
  RETURN_IF_ERROR(CheckParameters(cond, {init}, "while condition"));
  RETURN_IF_ERROR(CheckParameters(body, {init}, "while body"));
  ASSIGN_OR_RETURN(Shape cond_root, RootShape(cond));
  if (!ShapesAgree(cond_root, Shape::Scalar(PrimitiveType::kPred))) {
    return Invalid("while condition ", CompName(cond), " returns ", Str(cond_root),
                   " but must return pred[]");
  }
  ASSIGN_OR_RETURN(Shape body_root, RootShape(body));
  if (!ShapesAgree(body_root, init)) {
    return Invalid("while body ", CompName(body), " returns ", Str(body_root),
                   " but the loop state is ", Str(init));
  }
  return NoLayout(init);
}

StatusOr<Shape> InferConditional(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandsAtLeast(ins, 1));
  const Shape& selector = OperandShape(ins, 0);
  const auto& branches = ins.called_computations();
  const int64_t nb = static_cast<int64_t>(branches.size());
  if (selector.IsScalar() && selector.element_type() == PrimitiveType::kPred) {
    if (nb != 2) return Invalid("conditional with a pred selector needs 2 branches, got ", nb);
  } else if (selector.IsScalar() && selector.element_type() == PrimitiveType::kS32) {
    if (nb < 1) return Invalid("conditional needs at least one branch");
  } else {
    return Invalid("conditional selector must be pred[] or s32[], got ", Str(selector));
  }
  if (ins.operand_count() != nb + 1) {
    return Invalid("conditional has ", nb, " branch(es) and needs ", nb + 1,
                   " operands (selector + one per branch), got ", ins.operand_count());
  }
  Shape result;
  for (int64_t i = 0; i < nb; ++i) {
    ASSIGN_OR_RETURN(const Computation* branch, Called(ins, i, "branch"));
    RETURN_IF_ERROR(CheckParameters(branch, {OperandShape(ins, i + 1)},
                                    "conditional branch " + std::to_string(i)));
    ASSIGN_OR_RETURN(Shape root, RootShape(branch));
    if (i == 0) {
      result = NoLayout(root);
    } else if (!ShapesAgree(root, result)) {
      return Invalid("conditional branch ", i, " ", CompName(branch), " returns ", Str(root),
                     " but branch 0 ", CompName(branches[0]), " returns ", Str(result));
    }
  }
  return result;
}

// call and fusion: the callee takes the operands and its root is the result.
StatusOr<Shape> InferCallLike(const Instruction& ins, std::string_view role) {
  ASSIGN_OR_RETURN(const Computation* callee, Called(ins, 0, role));
  std::vector<Shape> operands;
  for (const Instruction* op : ins.operands()) operands.push_back(op->shape());
  RETURN_IF_ERROR(CheckParameters(callee, operands, std::string(OpcodeName(ins.opcode()))));
  ASSIGN_OR_RETURN(Shape root, RootShape(callee));
  return NoLayout(root);
}

StatusOr<Shape> InferCall(const Instruction& ins) { return InferCallLike(ins, "to_apply"); }

StatusOr<Shape> InferFusion(const Instruction& ins) { return InferCallLike(ins, "fused"); }

}  // namespace fusebox::shape_inference_internal
