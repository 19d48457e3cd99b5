// The Simulate panel's worker thread: builds a solver and records its frames (SimulationWorker.h).
#include "SimulationWorker.h"

#include "liu2013/Liu2013.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace sinew::app {

void SimulationWorker::start(std::optional<SimBuild> build, int frames, int resumeFrame) {
  if (running()) return;
  {
    std::lock_guard lock(mutex_);
    if (sim_ && resumeFrame >= 0 && resumeFrame + 1 < int(frames_.size())) {
      // Resume from the displayed frame: later frames are dropped.
      sim_->restore(*frames_[size_t(resumeFrame)].snapshot);
      frames_.resize(size_t(resumeFrame) + 1);
      ++revision_;
    }
  }
  stop_ = false;
  done_ = false;
  building_ = !sim_;
  postedProgress_ = -1;
  if (sim_) build.reset();
  thread_ = std::thread([this, build = std::move(build), frames]() mutable { run(std::move(build), frames); });
}

void SimulationWorker::stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  stop_ = false;
}

void SimulationWorker::join() {
  if (done_ && thread_.joinable()) thread_.join();
}

void SimulationWorker::drop() {
  stop();
  std::lock_guard lock(mutex_);
  sim_.reset();
  reference_.reset();
  policy_.reset();
  followers_ = Followers();
  triangles_.clear();
  modal_.clear();
  surface_ = 0;
  frames_.clear();
  queued_.clear();
  ++revision_;
  realtime_ = msPerStep_ = 0;
}

bool SimulationWorker::rewind() {
  stop();
  std::lock_guard lock(mutex_);
  if (!sim_ || frames_.empty()) return false;
  sim_->restore(*frames_.front().snapshot);
  sim_->setGrab(std::nullopt);
  frames_.resize(1);
  ++revision_;
  return true;
}

void SimulationWorker::change(std::function<void(Simulation&)> fn) {
  std::lock_guard lock(mutex_);
  if (running()) {
    queued_.push_back(std::move(fn));
    return;
  }
  if (!sim_) return;
  try {
    fn(*sim_);
  } catch (const std::exception& e) {
    if (cb_.warning) cb_.warning(e.what());
  }
}

void SimulationWorker::applyQueued() {
  std::vector<std::function<void(Simulation&)>> queued;
  {
    std::lock_guard lock(mutex_);
    queued.swap(queued_);
  }
  for (auto& fn : queued) try {
      fn(*sim_);
    } catch (const std::exception& e) {
      if (cb_.warning) cb_.warning(e.what());
    }
}

// ---------------------------------------------------------------------------
// Build

void SimulationWorker::buildFrom(SimBuild& b) {
  std::unique_ptr<Simulation> sim;
  std::shared_ptr<const control::ReferenceMotion> reference;
  std::shared_ptr<const control::ControllerPolicy> policy;
  const ControllerShove shove = b.controller ? b.controller->shove : ControllerShove{};
  if (b.controller) {
    // A controller drives the Liu 2013 character from its reference's first pose.
    liu2013::Settings s;
    liu2013::applyScene(b.project.simulation, s);
    s.toggles = b.toggles;
    s.threads = int(paramValue(SolverKind::Liu2013, b.params, "threads"));
    control::ControllerRun run = control::prepareControllerRun(b.project, *b.controller, s, b.feedback);
    sim = std::move(run.solver);
    reference = run.reference;
    policy = run.policy;
  } else {
    auto progress = [this](double f) {
      const int percent = std::clamp(int(f * 100), 0, 100);
      if (percent != postedProgress_.exchange(percent) && cb_.progress) cb_.progress(f);
    };
    sim = makeSimulation(b.project, b.kind, b.params, progress);
    sim->setToggles(b.toggles);
    sim->setMuscleActivation(b.activation);
    try {
      sim->setDrive(b.drive);
    } catch (const std::exception& e) {
      if (cb_.warning) cb_.warning(std::string(e.what()) + "; the bones stay passive");
    }
    if (b.kind == SolverKind::Sheth2015 && cb_.info)
      cb_.info("Sheth 2015: " + std::to_string(sim->modalBodies().size()) + " deformable bones, " +
               std::to_string(int(paramValue(b.kind, b.params, "modes"))) + " modes each, " +
               std::to_string(sim->jointPoses().size()) + " joints");
  }
  // The character's other meshes (eyes, props, parts left separate) ride on
  // the simulated skeleton, unless the solver moves its other skins itself.
  Followers followers = sim->rodLayout() ? Followers() : Followers(b.project, sim->surfaceMesh());
  std::lock_guard lock(mutex_);
  triangles_ = sim->surfaceTriangles();
  modal_ = sim->modalBodies();
  surface_ = sim->surfaceMesh();
  frameTime_ = std::max(1.0 / 60.0, sim->dt());
  sim_ = std::move(sim);
  reference_ = std::move(reference);
  policy_ = std::move(policy);
  shove_ = shove;
  followers_ = std::move(followers);
  frames_.clear();
  ++revision_;
  frames_.push_back(capture());
}

