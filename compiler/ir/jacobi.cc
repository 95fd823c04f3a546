#include "compiler/ir/jacobi.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/householder.h"
#include "compiler/ir/plain_hlo_builder.h"

namespace fusebox::library_call_internal {
namespace {

using Builder = PlainHloBuilder;

constexpr int64_t kMaxSweeps = 40;

// The round-robin move of Brent and Luk: the seats along `dim` hold the pairs (i, k + i);
// [t0 .. t(k-1), b0 .. b(k-1)] becomes [t0, b0, t1 .. t(k-2), b1 .. b(k-1), t(k-1)]: t0 stays,
// everyone else moves one seat around the table.
Instruction* NextSeats(Builder& b, Instruction* x, int64_t dim, int64_t k) {
  if (k < 2) return x;
  std::vector<Instruction*> parts = {b.SliceAlong(x, dim, 0, 1), b.SliceAlong(x, dim, k, k + 1)};
  if (k > 2) parts.push_back(b.SliceAlong(x, dim, 1, k - 1));
  parts.push_back(b.SliceAlong(x, dim, k + 1, 2 * k));
  parts.push_back(b.SliceAlong(x, dim, k - 1, k));
  return b.Concatenate(parts, dim);
}

// Rotates the pairs (i, k + i) along `dim` of x by (c, s) ([..., k]): first' = c first -
// s second, second' = s first + c second.
Instruction* Rotate(Builder& b, Instruction* x, int64_t dim, int64_t k, Instruction* c, Instruction* s) {
  Instruction* first = b.SliceAlong(x, dim, 0, k);
  Instruction* second = b.SliceAlong(x, dim, k, 2 * k);
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

// The rotation (c, s) of each pair that diagonalizes [[a_pp, a_pq], [a_pq, a_qq]]: the
// symmetric 2x2 Schur decomposition (Golub and Van Loan): tau = (a_qq - a_pp) / 2 a_pq,
// t = sign(tau) / (|tau| + sqrt(1 + tau^2)), c = 1 / sqrt(1 + t^2), s = t c; none (c = 1,
// s = 0) where a_pq is 0.
std::pair<Instruction*, Instruction*> SchurRotation(Builder& c, Instruction* app, Instruction* aqq, Instruction* apq) {
  const Shape pairs = Builder::Plain(apq->shape());
  Instruction* tau = c.Binary(Opcode::kDivide, c.Binary(Opcode::kSubtract, aqq, app), c.Scale(apq, 2));
  Instruction* one = c.Splat(1, pairs);
  Instruction* sign = c.Select(c.Compare(tau, c.Splat(0, pairs), ComparisonDirection::kGe), one, c.Splat(-1, pairs));
  Instruction* root = c.Unary(Opcode::kSqrt, c.Binary(Opcode::kAdd, one, c.Binary(Opcode::kMultiply, tau, tau)));
  Instruction* t = c.Binary(Opcode::kDivide, sign, c.Binary(Opcode::kAdd, c.Unary(Opcode::kAbs, tau), root));
  Instruction* cosine =
      c.Binary(Opcode::kDivide, one, c.Unary(Opcode::kSqrt, c.Binary(Opcode::kAdd, one, c.Binary(Opcode::kMultiply, t, t))));
  Instruction* sine = c.Binary(Opcode::kMultiply, t, cosine);
  Instruction* none = c.Compare(apq, c.Splat(0, pairs), ComparisonDirection::kEq);
  return {c.Select(none, one, cosine), c.Select(none, c.Splat(0, pairs), sine)};
}

// x [..., r, N] with its columns in the order of `keys` [..., N] (descending when asked):
// one stable sort of (keys broadcast to x's rows, x) along the last dimension.
Instruction* SortColumns(Builder& b, Module& module, Instruction* keys, Instruction* x, bool descending) {
  const Shape shape = Builder::Plain(x->shape());
  const int64_t rank = shape.rank();
  std::vector<int64_t> along(static_cast<size_t>(rank - 2));
  std::iota(along.begin(), along.end(), 0);
  along.push_back(rank - 1);
  const PrimitiveType type = keys->shape().element_type();
  Instruction* wide = b.Broadcast(keys, Builder::WithType(shape, type), along);
  Instruction* sort = b.Add(Opcode::kSort, Shape::Tuple({Builder::Plain(wide->shape()), shape}), {wide, x});
  sort->mutable_attrs().dimensions = std::vector<int64_t>{rank - 1};
  sort->mutable_attrs().is_stable = true;
  sort->AppendCalledComputation(
      Builder::TotalOrderComparator(module, {type, shape.element_type()}, descending, "column_order"));
  sort->set_call_form(CallForm::kToApply);
  Instruction* sorted = b.Add(Opcode::kGetTupleElement, shape, {sort});
  sorted->mutable_attrs().tuple_index = 1;
  return sorted;
}

// The largest magnitude of each matrix [...] of x [..., r, c] (1 where it is 0), and x
// divided by it.
std::pair<Instruction*, Instruction*> ScaleToOne(Builder& b, Instruction* x) {
  const Shape plain = Builder::Plain(x->shape());
  const int64_t rank = plain.rank();
  std::vector<int64_t> batch(static_cast<size_t>(rank - 2));
  std::iota(batch.begin(), batch.end(), 0);
  Instruction* largest = b.Reduce(b.Unary(Opcode::kAbs, x), {rank - 2, rank - 1}, Opcode::kMaximum, 0);
  const Shape scalars = Builder::Plain(largest->shape());
  Instruction* scale = b.Select(b.Compare(largest, b.Splat(0, scalars), ComparisonDirection::kEq), b.Splat(1, scalars),
                                largest);
  return {scale, b.Binary(Opcode::kDivide, x, b.Broadcast(scale, plain, batch))};
}

}  // namespace

Instruction* EmitSyevdCall(Module& module, Computation* computation, const Instruction& call, Instruction* a,
                           bool lower) {
  const Shape& shape = call.shape();
  // Computed in f64 whatever the call's type (jacobi.h).
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
  auto [scale, scaled] = ScaleToOne(b, symmetric);
  Shape square = plain;
  square.set_dimension(rank - 2, padded);
  square.set_dimension(rank - 1, padded);
  if (padded != n) {  // an odd order: a zero row and column, an eigenvalue of its own
    std::vector<PaddingDimension> padding(static_cast<size_t>(rank));
    padding[rank - 2].high = 1;
    padding[rank - 1].high = 1;
    scaled = b.Pad(scaled, padding, 0);
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
        Instruction* app = c.SliceAlong(diagonal, rank - 2, 0, k);
        Instruction* aqq = c.SliceAlong(diagonal, rank - 2, k, padded);
        Instruction* apq = Diagonal(c, c.SliceAlong(c.SliceAlong(x, rank - 2, 0, k), rank - 1, k, padded));
        auto [cosine, sine] = SchurRotation(c, app, aqq, apq);
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
    Instruction* last_row = b.Reshape(b.SliceAlong(out[1], rank - 2, n, padded), value_shape.dimensions());
    keys = b.Select(b.Compare(last_row, b.Splat(1, value_shape), ComparisonDirection::kEq),
                    b.Splat(Builder::Infinity(), value_shape), values);
  }
  Instruction* sorted_values = b.Add(Opcode::kSort, value_shape, {keys});
  sorted_values->mutable_attrs().dimensions = std::vector<int64_t>{rank - 2};
  sorted_values->mutable_attrs().is_stable = true;
  sorted_values->AppendCalledComputation(Builder::TotalOrderComparator(module, {type}, false, "eigenvalue_less"));
  sorted_values->set_call_form(CallForm::kToApply);
  Instruction* sorted_vectors = SortColumns(b, module, keys, out[1], /*descending=*/false);
  Instruction* vectors = b.SliceAlong(b.SliceAlong(sorted_vectors, rank - 2, 0, n), rank - 1, 0, n);
  Instruction* eigenvalues = b.Binary(Opcode::kMultiply, b.SliceAlong(sorted_values, rank - 2, 0, n),
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

namespace {

// A tall problem's SVD (p >= q): singular values [..., q] descending, U [..., p, ucols]
// (none for ucols 0), V [..., q, q].
struct TallSvd {
  Instruction* values;
  Instruction* u;
  Instruction* v;
};

TallSvd OneSidedJacobi(Module& module, Computation* computation, Instruction* a, int64_t ucols) {
  Builder b(module, computation);
  const Shape plain = Builder::Plain(a->shape());
  const int64_t rank = plain.rank();
  const int64_t p = plain.dimensions(rank - 2), q = plain.dimensions(rank - 1);
  const int64_t padded = q + (q % 2);
  const int64_t k = padded / 2;
  const PrimitiveType type = plain.element_type();
  std::vector<int64_t> batch(static_cast<size_t>(rank - 2));
  std::iota(batch.begin(), batch.end(), 0);
  // Orthogonal to within p units of f64's roundoff, relative to the two columns' norms.
  const double tolerance = static_cast<double>(std::max<int64_t>(p, 1)) * std::ldexp(1.0, -53);
  Instruction* x = a;
  if (padded != q) {  // an odd column count: a zero column of its own
    std::vector<PaddingDimension> padding(static_cast<size_t>(rank));
    padding[rank - 1].high = 1;
    x = b.Pad(x, padding, 0);
  }
  std::vector<int64_t> square_dims(plain.dimensions().begin(), plain.dimensions().end() - 2);
  square_dims.push_back(padded);
  square_dims.push_back(padded);
  const Shape square = Builder::Array(type, square_dims);
  Instruction* identity = b.Select(b.Compare(b.Iota(square_dims, rank - 2), b.Iota(square_dims, rank - 1),
                                             ComparisonDirection::kEq),
                                   b.Splat(1, square), b.Splat(0, square));
  const Shape scalar = Shape::Scalar(type);
  PlainHloLoop loop(module, computation, "jacobi_svd");
  // State: the columns, V, the largest residual of the sweep so far, and of the last
  // whole sweep (infinite before the first ends).
  auto keep_going = [&](Builder& c, const std::vector<Instruction*>& s) {
    return c.Compare(s[3], c.Scalar(tolerance, type), ComparisonDirection::kGt);
  };
  std::vector<Instruction*> out = loop.RunWhile(
      kMaxSweeps * (padded - 1), {x, identity, b.Splat(0, scalar), b.Splat(Builder::Infinity(), scalar)}, keep_going,
      [&](Builder& c, Instruction* step, const std::vector<Instruction*>& s) {
        Instruction* columns = s[0];
        Instruction* first = c.SliceAlong(columns, rank - 1, 0, k);
        Instruction* second = c.SliceAlong(columns, rank - 1, k, padded);
        auto sum_rows = [&](Instruction* u, Instruction* w) {
          return c.Reduce(c.Binary(Opcode::kMultiply, u, w), {rank - 2}, Opcode::kAdd, 0);
        };
        Instruction* alpha = sum_rows(first, first);  // [..., k]
        Instruction* beta = sum_rows(second, second);
        Instruction* gamma = sum_rows(first, second);
        auto [cosine, sine] = SchurRotation(c, alpha, beta, gamma);
        // |gamma| / (|a_p| |a_q|): how far from orthogonal each pair was.
        const Shape pairs = Builder::Plain(gamma->shape());
        Instruction* norms = c.Binary(Opcode::kMultiply, c.Unary(Opcode::kSqrt, alpha), c.Unary(Opcode::kSqrt, beta));
        Instruction* residual =
            c.Select(c.Compare(norms, c.Splat(0, pairs), ComparisonDirection::kGt),
                     c.Binary(Opcode::kDivide, c.Unary(Opcode::kAbs, gamma), norms), c.Splat(0, pairs));
        std::vector<int64_t> all(static_cast<size_t>(pairs.rank()));
        std::iota(all.begin(), all.end(), 0);
        Instruction* worst = c.Binary(Opcode::kMaximum, s[2], c.Reduce(residual, all, Opcode::kMaximum, 0));
        Instruction* next_step = c.Binary(Opcode::kAdd, step, c.Scalar(1, PrimitiveType::kS32));
        Instruction* sweep_ends =
            c.Compare(c.Binary(Opcode::kRemainder, next_step, c.Scalar(static_cast<double>(padded - 1), PrimitiveType::kS32)),
                      c.Scalar(0, PrimitiveType::kS32), ComparisonDirection::kEq);
        Instruction* rotated = NextSeats(c, Rotate(c, columns, rank - 1, k, cosine, sine), rank - 1, k);
        Instruction* v = NextSeats(c, Rotate(c, s[1], rank - 1, k, cosine, sine), rank - 1, k);
        return std::vector<Instruction*>{rotated, v, c.Select(sweep_ends, c.Scalar(0, type), worst),
                                         c.Select(sweep_ends, worst, s[3])};
      });

  // The columns' norms descending, the padded column (its V column is exactly e_q) last.
  Instruction* norms = b.Unary(
      Opcode::kSqrt, b.Reduce(b.Binary(Opcode::kMultiply, out[0], out[0]), {rank - 2}, Opcode::kAdd, 0));  // [..., padded]
  const Shape norm_shape = Builder::Plain(norms->shape());
  Instruction* keys = norms;
  if (padded != q) {
    Instruction* last_row = b.Reshape(b.SliceAlong(out[1], rank - 2, q, padded), norm_shape.dimensions());
    keys = b.Select(b.Compare(last_row, b.Splat(1, norm_shape), ComparisonDirection::kEq), b.Splat(-1, norm_shape),
                    norms);
  }
  Instruction* sorted_keys = b.Add(Opcode::kSort, norm_shape, {keys});
  sorted_keys->mutable_attrs().dimensions = std::vector<int64_t>{rank - 2};
  sorted_keys->mutable_attrs().is_stable = true;
  sorted_keys->AppendCalledComputation(Builder::TotalOrderComparator(module, {type}, true, "singular_value_greater"));
  sorted_keys->set_call_form(CallForm::kToApply);
  TallSvd result;
  result.values = b.SliceAlong(sorted_keys, rank - 2, 0, q);
  result.v = b.SliceAlong(b.SliceAlong(SortColumns(b, module, keys, out[1], true), rank - 2, 0, q), rank - 1, 0, q);
  result.u = nullptr;
  if (ucols == 0) return result;
  // U: the columns over their norms (zero columns stay zero), completed to an orthonormal
  // basis by their Householder QR: Q's first columns are those columns up to R's signs,
  // the ones after them (zero singular values, the 'A' mode's extra ones) complete it.
  Instruction* columns = b.SliceAlong(SortColumns(b, module, keys, out[0], true), rank - 1, 0, q);
  Instruction* wide = b.Broadcast(result.values, plain, [&] {
    std::vector<int64_t> along(batch);
    along.push_back(rank - 1);
    return along;
  }());
  Instruction* unit = b.Select(b.Compare(wide, b.Splat(0, plain), ComparisonDirection::kGt),
                               b.Binary(Opcode::kDivide, columns, wide), b.Splat(0, plain));
  auto [r, taus] = HouseholderQr(module, computation, unit);
  Instruction* reflectors = r;
  Shape u_shape = plain;
  u_shape.set_dimension(rank - 1, ucols);
  if (ucols > q) {
    std::vector<PaddingDimension> padding(static_cast<size_t>(rank));
    padding[rank - 1].high = ucols - q;
    reflectors = b.Pad(r, padding, 0);
  }
  Instruction* basis = HouseholderProduct(module, computation, reflectors, taus);
  // R's diagonal is +-1 where a column was a unit vector, about 0 where it was zero.
  Instruction* diagonal = Diagonal(b, b.SliceAlong(r, rank - 2, 0, q));  // [..., q]
  const Shape d_shape = Builder::Plain(diagonal->shape());
  Instruction* signs = b.Select(
      b.Compare(diagonal, b.Splat(-0.5, d_shape), ComparisonDirection::kLt), b.Splat(-1, d_shape), b.Splat(1, d_shape));
  if (ucols > q) {
    std::vector<PaddingDimension> padding(static_cast<size_t>(rank - 1));
    padding[rank - 2].high = ucols - q;
    signs = b.Pad(signs, padding, 1);
  }
  std::vector<int64_t> along(batch);
  along.push_back(rank - 1);
  result.u = b.Binary(Opcode::kMultiply, basis, b.Broadcast(signs, u_shape, along));
  return result;
}

}  // namespace

Instruction* EmitGesddCall(Module& module, Computation* computation, const Instruction& call, Instruction* a,
                           char mode, bool returns_v) {
  return EmitGesddCall(module, computation, call.shape(), a, mode, returns_v);
}

Instruction* EmitGesddCall(Module& module, Computation* computation, const Shape& shape, Instruction* a, char mode,
                           bool returns_v) {
  Builder b(module, computation);
  const PrimitiveType type = PrimitiveType::kF64;
  const Shape plain = Builder::Plain(a->shape());
  const int64_t rank = plain.rank();
  const int64_t m = plain.dimensions(rank - 2), n = plain.dimensions(rank - 1);
  const bool tall = m >= n;
  std::vector<int64_t> batch(static_cast<size_t>(rank - 2));
  std::iota(batch.begin(), batch.end(), 0);
  std::vector<int64_t> swap(batch);
  swap.push_back(rank - 1);
  swap.push_back(rank - 2);
  auto [scale, scaled] = ScaleToOne(b, b.Convert(a, type));
  Instruction* x = tall ? scaled : b.Transpose(scaled, swap);
  const int64_t p = tall ? m : n, q = tall ? n : m;
  const int64_t ucols = mode == 'N' ? 0 : mode == 'A' ? p : q;
  TallSvd svd = OneSidedJacobi(module, computation, x, ucols);
  Instruction* values = b.Binary(Opcode::kMultiply, svd.values, b.Broadcast(scale, Builder::Plain(svd.values->shape()), batch));
  Instruction* u = nullptr;
  Instruction* vt = nullptr;
  if (mode == 'N') {
    u = b.Splat(0, shape.tuple_shapes(2));
    vt = b.Splat(0, shape.tuple_shapes(3));
  } else if (tall) {  // a = U S V^T
    u = svd.u;
    vt = returns_v ? svd.v : b.Transpose(svd.v, swap);
  } else {  // a^T = U' S V'^T, so a = V' S U'^T
    u = svd.v;
    vt = returns_v ? svd.u : b.Transpose(svd.u, swap);
  }
  Instruction* nan = b.Convert(b.Compare(values, values, ComparisonDirection::kNe), PrimitiveType::kS32);
  Instruction* info = b.Reduce(nan, {rank - 2}, Opcode::kMaximum, 0);
  std::vector<Instruction*> elements = {b.Add(Opcode::kCopy, Builder::Plain(a->shape()), {a}),
                                        b.Convert(values, shape.tuple_shapes(1).element_type()),
                                        b.Convert(u, shape.tuple_shapes(2).element_type()),
                                        b.Convert(vt, shape.tuple_shapes(3).element_type()), info};
  for (size_t i = 0; i < elements.size(); ++i) elements[i]->set_shape(shape.tuple_shapes(static_cast<int64_t>(i)));
  return b.Add(Opcode::kTuple, shape, elements);
}

}  // namespace fusebox::library_call_internal
