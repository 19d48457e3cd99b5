// The Simulate panel's engine: what to simulate (the solver chosen from the
// registry with its parameters, a drive, a controller or a clip to play, the
// toggles, VIPER's activation), run control (play, pause, step, reset) and
// the timeline that the UI scrubs, replays and plots. Three parts:
//   SimulationWorker: builds the solver and steps it on its own thread,
//                     recording every frame (SimulationWorker.h);
//   SimulationView:   the viewport's picture of the displayed frame and the
//                     mouse's spring (SimulationView.h);
//   this controller:  the Qt side that ties them to the Document and the UI.
// The materials come from the project (Project::simulation); editing them
// outdates the model, which the next Play or Reset rebuilds; the scene
// (ground, colliders) reaches a running simulation at once where the solver
// takes it (Liu 2013), else at the next build.
#pragma once

#include "Document.h"
#include "Log.h"
#include "SimulationView.h"
#include "SimulationWorker.h"
#include "ViewportWidget.h"
#include "liu2013/Liu2013.h"

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

class SimulationController : public QObject {
  Q_OBJECT
 public:
  static constexpr double kFrameTime = 1.0 / 60.0;
  static constexpr double kGrabReach = SimulationView::kGrabReach;
  static constexpr int kMaxFrames = SimulationWorker::kMaxFrames;

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
  bool simulating() const { return worker_.running(); }
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
  // A solver parameter of the registry's table, kept in the project
  // (Project::simulation.solverParams, one undo step; the Simulate dock's
  // editors are generated from the table); a change outdates a built model
  // of that solver (the next Play or Reset rebuilds it). Liu 2013's step
  // is one of them (rigging sets it when the character needs a smaller one).
  void setSolverParam(Solver kind, const std::string& name, double value);
  const SolverParams& solverParams(Solver kind) const;
  int shethModes() const { return int(paramValue(Solver::Sheth2015, solverParams(Solver::Sheth2015), "modes")); }
  // True while the worker builds a model (Sheth 2015 reports progress
  // through buildProgress()).
  bool building() const { return worker_.building(); }

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
  const SimulationView& display() const { return *display_; }
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
  const std::vector<Vec3>& ghostJoints() const { return display_->ghost(); }
  static Vec3 ghostOffset() { return SimulationView::ghostOffset(); }
  bool loop() const { return loop_; }
  // Real time (default): simulated time advances no faster than the wall
  // clock; off: as fast as the solver goes. Applies from the next frame.
  void setRealTime(bool on) { worker_.setRealTime(on); }
  bool realTime() const { return worker_.realTime(); }

  // Timeline.
  int frameCount() const;
  int displayedFrame() const { return shownFrame_; }
  void showFrame(int index);
  double simulatedTime() const;       // of the last cached frame
  double displayedTime() const { return display_->time(); }
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
  double frameTime() const { return worker_.frameTime(); }
  const std::vector<Vec3>& displayedSurface() const { return display_->surface(); }
  ObjectId surfaceMesh() const { return surfaceId_; }
  const QString& lastError() const { return lastError_; }
  int32_t grabbedVertex() const { return display_->grabbedVertex(); }  // Ctrl+left drag
  ViewportWidget* viewport() const { return view_; }
  QString hudText(double t) const;  // the viewport HUD's line for a frame at t

 signals:
  void stateChanged();               // running/paused, simulation created or dropped
  void framesChanged();              // frames added or dropped, displayed frame moved
  void failed(const QString& title, const QString& message);
  void buildProgress(double fraction);  // 0..1 while a model is built (Sheth 2015)

 private:
  SimBuild buildRequest() const;  // what the next build makes, from the current settings
  Drive currentDrive() const;
  void pushDrive();               // the drive and toggles to the solver (now, or before the worker's next frame)
  void startWorker(int frames);   // frames < 0: until paused
  void onFrame();
  void onWorkerEnded();
  void replayTick();

  Document* doc_;
  ViewportWidget* view_;
  Log* log_;
  SimulationWorker worker_;
  std::unique_ptr<SimulationView> display_;

  // What to simulate.
  Solver solverKind_ = Solver::Liu2013;
  SimToggles toggles_;
  DriveMode drive_ = DriveMode::Hold;
  ObjectId clip_ = 0;
  std::optional<ControllerObject> controller_;
  std::optional<MotionClip> kinematicClip_;
  bool controllerFeedback_ = false;
  double activation_ = 0;  // VIPER, every body
  bool loop_ = false;

  // The built model.
  bool modelDirty_ = false;
  liu2013::ModelOptions modelOptions_;  // the materials it was built with
  Solver builtKind_ = Solver::Liu2013;  // and its solver's parameters
  SolverParams builtParams_;
  ObjectId surfaceId_ = 0;
  std::map<std::pair<int, int>, double> modeScale_;  // Sheth 2015: q per metre of surface motion, per (body, mode)

  // Display (UI thread).
  int shownFrame_ = -1;
  bool showingMode_ = false;
  double realtime_ = 0, msPerStep_ = 0;
  QString lastError_;
  QTimer* replay_ = nullptr;
};

}  // namespace sinew::app
