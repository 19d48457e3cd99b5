#include "SimulationController.h"

#include "solver/Solvers.h"

#include "li2019/Li2019Simulation.h"
#include "sheth2015/Sheth2015Simulation.h"
#include "viper/ViperSimulation.h"

#include "core/Error.h"
#include "core/Hash.h"

#include <QKeyEvent>
#include <QMetaObject>
#include <QMouseEvent>
#include <QTimer>

#include <chrono>
#include <cmath>

namespace sinew::app {

SimulationController::SimulationController(Document* doc, ViewportWidget* view, Log* log, ViewportInteraction* inner,
                                           QObject* parent)
    : QObject(parent), doc_(doc), view_(view), log_(log), inner_(inner) {
  view_->setInteraction(this);
  replay_ = new QTimer(this);
  replay_->setInterval(int(std::lround(kFrameTime * 1000)));
  connect(replay_, &QTimer::timeout, this, &SimulationController::replayTick);
  // A replaced project drops the simulation; an edited one outdates the model.
  connect(doc_, &Document::structureChanged, this, [this] { clear(); });
  // A new project plays nothing of the old one: no controller, no clip.
  connect(doc_, &Document::projectReplaced, this, [this] {
    controller_.reset();
    kinematicClip_.reset();
    reference_.reset();
    policy_.reset();
  });
  auto outdate = [this] {
    if (frameCount() > 0 && !modelDirty_) {
      modelDirty_ = true;
      emit stateChanged();
    }
  };
  connect(doc_, &Document::objectChanged, this, outdate);
  // Project::simulation: new materials outdate the model; the scene applies at once.
  connect(doc_, &Document::settingsChanged, this, [this, outdate] {
    if (liu2013::modelOptionsFor(doc_->project().simulation) != modelOptions_) outdate();
    updateColliderMeshes();
    setDrive(drive_, clip_);
  });
  connect(doc_, &Document::structureChanged, this, [this] { updateColliderMeshes(); });
  updateColliderMeshes();
}

SimulationController::~SimulationController() { stopWorker(); }

// ---------------------------------------------------------------------------
// Settings

liu2013::Settings SimulationController::currentSettings() const {
  liu2013::Settings s;
  liu2013::applyScene(doc_->project().simulation, s);
  s.toggles = toggles_;
  s.drive = controller_ ? DriveMode::Hold : drive_;  // a controller's policy replaces the drive
  if (kinematicClip_) {
    s.drive = DriveMode::Kinematic;
    s.clip = *kinematicClip_;
    s.loopClip = false;
  } else if (s.drive != DriveMode::Hold) {
    if (const ClipObject* c = doc_->project().findClip(clip_)) s.clip = c->clip;
    else s.drive = DriveMode::Hold;
  }
  return s;
}

void SimulationController::setSolver(Solver kind) {
  if (kind == solverKind_ && !controller_ && !kinematicClip_) return;
  clear();
  // Choosing a solver ends a controller's or a clip's playback: the chosen solver runs.
  if (controller_ || kinematicClip_)
    log_->info(tr("Simulation: %1 ended; the Simulate panel's solver runs")
                   .arg(controller_ ? tr("controller '%1'").arg(QString::fromStdString(controller_->name))
                                    : tr("the clip's playback")));
  controller_.reset();
  kinematicClip_.reset();
  solverKind_ = kind;
  emit stateChanged();
}

namespace {

// Li 2019 drives bones kinematically: the Kinematic and PD drives both play
// the clip on the bones (the flesh follows physically); Hold leaves the
// character passive. Throws InputError when the clip does not fit the skeleton.
void applyMotion(li2019::Li2019Simulation& li, const liu2013::Settings& s) {
  if (s.drive == DriveMode::Hold || !s.clip) {
    if (li.motion()) li.setMotion(std::nullopt);
    return;
  }
  if (li.motion() && li.motion()->name == s.clip->name) return;
  li.setMotion(*s.clip, s.loopClip);
}

// VIPER moves the skeleton kinematically too (its bones carry the pinned rod
// ends and collide as pills): the same rules as Li 2019.
void applyMotion(viper::ViperSimulation& v, const liu2013::Settings& s) {
  if (s.drive == DriveMode::Hold || !s.clip) {
    if (v.motion()) v.setMotion(std::nullopt);
    return;
  }
  if (v.motion() && v.motion()->name == s.clip->name) return;
  v.setMotion(*s.clip, s.loopClip);
}

// Sheth 2015: the clip moves the root bone's body (the pelvis) kinematically;
// the other deformable bones hang from it and swing (like sinew-cli
// simulate --motion CLIP --driven-bones Hips).
void applyMotion(sheth2015::Sheth2015Simulation& sh, const liu2013::Settings& s) {
  if (s.drive == DriveMode::Hold || !s.clip) {
    if (sh.motion()) sh.setMotion(std::nullopt, {});
    return;
  }
  if (sh.motion() && sh.motion()->name == s.clip->name) return;
  sh.setMotion(*s.clip, {sh.bones().bodyNames.front()}, s.loopClip);
}

void applyActivation(viper::ViperSimulation& v, double activation) {
  for (size_t b = 0; b < v.bodyCount(); ++b) v.setActivation(b, activation);
}

}  // namespace

void SimulationController::pushSettings(const liu2013::Settings& s) {
  if (liu_) {
    liu_->setSettings(s);
  } else if (li_ || viper_ || sheth_) {
    solver_->setToggles(s.toggles);  // gravity and contact
    try {
      if (li_) applyMotion(*li_, s);
      else if (viper_) applyMotion(*viper_, s);
      else applyMotion(*sheth_, s);
    } catch (const std::exception& e) {
      const QString msg = QString::fromStdString(e.what());
      QMetaObject::invokeMethod(this, [this, msg] { log_->warning(tr("Simulation: %1; the bones stay passive").arg(msg)); },
                                Qt::QueuedConnection);
    }
  } else if (solver_) {
    solver_->setToggles(s.toggles);
  }
}

void SimulationController::setDrive(DriveMode mode, ObjectId clip) {
  kinematicClip_.reset();
  drive_ = mode;
  clip_ = clip;
  if (mode != DriveMode::Hold && !doc_->project().findClip(clip))
    log_->warning(tr("Simulation: the %1 drive needs a motion clip; holding the pose").arg(driveModeName(mode)));
  applySettings();
}

void SimulationController::applySettings() {
  const liu2013::Settings s = currentSettings();
  if (simulating()) {
    std::lock_guard lock(mutex_);
    pendingSettings_ = s;
  } else if (solver_) {
    pushSettings(s);
  }
}

void SimulationController::setController(std::optional<ControllerObject> controller, bool feedback) {
  clear();
  kinematicClip_.reset();
  controller_ = std::move(controller);
  controllerFeedback_ = feedback && controller_ && !controller_->feedback.empty();
  if (controller_)
    log_->info(tr("Simulation: playing controller '%1' (%2 windows, %3 s)%4")
                   .arg(QString::fromStdString(controller_->name))
                   .arg(controller_->windows.size())
                   .arg(controller_->duration(), 0, 'f', 2)
                   .arg(controllerFeedback_ ? tr(" with feedback") : QString()));
  emit stateChanged();
}

void SimulationController::setKinematicClip(MotionClip clip) {
  clear();
  controller_.reset();
  log_->info(tr("Simulation: playing '%1' kinematically (%2 s)").arg(QString::fromStdString(clip.name)).arg(clip.duration(), 0, 'f', 2));
  kinematicClip_ = std::move(clip);
  emit stateChanged();
}

void SimulationController::setActivation(double activation) {
  activation_ = std::clamp(activation, 0.0, 1.0);
  if (simulating()) {
    std::lock_guard lock(mutex_);
    pendingActivation_ = activation_;
  } else if (viper_) {
    applyActivation(*viper_, activation_);
  }
}

static const SolverParams& noSolverParams() {
  static const SolverParams none;
  return none;
}

const SolverParams& SimulationController::solverParams(Solver kind) const {
  const auto it = params_.find(kind);
  return it == params_.end() ? noSolverParams() : it->second;
}

void SimulationController::setSolverParam(Solver kind, const std::string& name, double value) {
  SolverParams p = solverParams(kind);
  p[name] = value;
  validateParams(kind, p);  // the editors keep to the table's ranges: a refusal here is a programming error
  if (params_[kind] == p) return;
  params_[kind] = std::move(p);
  // A built model keeps its parameters until the next Play or Reset rebuilds it.
  if (solverKind_ == kind && frameCount() > 0 && !modelDirty_) {
    modelDirty_ = true;
    emit stateChanged();
  }
}

void SimulationController::setToggles(const SimToggles& t) {
  toggles_ = t;
  applySettings();
}

// ---------------------------------------------------------------------------
// Run control

bool SimulationController::replaying() const { return replay_->isActive(); }

void SimulationController::play() {
  if (active()) return;
  if (loop_ && frameCount() > 1) {
    if (shownFrame_ >= frameCount() - 1) showFrame(0);
    replay_->start();
    emit stateChanged();
    return;
  }
  startWorker(-1);
}

void SimulationController::pause() {
  replay_->stop();
  const bool wasSimulating = simulating();
  stopWorker();
  if (wasSimulating) {
    // Frames queued for display before the worker stopped: show the last one.
    std::lock_guard lock(mutex_);
    realtime_ = workerRealtime_;
    msPerStep_ = workerMsPerStep_;
    if (solver_) surfaceId_ = solver_->surfaceMesh();
  }
  if (wasSimulating && frameCount() > 0) showFrame(frameCount() - 1);
  emit stateChanged();
}

void SimulationController::togglePlay() {
  if (active()) pause();
  else play();
}

void SimulationController::step() {
  if (active()) return pause();
  startWorker(1);
}

void SimulationController::reset() {
  pause();
  if (modelDirty_) {
    clear();
    log_->info(tr("Simulation reset: the model is rebuilt on the next Play"));
    return;
  }
  {
    std::lock_guard lock(mutex_);
    if (!solver_ || frames_.empty()) return;
    solver_->restore(*frames_.front().snapshot);
    solver_->setGrab(std::nullopt);
    frames_.resize(1);
    ++framesRevision_;
  }
  showFrame(0);
  emit stateChanged();
}

void SimulationController::clear() {
  replay_->stop();
  stopWorker();
  {
    std::lock_guard lock(mutex_);
    solver_.reset();
    liu_ = nullptr;
    li_ = nullptr;
    viper_ = nullptr;
    sheth_ = nullptr;
    modalBodies_.clear();
    modeScale_.clear();
    pillSegments_.clear();
    boneSegments_.clear();
    pillRestRadius_.clear();
    bodyNodes_ = 0;
    pendingActivation_.reset();
    model_.reset();
    triangles_.clear();
    followers_ = Followers();
    reference_.reset();
    policy_.reset();
    frames_.clear();
    ++framesRevision_;
    pendingSettings_.reset();
  }
  surfaceId_ = 0;
  shownFrame_ = -1;
  shownTime_ = 0;
  shownMesh_ = {};
  shownJoints_.clear();
  shownGhost_.clear();
  shownOthers_.clear();
  shownPills_ = {};
  shownBones_ = {};
  shownHasPills_ = false;
  showingMode_ = false;
  modelDirty_ = false;
  grabbing_ = false;
  realtime_ = msPerStep_ = 0;
  ++shownVersion_;
  view_->update();
  emit framesChanged();
  emit stateChanged();
}

void SimulationController::startWorker(int frames) {
  if (simulating()) return;
  if (modelDirty_) clear();  // rebuild with the new materials
  lastError_.clear();
  const liu2013::Settings settings = currentSettings();
  {
    std::lock_guard lock(mutex_);
    if (solver_) {
      // Resume from the displayed frame: later frames are dropped.
      if (shownFrame_ >= 0 && shownFrame_ + 1 < int(frames_.size())) {
        solver_->restore(*frames_[size_t(shownFrame_)].snapshot);
        frames_.resize(size_t(shownFrame_) + 1);
        ++framesRevision_;
      }
      pushSettings(settings);
      if (viper_) applyActivation(*viper_, activation_);
      pendingActivation_.reset();
      if (int(frames_.size()) >= kMaxFrames) {
        log_->warning(tr("Simulation: the timeline is full (%1 frames); Reset or scrub back").arg(kMaxFrames));
        return;
      }
    }
    pendingSettings_.reset();
  }
  if (!solver_) {
    if (solverKind_ == Solver::Sheth2015 && !controller_ && !kinematicClip_) {
      log_->info(tr("Simulation: building the Sheth 2015 deformable bones (%1 modes per body)...").arg(shethModes()));
      if (settings.drive != DriveMode::Hold && settings.clip)
        log_->info(tr("Simulation: Sheth 2015: the pelvis follows '%1' kinematically, the other bones hang from it")
                       .arg(QString::fromStdString(settings.clip->name)));
    } else if (solverKind_ == Solver::Viper && !controller_ && !kinematicClip_)
      log_->info(settings.drive != DriveMode::Hold && settings.clip
                     ? tr("Simulation: building the VIPER rods (bones driven kinematically by '%1', activation %2)...")
                           .arg(QString::fromStdString(settings.clip->name))
                           .arg(activation_, 0, 'f', 2)
                     : tr("Simulation: building the VIPER rods (skeleton at rest, activation %1)...")
                           .arg(activation_, 0, 'f', 2));
    else if (solverKind_ == Solver::Li2019 && !controller_ && !kinematicClip_)
      log_->info(settings.drive != DriveMode::Hold && settings.clip
                     ? tr("Simulation: building the Li 2019 model (conforming mesh, bones driven kinematically by '%1')...")
                           .arg(QString::fromStdString(settings.clip->name))
                     : tr("Simulation: building the Li 2019 model (conforming mesh, passive character)..."));
    else
      log_->info(tr("Simulation: building the Liu 2013 model..."));
    modelOptions_ = liu2013::modelOptionsFor(doc_->project().simulation);
  }
  stop_ = false;
  workerDone_ = false;
  // The project is copied: the worker never reads the Document.
  Project project = solver_ ? Project{} : doc_->project();
  const double activation = activation_;
  SolverParams params = solverParams(solverKind_);
  building_ = !solver_;
  postedProgress_ = -1;
  worker_ = std::thread([this, project = std::move(project), frames, settings, activation, params]() mutable {
    workerLoop(settings, std::move(project), frames, activation, std::move(params));
  });
  emit stateChanged();
}

void SimulationController::stopWorker() {
  stop_ = true;
  if (worker_.joinable()) worker_.join();
  stop_ = false;
}

SimulationController::Frame SimulationController::captureFrame() const {
  Frame f;
  f.time = solver_->time();
  if (viper_) {
    // Every skinned body (the first is the one the grab and the export use) and the rods.
    std::vector<std::pair<ObjectId, std::vector<Vec3>>> surfaces = viper_->surfaces();
    if (!surfaces.empty()) {
      f.surface = std::move(surfaces.front().second);
      surfaces.erase(surfaces.begin());
    }
    f.otherSurfaces = std::move(surfaces);
    const viper::RodState& state = viper_->solver().state();
    f.pillCentres = state.c;
    f.pillRadii.resize(state.c.size());
    for (size_t i = 0; i < state.c.size(); ++i) f.pillRadii[i] = state.s[i] * viper_->model().restRadius[i];
  } else {
    f.surface = solver_->surfacePositions();
  }
  f.joints = solver_->jointPoses();
  // The character's other meshes (eyes, props, parts left separate) ride on the simulated skeleton.
  if (!viper_) f.otherSurfaces = followers_.pose(f.joints);
  f.measures = solver_->measure();  // microseconds: a sum over nodes and elements
  f.snapshot = std::shared_ptr<const SimSnapshot>(solver_->snapshot());
  if (reference_ && policy_) {
    const double t = policy_->referenceTime(f.time - 0.5 * solver_->dt());
    const dyn::LinkKinematics k = dyn::forwardKinematics(reference_->bodyModel(), reference_->pose(t));
    for (const Transform& x : k.pose) f.ghost.push_back(x.translation);
  }
  return f;
}

void SimulationController::workerLoop(liu2013::Settings settings, Project project, int frames, double activation,
                                      SolverParams params) {
  auto post = [this](auto fn) { QMetaObject::invokeMethod(this, fn, Qt::QueuedConnection); };
  bool builtHere = false;
  try {
    if (!solver_) {
      if (solverKind_ == Solver::Liu2013) settings.threads = int(paramValue(Solver::Liu2013, params, "threads"));
      std::shared_ptr<const liu2013::Liu2013Model> model;
      std::unique_ptr<liu2013::Liu2013Solver> solver;
      std::shared_ptr<const control::ReferenceMotion> reference;
      std::shared_ptr<const control::ControllerPolicy> policy;
      if (controller_) {
        control::ControllerRun run = control::prepareControllerRun(project, *controller_, settings, controllerFeedback_);
        model = run.model;
        solver = std::move(run.solver);
        reference = run.reference;
        policy = run.policy;
      } else if (solverKind_ == Solver::Liu2013) {
        model = liu2013::buildLiu2013Model(project, liu2013::modelOptionsFor(project.simulation));  // = modelOptions_
        solver = std::make_unique<liu2013::Liu2013Solver>(model, settings);
      }
      std::unique_ptr<Simulation> built;
      std::vector<Tri> triangles;
      liu2013::Liu2013Solver* liu = solver.get();
      li2019::Li2019Simulation* liPtr = nullptr;
      viper::ViperSimulation* viperPtr = nullptr;
      sheth2015::Sheth2015Simulation* shethPtr = nullptr;
      std::vector<ModalBody> modal;
      std::vector<std::array<int32_t, 2>> segments, boneSegments;
      std::vector<double> restRadius;
      size_t bodyNodes = 0;
      if (solver) {
        triangles = model->surfaceTriangles;
        built = std::move(solver);
      } else if (solverKind_ == Solver::Sheth2015) {
        // Deformable bones cut from the cage (like sinew-cli simulate --solver sheth2015), passive
        // or with the pelvis driven by the clip, with the project's material, ground and colliders. Decomposition and modal analysis
        // take seconds: the panel shows their progress.
        auto progress = [this, post](double f) {
          const int percent = std::clamp(int(f * 100), 0, 100);
          if (percent != postedProgress_.exchange(percent)) post([this, f] { emit buildProgress(f); });
        };
        std::unique_ptr<Simulation> made = makeSimulation(project, SolverKind::Sheth2015, params, progress);
        auto* sh = static_cast<sheth2015::Sheth2015Simulation*>(made.get());
        sh->setToggles(settings.toggles);
        applyMotion(*sh, settings);
        triangles = sh->surfaceTriangles();
        const sheth2015::DeformableBones& bones = sh->bones();
        for (size_t k = 0; k < bones.models.size(); ++k) {
          ModalBody b;
          b.name = QString::fromStdString(k < bones.bodyNames.size() ? bones.bodyNames[k] : bones.models[k]->name);
          const Eigen::VectorXd& f = bones.models[k]->frequencies;
          b.frequencies.assign(f.data(), f.data() + f.size());
          modal.push_back(std::move(b));
        }
        const QString summary = tr("Simulation: Sheth 2015: %1 deformable bones, %2 modes each, %3 joints")
                                    .arg(bones.models.size())
                                    .arg(int(paramValue(SolverKind::Sheth2015, params, "modes")))
                                    .arg(sh->world().joints().size());
        post([this, summary] { log_->info(summary); });
        shethPtr = sh;
        built = std::move(made);
      } else if (solverKind_ == Solver::Viper) {
        // VIPER on the project's rod bodies, with the project's ground (like sinew-cli simulate --solver viper).
        std::unique_ptr<Simulation> made = makeSimulation(project, SolverKind::Viper, params);
        auto* v = static_cast<viper::ViperSimulation*>(made.get());
        v->setToggles(settings.toggles);
        applyActivation(*v, activation);
        applyMotion(*v, settings);
        if (const MeshObject* m = project.findMesh(v->surfaceMesh())) triangles = m->mesh.triangles;
        // The pills' topology: consecutive nodes of every rod; the bones' capsules come last.
        const viper::RodModel& rods = v->model();
        const auto bodyRods = size_t(v->input().bodyFirstRod.back());
        bodyNodes = v->bodyNodeEnd();
        const auto firstBone = int32_t(bodyNodes);
        for (size_t k = 0; k < rods.rodCount(); ++k)
          for (int32_t i = rods.first[k]; i + 1 < rods.first[k + 1]; ++i) {
            if (k < bodyRods) segments.push_back({i, i + 1});
            else boneSegments.push_back({i - firstBone, i + 1 - firstBone});  // numbered from the first bone node
          }
        restRadius = rods.restRadius;
        viperPtr = v;
        built = std::move(made);
      } else {
        // Li 2019 on the conforming mesh, with the project's ground and colliders.
        std::unique_ptr<Simulation> made = makeSimulation(project, SolverKind::Li2019, params);
        auto* li = static_cast<li2019::Li2019Simulation*>(made.get());
        li->setToggles(settings.toggles);
        applyMotion(*li, settings);
        liPtr = li;
        triangles = li->surfaceTriangles();
        built = std::move(made);
      }
      std::lock_guard lock(mutex_);
      model_ = model;
      solver_ = std::move(built);
      liu_ = liu;
      li_ = liPtr;
      viper_ = viperPtr;
      sheth_ = shethPtr;
      modalBodies_ = std::move(modal);
      pillSegments_ = std::move(segments);
      boneSegments_ = std::move(boneSegments);
      pillRestRadius_ = std::move(restRadius);
      bodyNodes_ = bodyNodes;
      triangles_ = std::move(triangles);
      followers_ = viperPtr ? Followers() : Followers(project, solver_->surfaceMesh());
      frameTime_ = std::max(kFrameTime, solver_->dt());
      reference_ = reference;
      policy_ = policy;
      frames_.clear();
      ++framesRevision_;
      frames_.push_back(captureFrame());
      builtHere = true;
    }
  } catch (const std::exception& e) {
    building_ = false;
    const QString msg = QString::fromStdString(e.what());
    post([this, msg] { onWorkerFailed(msg, true); });
    workerDone_ = true;
    post([this] { onWorkerEnded(); });
    return;
  }
  building_ = false;
  if (builtHere) post([this] { onFrame(); });

  int done = 0;
  while (!stop_ && (frames < 0 || done < frames)) {
    {
      std::lock_guard lock(mutex_);
      if (pendingSettings_) {
        pushSettings(*pendingSettings_);
        pendingSettings_.reset();
      }
      if (grabChanged_) {
        solver_->setGrab(pendingGrab_);
        grabChanged_ = false;
      }
      if (pendingActivation_) {
        if (viper_) applyActivation(*viper_, *pendingActivation_);
        pendingActivation_.reset();
      }
    }
    const int steps = std::max(1, int(std::lround(frameTime_ / solver_->dt())));
    const auto t0 = std::chrono::steady_clock::now();
    try {
      for (int i = 0; i < steps; ++i) solver_->step();
    } catch (const SimulationError& e) {
      const QString msg = QString::fromStdString(e.what());
      post([this, msg] { onWorkerFailed(msg, false); });
      break;
    } catch (const std::exception& e) {
      const QString msg = QString::fromStdString(e.what());
      post([this, msg] { onWorkerFailed(msg, false); });
      break;
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    Frame f = captureFrame();
    // Paced: a frame of simulated time takes at least as long on the wall
    // clock (a solver faster than real time waits; Pause still answers at once).
    if (realTime_) {
      const auto due = t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                std::chrono::duration<double>(steps * solver_->dt()));
      for (auto now = std::chrono::steady_clock::now(); !stop_ && now < due; now = std::chrono::steady_clock::now())
        std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(std::chrono::milliseconds(5), due - now));
    }
    bool full = false;
    {
      std::lock_guard lock(mutex_);
      workerRealtime_ = wall > 0 ? steps * solver_->dt() / wall : 0;
      workerMsPerStep_ = 1000 * wall / steps;
      frames_.push_back(std::move(f));
      full = int(frames_.size()) >= kMaxFrames;
    }
    ++done;
    post([this] { onFrame(); });
    if (full) {
      post([this] {
        log_->warning(tr("Simulation: the timeline is full (%1 frames); paused").arg(kMaxFrames));
      });
      break;
    }
  }
  workerDone_ = true;
  post([this] { onWorkerEnded(); });
}

