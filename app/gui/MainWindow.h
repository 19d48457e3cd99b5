// Sinew's main window: menus, dock panels (Outliner, Properties, Log), the
// viewport, the playback bar and the status bar; file operations, import and
// export, autosave and crash recovery. Thin: the work happens in sim/ and
// render/, edits go through the Document's undo stack.
#pragma once

#include "ControllerPanel.h"
#include "Document.h"
#include "Log.h"
#include "MusclePanel.h"
#include "MusclePaintController.h"
#include "NewCharacterFlow.h"
#include "Panels.h"
#include "Recovery.h"
#include "PaintController.h"
#include "RigController.h"
#include "SimulatePanel.h"
#include "SimulationController.h"
#include "rig/RigBuild.h"
#include "TaskRunner.h"
#include "ViewportWidget.h"

#include <QMainWindow>

#include <memory>

class QAction;
class QActionGroup;
class QComboBox;
class QLabel;
class QMenu;
class QSlider;
class QTimer;
class QVBoxLayout;

namespace sinew::app {

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  enum class RecoveryPolicy { Ask, Recover, Discard, Ignore };
  explicit MainWindow(RecoveryPolicy recovery = RecoveryPolicy::Ask, QWidget* parent = nullptr);
  ~MainWindow() override;

  // File operations (also used by tests and the command line). Errors are
  // reported in a dialog (interactive) and the Log; the return value says
  // whether the operation started/succeeded.
  bool openProject(const QString& path);          // asynchronous: see tasks()
  void openProjectData(Project project, const QString& path);  // already loaded
  bool saveProjectTo(const QString& path);
  bool save();                                     // Save (asks for a path if untitled)
  bool importFiles(const QStringList& files);      // asynchronous
  void newProject();
  // Checks for recovery copies left by a crash (per the policy given at construction).
  void checkRecovery();
  // Disables modal dialogs (errors go to the Log only): for automated runs.
  void setInteractive(bool on) { interactive_ = on; }

  Document* document() { return &doc_; }
  ViewportWidget* viewport() { return viewport_; }
  OutlinerPanel* outliner() { return outliner_; }
  PropertiesPanel* properties() { return properties_; }
  Log* log() { return &log_; }
  TaskRunner* tasks() { return tasks_; }
  Recovery* recovery() { return recovery_.get(); }
  RigController* rig() { return rig_; }
  PaintController* paint() { return paint_; }
  MusclePaintController* musclePaint() { return musclePaint_; }
  MusclePanel* musclePanel() { return musclePanel_; }
  SimulationController* simulation() { return sim_; }
  SimulatePanel* simulatePanel() { return simPanel_; }
  ControllerPanel* controllerPanel() { return ctlPanel_; }
  NewCharacterFlow* newCharacterFlow() { return newCharacter_; }
  // Set the Document's selection (which every panel follows): a joint of the
  // skeleton (empty: none), or an object with its pick detail.
  void selectJoint(const QString& name);
  // Replaces the skeleton by the one in a file (FBX/glTF/Collada armature or
  // BVH hierarchy), fitted to the target mesh; asynchronous.
  bool importSkeleton(const QString& file);
  // Places a 19-joint CMU-named skeleton in the rig's target mesh (a bare
  // humanoid in a T- or A-pose), in the background; replaces the skeleton.
  bool autoPlaceJoints();
  // After a new cage: the fall test that finds the Liu 2013 step the
  // character is stable at (liu2013::chooseStableStep), in the background.
  bool findStableStep();
  ObjectId selectedObject() const { return doc_.selection().object(); }
  void selectObject(ObjectId id, const render::PickResult& detail = {});
  void autosaveNow();

 protected:
  void closeEvent(QCloseEvent* e) override;
  void resizeEvent(QResizeEvent* e) override;  // small windows: the side docks give the viewport room
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dropEvent(QDropEvent* e) override;

