// Shape inference for HLO instructions, following XLA's semantics opcode by opcode.
// Messages name the operands' shapes in XLA text so a user can see what disagrees.
//
// This file: the helpers every op family uses (messages, shape predicates,
// called-computation signatures, windows) and InferShape, which dispatches by opcode to
// the family files beside it:
//   shape_inference_elementwise.cc     unary and binary ops, select, clamp, conversions
//   shape_inference_data_movement.cc   broadcast, reshape, transpose, slices, pad, ...
//   shape_inference_reductions.cc      reduce, reduce-window, select-and-scatter
//   shape_inference_contractions.cc    dot, convolution
//   shape_inference_gather_scatter.cc  gather, scatter
//   shape_inference_control_flow.cc    tuple, gte, map, sort, while, conditional, calls
//   shape_inference_linalg.cc          triangular solve, cholesky, fft, batch norm, topk
//   shape_inference_collectives.cc     collectives, tokens and the rest
// shape_inference_internal.h declares what they share.
#include "compiler/verifier/shape_inference.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <string>

#include "compiler/ir/computation.h"
#include "compiler/support/strings.h"
#include "compiler/verifier/shape_inference_internal.h"

namespace fusebox {

namespace shape_inference_internal {

// ===================================================================================
// Helpers
// ===================================================================================

std::string Str(const Shape& shape) { return shape.ToString(/*print_layout=*/false); }

std::string DimList(const std::vector<int64_t>& dims) { return "{" + Join(dims, ",") + "}"; }

std::string_view TypeName(PrimitiveType type) { return PrimitiveTypeName(type); }

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

bool AllUnique(const std::vector<int64_t>& v) {
  return std::set<int64_t>(v.begin(), v.end()).size() == v.size();
}

bool IsSorted(const std::vector<int64_t>& v) { return std::is_sorted(v.begin(), v.end()); }

// `what` followed by the list: "dimensions={0,1}" when `what` ends in '=', else spaced.
std::string Named(std::string_view what, const std::vector<int64_t>& dims) {
  std::string out(what);
  if (!out.empty() && out.back() != '=') out += ' ';
  return out + DimList(dims);
}

// Every entry of `dims` is a valid index into a rank-`rank` array, each at most once.
Status CheckDimensionList(const std::vector<int64_t>& dims, int64_t rank, std::string_view what) {
  for (int64_t d : dims) {
    if (d < 0 || d >= rank) {
      return Invalid(Named(what, dims), " has dimension ", d, " out of range for rank ", rank);
    }
  }
  if (!AllUnique(dims)) return Invalid(Named(what, dims), " repeats a dimension");
  return Status::Ok();
}

bool SameDims(const Shape& a, const Shape& b) {
  if (a.rank() != b.rank()) return false;
  for (int64_t i = 0; i < a.rank(); ++i) {
    int64_t x = a.dimensions(i), y = b.dimensions(i);
    if (x != y && x != kUnboundedSize && y != kUnboundedSize) return false;
  }
  return true;
}

bool SameTypeIgnoringFpPrecision(PrimitiveType a, PrimitiveType b) {
  return a == b || (IsFloat(a) && IsFloat(b));
}

Status ExpectArray(const Shape& shape, std::string_view what) {
  if (!shape.IsArray()) return Invalid("expected an array for ", what, ", got ", Str(shape));
  return Status::Ok();
}

Status ExpectScalar(const Shape& shape, std::string_view what) {
  if (!shape.IsScalar()) return Invalid("expected a scalar for ", what, ", got ", Str(shape));
  return Status::Ok();
}

Status ExpectOperandCount(const Instruction& ins, int64_t n) {
  if (ins.operand_count() != n) {
    return Invalid(OpcodeName(ins.opcode()), " expects ", n, " operand(s), got ",
                   ins.operand_count());
  }
  return Status::Ok();
}

Status ExpectOperandsAtLeast(const Instruction& ins, int64_t n) {
  if (ins.operand_count() < n) {
    return Invalid(OpcodeName(ins.opcode()), " expects at least ", n, " operand(s), got ",
                   ins.operand_count());
  }
  return Status::Ok();
}

const Shape& OperandShape(const Instruction& ins, int64_t i) { return ins.operand(i)->shape(); }

Shape WithType(const Shape& shape, PrimitiveType type) {
  Shape out = shape;
  out.set_element_type(type);
  out.clear_layout();
  return out;
}

Shape NoLayout(Shape shape) {
  shape.clear_layout();
  if (shape.IsTuple()) {
    for (Shape& element : *shape.mutable_tuple_shapes()) element = NoLayout(std::move(element));
  }
  return shape;
}

Shape TupleOrSingle(std::vector<Shape> shapes) {
  if (shapes.size() == 1) return std::move(shapes[0]);
  return Shape::Tuple(std::move(shapes));
}

// The element type a result takes when its operation lets the writer choose it (dot,
// convolution, convert): the declared one when the declared shape is an array.
PrimitiveType DeclaredElementType(const Instruction& ins, PrimitiveType fallback) {
  return ins.shape().IsArray() ? ins.shape().element_type() : fallback;
}

// ---- Called computations -----------------------------------------------------------

std::string CompName(const Computation* c) { return "%" + c->name(); }

StatusOr<const Computation*> Called(const Instruction& ins, int64_t i, std::string_view role) {
  const auto& called = ins.called_computations();
  if (static_cast<int64_t>(called.size()) <= i || called[i] == nullptr) {
    return Invalid(OpcodeName(ins.opcode()), " needs a ", role, " computation");
  }
  return called[i];
}

// Parameter shapes of `c` in number order; fails when numbers have gaps.
StatusOr<std::vector<Shape>> ParameterShapes(const Computation* c) {
  std::vector<const Instruction*> by_number;
  for (const auto& ins : c->instructions()) {
    if (ins->opcode() != Opcode::kParameter) continue;
    int64_t n = ins->parameter_number();
    if (n < 0 || n >= c->instruction_count()) {
      return Invalid("computation ", CompName(c), " has a parameter numbered ", n);
    }
    if (static_cast<int64_t>(by_number.size()) <= n) by_number.resize(n + 1, nullptr);
    by_number[n] = ins.get();
  }
  std::vector<Shape> shapes;
  for (size_t i = 0; i < by_number.size(); ++i) {
    if (by_number[i] == nullptr) {
      return Invalid("computation ", CompName(c), " has no parameter ", i);
    }
    shapes.push_back(by_number[i]->shape());
  }
  return shapes;
}

StatusOr<Shape> RootShape(const Computation* c) {
  if (c->root() == nullptr) return Invalid("computation ", CompName(c), " has no root");
  return c->root()->shape();
}

std::string ShapeListString(const std::vector<Shape>& shapes) {
  return "(" + JoinWith(shapes, ", ", [](std::string& out, const Shape& s) { out += Str(s); }) +
         ")";
}

// `c` takes exactly `expected` parameters (shapes compared ignoring layout).
Status CheckParameters(const Computation* c, const std::vector<Shape>& expected,
                       std::string_view role) {
  ASSIGN_OR_RETURN(std::vector<Shape> params, ParameterShapes(c));
  if (params.size() != expected.size()) {
    return Invalid(role, " computation ", CompName(c), " takes ", params.size(),
                   " parameter(s) but must take ", expected.size(), " ", ShapeListString(expected));
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (!ShapesAgree(params[i], expected[i])) {
      return Invalid(role, " computation ", CompName(c), " parameter ", i, " is ", Str(params[i]),
                     " but must be ", Str(expected[i]));
    }
  }
  return Status::Ok();
}

// A reduction computation for N inputs: parameters (acc_0..acc_N-1, x_0..x_N-1), all
// scalars, returning a scalar (N = 1) or an N-tuple of scalars. Accumulators carry the
// init types; the x_i take the input element types (XLA lets floats differ in precision).
// Returns the accumulator types.
StatusOr<std::vector<PrimitiveType>> CheckReducer(const Computation* c,
                                                  const std::vector<PrimitiveType>& init_types,
                                                  const std::vector<PrimitiveType>& input_types,
                                                  std::string_view role) {
  const size_t n = init_types.size();
  ASSIGN_OR_RETURN(std::vector<Shape> params, ParameterShapes(c));
  ASSIGN_OR_RETURN(Shape root, RootShape(c));
  if (params.size() != 2 * n) {
    std::vector<Shape> want;
    for (PrimitiveType t : init_types) want.push_back(Shape::Scalar(t));
    for (PrimitiveType t : input_types) want.push_back(Shape::Scalar(t));
    return Invalid(role, " computation ", CompName(c), " takes ", params.size(),
                   " parameter(s) but must take ", 2 * n, " ", ShapeListString(want));
  }
  std::vector<Shape> results;
  if (root.IsTuple()) {
    results = root.tuple_shapes();
  } else {
    results.push_back(root);
  }
  if (results.size() != n || (n > 1 && !root.IsTuple())) {
    return Invalid(role, " computation ", CompName(c), " returns ", Str(root), " but must return ",
                   n == 1 ? "a scalar" : "a tuple of " + std::to_string(n) + " scalars");
  }
  std::vector<PrimitiveType> acc_types;
  for (size_t i = 0; i < n; ++i) {
    if (!results[i].IsScalar()) {
      return Invalid(role, " computation ", CompName(c), " returns ", Str(root),
                     " but must return scalars");
    }
    if (!params[i].IsScalar() || !params[n + i].IsScalar()) {
      return Invalid(role, " computation ", CompName(c), " parameters ", ShapeListString(params),
                     " must be scalars");
    }
    if (params[i].element_type() != results[i].element_type()) {
      return Invalid(role, " computation ", CompName(c), " parameter ", i, " is ", Str(params[i]),
                     " but its result ", i, " is ", Str(results[i]));
    }
    if (!SameTypeIgnoringFpPrecision(results[i].element_type(), init_types[i])) {
      return Invalid(role, " computation ", CompName(c), " accumulates ", Str(results[i]),
                     " but init value ", i, " is ", TypeName(init_types[i]), "[]");
    }
    if (!SameTypeIgnoringFpPrecision(params[n + i].element_type(), input_types[i])) {
      return Invalid(role, " computation ", CompName(c), " parameter ", n + i, " is ",
                     Str(params[n + i]), " but input ", i, " has element type ",
                     TypeName(input_types[i]));
    }
    acc_types.push_back(results[i].element_type());
  }
  return acc_types;
}

// ---- Checked arithmetic: sizes come from user text, so overflow is an error ----------

StatusOr<int64_t> Add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    return Invalid("size arithmetic overflows (", a, " + ", b, ")");
  return r;
}

StatusOr<int64_t> Mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    return Invalid("size arithmetic overflows (", a, " * ", b, ")");
  return r;
}