SimFrame SimulationWorker::capture() const {
  SimFrame f;
  f.time = sim_->time();
  f.surface = sim_->surfacePositions();
  f.joints = sim_->jointPoses();
  f.otherSurfaces = sim_->otherSurfaces();
  if (!followers_.empty()) {
    std::vector<std::pair<ObjectId, std::vector<Vec3>>> riding = followers_.pose(f.joints);
    f.otherSurfaces.insert(f.otherSurfaces.end(), riding.begin(), riding.end());
  }
  if (sim_->rodLayout()) f.rods = sim_->rodNodes();
  f.measures = sim_->measure();  // microseconds: a sum over nodes and elements
  f.snapshot = std::shared_ptr<const SimSnapshot>(sim_->snapshot());
  if (reference_ && policy_) {
    const double t = policy_->referenceTime(f.time - 0.5 * sim_->dt());
    const dyn::LinkKinematics k = dyn::forwardKinematics(reference_->bodyModel(), reference_->pose(t));
    for (const Transform& x : k.pose) f.ghost.push_back(x.translation);
  }
  return f;
}

// ---------------------------------------------------------------------------
// The loop

void SimulationWorker::run(std::optional<SimBuild> build, int frames) {
  if (build) {
    try {
      buildFrom(*build);
    } catch (const std::exception& e) {
      building_ = false;
      if (cb_.failed) cb_.failed(e.what(), true);
      done_ = true;
      if (cb_.ended) cb_.ended();
      return;
    }
    building_ = false;
    if (cb_.frame) cb_.frame();
  }
  int done = 0;
  while (!stop_ && (frames < 0 || done < frames)) {
    applyQueued();
    const int steps = std::max(1, int(std::lround(frameTime_ / sim_->dt())));
    const auto t0 = std::chrono::steady_clock::now();
    try {
      for (int i = 0; i < steps; ++i) {
        if (shove_.dueAt(sim_->time(), sim_->dt())) sim_->push(shove_.velocity);
        sim_->step();
      }
    } catch (const std::exception& e) {  // SimulationError: back at the last good state
      if (cb_.failed) cb_.failed(e.what(), false);
      break;
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    SimFrame f = capture();
    // Paced: a frame of simulated time takes at least as long on the wall
    // clock (a solver faster than real time waits; Pause still answers at once).
    if (realTime_) {
      const auto due = t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                std::chrono::duration<double>(steps * sim_->dt()));
      for (auto now = std::chrono::steady_clock::now(); !stop_ && now < due; now = std::chrono::steady_clock::now())
        std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(std::chrono::milliseconds(5), due - now));
    }
    bool full = false;
    {
      std::lock_guard lock(mutex_);
      realtime_ = wall > 0 ? steps * sim_->dt() / wall : 0;
      msPerStep_ = 1000 * wall / steps;
      frames_.push_back(std::move(f));
      full = int(frames_.size()) >= kMaxFrames;
    }
    ++done;
    if (cb_.frame) cb_.frame();
    if (full) {
      if (cb_.warning) cb_.warning("the timeline is full (" + std::to_string(kMaxFrames) + " frames); paused");
      break;
    }
  }
  applyQueued();  // what came in during the last frame (a released mouse spring)
  done_ = true;
  if (cb_.ended) cb_.ended();
}

// ---------------------------------------------------------------------------
// Timeline

int SimulationWorker::frameCount() const {
  std::lock_guard lock(mutex_);
  return int(frames_.size());
}

std::optional<SimFrame> SimulationWorker::frame(int index) const {
  std::lock_guard lock(mutex_);
  if (index < 0 || index >= int(frames_.size())) return std::nullopt;
  return frames_[size_t(index)];
}

double SimulationWorker::lastTime() const {
  std::lock_guard lock(mutex_);
  return frames_.empty() ? 0.0 : frames_.back().time;
}

uint64_t SimulationWorker::revision() const {
  std::lock_guard lock(mutex_);
  return revision_;
}

std::vector<SimMeasures> SimulationWorker::measures(int first, uint64_t* outRevision) const {
  std::lock_guard lock(mutex_);
  if (outRevision) *outRevision = revision_;
  std::vector<SimMeasures> out;
  for (size_t i = size_t(std::max(first, 0)); i < frames_.size(); ++i) out.push_back(frames_[i].measures);
  return out;
}

SimulatedAnimation SimulationWorker::animation() const {
  SimulatedAnimation a;
  std::lock_guard lock(mutex_);
  a.frameTime = frameTime_;
  if (!sim_ || frames_.empty()) return a;
  a.triangles = triangles_;
  for (const SimFrame& f : frames_) {
    a.surfaces.push_back(f.surface);
    a.jointPoses.push_back(f.joints);
  }
  return a;
}

double SimulationWorker::realtimeFactor() const {
  std::lock_guard lock(mutex_);
  return realtime_;
}

double SimulationWorker::msPerStep() const {
  std::lock_guard lock(mutex_);
  return msPerStep_;
}

std::vector<ModalBodyInfo> SimulationWorker::modalBodies() const {
  std::lock_guard lock(mutex_);
  return modal_;
}

ObjectId SimulationWorker::surfaceMesh() const {
  std::lock_guard lock(mutex_);
  return surface_;
}

std::vector<Tri> SimulationWorker::triangles() const {
  std::lock_guard lock(mutex_);
  return triangles_;
}

const RodLayout* SimulationWorker::rodLayout() const {
  std::lock_guard lock(mutex_);
  return sim_ ? sim_->rodLayout() : nullptr;
}

}  // namespace sinew::app
