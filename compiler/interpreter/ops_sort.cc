// Sort and topk in the reference interpreter. sort orders every row with its comparator
// computation; a comparator that is one compare of parameters 0 and 1, or of jax's
// canonical forms of them (NaNs made one NaN, -0 made +0, as every jnp.sort and argsort
// writes it), sorts extracted keys instead of calling the computation per comparison.
// topk orders by XLA's total order.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "compiler/interpreter/data_movement_internal.h"
#include "compiler/interpreter/index_util.h"

namespace fusebox::interpreter {
namespace data_movement_internal {
namespace {

// Order-preserving integer image of a float's bits under XLA's total order:
// -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN.
int64_t TotalOrderKey(uint64_t bits, int width) {
  int64_t s = static_cast<int64_t>(bits << (64 - width)) >> (64 - width);  // sign-extend
  // Negative values order by decreasing magnitude: flip every bit below the sign.
  if (s < 0) s ^= static_cast<int64_t>((uint64_t{1} << (width - 1)) - 1);
  return s;
}

bool HasSignBit(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kF8E8M0FNU:
    case PrimitiveType::kF8E4M3FNUZ:
    case PrimitiveType::kF8E5M2FNUZ:
    case PrimitiveType::kF8E4M3B11FNUZ:
      return false;  // no negative zero / single NaN encodings: no simple bit order
    default:
      return IsFloat(type);
  }
}

// Keys for sorting one row along a dimension, typed by how they compare.
struct RowKeys {
  enum Kind { kDouble, kSigned, kUnsigned } kind = kDouble;
  std::vector<double> d;
  std::vector<int64_t> s;
  std::vector<uint64_t> u;
};

// jax's sort comparators canonicalize both keys before a total-order compare: every NaN
// becomes one NaN constant and -0 becomes +0, as
//   select(compare(p, p), direction=NE, nan, select(compare(p, z), direction=EQ, r, p))
// The key of x is then: `nan` where x is NaN, `r` where x == z (float equality: both zeros
// for z = 0), x elsewhere.
struct Canonicalization {
  bool present = false;
  uint64_t nan_bits = 0;                                     // replaces every NaN
  double equal_to = 0;                                       // x == equal_to (float compare) ...
  uint64_t equal_bits = 0;                                   // ... becomes this
  bool operator==(const Canonicalization&) const = default;  // equal_to is never NaN
};

const Literal* ScalarConstant(const Instruction* inst, PrimitiveType type) {
  if (inst->opcode() != Opcode::kConstant || inst->literal() == nullptr) return nullptr;
  const Literal* literal = inst->literal();
  if (!literal->shape().IsArray() || literal->shape().element_type() != type ||
      literal->element_count() != 1) {
    return nullptr;
  }
  return literal;
}

// Whether `compare` is compare(a, b) with `direction` as a float (IEEE) comparison.
bool IsFloatCompare(const Instruction* compare, ComparisonDirection direction, PrimitiveType type) {
  if (compare->opcode() != Opcode::kCompare || compare->operand_count() != 2 ||
      compare->attrs().comparison_direction != direction) {
    return false;
  }
  const ComparisonType ct = compare->attrs().comparison_type.value_or(DefaultComparisonType(type));
  return ct == ComparisonType::kFloat || ct == ComparisonType::kPartialOrder;
}

// Whether `value` is parameter `number` itself (no canonicalization) or jax's canonical
// form of it; fills `out`.
bool MatchKey(const Instruction* value, int64_t number, PrimitiveType type, Canonicalization* out) {
  *out = {};
  if (IsParameter(value, number)) return true;
  if (!IsFloat(type) || value->opcode() != Opcode::kSelect || value->operand_count() != 3)
    return false;
  const Instruction* is_nan = value->operand(0);
  const Literal* nan = ScalarConstant(value->operand(1), type);
  const Instruction* inner = value->operand(2);
  if (nan == nullptr || !IsFloatCompare(is_nan, ComparisonDirection::kNe, type) ||
      !IsParameter(is_nan->operand(0), number) || !IsParameter(is_nan->operand(1), number) ||
      inner->opcode() != Opcode::kSelect || inner->operand_count() != 3 ||
      !IsParameter(inner->operand(2), number)) {
    return false;
  }
  const Instruction* is_equal = inner->operand(0);
  const Literal* replacement = ScalarConstant(inner->operand(1), type);
  if (replacement == nullptr || !IsFloatCompare(is_equal, ComparisonDirection::kEq, type) ||
      !IsParameter(is_equal->operand(0), number)) {
    return false;
  }
  const Literal* equal_to = ScalarConstant(is_equal->operand(1), type);
  if (equal_to == nullptr || std::isnan(equal_to->GetDouble(0))) return false;
  out->present = true;
  out->nan_bits = nan->GetBits(0);
  out->equal_to = equal_to->GetDouble(0);
  out->equal_bits = replacement->GetBits(0);
  return true;
}

// How a comparator that is a single compare of its parameters 0 and 1 (or of jax's
// canonical forms of them) orders keys.
struct SimpleComparator {
  bool valid = false;
  bool greater = false;  // true: descending
  RowKeys::Kind kind = RowKeys::kDouble;
  bool total_order = false;
  Canonicalization canonical;  // applied to each key first when present
};

SimpleComparator ClassifyComparator(const Computation& computation, PrimitiveType type) {
  SimpleComparator c;
  const Instruction* root = computation.root();
  if (root == nullptr || root->opcode() != Opcode::kCompare || root->operand_count() != 2) return c;
  bool swapped;
  Canonicalization lhs, rhs;
  if (MatchKey(root->operand(0), 0, type, &lhs) && MatchKey(root->operand(1), 1, type, &rhs)) {
    swapped = false;
  } else if (MatchKey(root->operand(0), 1, type, &lhs) &&
             MatchKey(root->operand(1), 0, type, &rhs)) {
    swapped = true;
  } else {
    return c;
  }
  if (!(lhs == rhs)) return c;  // one key map for both sides
  c.canonical = lhs;
  if (root->operand(0)->shape().element_type() != type || !root->attrs().comparison_direction)
    return c;
  const ComparisonDirection dir = *root->attrs().comparison_direction;
  if (dir != ComparisonDirection::kLt && dir != ComparisonDirection::kGt) return c;
  const ComparisonType ct = root->attrs().comparison_type.value_or(DefaultComparisonType(type));
  if (IsFloat(type) && (ct == ComparisonType::kFloat || ct == ComparisonType::kPartialOrder)) {
    c.kind = RowKeys::kDouble;
  } else if (IsFloat(type) && ct == ComparisonType::kTotalOrder && HasSignBit(type)) {
    c.kind = RowKeys::kSigned;
    c.total_order = true;
  } else if (IsSignedInt(type) && ct == ComparisonType::kSigned) {
    c.kind = RowKeys::kSigned;
  } else if ((IsUnsignedInt(type) || IsPred(type)) && ct == ComparisonType::kUnsigned) {
    c.kind = RowKeys::kUnsigned;
  } else {
    return c;
  }
  c.greater = (dir == ComparisonDirection::kGt) != swapped;
  c.valid = true;
  return c;
}

// Reads the n keys at literal[base + j * stride].
void ReadKeys(const Literal& literal, int64_t base, int64_t stride, int64_t n,
              const SimpleComparator& comparator, RowKeys* keys) {
  const PrimitiveType type = literal.shape().element_type();
  const RowKeys::Kind kind = comparator.kind;
  const Canonicalization& canonical = comparator.canonical;
  keys->kind = kind;
  // The key's bits after the comparator's canonicalization (if any).
  auto bits = [&](int64_t i) {
    if (canonical.present) {
      const double x = literal.GetDouble(i);
      if (std::isnan(x)) return canonical.nan_bits;
      if (x == canonical.equal_to) return canonical.equal_bits;
    }
    return literal.GetBits(i);
  };
  switch (kind) {
    case RowKeys::kDouble:
      keys->d.resize(n);
      for (int64_t j = 0; j < n; ++j) {
        const int64_t i = base + j * stride;
        // A float compare of canonical keys: the NaN constant stays unordered.
        keys->d[j] = canonical.present ? FloatBitsToDouble(type, bits(i)) : literal.GetDouble(i);
      }
      break;
    case RowKeys::kSigned:
      keys->s.resize(n);
      for (int64_t j = 0; j < n; ++j) {
        keys->s[j] = comparator.total_order ? TotalOrderKey(bits(base + j * stride), BitWidth(type))
                                            : literal.GetInt64(base + j * stride);
      }
      break;
    case RowKeys::kUnsigned:
      keys->u.resize(n);
      for (int64_t j = 0; j < n; ++j) keys->u[j] = literal.GetUint64(base + j * stride);
      break;
  }
}

template <typename K>
void StableSortBy(const std::vector<K>& keys, bool greater, std::vector<int64_t>* perm) {
  if (greater) {
    std::stable_sort(perm->begin(), perm->end(),
                     [&](int64_t a, int64_t b) { return keys[a] > keys[b]; });
  } else {
    std::stable_sort(perm->begin(), perm->end(),
                     [&](int64_t a, int64_t b) { return keys[a] < keys[b]; });
  }
}

void SortByKeys(const RowKeys& keys, bool greater, std::vector<int64_t>* perm) {
  switch (keys.kind) {
    case RowKeys::kDouble:
      return StableSortBy(keys.d, greater, perm);
    case RowKeys::kSigned:
      return StableSortBy(keys.s, greater, perm);
    case RowKeys::kUnsigned:
      return StableSortBy(keys.u, greater, perm);
  }
}

// The first k positions of `perm` in (key, position) order: a partial sort whose prefix is
// exactly what a stable sort would put there (ties go to the lower position).
template <typename K>
void TopPositions(const std::vector<K>& keys, bool greater, int64_t k, std::vector<int64_t>* perm) {
  auto before = [&](int64_t a, int64_t b) {
    if (keys[a] != keys[b]) return greater ? keys[a] > keys[b] : keys[a] < keys[b];
    return a < b;
  };
  std::partial_sort(perm->begin(), perm->begin() + k, perm->end(), before);
}

void TopPositionsByKeys(const RowKeys& keys, bool greater, int64_t k, std::vector<int64_t>* perm) {
  switch (keys.kind) {
    case RowKeys::kDouble:
      return TopPositions(keys.d, greater, k, perm);
    case RowKeys::kSigned:
      return TopPositions(keys.s, greater, k, perm);
    case RowKeys::kUnsigned:
      return TopPositions(keys.u, greater, k, perm);
  }
}

}  // namespace

// sort: every row along dimensions={d} of all operands is permuted by one stable sort
// whose comparator sees (lhs_0, rhs_0, lhs_1, rhs_1, ...). Sorts are always stable
// (whether or not is_stable is set) so results are deterministic.
StatusOr<Literal> EvalSort(const Instruction& inst, Operands operands, EvalContext& ctx) {
  const size_t n = operands.size();
  if (n == 0) return Error(inst, "expected at least one operand");
  for (size_t i = 0; i < n; ++i) RETURN_IF_ERROR(CheckArrayOperand(inst, operands, i));
  if (inst.to_apply() == nullptr) return Error(inst, "missing comparator");
  Literal result(inst.shape());
  std::vector<Literal*> outs = ResultArrays(&result, n);
  if (outs.size() != n) return Error(inst, "result shape does not match the operands");
  const Dims& dims = DimsOf(*operands[0]);
  for (size_t i = 0; i < n; ++i) {
    RETURN_IF_ERROR(CheckSameType(inst, *operands[i], *outs[i]));
    if (DimsOf(*operands[i]) != dims || DimsOf(*outs[i]) != dims) {
      return Error(inst, "all operands and results must have dimensions " + DimsText(dims));
    }
  }
  const Dims& dimensions = inst.dimensions();
  if (dimensions.size() != 1 || dimensions[0] < 0 ||
      dimensions[0] >= static_cast<int64_t>(dims.size())) {
    return Error(inst, "dimensions must name one dimension of the operands");
  }
  const int64_t axis = dimensions[0];
  const int64_t len = dims[axis];
  const Dims strides = RowMajorStrides(dims);
  const int64_t stride = strides[axis];
  Dims rows = dims;
  rows[axis] = 1;

  const SimpleComparator simple =
      ClassifyComparator(*inst.to_apply(), operands[0]->shape().element_type());
  ScalarCaller caller(*inst.to_apply(), ctx);
  for (size_t i = 0; i < n; ++i) {
    caller.AddArgumentType(operands[i]->shape().element_type());
    caller.AddArgumentType(operands[i]->shape().element_type());
  }
  RowKeys keys;
  std::vector<int64_t> perm(static_cast<size_t>(len));
  const Status status = ForEachOffset<1>(
      rows, {&strides}, [&](const Dims&, const std::array<int64_t, 1>& offsets) -> Status {
        RETURN_IF_ERROR(ctx.CheckCancelled());
        const int64_t base = offsets[0];
        std::iota(perm.begin(), perm.end(), 0);
        if (simple.valid) {
          ReadKeys(*operands[0], base, stride, len, simple, &keys);
          SortByKeys(keys, simple.greater, &perm);
        } else {
          Status error;
          std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
            if (!error.ok()) return false;
            for (size_t i = 0; i < n; ++i) {
              caller.SetArgument(2 * i, *operands[i], base + a * stride);
              caller.SetArgument(2 * i + 1, *operands[i], base + b * stride);
            }
            StatusOr<const Literal*> less = caller.Call();
            if (!less.ok()) {
              error = less.status();
              return false;
            }
            if ((*less)->shape().element_type() != PrimitiveType::kPred ||
                (*less)->element_count() != 1) {
              error = Error(inst, "the comparator must return a pred scalar");
              return false;
            }
            return (*less)->GetBool(0);
          });
          RETURN_IF_ERROR(error);
        }
        for (size_t i = 0; i < n; ++i) {
          const int slot = outs[i]->slot_bytes();
          const uint8_t* src = operands[i]->untyped_data();
          uint8_t* dst = outs[i]->untyped_data();
          for (int64_t j = 0; j < len; ++j) {
            std::memcpy(dst + (base + j * stride) * slot, src + (base + perm[j] * stride) * slot,
                        static_cast<size_t>(slot));
          }
        }
        return Status::Ok();
      });
  if (!status.ok()) return status;
  return result;
}