void SimulationController::onFrame() {
  int n = 0;
  {
    std::lock_guard lock(mutex_);
    n = int(frames_.size());
    realtime_ = workerRealtime_;
    msPerStep_ = workerMsPerStep_;
    if (solver_) surfaceId_ = solver_->surfaceMesh();
  }
  if (n > 0 && (simulating() || shownFrame_ < 0)) showFrame(n - 1);
  emit framesChanged();
}

void SimulationController::onWorkerFailed(const QString& message, bool build) {
  lastError_ = message;
  if (build) {
    log_->error(tr("Cannot simulate: %1").arg(message));
    emit failed(tr("Cannot simulate"), message);
  } else {
    log_->error(tr("Simulation stopped: %1").arg(message));
    emit failed(tr("Simulation stopped"), message);
  }
}

void SimulationController::onWorkerEnded() {
  if (worker_.joinable() && workerDone_) {
    worker_.join();
    onFrame();
    emit stateChanged();
  }
}

// ---------------------------------------------------------------------------
// Timeline

int SimulationController::frameCount() const {
  std::lock_guard lock(mutex_);
  return int(frames_.size());
}

double SimulationController::simulatedTime() const {
  std::lock_guard lock(mutex_);
  return frames_.empty() ? 0.0 : frames_.back().time;
}

