// The SPMD partitioner's halo exchange: a convolution or reduce-window whose spatial (or
// windowed) dim is split keeps it split when each device's output tile reads a fixed
// number of its neighbours' elements beyond its own input tile. Those elements come from
// the neighbours by two collective-permutes (the last `lo` elements of each tile to the
// next device, the first `hi` to the previous one), the global edges take the op's
// padding value, and the op runs on the widened tile without padding along that dim:
// XLA's plan for spatially partitioned convolutions and pooling.
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/passes/spmd_partitioner_internal.h"

namespace fusebox::passes {
namespace spmd_internal {

std::optional<Halo> HaloOf(const WindowDimension& w, int64_t input, int64_t output, int64_t count) {
  const int64_t d = w.base_dilation;
  if (count <= 1 || w.window_dilation != 1 || d < 1 || w.window_reversal || w.stride <= 0 || (d > 1 && w.stride != 1)) {
    return std::nullopt;
  }
  if (input % count != 0 || output % count != 0 || input < 1) return std::nullopt;
  const int64_t tile = input / count, out_tile = output / count;
  // The global op's output size, for the padding it has.
  if (w.padding_low < 0 || (input - 1) * d + 1 + w.padding_low + w.padding_high < w.size ||
      ((input - 1) * d + 1 + w.padding_low + w.padding_high - w.size) / w.stride + 1 != output) {
    return std::nullopt;
  }
  // Every device's output tile starts `stride` dilated input positions per output element
  // after the previous one's, and its input tile `d` per element: the halos are the same
  // on every device when the two advance alike.
  if (tile * d != out_tile * w.stride) return std::nullopt;
  Halo h;
  // In dilated positions from the tile's first element, the windows read from -padding_low
  // to `last`; the elements there, beyond the tile, are the halo.
  h.lo = w.padding_low / d;
  h.local_pad_lo = w.padding_low - h.lo * d;
  const int64_t last = (out_tile - 1) * w.stride - w.padding_low + w.size - 1;
  const int64_t last_element = last >= 0 ? last / d : -1;
  h.hi = std::max<int64_t>(last_element - (tile - 1), 0);
  const int64_t held = (h.lo + tile + h.hi - 1) * d + 1;  // the widened tile, dilated
  h.local_pad_hi = (out_tile - 1) * w.stride + w.size - held - h.local_pad_lo;
  if (h.lo > tile || h.hi > tile || h.local_pad_hi < 0) return std::nullopt;
  return h;
}

StatusOr<Instruction*> Partitioner::WithHalo(Instruction* local, const Grid& grid, int64_t k, const Halo& halo,
                                             Instruction* pad, const std::string& for_instruction,
                                             const std::string& operand) {
  const int64_t tile = local->shape().dimensions(k);
  std::vector<int64_t> starts;
  for (int64_t d = 0; d < devices_; ++d) starts.push_back(grid.index[d][k] * tile - halo.lo);
  return WindowAlong(local, grid, k, tile * grid.counts[k], starts, tile + halo.lo + halo.hi, pad, for_instruction,
                     operand, "'s windows reach across the tiles' edges (a halo)");
}

StatusOr<Instruction*> Partitioner::WindowAlong(Instruction* local, const Grid& grid, int64_t k, int64_t size,
                                                const std::vector<int64_t>& starts, int64_t length, Instruction* pad,
                                                const std::string& for_instruction, const std::string& operand,
                                                const std::string& why, bool wrap) {
  const Shape& shape = local->shape();
  const int64_t tile = shape.dimensions(k);
  const int64_t n = grid.counts[k];
  Shape out = shape;
  out.set_dimension(k, length);
  auto pad_broadcast = [&](const Shape& to) {
    Instruction* b = Add(Opcode::kBroadcast, "broadcast", to, {pad});
    b->mutable_attrs().dimensions = std::vector<int64_t>{};
    return b;
  };
  // The elements within [0, size) that any device's window reads, relative to the start
  // of that device's own tile: [r_lo, r_hi).
  int64_t r_lo = 0, r_hi = 0;
  bool any = false;
  for (int64_t d = 0; d < devices_; ++d) {
    const int64_t own = grid.index[d][k] * tile;
    const int64_t a = wrap ? starts[d] : std::max<int64_t>(starts[d], 0);
    const int64_t b = wrap ? starts[d] + length : std::min(starts[d] + length, size);
    if (a >= b) continue;
    r_lo = any ? std::min(r_lo, a - own) : a - own;
    r_hi = any ? std::max(r_hi, b - own) : b - own;
    any = true;
  }
  if (!any) return pad_broadcast(out);  // every window lies beyond the array: padding only
  auto floor_div = [](int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
  const int64_t first_shift = floor_div(r_lo, tile), last_shift = floor_div(r_hi - 1, tile);
  // The device holding tile index j along k with device d's other tiles and copy number.
  std::map<std::vector<int64_t>, int64_t> device_at;
  auto key = [&](int64_t d, int64_t index_k) {
    std::vector<int64_t> v = grid.index[d];
    v[k] = index_k;
    v.push_back(grid.copy[d]);
    return v;
  };
  for (int64_t d = 0; d < devices_; ++d) device_at[key(d, grid.index[d][k])] = d;
  // Per shift: the part [p0, p1) of the tile `shift` tiles away, moved here (one
  // collective-permute unless it is this device's own), the padding value where that tile
  // lies beyond the array's edge.
  std::vector<Instruction*> pieces;
  for (int64_t shift = first_shift; shift <= last_shift; ++shift) {
    const int64_t p0 = std::max<int64_t>(r_lo - shift * tile, 0), p1 = std::min(r_hi - shift * tile, tile);
    Shape part = shape;
    part.set_dimension(k, p1 - p0);
    Instruction* piece = local;
    if (p1 - p0 != tile) {
      piece = Add(Opcode::kSlice, "slice", part, {local});
      std::vector<SliceDimension> dims;
      for (int64_t i = 0; i < shape.rank(); ++i) dims.push_back({i == k ? p0 : 0, i == k ? p1 : shape.dimensions(i), 1});
      piece->mutable_attrs().slice = dims;
    }
    // Around a ring, a tile n tiles away is this device's own.
    const int64_t hop = wrap ? ((shift % n) + n) % n : shift;
    if (hop == 0) {
      pieces.push_back(piece);
      continue;
    }
    std::vector<std::pair<int64_t, int64_t>> pairs;  // (source, target)
    std::vector<int64_t> beyond(static_cast<size_t>(devices_));
    for (int64_t d = 0; d < devices_; ++d) {
      const int64_t j = grid.index[d][k];
      beyond[d] = !wrap && (j + shift < 0 || j + shift >= n) ? 1 : 0;
      const int64_t to = wrap ? (j - hop + n) % n : j - shift;
      if (auto it = device_at.find(key(d, to)); it != device_at.end()) pairs.push_back({d, it->second});
    }
    Instruction* moved = Add(Opcode::kCollectivePermute, "collective-permute", part, {piece});
    InstructionAttributes& a = moved->mutable_attrs();
    a.channel_id = next_channel_++;
    a.source_target_pairs = pairs;
    a.has_source_target_pairs = true;
    std::string pairs_text = "{";
    for (size_t i = 0; i < pairs.size(); ++i) {
      pairs_text += (i ? ",{" : "{") + std::to_string(pairs[i].first) + "," + std::to_string(pairs[i].second) + "}";
    }
    pairs_text += "}";
    std::string what;
    if (p1 - p0 == tile) {
      what = "each tile";
    } else if (p0 == 0) {
      what = "the first " + std::to_string(p1) + " element(s) of each tile";
    } else if (p1 == tile) {
      what = "the last " + std::to_string(tile - p0) + " element(s) of each tile";
    } else {
      what = "elements [" + std::to_string(p0) + ", " + std::to_string(p1) + ") of each tile";
    }
    const int64_t hops = shift < 0 ? -shift : shift;
    const std::string to = wrap ? "the device " + std::to_string(hop) + " tiles before it around the ring"
                           : hops == 1 ? std::string("its neighbour")
                                       : "the device " + std::to_string(hops) + " tiles " +
                                             (shift < 0 ? "after" : "before") + " it";
    Record(moved, for_instruction, operand, pairs_text,
           "collective-permute of " + what + " of %" + operand + " along dim " + std::to_string(k) + " to " + to +
               ": %" + for_instruction + why);
    if (wrap) {  // every device receives: nothing lies beyond a ring
      pieces.push_back(moved);
      continue;
    }
    Instruction* at_edge = Add(Opcode::kCompare, "compare", Shape::Scalar(PrimitiveType::kPred),
                               {PerDeviceOffset(beyond), ScalarS32(1)});
    at_edge->mutable_attrs().comparison_direction = ComparisonDirection::kEq;
    Instruction* edge_mask = Add(Opcode::kBroadcast, "broadcast", Shape(PrimitiveType::kPred, part.dimensions()), {at_edge});
    edge_mask->mutable_attrs().dimensions = std::vector<int64_t>{};
    pieces.push_back(Add(Opcode::kSelect, "select", part, {edge_mask, pad_broadcast(part), moved}));
  }
  Instruction* buffer = pieces[0];
  if (pieces.size() > 1) {
    Shape wide = shape;
    wide.set_dimension(k, r_hi - r_lo);
    buffer = Add(Opcode::kConcatenate, "concatenate", wide, pieces);
    buffer->mutable_attrs().dimensions = std::vector<int64_t>{k};
  }
  // Each window within the buffer (which holds [own + r_lo, own + r_hi)); the parts of a
  // window beyond it lie beyond the array and take the padding value.
  std::vector<int64_t> offset(static_cast<size_t>(devices_));
  int64_t extra_lo = 0, extra_hi = 0;
  for (int64_t d = 0; d < devices_; ++d) {
    offset[d] = starts[d] - (grid.index[d][k] * tile + r_lo);
    extra_lo = std::max(extra_lo, -offset[d]);
    extra_hi = std::max(extra_hi, offset[d] + length - (r_hi - r_lo));
  }
  if (extra_lo > 0 || extra_hi > 0) {
    Shape padded = buffer->shape();
    padded.set_dimension(k, padded.dimensions(k) + extra_lo + extra_hi);
    padded.clear_layout();
    Instruction* p = Add(Opcode::kPad, "pad", padded, {buffer, pad});
    std::vector<PaddingDimension> config(static_cast<size_t>(shape.rank()));
    config[static_cast<size_t>(k)].low = extra_lo;
    config[static_cast<size_t>(k)].high = extra_hi;
    p->mutable_attrs().padding = config;
    buffer = p;
    for (int64_t d = 0; d < devices_; ++d) offset[d] += extra_lo;
  }
  if (buffer->shape().dimensions(k) == length) return buffer;
  std::vector<std::vector<int64_t>> offsets(static_cast<size_t>(devices_), std::vector<int64_t>(shape.rank(), 0));
  for (int64_t d = 0; d < devices_; ++d) offsets[d][k] = offset[d];
  out.clear_layout();
  return SliceAt(buffer, offsets, out);
}

}  // namespace spmd_internal
}  // namespace fusebox::passes
