// The panel interface of the workbench. A panel owns its view state and draws it; what it
// shares with the rest — the open document, the selection, background jobs, the stage
// builds — it reaches through the WorkbenchContext the workbench gives it. The workbench
// keeps the frame, the documents, the jobs and the selection (workbench.h).
#pragma once

#include <imgui.h>

#include <memory>
#include <string>
#include <vector>

#include "app/gui/task_runner.h"
#include "app/gui/workbench_document.h"

namespace fusebox {
class Instruction;
}

namespace fusebox::gui {

enum class View { kStages, kPasses, kGraph, kProfile, kCompare, kMemory };

class StagesPanel;
class GraphPanel;
class ProfilePanel;

// What a panel may use of the workbench.
class WorkbenchContext {
 public:
  virtual ~WorkbenchContext() = default;
  // The open document (null before one loads) and its current module (null likewise).
  virtual const Document* document() const = 0;
  virtual ModuleDoc* current_module() const = 0;
  // The shared owner of a module of the open document: jobs keep it alive while they run.
  virtual std::shared_ptr<ModuleDoc> Owned(const ModuleDoc* module) const = 0;
  virtual const std::string& loading_path() const = 0;
  virtual void SelectModule(int index) = 0;

  // The selection, everything it lights up (LinkedNames) and the instruction it names.
  virtual const std::string& selection() const = 0;
  virtual void Select(const std::string& instruction) = 0;
  virtual std::vector<std::string> LinkedNames(const std::string& instruction) const = 0;
  // Pushes the selection into every view (after a view got new content).
  virtual void ApplySelectionToViews() = 0;
  virtual const Instruction* FindInstruction(const std::string& name, bool* in_optimized) const = 0;

  // Background work: jobs, the generation of the open document (bumped when it changes:
  // results of older generations are dropped), stage builds, errors for the error panel.
  virtual TaskRunner& tasks() = 0;
  virtual int generation() const = 0;
  virtual void RequestStage(ModuleDoc* module, const std::string& stage) = 0;
  virtual void AddError(std::string message) = 0;

  virtual void ShowView(View view) = 0;
  virtual void OpenExport() = 0;
  // A dump folder with XLA's optimized HLO of `module` is open (the comparison applies).
  virtual bool HasXlaDump(const ModuleDoc& module) const = 0;
  virtual ImFont* mono_font() const = 0;
  // The panels others reach into: the browser shows a stage in a pane, the menu and F5
  // start a run.
  virtual StagesPanel& stages_panel() = 0;
  virtual ProfilePanel& profile_panel() = 0;
};

// One panel of the workbench's main area (a tab) or its side columns.
class Panel {
 public:
  virtual ~Panel() = default;
  virtual const char* title() const = 0;
  virtual void Draw(WorkbenchContext& context) = 0;
  // Another module became current: per-module view state starts fresh.
  virtual void OnModuleSelected(WorkbenchContext& context) {}
  // The selection changed (or a view got new content): `linked` is what it lights up,
  // `kernel` the kernel that runs it (the selection itself when none other does).
  virtual void OnSelection(const std::string& selection, const std::vector<std::string>& linked,
                           const std::string& kernel) {}
  // Background work was cancelled: what waited on a job says so instead of waiting.
  virtual void OnCancel() {}
};

// A link to an instruction: "%name", selects it when clicked.
void DrawInstructionLink(WorkbenchContext& context, const std::string& name);

}  // namespace fusebox::gui
