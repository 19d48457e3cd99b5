// The Simulate panel's engine: what to simulate, run control, the frame cache and the HUD (SimulationController.h).
#include "SimulationController.h"

#include "Commands.h"

#include <QMetaObject>
#include <QTimer>

#include <cmath>

namespace sinew::app {

SimulationController::SimulationController(Document* doc, ViewportWidget* view, Log* log, ViewportInteraction* inner,
                                           QObject* parent)
    : QObject(parent),
      doc_(doc),
      view_(view),
      log_(log),
      // The worker reports from its thread: everything goes through the UI thread's queue.
      worker_(SimulationWorker::Callbacks{
          .frame = [this] { QMetaObject::invokeMethod(this, [this] { onFrame(); }, Qt::QueuedConnection); },
          .failed =
              [this](const std::string& what, bool build) {
                const QString msg = QString::fromStdString(what);
                QMetaObject::invokeMethod(this, [this, msg, build] {
                  lastError_ = msg;
                  const QString title = build ? tr("Cannot simulate") : tr("Simulation stopped");
                  log_->error(tr("%1: %2").arg(title, msg));
                  emit failed(title, msg);
                }, Qt::QueuedConnection);
              },
          .warning =
              [this](const std::string& what) {
                const QString msg = QString::fromStdString(what);
                QMetaObject::invokeMethod(this, [this, msg] { log_->warning(tr("Simulation: %1").arg(msg)); },
                                          Qt::QueuedConnection);
              },
          .info =
              [this](const std::string& what) {
                const QString msg = QString::fromStdString(what);
                QMetaObject::invokeMethod(this, [this, msg] { log_->info(tr("Simulation: %1").arg(msg)); },
                                          Qt::QueuedConnection);
              },
          .progress = [this](double f) {
            QMetaObject::invokeMethod(this, [this, f] { emit buildProgress(f); }, Qt::QueuedConnection);
          },
          .ended = [this] { QMetaObject::invokeMethod(this, [this] { onWorkerEnded(); }, Qt::QueuedConnection); },
      }),
      display_(std::make_unique<SimulationView>(doc, view, inner)) {
  display_->setPull([this](const std::optional<Grab>& g) { worker_.change([g](Simulation& s) { s.setGrab(g); }); });
  replay_ = new QTimer(this);
  replay_->setInterval(int(std::lround(kFrameTime * 1000)));
  connect(replay_, &QTimer::timeout, this, &SimulationController::replayTick);
  // A replaced project drops the simulation; an edited one outdates the model.
  connect(doc_, &Document::structureChanged, this, [this] { clear(); });
  // A new project plays nothing of the old one: no controller, no clip.
  connect(doc_, &Document::projectReplaced, this, [this] {
    controller_.reset();
    kinematicClip_.reset();
  });
  auto outdate = [this] {
    if (frameCount() > 0 && !modelDirty_) {
      modelDirty_ = true;
      emit stateChanged();
    }
  };
  connect(doc_, &Document::objectChanged, this, outdate);
  // Project::simulation: new materials outdate the model; the scene applies at once where the solver takes it.
  connect(doc_, &Document::settingsChanged, this, [this, outdate] {
    if (liu2013::modelOptionsFor(doc_->project().simulation) != modelOptions_ || solverParams(builtKind_) != builtParams_)
      outdate();
    display_->updateColliders();
    const SimulationSetup scene = doc_->project().simulation;
    worker_.change([scene](Simulation& s) { s.setScene(scene); });
    setDrive(drive_, clip_);
  });
  connect(doc_, &Document::structureChanged, this, [this] { display_->updateColliders(); });
}

SimulationController::~SimulationController() { worker_.stop(); }

// ---------------------------------------------------------------------------
// What to simulate

Drive SimulationController::currentDrive() const {
  Drive d;
  if (kinematicClip_) {
    d.mode = DriveMode::Kinematic;
    d.clip = *kinematicClip_;
    d.loop = false;
  } else if (!controller_ && drive_ != DriveMode::Hold) {  // a controller's policy replaces the drive
    if (const ClipObject* c = doc_->project().findClip(clip_)) {
      d.mode = drive_;
      d.clip = c->clip;
    }
  }
  return d;
}

SimBuild SimulationController::buildRequest() const {
  SimBuild b;
  b.project = doc_->project();  // a copy: the worker never reads the Document
  b.kind = controller_ ? Solver::Liu2013 : solverKind_;
  b.params = solverParams(b.kind);
  b.controller = controller_;
  b.feedback = controllerFeedback_;
  b.toggles = toggles_;
  b.drive = currentDrive();
  b.activation = activation_;
  return b;
}

void SimulationController::pushDrive() {
  const SimToggles toggles = toggles_;
  const Drive drive = currentDrive();
  worker_.change([toggles, drive](Simulation& s) {
    s.setToggles(toggles);
    s.setDrive(drive);  // an InputError (the clip does not fit) is logged as a warning
  });
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

void SimulationController::setDrive(DriveMode mode, ObjectId clip) {
  kinematicClip_.reset();
  drive_ = mode;
  clip_ = clip;
  if (mode != DriveMode::Hold && !doc_->project().findClip(clip))
    log_->warning(tr("Simulation: the %1 drive needs a motion clip; holding the pose").arg(driveModeName(mode)));
  pushDrive();
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
                   .arg(controllerFeedback_ ? tr(" with feedback") : QString()) +
               (controller_->shove.empty()
                    ? QString()
                    : tr(", shoved (%1, %2, %3) m/s at %4 s")
                          .arg(controller_->shove.velocity.x()).arg(controller_->shove.velocity.y())
                          .arg(controller_->shove.velocity.z()).arg(controller_->shove.time, 0, 'f', 4)));
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
  const double a = activation_;
  worker_.change([a](Simulation& s) { s.setMuscleActivation(a); });
}

static const SolverParams& noSolverParams() {
  static const SolverParams none;
  return none;
}

const SolverParams& SimulationController::solverParams(Solver kind) const {
  const auto& all = doc_->project().simulation.solverParams;
  const auto it = all.find(solverKindName(kind));
  return it == all.end() ? noSolverParams() : it->second;
}

void SimulationController::setSolverParam(Solver kind, const std::string& name, double value) {
  SolverParams p = solverParams(kind);
  p[name] = value;
  validateParams(kind, p);  // the editors keep to the table's ranges: a refusal here is a programming error
  for (const ParamSpec& spec : sinew::solverParams(kind))
    if (spec.name == name && spec.defaultValue == value) p.erase(name);  // the project keeps what differs
  if (solverParams(kind) == p) return;
  SimulationSetup setup = doc_->project().simulation;
  if (p.empty()) setup.solverParams.erase(solverKindName(kind));
  else setup.solverParams[solverKindName(kind)] = std::move(p);
  // One undo step per parameter while it is edited; a built model keeps its
  // parameters until the next Play or Reset rebuilds it (settingsChanged).
  doc_->undoStack()->push(new SetSimulationSetupCommand(
      doc_, std::move(setup), tr("Set %1 %2").arg(solverKindName(kind), QString::fromStdString(name)),
      QString("solver:%1:%2").arg(solverKindName(kind), QString::fromStdString(name))));
}

void SimulationController::setToggles(const SimToggles& t) {
  toggles_ = t;
  pushDrive();
}

void SimulationController::setHighlightedCollider(const QString& name) { display_->setHighlightedCollider(name); }

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
  worker_.stop();
  if (wasSimulating) {
    // Frames queued for display before the worker stopped: show the last one.
    realtime_ = worker_.realtimeFactor();
    msPerStep_ = worker_.msPerStep();
    surfaceId_ = worker_.surfaceMesh();
    if (frameCount() > 0) showFrame(frameCount() - 1);
  }
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
  if (!worker_.rewind()) return;
  showFrame(0);
  emit stateChanged();
}