// ---- Windows ----------------------------------------------------------------------

StatusOr<int64_t> DilatedBound(int64_t bound, int64_t dilation) {
  if (bound <= 0) return 0;
  ASSIGN_OR_RETURN(int64_t scaled, Mul(bound - 1, dilation));
  return Add(scaled, 1);
}

StatusOr<int64_t> WindowOutputSize(int64_t base, const WindowDimension& w) {
  if (w.size <= 0) return Invalid("window size ", w.size, " is not positive");
  if (w.stride <= 0) return Invalid("window stride ", w.stride, " is not positive");
  if (w.base_dilation < 1 || w.window_dilation < 1) {
    return Invalid("window dilation must be at least 1");
  }
  ASSIGN_OR_RETURN(int64_t dilated_base, DilatedBound(base, w.base_dilation));
  ASSIGN_OR_RETURN(int64_t low, Add(w.padding_low, dilated_base));
  ASSIGN_OR_RETURN(int64_t padded, Add(low, w.padding_high));
  ASSIGN_OR_RETURN(int64_t window, DilatedBound(w.size, w.window_dilation));
  if (window > padded) return 0;
  return (padded - window) / w.stride + 1;
}

StatusOr<std::vector<int64_t>> WindowOutputDims(const std::vector<int64_t>& base,
                                                const Window& window) {
  if (window.dimensions.size() != base.size()) {
    return Invalid("window has ", window.dimensions.size(),
                   " dimension(s) but the operand has rank ", base.size());
  }
  std::vector<int64_t> out;
  for (size_t i = 0; i < base.size(); ++i) {
    ASSIGN_OR_RETURN(int64_t size, WindowOutputSize(base[i], window.dimensions[i]));
    out.push_back(size);
  }
  return out;
}

