#include "compiler/ir/householder.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "compiler/ir/plain_hlo_builder.h"

namespace fusebox::library_call_internal {
namespace {

using Builder = PlainHloBuilder;

// The shapes of one batch of matrices [..., m, n] and what the loops broadcast between.
struct MatrixBatch {
  explicit MatrixBatch(const Shape& shape) : plain(Builder::Plain(shape)), rank(plain.rank()) {
    batch.resize(static_cast<size_t>(rank - 2));
    std::iota(batch.begin(), batch.end(), 0);
    along_rows = batch;
    along_rows.push_back(rank - 2);
    along_cols = batch;
    along_cols.push_back(rank - 1);
    column_dims = std::vector<int64_t>(plain.dimensions().begin(), plain.dimensions().end() - 1);
  }
  Shape plain;
  int64_t rank;
  std::vector<int64_t> batch;        // the batch dimensions, 0 .. rank - 3
  std::vector<int64_t> along_rows;   // a [..., m] vector's dimensions in the matrices
  std::vector<int64_t> along_cols;   // a [..., n] vector's
  std::vector<int64_t> column_dims;  // [..., m]
};

// Column `j` of the matrices x as [..., m].
Instruction* Column(Builder& b, const MatrixBatch& mb, Instruction* x, Instruction* j) {
  Instruction* cols = b.Iota(mb.plain.dimensions(), mb.rank - 1);
  Instruction* in_column =
      b.Compare(cols, b.Broadcast(j, Builder::WithType(mb.plain, PrimitiveType::kS32), {}), ComparisonDirection::kEq);
  return b.Reduce(b.Select(in_column, x, b.Splat(0, mb.plain)), {mb.rank - 1}, Opcode::kAdd, 0);
}

// x - tau u (u^T x): one Householder reflector applied from the left to every column of
// x ([..., m, n]; u [..., m], tau [...]); from the right, x - tau (x u) u^T to every row.
Instruction* Reflect(Builder& b, const MatrixBatch& mb, Instruction* x, Instruction* u, Instruction* tau,
                     bool from_right = false) {
  Instruction* u_full = b.Broadcast(u, mb.plain, from_right ? mb.along_cols : mb.along_rows);
  Instruction* w = b.Reduce(b.Binary(Opcode::kMultiply, u_full, x), {from_right ? mb.rank - 1 : mb.rank - 2},
                            Opcode::kAdd, 0);
  Instruction* w_full = b.Broadcast(w, mb.plain, from_right ? mb.along_rows : mb.along_cols);
  Instruction* tau_full = b.Broadcast(tau, mb.plain, mb.batch);
  return b.Binary(Opcode::kSubtract, x,
                  b.Binary(Opcode::kMultiply, tau_full, b.Binary(Opcode::kMultiply, u_full, w_full)));
}

// Whether each value's sign bit is set (-0 and NaNs with the bit included), as Fortran's
// SIGN reads it.
Instruction* SignBitSet(Builder& b, Instruction* x) {
  const PrimitiveType bits = x->shape().element_type() == PrimitiveType::kF64 ? PrimitiveType::kS64 : PrimitiveType::kS32;
  Instruction* as_int = b.Add(Opcode::kBitcastConvert, Builder::WithType(x->shape(), bits), {x});
  return b.Compare(as_int, b.Splat(0, as_int->shape()), ComparisonDirection::kLt);
}

// Element `j` of vectors [..., len] as [...].
Instruction* Element(Builder& b, Instruction* vectors, Instruction* j) {
  const Shape& shape = vectors->shape();
  const int64_t last = shape.rank() - 1;
  Instruction* at_j = b.Compare(b.Iota(shape.dimensions(), last),
                                b.Broadcast(j, Builder::WithType(shape, PrimitiveType::kS32), {}), ComparisonDirection::kEq);
  return b.Reduce(b.Select(at_j, vectors, b.Splat(0, shape)), {last}, Opcode::kAdd, 0);
}

// LAPACK's dlarfg on a column [..., m] whose pivot is row `p` (alpha = column[p], the tail
// the rows below it): the reflector H = I - tau u u^T that takes (alpha, tail) to (beta, 0).
struct Reflector {
  Instruction* tau;       // [...]
  Instruction* u;         // [..., m]: 0 above p, 1 at p, v below
  Instruction* new_column;  // [..., m]: the rows above p as they were, beta at p, v below
};

Reflector Larfg(Builder& b, const MatrixBatch& mb, Instruction* column, Instruction* p) {
  const Shape column_shape = Builder::Plain(column->shape());
  Instruction* row_ids = b.Iota(mb.column_dims, mb.rank - 2);
  Instruction* p_column = b.Broadcast(p, Builder::WithType(column_shape, PrimitiveType::kS32), {});
  Instruction* is_p = b.Compare(row_ids, p_column, ComparisonDirection::kEq);
  Instruction* below = b.Compare(row_ids, p_column, ComparisonDirection::kGt);
  Instruction* zeros = b.Splat(0, column_shape);
  Instruction* alpha = b.Reduce(b.Select(is_p, column, zeros), {mb.rank - 2}, Opcode::kAdd, 0);  // [...]
  const Shape scalar_shape = Builder::Plain(alpha->shape());
  Instruction* tail = b.Select(below, column, zeros);
  // |(alpha, tail)| scaled by the largest magnitude, so that squares neither overflow
  // nor flush to zero.
  Instruction* tail_max = b.Reduce(b.Unary(Opcode::kAbs, tail), {mb.rank - 2}, Opcode::kMaximum, 0);
  Instruction* scale = b.Binary(Opcode::kMaximum, tail_max, b.Unary(Opcode::kAbs, alpha));
  Instruction* safe_scale = b.Select(b.Compare(scale, b.Splat(0, scalar_shape), ComparisonDirection::kEq),
                                     b.Splat(1, scalar_shape), scale);
  Instruction* scaled_tail = b.Binary(Opcode::kDivide, tail, b.Broadcast(safe_scale, column_shape, mb.batch));
  Instruction* sum_squares =
      b.Reduce(b.Binary(Opcode::kMultiply, scaled_tail, scaled_tail), {mb.rank - 2}, Opcode::kAdd, 0);
  Instruction* scaled_alpha = b.Binary(Opcode::kDivide, alpha, safe_scale);
  Instruction* norm = b.Binary(
      Opcode::kMultiply, safe_scale,
      b.Unary(Opcode::kSqrt, b.Binary(Opcode::kAdd, b.Binary(Opcode::kMultiply, scaled_alpha, scaled_alpha), sum_squares)));
  Instruction* beta = b.Select(SignBitSet(b, alpha), norm, b.Unary(Opcode::kNegate, norm));
  // A zero tail: H = I (tau 0), the column as it was.
  Instruction* zero_tail = b.Compare(tail_max, b.Splat(0, scalar_shape), ComparisonDirection::kEq);
  Instruction* tau = b.Select(zero_tail, b.Splat(0, scalar_shape),
                              b.Binary(Opcode::kDivide, b.Binary(Opcode::kSubtract, beta, alpha), beta));
  Instruction* reciprocal = b.Binary(Opcode::kDivide, b.Splat(1, scalar_shape), b.Binary(Opcode::kSubtract, alpha, beta));
  Instruction* v = b.Select(b.Broadcast(zero_tail, Builder::WithType(column_shape, PrimitiveType::kPred), mb.batch), tail,
                            b.Binary(Opcode::kMultiply, tail, b.Broadcast(reciprocal, column_shape, mb.batch)));
  Instruction* pivot_value = b.Select(zero_tail, alpha, beta);
  Instruction* u = b.Select(is_p, b.Splat(1, column_shape), v);
  Instruction* new_column =
      b.Select(is_p, b.Broadcast(pivot_value, column_shape, mb.batch), b.Select(below, v, column));
  return {tau, u, new_column};
}

}  // namespace

Instruction* EmitGeqrfCall(Module& module, Computation* computation, const Instruction& call, Instruction* a) {
  const Shape& shape = call.shape();
  auto [factored, taus] = HouseholderQr(module, computation, a);
  factored->set_shape(shape.tuple_shapes(0));
  taus->set_shape(shape.tuple_shapes(1));
  return Builder(module, computation).Add(Opcode::kTuple, shape, {factored, taus});
}

std::pair<Instruction*, Instruction*> HouseholderQr(Module& module, Computation* computation, Instruction* a) {
  const MatrixBatch mb(a->shape());
  const int64_t m = mb.plain.dimensions(mb.rank - 2), n = mb.plain.dimensions(mb.rank - 1), k = std::min(m, n);
  std::vector<int64_t> tau_dims(mb.plain.dimensions().begin(), mb.plain.dimensions().end() - 2);
  tau_dims.push_back(k);
  const PrimitiveType type = mb.plain.element_type();
  Builder outer(module, computation);
  Instruction* taus0 = outer.Splat(0, Builder::Array(type, tau_dims));
  PlainHloLoop loop(module, computation, "geqrf");
  std::vector<Instruction*> out = loop.Run(k, {a, taus0}, [&](Builder& b, Instruction* j, const std::vector<Instruction*>& s) {
    Instruction* x = s[0];
    Instruction* taus = s[1];
    Instruction* column = Column(b, mb, x, j);  // [..., m]
    const Reflector h = Larfg(b, mb, column, j);
    Instruction* tau = h.tau;
    Instruction* reflected = Reflect(b, mb, x, h.u, tau);
    // Column j: rows above as they were, beta on the diagonal, v below.
    Instruction* new_column = h.new_column;
    Instruction* cols = b.Iota(mb.plain.dimensions(), mb.rank - 1);
    Instruction* j_full = b.Broadcast(j, Builder::WithType(mb.plain, PrimitiveType::kS32), {});
    Instruction* next = b.Select(b.Compare(cols, j_full, ComparisonDirection::kGt), reflected,
                                 b.Select(b.Compare(cols, j_full, ComparisonDirection::kEq),
                                          b.Broadcast(new_column, mb.plain, mb.along_rows), x));
    const Shape tau_shape = Builder::Plain(taus->shape());
    Instruction* at_j = b.Compare(b.Iota(tau_dims, mb.rank - 2),
                                  b.Broadcast(j, Builder::WithType(tau_shape, PrimitiveType::kS32), {}),
                                  ComparisonDirection::kEq);
    Instruction* next_taus = b.Select(at_j, b.Broadcast(tau, tau_shape, mb.batch), taus);
    return std::vector<Instruction*>{next, next_taus};
  });
  return {out[0], out[1]};
}

Instruction* EmitGehrdCall(Module& module, Computation* computation, const Instruction& call, Instruction* a) {
  const Shape& shape = call.shape();
  const MatrixBatch mb(a->shape());
  const int64_t n = mb.plain.dimensions(mb.rank - 1);
  std::vector<int64_t> tau_dims(mb.plain.dimensions().begin(), mb.plain.dimensions().end() - 2);
  tau_dims.push_back(std::max<int64_t>(n - 1, 0));
  const PrimitiveType type = mb.plain.element_type();
  Builder outer(module, computation);
  Instruction* taus0 = outer.Splat(0, Builder::Array(type, tau_dims));
  PlainHloLoop loop(module, computation, "gehrd");
  std::vector<Instruction*> out =
      loop.Run(std::max<int64_t>(n - 1, 0), {a, taus0}, [&](Builder& b, Instruction* i, const std::vector<Instruction*>& s) {
        Instruction* x = s[0];
        Instruction* taus = s[1];
        Instruction* pivot = b.Binary(Opcode::kAdd, i, b.Scalar(1, PrimitiveType::kS32));
        const Reflector h = Larfg(b, mb, Column(b, mb, x, i), pivot);
        Instruction* both = Reflect(b, mb, Reflect(b, mb, x, h.u, h.tau, /*from_right=*/true), h.u, h.tau);
        Instruction* cols = b.Iota(mb.plain.dimensions(), mb.rank - 1);
        Instruction* i_full = b.Broadcast(i, Builder::WithType(mb.plain, PrimitiveType::kS32), {});
        Instruction* next = b.Select(b.Compare(cols, i_full, ComparisonDirection::kGt), both,
                                     b.Select(b.Compare(cols, i_full, ComparisonDirection::kEq),
                                              b.Broadcast(h.new_column, mb.plain, mb.along_rows), x));
        const Shape tau_shape = Builder::Plain(taus->shape());
        Instruction* at_i = b.Compare(b.Iota(tau_dims, mb.rank - 2),
                                      b.Broadcast(i, Builder::WithType(tau_shape, PrimitiveType::kS32), {}),
                                      ComparisonDirection::kEq);
        return std::vector<Instruction*>{next, b.Select(at_i, b.Broadcast(h.tau, tau_shape, mb.batch), taus)};
      });
  out[0]->set_shape(shape.tuple_shapes(0));
  out[1]->set_shape(shape.tuple_shapes(1));
  Instruction* info = outer.Splat(0, shape.tuple_shapes(2));
  info->set_shape(shape.tuple_shapes(2));
  return outer.Add(Opcode::kTuple, shape, {out[0], out[1], info});
}

Instruction* EmitGeqp3Call(Module& module, Computation* computation, const Instruction& call, Instruction* a) {
  const Shape& shape = call.shape();
  const MatrixBatch mb(a->shape());
  const int64_t m = mb.plain.dimensions(mb.rank - 2), n = mb.plain.dimensions(mb.rank - 1), k = std::min(m, n);
  const PrimitiveType type = mb.plain.element_type();
  std::vector<int64_t> batch_dims(mb.plain.dimensions().begin(), mb.plain.dimensions().end() - 2);
  std::vector<int64_t> row_dims = batch_dims, tau_dims = batch_dims;  // [..., n], [..., k]
  row_dims.push_back(n);
  tau_dims.push_back(k);
  const Shape norms_shape = Builder::Array(type, row_dims);
  const Shape s32_row = Builder::Array(PrimitiveType::kS32, row_dims);
  const double tol3z = std::sqrt(type == PrimitiveType::kF64 ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24));
  // The 2-norms of the columns of x over the rows from `from` down, [..., n] (scaled by
  // the largest magnitude, as dnrm2 avoids overflow).
  auto norms = [&](Builder& b, Instruction* x, Instruction* from) {
    Instruction* rows = b.Iota(mb.plain.dimensions(), mb.rank - 2);
    Instruction* kept = b.Select(b.Compare(rows, b.Broadcast(from, Builder::WithType(mb.plain, PrimitiveType::kS32), {}),
                                           ComparisonDirection::kGe),
                                 x, b.Splat(0, mb.plain));
    Instruction* largest = b.Reduce(b.Unary(Opcode::kAbs, kept), {mb.rank - 2}, Opcode::kMaximum, 0);
    Instruction* safe = b.Select(b.Compare(largest, b.Splat(0, norms_shape), ComparisonDirection::kEq),
                                 b.Splat(1, norms_shape), largest);
    Instruction* scaled = b.Binary(Opcode::kDivide, kept, b.Broadcast(safe, mb.plain, mb.along_cols));
    Instruction* squares = b.Reduce(b.Binary(Opcode::kMultiply, scaled, scaled), {mb.rank - 2}, Opcode::kAdd, 0);
    return b.Binary(Opcode::kMultiply, safe, b.Unary(Opcode::kSqrt, squares));
  };
  Builder outer(module, computation);
  Instruction* first_norms = norms(outer, a, outer.Scalar(0, PrimitiveType::kS32));
  Instruction* jpvt0 = outer.Binary(Opcode::kAdd, outer.Iota(row_dims, mb.rank - 2), outer.Splat(1, s32_row));
  Instruction* taus0 = outer.Splat(0, Builder::Array(type, tau_dims));
  PlainHloLoop loop(module, computation, "geqp3");
  std::vector<Instruction*> out = loop.Run(
      k, {a, jpvt0, taus0, first_norms, first_norms}, [&](Builder& b, Instruction* i, const std::vector<Instruction*>& s) {
        Instruction *x = s[0], *jpvt = s[1], *taus = s[2], *vn1 = s[3], *vn2 = s[4];
        Instruction* positions = b.Iota(row_dims, mb.rank - 2);  // column numbers, [..., n]
        Instruction* i_row = b.Broadcast(i, s32_row, {});
        // The pivot: the first column from i on with the largest vn1 ([...]).
        Instruction* candidates = b.Select(b.Compare(positions, i_row, ComparisonDirection::kGe), vn1,
                                           b.Splat(-1, norms_shape));
        Instruction* best = b.Reduce(candidates, {mb.rank - 2}, Opcode::kMaximum, -Builder::Infinity());
        Instruction* is_best = b.Compare(candidates, b.Broadcast(best, norms_shape, mb.batch), ComparisonDirection::kEq);
        Instruction* pivot = b.Reduce(b.Select(is_best, positions, b.Splat(static_cast<double>(n), s32_row)),
                                      {mb.rank - 2}, Opcode::kMinimum, static_cast<double>(n));
        Instruction* pivot_row = b.Broadcast(pivot, s32_row, mb.batch);
        Instruction* at_i = b.Compare(positions, i_row, ComparisonDirection::kEq);
        Instruction* at_pivot = b.Compare(positions, pivot_row, ComparisonDirection::kEq);
        // Entry i and the pivot's swapped in a [..., n] vector.
        auto swap_entries = [&](Instruction* v) {
          const Shape plain = Builder::Plain(v->shape());
          auto entry = [&](Instruction* where) {
            return b.Broadcast(b.Reduce(b.Select(where, v, b.Splat(0, plain)), {mb.rank - 2}, Opcode::kAdd, 0), plain,
                               mb.batch);
          };
          return b.Select(at_i, entry(at_pivot), b.Select(at_pivot, entry(at_i), v));
        };
        // Columns i and the pivot's swapped in x.
        Instruction* cols = b.Iota(mb.plain.dimensions(), mb.rank - 1);
        Instruction* col_i = b.Compare(cols, b.Broadcast(i, Builder::WithType(mb.plain, PrimitiveType::kS32), {}),
                                       ComparisonDirection::kEq);
        Instruction* col_p = b.Compare(cols, b.Broadcast(pivot, Builder::WithType(mb.plain, PrimitiveType::kS32), mb.batch),
                                       ComparisonDirection::kEq);
        auto column_where = [&](Instruction* where) {
          return b.Broadcast(b.Reduce(b.Select(where, x, b.Splat(0, mb.plain)), {mb.rank - 1}, Opcode::kAdd, 0), mb.plain,
                             mb.along_rows);
        };
        Instruction* swapped = b.Select(col_i, column_where(col_p), b.Select(col_p, column_where(col_i), x));
        Instruction* next_jpvt = swap_entries(jpvt);
        // LAPACK copies vn1(i), vn2(i) into the pivot's place; entry i is not read again.
        Instruction* next_vn1 = swap_entries(vn1);
        Instruction* next_vn2 = swap_entries(vn2);
        // The reflector of column i, applied to the columns right of it.
        const Reflector h = Larfg(b, mb, Column(b, mb, swapped, i), i);
        Instruction* reflected = Reflect(b, mb, swapped, h.u, h.tau);
        Instruction* right = b.Compare(cols, b.Broadcast(i, Builder::WithType(mb.plain, PrimitiveType::kS32), {}),
                                       ComparisonDirection::kGt);
        Instruction* next = b.Select(right, reflected, b.Select(col_i, b.Broadcast(h.new_column, mb.plain, mb.along_rows),
                                                                swapped));
        // Downdate the partial norms of the columns right of i by row i of the result.
        Instruction* rows = b.Iota(mb.plain.dimensions(), mb.rank - 2);
        Instruction* row_i = b.Compare(rows, b.Broadcast(i, Builder::WithType(mb.plain, PrimitiveType::kS32), {}),
                                       ComparisonDirection::kEq);
        Instruction* top = b.Reduce(b.Select(row_i, next, b.Splat(0, mb.plain)), {mb.rank - 2}, Opcode::kAdd, 0);  // [..., n]
        Instruction* ratio = b.Binary(Opcode::kDivide, b.Unary(Opcode::kAbs, top), next_vn1);
        Instruction* temp = b.Binary(Opcode::kMaximum, b.Splat(0, norms_shape),
                                     b.Binary(Opcode::kSubtract, b.Splat(1, norms_shape), b.Binary(Opcode::kMultiply, ratio, ratio)));
        Instruction* vn_ratio = b.Binary(Opcode::kDivide, next_vn1, next_vn2);
        Instruction* temp2 = b.Binary(Opcode::kMultiply, temp, b.Binary(Opcode::kMultiply, vn_ratio, vn_ratio));
        Instruction* recompute = b.Compare(temp2, b.Splat(tol3z, norms_shape), ComparisonDirection::kLe);
        Instruction* fresh = norms(b, next, b.Binary(Opcode::kAdd, i, b.Scalar(1, PrimitiveType::kS32)));  // zero past the last row
        Instruction* downdated = b.Binary(Opcode::kMultiply, next_vn1, b.Unary(Opcode::kSqrt, temp));
        Instruction* live = b.Binary(Opcode::kAnd, b.Compare(positions, i_row, ComparisonDirection::kGt),
                                     b.Compare(next_vn1, b.Splat(0, norms_shape), ComparisonDirection::kNe));
        Instruction* vn1_out = b.Select(live, b.Select(recompute, fresh, downdated), next_vn1);
        Instruction* vn2_out = b.Select(b.Binary(Opcode::kAnd, live, recompute), fresh, next_vn2);
        const Shape tau_shape = Builder::Plain(taus->shape());
        Instruction* tau_at_i = b.Compare(b.Iota(tau_dims, mb.rank - 2),
                                          b.Broadcast(i, Builder::WithType(tau_shape, PrimitiveType::kS32), {}),
                                          ComparisonDirection::kEq);
        Instruction* next_taus = b.Select(tau_at_i, b.Broadcast(h.tau, tau_shape, mb.batch), taus);
        return std::vector<Instruction*>{next, next_jpvt, next_taus, vn1_out, vn2_out};
      });
  for (int t = 0; t < 3; ++t) out[static_cast<size_t>(t)]->set_shape(shape.tuple_shapes(t));
  return outer.Add(Opcode::kTuple, shape, {out[0], out[1], out[2]});
}