std::vector<Vec3> SimulationController::frameSurface(int index) const {
  std::lock_guard lock(mutex_);
  if (index < 0 || index >= int(frames_.size())) return {};
  return frames_[size_t(index)].surface;
}

SimulatedAnimation SimulationController::recordedAnimation() const {
  SimulatedAnimation a;
  std::lock_guard lock(mutex_);
  a.frameTime = frameTime_;
  if (!solver_ || frames_.empty()) return a;
  a.triangles = triangles_;
  for (const Frame& f : frames_) {
    a.surfaces.push_back(f.surface);
    a.jointPoses.push_back(f.joints);
  }
  return a;
}

render::PillSet SimulationController::pillsOf(const Frame& f, bool bones) const {
  render::PillSet pills;
  if (f.pillCentres.empty()) return pills;
  // The bodies' nodes [0, bodyNodes_), or the bones' nodes after them.
  const size_t n = std::min(f.pillCentres.size(), f.pillRadii.size());
  const size_t begin = bones ? std::min(bodyNodes_, n) : 0, end = bones ? n : std::min(bodyNodes_, n);
  pills.centres.assign(f.pillCentres.begin() + long(begin), f.pillCentres.begin() + long(end));
  pills.radii.assign(f.pillRadii.begin() + long(begin), f.pillRadii.begin() + long(end));
  pills.scales.resize(pills.radii.size(), 1.0);
  for (size_t i = 0; i < pills.radii.size() && begin + i < pillRestRadius_.size(); ++i)
    if (pillRestRadius_[begin + i] > 0) pills.scales[i] = pills.radii[i] / pillRestRadius_[begin + i];
  pills.segments = bones ? boneSegments_ : pillSegments_;
  return pills;
}

