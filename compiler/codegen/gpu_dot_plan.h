// How the GPU backend lays a dot out: its dimensions, and the plan of a skinny dot
// (gpu_dot_emitter.cc emits it). No LLVM types: tests include it.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "compiler/ir/instruction.h"

namespace fusebox::codegen::gpu {

// A dot's dimensions: batch, the lhs's free ones (m), the rhs's free ones (n), in operand
// order, and the contracted sizes (k, the lhs's order), with their element counts.
struct DotSpace {
  std::vector<int64_t> batch_sizes, m_dims, n_dims, m_sizes, n_sizes, k_sizes;
  int64_t batch = 1, m = 1, n = 1, k = 1;
};
DotSpace DescribeDot(const Instruction& dot);

// Skinny dots: one free side of at most kSkinnyNarrow elements (a classifier's ten
// outputs, their weight gradient, a batch of one), at least kSkinnyMinK contracted
// elements and a narrow operand of at most kSkinnyMaxNarrowOperand. A 16x16 output tile
// would be mostly idle threads, and the 16-wide k slices serialize the long contraction;
// instead each block takes `rows` rows of the wide side and splits k over `slices` threads
// per row, every thread accumulating all the narrow side's values (Q registers) for its
// rows; a warp's slices fold by shuffles, the warps' partials through shared memory, and
// the block writes its rows x Q outputs, with the kernel's epilogue, from consecutive
// threads.
inline constexpr int64_t kSkinnyNarrow = 16;
inline constexpr int64_t kSkinnyMinK = 16;
// At most this many elements in the narrow operand (k x Q), which every wide row reads:
// 128 KiB of f32, within an SM's L1 (256 KiB on sm_90, shared with shared memory).
inline constexpr int64_t kSkinnyMaxNarrowOperand = 32768;
struct SkinnyDot {
  bool narrow_is_n = true;   // the narrow side is the rhs's free dimensions, else the lhs's
  bool wide_k_minor = true;  // the wide operand's minor dimension is contracted: lanes split
                             // k (coalesced along it); else lanes take consecutive rows
  int64_t wide = 0, narrow = 0;
  int64_t rows = 1;     // wide rows per block
  int64_t slices = 32;  // threads per row splitting k
  int64_t blocks = 0;   // along the wide side (grid.y: the batch)
};
// `rows` > 0: that many wide rows a block (one of SkinnyRowChoices), else the plan's own
// (the fewest that still give 128 blocks).
std::optional<SkinnyDot> PlanSkinnyDot(const Instruction& dot, int64_t rows = 0);
// The rows a block a plan may take: 1, 2, 4 or 8 when lanes split k, else 8, 16 or 32
// (a warp's lanes on consecutive rows).
std::vector<int64_t> SkinnyRowChoices(const SkinnyDot& plan);

}  // namespace fusebox::codegen::gpu
