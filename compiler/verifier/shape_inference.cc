// Shape inference for HLO instructions, following XLA's semantics opcode by opcode.
// Messages name the operands' shapes in XLA text so a user can see what disagrees.
//
// Sections:
//   1. Helpers: messages, shape predicates, called-computation signatures, windows
//   2. Elementwise unary and binary ops, select, clamp, conversions
//   3. Data movement: broadcast, reshape, transpose, slices, concatenate, pad, ...
//   4. Reductions and windows: reduce, reduce-window, select-and-scatter
//   5. Contractions: dot, convolution
//   6. Gather and scatter
//   7. Control flow and calls: tuple, gte, map, sort, while, conditional, call, fusion
//   8. Linear algebra, fft, batch norm, topk
//   9. Collectives, tokens and the rest
//  10. InferShape: the dispatch
#include "compiler/verifier/shape_inference.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <string>

#include "compiler/ir/computation.h"
#include "compiler/support/strings.h"

namespace fusebox {

// ===================================================================================
// 1. Helpers
// ===================================================================================

namespace {

std::string Str(const Shape& shape) { return shape.ToString(/*print_layout=*/false); }

std::string DimList(const std::vector<int64_t>& dims) { return "{" + Join(dims, ",") + "}"; }

template <typename... Args>
Status Invalid(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return InvalidArgument(os.str());
}

template <typename... Args>
Status NotInferable(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return Unimplemented(os.str());
}

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
// 2. Elementwise ops
// ===================================================================================

StatusOr<Shape> InferUnary(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 1));
  const Shape& x = OperandShape(ins, 0);
  const Opcode op = ins.opcode();
  if (op == Opcode::kCopy) return NoLayout(x);
  RETURN_IF_ERROR(ExpectArray(x, "the operand"));
  const PrimitiveType t = x.element_type();
  auto bad = [&](std::string_view want) {
    return Invalid(OpcodeName(op), " expects ", want, " operand, got ", Str(x));
  };
  switch (op) {
    case Opcode::kFloor:
    case Opcode::kCeil:
    case Opcode::kRoundNearestAfz:
    case Opcode::kRoundNearestEven:
      if (!IsFloat(t)) return bad("a floating-point");
      return NoLayout(x);
    case Opcode::kReducePrecision:
      if (!IsFloat(t)) return bad("a floating-point");
      if (ins.attrs().exponent_bits < 1 || ins.attrs().mantissa_bits < 0) {
        return Invalid("reduce-precision needs exponent_bits >= 1 and mantissa_bits >= 0, got ",
                       ins.attrs().exponent_bits, " and ", ins.attrs().mantissa_bits);
      }
      return NoLayout(x);
    case Opcode::kIsFinite:
      if (!IsFloat(t)) return bad("a floating-point");
      return WithType(x, PrimitiveType::kPred);
    case Opcode::kReal:
    case Opcode::kImag:
      if (IsComplex(t)) return WithType(x, ComplexComponentType(t));
      if (!IsFloat(t)) return bad("a floating-point or complex");
      return NoLayout(x);
    case Opcode::kAbs:
      if (IsComplex(t)) return WithType(x, ComplexComponentType(t));
      if (!IsFloat(t) && !IsSignedInt(t)) return bad("a signed or floating-point or complex");
      return NoLayout(x);
    case Opcode::kSign:
      if (!IsFloat(t) && !IsSignedInt(t) && !IsComplex(t)) {
        return bad("a signed or floating-point or complex");
      }
      return NoLayout(x);
    case Opcode::kNegate:
      if (IsPred(t)) return bad("a numeric");
      return NoLayout(x);
    case Opcode::kClz:
    case Opcode::kPopulationCount:
      if (!IsInteger(t)) return bad("an integer");
      return NoLayout(x);
    case Opcode::kNot:
      if (!IsInteger(t) && !IsPred(t)) return bad("a pred or integer");
      return NoLayout(x);
    case Opcode::kConvert: {
      if (!ins.shape().IsArray()) {
        return Invalid("convert must produce an array, declared ", Str(ins.shape()));
      }
      return WithType(x, ins.shape().element_type());
    }
    case Opcode::kBitcastConvert: {
      if (!ins.shape().IsArray()) {
        return Invalid("bitcast-convert must produce an array, declared ", Str(ins.shape()));
      }
      const PrimitiveType out_type = ins.shape().element_type();
      const int in_bits = BitWidth(t), out_bits = BitWidth(out_type);
      Shape out = WithType(x, out_type);
      if (in_bits == out_bits) return out;
      if (in_bits > out_bits) {
        // Each input element becomes in/out output elements along a new minor dimension.
        out.add_dimension(in_bits / out_bits);
        return out;
      }
      // Narrow to wide: the last input dimension holds the pieces of one output element.
      if (x.rank() == 0 || x.dimensions(x.rank() - 1) != out_bits / in_bits) {
        return Invalid("bitcast-convert from ", Str(x), " to ", TypeName(out_type),
                       " needs a last dimension of ", out_bits / in_bits);
      }
      std::vector<int64_t> dims(x.dimensions().begin(), x.dimensions().end() - 1);
      return Shape(out_type, dims);
    }
    case Opcode::kCos:
    case Opcode::kSin:
    case Opcode::kTan:
    case Opcode::kExp:
    case Opcode::kExpm1:
    case Opcode::kLog:
    case Opcode::kLog1p:
    case Opcode::kLogistic:
    case Opcode::kRsqrt:
    case Opcode::kSqrt:
    case Opcode::kCbrt:
    case Opcode::kTanh:
    case Opcode::kAcos:
    case Opcode::kAcosh:
    case Opcode::kAsin:
    case Opcode::kAsinh:
    case Opcode::kAtan:
    case Opcode::kAtanh:
    case Opcode::kCosh:
    case Opcode::kSinh:
    case Opcode::kErf:
      if (!IsFloat(t) && !IsComplex(t)) return bad("a floating-point or complex");
      return NoLayout(x);
    default:
      return NotInferable("no unary rule for ", OpcodeName(op));
  }
}

StatusOr<Shape> InferBinary(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 2));
  const Shape& a = OperandShape(ins, 0);
  const Shape& b = OperandShape(ins, 1);
  const Opcode op = ins.opcode();
  RETURN_IF_ERROR(ExpectArray(a, "the lhs"));
  RETURN_IF_ERROR(ExpectArray(b, "the rhs"));
  if (!SameDims(a, b)) {
    return Invalid(OpcodeName(op), " operands have different dimensions: ", Str(a), " and ", Str(b),
                   " (HLO has no implicit broadcasting)");
  }
  const PrimitiveType t = a.element_type();
  if (op == Opcode::kStochasticConvert) {
    if (!IsFloat(t))
      return Invalid("stochastic-convert expects a floating-point operand, got ", Str(a));
    if (!IsUnsignedInt(b.element_type()) || BitWidth(b.element_type()) != BitWidth(t)) {
      return Invalid("stochastic-convert random bits must be unsigned of the operand's width, got ",
                     Str(b), " for ", Str(a));
    }
    return WithType(a, DeclaredElementType(ins, t));
  }
  if (t != b.element_type()) {
    return Invalid(OpcodeName(op), " operands have different element types: ", Str(a), " and ",
                   Str(b));
  }
  auto bad = [&](std::string_view want) {
    return Invalid(OpcodeName(op), " expects ", want, " operands, got ", Str(a));
  };
  switch (op) {
    case Opcode::kCompare:
      return WithType(a, PrimitiveType::kPred);
    case Opcode::kComplex:
      if (t == PrimitiveType::kF32) return WithType(a, PrimitiveType::kC64);
      if (t == PrimitiveType::kF64) return WithType(a, PrimitiveType::kC128);
      return bad("f32 or f64");
    case Opcode::kAnd:
    case Opcode::kOr:
    case Opcode::kXor:
      if (!IsPred(t) && !IsInteger(t)) return bad("pred or integer");
      return NoLayout(a);
    case Opcode::kShiftLeft:
    case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical:
    case Opcode::kMulhi:
      if (!IsInteger(t)) return bad("integer");
      return NoLayout(a);
    case Opcode::kAtan2:
      if (!IsFloat(t) && !IsComplex(t)) return bad("floating-point or complex");
      return NoLayout(a);
    default:
      return NoLayout(a);
  }
}