render::PillSet SimulationController::framePills(int index) const {
  std::lock_guard lock(mutex_);
  if (index < 0 || index >= int(frames_.size())) return {};
  return pillsOf(frames_[size_t(index)]);
}

std::vector<std::pair<ObjectId, std::vector<Vec3>>> SimulationController::frameOtherSurfaces(int index) const {
  std::lock_guard lock(mutex_);
  if (index < 0 || index >= int(frames_.size())) return {};
  return frames_[size_t(index)].otherSurfaces;
}

std::vector<SimMeasures> SimulationController::frameMeasures(int first, uint64_t* outRevision) const {
  std::lock_guard lock(mutex_);
  if (outRevision) *outRevision = framesRevision_;
  std::vector<SimMeasures> out;
  for (size_t i = size_t(std::max(first, 0)); i < frames_.size(); ++i) out.push_back(frames_[i].measures);
  return out;
}

std::shared_ptr<const liu2013::Liu2013Model> SimulationController::model() const {
  std::lock_guard lock(mutex_);
  return model_;
}

void SimulationController::showFrame(int index) {
  {
    std::lock_guard lock(mutex_);
    if (frames_.empty()) return;
    index = std::clamp(index, 0, int(frames_.size()) - 1);
    const Frame& f = frames_[size_t(index)];
    shownMesh_.positions = f.surface;
    shownJoints_ = f.joints;
    shownGhost_ = f.ghost;
    shownTime_ = f.time;
    if (const MeshObject* m = doc_->project().findMesh(surfaceId_);
        m && m->mesh.vertexCount() == shownMesh_.positions.size())
      shownMesh_.triangles = m->mesh.triangles;
    else if (!triangles_.empty())
      shownMesh_.triangles = triangles_;
    // VIPER: the other skinned surfaces (with their project triangles) and the pills.
    shownOthers_.clear();
    for (const auto& [id, positions] : f.otherSurfaces)
      if (const MeshObject* m = doc_->project().findMesh(id); m && m->mesh.vertexCount() == positions.size())
        shownOthers_.push_back({id, TriMesh{positions, m->mesh.triangles}});
    shownHasPills_ = !f.pillCentres.empty();
    shownPills_ = shownHasPills_ ? render::pillGeometry(pillsOf(f)) : render::PillGeometry{};
    shownBones_ = shownHasPills_ ? render::pillGeometry(pillsOf(f, true), 10) : render::PillGeometry{};
  }
  shownFrame_ = index;
  showingMode_ = false;
  ++shownVersion_;
  view_->update();
  emit framesChanged();
}

