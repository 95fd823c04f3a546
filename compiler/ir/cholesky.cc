#include "compiler/ir/cholesky.h"

#include <cstdint>
#include <vector>

#include "compiler/ir/plain_hlo_builder.h"

namespace fusebox::library_call_internal {

CholeskyColumns CholeskyLoop(Module& module, Computation* parent, Instruction* hermitian) {
  PlainHloBuilder outer(module, parent);
  const Shape matrix = PlainHloBuilder::Plain(hermitian->shape());
  const int64_t rank = matrix.rank();
  const int64_t n = matrix.dimensions(rank - 1);
  const PrimitiveType type = matrix.element_type();
  std::vector<int64_t> one_by_one(matrix.dimensions().begin(), matrix.dimensions().end() - 2);
  const std::vector<int64_t> batch = one_by_one;
  one_by_one.push_back(1);
  one_by_one.push_back(1);
  const Shape flag_shape = PlainHloBuilder::Array(PrimitiveType::kPred, one_by_one);
  const Shape info_shape = PlainHloBuilder::Array(PrimitiveType::kS32, one_by_one);
  Instruction* failed0 = outer.Compare(outer.Splat(0, info_shape), outer.Splat(1, info_shape), ComparisonDirection::kEq);
  PlainHloLoop loop(module, parent, "cholesky");
  std::vector<Instruction*> out = loop.Run(
      n, {outer.Splat(0, matrix), hermitian, failed0, outer.Splat(0, info_shape)},
      [&](PlainHloBuilder& b, Instruction* j, const std::vector<Instruction*>& s) {
        Instruction* l = s[0];
        Instruction* a = s[1];
        Instruction* failed = s[2];
        Instruction* info = s[3];
        Instruction* zero = b.Scalar(0, PrimitiveType::kS32);
        Instruction* column = b.DynamicSliceMinor(a, zero, j, n, 1);  // a[:, j]
        Instruction* l_row = b.DynamicSliceMinor(l, j, zero, 1, n);   // L[j, :], zero from column j on
        // sum_k L[i, k] conj(L[j, k]), [..., n, 1]
        Instruction* known = b.BatchDot(l, b.Conjugate(l_row), rank - 1, rank - 1);
        Instruction* v = b.Binary(Opcode::kSubtract, column, known);
        Instruction* pivot = b.RealPart(b.DynamicSliceMinor(v, j, zero, 1, 1));  // [..., 1, 1]
        Instruction* root = b.Unary(Opcode::kSqrt, pivot);
        Instruction* nan_root = b.Compare(root, root, ComparisonDirection::kNe);
        Instruction* not_positive = b.Add(Opcode::kNot, flag_shape, {b.GreaterThanZero(pivot)});
        Instruction* first = b.Binary(Opcode::kAnd, not_positive,
                                      b.Compare(info, b.Splat(0, info_shape), ComparisonDirection::kEq));
        Instruction* order = b.Broadcast(b.Binary(Opcode::kAdd, j, b.Scalar(1, PrimitiveType::kS32)), info_shape, {});
        Instruction* typed_root = root;
        if (IsComplex(type)) {
          typed_root = b.Add(Opcode::kComplex, PlainHloBuilder::Array(type, one_by_one), {root, b.Splat(0, root->shape())});
        }
        Instruction* spread_root = b.SpreadScalar(typed_root, n, 1);
        std::vector<int64_t> dims = v->shape().dimensions();
        Instruction* rows = b.Iota(dims, rank - 2);
        Instruction* j_full = b.Broadcast(j, PlainHloBuilder::Array(PrimitiveType::kS32, dims), {});
        // The diagonal is the root itself (v[j] / root rounds, and a complex v[j] keeps an
        // imaginary part of rounding); below it v / root; above it zeros.
        Instruction* new_column =
            b.Select(b.Compare(rows, j_full, ComparisonDirection::kEq), spread_root,
                     b.Select(b.Compare(rows, j_full, ComparisonDirection::kGt),
                              b.Binary(Opcode::kDivide, v, spread_root), b.Splat(0, v->shape())));
        return std::vector<Instruction*>{b.DynamicUpdateMinor(l, new_column, zero, j), a,
                                         b.Binary(Opcode::kOr, failed, nan_root), b.Select(first, order, info)};
      });
  CholeskyColumns result;
  result.factor = out[0];
  result.root_failed = outer.Reshape(out[2], batch);
  result.info = outer.Reshape(out[3], batch);
  return result;
}

}  // namespace fusebox::library_call_internal
