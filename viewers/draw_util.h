// Small colour helpers the views share (packed ImU32 colours, as ImDrawList takes them).
#pragma once

#include <imgui.h>

#include <cmath>

namespace fusebox::viewers {

// Component-wise a + (b - a) * t, alpha included.
inline ImU32 Mix(ImU32 a, ImU32 b, float t) {
  ImU32 out = 0;
  for (int shift = 0; shift < 32; shift += 8) {
    float ca = static_cast<float>((a >> shift) & 0xff);
    float cb = static_cast<float>((b >> shift) & 0xff);
    out |= static_cast<ImU32>(std::lround(ca + (cb - ca) * t)) << shift;
  }
  return out;
}

// The colour with its alpha replaced (0-255).
inline ImU32 WithAlpha(ImU32 color, int alpha) {
  return (color & ~IM_COL32_A_MASK) | (static_cast<ImU32>(alpha) << IM_COL32_A_SHIFT);
}

}  // namespace fusebox::viewers