void SimulationController::clear() {
  replay_->stop();
  worker_.drop();
  modeScale_.clear();
  surfaceId_ = 0;
  shownFrame_ = -1;
  showingMode_ = false;
  modelDirty_ = false;
  realtime_ = msPerStep_ = 0;
  display_->clear();
  display_->setGhostBody(nullptr);
  emit framesChanged();
  emit stateChanged();
}

void SimulationController::startWorker(int frames) {
  if (simulating()) return;
  if (modelDirty_) clear();  // rebuild with the new materials
  lastError_.clear();
  std::optional<SimBuild> build;
  if (worker_.built()) {
    if (frameCount() >= kMaxFrames && shownFrame_ + 1 >= frameCount()) {
      log_->warning(tr("Simulation: the timeline is full (%1 frames); Reset or scrub back").arg(kMaxFrames));
      return;
    }
    pushDrive();
    setActivation(activation_);
  } else {
    build = buildRequest();
    const QString clip = build->drive.clip ? QString::fromStdString(build->drive.clip->name) : QString();
    switch (build->kind) {
      case Solver::Sheth2015:
        log_->info(tr("Simulation: building the Sheth 2015 deformable bones (%1 modes per body)...").arg(shethModes()));
        if (!clip.isEmpty())
          log_->info(tr("Simulation: Sheth 2015: the pelvis follows '%1' kinematically, the other bones hang from it").arg(clip));
        break;
      case Solver::Viper:
        log_->info(!clip.isEmpty()
                       ? tr("Simulation: building the VIPER rods (bones driven kinematically by '%1', activation %2)...")
                             .arg(clip)
                             .arg(activation_, 0, 'f', 2)
                       : tr("Simulation: building the VIPER rods (skeleton at rest, activation %1)...").arg(activation_, 0, 'f', 2));
        break;
      case Solver::Li2019: {
        const QString mesh = paramValue(Solver::Li2019, build->params, "live") != 0 ? tr("the live conforming mesh")
                                                                                   : tr("the full conforming mesh");
        log_->info(!clip.isEmpty()
                       ? tr("Simulation: building the Li 2019 model (%1, bones driven kinematically by '%2')...").arg(mesh, clip)
                       : tr("Simulation: building the Li 2019 model (%1, passive character)...").arg(mesh));
        break;
      }
      case Solver::Liu2013: log_->info(tr("Simulation: building the Liu 2013 model...")); break;
    }
    modelOptions_ = liu2013::modelOptionsFor(doc_->project().simulation);
    builtKind_ = build->kind;
    builtParams_ = build->params;
  }
  worker_.start(std::move(build), frames, shownFrame_);
  emit stateChanged();
}