StatusOr<Shape> InferSelect(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 3));
  const Shape& pred = OperandShape(ins, 0);
  const Shape& on_true = OperandShape(ins, 1);
  const Shape& on_false = OperandShape(ins, 2);
  RETURN_IF_ERROR(ExpectArray(pred, "the select predicate"));
  RETURN_IF_ERROR(ExpectArray(on_true, "select's on_true"));
  RETURN_IF_ERROR(ExpectArray(on_false, "select's on_false"));
  if (pred.element_type() != PrimitiveType::kPred) {
    return Invalid("select predicate must have element type pred, got ", Str(pred));
  }
  if (!ShapesAgree(on_true, on_false)) {
    return Invalid("select branches differ: ", Str(on_true), " and ", Str(on_false));
  }
  if (!pred.IsScalar() && !SameDims(pred, on_true)) {
    return Invalid("select predicate ", Str(pred), " must be a scalar or match ", Str(on_true));
  }
  return NoLayout(on_true);
}

StatusOr<Shape> InferClamp(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 3));
  const Shape& lo = OperandShape(ins, 0);
  const Shape& x = OperandShape(ins, 1);
  const Shape& hi = OperandShape(ins, 2);
  RETURN_IF_ERROR(ExpectArray(lo, "clamp's min"));
  RETURN_IF_ERROR(ExpectArray(x, "clamp's operand"));
  RETURN_IF_ERROR(ExpectArray(hi, "clamp's max"));
  for (const Shape* bound : {&lo, &hi}) {
    if (bound->element_type() != x.element_type()) {
      return Invalid("clamp bound ", Str(*bound), " has a different element type than ", Str(x));
    }
    if (!bound->IsScalar() && !SameDims(*bound, x)) {
      return Invalid("clamp bound ", Str(*bound), " must be a scalar or match ", Str(x));
    }
  }
  return NoLayout(x);
}

// ===================================================================================
// 3. Data movement
// ===================================================================================

StatusOr<Shape> InferBroadcast(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 1));
  const Shape& x = OperandShape(ins, 0);
  const Shape& out = ins.shape();
  RETURN_IF_ERROR(ExpectArray(x, "the broadcast operand"));
  if (!out.IsArray()) return Invalid("broadcast must produce an array, declared ", Str(out));
  const std::vector<int64_t>& dims = ins.dimensions();
  if (static_cast<int64_t>(dims.size()) != x.rank()) {
    return Invalid("broadcast dimensions=", DimList(dims), " has ", dims.size(),
                   " entries but the operand ", Str(x), " has rank ", x.rank());
  }
  RETURN_IF_ERROR(CheckDimensionList(dims, out.rank(), "broadcast dimensions="));
  for (int64_t i = 0; i < x.rank(); ++i) {
    int64_t o = out.dimensions(dims[i]);
    if (x.dimensions(i) != o && x.dimensions(i) != kUnboundedSize && o != kUnboundedSize) {
      return Invalid("broadcast operand dimension ", i, " (size ", x.dimensions(i),
                     ") maps to result dimension ", dims[i], " (size ", o, "): ", Str(x), " vs ",
                     Str(out));
    }
  }
  return WithType(out, x.element_type());
}

StatusOr<Shape> InferReshape(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 1));
  const Shape& x = OperandShape(ins, 0);
  const Shape& out = ins.shape();
  RETURN_IF_ERROR(ExpectArray(x, "the reshape operand"));
  if (!out.IsArray()) return Invalid("reshape must produce an array, declared ", Str(out));
  if (x.is_dynamic() || out.is_dynamic()) return WithType(out, x.element_type());
  if (x.ElementCount() < 0 || out.ElementCount() < 0) {
    return Invalid("reshape element count overflows: ", Str(x), " to ", Str(out));
  }
  if (x.ElementCount() != out.ElementCount()) {
    return Invalid("reshape changes the element count: ", Str(x), " has ", x.ElementCount(),
                   " elements but ", Str(out), " has ", out.ElementCount());
  }
  return WithType(out, x.element_type());
}

StatusOr<Shape> InferTranspose(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 1));
  const Shape& x = OperandShape(ins, 0);
  RETURN_IF_ERROR(ExpectArray(x, "the transpose operand"));
  const std::vector<int64_t>& perm = ins.dimensions();
  if (static_cast<int64_t>(perm.size()) != x.rank()) {
    return Invalid("transpose dimensions=", DimList(perm), " is not a permutation of rank ",
                   x.rank(), " (operand ", Str(x), ")");
  }
  RETURN_IF_ERROR(CheckDimensionList(perm, x.rank(), "transpose dimensions="));
  Shape out = NoLayout(x);
  for (int64_t i = 0; i < x.rank(); ++i) {
    out.set_dimension(i, x.dimensions(perm[i]));
    out.set_dynamic_dimension(i, x.is_dynamic_dimension(perm[i]));
  }
  return out;
}

StatusOr<Shape> InferSlice(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 1));
  const Shape& x = OperandShape(ins, 0);
  RETURN_IF_ERROR(ExpectArray(x, "the slice operand"));
  const auto& slice = ins.attrs().slice;
  if (static_cast<int64_t>(slice.size()) != x.rank()) {
    return Invalid("slice has ", slice.size(), " dimension(s) but the operand ", Str(x),
                   " has rank ", x.rank());
  }
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < x.rank(); ++i) {
    const SliceDimension& s = slice[i];
    if (s.stride <= 0)
      return Invalid("slice stride ", s.stride, " in dimension ", i, " is not positive");
    if (s.start < 0 || s.limit < s.start || s.limit > x.dimensions(i)) {
      return Invalid("slice [", s.start, ":", s.limit, "] is out of range for dimension ", i,
                     " of ", Str(x));
    }
    const int64_t span = s.limit - s.start;
    dims.push_back(span == 0 ? 0 : (span - 1) / s.stride + 1);
  }
  return Shape(x.element_type(), dims);
}

Status CheckIndexOperands(const Instruction& ins, int64_t first, int64_t rank) {
  const int64_t count = ins.operand_count() - first;
  if (count == 1 && rank != 1 && OperandShape(ins, first).rank() == 1) {
    // The old single-vector form of start indices.
    const Shape& v = OperandShape(ins, first);
    if (!IsInteger(v.element_type()) || v.dimensions(0) != rank) {
      return Invalid(OpcodeName(ins.opcode()), " start index vector ", Str(v),
                     " must be an integer vector of ", rank, " elements");
    }
    return Status::Ok();
  }
  if (count != rank) {
    return Invalid(OpcodeName(ins.opcode()), " needs ", rank,
                   " start indices (one per dimension), got ", count);
  }
  for (int64_t i = first; i < ins.operand_count(); ++i) {
    const Shape& s = OperandShape(ins, i);
    if (!s.IsScalar() || !IsInteger(s.element_type())) {
      return Invalid(OpcodeName(ins.opcode()), " start index ", i - first,
                     " must be an integer scalar, got ", Str(s));
    }
  }
  return Status::Ok();
}

