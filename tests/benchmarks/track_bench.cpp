// The tracking benchmark (issue 27): how well the controller search makes the
// example character perform a fixed list of segments. For each segment and
// seed it runs the search as `sinew-cli optimize` does, replays the
// controller found (with its feedback) and measures:
//   - success: the search finished every window and the replay stayed up to
//     the controller's end (no fall, tilt under control::kUprightTiltDegrees);
//   - mean root position error (m), pose error (rad^2, the cost's term) and
//     end-effector error (m, root-relative) over the replay, every 10 ms;
//   - the search's end cost, wall time and samples;
//   - flight (every sole 5 cm off the ground) against the reference's, and
//     the root's forward travel against the reference's;
//   - robustness: the controller replayed 8 more times, each shoved once
//     (the whole body given --shove m/s, default 1 mm/s, in one of the four
//     horizontal directions at a third or two thirds of its duration) and
//     played to 1 s past its end: how many of the 8 stay up throughout.
// Over the seeds it reports the mean and the spread (sample standard
// deviation). Results: a JSON file per run (with the settings it was searched
// with), a Markdown table and an SVG plot of the best cost per window (first
// seed) in the output folder.
//
// Not a test: a full run (300 samples per window, 3 seeds, every segment) takes
// many hours on 2 cores. Usage:
//   track_bench [--samples N] [--keep K] [--seeds 1,2,3] [--threads T]
//               [--only NAME,...] [--step SECONDS] [--out DIR]
//               [--backtracks N] [--backtrack-above COST] [--shove M_PER_S]
//               [--score-shove M_PER_S] [--tangent-weight W]
// (--step: the search's and its controllers' time step, as optimize --step;
// default the project's, 0.5 ms; --backtracks, --backtrack-above: as optimize's,
// default each segment's: the jump, 01_01 12-16 s and the run backtrack;
// --shove 0: no shoved replays;
// --score-shove, --tangent-weight: as optimize's, default 0: off).
// e.g. `build/bin/track_bench --samples 60 --keep 10 --seeds 1 --only turn,walk --out /tmp/tb`.
#include "control/Cost.h"
#include "control/Flight.h"
#include "control/Optimize.h"
#include "io/FileUtil.h"
#include "io/ProjectFile.h"

#include "../PlotSvg.h"
#include "../sim/control/CmuClip.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace sinew;
using json = nlohmann::json;

