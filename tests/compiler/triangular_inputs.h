// Arguments for modules of triangular solves: parameters 0, 2, ... are the matrices
// ([..., k, k], a diagonal of about 4 so every solve is well conditioned), parameters 1,
// 3, ... the right-hand sides; real and imaginary parts set (an imaginary part is dropped
// for real types).
#pragma once

#include <cmath>
#include <vector>

#include "compiler/ir/literal.h"
#include "compiler/ir/module.h"

namespace fusebox::testing_util {

inline std::vector<Literal> TriangularSolveArguments(const Module& module) {
  std::vector<Literal> args;
  for (const Instruction* p : module.entry()->parameters()) {
    Literal literal(p->shape());
    const bool matrix = p->parameter_number() % 2 == 0;
    const int64_t k = p->shape().dimensions(p->shape().rank() - 1);
    for (int64_t i = 0; i < literal.element_count(); ++i) {
      const bool diagonal = matrix && i / k % k == i % k;
      literal.SetComplex(i, {std::sin(0.37 * static_cast<double>(i)) + (diagonal ? 4 : 0),
                             std::cos(0.53 * static_cast<double>(i)) * 0.5});
    }
    args.push_back(std::move(literal));
  }
  return args;
}

}  // namespace fusebox::testing_util