StatusOr<Shape> InferDynamicSlice(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandsAtLeast(ins, 1));
  const Shape& x = OperandShape(ins, 0);
  RETURN_IF_ERROR(ExpectArray(x, "the dynamic-slice operand"));
  RETURN_IF_ERROR(CheckIndexOperands(ins, 1, x.rank()));
  const auto& sizes = ins.attrs().dynamic_slice_sizes;
  if (static_cast<int64_t>(sizes.size()) != x.rank()) {
    return Invalid("dynamic_slice_sizes=", DimList(sizes), " must have ", x.rank(),
                   " entries for operand ", Str(x));
  }
  for (int64_t i = 0; i < x.rank(); ++i) {
    if (sizes[i] < 0 || sizes[i] > x.dimensions(i)) {
      return Invalid("dynamic_slice_sizes=", DimList(sizes), " exceeds operand ", Str(x),
                     " in dimension ", i);
    }
  }
  return Shape(x.element_type(), sizes);
}

StatusOr<Shape> InferDynamicUpdateSlice(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandsAtLeast(ins, 2));
  const Shape& x = OperandShape(ins, 0);
  const Shape& update = OperandShape(ins, 1);
  RETURN_IF_ERROR(ExpectArray(x, "the dynamic-update-slice operand"));
  RETURN_IF_ERROR(ExpectArray(update, "the dynamic-update-slice update"));
  RETURN_IF_ERROR(CheckIndexOperands(ins, 2, x.rank()));
  if (update.rank() != x.rank()) {
    return Invalid("dynamic-update-slice update ", Str(update), " must have the rank of ", Str(x));
  }
  if (!SameTypeIgnoringFpPrecision(update.element_type(), x.element_type())) {
    return Invalid("dynamic-update-slice update ", Str(update),
                   " has a different element type than ", Str(x));
  }
  for (int64_t i = 0; i < x.rank(); ++i) {
    if (update.dimensions(i) > x.dimensions(i)) {
      return Invalid("dynamic-update-slice update ", Str(update), " is larger than the operand ",
                     Str(x), " in dimension ", i);
    }
  }
  return NoLayout(x);
}

StatusOr<Shape> InferConcatenate(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandsAtLeast(ins, 1));
  const std::vector<int64_t>& dims = ins.dimensions();
  if (dims.size() != 1)
    return Invalid("concatenate needs one dimension, got dimensions=", DimList(dims));
  const Shape& first = OperandShape(ins, 0);
  RETURN_IF_ERROR(ExpectArray(first, "concatenate operand 0"));
  const int64_t d = dims[0];
  if (d < 0 || d >= first.rank()) {
    return Invalid("concatenate dimension ", d, " is out of range for ", Str(first));
  }
  Shape out = NoLayout(first);
  int64_t total = 0;
  for (int64_t i = 0; i < ins.operand_count(); ++i) {
    const Shape& s = OperandShape(ins, i);
    RETURN_IF_ERROR(ExpectArray(s, "a concatenate operand"));
    if (s.rank() != first.rank()) {
      return Invalid("concatenate operands have different ranks: ", Str(first), " and ", Str(s));
    }
    if (s.element_type() != first.element_type()) {
      return Invalid("concatenate operands have different element types: ", Str(first), " and ",
                     Str(s));
    }
    for (int64_t j = 0; j < s.rank(); ++j) {
      if (j != d && s.dimensions(j) != first.dimensions(j)) {
        return Invalid("concatenate operands differ in dimension ", j,
                       " other than the concatenated dimension ", d, ": ", Str(first), " and ",
                       Str(s));
      }
    }
    ASSIGN_OR_RETURN(total, Add(total, s.dimensions(d)));
  }
  out.set_dimension(d, total);
  return out;
}

StatusOr<Shape> InferPad(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 2));
  const Shape& x = OperandShape(ins, 0);
  const Shape& value = OperandShape(ins, 1);
  RETURN_IF_ERROR(ExpectArray(x, "the pad operand"));
  RETURN_IF_ERROR(ExpectScalar(value, "the padding value"));
  if (value.element_type() != x.element_type()) {
    return Invalid("pad value ", Str(value), " has a different element type than ", Str(x));
  }
  const auto& padding = ins.attrs().padding;
  if (static_cast<int64_t>(padding.size()) != x.rank()) {
    return Invalid("padding=", PaddingToString(padding), " has ", padding.size(),
                   " dimension(s) but the operand ", Str(x), " has rank ", x.rank());
  }
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < x.rank(); ++i) {
    const PaddingDimension& p = padding[i];
    if (p.interior < 0) return Invalid("pad interior padding ", p.interior, " is negative");
    const int64_t n = x.dimensions(i);
    ASSIGN_OR_RETURN(int64_t interior, Mul(p.interior, std::max<int64_t>(n - 1, 0)));
    ASSIGN_OR_RETURN(int64_t edges, Add(p.low, p.high));
    ASSIGN_OR_RETURN(int64_t inner, Add(n, interior));
    ASSIGN_OR_RETURN(int64_t size, Add(edges, inner));
    if (size < 0) {
      return Invalid("padding=", PaddingToString(padding), " makes dimension ", i, " of ", Str(x),
                     " negative (", size, ")");
    }
    dims.push_back(size);
  }
  return Shape(x.element_type(), dims);
}

StatusOr<Shape> InferIota(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 0));
  const Shape& out = ins.shape();
  if (!out.IsArray() || out.rank() == 0) {
    return Invalid("iota must produce an array of rank >= 1, declared ", Str(out));
  }
  const int64_t d = ins.attrs().iota_dimension;
  if (d < 0 || d >= out.rank()) {
    return Invalid("iota_dimension=", d, " is out of range for ", Str(out));
  }
  return NoLayout(out);
}

StatusOr<Shape> InferReverse(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 1));
  const Shape& x = OperandShape(ins, 0);
  RETURN_IF_ERROR(ExpectArray(x, "the reverse operand"));
  RETURN_IF_ERROR(CheckDimensionList(ins.dimensions(), x.rank(), "reverse dimensions="));
  return NoLayout(x);
}

// ===================================================================================
// 4. Reductions and windows
// ===================================================================================

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

// ===================================================================================
// 5. Contractions
// ===================================================================================

