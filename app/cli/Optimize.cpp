// sinew-cli optimize: build a controller for a segment of a motion clip by
// sampling (control/Samcon.h), save it in a project and report every window.
#include "Commands.h"
#include "Subcommands.h"
#include "MpiEvaluator.h"

#include "control/Feedback.h"
#include "control/Optimize.h"
#include "control/SearchParams.h"
#include "core/Error.h"
#include "io/Bvh.h"
#include "io/FileUtil.h"
#include "io/ProjectFile.h"

#include <memory>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <iomanip>
#include <initializer_list>
#include <iostream>
#include <optional>
#include <sstream>
#include <thread>

namespace sinew::cli {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// Where and why a search that cannot go on stopped: "fell at t = 1.40-1.50 s
// of the clip, in window 15 of 30: every sample fell; the best: its root
// sank ... (cost terms: pose ...)".
std::string failedWindowText(const control::SamconSearch& search, double clipStart) {
  const int32_t w = search.windowsDone();  // the failed window (not kept)
  const ControlWindow& window = search.problem().windows[size_t(w)];
  const control::CostTerms& best = search.reports().back().best;
  std::ostringstream o;
  o << std::fixed << std::setprecision(2) << "fell at t = " << clipStart + window.referenceStart << "-"
    << clipStart + window.referenceStart + window.referenceDuration << " s of the clip, in window " << w + 1 << " of "
    << search.windowCount() << ": every sample fell; the best: " << control::fallReason(best) << std::setprecision(3)
    << " (cost terms: pose " << best.pose << ", root " << best.root << ", position " << best.position
    << ", end effectors " << best.endEffector << ", balance " << best.balance << ", velocity " << best.velocity << ")";
  return o.str();
}

std::atomic<bool> gInterrupted{false};
extern "C" void onInterrupt(int) { gInterrupted = true; }

std::string segmentName(const std::string& clip, double start, double end) {
  std::ostringstream s;
  s << clip << " " << std::setprecision(3) << start << "-" << end << " s";
  return s.str();
}

std::string formatLimit(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

std::string formatSeconds(double v) {
  std::ostringstream s;
  s << std::setprecision(4) << v;
  return s.str();
}

// "key=1,other=0.5" (option `option`): each named value set over what `keys`
// point at; values must be finite, at most `limit` in size (costs and gains
// beyond it overflow), and >= 0 unless `negative`.
void parseKeyValues(const std::string& option, const std::string& text,
                    std::initializer_list<std::pair<const char*, double*>> keys, bool negative, double limit) {
  std::string names;
  for (const auto& [name, value] : keys) names += (names.empty() ? "" : ", ") + std::string(name);
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const size_t eq = item.find('=');
    const std::string key = item.substr(0, eq);
    double* slot = nullptr;
    for (const auto& [name, value] : keys)
      if (key == name) slot = value;
    if (eq == std::string::npos || !slot) throw InputError(option, "'" + item + "' is not KEY=VALUE with KEY one of " + names);
    const std::string number = item.substr(eq + 1);
    char* end = nullptr;
    const double v = std::strtod(number.c_str(), &end);
    if (number.empty() || *end != '\0' || !std::isfinite(v) || (!negative && v < 0) || std::abs(v) > limit)
      throw InputError(option, "the value of " + key + " must be a number " +
                                   (negative ? "between -" + formatLimit(limit) + " and " : "from 0 to ") + formatLimit(limit) +
                                   ", not '" + number + "'");
    *slot = v;
  }
}

// "pose=1,velocity=0.5": the named weights over the defaults.
control::CostWeights parseCostWeights(const std::string& text) {
  control::CostWeights w;
  parseKeyValues("--weights", text,
                 {{"pose", &w.pose}, {"root", &w.root}, {"position", &w.position}, {"endEffector", &w.endEffector},
                  {"balance", &w.balance}, {"velocity", &w.velocity}},
                 false, 1e6);
  return w;
}

// "ankle_tilt=3,swing_hip_balance=-0.5": the named feedback gains over the defaults.
control::BalanceGains parseBalanceGains(const std::string& text) {
  control::BalanceGains g = control::defaultBalanceGains();
  parseKeyValues("--gains", text,
                 {{"ankle_tilt", &g.ankleTilt}, {"ankle_balance", &g.ankleBalance}, {"ankle_velocity", &g.ankleVelocity},
                  {"hip_tilt", &g.hipTilt}, {"hip_balance", &g.hipBalance}, {"hip_velocity", &g.hipVelocity},
                  {"swing_hip_balance", &g.swingHipBalance}, {"swing_hip_velocity", &g.swingHipVelocity}},
                 true, 1e3);
  return g;
}

// The settings (specToJson) of the saved search against this command line's:
// "" when they agree, else what differs ("samples: saved 8, now 6; ..."),
// leaving out the keys `ignored`.
std::string settingsDiffer(const std::string& saved, const std::string& now, const std::vector<std::string>& ignored) {
  json a, b;
  try {
    a = json::parse(saved);
    b = json::parse(now);
  } catch (const json::exception&) {
    return "the saved settings cannot be read";
  }
  for (const std::string& key : ignored) {
    a.erase(key);
    b.erase(key);
  }
  std::string diff;
  for (const auto& [key, value] : b.items())
    if (!a.contains(key) || a.at(key) != value)
      diff += (diff.empty() ? "" : "; ") + key + ": saved " + (a.contains(key) ? a.at(key).dump() : "none") + ", now " + value.dump();
  for (const auto& [key, value] : a.items())
    if (!b.contains(key)) diff += (diff.empty() ? "" : "; ") + key + ": saved " + value.dump() + ", now none";
  return diff;
}

// The saved search that --resume goes on from: the output's controller
// `name`, made with the same settings and not finished.
const ControllerObject& savedSearch(const Project& saved, const std::string& file, const std::string& name,
                                    const std::string& settings, int32_t windows) {
  const ControllerObject* c = nullptr;
  for (const ControllerObject& o : saved.controllers)
    if (o.name == name) c = &o;
  if (!c) throw InputError(file, "has no controller '" + name + "' to resume (--resume goes on from the output of an interrupted run)");
  if (c->searchKept.empty())
    throw InputError(file, "controller '" + name + "' " +
                               (int32_t(c->windows.size()) == windows ? "is finished (" + std::to_string(windows) + " of " + std::to_string(windows) + " windows): nothing to resume"
                                                                       : "has no saved search state to resume from"));
  // A redone search's record of earlier sampling (kept, not compared).
  const std::string diff = settingsDiffer(c->settings, settings, {control::kEarlierSamplingKey});
  if (!diff.empty())
    throw InputError("--resume", "controller '" + name + "' in " + file + " was searched with other settings (" + diff +
                                     "): give the command that started it");
  return *c;
}

// The saved controller `name` that --redo-from goes back into: made with the
// same settings but for its sampling (control::samplingSettingKeys).
const ControllerObject& redoneSearch(const Project& saved, const std::string& file, const std::string& name,
                                     const std::string& settings) {
  for (const ControllerObject& c : saved.controllers)
    if (c.name == name) {
      const std::string diff = settingsDiffer(c.settings, settings, control::samplingSettingKeys());
      if (!diff.empty())
        throw InputError("--redo-from", "controller '" + name + "' in " + file + " was searched with other settings (" +
                                            diff + "): only --seed, --samples, --keep, --rounds, --noise, --weights, the backtracking, --score-shove and --tangent-weight may change");
      return c;
    }
  throw InputError(file, "has no controller '" + name + "' to redo (--redo-from goes back into a saved search of that name)");
}

json windowJson(const control::WindowReport& r) {
  return {{"window", r.window},
          {"cost", r.best.total},
          {"pose_error", r.best.pose},
          {"root_orientation_error", r.best.root},
          {"root_position_error", r.best.position},
          {"end_effector_error", r.best.endEffector},
          {"balance_error", r.best.balance},
          {"com_velocity_error", r.best.velocity},
          {"fell", r.best.fallen},
          {"samples", r.samples},
          {"fallen_samples", r.fallen},
          {"time_scale", r.timeScale},
          {"wall_seconds", r.wallSeconds},
          {"attempt", r.attempt},
          {"earlier_kept", r.earlierKept},
          {"back_to", r.backTo},
          {"furthest_good", r.furthestGood},
          {"shoved_cost", r.shovedCost},
          {"amplification", r.amplification}};
}

// What backtracking did after a window (empty: nothing).
std::string backtrackText(const control::WindowReport& r) {
  std::ostringstream o;
  if (r.earlierKept) o << "  its earlier search was better and goes on\n";
  if (r.furthestGood)
    o << "  " << (r.best.fallen ? std::string("every sample fell") : "above --backtrack-above")
      << ", out of backtracks: going on from an earlier search's kept set after window " << r.backTo
      << ", the furthest that stayed under --backtrack-above\n";
  else if (r.backTo > r.window)
    o << "  every sample fell again: going on from the earlier search of window " << r.backTo << "\n";
  else if (r.backTo >= 0)
    o << "  " << (r.best.fallen ? std::string("every sample fell") : "above --backtrack-above") << ": back to window "
      << r.backTo + 1 << ", searching windows " << r.backTo + 1 << "-" << r.window + 1 << " again with fresh samples\n";
  return o.str();
}

}  // namespace