// ===================================================================================
// The dispatch
// ===================================================================================

namespace {

using InferFn = StatusOr<Shape> (*)(const Instruction&);

// The inference of each opcode whose result its inputs determine, by family (elementwise
// ops are recognized by InferShape before it looks here). An opcode missing from the
// table has a declared result shape.
const std::unordered_map<Opcode, InferFn>& InferTable() {
  static const auto* table = new std::unordered_map<Opcode, InferFn>{
      // Elementwise (shape_inference_elementwise.cc)
      {Opcode::kSelect, InferSelect},
      {Opcode::kClamp, InferClamp},
      // Data movement (shape_inference_data_movement.cc)
      {Opcode::kBroadcast, InferBroadcast},
      {Opcode::kReshape, InferReshape},
      {Opcode::kTranspose, InferTranspose},
      {Opcode::kSlice, InferSlice},
      {Opcode::kDynamicSlice, InferDynamicSlice},
      {Opcode::kDynamicUpdateSlice, InferDynamicUpdateSlice},
      {Opcode::kConcatenate, InferConcatenate},
      {Opcode::kPad, InferPad},
      {Opcode::kIota, InferIota},
      {Opcode::kReverse, InferReverse},
      // Reductions and windows (shape_inference_reductions.cc)
      {Opcode::kReduce, InferReduce},
      {Opcode::kReduceWindow, InferReduceWindow},
      {Opcode::kSelectAndScatter, InferSelectAndScatter},
      // Contractions (shape_inference_contractions.cc)
      {Opcode::kDot, InferDot},
      {Opcode::kConvolution, InferConvolution},
      // Gather and scatter (shape_inference_gather_scatter.cc)
      {Opcode::kGather, InferGather},
      {Opcode::kScatter, InferScatter},
      // Control flow, tuples and calls (shape_inference_control_flow.cc)
      {Opcode::kTuple, InferTuple},
      {Opcode::kGetTupleElement, InferGetTupleElement},
      {Opcode::kMap, InferMap},
      {Opcode::kSort, InferSort},
      {Opcode::kWhile, InferWhile},
      {Opcode::kConditional, InferConditional},
      {Opcode::kCall, InferCall},
      {Opcode::kFusion, InferFusion},
      // Linear algebra, fft, batch norm, topk (shape_inference_linalg.cc)
      {Opcode::kTriangularSolve, InferTriangularSolve},
      {Opcode::kCholesky, InferCholesky},
      {Opcode::kFft, InferFft},
      {Opcode::kBatchNormTraining, InferBatchNorm},
      {Opcode::kBatchNormInference, InferBatchNorm},
      {Opcode::kBatchNormGrad, InferBatchNorm},
      {Opcode::kTopK, InferTopK},
      // Collectives (shape_inference_collectives.cc)
      {Opcode::kAllReduce, InferAllReduce},
      {Opcode::kAllReduceStart, InferAllReduce},
      {Opcode::kAllReduceDone, InferAllReduceDone},
      {Opcode::kAllGather, InferAllGather},
      {Opcode::kReduceScatter, InferReduceScatter},
      {Opcode::kAllToAll, InferAllToAll},
      {Opcode::kCollectiveBroadcast, InferAllToAll},
      {Opcode::kCollectivePermute, InferCollectivePermute},
      // Tokens and the rest (shape_inference_collectives.cc)
      {Opcode::kAfterAll, InferAfterAll},
      {Opcode::kAddDependency, InferAddDependency},
      {Opcode::kOptimizationBarrier, InferPassThrough},
      {Opcode::kDomain, InferPassThrough},
      {Opcode::kCopyStart, InferCopyStart},
      {Opcode::kCopyDone, InferCopyDone},
      {Opcode::kPartitionId, InferDeviceId},
      {Opcode::kReplicaId, InferDeviceId},
      {Opcode::kGetDimensionSize, InferGetDimensionSize},
      {Opcode::kSetDimensionSize, InferSetDimensionSize},
      {Opcode::kRng, InferRng},
      {Opcode::kRngGetAndUpdateState, InferRngGetAndUpdateState},
      {Opcode::kRngBitGenerator, InferRngBitGenerator},
      {Opcode::kOutfeed, InferOutfeed},
  };
  return *table;
}

}  // namespace

}  // namespace shape_inference_internal