StatusOr<Shape> InferDot(const Instruction& ins) {
  const auto& a = ins.attrs();
  if (!a.sparsity.empty()) return NotInferable("sparse dot");
  RETURN_IF_ERROR(ExpectOperandCount(ins, 2));
  const Shape& lhs = OperandShape(ins, 0);
  const Shape& rhs = OperandShape(ins, 1);
  RETURN_IF_ERROR(ExpectArray(lhs, "the dot lhs"));
  RETURN_IF_ERROR(ExpectArray(rhs, "the dot rhs"));
  DotDimensionNumbers dnums;
  if (a.dot_dimension_numbers) dnums = *a.dot_dimension_numbers;
  const auto& lb = dnums.lhs_batch_dimensions;
  const auto& rb = dnums.rhs_batch_dimensions;
  const auto& lc = dnums.lhs_contracting_dimensions;
  const auto& rc = dnums.rhs_contracting_dimensions;
  if (lb.size() != rb.size()) {
    return Invalid("dot has ", lb.size(), " lhs batch dimension(s) but ", rb.size(), " rhs");
  }
  if (lc.size() != rc.size()) {
    return Invalid("dot has ", lc.size(), " lhs contracting dimension(s) but ", rc.size(), " rhs");
  }
  std::vector<int64_t> lhs_used = lb, rhs_used = rb;
  lhs_used.insert(lhs_used.end(), lc.begin(), lc.end());
  rhs_used.insert(rhs_used.end(), rc.begin(), rc.end());
  RETURN_IF_ERROR(CheckDimensionList(lhs_used, lhs.rank(), "dot lhs batch+contracting dims"));
  RETURN_IF_ERROR(CheckDimensionList(rhs_used, rhs.rank(), "dot rhs batch+contracting dims"));
  for (size_t i = 0; i < lc.size(); ++i) {
    if (lhs.dimensions(lc[i]) != rhs.dimensions(rc[i])) {
      return Invalid("dot contracting dimensions differ: lhs dimension ", lc[i], " of ", Str(lhs),
                     " is ", lhs.dimensions(lc[i]), " but rhs dimension ", rc[i], " of ", Str(rhs),
                     " is ", rhs.dimensions(rc[i]));
    }
  }
  for (size_t i = 0; i < lb.size(); ++i) {
    if (lhs.dimensions(lb[i]) != rhs.dimensions(rb[i])) {
      return Invalid("dot batch dimensions differ: lhs dimension ", lb[i], " of ", Str(lhs),
                     " vs rhs dimension ", rb[i], " of ", Str(rhs));
    }
  }
  std::vector<int64_t> dims;
  for (int64_t d : lb) dims.push_back(lhs.dimensions(d));
  for (int64_t i = 0; i < lhs.rank(); ++i) {
    if (!Contains(lhs_used, i)) dims.push_back(lhs.dimensions(i));
  }
  for (int64_t i = 0; i < rhs.rank(); ++i) {
    if (!Contains(rhs_used, i)) dims.push_back(rhs.dimensions(i));
  }
  return Shape(DeclaredElementType(ins, lhs.element_type()), dims);
}

StatusOr<Shape> InferConvolution(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 2));
  const Shape& lhs = OperandShape(ins, 0);
  const Shape& rhs = OperandShape(ins, 1);
  RETURN_IF_ERROR(ExpectArray(lhs, "the convolution input"));
  RETURN_IF_ERROR(ExpectArray(rhs, "the convolution kernel"));
  const auto& a = ins.attrs();
  if (!a.convolution_dimension_numbers) return Invalid("convolution needs dim_labels");
  const ConvolutionDimensionNumbers& d = *a.convolution_dimension_numbers;
  const int64_t spatial = static_cast<int64_t>(d.input_spatial_dimensions.size());
  if (static_cast<int64_t>(d.kernel_spatial_dimensions.size()) != spatial ||
      static_cast<int64_t>(d.output_spatial_dimensions.size()) != spatial) {
    return Invalid("convolution dim_labels=", d.ToString(), " has inconsistent spatial dimensions");
  }
  if (lhs.rank() != spatial + 2 || rhs.rank() != spatial + 2) {
    return Invalid("convolution dim_labels=", d.ToString(), " needs rank ", spatial + 2,
                   " operands, got ", Str(lhs), " and ", Str(rhs));
  }
  std::vector<int64_t> in_dims = {d.input_batch_dimension, d.input_feature_dimension};
  in_dims.insert(in_dims.end(), d.input_spatial_dimensions.begin(),
                 d.input_spatial_dimensions.end());
  std::vector<int64_t> k_dims = {d.kernel_input_feature_dimension,
                                 d.kernel_output_feature_dimension};
  k_dims.insert(k_dims.end(), d.kernel_spatial_dimensions.begin(),
                d.kernel_spatial_dimensions.end());
  std::vector<int64_t> out_dims = {d.output_batch_dimension, d.output_feature_dimension};
  out_dims.insert(out_dims.end(), d.output_spatial_dimensions.begin(),
                  d.output_spatial_dimensions.end());
  RETURN_IF_ERROR(CheckDimensionList(in_dims, lhs.rank(), "convolution input dim_labels"));
  RETURN_IF_ERROR(CheckDimensionList(k_dims, rhs.rank(), "convolution kernel dim_labels"));
  RETURN_IF_ERROR(CheckDimensionList(out_dims, lhs.rank(), "convolution output dim_labels"));

  const int64_t fgc = a.feature_group_count, bgc = a.batch_group_count;
  if (fgc < 1 || bgc < 1) {
    return Invalid("convolution feature_group_count=", fgc, " and batch_group_count=", bgc,
                   " must be positive");
  }
  if (fgc > 1 && bgc > 1) {
    return Invalid("convolution cannot have both feature_group_count and batch_group_count > 1");
  }
  const int64_t batch = lhs.dimensions(d.input_batch_dimension);
  const int64_t in_features = lhs.dimensions(d.input_feature_dimension);
  const int64_t k_in = rhs.dimensions(d.kernel_input_feature_dimension);
  const int64_t k_out = rhs.dimensions(d.kernel_output_feature_dimension);
  if (in_features % fgc != 0) {
    return Invalid("convolution input features (", in_features,
                   ") are not divisible by feature_group_count=", fgc);
  }
  if (in_features / fgc != k_in) {
    return Invalid("convolution input has ", in_features, " features",
                   fgc > 1 ? " / feature_group_count=" + std::to_string(fgc) : std::string(),
                   " but the kernel expects ", k_in, " (input ", Str(lhs), ", kernel ", Str(rhs),
                   ", dim_labels=", d.ToString(), ")");
  }
  if (k_out % fgc != 0) {
    return Invalid("convolution kernel output features (", k_out,
                   ") are not divisible by feature_group_count=", fgc);
  }
  if (batch % bgc != 0) {
    return Invalid("convolution batch (", batch, ") is not divisible by batch_group_count=", bgc);
  }
  if (k_out % bgc != 0) {
    return Invalid("convolution kernel output features (", k_out,
                   ") are not divisible by batch_group_count=", bgc);
  }
  Window window;
  if (a.window) {
    window = *a.window;
  } else {
    for (int64_t i = 0; i < spatial; ++i) {
      WindowDimension w;
      w.size = rhs.dimensions(d.kernel_spatial_dimensions[i]);
      window.dimensions.push_back(w);
    }
  }
  if (static_cast<int64_t>(window.dimensions.size()) != spatial) {
    return Invalid("convolution window has ", window.dimensions.size(),
                   " dimension(s) but dim_labels=", d.ToString(), " has ", spatial,
                   " spatial dimension(s)");
  }
  std::vector<int64_t> dims(lhs.rank(), 0);
  dims[d.output_batch_dimension] = batch / bgc;
  dims[d.output_feature_dimension] = k_out;
  for (int64_t i = 0; i < spatial; ++i) {
    const WindowDimension& w = window.dimensions[i];
    const int64_t k = rhs.dimensions(d.kernel_spatial_dimensions[i]);
    if (w.size != k) {
      return Invalid("convolution window size ", w.size, " in spatial dimension ", i,
                     " differs from the kernel's ", k, " (kernel ", Str(rhs), ")");
    }
    ASSIGN_OR_RETURN(int64_t size,
                     WindowOutputSize(lhs.dimensions(d.input_spatial_dimensions[i]), w));
    dims[d.output_spatial_dimensions[i]] = size;
  }
  return Shape(DeclaredElementType(ins, lhs.element_type()), dims);
}

// ===================================================================================
// 6. Gather and scatter
// ===================================================================================

// Index dimensions with an implicit trailing 1 when index_vector_dim equals the rank.
std::vector<int64_t> ExpandedIndexDims(const Shape& indices, int64_t index_vector_dim) {
  std::vector<int64_t> dims = indices.dimensions();
  if (index_vector_dim == indices.rank()) dims.push_back(1);
  return dims;
}

