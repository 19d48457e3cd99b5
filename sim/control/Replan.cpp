#include "control/Replan.h"

#include "control/Cost.h"
#include "control/Optimize.h"
#include "core/Error.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

namespace sinew::control {

namespace {

// The task that plays window `index` of `problem` as `w` (its targets and duration).
SampleTask playTask(const SamconProblem& problem, int32_t index, const ControlWindow& w) {
  SampleTask t;
  t.window = index;
  t.steps = std::max(1, int32_t(std::lround(w.duration / problem.settings.dt)));
  t.scale = t.steps * problem.settings.dt / w.referenceDuration;
  t.targets = w.targets;
  return t;
}

double referenceEnd(const ControlWindow& w) { return w.referenceStart + w.referenceDuration; }

FeedbackPolicy slicePolicy(const FeedbackPolicy& p, size_t from, size_t count) {
  FeedbackPolicy s = p;
  if (p.empty()) return s;
  s.gains.assign(p.gains.begin() + std::ptrdiff_t(from), p.gains.begin() + std::ptrdiff_t(from + count));
  if (!p.swingGains.empty())
    s.swingGains.assign(p.swingGains.begin() + std::ptrdiff_t(from), p.swingGains.begin() + std::ptrdiff_t(from + count));
  return s;
}

// `clip` with its root moved by `offset` (m) in every frame.
MotionClip shiftedHorizontally(MotionClip clip, const Vec3& offset) {
  if (clip.joints.empty() || !(clip.unitScale > 0)) return clip;
  ClipJoint& root = clip.joints[0];
  const Vec3 d = offset / clip.unitScale;
  bool moved[3] = {false, false, false};
  const int32_t stride = clip.channelCount();
  for (size_t c = 0; c < root.channels.size(); ++c) {
    const int axis = root.channels[c] == Channel::Xposition ? 0 : root.channels[c] == Channel::Yposition ? 1
                   : root.channels[c] == Channel::Zposition ? 2 : -1;
    if (axis < 0 || d[axis] == 0) continue;
    moved[axis] = true;
    for (int32_t f = 0; f < clip.frameCount; ++f) clip.values[size_t(f) * size_t(stride) + size_t(root.firstChannel) + c] += d[axis];
  }
  // Position channels replace the offset; where there are none, the offset moves.
  for (int axis = 0; axis < 3; ++axis)
    if (!moved[axis]) root.offset[axis] += d[axis];
  return clip;
}

}  // namespace

int32_t windowStartingAt(const ControllerObject& controller, double t) {
  double start = 0;
  for (size_t k = 0; k < controller.windows.size(); ++k) {
    if (start + 1e-9 >= t) return int32_t(k);
    start += controller.windows[k].duration;
  }
  if (controller.windows.empty()) return 0;
  const double after = std::ceil((t - start) / controller.windows.back().referenceDuration - 1e-9);
  return int32_t(controller.windows.size()) + int32_t(after > 1e9 ? 1e9 : after >= 0 ? after : 0);  // NaN: 0
}

ReplanResult replanPlayback(const Project& project, const ControllerObject& controller, const ReplanOptions& o,
                            const Progress& progress, const std::function<void(const ReplanWindow&)>& onWindow) {
  if (o.samples < 1 || o.keep < 1 || o.keep > o.samples || o.horizon < 1 || o.from < 0 || !(o.hold >= 0) ||
      !(o.hold <= 1e4) || !o.shove.allFinite() || !(o.shove.norm() <= kMaxShoveSpeed) || !(o.above >= 0) || !(o.above < 1e6) ||
      !(o.reanchor >= 0 && o.reanchor <= 1))
    throw InputError("re-planning", "needs samples >= keep >= 1, a horizon >= 1, a first window >= 0, a hold of "
                                    "0-10,000 s, a finite shove of at most 100 m/s, a threshold of 0 or more and a re-anchoring fraction of 0-1");
  if (!project.skeleton) throw InputError(project.name, "the project has no skeleton");
  controller.validate(project.name, project.skeleton->skeleton.size());
  if (controller.windows.empty()) throw InputError(controller.name, "the controller has no windows");

  // The plan: the controller's windows, then the hold's (the last pose).
  std::vector<ControlWindow> plan = controller.windows;
  FeedbackPolicy feedback = controller.feedback;
  {
    const ControlWindow last = controller.windows.back();
    const int holds = int(std::ceil(o.hold / last.referenceDuration - 1e-9));
    for (int i = 0; i < holds; ++i) {
      ControlWindow w = last;
      w.referenceStart = last.referenceStart + (i + 1) * last.referenceDuration;
      w.duration = w.referenceDuration;  // its cost: the last window's, what holding should keep
      plan.push_back(w);
      if (!feedback.empty()) {
        feedback.gains.push_back(feedback.gains.back());
        if (!feedback.swingGains.empty()) feedback.swingGains.push_back(feedback.swingGains.back());
      }
    }
  }

  // The search's problem for the whole plan, as `optimize` set it up.
  SamconProblem base;
  base.model = liu2013::buildLiu2013Model(
      project, controllerModelOptions(project, controller.pdFrequency, controller.stanceAngle, controller.step));
  liu2013::applyScene(project.simulation, base.settings);
  if (controller.step > 0) base.settings.dt = controller.step;
  base.settings.threads = 1;
  base.reference = std::make_shared<ReferenceMotion>(*base.model, controller.reference);
  base.windows = plan;
  base.start = settledStart(base.model, base.settings, project.skeleton->skeleton, *base.reference);
  if (!controller.settings.empty()) base.options = specFromJson(controller.settings, controller.name).samcon;
  base.options.samples = o.samples;
  base.options.keep = o.keep;
  base.options.threads = o.threads;
  base.options.backtracks = 0;
  base.options.scoreShove = 0;
  base.options.tangentWeight = 0;
  base.options.rounds = std::min(base.options.rounds, o.samples);
  base.feedback = feedback;

  const size_t n = plan.size();
  const ReferenceMotion& ref = *base.reference;
  SampleRunner runner(base);
  ReplanResult result;
  result.played = controller;
  result.played.windows.clear();
  result.played.feedback = feedback;
  result.played.searchKept.clear();
  result.played.searchBacktrack = {};
  result.played.shove = {};  // the shove this run gets, recorded when it comes
  liu2013::Liu2013State state = base.start;
  // The rest of the path last played from (ReplanOptions::carry): its
  // window i is the plan's window k + i.
  std::vector<ControlWindow> carried;
  for (size_t k = 0; k < n; ++k) {
    progress.update(double(k) / double(n), "re-planning");
    const auto began = std::chrono::steady_clock::now();
    if (int(k) == o.shoveWindow) {
      result.played.shove = {state.time, o.shove};
      liu2013::addRigidVelocity(*base.model, state, o.shove, Vec3::Zero(), Vec3::Zero());
    }
    ReplanWindow report;
    report.window = int32_t(k);
    ControlWindow played = plan[k];
    bool playOwn = true;  // `played` is the plan's own window k
    std::optional<std::pair<liu2013::Liu2013State, double>> ownEnd;  // window k's own end and cost, once run
    std::vector<ControlWindow> next;  // what is carried to window k + 1
    if (int(k) >= o.from) {
      const size_t h = std::min(size_t(o.horizon), n - k);
      // The plan's own windows over the horizon, from the live state.
      SearchState s{state, nullptr};
      for (size_t i = 0; i < h && report.nominalCost < 1e30; ++i) {
        report.nominalCost = runner.run(s, playTask(base, int32_t(k + i), plan[k + i]), referenceEnd(plan[k + i])).cost.total;
        s = runner.end();
        if (i == 0) ownEnd = {s.character, report.nominalCost};
        ++result.samples;
      }
      report.anchoredCost = report.nominalCost;
      report.savedCost = plan[k + h - 1].cost;
      report.searchedCost = 1e30;
      if (!(o.above > 0 && report.nominalCost <= o.above * report.savedCost)) {
        report.searched = true;
        // A small search over the same windows from the same state (against
        // the reference moved toward where the character is, reanchor).
        SamconProblem slice = base;
        slice.windows.assign(plan.begin() + std::ptrdiff_t(k), plan.begin() + std::ptrdiff_t(k + h));
        slice.start = state;
        slice.feedback = slicePolicy(feedback, k, h);
        slice.options.seed = o.seed * 0x9e3779b97f4a7c15ull + k;
        if (o.reanchor > 0) {
          const Vec3 off = o.reanchor * (ref.features(state.skeleton).rootPosition -
                                         ref.features(plan[k].referenceStart).rootPosition);
          slice.reference = std::make_shared<ReferenceMotion>(
              *base.model, shiftedHorizontally(controller.reference, Vec3(off.x(), 0, off.z())));
        }
        // `windows` over the horizon from the live state, where the search
        // looks (the feedback's rounding differs a little against a moved
        // reference, so the own windows are run again there).
        SampleRunner look(slice);
        auto pathCost = [&](const std::vector<ControlWindow>& windows) {
          SearchState a{state, nullptr};
          double c = 0;
          for (size_t i = 0; i < h && c < 1e30; ++i) {
            c = look.run(a, playTask(slice, int32_t(i), windows[i]), referenceEnd(windows[i])).cost.total;
            a = look.end();
            ++result.samples;
          }
          return c;
        };
        if (o.reanchor > 0) report.anchoredCost = pathCost(slice.windows);
        double planCost = report.anchoredCost;
        if (o.carry && !carried.empty()) {
          std::vector<ControlWindow> path(carried.begin(), carried.begin() + std::ptrdiff_t(std::min(h, carried.size())));
          for (size_t i = path.size(); i < h; ++i) path.push_back(plan[k + i]);
          report.carriedCost = pathCost(path);
          if (report.carriedCost < planCost) {
            report.carried = true;
            planCost = report.carriedCost;
            slice.windows = std::move(path);  // the search samples around it
          }
        }
        std::vector<ControlWindow> planned = slice.windows;
        SamconSearch search(std::move(slice), makeThreadedEvaluator(o.threads));
        while (!search.finished()) search.runWindow(progress.sub(double(k) / double(n), double(k + 1) / double(n)));
        result.samples += search.samplesEvaluated();
        if (!search.failed()) report.searchedCost = search.reports().back().best.total;
        if (report.searchedCost < planCost) {
          planned = search.best();
          report.replanned = true;
        }
        if (report.replanned || report.carried) {
          played = planned.front();
          playOwn = false;
          if (o.carry) next.assign(planned.begin() + 1, planned.end());
        }
      }
    }
    carried = std::move(next);
    double cost = 0;
    if (playOwn && ownEnd) {
      state = std::move(ownEnd->first);
      cost = ownEnd->second;
    } else {
      cost = runner.run({state, nullptr}, playTask(base, int32_t(k), played), referenceEnd(played)).cost.total;
      state = runner.state();
      ++result.samples;
    }
    result.played.windows.push_back(played);
    const bool unstable = cost >= 1e30;
    report.endTime = state.time;
    if (unstable) {
      report.tiltDegrees = 180.0;
      report.placeMetres = std::numeric_limits<double>::infinity();
    } else {
      const BodyFeatures now = ref.features(state.skeleton), there = ref.features(referenceEnd(played));
      report.tiltDegrees = tiltDegrees(now, there);
      const Vec3 off = now.rootPosition - there.rootPosition;
      report.placeMetres = std::hypot(off.x(), off.z());
    }
    report.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    result.maxTiltDegrees = std::max(result.maxTiltDegrees, report.tiltDegrees);
    if (result.stayedUp && !(report.tiltDegrees <= kUprightTiltDegrees)) {
      result.stayedUp = false;
      result.fellAt = state.time;
    }
    result.reports.push_back(report);
    if (onWindow) onWindow(report);
    if (unstable || !result.stayedUp) break;  // fallen: nothing more to play
  }
  if (!result.played.feedback.empty()) {
    result.played.feedback.gains.resize(result.played.windows.size());
    if (!result.played.feedback.swingGains.empty()) result.played.feedback.swingGains.resize(result.played.windows.size());
  }
  return result;
}

}  // namespace sinew::control