using shape_inference_internal::InferBinary;
using shape_inference_internal::InferTable;
using shape_inference_internal::InferUnary;
using shape_inference_internal::NotInferable;
using shape_inference_internal::SameDims;

bool ShapesAgree(const Shape& a, const Shape& b) {
  if (a.element_type() != b.element_type()) return false;
  if (a.IsTuple()) {
    if (a.tuple_size() != b.tuple_size()) return false;
    for (int64_t i = 0; i < a.tuple_size(); ++i) {
      if (!ShapesAgree(a.tuple_shapes(i), b.tuple_shapes(i))) return false;
    }
    return true;
  }
  if (!a.IsArray()) return true;
  return SameDims(a, b);
}

StatusOr<Shape> InferShape(const Instruction& ins) {
  for (const Instruction* op : ins.operands()) {
    if (op == nullptr) return Internal("null operand");
    // Unbounded dynamic sizes make most size arithmetic meaningless; accept them.
    if (op->shape().is_unbounded_dynamic()) return NotInferable("unbounded dynamic operand");
  }
  if (ins.shape().is_unbounded_dynamic()) return NotInferable("unbounded dynamic result");

  const Opcode op = ins.opcode();
  if (op == Opcode::kCompare || IsElementwiseBinary(op)) return InferBinary(ins);
  if (IsElementwiseUnary(op)) return InferUnary(ins);
  auto it = InferTable().find(op);
  if (it != InferTable().end()) return it->second(ins);
  return NotInferable(OpcodeName(op), "'s result shape is declared, not inferred");
}

}  // namespace fusebox