std::vector<SimulationController::ModalBody> SimulationController::modalBodies() const {
  std::lock_guard lock(mutex_);
  return modalBodies_;
}

bool SimulationController::showMode(int body, int mode, double amplitude) {
  // The worker owns the solver while it runs; the mode viewer waits for a pause.
  if (simulating() || !sheth_ || shownFrame_ < 0) return false;
  const auto& models = sheth_->bones().models;
  if (body < 0 || size_t(body) >= models.size()) return false;
  const sheth2015::ReducedBodyModel& m = *models[size_t(body)];
  if (mode < 0 || mode >= m.modeCount()) return false;
  // q in the basis' units, scaled so that the surface's most displaced vertex moves by
  // `amplitude` m (the surface is linear in q: its displacement at q = 1, once per mode).
  const auto key = std::make_pair(body, mode);
  auto scale = modeScale_.find(key);
  if (scale == modeScale_.end()) {
    const std::vector<Vec3> rest = sheth_->modeShape(size_t(body), mode, 0.0);
    const std::vector<Vec3> unit = sheth_->modeShape(size_t(body), mode, 1.0);
    double peak = 0;
    for (size_t i = 0; i < rest.size() && i < unit.size(); ++i) peak = std::max(peak, (unit[i] - rest[i]).norm());
    scale = modeScale_.emplace(key, peak > 0 ? 1.0 / peak : 0.0).first;
  }
  if (!(scale->second > 0)) return false;
  std::vector<Vec3> shape = sheth_->modeShape(size_t(body), mode, amplitude * scale->second);
  if (shape.size() != shownMesh_.positions.size()) return false;
  shownMesh_.positions = std::move(shape);
  {
    // The shape is drawn on the rest placement: so is the skeleton.
    std::lock_guard lock(mutex_);
    if (!frames_.empty()) shownJoints_ = frames_.front().joints;
  }
  showingMode_ = true;
  ++shownVersion_;
  view_->update();
  return true;
}

