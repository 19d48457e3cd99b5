// The Rig dock's Muscles section (VIPER, Angles et al. 2019, Section 8): the
// rod body to work on, the muscle paint brush (sources, sinks, erase),
// viperization into K rods of M nodes in the background (TaskRunner:
// progress, Cancel), and a new spindle muscle between two bones. Every result
// is one undo step; bad input is named before any work starts. Widgets are
// named ("muscle<Name>", "viper<Name>") for tests.
#pragma once

#include "Document.h"
#include "Log.h"
#include "MusclePaintController.h"
#include "TaskRunner.h"

#include <QGroupBox>

class QAction;
class QComboBox;
class QDoubleSpinBox;
class QSpinBox;

namespace sinew::app {

class MusclePanel : public QGroupBox {
  Q_OBJECT
 public:
  // The actions are shown as buttons: the paint tool, Viperize and Add Muscle.
  MusclePanel(Document* doc, TaskRunner* tasks, Log* log, MusclePaintController* paint, QAction* paintTool,
              QAction* viperizeAction, QAction* addMuscleAction, QWidget* parent = nullptr);

  // The rod body the section works on (0: none); the paint tool follows it.
  ObjectId currentBody() const;
  void setCurrentBody(ObjectId body);

  // Viperizes the current body with the K and M of the spin boxes, in the
  // background; the result replaces its rods as one undo step. Returns false
  // (and says why: failed()) when the input is unfit or a task is running.
  bool viperize();
  // A spindle muscle between the two chosen bones (sources painted at the
  // origin end, sinks at the insertion end), added as one undo step; not
  // viperized yet. Returns false (and says why) when that is not possible.
  bool addMuscleBetweenBones();

  QComboBox* bodyBox() const { return body_; }
  QSpinBox* rodsBox() const { return rods_; }
  QSpinBox* slicesBox() const { return slices_; }
  QComboBox* originBox() const { return origin_; }
  QComboBox* insertionBox() const { return insertion_; }

 signals:
  void failed(const QString& title, const QString& message);
  void message(const QString& text);
  void bodyAdded(sinew::ObjectId body);

 private:
  void refresh();
  void showBody();

  Document* doc_;
  TaskRunner* tasks_;
  Log* log_;
  MusclePaintController* paint_;
  QComboBox *body_, *mode_, *origin_, *insertion_;
  QDoubleSpinBox* radius_;
  QSpinBox *rods_, *slices_;
  ObjectId shownBody_ = 0;  // whose K and M the spin boxes were last set from
};

}  // namespace sinew::app
