// A controller that makes the character perform a motion clip (Liu et al.
// 2013, Section 5): the motion retargeted to the character, cut into control
// windows, each holding one PD target pose for a duration of its own (time
// scaling), found by sampling; optionally a linear feedback policy per window.
// Plain data, saved with the project; control/ builds and runs it.
#pragma once

#include "core/Types.h"
#include "model/MotionClip.h"

#include <string>
#include <vector>

namespace sinew {

struct ControlWindow {
  double referenceStart = 0;     // s into the reference where the window starts
  double referenceDuration = 0;  // s of reference it covers
  double duration = 0;           // s simulated (time scaling: referenceDuration x the sampled scale)
  std::vector<Quat> targets;     // PD target per skeleton joint (relative to its rest frame; the root's is unused)
  double cost = 0;               // the search's cost at the window's end
  bool operator==(const ControlWindow& o) const;
};

// Linear feedback around the open-loop control (Liu et al. 2012): every
// `period` seconds within window k, the target offsets (rotation vectors of
// `joints`, concatenated) are gains[k] * (s - reference s), s the reduced
// state (control/Feedback.h says which quantities, in which order).
struct FeedbackPolicy {
  std::vector<int32_t> joints;                  // skeleton joints corrected
  int32_t stateSize = 0;                        // rows of s
  double period = 0.01;                         // s between corrections
  std::vector<std::vector<double>> gains;       // per window: (3 * joints.size()) x stateSize, row-major
  // Per window, the same layout: the gains for the joints of a leg the
  // reference swings (foot placement). Empty: a swinging leg is not corrected.
  std::vector<std::vector<double>> swingGains;
  bool operator==(const FeedbackPolicy&) const = default;
  bool empty() const { return gains.empty(); }
};

// What a search that backtracks (control/Samcon.h) needs beyond its kept set
// to go on exactly as it would have: the kept sets it remembers, the windows
// that sent it back with what they found, how often each window was searched
// and how many backtracks are left. The sets' paths share most of their
// windows, so each window is stored once, in a tree: node i is window
// `nodes[i]` after node `parent[i]` (-1: the start).
struct SearchBacktrackRecord {
  struct KeptSet {
    int32_t window = 0;             // remembered: the windows done; pending: the window that sent the search back
    std::vector<int32_t> leaves;    // the set's states, best first: their last nodes (-1: the start itself)
    bool operator==(const KeptSet&) const = default;
  };
  std::vector<int32_t> parent;
  std::vector<ControlWindow> nodes;
  std::vector<KeptSet> remembered;  // by windows done, oldest first
  std::vector<KeptSet> pending;     // the innermost (latest) last
  KeptSet furthest;                 // the furthest good kept set found (windows done; no leaves: none)
  std::vector<int32_t> attempts;    // per window of the search: how many times it was searched before
  int32_t used = 0;                 // backtracks used
  int32_t lastFrom = -1, lastTo = 0;  // the last backtrack: the window that sent the search back, where to
  bool operator==(const SearchBacktrackRecord&) const = default;
  bool empty() const { return attempts.empty(); }
  // The windows from the start to `leaf` (-1: none).
  std::vector<ControlWindow> path(int32_t leaf) const;
};

// A shove a controller was made to answer (sinew-cli replan --push, the
// Control panel's Re-plan): at simulated time `time` the whole body gains
// `velocity` (liu2013::addRigidVelocity). Playing the controller gives it the
// same shove before the same step, so a re-planned run replays exactly.
struct ControllerShove {
  double time = -1;                   // s simulated (< 0: none)
  Vec3 velocity = Vec3::Zero();       // m/s
  bool empty() const { return time < 0; }
  // Whether it comes before the step that starts at simulated time `t`
  // (step `dt`): the step whose start lies within half a step of it.
  bool dueAt(double t, double dt) const { return time >= 0 && t - 0.5 * dt < time && time <= t + 0.5 * dt; }
  bool operator==(const ControllerShove& o) const { return time == o.time && velocity == o.velocity; }
};
inline constexpr double kMaxShoveSpeed = 100;  // m/s: a larger shove in a file is refused as malformed

// The time steps a controller may be made at and played at (s).
inline constexpr double kMinControllerStep = 1e-4, kMaxControllerStep = 5e-3;

struct ControllerObject {
  ObjectId id = 0;
  std::string name;
  std::string sourceClip;                // the project clip it was made from (its name)
  double start = 0, end = 0;             // s: the segment of the source clip
  std::vector<std::string> jointMap;     // per skeleton joint: the clip joint it follows ("" none)
  MotionClip reference;                  // the retargeted segment, on the character's skeleton
  double pdFrequency = 0;                // Hz: the PD gains it was made for (0: the solver's default)
  double stanceAngle = 0.1;              // rad: the leg servos' stance stiffening it was made for (0: none; liu2013::ModelOptions)
  double step = 0;                       // s: the Liu 2013 time step it was made at and plays at (0: the project's)
  std::vector<ControlWindow> windows;
  FeedbackPolicy feedback;
  std::string settings;                  // the optimiser's settings, JSON (for the record and to rerun)
  ControllerShove shove;                 // the shove it answers, given when it plays (none: made unshoved)
  // A search that has not finished (interrupted, or a checkpoint written
  // while it runs): the paths of the states it kept after its last window,
  // best first (the first is `windows`). `sinew-cli optimize --resume`
  // replays them and goes on as if it had never stopped. Empty once finished.
  std::vector<std::vector<ControlWindow>> searchKept;
  SearchBacktrackRecord searchBacktrack;  // and, when it backtracks, the rest of its state (empty otherwise)
  bool operator==(const ControllerObject&) const = default;

  double duration() const;               // simulated: sum of window durations
  // Throws InputError(context, ...) on inconsistent sizes or non-finite values.
  void validate(const std::string& context, size_t jointCount) const;
};

}  // namespace sinew
