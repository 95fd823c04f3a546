// How the GPU runtime chooses among a kernel's launch shapes (codegen::GpuKernel::variants:
// other threads a row or a block), apart from the device: the autotune cache's key, how
// many launches a timing sample takes, which shape wins and the note that says so. The
// timing itself is GpuExecutable's (docs/gpu-backend.md "Kernel shapes timed on the
// device").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/literal.h"

namespace fusebox::runtime {

// One shape as the key sees it: its entries' names, grids and blocks, and their PTX text
// (occupancy requests included), in launch order.
struct KernelShapeText {
  std::string label;     // "a warp a row"
  std::string launches;  // "fusion_kernel/512x256\n" + the entry's PTX, per launch
};

// The autotune cache's key for a kernel's shapes: `scope` (AutotuneScope: the device), the
// kernel's kind, and a 64-bit FNV-1a hash of every shape's launches and PTX. Any change to
// an entry's code, grid or block, or to the shapes offered, is another key.
std::string KernelShapeKey(const std::string& scope, const std::string& kind, const std::vector<KernelShapeText>& shapes);

// Launches a timing sample takes: as many as fill `target_ms` given one launch's time
// (at least 1, at most 20).
int64_t ShapeSampleLaunches(double one_launch_ms, double target_ms = 0.05);

// The shape that runs, given each shape's best time (index 0: the kernel's own shape): the
// fastest, but a variant only when it is faster than the own shape by more than
// `1 - margin` (3%: the events' noise on a few-microsecond kernel), so that noise does not
// move a kernel from one compile to the next.
size_t FastestShape(const std::vector<double>& ms, double margin = 0.97);

// "a warp a row 7.9 us, 64 threads a row 7.1 us -> 64 threads a row". A time that is not
// finite is a shape refused for its result ("64x64 tiles (differs from the library)").
std::string ShapeTimesText(const std::vector<std::string>& labels, const std::vector<double>& ms, size_t chosen);

// Whether Fusebox's own kernel for a gemm call computed what the library did, on the same
// random operands (uniform in [-1, 1)): every element of `own` within `tolerance` of the
// largest magnitude in `library`, and finite where the library's is. TF32's rounding moves
// such sums by about 1e-4 of that magnitude; an element taken from the wrong place, or a
// fragment in the wrong lane, by the size of the values themselves. "" when they agree,
// else the first element that does not ("element 17 (of 640): 0.31 against the library's
// -1.2; allowed 0.05").
std::string CompareWithLibrary(const Literal& own, const Literal& library, double tolerance = 1.0 / 128);

// The tensor-core canary GpuExecutable runs once per device before a module's tensor-core
// dots (codegen dot(tensor core)) may run: a 48 x 40 by 40 x 56 f32 dot (its HLO text), of
// whole numbers in [-4, 4] (its arguments), whose products and sums TF32 and f32 hold
// exactly; the verdict is "" when every output of `result` is the exact product, else the
// first that is not.
std::string TensorCoreCanaryHlo();
std::vector<Literal> TensorCoreCanaryArguments();
std::string TensorCoreCanaryVerdict(const std::vector<Literal>& args, const Literal& result);

}  // namespace fusebox::runtime
