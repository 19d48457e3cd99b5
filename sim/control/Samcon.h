// Open-loop control by sampling (Liu et al. 2010, "SAMCON", as extended by
// Liu et al. 2013, Section 5): the reference is cut into control windows of
// about 0.1 s; each window holds one PD target pose for a duration of its
// own. Window by window, from each of the best states kept so far, samples
// draw the target (the window's initial target, from inverse dynamics or the
// reference pose, plus noise per degree of freedom) and the duration (time
// scaling); each sample simulates the full soft character from an in-memory
// snapshot and is scored against the reference at the window's end; the best
// are kept. At the end the best final state's path back to the start is the
// controller.
//
// Sample evaluation is behind SampleEvaluator: threads here, MPI ranks in
// sinew-cli. Every sample's noise comes from its own random stream (seed,
// window, sample index) and the kept set is chosen by (cost, index), so the
// result is the same for any thread or rank count.
#pragma once

#include "control/Cost.h"
#include "control/Feedback.h"
#include "control/Reference.h"
#include "core/Progress.h"
#include "liu2013/Liu2013.h"
#include "model/Controller.h"

#include <memory>
#include <string>
#include <vector>

namespace sinew::control {

// How many times backtrackWindows a repeated backtrack may reach back.
constexpr int32_t kBacktrackReach = 4;

struct SamconOptions {
  double window = 0.1;            // s of reference per control window (the segment is cut into equal windows near this)
  int samples = 200;              // per window (shared among the kept states)
  int keep = 10;                  // states kept per window
  uint64_t seed = 1;
  int threads = 0;                // sample evaluation threads (0: all cores)
  bool timeScaling = true;        // sample each window's duration (Section 5.2)
  double timeScaleRange = 0.2;    // durations in [1 - r, 1 + r] x the reference's
  double timeScaleWeight = 1;     // cost per (ln scale)^2: without it the greedy search favours short windows (less time to drift)
  bool idInit = true;             // initial targets by inverse dynamics (Section 5.1); else the reference pose
  double noise = 0.1;             // rad, standard deviation of the target offsets per degree of freedom
  // Refinement (a cross-entropy step, after Liu et al. 2015's sample
  // distribution updates; 1: the 2010/2013 papers' single draw): the window's
  // samples are split into `rounds`; each later round draws around the mean
  // offset and duration of the best `keep` samples so far, from their start
  // states, with the spreads times `refineShrink` per round.
  int rounds = 1;
  double refineShrink = 0.6;
  // Backtracking (not in the papers, whose search commits to every window's
  // kept set, so that one window that every sample falls in ends the search
  // and one that goes badly spoils the rest): when a window's best cost is
  // above `backtrackAbove` (0: only when every sample falls), the search goes
  // back `backtrackWindows` windows and searches them again with fresh
  // samples, `backtrackSamples` times as many; back at the window that sent
  // it back, the better of the two kept sets goes on. A window that sends
  // the search back again before it got past the window that last sent it
  // back goes `backtrackWindows` further back than that time (going back
  // there did not help), as far as the remembered kept sets reach
  // (kBacktrackReach x backtrackWindows windows). At most `backtracks` times
  // in a search (0: never, as in the papers). Out of backtracks, a window
  // that goes badly hands over to the furthest-reaching good kept set any
  // earlier search found (best cost at most `backtrackAbove`), when that
  // one got past this window: a pass that went worse never throws away a
  // better one.
  int backtracks = 0;
  double backtrackAbove = 0;
  int backtrackWindows = 5;
  double backtrackSamples = 2;
  CostWeights weights;
  // Balance feedback in the loop while sampling (control/Feedback.h): the
  // open-loop targets found are then those that work with it. Off: pure
  // open-loop control, as in the paper.
  bool feedback = false;
  BalanceGains balance = defaultBalanceGains();
  double feedbackPeriod = 0.01;   // s between corrections
  // Robustness (not in the papers): each sample is also simulated with the
  // whole body shoved by this horizontal speed at the window's start, in a
  // direction drawn from the sample itself (shoveVelocity), and costs the
  // mean of its plain and shoved runs; the plain run's end state goes on.
  // A path that a gentle push knocks over then loses to one that recovers,
  // at twice the simulation per sample (0: off, as in the papers).
  double scoreShove = 0;          // m/s
  // Sensitivity (not in the papers): each sample also runs a twin of its
  // start a tiny difference away, the difference its parent's twin grew
  // into rescaled to kTangentSize (a tangent carried along the kept path; a
  // shove of that size at the search's start), and costs this weight times
  // ln of how much the difference grew over the window (when it grew). A
  // path along which every small difference grows, where a shove before a
  // take-off ends in a fall, then loses to one that damps them; twice the
  // simulation per sample (0: off, as in the papers). A fresh difference
  // each window would not do: over one window nearly every sample shrinks
  // it alike (docs/PERFORMANCE.md, "How small a shove the jump feels").
  // Measured on the 0-4 s jump it did so for one search of four and dragged
  // three off the reference ("The tangent penalty as a search option").
  double tangentWeight = 0;
};

// The twin's difference from its character at a window's start: node
// velocities of this rms size (m/s), positions over 0.1 s alike.
constexpr double kTangentSize = 1e-5;

// Everything a sample needs; immutable during a search.
struct SamconProblem {
  std::shared_ptr<const liu2013::Liu2013Model> model;
  liu2013::Settings settings;     // physics of the search (one thread per sample)
  std::shared_ptr<const ReferenceMotion> reference;
  std::vector<ControlWindow> windows;  // layout, with the initial targets
  liu2013::Liu2013State start;    // the character posed at the reference's start
  SamconOptions options;
  FeedbackPolicy feedback;        // in the loop while sampling (empty: open loop)
};

// A state the search goes on from: the character's, and its twin
// (SamconOptions::tangentWeight > 0; null: none yet, or the twin went unstable).
struct SearchState {
  liu2013::Liu2013State character;
  std::shared_ptr<const liu2013::Liu2013State> twin;
};

struct SampleTask {
  int32_t window = 0;             // the control window
  int32_t parent = 0;             // index into the window's start states
  int32_t steps = 0;              // simulated steps
  double scale = 1;               // steps x dt / the window's reference duration
  std::vector<Quat> targets;      // per link
  double shove = 0;               // m/s: also scored shoved (SamconOptions::scoreShove; 0: not)
  double tangentWeight = 0;       // its twin's growth scored (SamconOptions::tangentWeight; 0: no twin)
};

struct SampleOutcome {
  CostTerms cost;                 // the plain run's terms; total: the sample's cost (with the shoved run's)
  CostTerms shoved;               // the shoved run's terms and total (task.shove > 0)
  double amplification = 1;       // how much the twin's difference grew over the window (tangentWeight > 0)
};

// The velocity a task's shoved run is given at its start: task.shove m/s,
// horizontal, in a direction hashed from the window, the targets and the
// duration, so that a replay of the saved window shoves it the same way.
Vec3 shoveVelocity(const SampleTask& task);

// How a saved window was scored: the cost weights, the shove and the tangent
// weight it was searched under (a redone search may change them; see
// windowScoring).
struct WindowScoring {
  CostWeights weights;
  double shove = 0;
  double tangentWeight = 0;
};

// Runs samples. Implementations must give every task the result a single
// thread would (each task is independent and deterministic).
class SampleEvaluator {
 public:
  virtual ~SampleEvaluator() = default;
  // Simulates each task from starts[task.parent] holding its targets for its
  // steps, scores the end against the reference at `referenceEnd`; fills
  // `outcomes` (one per task) and `kept` with the end states of the `keep`
  // best tasks (lowest cost, then lowest index), best first. Throws
  // Cancelled when cancelled through `progress`.
  virtual void evaluate(const SamconProblem& problem, double referenceEnd, const std::vector<SearchState>& starts,
                        const std::vector<SampleTask>& tasks, int keep, std::vector<SampleOutcome>& outcomes,
                        std::vector<std::pair<int32_t, SearchState>>& kept, const Progress& progress) = 0;
  virtual int workers() const = 0;
};

// Simulates one task: the end state and its cost. Shared by the evaluators.
struct SampleRunner {
  explicit SampleRunner(const SamconProblem& problem);
  SampleOutcome run(const SearchState& start, const SampleTask& task, double referenceEnd);
  const liu2013::Liu2013State& state() const { return solver.state(); }
  // The last run's end: the character's state and its twin's.
  SearchState end() const { return {solver.state(), twin}; }
  const SamconProblem& problem;
  liu2013::Liu2013Solver solver;
  std::shared_ptr<const liu2013::Liu2013State> twin;
};

// A sample's cost: the tracking cost's terms under `weights`, plus the time
// scaling's (ln scale)^2 under the options' weight.
double sampleCost(const CostTerms& terms, const CostWeights& weights, const SamconOptions& options, double scale);
// The cost of a sample scored as `scoring` says: sampleCost of its plain
// run, or the mean of its plain and shoved runs' (scoring.shove > 0; 1e30:
// either unstable), plus the tangent's (tangentCost).
double scoredCost(const SampleOutcome& outcome, const WindowScoring& scoring, const SamconOptions& options,
                  double scale);
// What a twin's difference growing `amplification` times costs under `weight`
// (nothing when it shrank).
double tangentCost(double amplification, double weight);

// Evaluation on `threads` threads of this process (0: all cores).
std::unique_ptr<SampleEvaluator> makeThreadedEvaluator(int threads);

// The kept set of a window: the best `keep` of (cost, index) pairs.
std::vector<int32_t> selectBest(const std::vector<double>& costs, int keep);

struct WindowReport {
  int32_t window = 0;
  CostTerms best;                 // the best sample's cost terms (of its plain run; total: its cost)
  double shovedCost = 0;          // the best sample's shoved run's cost (SamconOptions::scoreShove > 0)
  double amplification = 1;       // the best sample's twin's growth (SamconOptions::tangentWeight > 0)
  int32_t samples = 0;
  int32_t fallen = 0;             // samples whose character fell
  double wallSeconds = 0;
  double timeScale = 1;           // of the best sample
  int32_t attempt = 0;            // how many times this window was searched before (backtracking)
  bool earlierKept = false;       // searched again, the earlier search of it was better and goes on
  int32_t backTo = -1;            // the search went back (or on): windows done now (-1: it went on as usual)
  bool furthestGood = false;      // out of backtracks: the furthest good kept set found earlier goes on (backTo)
};

// A search in progress: run window by window (the GUI pauses between
// windows; a cancelled window starts over when run again).
class SamconSearch {
 public:
  SamconSearch(SamconProblem problem, std::unique_ptr<SampleEvaluator> evaluator);
  const SamconProblem& problem() const { return problem_; }
  int32_t windowCount() const { return int32_t(problem_.windows.size()); }
  int32_t windowsDone() const { return done_; }
  bool finished() const { return done_ == windowCount() || failed_; }
  // Every sample of window windowsDone() fell: the search stops there, with
  // the windows before it (reports() has the failed window's last).
  bool failed() const { return failed_; }
  WindowReport runWindow(const Progress& progress = Progress::none());
  // The best path so far: the windows done, from the best kept state back to the start.
  std::vector<ControlWindow> best() const;
  const liu2013::Liu2013State& bestState() const;
  // The paths of every kept state, best first (the first is best()).
  std::vector<std::vector<ControlWindow>> keptPaths() const;
  // Continues a search that stopped (ControllerObject::searchKept): replays
  // the kept paths (each distinct window once, through the evaluator) and
  // takes their end states as the kept set, as if this search had run those
  // windows itself; the result is then the same as an uninterrupted search's.
  // Only on a new search. Throws InputError when a path does not fit the
  // problem, or a replayed window's cost differs from the one saved (the
  // character, the scene or the solver changed since). The replays are not
  // counted in samplesEvaluated().
  // `saved` (per window; empty: the search's own): the cost weights and
  // shove each saved window's cost was computed under, when a redone search
  // changed them; the replay is checked under those.
  // `record` (a search that backtracks: backtrackRecord() saved with the
  // kept paths): its remembered and pending kept sets are replayed too, and
  // the search goes on as the saved one would have, even part-way through
  // windows searched again; without it a backtracking search goes on from
  // the kept set with every backtrack left.
  void resume(const std::vector<std::vector<ControlWindow>>& kept, const Progress& progress = Progress::none(),
              const std::vector<WindowScoring>& saved = {}, const SearchBacktrackRecord& record = {});
  // What a checkpoint needs beside keptPaths() for resume() to go on exactly
  // (empty when the search does not backtrack).
  SearchBacktrackRecord backtrackRecord() const;
  const std::vector<WindowReport>& reports() const { return reports_; }
  int64_t samplesEvaluated() const { return samplesEvaluated_; }
  int32_t backtracksUsed() const { return backtracks_; }

