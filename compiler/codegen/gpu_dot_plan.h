// How the GPU backend lays a dot out: its dimensions, and the plan of a skinny dot
// (gpu_dot_emitter.cc emits it). No LLVM types: tests include it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
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

// Tensor-core dots: f32 products that may round their operands to TF32 (operand precision
// DEFAULT or HIGH, no `algorithm=`: XLA's rule, as for cuBLAS; GpuCompileOptions::
// allow_tf32, false for checked runs) on sm_80 and later, neither side skinny. Each warp
// computes tiles_m x tiles_n tiles of 16 x 8 outputs with mma.sync m16n8k8 (TF32 operands
// rounded to nearest, f32 sums); the block's warps_m x warps_n warps cover a block tile of
// block_m() x block_n() outputs, walking k in slices of block_k staged through shared
// memory, the next slice's loads in flight while the tensor cores work on this one.
struct MmaTile {
  int64_t warps_m, warps_n, tiles_m, tiles_n, block_k;
};
// The block tiles, smallest first: 32x32, 64x64, 128x64, 128x128.
inline constexpr MmaTile kMmaTiles[] = {{2, 2, 1, 2, 32}, {2, 2, 2, 4, 32}, {2, 2, 4, 4, 16}, {2, 4, 4, 4, 16}};
inline constexpr int64_t kMmaTileCount = 4;
// Split k: a dot whose tiles give fewer than kMmaSplitBelowBlocks blocks (two an SM on an
// H100 or H200 is 264) walks its k slices in `splits` parts, each a block of its own, so
// that about kMmaSplitTargetBlocks blocks hide each other's load latency (a block of 4
// warps alone on an SM waits out every slice's loads; the MLP's 256x512 outputs over
// k = 784 are 128 blocks of 32x32 and 25 slices). Each part keeps at least
// kMmaMinSplitSlices slices; at most kMmaMaxSplits parts. The parts' partial tiles go to
// scratch, and the last part of a tile to finish adds them in order (part 0 first: the
// same sum in every run) and applies the epilogue.
inline constexpr int64_t kMmaSplitBelowBlocks = 256;
inline constexpr int64_t kMmaSplitTargetBlocks = 512;
inline constexpr int64_t kMmaMinSplitSlices = 4;
inline constexpr int64_t kMmaMaxSplits = 16;
struct MmaDot {
  int64_t tile = 0;  // index into kMmaTiles
  MmaTile shape = kMmaTiles[0];
  bool lhs_k_minor = true;  // the lhs's minor dimension is contracted (else free)
  bool rhs_n_minor = true;  // the rhs's minor dimension is free (else contracted)
  int64_t blocks_m = 0, blocks_n = 0;
  int64_t slices = 0;            // k slices of block_k
  int64_t splits = 1;            // parts of k (1: none)
  int64_t slices_per_split = 0;  // every part but the last; the last has the rest (>= 1)
  int64_t block_m() const { return shape.warps_m * shape.tiles_m * 16; }
  int64_t block_n() const { return shape.warps_n * shape.tiles_n * 8; }
  int64_t threads() const { return shape.warps_m * shape.warps_n * 32; }
};
// "sm_90a" -> 90; 0 for anything that is no sm_NN.
int GpuArchNumber(std::string_view arch);
// Whether `dot`'s precision lets its f32 operands round to TF32 (no operand HIGHEST, no
// algorithm).
bool DotPrecisionAllowsTf32(const Instruction& dot);
// The plan, or nullopt when the dot is no tensor-core dot (types, precision, arch, a
// skinny side, fewer than 16 rows, columns or contracted elements). `tile` >= 0: that
// block tile; else the largest that still gives 128 blocks (the smallest when none does).
// `splits` >= 1: k in that many parts (fewer when k has fewer slices; 1: not split); else
// the rule above.
std::optional<MmaDot> PlanMmaDot(const Instruction& dot, std::string_view arch, bool allow_tf32, int64_t tile = -1,
                                 int64_t splits = -1);
// The other shapes a plan's kernel is compiled in for the runtime to time: the next
// smaller and the next larger tile (k split by the rule), and this tile unsplit when the
// plan splits k.
struct MmaShape {
  int64_t tile = 0;
  int64_t splits = -1;  // -1: by the rule
  bool operator==(const MmaShape&) const = default;
};
std::vector<MmaShape> MmaShapeVariants(const MmaDot& plan);
std::string MmaTileLabel(int64_t tile);  // "64x64 tiles"
std::string MmaShapeLabel(const MmaDot& plan);  // "32x32 tiles, k in 4 parts"

}  // namespace fusebox::codegen::gpu
