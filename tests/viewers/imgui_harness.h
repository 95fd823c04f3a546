// Drives Dear ImGui without a window or GPU for view tests: a context with the default
// font atlas built, a fixed display size, frames run on demand, and mouse/keyboard input
// set the way a platform backend would (ImGui 1.86's io.MousePos / MouseDown / KeysDown,
// key codes as GLFW numbers them: letters are their ASCII capitals). After each frame the
// draw data can be inspected (vertex and command counts, the rectangles drawn).
#pragma once

#include <imgui.h>

#include <functional>

namespace fusebox::viewers::testing {

struct FrameStats {
  int vertices = 0;
  int commands = 0;
};

class ImGuiHarness {
 public:
  explicit ImGuiHarness(float width = 1280, float height = 800) {
    context_ = ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(width, height);
    io.DeltaTime = 1.0f / 60.0f;
    io.IniFilename = nullptr;
    io.LogFilename = nullptr;
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
    io.Fonts->SetTexID(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(1)));
    // GLFW's key codes, as imgui_impl_glfw maps them.
    io.KeyMap[ImGuiKey_Tab] = 258;
    io.KeyMap[ImGuiKey_LeftArrow] = 263;
    io.KeyMap[ImGuiKey_RightArrow] = 262;
    io.KeyMap[ImGuiKey_UpArrow] = 265;
    io.KeyMap[ImGuiKey_DownArrow] = 264;
    io.KeyMap[ImGuiKey_PageUp] = 266;
    io.KeyMap[ImGuiKey_PageDown] = 267;
    io.KeyMap[ImGuiKey_Home] = 268;
    io.KeyMap[ImGuiKey_End] = 269;
    io.KeyMap[ImGuiKey_Delete] = 261;
    io.KeyMap[ImGuiKey_Backspace] = 259;
    io.KeyMap[ImGuiKey_Enter] = 257;
    io.KeyMap[ImGuiKey_Escape] = 256;
    io.KeyMap[ImGuiKey_A] = 'A';
    io.KeyMap[ImGuiKey_C] = 'C';
    io.KeyMap[ImGuiKey_V] = 'V';
    io.KeyMap[ImGuiKey_X] = 'X';
    io.KeyMap[ImGuiKey_Y] = 'Y';
    io.KeyMap[ImGuiKey_Z] = 'Z';
  }
  ~ImGuiHarness() { ImGui::DestroyContext(context_); }
  ImGuiHarness(const ImGuiHarness&) = delete;
  ImGuiHarness& operator=(const ImGuiHarness&) = delete;

  // One frame: a window covering the display (no decorations) whose body calls `body`.
  FrameStats Frame(const std::function<void()>& body) {
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImGui::GetIO().DisplaySize);
    ImGui::Begin("harness", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                     ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus);
    body();
    ImGui::End();
    ImGui::Render();
    FrameStats stats;
    ImDrawData* data = ImGui::GetDrawData();
    for (int i = 0; data && i < data->CmdListsCount; ++i) {
      stats.vertices += data->CmdLists[i]->VtxBuffer.Size;
      stats.commands += data->CmdLists[i]->CmdBuffer.Size;
    }
    // Input edges last one frame, as with a real backend.
    ImGuiIO& io = ImGui::GetIO();
    io.MouseWheel = 0;
    io.MouseWheelH = 0;
    return stats;
  }

  void MoveMouse(float x, float y) { ImGui::GetIO().MousePos = ImVec2(x, y); }
  void SetMouseButton(int button, bool down) { ImGui::GetIO().MouseDown[button] = down; }
  void Wheel(float dy) { ImGui::GetIO().MouseWheel = dy; }
  void SetKey(int key, bool down) { ImGui::GetIO().KeysDown[key] = down; }
  void SetCtrl(bool down) { ImGui::GetIO().KeyCtrl = down; }
  void SetShift(bool down) { ImGui::GetIO().KeyShift = down; }
  void Type(const char* text) { ImGui::GetIO().AddInputCharactersUTF8(text); }

  // Clicks at (x, y): a frame with the button down, then one with it up; `body` draws
  // both frames.
  void Click(float x, float y, const std::function<void()>& body, int button = 0) {
    MoveMouse(x, y);
    Frame(body);
    SetMouseButton(button, true);
    Frame(body);
    SetMouseButton(button, false);
    Frame(body);
  }

 private:
  ImGuiContext* context_ = nullptr;
};

}  // namespace fusebox::viewers::testing