void SimulationController::hideMode() {
  if (!showingMode_) return;
  showingMode_ = false;
  if (shownFrame_ >= 0) showFrame(shownFrame_);
}

void SimulationController::replayTick() {
  const int n = frameCount();
  if (n <= 1) return pause();
  showFrame(shownFrame_ + 1 >= n ? 0 : shownFrame_ + 1);
}

// ---------------------------------------------------------------------------
// Viewport

void SimulationController::setHighlightedCollider(const QString& name) {
  highlightedCollider_ = name;
  view_->update();
}

void SimulationController::updateColliderMeshes() {
  const std::vector<Collider>& colliders = doc_->project().simulation.colliders;
  colliderMeshes_.clear();
  colliderRevisions_.clear();
  for (const Collider& c : colliders) {
    colliderMeshes_.push_back(dyn::colliderMesh(c, 32));
    // A revision from the collider's values: the renderer re-uploads when they change.
    const double values[] = {double(c.shape), c.center.x(), c.center.y(), c.center.z(), c.rotationDegrees.x(),
                             c.rotationDegrees.y(), c.rotationDegrees.z(), c.size.x(), c.size.y(), c.size.z()};
    colliderRevisions_.push_back(fnv1a64(values, sizeof(values)));
  }
  view_->update();
}