Instruction* EmitOrgqrCall(Module& module, Computation* computation, const Instruction& call, Instruction* a,
                           Instruction* taus) {
  Instruction* q = HouseholderProduct(module, computation, a, taus);
  q->set_shape(call.shape());
  return q;
}

Instruction* HouseholderProduct(Module& module, Computation* computation, Instruction* a, Instruction* taus) {
  const MatrixBatch mb(a->shape());
  const int64_t k = taus->shape().dimensions(taus->shape().rank() - 1);
  Builder outer(module, computation);
  Instruction* identity = outer.Select(outer.Compare(outer.Iota(mb.plain.dimensions(), mb.rank - 2),
                                                     outer.Iota(mb.plain.dimensions(), mb.rank - 1),
                                                     ComparisonDirection::kEq),
                                       outer.Splat(1, mb.plain), outer.Splat(0, mb.plain));
  PlainHloLoop loop(module, computation, "orgqr");
  std::vector<Instruction*> out =
      loop.Run(k, {identity, a, taus}, [&](Builder& b, Instruction* step, const std::vector<Instruction*>& s) {
        Instruction* q = s[0];
        Instruction* i = b.Binary(Opcode::kSubtract, b.Scalar(static_cast<double>(k - 1), PrimitiveType::kS32), step);
        Instruction* column = Column(b, mb, s[1], i);
        const Shape column_shape = Builder::Plain(column->shape());
        Instruction* row_ids = b.Iota(mb.column_dims, mb.rank - 2);
        Instruction* i_column = b.Broadcast(i, Builder::WithType(column_shape, PrimitiveType::kS32), {});
        Instruction* u = b.Select(b.Compare(row_ids, i_column, ComparisonDirection::kEq), b.Splat(1, column_shape),
                                  b.Select(b.Compare(row_ids, i_column, ComparisonDirection::kGt), column,
                                           b.Splat(0, column_shape)));
        return std::vector<Instruction*>{Reflect(b, mb, q, u, Element(b, s[2], i)), s[1], s[2]};
      });
  return out[0];
}

}  // namespace fusebox::library_call_internal
