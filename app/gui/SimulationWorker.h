// The Simulate panel's worker: builds any solver through the registry
// (makeSimulation; a controller's run through control::prepareControllerRun),
// steps it frame by frame on its own thread and records every frame in a
// timeline (surfaces, joint poses, measures, a snapshot to resume from; VIPER's
// rods and other skins; a controller's reference as a ghost), giving a played
// controller its shove before the step it is due at. Changes the UI
// makes while it runs (drive, toggles, scene, mouse spring, activation) are
// queued and applied between frames; when it is idle they apply at once. No
// Qt: it reports through callbacks, called on the worker thread.
#pragma once

#include "control/Optimize.h"
#include "io/AnimationExport.h"
#include "rig/Followers.h"
#include "solver/Simulation.h"
#include "solver/Solvers.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace sinew::app {

// One recorded frame of the timeline.
struct SimFrame {
  double time = 0;
  std::vector<Vec3> surface;
  std::vector<Transform> joints;
  SimMeasures measures;
  std::shared_ptr<const SimSnapshot> snapshot;
  std::vector<Vec3> ghost;  // the controller's reference: world joint positions
  // Other surfaces than the simulated one: VIPER's other skins, or the meshes
  // following the skeleton (rig/Followers.h).
  std::vector<std::pair<ObjectId, std::vector<Vec3>>> otherSurfaces;
  RodNodes rods;  // VIPER
};

// What to build: a solver of the registry, or a controller's Liu 2013 run.
struct SimBuild {
  Project project;  // a copy: the worker never reads the Document
  SolverKind kind = SolverKind::Liu2013;
  SolverParams params;
  std::optional<ControllerObject> controller;
  bool feedback = false;
  SimToggles toggles;
  Drive drive;
  double activation = 0;
};

class SimulationWorker {
 public:
  static constexpr int kMaxFrames = 3600;  // one minute of timeline

  struct Callbacks {
    std::function<void()> frame;                                  // a frame was recorded
    std::function<void(const std::string&, bool build)> failed;   // build failed, or a step did
    std::function<void(const std::string&)> warning;              // a change the solver refused
    std::function<void(const std::string&)> info;                 // what was built
    std::function<void(double)> progress;                         // 0..1 while building
    std::function<void()> ended;                                  // the thread is done: call join()
  };
  explicit SimulationWorker(Callbacks callbacks) : cb_(std::move(callbacks)) {}
  ~SimulationWorker() { stop(); }

  bool running() const { return thread_.joinable(); }
  bool built() const { return sim_ != nullptr; }
  bool building() const { return building_; }
  // Builds from `build` when nothing is built, then records up to `frames`
  // frames (< 0: until stop()), each `frameTime` s or one step, paced to the
  // wall clock while realTime() is on. Resumes from `resumeFrame` (later
  // frames are dropped) when it lies before the last.
  void start(std::optional<SimBuild> build, int frames, int resumeFrame);
  void stop();       // stops and joins
  void join();       // after `ended` (a no-op for a stale `ended` of an earlier run)
  void drop();       // stops, and drops the solver and the timeline
  bool rewind();     // back to frame 0 (false: nothing built)
  bool timelineFull() const { return frameCount() >= kMaxFrames; }

  // A change to the solver: applied now when idle, else before the next frame.
  void change(std::function<void(Simulation&)> fn);
  void setRealTime(bool on) { realTime_ = on; }
  bool realTime() const { return realTime_; }

  // The timeline (any thread).
  int frameCount() const;
  std::optional<SimFrame> frame(int index) const;
  double lastTime() const;
  uint64_t revision() const;  // changes whenever frames are dropped
  std::vector<SimMeasures> measures(int first, uint64_t* outRevision) const;
  SimulatedAnimation animation() const;
  double frameTime() const { return frameTime_; }
  double realtimeFactor() const;
  double msPerStep() const;

  // Of the built model (null or empty before the first build).
  ObjectId surfaceMesh() const;
  std::vector<Tri> triangles() const;
  const RodLayout* rodLayout() const;  // fixed for a built model
  std::vector<ModalBodyInfo> modalBodies() const;
  // The solver itself, for the UI thread while no worker runs (null otherwise).
  const Simulation* idleSolver() const { return running() ? nullptr : sim_.get(); }
  const control::ReferenceMotion* reference() const { return reference_.get(); }

 private:
  void run(std::optional<SimBuild> build, int frames);
  void buildFrom(SimBuild& build);
  SimFrame capture() const;
  void applyQueued();

  Callbacks cb_;
  std::unique_ptr<Simulation> sim_;  // the worker's while it runs, the UI thread's otherwise
  std::shared_ptr<const control::ReferenceMotion> reference_;
  std::shared_ptr<const control::ControllerPolicy> policy_;
  ControllerShove shove_;  // a played controller's shove, given before the step it is due at
  Followers followers_;
  std::vector<Tri> triangles_;
  std::vector<ModalBodyInfo> modal_;
  ObjectId surface_ = 0;
  double frameTime_ = 1.0 / 60.0;
  std::thread thread_;
  std::atomic<bool> stop_{false}, building_{false}, realTime_{true}, done_{false};
  std::atomic<int> postedProgress_{-1};

  mutable std::mutex mutex_;  // guards what follows
  std::vector<SimFrame> frames_;
  uint64_t revision_ = 1;
  std::vector<std::function<void(Simulation&)>> queued_;
  double realtime_ = 0, msPerStep_ = 0;
};

}  // namespace sinew::app
