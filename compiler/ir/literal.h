// Literals: constant array or tuple values of any element type, stored densely in
// row-major (logical) order, one element per slot in its native encoding (sub-byte
// types take one byte each, as XLA's Literal does). Printed in XLA's literal syntax.
#pragma once

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/shape.h"
#include "compiler/support/large_buffer.h"
#include "compiler/support/status.h"

namespace fusebox {

class Literal {
 public:
  Literal() : shape_(Shape::Tuple({})) {}
  // Zero-initialized literal of `shape` (array or tuple, recursively).
  explicit Literal(const Shape& shape);
  // The same storage without zeroing it, for results that are about to be written in
  // full (a kernel's output): a GiB-sized result is not written twice.
  static Literal CreateUninitialized(const Shape& shape);

  const Shape& shape() const { return shape_; }

  // --- Arrays ---
  int64_t element_count() const { return element_count_; }
  // Bytes per element slot (1 for pred and sub-byte types).
  int slot_bytes() const { return slot_bytes_; }
  uint8_t* untyped_data() { return data_.data(); }
  const uint8_t* untyped_data() const { return data_.data(); }
  int64_t size_bytes() const { return static_cast<int64_t>(data_.size()); }

  // Element access by row-major linear index, converting to/from wide host types.
  // Floats read exactly (every element type's values are exact in double); writes
  // round to nearest even and follow the type's overflow rules (inf, or NaN/saturate
  // for types without inf).
  double GetDouble(int64_t index) const;          // real part for complex
  std::complex<double> GetComplex(int64_t index) const;
  int64_t GetInt64(int64_t index) const;          // integers/pred; floats truncate
  uint64_t GetUint64(int64_t index) const;
  bool GetBool(int64_t index) const;              // non-zero
  void SetDouble(int64_t index, double value);
  void SetComplex(int64_t index, std::complex<double> value);
  void SetInt64(int64_t index, int64_t value);    // wraps to the type's width
  void SetUint64(int64_t index, uint64_t value);
  void SetBool(int64_t index, bool value);

  // Raw bits of one element (zero-extended), e.g. the f16 bit pattern.
  uint64_t GetBits(int64_t index) const;
  void SetBits(int64_t index, uint64_t bits);

  // --- Tuples ---
  std::vector<Literal>& tuple_elements() { return tuple_elements_; }
  const std::vector<Literal>& tuple_elements() const { return tuple_elements_; }

  // One element as XLA prints it: `1.5`, `-inf`, `nan`, `true`, `(1, 2)` for complex.
  std::string ElementToString(int64_t index) const;
  // The value in XLA's literal syntax, without the shape: `{ {1, 2}, {3, 4} }`, `3`,
  // `( {1}, 2 )` for tuples.
  std::string ToString() const;
  // With the shape prefixed: `f32[2] {1, 2}`.
  std::string ToStringWithShape() const;

  bool operator==(const Literal& other) const;
  bool operator!=(const Literal& other) const { return !(*this == other); }

 private:
  Literal(const Shape& shape, bool zeroed);

  Shape shape_;
  int64_t element_count_ = 0;
  int slot_bytes_ = 0;
  // Huge-page backed when large: kernels stream through literals passed as arguments.
  std::vector<uint8_t, LargeBufferAllocator<uint8_t>> data_;
  std::vector<Literal> tuple_elements_;
};

// Calls fn(leaf) for every array leaf of `literal` (a Literal or const Literal), depth
// first: the order of a tuple's buffers in the runtimes.
template <typename L, typename Fn>
void ForEachArrayLeaf(L& literal, const Fn& fn) {
  if (literal.shape().IsTuple()) {
    for (auto& element : literal.tuple_elements()) ForEachArrayLeaf(element, fn);
  } else if (literal.shape().IsArray()) {
    fn(literal);
  }
}

// Conversions between float formats and double, used by literals, the interpreter
// and the code generators. Bits are the format's encoding, right-aligned.
double FloatBitsToDouble(PrimitiveType type, uint64_t bits);
uint64_t DoubleToFloatBits(PrimitiveType type, double value);

}  // namespace fusebox
