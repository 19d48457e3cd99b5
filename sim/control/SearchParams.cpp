#include "control/SearchParams.h"

#include "core/Error.h"

namespace sinew::control {

namespace {

// Where each parameter lives in an OptimizeSpec: a real or a count.
struct Slot {
  double* real = nullptr;
  int* count = nullptr;
};
Slot slot(OptimizeSpec& s, const std::string& name) {
  SamconOptions& o = s.samcon;
  if (name == "samples") return {nullptr, &o.samples};
  if (name == "keep") return {nullptr, &o.keep};
  if (name == "rounds") return {nullptr, &o.rounds};
  if (name == "window") return {&o.window, nullptr};
  if (name == "noise") return {&o.noise, nullptr};
  if (name == "time-scale-range") return {&o.timeScaleRange, nullptr};
  if (name == "time-scale-weight") return {&o.timeScaleWeight, nullptr};
  if (name == "pd-frequency") return {&s.pdFrequency, nullptr};
  if (name == "stance-angle") return {&s.stanceAngle, nullptr};
  if (name == "step") return {&s.step, nullptr};
  if (name == "settle") return {&s.settle, nullptr};
  if (name == "backtracks") return {nullptr, &o.backtracks};
  if (name == "backtrack-above") return {&o.backtrackAbove, nullptr};
  if (name == "backtrack-windows") return {nullptr, &o.backtrackWindows};
  if (name == "backtrack-samples") return {&o.backtrackSamples, nullptr};
  if (name == "score-shove") return {&o.scoreShove, nullptr};
  if (name == "tangent-weight") return {&o.tangentWeight, nullptr};
  throw InputError(name, "is not a parameter of the controller search");
}

}  // namespace

const std::vector<ParamSpec>& searchParams() {
  static const std::vector<ParamSpec> table = [] {
    const SamconOptions o;
    const OptimizeSpec s;
    return std::vector<ParamSpec>{
        {"samples", "", double(o.samples), 1, 1e6, true, "Samples per control window"},
        {"keep", "", double(o.keep), 1, 1e4, true, "Best states kept per window"},
        {"rounds", "", double(o.rounds), 1, 100, true,
         "Refinement rounds per window: the samples are split into rounds, each later one drawn around the best so far "
         "with less noise (1: a single draw, as in the paper)"},
        {"window", "s", o.window, 0.02, 1.0, false, "Control window length"},
        {"noise", "rad", o.noise, 0, 3, false, "Target noise per degree of freedom"},
        {"time-scale-range", "", o.timeScaleRange, 0, 0.85, false,
         "With time scaling on, each window's duration is drawn within 1 +- this times the reference's (Liu et al. "
         "2013, Section 5.2; a heavy or weak character may need its windows slower)"},
        {"time-scale-weight", "", o.timeScaleWeight, 0, 100, false,
         "Cost per (ln of a window's time scale)^2, so that a window is not shortened only because a shorter window "
         "leaves less time to drift (0: free timing within the range)"},
        {"pd-frequency", "Hz", s.pdFrequency, 0.1, 99, false, "PD servo natural frequency"},
        {"stance-angle", "rad", s.stanceAngle, 0, 1, false,
         "Leg servos stiff enough to carry the body with about this error (0: gains from the limbs' inertia alone, as "
         "in the paper)"},
        {"step", "s", s.step, 0, kMaxControllerStep, false,
         "Time step of the search and of the controller it makes, at least 0.0001 s (0: the project's Liu 2013 step, "
         "0.0005 s by default; the masses and the sticking friction are made stable for it)"},
        {"settle", "s", s.settle, 0, 10, false,
         "A standing tail searched after the segment: the character's rest pose, turned to the last heading, placed over "
         "the last frame's feet and leaned until its centre of mass is over them, blended into over half this time and "
         "held still for the rest, so that the controller ends at rest in a stance it can hold (0: none)"},
        {"backtracks", "", double(o.backtracks), 0, 1e4, true,
         "How many times the search may go back and search earlier windows again when a window goes badly (0: never, "
         "as in the paper: a window every sample falls in ends the search)"},
        {"backtrack-above", "", o.backtrackAbove, 0, 1e6, false,
         "A window whose best cost is above this sends the search back (0: only a window every sample falls in)"},
        {"backtrack-windows", "", double(o.backtrackWindows), 0, 100, true,
         "How many windows before the one that went badly are searched again (0: that window only); a window that "
         "goes badly again before the search got past it goes this many further back each time, up to 4 times as many"},
        {"backtrack-samples", "", o.backtrackSamples, 0.01, 100, false,
         "Samples of a window searched again, as a multiple of --samples"},
        {"score-shove", "m/s", o.scoreShove, 0, 10, false,
         "Each sample is also simulated with the whole body shoved by this speed at its window's start (a direction "
         "drawn per sample) and costs the mean of both runs, so that the search prefers paths a push does not knock "
         "over; twice the simulation per sample (0: off, as in the paper)"},
        {"tangent-weight", "", o.tangentWeight, 0, 1, false,
         "Each sample also runs a twin a tiny difference away, carried along the kept path, and costs this weight times "
         "ln of how much the difference grew over its window, so that the search prefers paths that damp small "
         "differences (which otherwise grow into a fall after a push before a take-off); twice the simulation per "
         "sample (0: off, as in the paper; on the jump it helped one search of four and derailed three: "
         "docs/PERFORMANCE.md)"}};
  }();
  return table;
}

double searchParam(const OptimizeSpec& spec, const std::string& name) {
  OptimizeSpec copy = spec;  // slot() hands out pointers into a spec it may change
  const Slot v = slot(copy, name);
  return v.count ? double(*v.count) : *v.real;
}

void setSearchParam(OptimizeSpec& spec, const std::string& name, double value) {
  const Slot v = slot(spec, name);
  if (v.count) *v.count = int(value);
  else *v.real = value;
}

void checkSearchParams(const OptimizeSpec& spec) {
  for (const ParamSpec& p : searchParams()) {
    try {
      checkParam(p, searchParam(spec, p.name));
    } catch (const InputError& e) {
      throw InputError("--" + e.file(), e.problem());
    }
  }
  if (spec.step > 0 && spec.step < kMinControllerStep)
    throw InputError("--step", "must be 0 (the project's step) or at least " + std::to_string(kMinControllerStep) + " s");
}

}  // namespace sinew::control
