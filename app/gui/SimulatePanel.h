// The Simulate dock: run controls, the timeline of cached frames, the run's
// statistics and their plot, solver, drive and clip, the rods' activation and
// pills (VIPER), toggles, materials per region, the scene (ground,
// colliders). A view of the SimulationController; widgets are named
// ("sim<Name>", "viewPills") for tests.
#pragma once

#include "Document.h"
#include "MaterialEditor.h"
#include "SceneEditor.h"
#include "SimStatsChart.h"
#include "SimulationController.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QSlider;

namespace sinew::app {

class SimulatePanel : public QWidget {
  Q_OBJECT
 public:
  SimulatePanel(Document* doc, SimulationController* sim, QWidget* parent = nullptr);

  QPushButton* playButton() const { return play_; }
  QPushButton* stepButton() const { return step_; }
  QPushButton* resetButton() const { return reset_; }
  QSlider* timeline() const { return timeline_; }
  QCheckBox* loopBox() const { return loop_; }
  MaterialEditor* materials() const { return materials_; }
  SceneEditor* scene() const { return scene_; }
  SimStatsChart* chart() const { return chart_; }
  QSlider* activationSlider() const { return activation_; }  // 0..kActivationSteps: activation 0..1
  static constexpr int kActivationSteps = 100;

 private:
  void refreshClips();
  void applyDrive();
  void applyToggles();
  void updateState();
  void updateFrames();

  Document* doc_;
  SimulationController* sim_;
  QPushButton *play_, *step_, *reset_;
  QComboBox *solver_, *drive_, *clip_, *damping_;
  QCheckBox *gravity_, *contact_, *plasticity_, *loop_;
  QLabel *time_, *realtime_, *msPerStep_;
  QSlider* timeline_;
  QSlider* activation_;
  QLabel* activationValue_;
  QCheckBox* pills_;
  SimStatsChart* chart_;
  MaterialEditor* materials_;
  SceneEditor* scene_;
};

}  // namespace sinew::app
