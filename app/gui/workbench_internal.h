// What the workbench's files (workbench*.cc and the panels, panels.h) share: the colours
// of the interface and how times and byte counts are written.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <string>

namespace fusebox::gui {

inline const ImVec4 kErrorColour(1.0f, 0.45f, 0.40f, 1.0f);
inline const ImVec4 kDimColour(0.60f, 0.62f, 0.66f, 1.0f);
inline const ImVec4 kFusedColour(0.45f, 0.85f, 0.50f, 1.0f);
inline const ImVec4 kNotFusedColour(1.0f, 0.70f, 0.35f, 1.0f);
inline const ImVec4 kAccentColour(0.45f, 0.70f, 1.0f, 1.0f);

std::string FormatBytes(int64_t bytes);  // "512 B", "1.5 KiB", "2.00 MiB"
std::string FormatSeconds(double s);     // "12.3 us", "4.567 ms", "1.234 s"

}  // namespace fusebox::gui