void SimulationController::onFrame() {
  realtime_ = worker_.realtimeFactor();
  msPerStep_ = worker_.msPerStep();
  surfaceId_ = worker_.surfaceMesh();
  display_->setGhostBody(worker_.reference() ? &worker_.reference()->bodyModel() : nullptr);
  const int n = frameCount();
  if (n > 0 && (simulating() || shownFrame_ < 0)) showFrame(n - 1);
  emit framesChanged();
}

void SimulationController::onWorkerEnded() {
  if (!simulating()) return;
  worker_.join();
  if (simulating()) return;  // a stale report of an earlier run
  onFrame();
  emit stateChanged();
}

void SimulationController::replayTick() {
  const int n = frameCount();
  if (n <= 1) return pause();
  showFrame(shownFrame_ + 1 >= n ? 0 : shownFrame_ + 1);
}

// ---------------------------------------------------------------------------
// Timeline

int SimulationController::frameCount() const { return worker_.frameCount(); }
double SimulationController::simulatedTime() const { return worker_.lastTime(); }

std::vector<Vec3> SimulationController::frameSurface(int index) const {
  const std::optional<SimFrame> f = worker_.frame(index);
  return f ? f->surface : std::vector<Vec3>{};
}

SimulatedAnimation SimulationController::recordedAnimation() const { return worker_.animation(); }

render::PillSet SimulationController::framePills(int index) const {
  const std::optional<SimFrame> f = worker_.frame(index);
  const RodLayout* layout = worker_.rodLayout();
  render::PillSet pills;
  if (!f || !layout || f->rods.centres.empty()) return pills;
  const size_t n = std::min({f->rods.centres.size(), f->rods.radii.size(), layout->bodyNodes});
  pills.centres.assign(f->rods.centres.begin(), f->rods.centres.begin() + long(n));
  pills.radii.assign(f->rods.radii.begin(), f->rods.radii.begin() + long(n));
  pills.scales.resize(n, 1.0);
  for (size_t i = 0; i < n && i < layout->restRadius.size(); ++i)
    if (layout->restRadius[i] > 0) pills.scales[i] = pills.radii[i] / layout->restRadius[i];
  pills.segments = layout->bodySegments;
  return pills;
}

std::vector<std::pair<ObjectId, std::vector<Vec3>>> SimulationController::frameOtherSurfaces(int index) const {
  const std::optional<SimFrame> f = worker_.frame(index);
  return f ? f->otherSurfaces : std::vector<std::pair<ObjectId, std::vector<Vec3>>>{};
}

std::vector<SimMeasures> SimulationController::frameMeasures(int first, uint64_t* outRevision) const {
  return worker_.measures(first, outRevision);
}

