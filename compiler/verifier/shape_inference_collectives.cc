// Shape inference for collectives, tokens and the rest (copies, dimension sizes, rng,
// outfeed).
#include <algorithm>
#include <set>

#include "compiler/support/strings.h"
#include "compiler/verifier/shape_inference.h"
#include "compiler/verifier/shape_inference_internal.h"

namespace fusebox::shape_inference_internal {

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

StatusOr<Shape> InferAllReduceDone(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 1));
  return NoLayout(OperandShape(ins, 0));
}

StatusOr<Shape> InferAllGather(const Instruction& ins) {
  return InferGatherScatterCollective(ins, /*gather=*/true);
}

StatusOr<Shape> InferReduceScatter(const Instruction& ins) {
  return InferGatherScatterCollective(ins, /*gather=*/false);
}

// all-to-all and collective-broadcast: one result per operand.
StatusOr<Shape> InferAllToAll(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandsAtLeast(ins, 1));
  return TupleOrSingle(OperandShapes(ins));
}

StatusOr<Shape> InferCollectivePermute(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandsAtLeast(ins, 1));
  // The in-place form (input, output, start indices...) is declared.
  if (!ins.attrs().slice_sizes_list.empty()) return NotInferable("in-place collective-permute");
  return TupleOrSingle(OperandShapes(ins));
}

StatusOr<Shape> InferAfterAll(const Instruction& ins) {
  for (int64_t i = 0; i < ins.operand_count(); ++i) {
    if (!OperandShape(ins, i).IsToken()) {
      return Invalid("after-all operands must be tokens, operand ", i, " is ",
                     Str(OperandShape(ins, i)));
    }
  }
  return Shape::Token();
}

StatusOr<Shape> InferAddDependency(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 2));
  return NoLayout(OperandShape(ins, 0));
}

// optimization-barrier and domain: the operand's shape.
StatusOr<Shape> InferPassThrough(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 1));
  return NoLayout(OperandShape(ins, 0));
}

StatusOr<Shape> InferCopyStart(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 1));
  return Shape::Tuple({NoLayout(OperandShape(ins, 0)), NoLayout(OperandShape(ins, 0)),
                       Shape::Scalar(PrimitiveType::kU32)});
}

StatusOr<Shape> InferCopyDone(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 1));
  const Shape& t = OperandShape(ins, 0);
  if (!t.IsTuple() || t.tuple_size() < 1) {
    return Invalid("copy-done operand must be the tuple copy-start produces, got ", Str(t));
  }
  return NoLayout(t.tuple_shapes(0));
}

// partition-id and replica-id.
StatusOr<Shape> InferDeviceId(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 0));
  return Shape::Scalar(PrimitiveType::kU32);
}

StatusOr<Shape> InferGetDimensionSize(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 1));
  const Shape& x = OperandShape(ins, 0);
  const std::vector<int64_t>& dims = ins.dimensions();
  if (dims.size() != 1 || dims[0] < 0 || dims[0] >= x.rank()) {
    return Invalid("get-dimension-size dimensions=", DimList(dims), " is out of range for ",
                   Str(x));
  }
  return Shape::Scalar(PrimitiveType::kS32);
}

StatusOr<Shape> InferSetDimensionSize(const Instruction& ins) {
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

StatusOr<Shape> InferRng(const Instruction& ins) {
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

StatusOr<Shape> InferRngGetAndUpdateState(const Instruction& ins) {
  return Shape(PrimitiveType::kU64, {2});
}

StatusOr<Shape> InferOutfeed(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 2));
  if (ins.attrs().outfeed_shape &&
      !ShapesAgree(*ins.attrs().outfeed_shape, OperandShape(ins, 0))) {
    return Invalid("outfeed_shape=", Str(*ins.attrs().outfeed_shape),
                   " does not match the outfed operand ", Str(OperandShape(ins, 0)));
  }
  return Shape::Token();
}

}  // namespace fusebox::shape_inference_internal
