// The Simulate dock: run controls, drive and clip, toggles, material, the
// run's statistics and the timeline of cached frames. A view of the
// SimulationController; widgets are named ("sim<Name>") for tests.
#pragma once

#include "Document.h"
#include "SimulationController.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
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

 private:
  void refreshClips();
  void applyDrive();
  void applyToggles();
  void applyMaterial();
  void updateState();
  void updateFrames();

  Document* doc_;
  SimulationController* sim_;
  QPushButton *play_, *step_, *reset_;
  QComboBox *drive_, *clip_, *damping_;
  QCheckBox *gravity_, *contact_, *plasticity_, *loop_;
  QDoubleSpinBox *youngs_, *poisson_, *density_, *poseDamping_;
  QLabel *materialNote_, *time_, *realtime_, *msPerStep_;
  QSlider* timeline_;
};

}  // namespace sinew::app
