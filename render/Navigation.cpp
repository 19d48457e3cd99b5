#include "Navigation.h"

#include <cmath>

namespace sinew::render {

NavAction navigationFor(MouseButton button, const Modifiers& mods) {
  if (mods.alt) {  // Maya
    switch (button) {
      case MouseButton::Left: return NavAction::Orbit;
      case MouseButton::Middle: return NavAction::Pan;
      case MouseButton::Right: return NavAction::Dolly;
    }
  }
  if (button == MouseButton::Middle) {  // Blender
    if (mods.shift) return NavAction::Pan;
    if (mods.ctrl) return NavAction::Dolly;
    return NavAction::Orbit;
  }
  return NavAction::None;
}

void applyDrag(Camera& camera, NavAction action, double dx, double dy, int viewportHeight) {
  constexpr double kRadiansPerPixel = 0.008;
  switch (action) {
    case NavAction::Orbit: camera.orbit(-dx * kRadiansPerPixel, dy * kRadiansPerPixel); break;
    case NavAction::Pan: camera.pan(dx, dy, viewportHeight); break;
    case NavAction::Dolly: camera.dolly(std::exp((dy - dx) * 0.005)); break;
    case NavAction::None: break;
  }
}

void applyWheel(Camera& camera, double steps) { camera.dolly(std::pow(0.85, steps)); }

}  // namespace sinew::render
