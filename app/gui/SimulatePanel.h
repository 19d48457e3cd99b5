// The Simulate dock: run controls, the timeline of cached frames, the run's
// statistics and their plot, solver, drive and clip, the rods' activation and
// pills (VIPER), the modes per body, build progress and mode viewer (Sheth
// 2015), toggles, materials per region, the scene (ground, colliders). A view
// of the SimulationController; widgets are named ("sim<Name>", "viewPills")
// for tests.
#pragma once

#include "Document.h"
#include "MaterialEditor.h"
#include "SceneEditor.h"
#include "SimStatsChart.h"
#include "SimulationController.h"

#include <QElapsedTimer>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QFormLayout;
class QGroupBox;
class QProgressBar;
class QPushButton;
class QSlider;
class QSpinBox;
class QTimer;

namespace sinew::app {

class TimelineSlider;

class SimulatePanel : public QWidget {
  Q_OBJECT
 public:
  SimulatePanel(Document* doc, SimulationController* sim, QWidget* parent = nullptr);

  QPushButton* playButton() const { return play_; }
  QPushButton* stepButton() const { return step_; }
  QPushButton* resetButton() const { return reset_; }
  QSlider* timeline() const;
  QCheckBox* loopBox() const { return loop_; }
  MaterialEditor* materials() const { return materials_; }
  SceneEditor* scene() const { return scene_; }
  SimStatsChart* chart() const { return chart_; }
  QSlider* activationSlider() const { return activation_; }  // 0..kActivationSteps: activation 0..1
  static constexpr int kActivationSteps = 100;
  // Sheth 2015's mode viewer: the amplitude slider's 0..kAmplitudeSteps is
  // 0..kMaxModeAmplitude m of the surface's most displaced vertex; an animated mode
  // swings at kModeAnimationHz (a visible rate, not the mode's own frequency).
  static constexpr int kAmplitudeSteps = 100;
  static constexpr double kMaxModeAmplitude = 0.2;
  static constexpr double kModeAnimationHz = 1.0;

 private:
  // The chosen solver's parameter editors, one per entry of the registry's
  // table (solver/Solvers.h): range, default and help from there.
  void rebuildParams();
  void refreshParamValues();
  void refreshClips();
  void applyDrive();
  void applyToggles();
  void updateState();
  void updateFrames();
  void refreshModes();     // the mode viewer's bodies and modes from the built model
  void updateModeLabel();
  void modeTick();         // the animated mode's next shape (or the frame again)

  Document* doc_;
  SimulationController* sim_;
  QPushButton *play_, *step_, *reset_;
  QComboBox *solver_, *drive_, *clip_, *damping_;
  QCheckBox *gravity_, *contact_, *plasticity_, *loop_, *fast_;
  QLabel *time_, *realtime_, *msPerStep_;
  TimelineSlider* timeline_;
  QSlider* activation_;
  QLabel* activationValue_;
  QCheckBox* pills_;
  QGroupBox* shethBox_;
  QGroupBox* paramsBox_;
  QFormLayout* paramsForm_;
  QProgressBar* buildProgress_;
  QComboBox* modeBody_;
  QSpinBox* mode_;
  QLabel* modeFrequency_;
  QSlider* modeAmplitude_;
  QCheckBox* modeAnimate_;
  QTimer* modeTimer_;
  QElapsedTimer modeClock_;
  std::vector<SimulationController::ModalBody> modal_;  // the bodies the mode viewer lists
  SimStatsChart* chart_;
  MaterialEditor* materials_;
  SceneEditor* scene_;
};

}  // namespace sinew::app
