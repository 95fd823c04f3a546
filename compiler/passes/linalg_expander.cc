#include "compiler/passes/linalg_expander.h"

#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/cholesky.h"
#include "compiler/ir/library_calls.h"
#include "compiler/ir/plain_hlo_builder.h"

namespace fusebox::passes {
namespace {

using Builder = library_call_internal::PlainHloBuilder;

bool Expandable(const Instruction& inst) {
  if (inst.opcode() == Opcode::kRaggedDot) return true;
  if (inst.opcode() != Opcode::kTriangularSolve && inst.opcode() != Opcode::kCholesky) return false;
  if (!inst.shape().IsArray() || inst.shape().rank() < 2) return false;
  const PrimitiveType type = inst.shape().element_type();
  return type == PrimitiveType::kF16 || type == PrimitiveType::kBF16 || type == PrimitiveType::kF32 ||
         type == PrimitiveType::kF64;
}

// t x = b for t [..., k, k] triangular (lower or upper, zeros elsewhere), b [..., k, n].
Instruction* LeftSolve(Module& module, Computation* parent, Instruction* t, Instruction* rhs, bool lower) {
  const int64_t rank = t->shape().rank();
  const int64_t k = t->shape().dimensions(rank - 1);
  const int64_t n = rhs->shape().dimensions(rank - 1);
  Builder outer(module, parent);
  Instruction* x0 = outer.Splat(0, rhs->shape());
  library_call_internal::PlainHloLoop loop(module, parent, "triangular_solve");
  std::vector<Instruction*> out = loop.Run(k, {x0, t, rhs}, [&](Builder& b, Instruction* i, const std::vector<Instruction*>& s) {
    Instruction* x = s[0];
    Instruction* tt = s[1];
    Instruction* bb = s[2];
    Instruction* row = lower ? i : b.Binary(Opcode::kSubtract, b.Scalar(static_cast<double>(k - 1), PrimitiveType::kS32), i);
    Instruction* zero = b.Scalar(0, PrimitiveType::kS32);
    Instruction* t_row = b.DynamicSliceMinor(tt, row, zero, 1, k);
    Instruction* known = b.BatchDot(t_row, x, rank - 1, rank - 2);  // [..., 1, n]
    Instruction* b_row = b.DynamicSliceMinor(bb, row, zero, 1, n);
    Instruction* diagonal = b.SpreadScalar(b.DynamicSliceMinor(tt, row, row, 1, 1), 1, n);
    Instruction* x_row = b.Binary(Opcode::kDivide, b.Binary(Opcode::kSubtract, b_row, known), diagonal);
    return std::vector<Instruction*>{b.DynamicUpdateMinor(x, x_row, row, zero), tt, bb};
  });
  return out[0];
}

Instruction* ExpandTriangularSolve(Module& module, Instruction* solve, PrimitiveType compute) {
  Computation* parent = solve->parent();
  Builder b(module, parent);
  const InstructionAttributes& attrs = solve->attrs();
  const bool left = attrs.left_side.value_or(false);
  const bool lower = attrs.lower.value_or(false);
  const bool unit = attrs.unit_diagonal.value_or(false);
  const TransposeA transpose = attrs.transpose_a.value_or(TransposeA::kNoTranspose);
  Instruction* a = b.Convert(solve->operand(0), compute);
  Instruction* rhs = b.Convert(solve->operand(1), compute);
  if (transpose != TransposeA::kNoTranspose) a = b.SwapMinor(a);  // real: the adjoint is the transpose
  bool t_lower = lower == (transpose == TransposeA::kNoTranspose);
  const int64_t rank = a->shape().rank();
  Instruction* rows = b.Iota(a->shape().dimensions(), rank - 2);
  Instruction* cols = b.Iota(a->shape().dimensions(), rank - 1);
  Instruction* t = b.Select(b.Compare(rows, cols, t_lower ? ComparisonDirection::kGe : ComparisonDirection::kLe), a,
                            b.Splat(0, a->shape()));
  if (unit) t = b.Select(b.Compare(rows, cols, ComparisonDirection::kEq), b.Splat(1, t->shape()), t);
  if (!left) {  // x t = b  <=>  t^T x^T = b^T
    t = b.SwapMinor(t);
    rhs = b.SwapMinor(rhs);
    t_lower = !t_lower;
  }
  Instruction* x = LeftSolve(module, parent, t, rhs, t_lower);
  if (!left) x = b.SwapMinor(x);
  return b.Convert(x, solve->shape().element_type());
}

// XLA's cholesky expander's meaning: the factor column by column, and every matrix where
// some diagonal square root was NaN (a pivot below zero: not positive definite) all NaN,
// as XLA selects (the interpreter's EvalCholesky does the same).
Instruction* ExpandCholesky(Module& module, Instruction* cholesky, PrimitiveType compute) {
  Computation* parent = cholesky->parent();
  Builder b(module, parent);
  const bool lower = cholesky->attrs().lower.value_or(false);
  Instruction* a = b.Convert(cholesky->operand(0), compute);
  // The lower triangle of the Hermitian matrix: a's own, or a's transpose's for lower=false.
  Instruction* source = lower ? a : b.SwapMinor(a);
  const library_call_internal::CholeskyColumns l = library_call_internal::CholeskyLoop(module, parent, source);
  Instruction* factor = lower ? l.factor : b.SwapMinor(l.factor);
  const int64_t rank = factor->shape().rank();
  std::vector<int64_t> batch_dims(static_cast<size_t>(rank - 2));
  std::iota(batch_dims.begin(), batch_dims.end(), 0);
  Instruction* failed = b.Broadcast(l.root_failed, Builder::WithType(factor->shape(), PrimitiveType::kPred), batch_dims);
  factor = b.Select(failed, b.Splat(std::numeric_limits<double>::quiet_NaN(), factor->shape()), factor);
  return b.Convert(factor, cholesky->shape().element_type());
}

// XLA's GPU rewrite of a `cholesky` for cuSOLVER: a potrf call (cusolver_potrf_ffi, run
// by the GPU runtime as solver_plan.h plans it) and the value the op is: a matrix whose
// factorization failed (info != 0) all NaN, as XLA selects; the other triangle zeros,
// as the interpreter's and the expander's (XLA leaves potrf's, which is a's own: the op
// does not define that triangle). One fused select kernel either way.
Instruction* CholeskyThroughPotrf(Module& module, Instruction* cholesky) {
  Computation* parent = cholesky->parent();
  Builder b(module, parent);
  Instruction* a = cholesky->operand(0);
  const Shape value = Builder::Plain(cholesky->shape());
  const int64_t rank = value.rank();
  std::vector<int64_t> batch(value.dimensions().begin(), value.dimensions().end() - 2);
  const bool lower = cholesky->attrs().lower.value_or(false);
  Shape call_shape = Shape::Tuple({value, Builder::Array(PrimitiveType::kS32, batch)});
  auto call = std::make_unique<Instruction>(Opcode::kCustomCall, module.UniqueName(cholesky->name()), call_shape);
  call->AppendOperand(a);
  InstructionAttributes& attrs = call->mutable_attrs();
  attrs.custom_call_target = "cusolver_potrf_ffi";
  attrs.has_custom_call_target = true;
  attrs.api_version = CustomCallApiVersion::kTypedFfi;
  attrs.backend_config = lower ? "{lower = true}" : "{lower = false}";
  attrs.has_backend_config = true;
  if (cholesky->metadata() != nullptr) call->set_metadata(*cholesky->metadata());
  call->set_location(cholesky->location());
  Instruction* potrf = parent->AddInstruction(std::move(call));
  Instruction* factor = b.Add(Opcode::kGetTupleElement, value, {potrf});
  factor->mutable_attrs().tuple_index = 0;
  Instruction* info = b.Add(Opcode::kGetTupleElement, call_shape.tuple_shapes(1), {potrf});
  info->mutable_attrs().tuple_index = 1;
  std::vector<int64_t> batch_dims(batch.size());
  for (size_t d = 0; d < batch.size(); ++d) batch_dims[d] = static_cast<int64_t>(d);
  const Shape pred = Builder::WithType(value, PrimitiveType::kPred);
  Instruction* ok = b.Broadcast(b.Compare(info, b.Splat(0, info->shape()), ComparisonDirection::kEq), pred, batch_dims);
  Instruction* in_triangle = b.Compare(b.Iota(value.dimensions(), rank - 2), b.Iota(value.dimensions(), rank - 1),
                                       lower ? ComparisonDirection::kGe : ComparisonDirection::kLe);
  Instruction* triangle = b.Select(in_triangle, factor, b.Splat(0, value));
  return b.Select(ok, triangle, b.Splat(std::numeric_limits<double>::quiet_NaN(), value));
}

// The types cuSOLVER's potrf factors.
bool PotrfType(PrimitiveType type) {
  return type == PrimitiveType::kF32 || type == PrimitiveType::kF64 || type == PrimitiveType::kC64 ||
         type == PrimitiveType::kC128;
}

}  // namespace

// ragged-dot (ReadRaggedDot's forms) as ordinary dots and masks: in_group[r, j] = start_j
// <= r < start_j + size_j with start_j the sum of the sizes before j (negative sizes count
// as 0). Rows: one dot of every row with every group's matrix, [m, g, n], and each row's
// group picked; contracting: lhs masked per group, [g, m, k], then one dot contracting m.
// The first computes g times what is kept: right for any group sizes, and what a backend
// without a grouped-matmul kernel can run.
StatusOr<Instruction*> ExpandRaggedDot(Module& module, Instruction* ragged) {
  ASSIGN_OR_RETURN(const RaggedDotForm form, ReadRaggedDot(*ragged));
  Builder b(module, ragged->parent());
  Instruction* lhs = ragged->operand(0);
  Instruction* rhs = ragged->operand(1);
  const int64_t m = lhs->shape().dimensions(0), k = lhs->shape().dimensions(1);
  const int64_t g = ragged->operand(2)->shape().dimensions(0);
  const PrimitiveType type = ragged->shape().element_type();
  Instruction* sizes = b.Convert(ragged->operand(2), PrimitiveType::kS32);
  sizes = b.Binary(Opcode::kMaximum, sizes, b.Splat(0, sizes->shape()));
  Instruction* before = b.Compare(b.Iota({g, g}, 1), b.Iota({g, g}, 0), ComparisonDirection::kLt);  // [j, i]: i < j
  Instruction* spread = b.Broadcast(sizes, Builder::Array(PrimitiveType::kS32, {g, g}), {1});
  Instruction* starts = b.Reduce(b.Select(before, spread, b.Splat(0, spread->shape())), {1}, Opcode::kAdd, 0);  // [g]
  const Shape mask_shape = Builder::Array(PrimitiveType::kS32, {m, g});
  Instruction* row = b.Iota({m, g}, 0);
  Instruction* start = b.Broadcast(starts, mask_shape, {1});
  Instruction* end = b.Binary(Opcode::kAdd, start, b.Broadcast(sizes, mask_shape, {1}));
  Instruction* in_group = b.Binary(Opcode::kAnd, b.Compare(row, start, ComparisonDirection::kGe),
                                   b.Compare(row, end, ComparisonDirection::kLt));  // [m, g]
  DotDimensionNumbers dims;
  if (form.mode == RaggedDotForm::kRaggedRows) {
    const int64_t n = rhs->shape().dimensions(form.rhs_contracting == 1 ? 2 : 1);
    dims.lhs_contracting_dimensions = {1};
    dims.rhs_contracting_dimensions = {form.rhs_contracting};
    Instruction* all = b.Dot(Builder::Array(type, {m, g, n}), lhs, rhs, dims);
    all->mutable_attrs().operand_precision = ragged->attrs().operand_precision;
    const Shape wide = Builder::Array(type, {m, g, n});
    Instruction* picked = b.Select(b.Broadcast(in_group, Builder::WithType(wide, PrimitiveType::kPred), {0, 1}), all,
                                   b.Splat(0, wide));
    return b.Reduce(picked, {1}, Opcode::kAdd, 0);
  }
  const int64_t n = rhs->shape().dimensions(1);
  const Shape grouped = Builder::Array(lhs->shape().element_type(), {g, m, k});
  Instruction* masked = b.Select(b.Broadcast(in_group, Builder::WithType(grouped, PrimitiveType::kPred), {1, 0}),
                                 b.Broadcast(lhs, grouped, {1, 2}), b.Splat(0, grouped));
  dims.lhs_contracting_dimensions = {1};
  dims.rhs_contracting_dimensions = {0};
  Instruction* dot = b.Dot(Builder::Array(type, {g, k, n}), masked, rhs, dims);
  dot->mutable_attrs().operand_precision = ragged->attrs().operand_precision;
  return dot;
}

StatusOr<bool> LinalgExpander::Run(Module& module, PassContext&) {
  std::vector<Instruction*> found;
  std::vector<Instruction*> for_potrf;
  for (const auto& computation : module.computations()) {
    for (const auto& inst : computation->instructions()) {
      if (gpu_libraries_ && inst->opcode() == Opcode::kCholesky && inst->shape().IsArray() &&
          inst->shape().rank() >= 2 && PotrfType(inst->shape().element_type())) {
        for_potrf.push_back(inst.get());  // cuSOLVER's potrf runs it
        continue;
      }
      if (!Expandable(*inst)) continue;
      const PrimitiveType type = inst->shape().element_type();
      if (gpu_libraries_ && inst->opcode() == Opcode::kTriangularSolve &&
          (type == PrimitiveType::kF32 || type == PrimitiveType::kF64)) {
        continue;  // cuBLAS's trsm runs it
      }
      found.push_back(inst.get());
    }
  }
  for (Instruction* inst : for_potrf) {
    Instruction* replacement = CholeskyThroughPotrf(module, inst);
    inst->parent()->ReplaceInstruction(inst, replacement);
  }
  for (Instruction* inst : found) {
    if (inst->opcode() == Opcode::kRaggedDot) {
      ASSIGN_OR_RETURN(Instruction* expanded, ExpandRaggedDot(module, inst));
      expanded->set_shape(inst->shape());
      inst->parent()->ReplaceInstruction(inst, expanded);
      continue;
    }
    const PrimitiveType type = inst->shape().element_type();
    const PrimitiveType compute = type == PrimitiveType::kF64 ? type : PrimitiveType::kF32;
    Instruction* replacement = inst->opcode() == Opcode::kTriangularSolve ? ExpandTriangularSolve(module, inst, compute)
                                                                          : ExpandCholesky(module, inst, compute);
    replacement->set_shape(inst->shape());
    inst->parent()->ReplaceInstruction(inst, replacement);
  }
  return !found.empty() || !for_potrf.empty();
}

}  // namespace fusebox::passes