Status CheckSortedUnique(const std::vector<int64_t>& dims, int64_t rank, std::string_view what) {
  RETURN_IF_ERROR(CheckDimensionList(dims, rank, what));
  if (!IsSorted(dims)) return Invalid(Named(what, dims), " must be sorted");
  return Status::Ok();
}

StatusOr<Shape> InferGather(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 2));
  const Shape& x = OperandShape(ins, 0);
  const Shape& indices = OperandShape(ins, 1);
  RETURN_IF_ERROR(ExpectArray(x, "the gather operand"));
  RETURN_IF_ERROR(ExpectArray(indices, "the gather indices"));
  if (!IsInteger(indices.element_type())) {
    return Invalid("gather indices must be integers, got ", Str(indices));
  }
  const auto& a = ins.attrs();
  if (!a.gather_dimension_numbers) return Invalid("gather needs dimension numbers");
  const GatherDimensionNumbers& g = *a.gather_dimension_numbers;
  const std::vector<int64_t>& slice_sizes = a.gather_slice_sizes;
  const int64_t ivd = g.index_vector_dim;
  if (ivd < 0 || ivd > indices.rank()) {
    return Invalid("gather index_vector_dim=", ivd, " is out of range for indices ", Str(indices));
  }
  const std::vector<int64_t> idx = ExpandedIndexDims(indices, ivd);
  if (static_cast<int64_t>(g.start_index_map.size()) != idx[ivd]) {
    return Invalid("gather start_index_map=", DimList(g.start_index_map), " has ",
                   g.start_index_map.size(), " entries but the index vector (dimension ", ivd,
                   " of ", Str(indices), ") has ", idx[ivd]);
  }
  RETURN_IF_ERROR(CheckDimensionList(g.start_index_map, x.rank(), "gather start_index_map="));
  RETURN_IF_ERROR(
      CheckSortedUnique(g.collapsed_slice_dims, x.rank(), "gather collapsed_slice_dims="));
  RETURN_IF_ERROR(
      CheckSortedUnique(g.operand_batching_dims, x.rank(), "gather operand_batching_dims="));
  for (int64_t dim : g.collapsed_slice_dims) {
    if (Contains(g.operand_batching_dims, dim)) {
      return Invalid("gather dimension ", dim, " is both collapsed and a batching dimension");
    }
  }
  if (g.start_indices_batching_dims.size() != g.operand_batching_dims.size()) {
    return Invalid("gather start_indices_batching_dims=", DimList(g.start_indices_batching_dims),
                   " and operand_batching_dims=", DimList(g.operand_batching_dims),
                   " must have the same length");
  }
  RETURN_IF_ERROR(CheckDimensionList(g.start_indices_batching_dims, idx.size(),
                                     "gather start_indices_batching_dims="));
  if (Contains(g.start_indices_batching_dims, ivd)) {
    return Invalid("gather start_indices_batching_dims must not contain index_vector_dim=", ivd);
  }
  if (static_cast<int64_t>(slice_sizes.size()) != x.rank()) {
    return Invalid("gather slice_sizes=", DimList(slice_sizes), " must have ", x.rank(),
                   " entries for operand ", Str(x));
  }
  for (int64_t i = 0; i < x.rank(); ++i) {
    if (slice_sizes[i] < 0 || slice_sizes[i] > x.dimensions(i)) {
      return Invalid("gather slice_sizes=", DimList(slice_sizes), " exceeds operand ", Str(x),
                     " in dimension ", i);
    }
    if ((Contains(g.collapsed_slice_dims, i) || Contains(g.operand_batching_dims, i)) &&
        slice_sizes[i] > 1) {
      return Invalid("gather slice size in collapsed/batching dimension ", i, " must be <= 1, got ",
                     slice_sizes[i]);
    }
  }
  const int64_t window_count = x.rank() - static_cast<int64_t>(g.collapsed_slice_dims.size()) -
                               static_cast<int64_t>(g.operand_batching_dims.size());
  if (static_cast<int64_t>(g.offset_dims.size()) != window_count) {
    return Invalid("gather offset_dims=", DimList(g.offset_dims), " has ", g.offset_dims.size(),
                   " entries but operand ", Str(x), " leaves ", window_count,
                   " uncollapsed dimension(s)");
  }
  const int64_t out_rank = static_cast<int64_t>(g.offset_dims.size() + idx.size()) - 1;
  RETURN_IF_ERROR(CheckSortedUnique(g.offset_dims, out_rank, "gather offset_dims="));
  std::vector<int64_t> offsets, batches;
  for (int64_t i = 0; i < x.rank(); ++i) {
    if (!Contains(g.collapsed_slice_dims, i) && !Contains(g.operand_batching_dims, i)) {
      offsets.push_back(slice_sizes[i]);
    }
  }
  for (int64_t i = 0; i < static_cast<int64_t>(idx.size()); ++i) {
    if (i != ivd) batches.push_back(idx[i]);
  }
  std::vector<int64_t> dims;
  size_t next_offset = 0, next_batch = 0;
  for (int64_t i = 0; i < out_rank; ++i) {
    if (Contains(g.offset_dims, i)) {
      dims.push_back(offsets[next_offset++]);
    } else {
      dims.push_back(batches[next_batch++]);
    }
  }
  return Shape(x.element_type(), dims);
}