 private:
  struct Node {
    SearchState state;
    std::vector<ControlWindow> path;
    double cost = 0;
  };
  SamconProblem problem_;
  std::unique_ptr<SampleEvaluator> evaluator_;
  std::vector<Node> kept_;
  std::vector<WindowReport> reports_;
  int32_t done_ = 0;
  bool failed_ = false;
  int64_t samplesEvaluated_ = 0;
  // Backtracking: the kept sets after the last windows (by windows done),
  // how often each window was searched, and the window that sent the search
  // back with what it had found.
  struct Pending {
    int32_t window = 0;
    std::vector<Node> kept;
    WindowReport report;
  };
  std::vector<std::vector<Node>> history_;  // [windows done] (only the last historyDepth() + 1 filled)
  std::vector<int32_t> attempts_;
  std::vector<Pending> pending_;
  int32_t backtracks_ = 0;
  int32_t lastFrom_ = -1, lastTo_ = 0;      // the last backtrack: the window that sent the search back, where to
  // The furthest good kept set found (best cost at most backtrackAbove) and its windows done.
  std::vector<Node> furthest_;
  int32_t furthestDone_ = 0;
  void noteGood();
  void forgetHistoryOutsideReach();
  int32_t historyDepth() const;
  void remember();
  bool goBack(int32_t window, std::vector<Node>& kept, WindowReport& report);  // takes `kept` when it goes back
  // The end states of `paths` (their shared beginnings simulated once), each
  // window's cost checked against the one saved; with the best sample's terms.
  struct Replayed {
    Node node;
    CostTerms terms;
  };
  std::vector<Replayed> replay(const std::vector<std::vector<ControlWindow>>& paths, const Progress& progress,
                               const std::vector<WindowScoring>& saved);
};

// Where a round of samples is drawn: per link the mean target offset
// (rotation vector in the initial target's frame; a hinge uses its axis
// component), the spread, the duration scale's centre and half range, and
// the start states the samples take in turn.
struct SampleDistribution {
  std::vector<Vec3> mean;         // per link (empty: zero)
  double noise = 0.1;             // rad
  double scaleCentre = 1, scaleRange = 0.2;
  std::vector<int32_t> parents;   // sample i starts from parents[i % size]
  int32_t attempt = 0;            // the window searched again after backtracking: other random streams
};

// Random target offsets and durations of window `window`'s first round of
// samples (around the initial targets, from all `parents` start states);
// `attempt` > 0: the window searched again (backtracking), `count` samples.
std::vector<SampleTask> drawSamples(const SamconProblem& problem, int32_t window, int32_t parents, int32_t attempt = 0,
                                    int32_t count = -1);
// `count` samples of round `round` from `distribution`.
std::vector<SampleTask> drawSamples(const SamconProblem& problem, int32_t window, int32_t round, int32_t count,
                                    const SampleDistribution& distribution);
// The next round's distribution: the mean offset and duration of `elite`,
// spreads shrunk by the options' factor `round` times, their start states.
SampleDistribution refinedDistribution(const SamconProblem& problem, int32_t window, int32_t round,
                                       const std::vector<const SampleTask*>& elite);

}  // namespace sinew::control