ControllerObject& putController(Project& project, ControllerObject controller) {
  for (ControllerObject& c : project.controllers)
    if (c.name == controller.name) {
      controller.id = c.id;
      return c = std::move(controller);
    }
  controller.id = project.allocateId();
  project.controllers.push_back(std::move(controller));
  return project.controllers.back();
}

int optimize(const OptimizeArgs& args) {
  // Under mpirun every rank runs this whole command (SPMD); rank 0 alone
  // prints and writes.
  std::unique_ptr<MpiSession> mpi;
  if (launchedByMpirun()) mpi = std::make_unique<MpiSession>();
  const bool root = !mpi || mpi->rank == 0;
  std::ostringstream muted;
  std::streambuf* const coutBuffer = std::cout.rdbuf();
  if (!root) std::cout.rdbuf(muted.rdbuf());
  struct Restore {
    std::streambuf* b;
    ~Restore() { std::cout.rdbuf(b); }
  } restore{coutBuffer};
  if (!root) std::cerr.setstate(std::ios::failbit);  // one message per failure, from rank 0
  return guarded([&]() -> int {
    const std::string clipFile = fs::exists(args.clip) ? args.clip : std::string();
    checkOutputPath(args.output, {args.project, clipFile}, args.project);
    checkOutputPath(args.statsJson, {args.project, clipFile, args.output});
    if (args.resume && !fs::exists(args.output))
      throw InputError(args.output, "does not exist: there is no search to resume (--resume goes on from the output of an interrupted run)");
    const bool redo = args.redoFrom >= 0;
    if (redo && !fs::exists(args.output))
      throw InputError(args.output, "does not exist: there is no search to redo (--redo-from goes back into a saved search)");
    if (root && args.output != args.project && fs::exists(args.output) && !args.overwrite && !args.resume && !redo)
      throw InputError(args.output, "exists (pass --overwrite to replace it, or --resume to go on with its search)");
    if (!(args.checkpointSeconds >= 0)) throw InputError("--checkpoint", "must be a number of seconds >= 0");
    Project project = loadProject(args.project);

    // The clip: one of the project's, or a BVH file added to the project.
    control::OptimizeSpec spec;
    spec.clip = args.clip;
    bool inProject = false, fromFile = false;
    for (const ClipObject& c : project.clips) inProject = inProject || c.clip.name == args.clip;
    if (!inProject && fs::path(args.clip).extension() == ".bvh" && fs::exists(args.clip)) {
      ClipObject c;
      c.id = project.allocateId();
      c.source = args.clip;
      c.clip = readBvh(args.clip);
      c.clip.name = fs::path(args.clip).stem().string();
      for (const ClipObject& o : project.clips)
        if (o.clip.name == c.clip.name) throw InputError(args.clip, "the project already has a different clip called '" + c.clip.name + "'");
      spec.clip = c.clip.name;
      project.clips.push_back(std::move(c));
      fromFile = true;
    }
    spec.start = args.start;
    spec.end = args.end;
    for (const auto& [name, value] : args.search) {
      for (const ParamSpec& p : control::searchParams())
        if (p.name == name) try {
            checkParam(p, value);
          } catch (const InputError& e) {
            throw InputError("--" + name, e.problem());
          }
      control::setSearchParam(spec, name, value);
    }
    control::SamconOptions& o = spec.samcon;
    o.threads = args.threads;
    o.seed = args.seed;
    o.timeScaling = args.timeScaling == "on";
    o.idInit = args.idInit == "on";
    if (!args.weights.empty()) o.weights = parseCostWeights(args.weights);
    if (!args.gains.empty()) o.balance = parseBalanceGains(args.gains);
    if (args.end >= 0 && !(args.end > args.start))
      throw InputError("--end", "the segment must end after it starts (--start " + std::to_string(args.start) + ")");
    o.feedback = args.feedback == "on";
    if (args.fitRollouts > 0 && !o.feedback) throw InputError("--fit-feedback", "fitting feedback gains needs --feedback on");

    const int threads = mpi ? 1 : args.threads > 0 ? args.threads : std::max(1, int(std::thread::hardware_concurrency()));
    const auto t0 = std::chrono::steady_clock::now();
    control::PreparedOptimization prepared = control::prepareOptimization(project, spec);
    const double prepareSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (const std::string& note : prepared.notes) std::cout << "note: " << note << "\n";
    const double length = prepared.retarget.segment();  // of the clip (the standing tail comes after it)
    std::cout << "optimizing '" << spec.clip << "' " << spec.start << "-" << spec.start + length << " s";
    if (prepared.retarget.tailFrames > 0)
      std::cout << " and " << std::setprecision(3) << prepared.retarget.tail() << std::setprecision(6)
                << " s of standing tail after it";
    std::cout << ": "
              << prepared.problem.windows.size() << " windows, " << o.samples << " samples per window, keeping "
              << o.keep << (o.rounds > 1 ? " in " + std::to_string(o.rounds) + " rounds" : std::string()) << ", " << (mpi ? std::to_string(mpi->size) + " MPI rank(s)" : std::to_string(threads) + " thread(s)") << ", seed " << o.seed << ", time scaling "
              << args.timeScaling << ", inverse dynamics " << args.idInit << ", balance feedback " << args.feedback << std::endl;

    control::SamconSearch search(prepared.problem, mpi ? makeMpiEvaluator(*mpi) : control::makeThreadedEvaluator(threads));
    const std::string name = args.name.empty() ? segmentName(spec.clip, spec.start, spec.start + length) : args.name;
    // A clip read from a BVH file stays in the output unless asked otherwise
    // (the controller carries its retargeted segment; the file can be passed
    // again to search again).
    auto output = [&](Project p) {
      if (fromFile && args.storeClip == "off")
        p.clips.erase(std::find_if(p.clips.begin(), p.clips.end(), [&](const ClipObject& c) { return c.clip.name == spec.clip; }));
      return p;
    };
    gInterrupted = false;
    // Ctrl-C stops after the current sample and keeps the windows done (not
    // under mpirun, whose ranks must finish every window together).
    const auto previous = mpi ? SIG_DFL : std::signal(SIGINT, onInterrupt);
    const Progress progress([](double, std::string_view) {}, &gInterrupted);
    std::string stopped;
    int32_t resumedWindows = 0;
    if (args.resume || redo) {
      const Project saved = args.output == args.project ? project : loadProject(args.output);
      std::vector<std::vector<ControlWindow>> paths;
      SearchBacktrackRecord record;  // a backtracking search's other kept sets and counts
      if (args.resume) {
        const ControllerObject& c = savedSearch(saved, args.output, name, control::specToJson(spec), search.windowCount());
        record = c.searchBacktrack;
        std::cout << "resuming '" << name << "' after window " << c.windows.size() << "/" << search.windowCount()
                  << ": replaying its " << c.searchKept.size() << " kept path(s)";
        if (!record.empty())
          std::cout << " and the " << record.remembered.size() + record.pending.size()
                    << " other kept set(s) its backtracking needs (" << record.used << " backtrack(s) used)";
        std::cout << std::endl;
        paths = c.searchKept;
        spec.earlier = control::specFromJson(c.settings, args.output).earlier;
      } else {
        const double end = spec.start + length;
        if (!(args.redoFrom > spec.start && args.redoFrom < end))
          throw InputError("--redo-from", "must be inside the segment (" + formatSeconds(spec.start) + "-" +
                                              formatSeconds(end) + " s of the clip)");
        const ControllerObject& c = redoneSearch(saved, args.output, name, control::specToJson(spec));
        paths = control::pathsBefore(c, args.redoFrom - spec.start);
        if (paths.empty())
          throw InputError("--redo-from", "no window of controller '" + name + "' ends by " + formatSeconds(args.redoFrom) +
                                              " s of the clip" +
                                              (c.windows.empty() ? std::string(" (it has none)")
                                                                 : " (the first ends at " +
                                                                       formatSeconds(spec.start + c.windows.front().referenceDuration) +
                                                                       " s)") +
                                              ": search it anew without --redo-from");
        spec.earlier = control::earlierSampling(control::specFromJson(c.settings, args.output), int32_t(paths.front().size()));
        std::cout << "redoing '" << name << "' from window " << paths.front().size() + 1 << "/" << search.windowCount()
                  << " (" << formatSeconds(spec.start + paths.front().back().referenceStart + paths.front().back().referenceDuration)
                  << " s of the clip; " << c.windows.size() << " saved): replaying " << paths.size()
                  << " kept path(s), then seed " << o.seed << ", " << o.samples << " samples per window" << std::endl;
      }
      try {
        search.resume(paths, progress, control::windowScoring(spec, int32_t(paths.front().size())), record);
        resumedWindows = search.windowsDone();
      } catch (const Cancelled&) {
        stopped = "interrupted";
      }
    }
    auto controllerObject = [&](const Project& p) { return control::makeControllerObject(p, spec, prepared, search, name); };
    json windows = json::array();
    const auto searchStart = std::chrono::steady_clock::now();
    auto lastCheckpoint = searchStart;
    while (!search.finished() && stopped.empty()) {
      try {
        const control::WindowReport r = search.runWindow(progress);
        windows.push_back(windowJson(r));
        const auto now = std::chrono::steady_clock::now();
        const double elapsed = std::chrono::duration<double>(now - searchStart).count();
        const double left =
            elapsed / std::max(1, search.windowsDone() - resumedWindows) * (search.windowCount() - search.windowsDone());
        std::cout << "window " << r.window + 1 << "/" << search.windowCount() << ": cost " << r.best.total
                  << " (pose " << r.best.pose << ", root " << r.best.root << ", position " << r.best.position
                  << ", end effectors " << r.best.endEffector << ", balance " << r.best.balance << ")"
                  << (o.scoreShove > 0 ? ", shoved run's cost " + formatLimit(r.shovedCost) : std::string())
                  << (o.tangentWeight > 0 ? ", twin grew " + formatLimit(r.amplification) + "x" : std::string())
                  << ", time scale "
                  << r.timeScale << ", " << r.fallen << "/" << r.samples << " samples fell, "
                  << r.samples / std::max(r.wallSeconds, 1e-9) << " samples/s, about " << std::lround(left)
                  << " s left" << std::endl
                  << backtrackText(r) << std::flush;
        // A checkpoint: the output with the search so far (what --resume goes on from).
        if (root && !search.finished() && std::chrono::duration<double>(now - lastCheckpoint).count() >= args.checkpointSeconds) {
          Project p = output(project);
          putController(p, controllerObject(p));
          saveProject(p, args.output);
          lastCheckpoint = std::chrono::steady_clock::now();
          std::cout << "checkpoint: " << search.windowsDone() << "/" << search.windowCount() << " windows saved to "
                    << args.output << std::endl;
        }
      } catch (const Cancelled&) {
        stopped = "interrupted";
        break;
      }
    }
    if (!mpi) std::signal(SIGINT, previous);
    const double searchSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - searchStart).count();
    if (search.failed()) stopped = failedWindowText(search, spec.start);

    json summary = {{"project", args.project},
                    {"output", args.output},
                    {"clip", spec.clip},
                    {"start", spec.start},
                    {"end", spec.start + length},
                    {"windows_total", search.windowCount()},
                    {"windows_done", search.windowsDone()},
                    {"windows_resumed", resumedWindows},
                    {"samples_evaluated", search.samplesEvaluated()},
                    {"backtracks", search.backtracksUsed()},
                    {"threads", threads},
                    {"mpi_ranks", mpi ? mpi->size : 0},
                    {"prepare_seconds", prepareSeconds},
                    {"search_seconds", searchSeconds},
                    {"samples_per_second", double(search.samplesEvaluated()) / std::max(searchSeconds, 1e-9)},
                    {"stopped", stopped},
                    {"settings", json::parse(control::specToJson(spec))},
                    {"redone_from", redo ? json(args.redoFrom) : json(nullptr)},
                    {"windows", windows}};
    if (!root) return int(kOk);  // the other ranks' work is done
    if (search.windowsDone() == 0) {
      if (!args.statsJson.empty()) writeFileAtomic(args.statsJson, summary.dump(2) + "\n");
      throw InputError(spec.clip, stopped.empty() ? "no window was optimized" : "stopped before the first window (" + stopped + ")");
    }

    // The best path so far is the controller (also when stopped early).
    project = output(std::move(project));
    ControllerObject& saved = putController(project, controllerObject(project));

    // Replay it as `simulate --controller` would: the same end state as the search's best.
    liu2013::Settings physics;
    liu2013::applyScene(project.simulation, physics);
    physics.threads = threads;
    control::ControllerRun run = control::prepareControllerRun(project, saved, physics, o.feedback);
    const double dt = run.solver->dt();  // the controller's step
    int64_t steps = 0;
    for (const ControlWindow& w : saved.windows) steps += std::llround(w.duration / dt);
    for (int64_t i = 0; i < steps; ++i) run.solver->step();
    liu2013::Liu2013State replayed = run.solver->state();
    replayed.policyWindow = search.bestState().policyWindow;  // held by the policy, not set by hand
    replayed.policyTargets = search.bestState().policyTargets;
    const bool same = replayed == search.bestState();
    const control::CostTerms end = control::trackingCost(
        run.reference->features(run.solver->state().skeleton),
        run.reference->features(run.policy->referenceTime(run.solver->time() - 0.5 * dt)), o.weights);
    summary["controller"] = name;
    summary["duration"] = saved.duration();
    summary["replay"] = {{"matches_search", same}, {"end_cost", end.total}, {"end_fell", end.fallen},
                         {"end_root_height", run.solver->state().skeleton.rootPosition.y()}};

    // Then the feedback gains fitted from pushed rollouts (the replay above
    // checked the search's own gains).
    if (args.fitRollouts > 0 && stopped.empty()) {
      ControllerObject& target = saved;
      control::FeedbackFitOptions fo;
      fo.rollouts = args.fitRollouts;
      fo.push = args.fitPush;
      fo.threads = threads;
      fo.seed = o.seed;
      std::cout << "fitting the feedback gains from " << fo.rollouts << " rollouts pushed at " << fo.push
                << " m/s (and one unpushed) per candidate" << std::endl;
      const auto f0 = std::chrono::steady_clock::now();
      try {
        const control::FeedbackFitResult fit = control::fitFeedback(project, target, o.balance, fo, progress);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - f0).count();
        auto gainsJson = [](const control::BalanceGains& g) {
          return json{{"ankle_tilt", g.ankleTilt}, {"ankle_balance", g.ankleBalance}, {"ankle_velocity", g.ankleVelocity},
                      {"hip_tilt", g.hipTilt},     {"hip_balance", g.hipBalance},     {"hip_velocity", g.hipVelocity},
                      {"swing_hip_balance", g.swingHipBalance}, {"swing_hip_velocity", g.swingHipVelocity}};
        };
        summary["feedback_fit"] = {{"initial", gainsJson(fit.initial)}, {"fitted", gainsJson(fit.fitted)},
                                   {"initial_score", fit.initialScore}, {"fitted_score", fit.fittedScore},
                                   {"candidates", fit.candidates},      {"rollouts", fit.rollouts},
                                   {"seconds", seconds}};
        std::cout << "feedback fit: mean tracking cost over the pushed rollouts " << fit.initialScore << " -> "
                  << fit.fittedScore << " (" << fit.candidates << " gain sets, " << fit.rollouts << " rollouts, "
                  << seconds << " s); gains ankle " << fit.fitted.ankleTilt << "/" << fit.fitted.ankleBalance << "/"
                  << fit.fitted.ankleVelocity << ", hip " << fit.fitted.hipTilt << "/" << fit.fitted.hipBalance << "/"
                  << fit.fitted.hipVelocity << " (tilt/balance/velocity)" << std::endl;
      } catch (const Cancelled&) {
        stopped = "interrupted while fitting the feedback: the search's gains are kept";
        summary["stopped"] = stopped;
      }
    }

    saveProject(project, args.output);
    if (!args.statsJson.empty()) writeFileAtomic(args.statsJson, summary.dump(2) + "\n");
    std::cout << (stopped.empty() ? "finished" : "stopped (" + stopped + "), kept the windows done") << ": "
              << (resumedWindows > 0 ? (redo ? "redone after " : "resumed after ") + std::to_string(resumedWindows) + ", " : std::string())
              << search.windowsDone() << "/" << search.windowCount() << " windows, " << search.samplesEvaluated()
              << " samples in " << searchSeconds << " s; controller '" << name << "' (" << saved.duration()
              << " s) saved to " << args.output << "; replay " << (same ? "matches" : "DIFFERS FROM")
              << " the search, end cost " << end.total << std::endl;
    if (!args.statsJson.empty()) std::cout << "wrote " << args.statsJson << "\n";
    if (!same) throw std::runtime_error("the replayed controller does not reproduce the search's end state");
    if (!stopped.empty())
      std::cerr << "sinew-cli: " << args.project << ": the search stopped: " << stopped
                << (search.failed() ? "" : " (the same command with --resume goes on from there)") << "\n";
    return stopped.empty() ? int(kOk) : int(kBadInput);
  });
}