void SimulationController::decorate(render::FrameScene& scene) {
  if (inner_) inner_->decorate(scene);
  // The scene's colliders and, when it is not at 0, the ground's outline.
  const SimulationSetup& setup = doc_->project().simulation;
  for (size_t i = 0; i < colliderMeshes_.size() && i < setup.colliders.size(); ++i) {
    render::MeshItem item;
    item.key = (uint64_t(1) << 62) + i;
    item.revision = colliderRevisions_[i];
    item.mesh = &colliderMeshes_[i];
    item.color = render::Vec3f(0.45f, 0.62f, 0.78f);
    item.selected = QString::fromStdString(setup.colliders[i].name) == highlightedCollider_;
    scene.meshes.push_back(item);
  }
  if (setup.groundHeight && *setup.groundHeight != 0) {
    render::LineItem ground;
    const float y = float(*setup.groundHeight), e = float(scene.gridCell * scene.gridCells / 2);
    const render::Vec3f c(0.55f, 0.5f, 0.35f);
    const render::Vec3f corners[4] = {{-e, y, -e}, {e, y, -e}, {e, y, e}, {-e, y, e}};
    for (int k = 0; k < 4; ++k) ground.add(corners[k], corners[(k + 1) % 4], c);
    for (int k = 1; k < 4; ++k) {
      const float t = -e + 2 * e * k / 4;
      ground.add({t, y, -e}, {t, y, e}, c);
      ground.add({-e, y, t}, {e, y, t}, c);
    }
    scene.lines.push_back(std::move(ground));
  }
  if (shownFrame_ < 0) return;
  // VIPER: the displayed frame's pills replace the rest ones, its skins the rest surfaces.
  if (shownHasPills_) {
    std::erase_if(scene.meshes, [](const render::MeshItem& item) { return ViewportWidget::isRestPillKey(item.key); });
    if (view_->settings().pills && !shownPills_.mesh.triangles.empty()) {
      render::MeshItem pills;
      pills.key = ViewportWidget::kSimulatedPillKey;
      pills.revision = shownVersion_;
      pills.mesh = &shownPills_.mesh;
      pills.vertexColors = &shownPills_.colors;
      pills.colorRevision = shownVersion_;
      scene.meshes.push_back(pills);
    }
    // The bones' capsules, which the muscles' ends ride on and collide with.
    if (view_->settings().pills && !shownBones_.mesh.triangles.empty()) {
      render::MeshItem bones;
      bones.key = ViewportWidget::kSimulatedPillKey + 1;
      bones.revision = shownVersion_;
      bones.mesh = &shownBones_.mesh;
      bones.color = ViewportWidget::kBonePillColor;
      scene.meshes.push_back(bones);
    }
  }
  for (const auto& [id, mesh] : shownOthers_)
    for (render::MeshItem& item : scene.meshes)
      if (item.key == id) {
        item.mesh = &mesh;
        item.revision = item.revision * 1000003u + (uint64_t(1) << 40) + shownVersion_;
      }
  if (!surfaceId_ || shownMesh_.positions.empty()) return;
  // The reference beside the character: a ghost skeleton.
  if (!shownGhost_.empty() && reference_) {
    render::LineItem ghost;
    const render::Vec3f c(0.35f, 0.75f, 1.0f);
    const dyn::ArticulatedModel& body = reference_->bodyModel();
    for (size_t l = 1; l < shownGhost_.size() && l < body.links.size(); ++l) {
      const int32_t parent = body.links[l].parent;
      if (parent < 0) continue;
      ghost.add((shownGhost_[size_t(parent)] + ghostOffset()).cast<float>(), (shownGhost_[l] + ghostOffset()).cast<float>(), c);
    }
    scene.lines.push_back(std::move(ghost));
    render::PointItem joints;
    joints.size = 6.0f;
    for (const Vec3& x : shownGhost_) {
      joints.positions.push_back((x + ghostOffset()).cast<float>());
      joints.colors.push_back(c);
    }
    scene.points.push_back(std::move(joints));
  }
  for (render::MeshItem& item : scene.meshes)
    if (item.key == surfaceId_) {
      item.mesh = &shownMesh_;
      item.revision = item.revision * 1000003u + (uint64_t(1) << 40) + shownVersion_;
    }
  if (grabbing_ && grabVertex_ >= 0 && size_t(grabVertex_) < shownMesh_.positions.size()) {
    render::LineItem line;
    line.onTop = true;
    const Vec3 v = shownMesh_.positions[size_t(grabVertex_)];
    line.add(v.cast<float>(), grabPlanePoint_.cast<float>(), render::Vec3f(1.0f, 0.8f, 0.2f));
    scene.lines.push_back(std::move(line));
  }
}

