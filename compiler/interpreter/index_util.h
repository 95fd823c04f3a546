// Multi-dimensional index helpers for dense row-major literals: strides, linear <->
// multi-index conversion, and iteration over every index of a shape.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fusebox::interpreter {

// Row-major strides (in elements) of `dims`: the last dimension has stride 1.
std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims);

// Linear position of `index` in a row-major array with `strides`.
inline int64_t LinearIndex(const std::vector<int64_t>& index, const std::vector<int64_t>& strides) {
  int64_t linear = 0;
  for (size_t i = 0; i < index.size(); ++i) linear += index[i] * strides[i];
  return linear;
}

// Multi-index of linear position `linear` in an array of `dims`.
std::vector<int64_t> MultiIndex(int64_t linear, const std::vector<int64_t>& dims);

// Advances `index` to the next row-major index within `dims`; returns false after the last.
inline bool NextIndex(std::vector<int64_t>* index, const std::vector<int64_t>& dims) {
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    if (++(*index)[d] < dims[d]) return true;
    (*index)[d] = 0;
  }
  return false;
}

// Calls fn(const std::vector<int64_t>& index, int64_t linear) for every index of `dims`
// in row-major order. Zero-sized dims call nothing; rank 0 calls once with {}.
template <typename Fn>
void ForEachIndex(const std::vector<int64_t>& dims, Fn&& fn) {
  for (int64_t d : dims) {
    if (d == 0) return;
  }
  std::vector<int64_t> index(dims.size(), 0);
  int64_t linear = 0;
  do {
    fn(static_cast<const std::vector<int64_t>&>(index), linear);
    ++linear;
  } while (NextIndex(&index, dims));
}

}  // namespace fusebox::interpreter
