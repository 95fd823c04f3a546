// Multi-device programs in the workbench: the devices panel of the module browser
// (devices, program kind, meshes, shardings with each device's shape, collectives, the
// partitioner's decisions) and the inspector's lines on the selection's sharding and, for
// a collective, its groups, bytes and the partitioner's reason. Lines are data first, so
// that tests read what users see (Workbench::devices_text, inspector_devices_text).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "app/gui/panel.h"

namespace fusebox::gui {

// A line of the devices panel or the inspector: drawn by kind, read back as text.
struct InfoLine {
  enum class Kind { kText, kDim, kWarning, kLink, kReason };
  InfoLine(Kind k, std::string t, std::string l = "", std::string a = "")
      : kind(k), text(std::move(t)), link(std::move(l)), after(std::move(a)) {}
  Kind kind = Kind::kText;
  std::string text;
  std::string link;   // kLink: the instruction the line names (clickable, after `text`)
  std::string after;  // kLink: what follows the link
};

// The devices panel's lines; none for a single-device module.
std::vector<InfoLine> DevicesLines(const ModuleDoc& module);
// The inspector's lines on the selection; none when nothing applies.
std::vector<InfoLine> InspectorDevicesLines(const WorkbenchContext& context, const ModuleDoc& module);
// The same as text, one line per row (with the partitioner's decisions for the panel).
std::string DevicesText(const ModuleDoc* module);
std::string InspectorDevicesText(const WorkbenchContext& context);

void DrawInfoLines(WorkbenchContext& context, const std::vector<InfoLine>& lines);
void DrawCollectiveDecisions(WorkbenchContext& context, const std::vector<passes::CollectiveDecision>& decisions);
// The collapsible devices panel of the module browser (nothing for one device).
void DrawDevicesPanel(WorkbenchContext& context, ModuleDoc* module);

}  // namespace fusebox::gui
