// The Simulate panel's engine: a soft character built from the open project
// (the Liu 2013 solver on the cage, Li 2019's on the conforming mesh: a
// passive character, the VIPER rods of the project's rod bodies, or Sheth
// 2015's deformable bones cut from the cage: passive, with a mode viewer), stepped
// frame by frame (1/60 s, or one step when a step is longer) on a worker
// thread. Every frame goes to a timeline cache (surface, joint poses,
// measures, solver snapshot; with VIPER also every skinned surface and the
// rods' node centres and radii) that the UI scrubs, replays and plots; the
// viewport shows the displayed frame's surfaces, pills and skeleton in place
// of the rest pose. Wraps the
// viewport's other interaction (the rig tools) and forwards what it does not
// use. The materials come from the project (Project::simulation); editing
// them outdates the model, which the next Play or Reset rebuilds; the scene
// (ground, colliders) reaches a running simulation at once. Draws the
// project's colliders.
#pragma once

#include "Document.h"
#include "Log.h"
#include "ViewportWidget.h"
#include "control/Optimize.h"
#include "io/AnimationExport.h"
#include "liu2013/Liu2013.h"
#include "rig/Followers.h"
#include "solver/Simulation.h"
#include "solver/Solvers.h"

namespace sinew::li2019 {
class Li2019Simulation;
}
namespace sinew::viper {
class ViperSimulation;
}
namespace sinew::sheth2015 {
class Sheth2015Simulation;
}

#include <QObject>
#include <QString>

#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

class QTimer;

namespace sinew::app {

class SimulationController : public QObject, public ViewportInteraction {
  Q_OBJECT
 public:
  static constexpr double kFrameTime = 1.0 / 60.0;
  static constexpr double kGrabReach = 0.5;  // m: the longest stretch of the mouse's spring
  static constexpr int kMaxFrames = 3600;  // one minute of timeline

  SimulationController(Document* doc, ViewportWidget* view, Log* log, ViewportInteraction* inner,
                       QObject* parent = nullptr);
  ~SimulationController() override;

  // Run control (UI thread). play(): simulate from the displayed frame (or,
  // with loop playback on, replay the cache); step(): one frame.
  void play();
  void pause();
  void togglePlay();
  void step();
  void reset();   // back to t = 0 (a changed material rebuilds the model on the next play)
  void clear();   // drops the simulation entirely (project replaced)
  bool simulating() const { return worker_.joinable(); }
  bool replaying() const;
  bool active() const { return simulating() || replaying(); }
  bool hasSimulation() const { return frameCount() > 0; }

  // Settings.
  using Solver = SolverKind;  // the registry's kinds (solver/Solvers.h)
  // Drops the current simulation; the next Play builds the chosen solver's
  // model (Li 2019 and VIPER: bones passive or driven kinematically by the
  // clip; PD drive and controllers do not apply).
  void setSolver(Solver s);
  Solver solver() const { return solverKind_; }
  // VIPER: the activation of every rod body, 0..1 (a running simulation
  // takes it at its next frame; a new one starts with it).
  void setActivation(double activation);
  double activation() const { return activation_; }
  // A solver parameter of the registry's table for the next build (the
  // Simulate dock's editors are generated from the table); a change outdates
  // a built model of that solver (the next Play or Reset rebuilds it).
  // Liu 2013's step is the project's (the Scene box's Time step).
  void setSolverParam(Solver kind, const std::string& name, double value);
  const SolverParams& solverParams(Solver kind) const;
  int shethModes() const { return int(paramValue(Solver::Sheth2015, solverParams(Solver::Sheth2015), "modes")); }
  // True while the worker builds a model (Sheth 2015 reports progress
  // through buildProgress()).
  bool building() const { return building_; }

