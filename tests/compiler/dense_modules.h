// HLO text of a dense layer, relu(x . w + bias), for the tensor-core dot tests on the
// emulator and the GPU: x[m, k], w[k, n] (each with a leading batch dimension when `batch`
// is above 0), bias[n] broadcast along the rows; DEFAULT precision, so its f32 dot may use
// TF32. tests/data/gpu/dense_relu_*.hlo are two of them written out for the CLI.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tests/compiler/row_kernel_modules.h"

namespace fusebox::testing_util {

inline std::string DenseReluHlo(int64_t m, int64_t k, int64_t n, int64_t batch = 0) {
  auto dims = [batch](std::vector<int64_t> d) {
    if (batch > 0) d.insert(d.begin(), batch);
    return ShapeText("f32", d);
  };
  const std::string out = dims({m, n});
  const std::string batch_dims =
      batch > 0 ? "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}"
                : "lhs_contracting_dims={1}, rhs_contracting_dims={0}";
  return "HloModule dense_relu\nENTRY e {\n  x = " + dims({m, k}) + " parameter(0)\n  w = " + dims({k, n}) +
         " parameter(1)\n  bias = f32[" + std::to_string(n) + "] parameter(2)\n  d = " + out + " dot(x, w), " +
         batch_dims + "\n  bb = " + out + " broadcast(bias), dimensions={" + std::to_string(batch > 0 ? 2 : 1) +
         "}\n  s = " + out + " add(d, bb)\n  zero = f32[] constant(0)\n  z = " + out +
         " broadcast(zero), dimensions={}\n  ROOT r = " + out + " maximum(s, z)\n}\n";
}

}  // namespace fusebox::testing_util