 private:
  void buildActions();
  void buildMenus();
  void buildDocks();
  void buildPlaybackBar();
  void buildRig();
  void updateTitle();
  void updateRecentMenu();
  void addRecent(const QString& path);
  bool maybeSave();  // asks to save unsaved changes; false: the user cancelled
  void showError(const QString& title, const QString& message);
  void onPicked(const render::PickResult& r);
  void onSelectionChanged();
  void onHovered(const render::PickResult& r);
  void renameObject(ObjectId id);
  void deleteObject(ObjectId id);
  void validateSelectedMesh();
  void scaleSelectedMesh();
  void dropSelectedMeshToGround();
  void exportSelection();
  void setPlaying(bool on);
  void stepPlayback(int frames);
  void updatePlayback();
  void refreshClipList();
  void applyViewSettingsToActions();
  QString pickDescription(const render::PickResult& r) const;

  Document doc_;
  Log log_;
  TaskRunner* tasks_ = nullptr;
  ViewportWidget* viewport_ = nullptr;
  OutlinerPanel* outliner_ = nullptr;
  PropertiesPanel* properties_ = nullptr;
  LogPanel* logPanel_ = nullptr;
  std::unique_ptr<Recovery> recovery_;
  RecoveryPolicy recoveryPolicy_;
  QTimer* autosaveTimer_ = nullptr;
  int autosavedIndex_ = -1;
  bool interactive_ = true;

  // Playback of motion clips.
  QComboBox* clipBox_ = nullptr;
  QSlider* timeSlider_ = nullptr;
  QLabel* timeLabel_ = nullptr;
  QTimer* playTimer_ = nullptr;
  QElapsedTimer playClock_;
  double playTime_ = 0;
  bool playing_ = false;

  RigController* rig_ = nullptr;
  PaintController* paint_ = nullptr;
  MusclePaintController* musclePaint_ = nullptr;
  MusclePanel* musclePanel_ = nullptr;
  void buildPaintPanel();
  void buildMusclePanel();
  void buildSimulate();
  void buildControl();
  SimulationController* sim_ = nullptr;
  SimulatePanel* simPanel_ = nullptr;
  ControllerPanel* ctlPanel_ = nullptr;
  NewCharacterFlow* newCharacter_ = nullptr;
  void buildVolumePanel();

 public:
  // Builds rig parts for the target mesh in the background (see sim/rig/RigBuild.h);
  // the result is one undo step. Returns false if another task is running.
  bool runRigBuild(const RigBuildOptions& options, const QString& title);
  // Writes the simulated frames (the Simulate timeline) into `directory` as an
  // OBJ sequence, a .pc2 point cache and a .bvh, in the background. Returns
  // false (and says why) when nothing is simulated or another task runs.
  bool exportSimulation(const QString& directory);

 private:
  QVBoxLayout* rigLayout_ = nullptr;  // the Rig dock's sections
  QMenu* recentMenu_ = nullptr;
  QLabel* statusPick_ = nullptr;
  QActionGroup* displayGroup_ = nullptr;

 public:
  // Actions, named for tests and scripting (objectName "action<Name>").
  QAction *actNew, *actNewCharacter, *actOpen, *actSave, *actSaveAs, *actImport, *actExport, *actQuit;
  QAction *actUndo, *actRedo, *actRename, *actDelete, *actValidate, *actScale, *actGround;
  QAction *actShaded, *actWireframe, *actXray, *actGrid, *actAxes, *actSkeleton, *actProblems;
  QAction *actFrameSelected, *actFrameAll;
  QAction *actPlay, *actStepForward, *actStepBack, *actRewind, *actLoop;
  QAction *actAbout, *actControls;
  QAction *actSimPlay, *actSimStep, *actSimReset, *actSimExport;
  QAction *actToolSelect, *actToolPlace, *actToolMove, *actToolPose, *actToolPaint, *actToolPaintMuscle;
  QAction *actViperize, *actAddMuscle;
  QAction* actPills;
  QAction* actFollow;
  QAction *actInsertJoint, *actMirrorLR, *actMirrorRL, *actSymmetrize, *actBoneShapes, *actFitSkeleton,
      *actImportSkeleton, *actResetPose, *actAutoJoints;
};

}  // namespace sinew::app