  // Sheth 2015's mode viewer. The bodies of the built model (empty before
  // the first Play or Step, and with the other solvers) with their modes'
  // frequencies (Hz).
  struct ModalBody {
    QString name;
    std::vector<double> frequencies;
  };
  std::vector<ModalBody> modalBodies() const;
  // Shows the rest surface with only mode `mode` of body `body` excited, its
  // most displaced vertex moved by `amplitude` m (signed), in place of the
  // displayed frame; false (nothing shown) while simulating or without a
  // Sheth 2015 model. hideMode() (or any displayed frame) goes back to the
  // frame's surface.
  bool showMode(int body, int mode, double amplitude);
  void hideMode();
  bool showingMode() const { return showingMode_; }
  void setDrive(DriveMode mode, ObjectId clip);
  void setToggles(const SimToggles& t);
  const SimToggles& toggles() const { return toggles_; }
  bool modelOutdated() const { return modelDirty_; }  // the materials changed since the model was built
  // The collider drawn highlighted (the Scene editor's selection; "" none).
  void setHighlightedCollider(const QString& name);
  void setLoop(bool on) { loop_ = on; }
  // Plays a controller (control/Optimize.h) instead of the drive: the next
  // Play builds its model, poses the character at its reference's start and
  // follows its windows; the reference is drawn beside the character as a
  // ghost skeleton. nullopt: back to the drive. Drops the current simulation.
  void setController(std::optional<ControllerObject> controller, bool feedback);
  const std::optional<ControllerObject>& controller() const { return controller_; }
  // Plays a clip of the character's skeleton kinematically (the flesh
  // simulated): the Control dock shows a retargeted clip this way. Dropped
  // by setDrive() and setController(). Drops the current simulation.
  void setKinematicClip(MotionClip clip);
  bool playingKinematicClip() const { return kinematicClip_.has_value(); }
  // The ghost: world joint positions of the reference at the displayed frame
  // (empty without a controller), drawn offset by ghostOffset().
  const std::vector<Vec3>& ghostJoints() const { return shownGhost_; }
  static Vec3 ghostOffset() { return Vec3(0.9, 0, 0); }
  bool loop() const { return loop_; }
  // Real time (default): simulated time advances no faster than the wall
  // clock; off: as fast as the solver goes. Applies from the next frame.
  void setRealTime(bool on) { realTime_ = on; }
  bool realTime() const { return realTime_; }

  // Timeline.
  int frameCount() const;
  int displayedFrame() const { return shownFrame_; }
  void showFrame(int index);
  double simulatedTime() const;       // of the last cached frame
  double displayedTime() const { return shownTime_; }
  double realtimeFactor() const { return realtime_; }
  double msPerStep() const { return msPerStep_; }
  std::vector<Vec3> frameSurface(int index) const;
  // VIPER: the rods of cached frame `index` (node centres, radii and scales,
  // segments); empty for the other solvers.
  render::PillSet framePills(int index) const;
  // Every surface but the first (surfaceMesh()) of frame `index`: VIPER's
  // other skinned bodies, or the meshes following the skeleton (rig/Followers.h).
  std::vector<std::pair<ObjectId, std::vector<Vec3>>> frameOtherSurfaces(int index) const;
  // Every cached frame's surface and joint poses, for export (empty before the first Play).
  SimulatedAnimation recordedAnimation() const;
  // Measures of frames [first, frameCount()) and the timeline's revision,
  // which changes whenever cached frames are dropped (Reset, resuming from a
  // scrubbed frame, a rebuilt model): then a plot starts again from 0.
  std::vector<SimMeasures> frameMeasures(int first, uint64_t* outRevision) const;
  // The Liu 2013 model of the current simulation (null before the first
  // Play, and with the Li 2019 solver).
  std::shared_ptr<const liu2013::Liu2013Model> model() const;
  // Simulated seconds per cached frame.
  double frameTime() const { return frameTime_; }
  const std::vector<Vec3>& displayedSurface() const { return shownMesh_.positions; }
  ObjectId surfaceMesh() const { return surfaceId_; }
  const QString& lastError() const { return lastError_; }
  int32_t grabbedVertex() const { return grabbing_ ? grabVertex_ : -1; }  // Ctrl+left drag
  ViewportWidget* viewport() const { return view_; }

  // ViewportInteraction (forwarded to the inner interaction when unused).
  bool mousePress(QMouseEvent* e) override;
  bool mouseMove(QMouseEvent* e, bool dragging) override;
  bool mouseRelease(QMouseEvent* e) override;
  bool keyPress(QKeyEvent* e) override;
  bool keyRelease(QKeyEvent* e) override;
  void decorate(render::FrameScene& scene) override;
  const std::vector<Transform>* jointPose() const override;
  Aabb extraBounds() const override;  // the displayed frame's surfaces and pills
  bool showsSimulatedFrame() const override { return shownFrame_ >= 0; }

 signals:
  void stateChanged();               // running/paused, simulation created or dropped
  void framesChanged();              // frames added or dropped, displayed frame moved
  void failed(const QString& title, const QString& message);
  void buildProgress(double fraction);  // 0..1 while a model is built (Sheth 2015)

 private:
  struct Frame {
    double time = 0;
    std::vector<Vec3> surface;
    std::vector<Transform> joints;
    SimMeasures measures;
    std::shared_ptr<const SimSnapshot> snapshot;
    std::vector<Vec3> ghost;  // the reference's joints (controller runs)
    // VIPER: the skinned surfaces after the first, and the rods' nodes in
    // solver order (the bodies' first, then the bones' capsules): centres (m)
    // and radii s r (m).
    std::vector<std::pair<ObjectId, std::vector<Vec3>>> otherSurfaces;
    std::vector<Vec3> pillCentres;
    std::vector<double> pillRadii;
  };
  // The bodies' pills of a frame (bones: the bones' capsules instead), under mutex_.
  render::PillSet pillsOf(const Frame& f, bool bones = false) const;
  liu2013::Settings currentSettings() const;
  void applySettings();  // the current settings to the solver (now, or at the worker's next frame)
  void startWorker(int frames);  // frames < 0: until paused
  void stopWorker();
  void workerLoop(liu2013::Settings settings, Project project, int frames, double activation, SolverParams params);
  void pushSettings(const liu2013::Settings& s);  // to the solver (the worker's, or idle)
  void onFrame();
  void onWorkerFailed(const QString& message, bool build);
  void onWorkerEnded();
  void replayTick();
  Frame captureFrame() const;
  void applyGrab(const QPoint& pos);

