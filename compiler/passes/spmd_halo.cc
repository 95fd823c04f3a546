// The SPMD partitioner's halo exchange: a convolution or reduce-window whose spatial (or
// windowed) dim is split keeps it split when each device's output tile reads a fixed
// number of its neighbours' elements beyond its own input tile. Those elements come from
// the neighbours by two collective-permutes (the last `lo` elements of each tile to the
// next device, the first `hi` to the previous one), the global edges take the op's
// padding value, and the op runs on the widened tile without padding along that dim:
// XLA's plan for spatially partitioned convolutions and pooling.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/passes/spmd_partitioner_internal.h"

namespace fusebox::passes {
namespace spmd_internal {

std::optional<Halo> HaloOf(const WindowDimension& w, int64_t input, int64_t output, int64_t count) {
  if (count <= 1 || w.window_dilation != 1 || w.base_dilation != 1 || w.window_reversal || w.stride <= 0) {
    return std::nullopt;
  }
  if (input % count != 0 || output % count != 0) return std::nullopt;
  const int64_t tile = input / count;
  // Every device's output tile starts `stride` input elements per output element after
  // the previous one's: the halos are the same on every device.
  if (tile != (output / count) * w.stride) return std::nullopt;
  Halo h;
  h.lo = w.padding_low;
  h.hi = w.size - w.stride - w.padding_low;
  if (h.lo < 0 || h.hi < 0 || h.lo > tile || h.hi > tile) return std::nullopt;
  if (w.padding_high != (output - 1) * w.stride + w.size - input - w.padding_low) return std::nullopt;
  return h;
}

StatusOr<Instruction*> Partitioner::WithHalo(Instruction* local, const Grid& grid, int64_t k, const Halo& halo,
                                             Instruction* pad, const std::string& for_instruction,
                                             const std::string& operand) {
  const Shape& shape = local->shape();
  const int64_t tile = shape.dimensions(k);
  // The device holding the next (and previous) tile along k with the same other tiles
  // and copy number.
  std::map<std::vector<int64_t>, int64_t> device_at;
  auto key = [&](int64_t d, int64_t index_k) {
    std::vector<int64_t> v = grid.index[d];
    v[k] = index_k;
    v.push_back(grid.copy[d]);
    return v;
  };
  for (int64_t d = 0; d < devices_; ++d) device_at[key(d, grid.index[d][k])] = d;
  std::vector<std::pair<int64_t, int64_t>> forward, backward;
  std::vector<int64_t> first(static_cast<size_t>(devices_)), last(static_cast<size_t>(devices_));
  for (int64_t d = 0; d < devices_; ++d) {
    const int64_t j = grid.index[d][k];
    first[d] = j == 0 ? 1 : 0;
    last[d] = j == grid.counts[k] - 1 ? 1 : 0;
    if (auto it = device_at.find(key(d, j + 1)); it != device_at.end()) forward.push_back({d, it->second});
    if (auto it = device_at.find(key(d, j - 1)); it != device_at.end()) backward.push_back({d, it->second});
  }
  auto pairs_text = [](const std::vector<std::pair<int64_t, int64_t>>& pairs) {
    std::string t = "{";
    for (size_t i = 0; i < pairs.size(); ++i) {
      t += (i ? "," : "") + std::string("{") + std::to_string(pairs[i].first) + "," + std::to_string(pairs[i].second) + "}";
    }
    return t + "}";
  };
  // One side's halo: `size` elements from `start` of each tile, sent along `pairs`; the
  // devices at the global edge (`edge`) take the padding value instead.
  auto side = [&](int64_t start, int64_t size, const std::vector<std::pair<int64_t, int64_t>>& pairs,
                  const std::vector<int64_t>& edge, const char* which) {
    Shape part = shape;
    part.set_dimension(k, size);
    Instruction* slice = Add(Opcode::kSlice, "slice", part, {local});
    std::vector<SliceDimension> dims;
    for (int64_t i = 0; i < shape.rank(); ++i) dims.push_back({i == k ? start : 0, i == k ? start + size : shape.dimensions(i), 1});
    slice->mutable_attrs().slice = dims;
    Instruction* moved = Add(Opcode::kCollectivePermute, "collective-permute", part, {slice});
    InstructionAttributes& a = moved->mutable_attrs();
    a.channel_id = next_channel_++;
    a.source_target_pairs = pairs;
    a.has_source_target_pairs = true;
    Record(moved, for_instruction, operand, pairs_text(pairs),
           "collective-permute of the " + std::string(which) + " " + std::to_string(size) + " element(s) of each tile of %" +
               operand + " along dim " + std::to_string(k) + " to its neighbour: %" + for_instruction +
               "'s windows reach across the tiles' edges (a halo)");
    const Shape p(PrimitiveType::kPred, part.dimensions());
    Instruction* at_edge = Add(Opcode::kCompare, "compare", Shape::Scalar(PrimitiveType::kPred),
                               {PerDeviceOffset(edge), ScalarS32(1)});
    at_edge->mutable_attrs().comparison_direction = ComparisonDirection::kEq;
    Instruction* edge_mask = Add(Opcode::kBroadcast, "broadcast", p, {at_edge});
    edge_mask->mutable_attrs().dimensions = std::vector<int64_t>{};
    Instruction* padding = Add(Opcode::kBroadcast, "broadcast", part, {pad});
    padding->mutable_attrs().dimensions = std::vector<int64_t>{};
    return Add(Opcode::kSelect, "select", part, {edge_mask, padding, moved});
  };
  std::vector<Instruction*> pieces;
  if (halo.lo > 0) pieces.push_back(side(tile - halo.lo, halo.lo, forward, first, "last"));
  pieces.push_back(local);
  if (halo.hi > 0) pieces.push_back(side(0, halo.hi, backward, last, "first"));
  if (pieces.size() == 1) return local;
  Shape wide = shape;
  wide.set_dimension(k, tile + halo.lo + halo.hi);
  Instruction* joined = Add(Opcode::kConcatenate, "concatenate", wide, pieces);
  joined->mutable_attrs().dimensions = std::vector<int64_t>{k};
  return joined;
}

}  // namespace spmd_internal
}  // namespace fusebox::passes
