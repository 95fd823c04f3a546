// HLO text of the row kernels' workloads, as jax writes them, for the pass, CPU and GPU
// tests: softmax over the last dimension, and a layer norm (mean, variance, rsqrt through a
// reshape to [..., 1] and back, times gamma) over the last dimension of any rank.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fusebox::testing_util {

inline std::string ShapeText(const std::string& type, const std::vector<int64_t>& dims) {
  std::string s = type + "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i > 0 ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

// The reducers the bodies below name: `add_<type>` and `max_<type>`.
inline std::string RowReducers(const std::string& type) {
  std::string text;
  for (const char* op : {"add", "maximum"}) {
    const std::string name = std::string(op == std::string("add") ? "add_" : "max_") + type;
    text += name + " {\n  a = " + type + "[] parameter(0)\n  b = " + type + "[] parameter(1)\n  ROOT r = " + type +
            "[] " + op + "(a, b)\n}\n\n";
  }
  return text;
}

// ENTRY of softmax over the last dimension of `dims` (two dimensions).
inline std::string SoftmaxEntry(const std::string& type, int64_t rows, int64_t n) {
  const std::string s = ShapeText(type, {rows, n}), r = ShapeText(type, {rows});
  return "ENTRY main {\n  x = " + s + " parameter(0)\n  ninf = " + type + "[] constant(-inf)\n" +
         "  max = " + r + " reduce(x, ninf), dimensions={1}, to_apply=max_" + type + "\n" +
         "  bmax = " + s + " broadcast(max), dimensions={0}\n" + "  shifted = " + s + " subtract(x, bmax)\n" +
         "  ex = " + s + " exponential(shifted)\n" + "  zero = " + type + "[] constant(0)\n" +
         "  sum = " + r + " reduce(ex, zero), dimensions={1}, to_apply=add_" + type + "\n" +
         "  bsum = " + s + " broadcast(sum), dimensions={0}\n" + "  ROOT out = " + s + " divide(ex, bsum)\n}\n";
}

// ENTRY of a layer norm over the last dimension of `dims`, with a gamma of that length.
inline std::string LayerNormEntry(const std::string& type, const std::vector<int64_t>& dims) {
  const std::vector<int64_t> rows(dims.begin(), dims.end() - 1);
  std::vector<int64_t> rows1 = rows;
  rows1.push_back(1);
  std::string row_dims;
  for (size_t d = 0; d < rows.size(); ++d) row_dims += (d > 0 ? "," : "") + std::to_string(d);
  const std::string s = ShapeText(type, dims), r = ShapeText(type, rows), r1 = ShapeText(type, rows1);
  const std::string last = std::to_string(dims.size() - 1);
  const std::string scalar = type + "[]";
  return "ENTRY main {\n  x = " + s + " parameter(0)\n  gamma = " + ShapeText(type, {dims.back()}) +
         " parameter(1)\n  zero = " + scalar + " constant(0)\n" +
         "  sum = " + r + " reduce(x, zero), dimensions={" + last + "}, to_apply=add_" + type + "\n" +
         "  inv_n = " + scalar + " constant(" + std::to_string(1.0 / static_cast<double>(dims.back())) + ")\n" +
         "  binv = " + r + " broadcast(inv_n), dimensions={}\n" + "  mean = " + r + " multiply(sum, binv)\n" +
         "  bmean = " + s + " broadcast(mean), dimensions={" + row_dims + "}\n" +
         "  centered = " + s + " subtract(x, bmean)\n" + "  sq = " + s + " multiply(centered, centered)\n" +
         "  sumsq = " + r + " reduce(sq, zero), dimensions={" + last + "}, to_apply=add_" + type + "\n" +
         "  var = " + r + " multiply(sumsq, binv)\n" + "  eps = " + scalar + " constant(1e-05)\n" +
         "  beps = " + r + " broadcast(eps), dimensions={}\n" + "  ve = " + r + " add(var, beps)\n" +
         "  inv = " + r + " rsqrt(ve)\n" + "  r1 = " + r1 + " reshape(inv)\n" + "  back = " + r + " reshape(r1)\n" +
         "  binv2 = " + s + " broadcast(back), dimensions={" + row_dims + "}\n" +
         "  scaled = " + s + " multiply(centered, binv2)\n" +
         "  bgamma = " + s + " broadcast(gamma), dimensions={" + last + "}\n" +
         "  ROOT out = " + s + " multiply(scaled, bgamma)\n}\n";
}

// A whole module: the reducers for `type` and `entry`.
inline std::string RowKernelModule(const std::string& name, const std::string& type, const std::string& entry) {
  return "HloModule " + name + "\n\n" + RowReducers(type) + entry;
}

}  // namespace fusebox::testing_util