namespace {

// Each segment with the settings its shipped controller (or, where none
// ships, the best search so far) was made with: docs/PERFORMANCE.md has the
// commands.
struct Segment {
  std::string name;     // short, for --only
  std::string clip;     // a clip of the rigged example (01_01 added)
  double start = 0, end = -1;
  double positionWeight = 1;  // the cost's root-position weight
  double pdFrequency = 5;     // Hz (optimize --pd-frequency)
  double settle = 0;          // s of searched standing tail (optimize --settle)
  int backtracks = 0;         // optimize --backtracks
  double backtrackAbove = 0;  // optimize --backtrack-above
  double velocityWeight = control::CostWeights{}.velocity;  // the centre-of-mass velocity weight
};

const std::vector<Segment>& segments() {
  static const std::vector<Segment> list = {
      // crouch, take-off, flight, landing, second jump (shipped: seed 4, which
      // stayed under the threshold; seeds 1-3 needed the backtracking: PERFORMANCE.md "Backtracking")
      {"jump", "01_01", 0.0, 4.0, 4, 8, 1, 6, 1.0},
      {"turn", "01_01", 8.0, 10.0, 8, 5, 1},   // shipped: seed 1
      // the jumps back; the centre of mass's velocity weighted 2 (at the
      // default 0.2 the character runs on after each landing and drifts off:
      // PERFORMANCE.md "01_01 12-16 s with the velocity weighted"); plain, the
      // first jump's take-off failed for seeds 2 and 3 of three, with
      // backtracking every seed got through (PERFORMANCE.md, same section)
      {"01_01-12-16", "01_01", 12.0, 16.0, 4, 8, 1, 6, 1.0, 2.0},
      // 22.9 s; the shipped one was redone in parts, from 6.4 s on with the
      // velocity weighted 2 (4 from 21.5 s): PERFORMANCE.md "01_01, the whole clip"
      {"01_01-whole", "01_01", 0.0, -1, 4, 8, 1, 0, 0, 2.0},
      {"kick", "Kick", 0.0, 2.5, 4, 8, 1},     // shipped: seed 1
      {"walk", "Walk in place", 0.0, 2.0, 1, 5, 1},  // shipped: seed 1, 150 samples
      // 0-7 s: up to 3 m/s, 1 s at it, stopping; a 1 s standing tail, the
      // centre of mass's velocity weighted 2. The shipped one (seed 1, 150
      // samples) got past full speed on its sixth backtrack and was redone
      // from 4 s with seed 2 and 200 samples (PERFORMANCE.md "The run,
      // shipped").
      {"run", "Run (generated)", 0.0, -1, 4, 8, 1, 12, 3.0, 2.0},
  };
  return list;
}

struct Options {
  int samples = 300, keep = 20, threads = 0, backtracks = -1;  // -1: the segment's
  double step = 0, backtrackAbove = -1, shove = 0.001, scoreShove = 0, tangentWeight = 0;
  std::vector<uint64_t> seeds{1, 2, 3};
  std::vector<std::string> only;
  std::string out = "track-bench";
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

struct RunResult {
  bool finished = false, stayedUp = false;
  double endCost = 0, meanRoot = 0, meanPose = 0, meanEndEffector = 0, maxTilt = 0;
  double searchSeconds = 0;
  int64_t samples = 0;
  int windowsDone = 0, windowsTotal = 0;
  control::FlightStats flight, referenceFlight;
  double travel = 0, referenceTravel = 0;
  std::vector<double> windowCost;
  int shoved = 0, shovedUp = 0;  // shoved replays, and those that stayed up
};

// The controller replayed (with its feedback, one thread) to `until` s,
// measured every 10 ms; with `shove` non-zero, the whole body is given that
// velocity at `shoveAt` s.
struct Replay {
  bool stayedUp = false;  // never fallen, tilt under control::kUprightTiltDegrees
  double maxTilt = 0, meanRoot = 0, meanPose = 0, meanEndEffector = 0, travel = 0, referenceTravel = 0;
  control::FlightStats flight, referenceFlight;
};
Replay replay(const Project& project, const ControllerObject& c, const liu2013::Settings& physics, double until,
              double shoveAt = 0, const Vec3& shove = Vec3::Zero()) {
  control::ControllerRun run = control::prepareControllerRun(project, c, physics, true);
  liu2013::Liu2013Solver& sim = *run.solver;
  const control::FootClearance feet(run.model, run.reference->feet(), physics.groundHeight);
  control::FlightTracker flight, refFlight;
  const double dt = sim.dt();  // the controller's step
  const int64_t steps = std::llround(until / dt), every = std::max<int64_t>(1, std::llround(0.01 / dt));
  const int64_t shoveStep = shove.isZero() ? -1 : std::max<int64_t>(1, std::llround(shoveAt / dt));
  Replay r;
  bool fell = false;
  int n = 0;
  Vec3 simStart, refStart;
  for (int64_t i = 0; i <= steps; ++i) {
    if (i == shoveStep) sim.push(shove);
    if (i > 0) sim.step();
    if (i % every != 0 && i != steps) continue;
    const double refTime = run.policy->referenceTime(sim.time());
    const control::BodyFeatures now = run.reference->features(sim.state().skeleton), ref = run.reference->features(refTime);
    const control::CostTerms cost = control::trackingCost(now, ref, {});
    if (i == 0) simStart = now.rootPosition, refStart = ref.rootPosition;
    fell = fell || cost.fallen;
    r.maxTilt = std::max(r.maxTilt, control::tiltDegrees(now, ref));
    r.meanRoot += std::sqrt(cost.position);
    r.meanPose += cost.pose;
    r.meanEndEffector += std::sqrt(cost.endEffector);
    ++n;
    flight.add(sim.time(), feet.simulated(sim.state()), now.centerOfMass.y());
    refFlight.add(sim.time(), feet.posed(run.reference->state(refTime)), ref.centerOfMass.y());
    r.travel = std::hypot(now.rootPosition.x() - simStart.x(), now.rootPosition.z() - simStart.z());
    r.referenceTravel = std::hypot(ref.rootPosition.x() - refStart.x(), ref.rootPosition.z() - refStart.z());
  }
  r.meanRoot /= n;
  r.meanPose /= n;
  r.meanEndEffector /= n;
  r.stayedUp = !fell && r.maxTilt < control::kUprightTiltDegrees;
  r.flight = flight.stats();
  r.referenceFlight = refFlight.stats();
  return r;
}

// The backtracking a run uses: the options' where given, else the segment's.
int backtracksOf(const Segment& seg, const Options& o) { return o.backtracks >= 0 ? o.backtracks : seg.backtracks; }
double backtrackAboveOf(const Segment& seg, const Options& o) {
  return o.backtrackAbove >= 0 ? o.backtrackAbove : seg.backtrackAbove;
}

RunResult runOne(const Project& project, const Segment& seg, const Options& o, uint64_t seed) {
  control::OptimizeSpec spec;
  spec.clip = seg.clip;
  spec.start = seg.start;
  spec.end = seg.end;
  spec.samcon.samples = o.samples;
  spec.samcon.keep = o.keep;
  spec.samcon.seed = seed;
  spec.samcon.feedback = true;
  spec.samcon.weights.position = seg.positionWeight;
  spec.samcon.weights.velocity = seg.velocityWeight;
  spec.pdFrequency = seg.pdFrequency;
  spec.settle = seg.settle;
  spec.step = o.step;
  spec.samcon.backtracks = backtracksOf(seg, o);
  spec.samcon.backtrackAbove = backtrackAboveOf(seg, o);
  spec.samcon.scoreShove = o.scoreShove;
  spec.samcon.tangentWeight = o.tangentWeight;
  const control::PreparedOptimization prepared = control::prepareOptimization(project, spec);
  control::SamconSearch search(prepared.problem, control::makeThreadedEvaluator(o.threads));
  RunResult r;
  r.windowsTotal = search.windowCount();
  const auto t0 = std::chrono::steady_clock::now();
  while (!search.finished()) {
    const control::WindowReport w = search.runWindow();
    r.windowCost.resize(size_t(w.window));  // a window searched again (backtracking) replaces those after it
    r.windowCost.push_back(w.best.total);
    std::fprintf(stderr, "\r  %s seed %llu: window %d/%d, cost %.3f   ", seg.name.c_str(), (unsigned long long)seed,
                 search.windowsDone(), search.windowCount(), w.best.total);
  }
  std::fprintf(stderr, "\n");
  r.searchSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.samples = search.samplesEvaluated();
  r.windowsDone = search.windowsDone();
  r.finished = !search.failed();
  r.endCost = r.windowCost.empty() ? 0 : r.windowCost.back();

  // The replay, with the controller's feedback, to its end.
  const ControllerObject c = control::makeControllerObject(project, spec, prepared, search, seg.name);
  liu2013::Settings physics;
  liu2013::applyScene(project.simulation, physics);
  physics.threads = 1;
  const Replay played = replay(project, c, physics, c.duration());
  r.stayedUp = played.stayedUp;
  r.maxTilt = played.maxTilt;
  r.meanRoot = played.meanRoot;
  r.meanPose = played.meanPose;
  r.meanEndEffector = played.meanEndEffector;
  r.travel = played.travel;
  r.referenceTravel = played.referenceTravel;
  r.flight = played.flight;
  r.referenceFlight = played.referenceFlight;
  if (o.shove > 0 && r.finished && r.stayedUp) {
    for (double at : {c.duration() / 3, 2 * c.duration() / 3})
      for (const Vec3& d : {Vec3(1, 0, 0), Vec3(-1, 0, 0), Vec3(0, 0, 1), Vec3(0, 0, -1)}) {
        ++r.shoved;
        r.shovedUp += replay(project, c, physics, c.duration() + 1.0, at, o.shove * d).stayedUp ? 1 : 0;
        std::fprintf(stderr, "\r  %s seed %llu: shoved replays %d, %d stayed up   ", seg.name.c_str(),
                     (unsigned long long)seed, r.shoved, r.shovedUp);
      }
    std::fprintf(stderr, "\n");
  }
  return r;
}

json toJson(const RunResult& r) {
  auto flight = [](const control::FlightStats& f) {
    return json{{"seconds", f.seconds}, {"take_off", f.takeOff}, {"landing", f.landing}, {"peak_com_rise", f.peakComRise}};
  };
  return {{"finished", r.finished},           {"stayed_up", r.stayedUp},
          {"success", r.finished && r.stayedUp}, {"end_cost", r.endCost},
          {"mean_root_error", r.meanRoot},     {"mean_pose_error", r.meanPose},
          {"mean_end_effector_error", r.meanEndEffector}, {"max_tilt_degrees", r.maxTilt},
          {"search_seconds", r.searchSeconds}, {"samples", r.samples},
          {"windows_done", r.windowsDone},     {"windows_total", r.windowsTotal},
          {"flight", flight(r.flight)},        {"reference_flight", flight(r.referenceFlight)},
          {"forward_travel", r.travel},        {"reference_forward_travel", r.referenceTravel},
          {"window_cost", r.windowCost},      {"shoved_replays", r.shoved},
          {"shoved_replays_up", r.shovedUp}};
}

// What a run was searched with, so that each JSON file says how to redo it.
json settingsJson(const Segment& seg, const Options& o, uint64_t seed) {
  return {{"clip", seg.clip},
          {"start", seg.start},
          {"end", seg.end},
          {"samples", o.samples},
          {"keep", o.keep},
          {"seed", seed},
          {"threads", o.threads},
          {"position_weight", seg.positionWeight},
          {"velocity_weight", seg.velocityWeight},
          {"pd_frequency", seg.pdFrequency},
          {"settle", seg.settle},
          {"backtracks", backtracksOf(seg, o)},
          {"backtrack_above", backtrackAboveOf(seg, o)},
          {"step", o.step},
          {"score_shove", o.scoreShove},
          {"tangent_weight", o.tangentWeight}};
}

// Mean and sample standard deviation.
std::pair<double, double> meanSpread(const std::vector<double>& v) {
  double m = 0, s = 0;
  for (double x : v) m += x;
  m /= double(v.size());
  for (double x : v) s += (x - m) * (x - m);
  return {m, v.size() > 1 ? std::sqrt(s / double(v.size() - 1)) : 0.0};
}

std::string fmt(const std::pair<double, double>& ms, int digits) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f ± %.*f", digits, ms.first, digits, ms.second);
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(a + ": needs a value");
      return argv[++i];
    };
    try {
      if (a == "--samples") o.samples = std::stoi(value());
      else if (a == "--keep") o.keep = std::stoi(value());
      else if (a == "--threads") o.threads = std::stoi(value());
      else if (a == "--out") o.out = value();
      else if (a == "--step") o.step = std::stod(value());
      else if (a == "--backtracks") {
        o.backtracks = std::stoi(value());
        if (o.backtracks < 0) throw std::runtime_error("must not be negative");
      } else if (a == "--shove") {
        o.shove = std::stod(value());
        if (!(o.shove >= 0 && o.shove <= 10)) throw std::runtime_error("must lie in [0, 10] m/s");
      } else if (a == "--score-shove") {
        o.scoreShove = std::stod(value());
        if (!(o.scoreShove >= 0 && o.scoreShove <= 10)) throw std::runtime_error("must lie in [0, 10] m/s");
      } else if (a == "--tangent-weight") {
        o.tangentWeight = std::stod(value());
        if (!(o.tangentWeight >= 0 && o.tangentWeight <= 1)) throw std::runtime_error("must lie in [0, 1]");
      } else if (a == "--backtrack-above") {
        o.backtrackAbove = std::stod(value());
        if (!(o.backtrackAbove >= 0)) throw std::runtime_error("must not be negative");
      }
      else if (a == "--only") o.only = split(value());
      else if (a == "--seeds") {
        o.seeds.clear();
        for (const std::string& s : split(value())) o.seeds.push_back(std::stoull(s));
      } else {
        std::cerr << "track_bench: unknown argument '" << a << "' (see the comment at the top of track_bench.cpp)\n";
        return 1;
      }
    } catch (const std::exception& e) {
      std::cerr << "track_bench: " << a << ": " << e.what() << "\n";
      return 1;
    }
  }
  if (o.step != 0 && !(o.step >= kMinControllerStep && o.step <= kMaxControllerStep)) {
    std::cerr << "track_bench: --step must be 0 or lie in [0.0001, 0.005] s\n";
    return 1;
  }
  if (o.samples < 1 || o.keep < 1 || o.seeds.empty()) {
    std::cerr << "track_bench: --samples and --keep must be at least 1, --seeds not empty\n";
    return 1;
  }
  std::filesystem::create_directories(o.out);
  const Project project =
      test::withCmuClip(loadProject(std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-rigged.sinew"));

  json all = json::object();
  std::ostringstream table;
  table << "| segment | success | end cost | root error (m) | pose error (rad²) | end effectors (m) | flight (s, reference) "
           "| forward travel (m, reference) | search (s) | samples | ";
  if (o.shove > 0) table << "up after a " << o.shove * 1000 << " mm/s shove |\n";
  else table << "shoved replays |\n";
  table << "|---|---|---|---|---|---|---|---|---|---|---|\n";
  test::Plot plot{"Best cost per control window (seed " + std::to_string(o.seeds.front()) + ", " +
                      std::to_string(o.samples) + " samples, " + std::to_string(o.keep) + " kept)",
                  "window", "cost", {}, {}, true};
  const char* colors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2"};
  size_t colorIndex = 0;
  for (const Segment& seg : segments()) {
    if (!o.only.empty() && std::find(o.only.begin(), o.only.end(), seg.name) == o.only.end()) continue;
    std::vector<RunResult> runs;
    json seeds = json::object();
    for (uint64_t seed : o.seeds) {
      try {
        runs.push_back(runOne(project, seg, o, seed));
      } catch (const std::exception& e) {
        std::cerr << "track_bench: " << seg.name << " seed " << seed << ": " << e.what() << "\n";
        return 2;
      }
      seeds[std::to_string(seed)] = toJson(runs.back());
      seeds[std::to_string(seed)]["settings"] = settingsJson(seg, o, seed);
      writeFileAtomic(o.out + "/" + seg.name + "-seed" + std::to_string(seed) + ".json", seeds[std::to_string(seed)].dump(2) + "\n");
    }
    all[seg.name] = seeds;
    auto column = [&](auto get) {
      std::vector<double> v;
      for (const RunResult& r : runs) v.push_back(get(r));
      return meanSpread(v);
    };
    int successes = 0, shoved = 0, shovedUp = 0;
    for (const RunResult& r : runs) {
      successes += r.finished && r.stayedUp;
      shoved += r.shoved;
      shovedUp += r.shovedUp;
    }
    std::ostringstream span;
    span << seg.clip << " " << seg.start << "-";
    if (seg.end < 0) span << "end";
    else span << seg.end << " s";
    table << "| " << seg.name << " (" << span.str() << ") | "
          << successes << "/" << runs.size() << " | " << fmt(column([](auto& r) { return r.endCost; }), 3) << " | "
          << fmt(column([](auto& r) { return r.meanRoot; }), 3) << " | " << fmt(column([](auto& r) { return r.meanPose; }), 4)
          << " | " << fmt(column([](auto& r) { return r.meanEndEffector; }), 3) << " | "
          << fmt(column([](auto& r) { return r.flight.seconds; }), 2) << " (" << fmt({runs.front().referenceFlight.seconds, 0}, 2).substr(0, 4)
          << ") | " << fmt(column([](auto& r) { return r.travel; }), 2) << " (" << fmt({runs.front().referenceTravel, 0}, 2).substr(0, 4)
          << ") | " << fmt(column([](auto& r) { return r.searchSeconds; }), 0) << " | "
          << fmt(column([](auto& r) { return double(r.samples); }), 0) << " | "
          << (shoved > 0 ? std::to_string(shovedUp) + "/" + std::to_string(shoved) : std::string("none (--shove 0)"))
          << " |\n";
    test::PlotSeries s{seg.name, {}, runs.front().windowCost, colors[colorIndex++ % 7]};
    for (size_t k = 0; k < s.y.size(); ++k) s.x.push_back(double(k + 1));
    plot.series.push_back(std::move(s));
  }
  writeFileAtomic(o.out + "/track-bench.json", all.dump(2) + "\n");
  writeFileAtomic(o.out + "/track-bench.md", table.str());
  test::writePlotSvg(plot, o.out + "/track-bench-cost.svg");
  std::cout << table.str() << "wrote " << o.out << "/track-bench.json, track-bench.md and track-bench-cost.svg\n";
  return 0;
}
