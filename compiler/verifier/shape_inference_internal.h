// What the pieces of shape inference share: the helpers (messages, shape predicates,
// called-computation signatures, window arithmetic) and each op family's inference,
// which InferShape dispatches to. Not for use outside compiler/verifier/shape_inference*.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/computation.h"
#include "compiler/ir/instruction.h"
#include "compiler/support/status.h"

namespace fusebox::shape_inference_internal {

// --- Helpers (shape_inference.cc) ---

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

std::string Str(const Shape& shape);
std::string DimList(const std::vector<int64_t>& dims);
std::string_view TypeName(PrimitiveType type);
bool Contains(const std::vector<int64_t>& v, int64_t x);
bool IsSorted(const std::vector<int64_t>& v);
// `what` followed by the list: "dimensions={0,1}" when `what` ends in '=', else spaced.
std::string Named(std::string_view what, const std::vector<int64_t>& dims);

// Every entry of `dims` is a valid index into a rank-`rank` array, each at most once.
Status CheckDimensionList(const std::vector<int64_t>& dims, int64_t rank, std::string_view what);

bool SameDims(const Shape& a, const Shape& b);
bool SameTypeIgnoringFpPrecision(PrimitiveType a, PrimitiveType b);
Status ExpectArray(const Shape& shape, std::string_view what);
Status ExpectScalar(const Shape& shape, std::string_view what);
Status ExpectOperandCount(const Instruction& ins, int64_t n);
Status ExpectOperandsAtLeast(const Instruction& ins, int64_t n);
const Shape& OperandShape(const Instruction& ins, int64_t i);
Shape WithType(const Shape& shape, PrimitiveType type);
Shape NoLayout(Shape shape);
Shape TupleOrSingle(std::vector<Shape> shapes);
// The element type a result takes when its operation lets the writer choose it (dot,
// convolution, convert): the declared one when the declared shape is an array.
PrimitiveType DeclaredElementType(const Instruction& ins, PrimitiveType fallback);

std::string CompName(const Computation* c);
StatusOr<const Computation*> Called(const Instruction& ins, int64_t i, std::string_view role);
// Parameter shapes of `c` in number order; fails when numbers have gaps.
StatusOr<std::vector<Shape>> ParameterShapes(const Computation* c);

StatusOr<Shape> RootShape(const Computation* c);
// `c` takes exactly `expected` parameters (shapes compared ignoring layout).
Status CheckParameters(const Computation* c, const std::vector<Shape>& expected,
                       std::string_view role);

// A reduction computation for N inputs: parameters (acc_0..acc_N-1, x_0..x_N-1), all
// scalars, returning a scalar (N = 1) or an N-tuple of scalars. Accumulators carry the
// init types; the x_i take the input element types (XLA lets floats differ in precision).
// Returns the accumulator types.
StatusOr<std::vector<PrimitiveType>> CheckReducer(const Computation* c,
                                                  const std::vector<PrimitiveType>& init_types,
                                                  const std::vector<PrimitiveType>& input_types,
                                                  std::string_view role);

StatusOr<int64_t> Add(int64_t a, int64_t b);
StatusOr<int64_t> Mul(int64_t a, int64_t b);
StatusOr<int64_t> WindowOutputSize(int64_t base, const WindowDimension& w);
StatusOr<std::vector<int64_t>> WindowOutputDims(const std::vector<int64_t>& base,
                                                const Window& window);

// --- Elementwise ops (shape_inference_elementwise.cc) ---

StatusOr<Shape> InferUnary(const Instruction& ins);
StatusOr<Shape> InferBinary(const Instruction& ins);
StatusOr<Shape> InferSelect(const Instruction& ins);
StatusOr<Shape> InferClamp(const Instruction& ins);

// --- Data movement (shape_inference_data_movement.cc) ---

StatusOr<Shape> InferBroadcast(const Instruction& ins);
StatusOr<Shape> InferReshape(const Instruction& ins);
StatusOr<Shape> InferTranspose(const Instruction& ins);
StatusOr<Shape> InferSlice(const Instruction& ins);
StatusOr<Shape> InferDynamicSlice(const Instruction& ins);
StatusOr<Shape> InferDynamicUpdateSlice(const Instruction& ins);
StatusOr<Shape> InferConcatenate(const Instruction& ins);
StatusOr<Shape> InferPad(const Instruction& ins);
StatusOr<Shape> InferIota(const Instruction& ins);
StatusOr<Shape> InferReverse(const Instruction& ins);

// --- Reductions and windows (shape_inference_reductions.cc) ---

StatusOr<Shape> InferReduce(const Instruction& ins);
StatusOr<Shape> InferReduceWindow(const Instruction& ins);
StatusOr<Shape> InferSelectAndScatter(const Instruction& ins);

// --- Contractions (shape_inference_contractions.cc) ---

StatusOr<Shape> InferDot(const Instruction& ins);
StatusOr<Shape> InferConvolution(const Instruction& ins);

// --- Gather and scatter (shape_inference_gather_scatter.cc) ---

StatusOr<Shape> InferGather(const Instruction& ins);
StatusOr<Shape> InferScatter(const Instruction& ins);

// --- Control flow, tuples and calls (shape_inference_control_flow.cc) ---

StatusOr<Shape> InferTuple(const Instruction& ins);
StatusOr<Shape> InferGetTupleElement(const Instruction& ins);
StatusOr<Shape> InferMap(const Instruction& ins);
StatusOr<Shape> InferSort(const Instruction& ins);
StatusOr<Shape> InferWhile(const Instruction& ins);
StatusOr<Shape> InferConditional(const Instruction& ins);
StatusOr<Shape> InferCall(const Instruction& ins);
StatusOr<Shape> InferFusion(const Instruction& ins);

// --- Linear algebra, fft, batch norm, topk (shape_inference_linalg.cc) ---

StatusOr<Shape> InferTriangularSolve(const Instruction& ins);
StatusOr<Shape> InferCholesky(const Instruction& ins);
StatusOr<Shape> InferFft(const Instruction& ins);
StatusOr<Shape> InferBatchNorm(const Instruction& ins);
StatusOr<Shape> InferTopK(const Instruction& ins);

// --- Collectives, tokens and the rest (shape_inference_collectives.cc) ---

StatusOr<Shape> InferAllReduce(const Instruction& ins);
StatusOr<Shape> InferRngBitGenerator(const Instruction& ins);
StatusOr<Shape> InferAllReduceDone(const Instruction& ins);
StatusOr<Shape> InferAllGather(const Instruction& ins);
StatusOr<Shape> InferReduceScatter(const Instruction& ins);
StatusOr<Shape> InferAllToAll(const Instruction& ins);
StatusOr<Shape> InferCollectivePermute(const Instruction& ins);
StatusOr<Shape> InferAfterAll(const Instruction& ins);
StatusOr<Shape> InferAddDependency(const Instruction& ins);
StatusOr<Shape> InferPassThrough(const Instruction& ins);
StatusOr<Shape> InferCopyStart(const Instruction& ins);
StatusOr<Shape> InferCopyDone(const Instruction& ins);
StatusOr<Shape> InferDeviceId(const Instruction& ins);
StatusOr<Shape> InferGetDimensionSize(const Instruction& ins);
StatusOr<Shape> InferSetDimensionSize(const Instruction& ins);
StatusOr<Shape> InferRng(const Instruction& ins);
StatusOr<Shape> InferRngGetAndUpdateState(const Instruction& ins);
StatusOr<Shape> InferOutfeed(const Instruction& ins);

}  // namespace fusebox::shape_inference_internal
