// Controllers for a project's character, end to end: from a clip of the
// project to a search problem (retargeting, the Liu 2013 model, inverse
// dynamics, control windows), from a finished search to a ControllerObject,
// and from a ControllerObject back to a simulation that plays it (open loop,
// or with its feedback policy). Shared by `sinew-cli optimize`, `sinew-cli
// simulate --controller` and the GUI's Controller panel.
#pragma once

#include "control/Feedback.h"
#include "control/Retarget.h"
#include "control/Samcon.h"
#include "model/Project.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace sinew::control {

// How the first `windows` windows of a controller were searched, when a
// later search redid the windows after them (pathsBefore): the settings that
// only decide how samples are drawn and ranked, which a redone search may
// change.
struct EarlierSampling {
  int32_t windows = 0;
  uint64_t seed = 1;
  int samples = 0, keep = 0, rounds = 1;
  double noise = 0, refineShrink = 0;
  CostWeights weights;
  int backtracks = 0;                      // SamconOptions' backtracking (0: none)
  double backtrackAbove = 0, backtrackSamples = 2;
  int backtrackWindows = 5;
  double scoreShove = 0;                   // SamconOptions' (0: none)
  double tangentWeight = 0;                // SamconOptions' (0: none)
  bool operator==(const EarlierSampling&) const = default;
};

struct OptimizeSpec {
  std::string clip;                      // a clip of the project (by name)
  double start = 0, end = -1;            // s of that clip (end < 0: to its end)
  std::vector<std::string> jointMap;     // per skeleton joint ("" none); empty: automatic
  double frameRate = 0;                  // of the retargeted reference (0: the clip's)
  double pdFrequency = 5;                // Hz: the skeleton's PD gains (kp = I (2 pi f)^2)
  double stanceAngle = 0.1;              // rad: leg servos stiffened to carry the body (liu2013::ModelOptions; 0: the paper's plain gains)
  double step = 0;                       // s: the Liu 2013 step of the search and of its controller (0: the project's)
  double settle = 0;                     // s: a standing tail searched after the segment (RetargetResult::tail; 0: none)
  SamconOptions samcon;
  std::vector<EarlierSampling> earlier;  // a redone search's first windows, in order (empty: all sampled by `samcon`)
};

// The settings keys (specToJson) of EarlierSampling's fields, and that of
// the record itself: what a redone search may change.
const std::vector<std::string>& samplingSettingKeys();
inline constexpr const char* kEarlierSamplingKey = "earlier";

// The spec as JSON (stored with the controller) and back.
std::string specToJson(const OptimizeSpec& spec);
OptimizeSpec specFromJson(const std::string& json, const std::string& context);

struct PreparedOptimization {
  SamconProblem problem;
  RetargetResult retarget;                // its clip ends with the standing tail (spec.settle)
  std::vector<std::string> notes;        // what a user should know (unmapped joints, ...)
};

// Throws InputError with what is missing: no clip of that name, joints that
// do not map (named), a segment shorter than one window, no volumetric mesh.
PreparedOptimization prepareOptimization(const Project& project, const OptimizeSpec& spec,
                                         const Progress& progress = Progress::none());

// The controller found so far (the windows done) as a project object; while
// the search has not finished it carries the kept paths to resume from.
ControllerObject makeControllerObject(const Project& project, const OptimizeSpec& spec,
                                      const PreparedOptimization& prepared, const SamconSearch& search,
                                      const std::string& name);

// Where a search redone from `time` s into its segment starts: the saved
// controller's kept paths (its best path alone once the search finished or
// fell) cut to the windows that end by `time`, each distinct path once, best
// first by the cost of its last window (the order a search ranks its kept
// states in). Empty when no window ends by then. SamconSearch::resume takes
// them; the windows after are searched anew.
std::vector<std::vector<ControlWindow>> pathsBefore(const ControllerObject& saved, double time);
// The record of how the first `windows` windows of a search redone from
// `saved` (its spec) were sampled: saved's own record cut there, then its
// sampling.
std::vector<EarlierSampling> earlierSampling(const OptimizeSpec& saved, int32_t windows);
// The cost weights and shove each of a search's first `windows` windows was
// ranked under: those of its earlier record's entries, then its own.
std::vector<WindowScoring> windowScoring(const OptimizeSpec& spec, int32_t windows);

// Plays a controller: its windows' targets, in order, each for its duration
// (the last held after the end), plus the feedback correction every feedback
// period when enabled (with `dt` the solver's time step).
class ControllerPolicy final : public liu2013::TargetPolicy {
 public:
  ControllerPolicy(ControllerObject controller, std::shared_ptr<const ReferenceMotion> reference, bool feedback,
                   double dt);
  static constexpr int32_t kCorrectionsPerWindow = 1 << 20;
  int32_t windowAt(double t) const override;
  dyn::PdTargets targets(int32_t window, const liu2013::Liu2013Solver& sim) const override;
  const ControllerObject& controller() const { return controller_; }
  bool feedback() const { return feedback_; }
  // Reference time at simulated time t (time scaling: each window maps its
  // duration onto its reference span).
  double referenceTime(double t) const;
  // Simulated time at which the last window ends; after it the character
  // holds the reference's last pose under balance feedback (holdTargets),
  // corrected every kHoldPeriod, for as long as it is played.
  double end() const { return windowStart_.back() + controller_.windows.back().duration; }

 private:
  ControllerObject controller_;
  std::shared_ptr<const ReferenceMotion> reference_;
  std::vector<double> windowStart_;  // simulated start of each window
  bool feedback_;
  double dt_;
  int32_t period_ = 1;               // steps between feedback corrections
};