std::shared_ptr<const liu2013::Liu2013Model> SimulationController::model() const {
  const Simulation* s = worker_.idleSolver();
  const auto* liu = dynamic_cast<const liu2013::Liu2013Solver*>(s);
  return liu ? liu->sharedModel() : nullptr;
}

// "Liu 2013  t = 1.234 s  0.62x real time  0.80 ms/step", and a played
// controller's time or end: the viewport's HUD line for a simulated frame.
QString SimulationController::hudText(double t) const {
  const Solver kind = controller_ ? Solver::Liu2013 : builtKind_;
  QString name = QString::fromLatin1(solverKindName(kind));
  if (kind == Solver::Li2019 && paramValue(kind, builtParams_, "live") != 0) name += tr(" (live mesh)");
  QString text = tr("%1  t = %2 s").arg(name).arg(t, 0, 'f', 3);
  if (realtime_ > 0) text += tr("  %1x real time  %2 ms/step").arg(realtime_, 0, 'f', 2).arg(msPerStep_, 0, 'f', 2);
  if (controller_) {  // on a line of its own: one line would be wider than the viewport
    const double end = controller_->duration();
    text += t < end ? tr("\ncontroller %1 / %2 s").arg(t, 0, 'f', 2).arg(end, 0, 'f', 2)
                    : tr("\ncontroller ended at %1 s, holding").arg(end, 0, 'f', 2);
    const ControllerShove& shove = controller_->shove;
    if (!shove.empty())
      text += (t <= shove.time + 1e-9 ? tr("  shove at %1 s") : tr("  shoved at %1 s"))  // given before the step after it
                  .arg(shove.time, 0, 'f', 3);
  }
  return text;
}

void SimulationController::showFrame(int index) {
  const int n = frameCount();
  if (n == 0) return;
  index = std::clamp(index, 0, n - 1);
  const std::optional<SimFrame> f = worker_.frame(index);
  if (!f) return;
  display_->show(*f, worker_.surfaceMesh(), worker_.triangles(), worker_.rodLayout());
  view_->setSimulationText(hudText(f->time));
  shownFrame_ = index;
  showingMode_ = false;
  emit framesChanged();
}

// ---------------------------------------------------------------------------
// Sheth 2015's mode viewer

std::vector<SimulationController::ModalBody> SimulationController::modalBodies() const {
  std::vector<ModalBody> out;
  for (const ModalBodyInfo& b : worker_.modalBodies()) out.push_back({QString::fromStdString(b.name), b.frequencies});
  return out;
}

bool SimulationController::showMode(int body, int mode, double amplitude) {
  // The worker owns the solver while it runs; the mode viewer waits for a pause.
  const Simulation* sim = worker_.idleSolver();
  if (!sim || shownFrame_ < 0) return false;
  const std::vector<ModalBodyInfo> bodies = worker_.modalBodies();
  if (body < 0 || size_t(body) >= bodies.size()) return false;
  if (mode < 0 || size_t(mode) >= bodies[size_t(body)].frequencies.size()) return false;
  // q in the basis' units, scaled so that the surface's most displaced vertex moves by
  // `amplitude` m (the surface is linear in q: its displacement at q = 1, once per mode).
  const auto key = std::make_pair(body, mode);
  auto scale = modeScale_.find(key);
  if (scale == modeScale_.end()) {
    const std::vector<Vec3> rest = sim->modeShape(size_t(body), mode, 0.0);
    const std::vector<Vec3> unit = sim->modeShape(size_t(body), mode, 1.0);
    double peak = 0;
    for (size_t i = 0; i < rest.size() && i < unit.size(); ++i) peak = std::max(peak, (unit[i] - rest[i]).norm());
    scale = modeScale_.emplace(key, peak > 0 ? 1.0 / peak : 0.0).first;
  }
  if (!(scale->second > 0)) return false;
  std::vector<Vec3> shape = sim->modeShape(size_t(body), mode, amplitude * scale->second);
  if (shape.size() != display_->surface().size()) return false;
  // The shape is drawn on the rest placement: so is the skeleton.
  const std::optional<SimFrame> first = worker_.frame(0);
  display_->showSurface(std::move(shape), first ? first->joints : std::vector<Transform>{});
  showingMode_ = true;
  return true;
}

void SimulationController::hideMode() {
  if (!showingMode_) return;
  showingMode_ = false;
  if (shownFrame_ >= 0) showFrame(shownFrame_);
}

}  // namespace sinew::app
