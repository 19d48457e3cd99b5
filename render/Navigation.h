// Viewport navigation in both common conventions, independent of any GUI
// toolkit: the app translates its mouse events into these calls.
//   Maya:    Alt+LMB orbit, Alt+MMB pan, Alt+RMB dolly
//   Blender: MMB orbit, Shift+MMB pan, Ctrl+MMB dolly, wheel zoom
#pragma once

#include "Camera.h"

namespace sinew::render {

enum class MouseButton { Left, Middle, Right };
struct Modifiers {
  bool alt = false, shift = false, ctrl = false;
};

enum class NavAction { None, Orbit, Pan, Dolly };

// Which camera move a drag with `button` and `mods` performs (None: the drag
// belongs to the active tool, e.g. picking).
NavAction navigationFor(MouseButton button, const Modifiers& mods);

// Applies a drag of (dx, dy) pixels in a viewport of the given height.
void applyDrag(Camera& camera, NavAction action, double dx, double dy, int viewportHeight);

// Applies mouse-wheel steps (positive: towards the target).
void applyWheel(Camera& camera, double steps);

}  // namespace sinew::render
