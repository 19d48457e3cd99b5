#include "solver/SimRun.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>

namespace sinew {

double RunRecord::msPerStepMedian() const {
  if (stepSeconds.empty()) return 0;
  std::vector<double> s = stepSeconds;
  std::nth_element(s.begin(), s.begin() + s.size() / 2, s.end());
  return 1000.0 * s[s.size() / 2];
}

double RunRecord::realtimeFactor() const { return wallSeconds > 0 ? simulatedSeconds / wallSeconds : 0.0; }

int32_t RunRecord::invertedTetsMax() const {
  int32_t m = 0;
  for (const SimMeasures& f : frames) m = std::max(m, f.invertedTets);
  return m;
}

int32_t RunRecord::longestInvertedRun() const {
  int32_t m = 0;
  for (const SimMeasures& f : frames) m = std::max({m, f.invertedRunSteps, f.longestInvertedRunSteps});
  return m;
}

RunRecord runSimulation(Simulation& sim, const RunOptions& options, const Progress& progress) {
  using Clock = std::chrono::steady_clock;
  RunRecord rec;
  const double dt = sim.dt();
  const double start = sim.time();
  const int64_t totalSteps = std::max<int64_t>(0, std::llround(options.seconds / dt));
  const double frameInterval = options.frameRate > 0 ? 1.0 / options.frameRate : options.seconds;
  auto record = [&] {
    rec.frames.push_back(sim.measure());
    if (options.recordSurface) rec.surfaces.push_back(sim.surfacePositions());
    if (options.recordSkeleton) rec.joints.push_back(sim.jointPoses());
    if (options.onFrame) options.onFrame();
  };
  record();
  rec.stepSeconds.reserve(totalSteps);
  int64_t nextFrame = 1;
  for (int64_t s = 0; s < totalSteps; ++s) {
    if (options.beforeStep) options.beforeStep();
    const auto t0 = Clock::now();
    try {
      sim.step();
    } catch (const SimulationError& e) {
      // The solver is back at its last good state: so is the record (no
      // frame after it in the stats or the export; the message names that time).
      rec.stopped = e.what();
      while (rec.frames.size() > 1 && rec.frames.back().time > e.lastGoodTime() + 0.5 * dt) {
        rec.frames.pop_back();
        if (options.recordSurface) rec.surfaces.pop_back();
        if (options.recordSkeleton) rec.joints.pop_back();
      }
      break;
    }
    const double w = std::chrono::duration<double>(Clock::now() - t0).count();
    rec.stepSeconds.push_back(w);
    rec.wallSeconds += w;
    ++rec.steps;
    if (sim.time() - start + 0.5 * dt >= nextFrame * frameInterval) {
      record();
      ++nextFrame;
    }
    if ((s & 255) == 0) progress.update(static_cast<double>(s) / std::max<int64_t>(totalSteps, 1), "simulating");
  }
  rec.simulatedSeconds = sim.time() - start;
  return rec;
}

std::string statsJson(const RunRecord& r, const std::string& solver, double dt, int threads, const std::string& setupJson) {
  using nlohmann::json;
  auto vec = [](const Vec3& v) { return json::array({v.x(), v.y(), v.z()}); };
  json time = json::array(), lin = json::array(), ang = json::array(), ke = json::array(), ee = json::array(),
       inv = json::array(), com = json::array();
  for (const SimMeasures& f : r.frames) {
    time.push_back(f.time);
    lin.push_back(vec(f.linearMomentum));
    ang.push_back(vec(f.angularMomentum));
    com.push_back(vec(f.centerOfMass));
    ke.push_back(f.kineticEnergy);
    ee.push_back(f.elasticEnergy);
    inv.push_back(f.invertedTets);
  }
  json j;
  j["solver"] = solver;
  j["time"] = time;
  j["linear_momentum"] = lin;
  j["angular_momentum"] = ang;
  j["center_of_mass"] = com;
  j["kinetic_energy"] = ke;
  j["elastic_energy"] = ee;
  j["inverted_tets"] = inv;
  json summary;
  summary["steps"] = r.steps;
  summary["dt"] = dt;
  summary["threads"] = threads;
  summary["simulated_seconds"] = r.simulatedSeconds;
  summary["wall_seconds"] = r.wallSeconds;
  summary["ms_per_step_median"] = r.msPerStepMedian();
  summary["realtime_factor"] = r.realtimeFactor();
  summary["inverted_tets_max"] = r.invertedTetsMax();
  summary["longest_inverted_run_steps"] = r.longestInvertedRun();
  summary["stopped"] = r.stopped.empty() ? json(nullptr) : json(r.stopped);
  summary["setup"] = json::parse(setupJson, nullptr, false);
  j["summary"] = summary;
  return j.dump(1);
}

}  // namespace sinew
