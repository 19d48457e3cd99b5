// The Simulate dock's materials: the flesh (everywhere) and one row per body
// region (the tets whose dominant bone is that bone). A table lists the rows;
// the spin boxes below edit the selected row, within the valid ranges. Every
// edit is an undoable SetSimulationSetupCommand on Project::simulation, so
// the materials are saved with the project. Widgets are named ("sim<Name>").
#pragma once

#include "Document.h"

#include <QGroupBox>
#include <QString>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QTableWidget;

namespace sinew::app {

class MaterialEditor : public QGroupBox {
  Q_OBJECT
 public:
  explicit MaterialEditor(Document* doc, QWidget* parent = nullptr);

  QTableWidget* table() const { return table_; }
  QComboBox* boneChoice() const { return bone_; }
  QPushButton* addButton() const { return add_; }
  QPushButton* removeButton() const { return remove_; }
  // The row the spin boxes edit: "" for the flesh, else the region's bone.
  QString selectedRegion() const { return selected_; }
  void selectRegion(const QString& bone);
  void setModelOutdated(bool outdated);

 private:
  void refresh();       // table, spin boxes and bone list from the project
  void addRegion();     // the bone chosen in the combo box, a copy of the flesh
  void removeRegion();  // the selected one
  void applyValue(const char* field, double value);
  FleshMaterial materialOf(const QString& bone) const;  // effective: defaults filled in

  Document* doc_;
  QTableWidget* table_;
  QComboBox* bone_;
  QPushButton *add_, *remove_;
  QLabel *editing_, *note_;
  QDoubleSpinBox *youngs_, *poisson_, *density_, *damping_;
  QString selected_;
  bool refreshing_ = false;
};

}  // namespace sinew::app
