// Running a Simulation for a while and recording what the user (and the
// stats JSON of `sinew-cli simulate`) needs: per-frame measures, step
// timings, optionally the surface and skeleton of every frame for export.
#pragma once

#include "core/Progress.h"
#include "solver/Simulation.h"

#include <functional>
#include <string>
#include <vector>

namespace sinew {

struct RunOptions {
  double seconds = 1.0;
  double frameRate = 60;          // frames recorded per simulated second
  bool recordSurface = false;     // keep the surface positions of every frame
  bool recordSkeleton = false;    // keep the joint poses of every frame
  std::function<void()> onFrame;  // called after each recorded frame (the caller measures more)
  std::function<void()> beforeStep;  // called before each step (a shove due then), outside the step's timing
};

struct RunRecord {
  std::vector<SimMeasures> frames;             // frame 0 is the initial state
  std::vector<std::vector<Vec3>> surfaces;     // (frames) when recorded
  std::vector<std::vector<Transform>> joints;  // (frames) when recorded
  std::vector<double> stepSeconds;             // wall time of every step
  int64_t steps = 0;
  double simulatedSeconds = 0, wallSeconds = 0;
  std::string stopped;                         // why the run stopped early ("" if it did not)
  double msPerStepMedian() const;
  double realtimeFactor() const;               // simulated / wall time of the steps
  int32_t invertedTetsMax() const;
  int32_t longestInvertedRun() const;          // steps: the longest any element stayed inverted
};

// Runs `sim` for options.seconds (or until it reports instability: then
// `stopped` holds the solver's message and the record ends at the last good
// state). Throws Cancelled when cancelled through `progress`.
RunRecord runSimulation(Simulation& sim, const RunOptions& options, const Progress& progress = Progress::none());

// The stats JSON (docs/CLI.md): per-frame arrays and a summary. `extra` is a
// JSON object text merged into the summary's "setup" (solver settings).
std::string statsJson(const RunRecord& record, const std::string& solver, double dt, int threads,
                      const std::string& setupJson = "{}");

}  // namespace sinew