// topk: the k largest (or smallest) elements of each row along the last dimension, in
// order, with their s32 indices. Floats are ordered by XLA's total order (so +NaN is the
// largest), and ties keep the lower index first (a stable sort, as XLA's decomposition
// into a stable sort does).
StatusOr<Literal> EvalTopK(const Instruction& inst, Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperand(inst, operands, 0));
  const Literal& operand = *operands[0];
  const PrimitiveType type = operand.shape().element_type();
  if (!inst.shape().IsTuple() || inst.shape().tuple_size() != 2) {
    return Error(inst, "the result must be a (values, indices) tuple");
  }
  Literal result(inst.shape());
  Literal& values = result.tuple_elements()[0];
  Literal& indices = result.tuple_elements()[1];
  RETURN_IF_ERROR(CheckSameType(inst, operand, values));
  const Dims& dims = DimsOf(operand);
  if (dims.empty()) return Error(inst, "the operand must have rank >= 1");
  const int64_t len = dims.back();
  const int64_t k = DimsOf(values).empty() ? -1 : DimsOf(values).back();
  Dims expected = dims;
  expected.back() = k;
  if (k < 0 || k > len || DimsOf(values) != expected || DimsOf(indices) != expected ||
      (inst.attrs().k >= 0 && inst.attrs().k != k) || !IsInteger(indices.shape().element_type())) {
    return Error(inst, "result " + inst.shape().ToString(false) + " does not fit k=" +
                           std::to_string(inst.attrs().k) + " of " + DimsText(dims));
  }
  if (IsComplex(type)) return Error(inst, "complex elements have no order");
  SimpleComparator order;           // how topk reads keys: XLA's total order, no canonicalization
  order.kind = RowKeys::kUnsigned;  // pred, unsigned, and f8e8m0fnu-style floats
  if (IsSignedInt(type)) order.kind = RowKeys::kSigned;
  if (IsFloat(type) && HasSignBit(type)) {
    order.kind = RowKeys::kSigned;
    order.total_order = true;
  } else if (IsFloat(type)) {
    order.kind = RowKeys::kDouble;
  }
  const RowKeys::Kind kind = order.kind;
  const bool largest = inst.attrs().largest.value_or(true);
  const int slot = operand.slot_bytes();
  RowKeys keys;
  std::vector<int64_t> perm(static_cast<size_t>(len));
  const int64_t rows = len == 0 ? 0 : operand.element_count() / len;
  for (int64_t r = 0; r < rows; ++r) {
    std::iota(perm.begin(), perm.end(), 0);
    ReadKeys(operand, r * len, 1, len, order, &keys);
    if (kind == RowKeys::kDouble) {
      // Floats without a sign bit: NaN counts as the largest value.
      for (double& v : keys.d) {
        if (std::isnan(v)) v = std::numeric_limits<double>::infinity();
      }
    }
    TopPositionsByKeys(keys, largest, k, &perm);
    for (int64_t j = 0; j < k; ++j) {
      std::memcpy(values.untyped_data() + (r * k + j) * slot,
                  operand.untyped_data() + (r * len + perm[j]) * slot, static_cast<size_t>(slot));
      indices.SetInt64(r * k + j, perm[j]);
    }
  }
  return result;
}

}  // namespace data_movement_internal
}  // namespace fusebox::interpreter
