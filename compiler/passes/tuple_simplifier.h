// Tuple simplification: the "tuple-simplifier" pass.
#pragma once

#include <string_view>

#include "compiler/passes/pass.h"

namespace fusebox::passes {

// Removes tuple packing that is undone right away, in every computation:
//   get-tuple-element(tuple(a, b, ...), index=i)        -> the i-th operand
//   tuple(gte(t, 0), gte(t, 1), ..., gte(t, n-1))       -> t
// (the latter when t is an n-element tuple whose shape, layouts included, is the new
// tuple's). The replaced instruction is removed, and so are the tuple and
// get-tuple-element instructions that this leaves without users; other dead code is
// left for DCE.
//
// It does not touch a get-tuple-element whose operand is not a tuple instruction (a
// parameter, a call, a while), a tuple of elements in another order or from several
// tuples, or instructions with control edges.
class TupleSimplifier : public Pass {
 public:
  std::string_view name() const override { return "tuple-simplifier"; }
  StatusOr<bool> Run(Module& module, PassContext& context) override;
};

}  // namespace fusebox::passes
