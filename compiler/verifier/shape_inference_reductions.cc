// Shape inference for reductions and windows: reduce, reduce-window, select-and-scatter.
#include <algorithm>
#include <set>

#include "compiler/support/strings.h"
#include "compiler/verifier/shape_inference.h"
#include "compiler/verifier/shape_inference_internal.h"

namespace fusebox::shape_inference_internal {

StatusOr<Shape> InferReduce(const Instruction& ins) {
  const int64_t count = ins.operand_count();
  if (count < 2 || count % 2 != 0) {
    return Invalid("reduce expects N inputs and N init values, got ", count, " operand(s)");
  }
  const int64_t n = count / 2;
  const Shape& first = OperandShape(ins, 0);
  std::vector<PrimitiveType> input_types, init_types;
  for (int64_t i = 0; i < n; ++i) {
    const Shape& s = OperandShape(ins, i);
    RETURN_IF_ERROR(ExpectArray(s, "a reduce input"));
    if (!SameDims(s, first)) {
      return Invalid("reduce inputs have different dimensions: ", Str(first), " and ", Str(s));
    }
    input_types.push_back(s.element_type());
    const Shape& init = OperandShape(ins, n + i);
    RETURN_IF_ERROR(ExpectScalar(init, "a reduce init value"));
    init_types.push_back(init.element_type());
  }
  const std::vector<int64_t>& dims = ins.dimensions();
  RETURN_IF_ERROR(CheckDimensionList(dims, first.rank(), "reduce dimensions="));
  ASSIGN_OR_RETURN(const Computation* reducer, Called(ins, 0, "to_apply"));
  ASSIGN_OR_RETURN(std::vector<PrimitiveType> acc,
                   CheckReducer(reducer, init_types, input_types, "reduce to_apply"));
  std::vector<int64_t> kept;
  for (int64_t i = 0; i < first.rank(); ++i) {
    if (!Contains(dims, i)) kept.push_back(first.dimensions(i));
  }
  std::vector<Shape> results;
  for (int64_t i = 0; i < n; ++i) results.push_back(Shape(init_types[i], kept));
  return TupleOrSingle(std::move(results));
}

StatusOr<Shape> InferReduceWindow(const Instruction& ins) {
  const int64_t count = ins.operand_count();
  if (count < 2 || count % 2 != 0) {
    return Invalid("reduce-window expects N inputs and N init values, got ", count, " operand(s)");
  }
  const int64_t n = count / 2;
  const Shape& first = OperandShape(ins, 0);
  std::vector<PrimitiveType> input_types, init_types;
  for (int64_t i = 0; i < n; ++i) {
    const Shape& s = OperandShape(ins, i);
    RETURN_IF_ERROR(ExpectArray(s, "a reduce-window input"));
    if (!SameDims(s, first)) {
      return Invalid("reduce-window inputs have different dimensions: ", Str(first), " and ",
                     Str(s));
    }
    input_types.push_back(s.element_type());
    const Shape& init = OperandShape(ins, n + i);
    RETURN_IF_ERROR(ExpectScalar(init, "a reduce-window init value"));
    init_types.push_back(init.element_type());
  }
  Window window;
  if (ins.attrs().window) window = *ins.attrs().window;
  ASSIGN_OR_RETURN(std::vector<int64_t> dims, WindowOutputDims(first.dimensions(), window));
  ASSIGN_OR_RETURN(const Computation* reducer, Called(ins, 0, "to_apply"));
  RETURN_IF_ERROR(
      CheckReducer(reducer, init_types, input_types, "reduce-window to_apply").status());
  std::vector<Shape> results;
  for (int64_t i = 0; i < n; ++i) results.push_back(Shape(init_types[i], dims));
  return TupleOrSingle(std::move(results));
}

StatusOr<Shape> InferSelectAndScatter(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 3));
  const Shape& x = OperandShape(ins, 0);
  const Shape& source = OperandShape(ins, 1);
  const Shape& init = OperandShape(ins, 2);
  RETURN_IF_ERROR(ExpectArray(x, "the select-and-scatter operand"));
  RETURN_IF_ERROR(ExpectArray(source, "the select-and-scatter source"));
  RETURN_IF_ERROR(ExpectScalar(init, "the select-and-scatter init value"));
  if (source.element_type() != init.element_type()) {
    return Invalid("select-and-scatter source ", Str(source), " and init value ", Str(init),
                   " have different element types");
  }
  Window window;
  if (ins.attrs().window) window = *ins.attrs().window;
  ASSIGN_OR_RETURN(std::vector<int64_t> dims, WindowOutputDims(x.dimensions(), window));
  if (source.dimensions() != dims) {
    return Invalid("select-and-scatter source ", Str(source), " must have the windowed shape ",
                   Str(Shape(source.element_type(), dims)), " of operand ", Str(x));
  }
  ASSIGN_OR_RETURN(const Computation* select, Called(ins, 0, "select"));
  ASSIGN_OR_RETURN(const Computation* scatter, Called(ins, 1, "scatter"));
  const Shape elem = Shape::Scalar(x.element_type());
  RETURN_IF_ERROR(CheckParameters(select, {elem, elem}, "select-and-scatter select"));
  ASSIGN_OR_RETURN(Shape select_root, RootShape(select));
  if (!ShapesAgree(select_root, Shape::Scalar(PrimitiveType::kPred))) {
    return Invalid("select-and-scatter select computation ", CompName(select), " returns ",
                   Str(select_root), " but must return pred[]");
  }
  RETURN_IF_ERROR(CheckReducer(scatter, {init.element_type()}, {source.element_type()},
                               "select-and-scatter scatter")
                      .status());
  return NoLayout(x);
}

}  // namespace fusebox::shape_inference_internal
