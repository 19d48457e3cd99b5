// Re-planning a controller while it plays (receding-horizon sampling; not in
// Liu et al. 2013, whose controllers play open loop with linear feedback):
// before each window k the character's live state is the start of a small
// SAMCON search over windows k .. k + horizon - 1, its samples drawn around
// the controller's own targets and durations. When the search's best path
// ends the horizon tracking the reference better than the controller's own
// windows from the same live state, its first window is played instead of
// window k; then the horizon moves on by one window.
//
// After the controller's end the character holds the reference's last pose
// the same way: windows holding the last targets, re-planned.
//
// A shove (or anything else that moves the character off the path the
// search found) is then answered from where the character really is, at the
// price of samples x horizon window simulations per window played.
#pragma once

#include "control/Samcon.h"
#include "model/Project.h"

#include <functional>
#include <vector>

namespace sinew::control {

struct ReplanOptions {
  int samples = 40;        // per window searched (shared among the kept states)
  int keep = 4;            // states kept per window of the horizon
  int horizon = 3;         // windows looked ahead
  int from = 0;            // the first window re-planned (those before play as saved)
  // Search only where the character has left the controller's path: when
  // its own windows, from the live state, end the horizon costing more than
  // `above` times what the search that made them found there (0: search
  // every window). Unshoved, the own windows then cost what they did and
  // nothing is searched.
  double above = 0;
  // Each horizon is searched against the reference moved horizontally
  // toward where the character's root is at its start, by this fraction of
  // the way (its vertical motion and everything relative kept). 1: all the
  // way; after a shove the search then follows the motion from where the
  // character is, instead of spending itself on the drift it cannot undo
  // within a horizon, but nothing brings it back to the reference's place.
  // Between 0 and 1: each horizon is asked to close the rest of the gap, so
  // the pull back to the reference's place grows with the distance and the
  // drift fades. 0 (off): against the reference's own place, as the
  // controller was searched.
  double reanchor = 0;
  // Carry the plan on (receding-horizon warm start): after a window is
  // played from a search's path (or from a carried one), the rest of that
  // path, continued by the controller's own windows, competes with the
  // controller's own windows as the plan the next search samples around
  // and must beat. Off: every search starts from the controller's own
  // windows and forgets what the last one found (on the shoved jump, more
  // runs fell: docs/PERFORMANCE.md "Carrying the plan on").
  bool carry = true;
  uint64_t seed = 1;
  int threads = 0;         // sample evaluation threads (0: all cores)
  // A shove before window `shoveWindow` (-1: none): the whole body gains
  // `shove` m/s, as `simulate --push` gives it.
  int shoveWindow = -1;
  Vec3 shove = Vec3::Zero();
  // s played after the last window: windows of the reference's last pose
  // (the last window's targets and feedback gains, one window's length each),
  // re-planned like the others.
  double hold = 2;
};

struct ReplanWindow {
  int32_t window = 0;
  double nominalCost = 0;  // the controller's own windows over the horizon, from the live state (1e30: unstable)
  double anchoredCost = 0; // the same against the moved reference (ReplanOptions::reanchor > 0; else nominalCost)
  double savedCost = 0;    // what the controller's search found at the horizon's end
  double carriedCost = 1e30; // the carried path over the horizon, where the search looks (ReplanOptions::carry;
                             // 1e30: none carried)
  bool carried = false;    // the carried path was the plan searched around (it cost less than the own windows)
  double searchedCost = 0; // the search's best over the horizon (1e30: every sample fell or not run);
                           // its first window is played when this is below the plan's cost (anchoredCost,
                           // or carriedCost where `carried`)
  bool searched = false;   // the search ran (ReplanOptions::above)
  bool replanned = false;  // the search's first window was played
  double endTime = 0;      // s simulated at the window's end
  double tiltDegrees = 0;  // the root's tilt from the reference's at the window's end
  double placeMetres = 0;  // the root's horizontal distance from the reference's at the window's end
  double wallSeconds = 0;
};

struct ReplanResult {
  // The controller as played: its windows re-planned where they were, the
  // hold's windows after them (with the last window's feedback gains), and
  // the run's shove (ControllerObject::shove, none when unshoved), so that
  // playing it replays this run exactly.
  ControllerObject played;
  std::vector<ReplanWindow> reports;
  double maxTiltDegrees = 0;            // over window ends and the hold
  bool stayedUp = true;                 // never over kUprightTiltDegrees, never unstable (else the run stops there)
  double fellAt = -1;                   // s (simulated) when it first was
  int64_t samples = 0;                  // sample windows simulated
};

// The window of `controller` that starts at or after simulated time `t` (a
// hair of rounding allowed); after its last window starts, the hold's
// windows (each as long as the last window's reference span) count on.
int32_t windowStartingAt(const ControllerObject& controller, double t);

// Plays `controller` (with its feedback policy) from the settled start,
// re-planning each window from `options.from` on. Throws InputError on bad
// options or a controller that does not fit the project.
// `onWindow` hears each window as it is played.
ReplanResult replanPlayback(const Project& project, const ControllerObject& controller, const ReplanOptions& options,
                            const Progress& progress = Progress::none(),
                            const std::function<void(const ReplanWindow&)>& onWindow = {});

}  // namespace sinew::control