StatusOr<Shape> InferScatter(const Instruction& ins) {
  const int64_t count = ins.operand_count();
  if (count < 3 || count % 2 != 1) {
    return Invalid("scatter expects N operands, indices and N updates, got ", count, " operand(s)");
  }
  const int64_t n = (count - 1) / 2;
  const Shape& x = OperandShape(ins, 0);
  const Shape& indices = OperandShape(ins, n);
  RETURN_IF_ERROR(ExpectArray(indices, "the scatter indices"));
  if (!IsInteger(indices.element_type())) {
    return Invalid("scatter indices must be integers, got ", Str(indices));
  }
  const auto& a = ins.attrs();
  if (!a.scatter_dimension_numbers) return Invalid("scatter needs dimension numbers");
  const ScatterDimensionNumbers& s = *a.scatter_dimension_numbers;
  std::vector<PrimitiveType> types, update_types;
  std::vector<Shape> results;
  for (int64_t i = 0; i < n; ++i) {
    const Shape& op = OperandShape(ins, i);
    const Shape& up = OperandShape(ins, n + 1 + i);
    RETURN_IF_ERROR(ExpectArray(op, "a scatter operand"));
    RETURN_IF_ERROR(ExpectArray(up, "a scatter update"));
    if (!SameDims(op, x)) {
      return Invalid("scatter operands have different dimensions: ", Str(x), " and ", Str(op));
    }
    if (!SameDims(up, OperandShape(ins, n + 1))) {
      return Invalid("scatter updates have different dimensions: ", Str(OperandShape(ins, n + 1)),
                     " and ", Str(up));
    }
    types.push_back(op.element_type());
    update_types.push_back(up.element_type());
    results.push_back(NoLayout(op));
  }
  const Shape& updates = OperandShape(ins, n + 1);
  const int64_t ivd = s.index_vector_dim;
  if (ivd < 0 || ivd > indices.rank()) {
    return Invalid("scatter index_vector_dim=", ivd, " is out of range for indices ", Str(indices));
  }
  const std::vector<int64_t> idx = ExpandedIndexDims(indices, ivd);
  RETURN_IF_ERROR(
      CheckSortedUnique(s.update_window_dims, updates.rank(), "scatter update_window_dims="));
  RETURN_IF_ERROR(
      CheckSortedUnique(s.inserted_window_dims, x.rank(), "scatter inserted_window_dims="));
  RETURN_IF_ERROR(
      CheckSortedUnique(s.input_batching_dims, x.rank(), "scatter input_batching_dims="));
  for (int64_t dim : s.inserted_window_dims) {
    if (Contains(s.input_batching_dims, dim)) {
      return Invalid("scatter dimension ", dim, " is both inserted and a batching dimension");
    }
  }
  if (s.scatter_indices_batching_dims.size() != s.input_batching_dims.size()) {
    return Invalid(
        "scatter scatter_indices_batching_dims and input_batching_dims must have the "
        "same length");
  }
  if (static_cast<int64_t>(s.scatter_dims_to_operand_dims.size()) != idx[ivd]) {
    return Invalid("scatter scatter_dims_to_operand_dims=", DimList(s.scatter_dims_to_operand_dims),
                   " has ", s.scatter_dims_to_operand_dims.size(),
                   " entries but the index vector (dimension ", ivd, " of ", Str(indices), ") has ",
                   idx[ivd]);
  }
  RETURN_IF_ERROR(CheckDimensionList(s.scatter_dims_to_operand_dims, x.rank(),
                                     "scatter scatter_dims_to_operand_dims="));
  const int64_t window_count = static_cast<int64_t>(s.update_window_dims.size());
  if (window_count +
          static_cast<int64_t>(s.inserted_window_dims.size() + s.input_batching_dims.size()) !=
      x.rank()) {
    return Invalid("scatter update_window_dims=", DimList(s.update_window_dims),
                   " + inserted_window_dims=", DimList(s.inserted_window_dims),
                   " + input_batching_dims=", DimList(s.input_batching_dims),
                   " must cover the operand rank ", x.rank());
  }
  const int64_t scatter_rank = static_cast<int64_t>(idx.size()) - 1;
  if (updates.rank() != window_count + scatter_rank) {
    return Invalid("scatter updates ", Str(updates), " must have rank ",
                   window_count + scatter_rank, " (", window_count, " window + ", scatter_rank,
                   " scatter dimension(s))");
  }
  // Window dimensions of the update against the operand's non-inserted dimensions.
  int64_t w = 0;
  for (int64_t i = 0; i < x.rank(); ++i) {
    if (Contains(s.inserted_window_dims, i) || Contains(s.input_batching_dims, i)) continue;
    const int64_t ud = s.update_window_dims[w++];
    if (updates.dimensions(ud) > x.dimensions(i)) {
      return Invalid("scatter update window dimension ", ud, " of ", Str(updates),
                     " is larger than operand dimension ", i, " of ", Str(x));
    }
  }
  // Scatter dimensions of the update against the index batch dimensions.
  std::vector<int64_t> index_batch;
  for (int64_t i = 0; i < static_cast<int64_t>(idx.size()); ++i) {
    if (i != ivd) index_batch.push_back(idx[i]);
  }
  int64_t k = 0;
  for (int64_t i = 0; i < updates.rank(); ++i) {
    if (Contains(s.update_window_dims, i)) continue;
    if (updates.dimensions(i) != index_batch[k]) {
      return Invalid("scatter update dimension ", i, " of ", Str(updates), " is ",
                     updates.dimensions(i), " but the matching indices dimension of ", Str(indices),
                     " is ", index_batch[k]);
    }
    ++k;
  }
  ASSIGN_OR_RETURN(const Computation* combiner, Called(ins, 0, "to_apply"));
  RETURN_IF_ERROR(CheckReducer(combiner, types, update_types, "scatter to_apply").status());
  return TupleOrSingle(std::move(results));
}

// ===================================================================================
// 7. Control flow, tuples and calls
// ===================================================================================

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

// ===================================================================================
// 8. Linear algebra, fft, batch norm, topk
// ===================================================================================

StatusOr<Shape> InferTriangularSolve(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 2));
  const Shape& a = OperandShape(ins, 0);
  const Shape& b = OperandShape(ins, 1);
  RETURN_IF_ERROR(ExpectArray(a, "triangular-solve a"));
  RETURN_IF_ERROR(ExpectArray(b, "triangular-solve b"));
  if (a.element_type() != b.element_type() ||
      (!IsFloat(a.element_type()) && !IsComplex(a.element_type()))) {
    return Invalid("triangular-solve expects floating-point or complex a and b of one type, got ",
                   Str(a), " and ", Str(b));
  }
  if (a.rank() < 2 || b.rank() != a.rank()) {
    return Invalid("triangular-solve expects a and b of equal rank >= 2, got ", Str(a), " and ",
                   Str(b));
  }
  const int64_t r = a.rank();
  if (a.dimensions(r - 1) != a.dimensions(r - 2)) {
    return Invalid("triangular-solve a must be square in its two minor dimensions, got ", Str(a));
  }
  for (int64_t i = 0; i < r - 2; ++i) {
    if (a.dimensions(i) != b.dimensions(i)) {
      return Invalid("triangular-solve batch dimensions differ: ", Str(a), " and ", Str(b));
    }
  }
  const bool left = ins.attrs().left_side.value_or(false);
  const int64_t bd = left ? b.dimensions(r - 2) : b.dimensions(r - 1);
  if (bd != a.dimensions(r - 1)) {
    return Invalid("triangular-solve b ", Str(b), " does not match a ", Str(a),
                   " for left_side=", left ? "true" : "false");
  }
  return NoLayout(b);
}

StatusOr<Shape> InferCholesky(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 1));
  const Shape& a = OperandShape(ins, 0);
  RETURN_IF_ERROR(ExpectArray(a, "the cholesky operand"));
  if (!IsFloat(a.element_type()) && !IsComplex(a.element_type())) {
    return Invalid("cholesky expects a floating-point or complex operand, got ", Str(a));
  }
  if (a.rank() < 2 || a.dimensions(a.rank() - 1) != a.dimensions(a.rank() - 2)) {
    return Invalid("cholesky expects square matrices in the two minor dimensions, got ", Str(a));
  }
  return NoLayout(a);
}

StatusOr<Shape> InferFft(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 1));
  const Shape& x = OperandShape(ins, 0);
  RETURN_IF_ERROR(ExpectArray(x, "the fft operand"));
  const auto& a = ins.attrs();
  const std::vector<int64_t>& len = a.fft_length;
  const int64_t n = static_cast<int64_t>(len.size());
  if (n < 1 || n > 3 || x.rank() < n) {
    return Invalid("fft_length=", DimList(len), " must have 1 to 3 entries, at most the rank of ",
                   Str(x));
  }
  const FftType type = a.fft_type.value_or(FftType::kFft);
  const PrimitiveType t = x.element_type();
  auto check_dims = [&](int64_t count) -> Status {
    for (int64_t i = 0; i < count; ++i) {
      if (x.dimensions(x.rank() - n + i) != len[i]) {
        return Invalid("fft operand ", Str(x), " does not end in fft_length=", DimList(len));
      }
    }
    return Status::Ok();
  };
  switch (type) {
    case FftType::kFft:
    case FftType::kIfft:
      if (!IsComplex(t)) return Invalid("FFT/IFFT expects a complex operand, got ", Str(x));
      RETURN_IF_ERROR(check_dims(n));
      return NoLayout(x);
    case FftType::kRfft: {
      if (t != PrimitiveType::kF32 && t != PrimitiveType::kF64) {
        return Invalid("RFFT expects an f32 or f64 operand, got ", Str(x));
      }
      RETURN_IF_ERROR(check_dims(n));
      Shape out =
          WithType(x, t == PrimitiveType::kF32 ? PrimitiveType::kC64 : PrimitiveType::kC128);
      out.set_dimension(x.rank() - 1, len[n - 1] == 0 ? 0 : len[n - 1] / 2 + 1);
      return out;
    }
    case FftType::kIrfft: {
      if (!IsComplex(t)) return Invalid("IRFFT expects a complex operand, got ", Str(x));
      RETURN_IF_ERROR(check_dims(n - 1));
      const int64_t want = len[n - 1] == 0 ? 0 : len[n - 1] / 2 + 1;
      if (x.dimensions(x.rank() - 1) != want) {
        return Invalid("IRFFT operand ", Str(x), " must have ", want,
                       " elements in its last dimension for fft_length=", DimList(len));
      }
      Shape out = WithType(x, ComplexComponentType(t));
      out.set_dimension(x.rank() - 1, len[n - 1]);
      return out;
    }
  }
  return NotInferable("unknown fft type");
}