Aabb SimulationController::extraBounds() const {
  Aabb box = inner_ ? inner_->extraBounds() : Aabb{};
  if (shownFrame_ < 0) return box;
  for (const Vec3& p : shownMesh_.positions) box.add(p);
  for (const auto& [id, mesh] : shownOthers_) box.add(mesh.bounds());
  for (const TriMesh* m : {&shownPills_.mesh, &shownBones_.mesh}) box.add(m->bounds());
  return box;
}

const std::vector<Transform>* SimulationController::jointPose() const {
  if (shownFrame_ >= 0 && !shownJoints_.empty()) return &shownJoints_;
  return inner_ ? inner_->jointPose() : nullptr;
}

void SimulationController::applyGrab(const QPoint& pos) {
  const render::Ray ray = view_->camera().rayThrough(pos.x(), pos.y(), view_->width(), view_->height());
  const double denom = ray.direction.dot(grabPlaneNormal_);
  if (std::abs(denom) < 1e-9) return;
  const double t = (grabPlanePoint_ - ray.origin).dot(grabPlaneNormal_) / denom;
  Grab g;
  g.vertex = grabVertex_;
  g.target = ray.origin + t * ray.direction;
  grabPlanePoint_ = g.target;
  // The spring's stiffness scales with the body's mass (the solvers'
  // default); its stretch is capped, so a long drag pulls at most with
  // kGrabReach of stretch (about 1.5 g with Liu 2013's 30 N/m per kg).
  if (grabVertex_ >= 0 && size_t(grabVertex_) < shownMesh_.positions.size()) {
    const Vec3& at = shownMesh_.positions[size_t(grabVertex_)];
    if ((g.target - at).norm() > kGrabReach) g.target = at + kGrabReach * (g.target - at).normalized();
  }
  if (simulating()) {
    std::lock_guard lock(mutex_);
    pendingGrab_ = g;
    grabChanged_ = true;
  } else if (solver_) {
    solver_->setGrab(g);
  }
  view_->update();
}

bool SimulationController::mousePress(QMouseEvent* e) {
  if (e->button() == Qt::LeftButton && (e->modifiers() & Qt::ControlModifier) && shownFrame_ >= 0 && surfaceId_) {
    const QPoint p = e->position().toPoint();
    // The nearest displayed (simulated) vertex within a few pixels of the
    // cursor: the rest-pose picking of the viewport would miss a moved
    // surface, and joints drawn on top would take the click.
    const render::Ray ray = view_->camera().rayThrough(p.x(), p.y(), view_->width(), view_->height());
    int32_t best = -1;
    double bestDepth = 0;
    for (size_t i = 0; i < shownMesh_.positions.size(); ++i) {
      double x, y;
      const Vec3& q = shownMesh_.positions[i];
      if (!view_->camera().project(q, view_->width(), view_->height(), &x, &y)) continue;
      if (std::hypot(x - p.x(), y - p.y()) > 10) continue;
      const double depth = (q - ray.origin).dot(ray.direction);
      if (best < 0 || depth < bestDepth) {
        best = int32_t(i);
        bestDepth = depth;
      }
    }
    if (best >= 0) {
      grabbing_ = true;
      grabVertex_ = best;
      grabPlanePoint_ = shownMesh_.positions[size_t(best)];
      grabPlaneNormal_ = ray.direction;
      applyGrab(p);
      return true;
    }
  }
  return inner_ && inner_->mousePress(e);
}

bool SimulationController::mouseMove(QMouseEvent* e, bool dragging) {
  if (grabbing_) {
    if (dragging) applyGrab(e->position().toPoint());
    return true;
  }
  return inner_ && inner_->mouseMove(e, dragging);
}

bool SimulationController::mouseRelease(QMouseEvent* e) {
  if (grabbing_) {
    grabbing_ = false;
    grabVertex_ = -1;
    if (simulating()) {
      std::lock_guard lock(mutex_);
      pendingGrab_.reset();
      grabChanged_ = true;
    } else if (solver_) {
      solver_->setGrab(std::nullopt);
    }
    view_->update();
    return true;
  }
  return inner_ && inner_->mouseRelease(e);
}

bool SimulationController::keyPress(QKeyEvent* e) { return inner_ && inner_->keyPress(e); }
bool SimulationController::keyRelease(QKeyEvent* e) { return inner_ && inner_->keyRelease(e); }

}  // namespace sinew::app
