// Index helpers.
#include "compiler/interpreter/index_util.h"

namespace fusebox::interpreter {

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * dims[i + 1];
  }
  return strides;
}

std::vector<int64_t> MultiIndex(int64_t linear, const std::vector<int64_t>& dims) {
  std::vector<int64_t> index(dims.size(), 0);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 1; i >= 0; --i) {
    if (dims[i] == 0) return index;
    index[i] = linear % dims[i];
    linear /= dims[i];
  }
  return index;
}

}  // namespace fusebox::interpreter