StatusOr<Shape> InferBatchNorm(const Instruction& ins) {
  const Opcode op = ins.opcode();
  const int64_t want = op == Opcode::kBatchNormTraining ? 3 : 5;
  RETURN_IF_ERROR(ExpectOperandCount(ins, want));
  const Shape& x = OperandShape(ins, 0);
  RETURN_IF_ERROR(ExpectArray(x, "the batch-norm operand"));
  if (!IsFloat(x.element_type())) {
    return Invalid(OpcodeName(op), " expects a floating-point operand, got ", Str(x));
  }
  const int64_t f = ins.attrs().feature_index;
  if (f < 0 || f >= x.rank()) {
    return Invalid(OpcodeName(op), " feature_index=", f, " is out of range for ", Str(x));
  }
  const Shape feature(x.element_type(), {x.dimensions(f)});
  // batch-norm-grad's last operand is the output gradient, shaped like the operand.
  for (int64_t i = 1; i < want; ++i) {
    const Shape& s = OperandShape(ins, i);
    const bool full = op == Opcode::kBatchNormGrad && i == 4;
    const Shape& expected = full ? x : feature;
    if (!ShapesAgree(s, expected)) {
      return Invalid(OpcodeName(op), " operand ", i, " is ", Str(s), " but must be ",
                     Str(expected));
    }
  }
  if (op == Opcode::kBatchNormInference) return NoLayout(x);
  return Shape::Tuple({NoLayout(x), feature, feature});
}

StatusOr<Shape> InferTopK(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 1));
  const Shape& x = OperandShape(ins, 0);
  RETURN_IF_ERROR(ExpectArray(x, "the topk operand"));
  if (x.rank() < 1) return Invalid("topk needs an operand of rank >= 1, got ", Str(x));
  const int64_t k = ins.attrs().k;
  if (k < 0 || k > x.dimensions(x.rank() - 1)) {
    return Invalid("topk k=", k, " is out of range for ", Str(x));
  }
  Shape values = NoLayout(x);
  values.set_dimension(x.rank() - 1, k);
  return Shape::Tuple({values, WithType(values, PrimitiveType::kS32)});
}

// ===================================================================================
// 9. Collectives, tokens and the rest
// ===================================================================================

// Number of participants per group, when the replica groups say it.
std::optional<int64_t> GroupSize(const Instruction& ins) {
  const auto& groups = ins.attrs().replica_groups;
  if (!groups) return std::nullopt;
  if (groups->iota) {
    if (groups->iota_group_shape.size() == 2) return groups->iota_group_shape[1];
    return std::nullopt;
  }
  if (groups->groups.empty() || groups->groups[0].empty()) return std::nullopt;
  return static_cast<int64_t>(groups->groups[0].size());
}

std::vector<Shape> OperandShapes(const Instruction& ins) {
  std::vector<Shape> shapes;
  for (const Instruction* op : ins.operands()) shapes.push_back(NoLayout(op->shape()));
  return shapes;
}

const Shape* DeclaredElement(const Instruction& ins, int64_t i, int64_t n) {
  const Shape& d = ins.shape();
  if (n == 1 && !d.IsTuple()) return &d;
  if (d.IsTuple() && i < d.tuple_size()) return &d.tuple_shapes(i);
  return nullptr;
}

// all-gather and reduce-scatter: one dimension grows (gather) or shrinks (scatter) by the
// group size; the group size comes from replica_groups or, failing that, the declared shape.
StatusOr<Shape> InferGatherScatterCollective(const Instruction& ins, bool gather) {
  RETURN_IF_ERROR(ExpectOperandsAtLeast(ins, 1));
  const std::vector<int64_t>& dims = ins.dimensions();
  if (dims.size() != 1) {
    return Invalid(OpcodeName(ins.opcode()),
                   " needs one dimension, got dimensions=", DimList(dims));
  }
  const int64_t d = dims[0];
  const int64_t n = ins.operand_count();
  std::optional<int64_t> group = GroupSize(ins);
  std::vector<Shape> results;
  for (int64_t i = 0; i < n; ++i) {
    const Shape& x = OperandShape(ins, i);
    RETURN_IF_ERROR(ExpectArray(x, "a collective operand"));
    if (d < 0 || d >= x.rank()) {
      return Invalid(OpcodeName(ins.opcode()), " dimension ", d, " is out of range for ", Str(x));
    }
    int64_t g = group.value_or(0);
    const Shape* declared = DeclaredElement(ins, i, n);
    if (g == 0 && declared != nullptr && declared->IsArray() && declared->rank() == x.rank()) {
      const int64_t in = x.dimensions(d), out = declared->dimensions(d);
      if (gather && in > 0 && out % in == 0) g = out / in;
      if (!gather && out > 0 && in % out == 0) g = in / out;
    }
    if (g <= 0) return NotInferable("group size of ", OpcodeName(ins.opcode()), " unknown");
    Shape r = NoLayout(x);
    if (gather) {
      ASSIGN_OR_RETURN(int64_t gathered, Mul(x.dimensions(d), g));
      r.set_dimension(d, gathered);
    } else {
      if (x.dimensions(d) % g != 0) {
        return Invalid("reduce-scatter dimension ", d, " of ", Str(x),
                       " is not divisible by the group size ", g);
      }
      r.set_dimension(d, x.dimensions(d) / g);
    }
    results.push_back(r);
  }
  return TupleOrSingle(std::move(results));
}

StatusOr<Shape> InferAllReduce(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandsAtLeast(ins, 1));
  ASSIGN_OR_RETURN(const Computation* reducer, Called(ins, 0, "to_apply"));
  ASSIGN_OR_RETURN(std::vector<Shape> params, ParameterShapes(reducer));
  if (params.size() != 2) {
    return Invalid(OpcodeName(ins.opcode()), " to_apply computation ", CompName(reducer), " takes ",
                   params.size(), " parameter(s) but must take 2");
  }
  return TupleOrSingle(OperandShapes(ins));
}

StatusOr<Shape> InferRngBitGenerator(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 1));
  const Shape& state = OperandShape(ins, 0);
  const Shape& d = ins.shape();
  if (d.IsTuple() && d.tuple_size() >= 1 && !ShapesAgree(d.tuple_shapes(0), state)) {
    return Invalid("rng-bit-generator result state ", Str(d.tuple_shapes(0)),
                   " must match the input state ", Str(state));
  }
  return NotInferable("rng-bit-generator output shape is declared");
}

}  // namespace

