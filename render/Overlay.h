// Dear ImGui overlay drawn over the viewport: the HUD (frame rate, frame
// time, counts) and in-viewport widgets (display mode, toggles). The host
// feeds input through the small API below; ImGui itself stays private to
// render/ (the app never includes imgui.h).
#pragma once

#include "Camera.h"
#include "Renderer.h"

#include <array>
#include <map>
#include <string>

struct ImGuiContext;

namespace sinew::render {

struct HudInfo {
  double fps = 0;           // frames per second (smoothed)
  double frameMs = 0;       // CPU+GPU time of the last frame (ms)
  size_t triangles = 0;     // drawn last frame
  size_t vertices = 0;
  std::string renderer;     // GL version and renderer
  std::string status;       // e.g. what is under the cursor
  std::string timeline;     // e.g. clip playback time
};

class Overlay {
 public:
  Overlay();
  ~Overlay();
  Overlay(const Overlay&) = delete;
  Overlay& operator=(const Overlay&) = delete;

  bool initialize();  // needs the GL context current
  void release();     // idem
  bool initialized() const { return context_ != nullptr && backendReady_; }

  // Input (pixel coordinates, origin top-left). Buttons: 0 left, 1 right, 2 middle.
  void mouseMove(float x, float y);
  void mouseButton(int button, bool down);
  void mouseWheel(float steps);
  void character(unsigned codepoint);
  void setFramebufferScale(float scale) { framebufferScale_ = scale; }
  bool wantsMouse() const;
  bool wantsKeyboard() const;

  // Builds the HUD for this frame and draws it into the current framebuffer.
  // width and height are logical pixels (framebuffer pixels / scale).
  // Returns true when a widget changed `ioSettings`.
  bool draw(int width, int height, double dtSeconds, const HudInfo& hud, const Camera& camera,
            ViewSettings& ioSettings);
  // True when the last draw() changed the layout (auto-sized windows take a
  // second frame to settle): the host should draw once more.
  bool wantsAnotherFrame() const { return wantsAnotherFrame_; }
  // Screen rectangle (logical pixels: x, y, width, height) of a widget drawn
  // last frame, by its label ("Shaded", "Wire", "X-ray", "Grid", ...); all
  // zero if there is none. For tests and automation.
  std::array<float, 4> widgetRect(const std::string& label) const;

 private:
  ImGuiContext* context_ = nullptr;
  bool backendReady_ = false;
  float framebufferScale_ = 1.0f;
  bool wantsAnotherFrame_ = false;
  float layoutHash_ = 0.0f;  // sum of the HUD windows' sizes last frame
  float displayWidth_ = 260.0f;  // of the display widgets' window last frame
  std::map<std::string, std::array<float, 4>> widgetRects_;
};

}  // namespace sinew::render
