// The Fusion graph panel: the input or optimized module as a graph (fusions collapsed,
// expanded, or only the small ones expanded; the whole module or the selection's
// neighbourhood), laid out by Graphviz in the background once per module and option set.
#include <cstdio>
#include <memory>
#include <string>

#include "app/gui/panels.h"
#include "app/gui/workbench_internal.h"
#include "graph/fusion_graph.h"
#include "graph/graph_layout.h"

namespace fusebox::gui {

void GraphPanel::OnModuleSelected(WorkbenchContext& context) {
  view_.Clear();
  scope_choices_ = pinned_scopes_;
  requested_ = false;
  message_.clear();
  loading_ = false;
}

void GraphPanel::OnSelection(const std::string& selection, const std::vector<std::string>& linked,
                             const std::string& kernel) {
  // A fused instruction drawn inside a collapsed fusion lights up that fusion's node.
  view_.SetSelection(selection, kernel != selection ? kernel : "");
}

void GraphPanel::OnCancel() {
  if (loading_) {
    loading_ = false;
    message_ = "layout cancelled (change an option to lay the graph out again)";
  }
}

void GraphPanel::CenterOn(const std::string& instruction) {
  view_.CenterOn(instruction);
  if (neighbourhood_) {
    requested_ = false;  // a neighbourhood view follows the selection
  }
}

void GraphPanel::RequestGraph(WorkbenchContext& context) {
  ModuleDoc* module = context.current_module();
  if (!module || requested_) return;
  if (stage_ == 1 && !module->optimized) return;  // wait for the pipeline
  requested_ = true;
  const bool scoped = group_scopes_ && !neighbourhood_;
  std::string key = std::to_string(stage_) + "|" + std::to_string(fusions_) + "|" +
                    (neighbourhood_ ? context.selection() + "|" + std::to_string(radius_) : "") +
                    "|" + std::to_string(fold_) + std::to_string(scoped);
  if (scoped) {
    for (const auto& [scope, expanded] : scope_choices_)
      key += "|" + scope + (expanded ? "+" : "-");
  }
  if (auto cached = module->graphs.find(key); cached != module->graphs.end()) {
    message_ = cached->second->message;
    view_.SetGraph(cached->second->graph, cached->second->layout);
    context.ApplySelectionToViews();
    if (!focus_scope_.empty()) view_.FocusScope(focus_scope_);
    focus_scope_.clear();
    return;
  }
  loading_ = true;
  graph::FusionGraphOptions options;
  options.fusions = fusions_ == 0   ? graph::FusionDisplay::kCollapseAll
                    : fusions_ == 1 ? graph::FusionDisplay::kExpandAll
                                          : graph::FusionDisplay::kExpandSmall;
  if (neighbourhood_) {
    options.center = context.selection();
    options.radius = radius_;
  }
  options.fold_parameters = fold_;
  options.show_trivial = !fold_;
  options.scopes.enabled = scoped;
  options.scopes.expanded = scope_choices_;
  struct Result {
    StatusOr<graph::FusionGraph> graph = graph::FusionGraph();
    StatusOr<graph::GraphLayout> layout = graph::GraphLayout();
    std::string note;
  };
  auto result = std::make_shared<Result>();
  auto session = module->session;
  const bool optimized = stage_ == 1;
  const int generation = context.generation();
  std::shared_ptr<ModuleDoc> keep = context.Owned(module);
  context.tasks().Submit(
      "Laying out the fusion graph",
      [session, optimized, options, result, aspect = pane_aspect_](TaskContext& job) mutable {
        const Module& m = optimized ? *session->optimized_module() : session->input();
        job.SetProgress(-1, "building the graph");
        result->graph = graph::BuildFusionGraph(m, options);
        if (!result->graph.ok() && graph::IsGraphTooBig(result->graph.status()) && options.center.empty() &&
            m.entry() && m.entry()->root()) {
          // Too big to draw whole: open on the neighbourhood of the result instead.
          options.center = m.entry()->root()->name();
          result->note = "The whole module is over the node budget; showing the neighbourhood of the root " +
                         options.center + ". Select an instruction and tick 'neighbourhood' to move around.";
          result->graph = graph::BuildFusionGraph(m, options);
        }
        if (!result->graph.ok() || job.cancelled()) return;
        job.SetProgress(-1, "Graphviz dot layout of " +
                                    std::to_string(result->graph->nodes.size()) + " nodes");
        // Graphviz cannot be interrupted: with the cancel flag the layout runs in a child
        // process that Cancel kills.
        graph::LayoutOptions layout_options;
        layout_options.cancel = job.cancel_flag();
        layout_options.compose_scopes = true;
        layout_options.aspect = aspect;
        result->layout = graph::Layout(*result->graph, layout_options);
      },
      [this, ctx = &context, result, generation, keep, key, focus = std::move(focus_scope_)] {
        if (generation != ctx->generation()) return;
        loading_ = false;
        if (!result->graph.ok()) {
          message_ = result->graph.status().message();
          return;
        }
        if (!result->layout.ok()) {
          message_ = result->layout.status().message();
          return;
        }
        char buffer[160];
        std::snprintf(buffer, sizeof(buffer), "%d nodes, %zu edges, laid out in %.0f ms",
                      result->graph->instruction_node_count(), result->graph->edges.size(),
                      result->layout->layout_ms);
        message_ = buffer;
        for (const std::string& note : result->graph->notes) message_ += "; " + note;
        if (!result->note.empty()) message_ += "; " + result->note;
        auto cached = std::make_shared<ModuleDoc::CachedGraph>();
        cached->graph = std::move(*result->graph);
        cached->layout = std::move(*result->layout);
        cached->message = message_;
        keep->graphs[key] = cached;
        view_.SetGraph(cached->graph, cached->layout);
        ctx->ApplySelectionToViews();
        // After a click expanded a scope, show what it opened (F fits the whole graph).
        if (!focus.empty()) view_.FocusScope(focus);
      },
      "graph");
  focus_scope_.clear();
}

void GraphPanel::Draw(WorkbenchContext& context) {
  ModuleDoc* module = context.current_module();
  if (!module) {
    ImGui::TextDisabled("Open a module to see its fusion graph.");
    return;
  }
  bool changed = false;
  ImGui::SetNextItemWidth(ImGui::CalcTextSize("optimized module").x + 40);
  changed |= ImGui::Combo("##gstage", &stage_, "input module\0optimized module\0");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::CalcTextSize("expand small fusions").x + 40);
  changed |= ImGui::Combo("##gfusions", &fusions_, "collapse fusions\0expand fusions\0expand small fusions\0");
  ImGui::SameLine();
  changed |= ImGui::Checkbox("neighbourhood of the selection", &neighbourhood_);
  if (neighbourhood_) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(80);
    changed |= ImGui::SliderInt("radius", &radius_, 1, 6);
  }
  ImGui::SameLine();
  changed |= ImGui::Checkbox("group by layer", &group_scopes_);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "Clusters by op_name scope (jax/Keras layer paths); click a layer to "
        "expand it, its box's title to collapse it");
  ImGui::SameLine();
  changed |= ImGui::Checkbox("fold parameters", &fold_);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "Parameters as a line of their users' labels; tuples and "
        "get-tuple-elements bypassed");
  ImGui::SameLine();
  if (ImGui::Button("Export...")) context.OpenExport();
  if (changed) {
    requested_ = false;
    view_.Clear();
  }
  if (neighbourhood_ && context.selection().empty()) {
    ImGui::TextColored(kNotFusedColour, "Select an instruction to centre the neighbourhood on.");
  }
  // The composed layout wraps to the pane's shape (the canvas is this, less a toolbar).
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  if (avail.x > 0 && avail.y > 2 * ImGui::GetFrameHeightWithSpacing())
    pane_aspect_ = avail.x / (avail.y - 2 * ImGui::GetFrameHeightWithSpacing());
  RequestGraph(context);
  if (loading_) {
    ImGui::TextColored(kDimColour, "laying out ...");
  } else if (!message_.empty()) {
    ImGui::TextColored(view_.has_graph() ? kDimColour : kErrorColour, "%s", message_.c_str());
  }
  if (view_.has_graph()) {
    if (auto clicked = view_.Draw("fusion_graph")) context.Select(*clicked);
    if (auto toggle = view_.TakeScopeToggle()) {
      // The old drawing stays until the new layout is in.
      scope_choices_[toggle->scope] = toggle->expand;
      focus_scope_ = toggle->expand ? toggle->scope : "";
      requested_ = false;
    }
  }
}

}  // namespace fusebox::gui