// ===================================================================================
// 10. InferShape
// ===================================================================================

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

  switch (op) {
    case Opcode::kSelect:
      return InferSelect(ins);
    case Opcode::kClamp:
      return InferClamp(ins);
    case Opcode::kBroadcast:
      return InferBroadcast(ins);
    case Opcode::kReshape:
      return InferReshape(ins);
    case Opcode::kTranspose:
      return InferTranspose(ins);
    case Opcode::kSlice:
      return InferSlice(ins);
    case Opcode::kDynamicSlice:
      return InferDynamicSlice(ins);
    case Opcode::kDynamicUpdateSlice:
      return InferDynamicUpdateSlice(ins);
    case Opcode::kConcatenate:
      return InferConcatenate(ins);
    case Opcode::kPad:
      return InferPad(ins);
    case Opcode::kIota:
      return InferIota(ins);
    case Opcode::kReverse:
      return InferReverse(ins);
    case Opcode::kReduce:
      return InferReduce(ins);
    case Opcode::kReduceWindow:
      return InferReduceWindow(ins);
    case Opcode::kSelectAndScatter:
      return InferSelectAndScatter(ins);
    case Opcode::kDot:
      return InferDot(ins);
    case Opcode::kConvolution:
      return InferConvolution(ins);
    case Opcode::kGather:
      return InferGather(ins);
    case Opcode::kScatter:
      return InferScatter(ins);
    case Opcode::kTuple:
      return InferTuple(ins);
    case Opcode::kGetTupleElement:
      return InferGetTupleElement(ins);
    case Opcode::kMap:
      return InferMap(ins);
    case Opcode::kSort:
      return InferSort(ins);
    case Opcode::kWhile:
      return InferWhile(ins);
    case Opcode::kConditional:
      return InferConditional(ins);
    case Opcode::kCall:
      return InferCallLike(ins, "to_apply");
    case Opcode::kFusion:
      return InferCallLike(ins, "fused");
    case Opcode::kTriangularSolve:
      return InferTriangularSolve(ins);
    case Opcode::kCholesky:
      return InferCholesky(ins);
    case Opcode::kFft:
      return InferFft(ins);
    case Opcode::kBatchNormTraining:
    case Opcode::kBatchNormInference:
    case Opcode::kBatchNormGrad:
      return InferBatchNorm(ins);
    case Opcode::kTopK:
      return InferTopK(ins);

    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
      return InferAllReduce(ins);
    case Opcode::kAllReduceDone:
      RETURN_IF_ERROR(ExpectOperandCount(ins, 1));
      return NoLayout(OperandShape(ins, 0));
    case Opcode::kAllGather:
      return InferGatherScatterCollective(ins, /*gather=*/true);
    case Opcode::kReduceScatter:
      return InferGatherScatterCollective(ins, /*gather=*/false);
    case Opcode::kAllToAll:
    case Opcode::kCollectiveBroadcast:
      RETURN_IF_ERROR(ExpectOperandsAtLeast(ins, 1));
      return TupleOrSingle(OperandShapes(ins));
    case Opcode::kCollectivePermute:
      RETURN_IF_ERROR(ExpectOperandsAtLeast(ins, 1));
      // The in-place form (input, output, start indices...) is declared.
      if (!ins.attrs().slice_sizes_list.empty()) return NotInferable("in-place collective-permute");
      return TupleOrSingle(OperandShapes(ins));

    case Opcode::kAfterAll:
      for (int64_t i = 0; i < ins.operand_count(); ++i) {
        if (!OperandShape(ins, i).IsToken()) {
          return Invalid("after-all operands must be tokens, operand ", i, " is ",
                         Str(OperandShape(ins, i)));
        }
      }
      return Shape::Token();
    case Opcode::kAddDependency:
      RETURN_IF_ERROR(ExpectOperandCount(ins, 2));
      return NoLayout(OperandShape(ins, 0));
    case Opcode::kOptimizationBarrier:
    case Opcode::kDomain:
      RETURN_IF_ERROR(ExpectOperandCount(ins, 1));
      return NoLayout(OperandShape(ins, 0));
    case Opcode::kCopyStart:
      RETURN_IF_ERROR(ExpectOperandCount(ins, 1));
      return Shape::Tuple({NoLayout(OperandShape(ins, 0)), NoLayout(OperandShape(ins, 0)),
                           Shape::Scalar(PrimitiveType::kU32)});
    case Opcode::kCopyDone: {
      RETURN_IF_ERROR(ExpectOperandCount(ins, 1));
      const Shape& t = OperandShape(ins, 0);
      if (!t.IsTuple() || t.tuple_size() < 1) {
        return Invalid("copy-done operand must be the tuple copy-start produces, got ", Str(t));
      }
      return NoLayout(t.tuple_shapes(0));
    }
    case Opcode::kPartitionId:
    case Opcode::kReplicaId:
      RETURN_IF_ERROR(ExpectOperandCount(ins, 0));
      return Shape::Scalar(PrimitiveType::kU32);
    case Opcode::kGetDimensionSize: {
      RETURN_IF_ERROR(ExpectOperandCount(ins, 1));
      const Shape& x = OperandShape(ins, 0);
      const std::vector<int64_t>& dims = ins.dimensions();
      if (dims.size() != 1 || dims[0] < 0 || dims[0] >= x.rank()) {
        return Invalid("get-dimension-size dimensions=", DimList(dims), " is out of range for ",
                       Str(x));
      }
      return Shape::Scalar(PrimitiveType::kS32);
    }
    case Opcode::kSetDimensionSize: {
      RETURN_IF_ERROR(ExpectOperandCount(ins, 2));
      const Shape& x = OperandShape(ins, 0);
      const std::vector<int64_t>& dims = ins.dimensions();
      RETURN_IF_ERROR(ExpectArray(x, "the set-dimension-size operand"));
      if (dims.size() != 1 || dims[0] < 0 || dims[0] >= x.rank()) {
        return Invalid("set-dimension-size dimensions=", DimList(dims), " is out of range for ",
                       Str(x));
      }
      const Shape& size = OperandShape(ins, 1);
      if (!size.IsScalar() || size.element_type() != PrimitiveType::kS32) {
        return Invalid("set-dimension-size size must be s32[], got ", Str(size));
      }
      Shape out = NoLayout(x);
      out.set_dynamic_dimension(dims[0], true);
      return out;
    }
    case Opcode::kRng: {
      RETURN_IF_ERROR(ExpectOperandCount(ins, 2));
      const Shape& a = OperandShape(ins, 0);
      const Shape& b = OperandShape(ins, 1);
      RETURN_IF_ERROR(ExpectScalar(a, "rng's first parameter"));
      RETURN_IF_ERROR(ExpectScalar(b, "rng's second parameter"));
      if (a.element_type() != b.element_type()) {
        return Invalid("rng parameters have different element types: ", Str(a), " and ", Str(b));
      }
      if (!ins.shape().IsArray())
        return Invalid("rng must produce an array, declared ", Str(ins.shape()));
      return WithType(ins.shape(), a.element_type());
    }
    case Opcode::kRngGetAndUpdateState:
      return Shape(PrimitiveType::kU64, {2});
    case Opcode::kRngBitGenerator:
      return InferRngBitGenerator(ins);
    case Opcode::kOutfeed:
      RETURN_IF_ERROR(ExpectOperandCount(ins, 2));
      if (ins.attrs().outfeed_shape &&
          !ShapesAgree(*ins.attrs().outfeed_shape, OperandShape(ins, 0))) {
        return Invalid("outfeed_shape=", Str(*ins.attrs().outfeed_shape),
                       " does not match the outfed operand ", Str(OperandShape(ins, 0)));
      }
      return Shape::Token();

    default:
      return NotInferable(OpcodeName(op), "'s result shape is declared, not inferred");
  }
}

}  // namespace fusebox
