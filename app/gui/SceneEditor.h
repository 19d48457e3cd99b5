// The Simulate dock's scene: the ground (height, friction) and static
// colliders (sphere, box, capsule). A table lists the colliders; the fields
// below edit the selected one. Every edit is an undoable
// SetSimulationSetupCommand on Project::simulation, saved with the project,
// and reaches a running simulation at once (no rebuild). Widgets are named
// ("sim<Name>") for tests.
#pragma once

#include "Document.h"

#include <QGroupBox>
#include <QString>

#include <functional>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace sinew::app {

class SceneEditor : public QGroupBox {
  Q_OBJECT
 public:
  explicit SceneEditor(Document* doc, QWidget* parent = nullptr);

  QTableWidget* table() const { return table_; }
  QComboBox* shapeChoice() const { return shape_; }
  QPushButton* addButton() const { return add_; }
  QPushButton* removeButton() const { return remove_; }
  QString selectedCollider() const { return selected_; }  // "" when none
  void selectCollider(const QString& name);
  // Adds a collider of `shape` beside the character, resting on the ground,
  // and selects it (one undo step).
  void addCollider(ColliderShape shape);

 signals:
  void selectionChanged(const QString& name);

 private:
  void refresh();
  void removeCollider();
  // Applies `edit` to the selected collider as one undo step (merged with
  // the previous one for the same field).
  void editSelected(const QString& field, const std::function<void(Collider&)>& edit);
  void applyGround();

  Document* doc_;
  QDoubleSpinBox *groundHeight_, *groundFriction_;
  QTableWidget* table_;
  QComboBox* shape_;
  QPushButton *add_, *remove_;
  QWidget* details_;
  QLineEdit* name_;
  QDoubleSpinBox* center_[3];
  QDoubleSpinBox* rotation_[3];
  QDoubleSpinBox* size_[3];
  QLabel* sizeLabel_[3];
  QDoubleSpinBox* friction_;
  QString selected_;
  bool refreshing_ = false;
};

}  // namespace sinew::app