  Document* doc_;
  ViewportWidget* view_;
  Log* log_;
  ViewportInteraction* inner_;

  bool modelDirty_ = false;
  liu2013::ModelOptions modelOptions_;  // what the current model was built with
  QString highlightedCollider_;
  std::vector<TriMesh> colliderMeshes_;   // the project's colliders, for drawing
  std::vector<uint64_t> colliderRevisions_;
  void updateColliderMeshes();
  SimToggles toggles_;
  DriveMode drive_ = DriveMode::Hold;
  ObjectId clip_ = 0;
  bool loop_ = false;
  std::optional<ControllerObject> controller_;
  std::optional<MotionClip> kinematicClip_;
  bool controllerFeedback_ = false;
  std::shared_ptr<const control::ReferenceMotion> reference_;  // of the controller run (worker builds it)
  std::shared_ptr<const control::ControllerPolicy> policy_;
  std::vector<Vec3> shownGhost_;

  // Solver and cache. The worker owns the solver while it runs; the UI
  // thread touches the solver only when no worker runs. frames_ and the
  // pending changes are guarded by mutex_.
  Solver solverKind_ = Solver::Liu2013;
  std::shared_ptr<const liu2013::Liu2013Model> model_;   // Liu 2013 runs
  std::unique_ptr<Simulation> solver_;
  liu2013::Liu2013Solver* liu_ = nullptr;                 // solver_ when it is Liu 2013's
  li2019::Li2019Simulation* li_ = nullptr;                // solver_ when it is Li 2019's
  viper::ViperSimulation* viper_ = nullptr;               // solver_ when it is VIPER's
  sheth2015::Sheth2015Simulation* sheth_ = nullptr;       // solver_ when it is Sheth 2015's
  std::map<Solver, SolverParams> params_;                 // per solver, for the next build
  std::vector<ModalBody> modalBodies_;                    // Sheth 2015: of the built model (under mutex_)
  std::map<std::pair<int, int>, double> modeScale_;       // Sheth 2015: q per metre of surface motion, per (body, mode)
  std::atomic<bool> building_{false};
  std::atomic<int> postedProgress_{-1};                   // the last build progress posted, in percent
  std::vector<std::array<int32_t, 2>> pillSegments_;      // VIPER: the bodies' segments (node pairs)
  std::vector<std::array<int32_t, 2>> boneSegments_;      // VIPER: the bones' capsules (node pairs from bodyNodes_)
  std::vector<double> pillRestRadius_;                    // VIPER: r per node, m
  size_t bodyNodes_ = 0;                                  // VIPER: nodes [0, bodyNodes_) are the bodies'
  double activation_ = 0;                                 // VIPER, every body (UI thread)
  std::optional<double> pendingActivation_;               // for the worker's next frame
  std::vector<Tri> triangles_;                            // of the simulated surface
  Followers followers_;                                   // the other meshes, riding on the skeleton
  double frameTime_ = kFrameTime;
  ObjectId surfaceId_ = 0;
  mutable std::mutex mutex_;
  std::vector<Frame> frames_;
  uint64_t framesRevision_ = 1;  // bumped when frames are dropped
  std::optional<liu2013::Settings> pendingSettings_;
  bool grabChanged_ = false;
  std::optional<Grab> pendingGrab_;
  double workerRealtime_ = 0, workerMsPerStep_ = 0;
  std::thread worker_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> realTime_{true};
  std::atomic<bool> workerDone_{false};

  // Display (UI thread).
  int shownFrame_ = -1;
  double shownTime_ = 0;
  TriMesh shownMesh_;
  std::vector<Transform> shownJoints_;
  std::vector<std::pair<ObjectId, TriMesh>> shownOthers_;  // VIPER: the other skinned surfaces
  render::PillGeometry shownPills_, shownBones_;           // VIPER: the displayed frame's pills and bone capsules
  bool shownHasPills_ = false;
  bool showingMode_ = false;                               // Sheth 2015: shownMesh_ holds a mode shape
  uint64_t shownVersion_ = 1;
  double realtime_ = 0, msPerStep_ = 0;
  QString lastError_;
  QTimer* replay_ = nullptr;

  // Mouse grab.
  bool grabbing_ = false;
  int32_t grabVertex_ = -1;
  Vec3 grabPlanePoint_ = Vec3::Zero(), grabPlaneNormal_ = Vec3::UnitZ();
};

}  // namespace sinew::app
