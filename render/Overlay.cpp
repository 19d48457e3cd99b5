#include "Overlay.h"

#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <cstdio>

namespace sinew::render {

namespace {
// Makes `ctx` current for the lifetime of the guard.
struct ContextGuard {
  ImGuiContext* previous;
  explicit ContextGuard(ImGuiContext* ctx) : previous(ImGui::GetCurrentContext()) { ImGui::SetCurrentContext(ctx); }
  ~ContextGuard() { ImGui::SetCurrentContext(previous); }
};
}  // namespace

Overlay::Overlay() = default;
Overlay::~Overlay() {
  if (context_) ImGui::DestroyContext(context_);
}

bool Overlay::initialize() {
  if (initialized()) return true;
  if (!context_) {
    context_ = ImGui::CreateContext();
    ContextGuard g(context_);
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // no imgui.ini next to the user's files
    io.LogFilename = nullptr;
    ImGui::StyleColorsDark();
    ImGuiStyle& s = ImGui::GetStyle();
    s.WindowRounding = 4.0f;
    s.FrameRounding = 3.0f;
    s.WindowBorderSize = 0.0f;
    s.Colors[ImGuiCol_WindowBg].w = 0.55f;
  }
  ContextGuard g(context_);
  backendReady_ = ImGui_ImplOpenGL3_Init("#version 330 core");
  return backendReady_;
}

void Overlay::release() {
  if (!context_) return;
  ContextGuard g(context_);
  if (backendReady_) ImGui_ImplOpenGL3_Shutdown();
  backendReady_ = false;
}

void Overlay::mouseMove(float x, float y) {
  if (!context_) return;
  ContextGuard g(context_);
  ImGui::GetIO().MousePos = ImVec2(x, y);
}
void Overlay::mouseButton(int button, bool down) {
  if (!context_ || button < 0 || button > 2) return;
  ContextGuard g(context_);
  ImGui::GetIO().MouseDown[button] = down;
}
void Overlay::mouseWheel(float steps) {
  if (!context_) return;
  ContextGuard g(context_);
  ImGui::GetIO().MouseWheel += steps;
}
void Overlay::character(unsigned c) {
  if (!context_) return;
  ContextGuard g(context_);
  ImGui::GetIO().AddInputCharacter(c);
}
bool Overlay::wantsMouse() const {
  if (!context_) return false;
  ContextGuard g(context_);
  return ImGui::GetIO().WantCaptureMouse;
}
bool Overlay::wantsKeyboard() const {
  if (!context_) return false;
  ContextGuard g(context_);
  return ImGui::GetIO().WantCaptureKeyboard;
}

bool Overlay::draw(int width, int height, double dt, const HudInfo& hud, const Camera& camera,
                   ViewSettings& settings) {
  if (!initialized()) return false;
  ContextGuard guard(context_);
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(float(width), float(height));
  io.DisplayFramebufferScale = ImVec2(framebufferScale_, framebufferScale_);
  io.DeltaTime = dt > 0 ? float(dt) : 1.0f / 60.0f;
  ImGui_ImplOpenGL3_NewFrame();
  ImGui::NewFrame();
  bool changed = false;
  widgetRects_.clear();
  auto record = [this](const char* label) {
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    widgetRects_[label] = {a.x, a.y, b.x - a.x, b.y - a.y};
  };
  float layout = 0.0f;
  auto measure = [&layout] {
    const ImVec2 sz = ImGui::GetWindowSize();
    layout = layout * 1.37f + sz.x + 7.0f * sz.y;
  };
  const ImGuiWindowFlags fixed = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                                 ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoMove;

  // HUD: frame rate and counts, top left.
  ImVec2 hudEnd(8, 8);  // its bottom-right corner
  ImGui::SetNextWindowPos(ImVec2(8, 8));
  if (ImGui::Begin("##hud", nullptr, fixed)) {
    ImGui::Text("%.1f fps  %.2f ms", hud.fps, hud.frameMs);
    ImGui::Text("%zu triangles  %zu vertices", hud.triangles, hud.vertices);
    if (!hud.timeline.empty()) ImGui::TextUnformatted(hud.timeline.c_str());
    if (!hud.renderer.empty()) ImGui::TextDisabled("%s", hud.renderer.c_str());
    hudEnd = ImVec2(ImGui::GetWindowPos().x + ImGui::GetWindowSize().x, ImGui::GetWindowPos().y + ImGui::GetWindowSize().y);
    measure();
  }
  ImGui::End();

  // Display widgets, top right; below the HUD where the view is too narrow for both side by side.
  const bool narrow = hudEnd.x + displayWidth_ + 16 > float(width);
  ImGui::SetNextWindowPos(narrow ? ImVec2(8, hudEnd.y + 6) : ImVec2(float(width) - 8, 8), ImGuiCond_Always,
                          narrow ? ImVec2(0, 0) : ImVec2(1, 0));
  if (ImGui::Begin("##display", nullptr, fixed)) {
    int mode = static_cast<int>(settings.mode);
    changed |= ImGui::RadioButton("Shaded", &mode, 0);
    record("Shaded");
    ImGui::SameLine();
    changed |= ImGui::RadioButton("Wire", &mode, 1);
    record("Wire");
    ImGui::SameLine();
    changed |= ImGui::RadioButton("X-ray", &mode, 2);
    record("X-ray");
    settings.mode = static_cast<DisplayMode>(mode);
    changed |= ImGui::Checkbox("Grid", &settings.grid);
    record("Grid");
    ImGui::SameLine();
    changed |= ImGui::Checkbox("Skeleton", &settings.skeleton);
    record("Skeleton");
    ImGui::SameLine();
    changed |= ImGui::Checkbox("Problems", &settings.problems);
    record("Problems");
    ImGui::SameLine();
    changed |= ImGui::Checkbox("Follow", &settings.follow);
    record("Follow");
    displayWidth_ = ImGui::GetWindowSize().x;
    measure();
  }
  ImGui::End();

  // Status line (picking), bottom left above the gizmo.
  if (!hud.status.empty()) {
    ImGui::SetNextWindowPos(ImVec2(110, float(height) - 8), ImGuiCond_Always, ImVec2(0, 1));
    if (ImGui::Begin("##status", nullptr, fixed)) {
      ImGui::TextUnformatted(hud.status.c_str());
      measure();
    }
    ImGui::End();
  }

  // Axis labels next to the gizmo drawn by the renderer.
  if (settings.axes) {
    const AxisGizmo gz = axisGizmo(camera, width, height);
    ImDrawList* dl = ImGui::GetForegroundDrawList();
    static const char* labels[3] = {"X", "Y", "Z"};
    static const ImU32 colors[3] = {IM_COL32(240, 90, 90, 255), IM_COL32(110, 210, 95, 255),
                                    IM_COL32(100, 150, 250, 255)};
    for (int a = 0; a < 3; ++a) {
      const Eigen::Vector2f dir = (gz.tips[a] - gz.centre);
      const Eigen::Vector2f at = gz.tips[a] + (dir.norm() > 1e-3f ? Eigen::Vector2f(dir.normalized() * 9.0f)
                                                                  : Eigen::Vector2f(9.0f, 0.0f));
      dl->AddText(ImVec2(at.x() - 4, at.y() - 7), colors[a], labels[a]);
    }
  }

  ImGui::Render();
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  wantsAnotherFrame_ = layout != layoutHash_;
  layoutHash_ = layout;
  return changed;
}

std::array<float, 4> Overlay::widgetRect(const std::string& label) const {
  const auto it = widgetRects_.find(label);
  return it == widgetRects_.end() ? std::array<float, 4>{0, 0, 0, 0} : it->second;
}

}  // namespace sinew::render