int fitFeedback(const FitFeedbackArgs& args) {
  return guarded([&]() -> int {
    checkOutputPath(args.output, {args.project}, args.project);
    checkOutputPath(args.statsJson, {args.project, args.output});
    if (args.output != args.project && fs::exists(args.output) && !args.overwrite)
      throw InputError(args.output, "exists (pass --overwrite to replace it)");
    Project project = loadProject(args.project);
    ControllerObject* controller = &project.controllers[controllerIndex(project, args.project, args.controller)];
    control::FeedbackRegressionOptions o;
    o.rollouts = args.rollouts;
    o.push = args.push;
    o.corrections = args.corrections;
    o.noise = args.noise;
    o.ridge = args.ridge;
    o.pool = args.pool;
    o.validation = args.validation;
    o.seed = args.seed;
    o.threads = args.threads;
    std::cout << "fitting the feedback of '" << controller->name << "' by least squares: " << o.rollouts
              << " rollouts pushed at " << o.push << " m/s and one unpushed, " << o.corrections
              << " corrections tried per window (noise " << o.noise << " rad), ridge " << o.ridge << ", pooling "
              << o.pool << " window(s) either side; scored on " << o.validation << " held-out pushes" << std::endl;
    gInterrupted = false;
    const auto previous = std::signal(SIGINT, onInterrupt);
    struct RestoreSignal {
      decltype(previous) h;
      ~RestoreSignal() { std::signal(SIGINT, h); }
    } restoreSignal{previous};
    const Progress progress([](double, std::string_view) {}, &gInterrupted);
    const auto t0 = std::chrono::steady_clock::now();
    control::FeedbackRegressionResult r;
    try {
      r = control::regressFeedback(project, *controller, o, progress);
    } catch (const Cancelled&) {
      std::cout << "interrupted: the controller is unchanged and nothing was written" << std::endl;
      return int(kBadInput);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cout << "recorded " << r.pairs << " (state deviation, correction) pairs from " << r.simulations
              << " simulated windows, mean correction " << r.meanCorrection << " rad per joint; held-out score "
              << r.initialScore << " -> " << r.fittedScore << ": " << (r.kept ? "kept the fitted map" : "kept the previous gains")
              << " (" << seconds << " s)" << std::endl;
    saveProject(project, args.output);
    if (!args.statsJson.empty()) {
      const json summary = {{"controller", controller->name}, {"rollouts", o.rollouts}, {"push", o.push},
                            {"corrections", o.corrections}, {"noise", o.noise}, {"ridge", o.ridge},
                            {"pool", o.pool}, {"validation", o.validation}, {"seed", o.seed},
                            {"pairs", r.pairs}, {"simulations", r.simulations}, {"mean_correction", r.meanCorrection},
                            {"initial_score", r.initialScore}, {"fitted_score", r.fittedScore}, {"kept", r.kept},
                            {"seconds", seconds}};
      writeFileAtomic(args.statsJson, summary.dump(2) + "\n");
    }
    std::cout << "saved to " << args.output << std::endl;
    return int(kOk);
  });
}

// ---------------------------------------------------------------------------
// Registration with the command-line parser (the table in main.cpp).

Subcommand addOptimize(CLI::App& app) {
  auto a = std::make_shared<OptimizeArgs>();
  auto* opt = app.add_subcommand("optimize", "Build a controller that makes the character perform a motion clip segment (sampling, Liu et al. 2013)");
  opt->add_option("project", a->project, "Project file (.sinew) with a rig (sinew-cli rig)")->required();
  opt->add_option("--clip", a->clip, "Motion clip: a clip name in the project, or a .bvh file (added to the output)")->required();
  opt->add_option("--start", a->start, "Segment start in the clip, s (default 0)")->check(CLI::Range(0.0, 1e5));
  opt->add_option("--end", a->end, "Segment end in the clip, s (default: the clip's end)")->check(CLI::Range(0.0, 1e5));
  // The search's tunables, from its table (control/SearchParams.h); checked there.
  for (const ParamSpec& p : control::searchParams()) {
    std::ostringstream help;
    help << p.help << " (" << (p.unit.empty() ? "" : p.unit + "; ") << "default " << p.defaultValue << ", " << p.min << ".."
         << p.max << ")";
    opt->add_option_function<double>("--" + p.name, [a, name = p.name](double v) { a->search[name] = v; }, help.str())
        ->type_name(p.integer ? "N" : "FLOAT");
  }
  opt->add_option("--threads", a->threads, "Sample evaluation threads (default: all cores)")->check(CLI::Range(1, 256));
  opt->add_option("--seed", a->seed, "Random seed (default 1)");
  opt->add_option("--store-clip", a->storeClip,
                  "Keep a --clip read from a .bvh file in the output project: on|off (default on; the controller "
                  "carries its retargeted segment either way)")
      ->check(CLI::IsMember({"on", "off"}));
  opt->add_option("--time-scaling", a->timeScaling, "Sample each window's duration: on|off")->check(CLI::IsMember({"on", "off"}));
  opt->add_option("--id-init", a->idInit, "Initial targets by inverse dynamics (else the reference pose): on|off")
      ->check(CLI::IsMember({"on", "off"}));
  opt->add_option("--feedback", a->feedback, "Balance feedback in the loop while sampling, saved with the controller as its feedback policy: on|off (default on)")->check(CLI::IsMember({"on", "off"}));
  opt->add_option("--fit-feedback", a->fitRollouts,
                  "Fit the feedback gains from N pushed rollouts after the search (default 0: keep the default gains)")
      ->check(CLI::Range(0, 1000));
  opt->add_option("--fit-push", a->fitPush, "Push of the fitting rollouts, m/s (default 0.6)")->check(CLI::Range(0.0, 10.0));
  opt->add_option("--weights", a->weights,
                  "Cost weights that differ from the defaults, as KEY=VALUE,... with keys pose, root, position, "
                  "endEffector, balance, velocity (defaults 1, 2, 1, 4, 8, 0.2)");
  opt->add_option("--gains", a->gains,
                  "Balance feedback gains that differ from the defaults, as KEY=VALUE,... with keys ankle_tilt, "
                  "ankle_balance, ankle_velocity, hip_tilt, hip_balance, hip_velocity (stance legs), swing_hip_balance, "
                  "swing_hip_velocity (foot placement by a swinging leg's hip; negative puts the foot where the centre "
                  "of mass goes) (defaults 3, 0, 0.2, 0, 0, 0, -0.5, -1)");
  opt->add_option("--name", a->name, "Controller name (default: clip and segment); replaces a controller of that name");
  opt->add_option("-o,--output", a->output, "Project file to write (may be the input)")->required();
  opt->add_option("--stats-json", a->statsJson, "Write per-window costs, tracking errors, samples and wall time as JSON");
  opt->add_flag("--overwrite", a->overwrite, "Replace an existing output file");
  opt->add_option("--checkpoint", a->checkpointSeconds,
                  "Save the output with the search so far at most every SECONDS while it runs (default 30; 0: after "
                  "every window)")
      ->type_name("SECONDS")
      ->check(CLI::Range(0.0, 1e6));
  auto* resume = opt->add_flag("--resume", a->resume,
                "Go on with the search saved in the output (a checkpoint, or a run stopped by Ctrl-C): the same "
                "command with --resume gives the controller an uninterrupted run would");
  opt->add_option("--redo-from", a->redoFrom,
                  "Keep the windows of the output's saved controller (of this name and settings) that end by SECONDS of "
                  "the clip, and search the rest anew: after a search that fell, or to try another --seed, --samples, "
                  "--keep, --rounds, --noise or --weights from there")
      ->type_name("SECONDS")
      ->check(CLI::Range(0.0, 1e5))
      ->excludes(resume);
  return {opt, [a] { return optimize(*a); }};
}

Subcommand addFitFeedback(CLI::App& app) {
  auto a = std::make_shared<FitFeedbackArgs>();
  auto* fit = app.add_subcommand("fit-feedback",
                                 "Fit a saved controller's feedback by least squares on perturbed rollouts (Liu et al. 2012)");
  fit->add_option("project", a->project, "Project file")->required()->check(CLI::ExistingFile);
  fit->add_option("--controller", a->controller, "The controller (by name)")->required();
  fit->add_option("--rollouts", a->rollouts, "Pushed rollouts that record corrections (and one unpushed; default 12)")
      ->check(CLI::Range(0, 1000));
  fit->add_option("--push", a->push, "Push of the rollouts, m/s (default 0.6)")->check(CLI::Range(0.0, 10.0));
  fit->add_option("--corrections", a->corrections, "Corrections tried per window of a rollout (default 12)")
      ->check(CLI::Range(1, 1000));
  fit->add_option("--noise", a->noise, "Spread of the corrections tried, rad (default 0.1)")->check(CLI::Range(0.0, 3.0));
  fit->add_option("--ridge", a->ridge, "Ridge regularisation, relative (default 0.1)")->check(CLI::Range(0.0, 1e6));
  fit->add_option("--pool", a->pool, "Windows on either side whose pairs also fit a window's map (default 1)")
      ->check(CLI::Range(0, 1000));
  fit->add_option("--validation", a->validation, "Held-out pushed rollouts that decide whether the fit is kept (default 6)")
      ->check(CLI::Range(0, 1000));
  fit->add_option("--seed", a->seed, "Random seed (default 1)");
  fit->add_option("--threads", a->threads, "Rollout threads (default: all cores)")->check(CLI::Range(1, 256));
  fit->add_option("-o,--output", a->output, "Project file to write (may be the input)")->required();
  fit->add_option("--stats-json", a->statsJson, "Write the fit's figures as JSON");
  fit->add_flag("--overwrite", a->overwrite, "Replace an existing output file");
  return {fit, [a] { return sinew::cli::fitFeedback(*a); }};
}

}  // namespace sinew::cli