// A simulation of the project's character playing `controller`: the model
// with the controller's PD gains, posed at the reference's start, driven by a
// ControllerPolicy. `settings` gives the physics (the drive is replaced, and
// the step is the controller's when it has one).
struct ControllerRun {
  std::shared_ptr<const liu2013::Liu2013Model> model;
  std::shared_ptr<const ReferenceMotion> reference;
  std::shared_ptr<const ControllerPolicy> policy;
  std::unique_ptr<liu2013::Liu2013Solver> solver;
};
ControllerRun prepareControllerRun(const Project& project, const ControllerObject& controller,
                                   liu2013::Settings settings, bool feedback);

// Fits the balance feedback's gains (control/Feedback.h) of a controller from
// perturbed rollouts: each candidate plays the controller `rollouts` times,
// each time with a push (a horizontal velocity change of the whole body,
// `push` m/s, direction and time drawn from the seed) and once unpushed; its
// score is the mean tracking cost over those rollouts (a fall costs
// kFallenCost). A coordinate search over the six gains (two trial steps each,
// halved every sweep) keeps the best. The controller's feedback policy is
// replaced by the fitted gains. Rollouts run on `threads` threads; the result
// does not depend on their number.
struct FeedbackFitOptions {
  int rollouts = 6;
  double push = 0.6;               // m/s
  int sweeps = 2;
  uint64_t seed = 1;
  int threads = 0;                 // 0: all cores
};
struct FeedbackFitResult {
  BalanceGains initial, fitted;
  double initialScore = 0, fittedScore = 0;
  int candidates = 0;              // gain sets evaluated
  int rollouts = 0;                // simulations run
};
FeedbackFitResult fitFeedback(const Project& project, ControllerObject& controller, const BalanceGains& initial,
                              const FeedbackFitOptions& options, const Progress& progress = Progress::none());

// Fits the feedback as Terrain runner (Liu et al. 2012) does, by least
// squares: a linear map per window from the reduced state deviation s
// (control/Feedback.h) to the target correction that recovered. Data: perturbed
// rollouts of the controller (one unpushed, the others pushed as fitFeedback
// pushes them); from each window that starts after a rollout's push (every
// window of the unpushed one) the rollout tries `corrections` constant offsets
// on the feedback joints (world rotation vectors in the heading frame, normal
// with `noise` rad; the first is zero) on top of the controller's own feedback,
// records (s at the window's start, the offset whose window ended with the
// lowest tracking cost) and goes on from that offset's end state. Window k's
// map is the ridge regression over the pairs of windows k - pool .. k + pool
// (fitLinearMap); it is added to the policy's gains for the stance and for the
// swing legs. Held-out pushes (`validation` rollouts, another seed) score the
// policy before and after; the fitted one is kept only when it scores lower.
// The result does not depend on the thread count.
struct FeedbackRegressionOptions {
  int rollouts = 12;
  double push = 0.6;               // m/s
  int corrections = 12;            // offsets tried per window of a rollout
  double noise = 0.1;              // rad
  double ridge = 0.1;              // relative to the mean of diag(S^T S)
  int pool = 1;                    // windows on either side whose pairs also fit a window's map
  int validation = 6;              // held-out pushed rollouts (and one unpushed)
  uint64_t seed = 1;
  int threads = 0;                 // 0: all cores
};
struct FeedbackRegressionResult {
  int pairs = 0;                   // (state deviation, correction) pairs recorded
  int simulations = 0;             // windows simulated for them
  double meanCorrection = 0;       // rad: mean norm of the recorded corrections (per joint)
  double initialScore = 0, fittedScore = 0;  // mean tracking cost over the held-out rollouts
  bool kept = false;               // the fitted map replaced the policy's gains
};
FeedbackRegressionResult regressFeedback(const Project& project, ControllerObject& controller,
                                         const FeedbackRegressionOptions& options,
                                         const Progress& progress = Progress::none());

// One recorded pair: window, state deviation, correction (3 per feedback joint).
struct FeedbackPair {
  size_t window = 0;
  std::array<double, kFeedbackStateSize> state{};
  std::vector<double> correction;
};
// The ridge regression of the corrections on the states: per window k of
// `windows`, the rows x kFeedbackStateSize matrix (row-major) M minimising
// sum |a - M s|^2 + lambda |M|^2 over the pairs of windows k - pool .. k + pool,
// lambda = ridge * trace(S^T S) / kFeedbackStateSize (zero where there are no pairs).
std::vector<std::vector<double>> fitLinearMap(const std::vector<FeedbackPair>& pairs, size_t windows, size_t rows,
                                              int pool, double ridge);

// The character brought from its rest pose into the reference's first pose:
// the skeleton moved kinematically over 0.5 s and held 0.3 s while the flesh
// is simulated (linear blend skinning alone would invert elements at bent
// elbows and lowered arms), then let go for 0.25 s with its servos holding
// that pose so that it sinks onto its soles, then at rest; time 0. All at
// no more than the paper's step (0.5 ms), whatever `settings.dt` is.
liu2013::Liu2013State settledStart(std::shared_ptr<const liu2013::Liu2013Model> model, const liu2013::Settings& settings,
                                   const Skeleton& skeleton, const ReferenceMotion& reference);

// The model options a controller was made with (`step`: its time step, the
// one its masses are made stable for; 0: the project's).
liu2013::ModelOptions controllerModelOptions(const Project& project, double pdFrequency, double stanceAngle,
                                             double step = 0);

}  // namespace sinew::control
