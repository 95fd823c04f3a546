#include "compiler/ir/symmetric_eigen.h"

#include <cmath>
#include <numeric>
#include <vector>

#include "compiler/ir/plain_hlo_builder.h"

namespace fusebox::library_call_internal {
namespace {

using Builder = PlainHloBuilder;

constexpr int64_t kMaxSweeps = 40;

Instruction* SliceDim(Builder& b, Instruction* x, int64_t dim, int64_t start, int64_t limit) {
  std::vector<SliceDimension> slice;
  for (int64_t d = 0; d < x->shape().rank(); ++d) slice.push_back({0, x->shape().dimensions(d), 1});
  slice[dim] = {start, limit, 1};
  return b.Slice(x, slice);
}

// The round-robin move of Brent and Luk: the seats along `dim` hold the pairs (i, k + i);
// [t0 .. t(k-1), b0 .. b(k-1)] becomes [t0, b0, t1 .. t(k-2), b1 .. b(k-1), t(k-1)]: t0 stays,
// everyone else moves one seat around the table.
Instruction* NextSeats(Builder& b, Instruction* x, int64_t dim, int64_t k) {
  if (k < 2) return x;
  std::vector<Instruction*> parts = {SliceDim(b, x, dim, 0, 1), SliceDim(b, x, dim, k, k + 1)};
  if (k > 2) parts.push_back(SliceDim(b, x, dim, 1, k - 1));
  parts.push_back(SliceDim(b, x, dim, k + 1, 2 * k));
  parts.push_back(SliceDim(b, x, dim, k - 1, k));
  return b.Concatenate(parts, dim);
}

// Rotates the pairs (i, k + i) along `dim` of x by (c, s) ([..., k]): first' = c first -
// s second, second' = s first + c second.
Instruction* Rotate(Builder& b, Instruction* x, int64_t dim, int64_t k, Instruction* c, Instruction* s) {
  Instruction* first = SliceDim(b, x, dim, 0, k);
  Instruction* second = SliceDim(b, x, dim, k, 2 * k);
  std::vector<int64_t> spread(static_cast<size_t>(x->shape().rank() - 2));
  std::iota(spread.begin(), spread.end(), 0);
  spread.push_back(dim);
  Instruction* c_full = b.Broadcast(c, first->shape(), spread);
  Instruction* s_full = b.Broadcast(s, first->shape(), spread);
  auto mul = [&](Instruction* p, Instruction* q) { return b.Binary(Opcode::kMultiply, p, q); };
  Instruction* new_first = b.Binary(Opcode::kSubtract, mul(c_full, first), mul(s_full, second));
  Instruction* new_second = b.Binary(Opcode::kAdd, mul(s_full, first), mul(c_full, second));
  return b.Concatenate({new_first, new_second}, dim);
}

// The diagonal of square matrices [..., n, n] as [..., n].
Instruction* Diagonal(Builder& b, Instruction* x) {
  const int64_t rank = x->shape().rank();
  const std::vector<int64_t>& dims = x->shape().dimensions();
  Instruction* on = b.Compare(b.Iota(dims, rank - 2), b.Iota(dims, rank - 1), ComparisonDirection::kEq);
  return b.Reduce(b.Select(on, x, b.Splat(0, Builder::Plain(x->shape()))), {rank - 1}, Opcode::kAdd, 0);
}

}  // namespace

Instruction* EmitSyevdCall(Module& module, Computation* computation, const Instruction& call, Instruction* a,
                           bool lower) {
  const Shape& shape = call.shape();
  // Computed in f64 whatever the call's type (symmetric_eigen.h).
  const PrimitiveType type = PrimitiveType::kF64;
  const double epsilon = std::ldexp(1.0, -53);
  Builder b(module, computation);
  a = b.Convert(a, type);
  const Shape plain = Builder::Plain(a->shape());
  const int64_t rank = plain.rank();
  const int64_t n = plain.dimensions(rank - 1);
  const int64_t padded = n + (n % 2);
  const int64_t k = padded / 2;
  std::vector<int64_t> batch(static_cast<size_t>(rank - 2));
  std::iota(batch.begin(), batch.end(), 0);

  // The symmetric matrix of the triangle read, scaled so that its largest magnitude is 1.
  Instruction* rows = b.Iota(plain.dimensions(), rank - 2);
  Instruction* cols = b.Iota(plain.dimensions(), rank - 1);
  std::vector<int64_t> swap(batch);
  swap.push_back(rank - 1);
  swap.push_back(rank - 2);
  Instruction* symmetric = b.Select(b.Compare(rows, cols, lower ? ComparisonDirection::kGe : ComparisonDirection::kLe),
                                    a, b.Transpose(a, swap));
  std::vector<int64_t> matrix_dims = {rank - 2, rank - 1};
  Instruction* largest = b.Reduce(b.Unary(Opcode::kAbs, symmetric), matrix_dims, Opcode::kMaximum, 0);  // [...]
  const Shape scalars = Builder::Plain(largest->shape());
  Instruction* scale = b.Select(b.Compare(largest, b.Splat(0, scalars), ComparisonDirection::kEq), b.Splat(1, scalars),
                                largest);
  Instruction* scaled = b.Binary(Opcode::kDivide, symmetric, b.Broadcast(scale, plain, batch));
  Shape square = plain;
  square.set_dimension(rank - 2, padded);
  square.set_dimension(rank - 1, padded);
  if (padded != n) {  // an odd order: a zero row and column, an eigenvalue of its own
    std::vector<PaddingDimension> padding(static_cast<size_t>(rank));
    padding[rank - 2].high = 1;
    padding[rank - 1].high = 1;
    scaled = b.Add(Opcode::kPad, square, {scaled, b.Scalar(0, type)});
    scaled->mutable_attrs().padding = padding;
  }
  Instruction* identity = b.Select(b.Compare(b.Iota(square.dimensions(), rank - 2), b.Iota(square.dimensions(), rank - 1),
                                             ComparisonDirection::kEq),
                                   b.Splat(1, square), b.Splat(0, square));

  PlainHloLoop loop(module, computation, "jacobi_eigen");
  auto keep_going = [&](Builder& c, const std::vector<Instruction*>& s) {
    // Some matrix with off-diagonal norm^2 above eps^2 |A|_F^2.
    Instruction* x = s[0];
    Instruction* squares = c.Binary(Opcode::kMultiply, x, x);
    Instruction* total = c.Reduce(squares, matrix_dims, Opcode::kAdd, 0);
    Instruction* on = c.Compare(c.Iota(square.dimensions(), rank - 2), c.Iota(square.dimensions(), rank - 1),
                                ComparisonDirection::kEq);
    Instruction* off = c.Reduce(c.Select(on, c.Splat(0, square), squares), matrix_dims, Opcode::kAdd, 0);
    const double tolerance = epsilon;
    Instruction* excess = c.Binary(Opcode::kSubtract, off, c.Scale(total, tolerance * tolerance));
    Instruction* worst = batch.empty() ? excess : c.Reduce(excess, batch, Opcode::kMaximum, -Builder::Infinity());
    return c.Compare(worst, c.Scalar(0, type), ComparisonDirection::kGt);
  };
  std::vector<Instruction*> out = loop.RunWhile(
      kMaxSweeps * (padded - 1), {scaled, identity}, keep_going,
      [&](Builder& c, Instruction*, const std::vector<Instruction*>& s) {
        Instruction* x = s[0];
        Instruction* v = s[1];
        // Each pair's (a_pp, a_qq, a_pq), [..., k].
        Instruction* diagonal = Diagonal(c, x);
        Instruction* app = SliceDim(c, diagonal, rank - 2, 0, k);
        Instruction* aqq = SliceDim(c, diagonal, rank - 2, k, padded);
        Instruction* apq = Diagonal(c, SliceDim(c, SliceDim(c, x, rank - 2, 0, k), rank - 1, k, padded));
        const Shape pairs = Builder::Plain(apq->shape());
        // The symmetric 2x2 Schur decomposition (Golub and Van Loan): tau = (a_qq -
        // a_pp) / 2 a_pq, t = sign(tau) / (|tau| + sqrt(1 + tau^2)), c = 1 / sqrt(1 + t^2),
        // s = t c; none where a_pq is 0.
        Instruction* tau = c.Binary(Opcode::kDivide, c.Binary(Opcode::kSubtract, aqq, app), c.Scale(apq, 2));
        Instruction* one = c.Splat(1, pairs);
        Instruction* sign = c.Select(c.Compare(tau, c.Splat(0, pairs), ComparisonDirection::kGe), one, c.Splat(-1, pairs));
        Instruction* root = c.Unary(Opcode::kSqrt, c.Binary(Opcode::kAdd, one, c.Binary(Opcode::kMultiply, tau, tau)));
        Instruction* t = c.Binary(Opcode::kDivide, sign, c.Binary(Opcode::kAdd, c.Unary(Opcode::kAbs, tau), root));
        Instruction* cosine =
            c.Binary(Opcode::kDivide, one, c.Unary(Opcode::kSqrt, c.Binary(Opcode::kAdd, one, c.Binary(Opcode::kMultiply, t, t))));
        Instruction* sine = c.Binary(Opcode::kMultiply, t, cosine);
        Instruction* none = c.Compare(apq, c.Splat(0, pairs), ComparisonDirection::kEq);
        cosine = c.Select(none, one, cosine);
        sine = c.Select(none, c.Splat(0, pairs), sine);
        // A <- J^T A J, V <- V J; then everyone moves a seat.
        Instruction* rotated = Rotate(c, Rotate(c, x, rank - 2, k, cosine, sine), rank - 1, k, cosine, sine);
        // The entries each rotation zeroes are zero, not their rounding error.
        Instruction* r = c.Iota(square.dimensions(), rank - 2);
        Instruction* q = c.Iota(square.dimensions(), rank - 1);
        Instruction* distance = c.Binary(Opcode::kSubtract, q, r);
        Instruction* k_apart = c.Binary(
            Opcode::kOr,
            c.Binary(Opcode::kAnd, c.Compare(r, c.Splat(static_cast<double>(k), r->shape()), ComparisonDirection::kLt),
                     c.Compare(distance, c.Splat(static_cast<double>(k), r->shape()), ComparisonDirection::kEq)),
            c.Binary(Opcode::kAnd, c.Compare(r, c.Splat(static_cast<double>(k), r->shape()), ComparisonDirection::kGe),
                     c.Compare(distance, c.Splat(static_cast<double>(-k), r->shape()), ComparisonDirection::kEq)));
        rotated = c.Select(k_apart, c.Splat(0, square), rotated);
        Instruction* vectors = Rotate(c, v, rank - 1, k, cosine, sine);
        rotated = NextSeats(c, NextSeats(c, rotated, rank - 2, k), rank - 1, k);
        vectors = NextSeats(c, vectors, rank - 1, k);
        return std::vector<Instruction*>{rotated, vectors};
      });

  // The eigenvalues (the diagonal) ascending, their vectors' columns with them; the padded
  // row's own eigenvalue (its vector is exactly e_n) sorted last and dropped.
  Instruction* values = Diagonal(b, out[0]);  // [..., padded]
  const Shape value_shape = Builder::Plain(values->shape());
  Instruction* keys = values;
  if (padded != n) {
    Instruction* last_row = b.Reshape(SliceDim(b, out[1], rank - 2, n, padded), value_shape.dimensions());
    keys = b.Select(b.Compare(last_row, b.Splat(1, value_shape), ComparisonDirection::kEq),
                    b.Splat(Builder::Infinity(), value_shape), values);
  }
  Instruction* sorted_values = b.Add(Opcode::kSort, value_shape, {keys});
  sorted_values->mutable_attrs().dimensions = std::vector<int64_t>{rank - 2};
  sorted_values->mutable_attrs().is_stable = true;
  sorted_values->AppendCalledComputation(Builder::TotalOrderComparator(module, {type}, false, "eigenvalue_less"));
  sorted_values->set_call_form(CallForm::kToApply);
  std::vector<int64_t> along_cols(batch);
  along_cols.push_back(rank - 1);
  Instruction* column_keys = b.Broadcast(keys, square, along_cols);
  Instruction* sorted = b.Add(Opcode::kSort, Shape::Tuple({square, square}), {column_keys, out[1]});
  sorted->mutable_attrs().dimensions = std::vector<int64_t>{rank - 1};
  sorted->mutable_attrs().is_stable = true;
  sorted->AppendCalledComputation(Builder::TotalOrderComparator(module, {type, type}, false, "eigenvector_less"));
  sorted->set_call_form(CallForm::kToApply);
  Instruction* sorted_vectors = b.Add(Opcode::kGetTupleElement, square, {sorted});
  sorted_vectors->mutable_attrs().tuple_index = 1;
  Instruction* vectors = SliceDim(b, SliceDim(b, sorted_vectors, rank - 2, 0, n), rank - 1, 0, n);
  Instruction* eigenvalues = b.Binary(Opcode::kMultiply, SliceDim(b, sorted_values, rank - 2, 0, n),
                                      b.Broadcast(scale, Builder::WithType(shape.tuple_shapes(1), type), batch));
  // info: 1 where an eigenvalue is NaN (LAPACK's iteration would not have converged).
  Instruction* nan = b.Convert(b.Compare(eigenvalues, eigenvalues, ComparisonDirection::kNe), PrimitiveType::kS32);
  Instruction* info = b.Reduce(nan, {rank - 2}, Opcode::kMaximum, 0);
  vectors = b.Convert(vectors, shape.tuple_shapes(0).element_type());
  eigenvalues = b.Convert(eigenvalues, shape.tuple_shapes(1).element_type());
  vectors->set_shape(shape.tuple_shapes(0));
  eigenvalues->set_shape(shape.tuple_shapes(1));
  info->set_shape(shape.tuple_shapes(2));
  return b.Add(Opcode::kTuple, shape, {vectors, eigenvalues, info});
}

}  // namespace fusebox::library_call_internal
