// The Simulate dock's materials table: flesh and per-region rows, undoable edits (MaterialEditor.h).
#include "MaterialEditor.h"

#include "Commands.h"
#include "NumberBox.h"
#include "liu2013/Liu2013.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cstring>

namespace sinew::app {

namespace {

enum Column { kRegion, kYoungs, kPoisson, kDensity, kDamping, kColumns };

// What the solver uses when the project sets no flesh material.
const FleshMaterial defaultFlesh = liu2013::toFleshMaterial(liu2013::Material{});

double& fieldOf(FleshMaterial& m, const char* field) {
  if (!std::strcmp(field, "youngsModulus")) return m.youngsModulus;
  if (!std::strcmp(field, "poissonRatio")) return m.poissonRatio;
  if (!std::strcmp(field, "density")) return m.density;
  return m.damping;
}

}  // namespace

MaterialEditor::MaterialEditor(Document* doc, QWidget* parent) : QGroupBox(tr("Material"), parent), doc_(doc) {
  auto* v = new QVBoxLayout(this);

  // The rows: flesh first, then the regions in the order they were added.
  table_ = new QTableWidget(0, kColumns, this);
  table_->setObjectName("simRegions");
  table_->setHorizontalHeaderLabels({tr("Region"), tr("E kPa"), tr("ν"), tr("ρ kg/m³"), tr("c 1/s")});
  const char* tips[kColumns] = {"Flesh applies everywhere except the tets whose dominant bone has a row",
                                "Young's modulus (kPa)", "Poisson ratio", "Density (kg/m³)",
                                "Pose-based damping coefficient (1/s, Liu 2013 eq. 17)"};
  for (int c = 0; c < kColumns; ++c) table_->horizontalHeaderItem(c)->setToolTip(tr(tips[c]));
  table_->verticalHeader()->hide();
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setAlternatingRowColors(true);
  table_->horizontalHeader()->setSectionResizeMode(kRegion, QHeaderView::Stretch);
  for (int c = kYoungs; c < kColumns; ++c) table_->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
  v->addWidget(table_);

  // Add a region for a bone of the skeleton, or remove the selected one.
  auto* row = new QHBoxLayout;
  bone_ = new QComboBox(this);
  bone_->setObjectName("simRegionBone");
  bone_->setToolTip(tr("A bone of the skeleton: its region is the tets whose dominant bone it is"));
  add_ = new QPushButton(tr("Add region"), this);
  add_->setObjectName("simRegionAdd");
  remove_ = new QPushButton(tr("Remove"), this);
  remove_->setObjectName("simRegionRemove");
  row->addWidget(bone_, 1);
  row->addWidget(add_);
  row->addWidget(remove_);
  v->addLayout(row);

  // The selected row's values. The ranges are the valid ones (the solver
  // also needs Poisson < 0.495).
  auto* form = new QFormLayout;
  editing_ = new QLabel(this);
  editing_->setObjectName("simRegionEditing");
  youngs_ = numberBox(this, "simYoungs", 1e2, 1e8, 0, 1e4, tr(" Pa"));
  poisson_ = numberBox(this, "simPoisson", 0.0, 0.49, 3, 0.01);
  density_ = numberBox(this, "simDensity", 10, 1e5, 0, 50, tr(" kg/m³"));
  damping_ = numberBox(this, "simPoseDamping", 0, 1e4, 1, 5, tr(" 1/s"));
  form->addRow(tr("Editing"), editing_);
  form->addRow(tr("Young's modulus"), youngs_);
  form->addRow(tr("Poisson ratio"), poisson_);
  form->addRow(tr("Density"), density_);
  form->addRow(tr("Damping"), damping_);
  v->addLayout(form);
  note_ = new QLabel(this);
  note_->setObjectName("simMaterialNote");
  note_->setWordWrap(true);
  v->addWidget(note_);
  setModelOutdated(false);

  connect(table_, &QTableWidget::itemSelectionChanged, this, [this] {
    if (refreshing_) return;
    const auto rows = table_->selectionModel()->selectedRows();
    selectRegion(rows.isEmpty() ? QString() : table_->item(rows.front().row(), kRegion)->data(Qt::UserRole).toString());
  });
  connect(add_, &QPushButton::clicked, this, &MaterialEditor::addRegion);
  connect(remove_, &QPushButton::clicked, this, &MaterialEditor::removeRegion);
  const std::pair<QDoubleSpinBox*, const char*> fields[] = {
      {youngs_, "youngsModulus"}, {poisson_, "poissonRatio"}, {density_, "density"}, {damping_, "damping"}};
  for (auto [box, field] : fields)
    connect(box, &QDoubleSpinBox::valueChanged, this, [this, field](double value) { applyValue(field, value); });
  connect(doc_, &Document::settingsChanged, this, &MaterialEditor::refresh);
  connect(doc_, &Document::structureChanged, this, &MaterialEditor::refresh);
  connect(doc_, &Document::objectChanged, this, [this](ObjectId id) {
    if (doc_->project().skeleton && doc_->project().skeleton->id == id) refresh();  // bones renamed or removed
  });
  refresh();
}

FleshMaterial MaterialEditor::materialOf(const QString& bone) const {
  const SimulationSetup& s = doc_->project().simulation;
  if (!bone.isEmpty())
    for (const RegionMaterial& r : s.regions)
      if (QString::fromStdString(r.bone) == bone) return r.material;
  return s.flesh.value_or(defaultFlesh);
}

void MaterialEditor::refresh() {
  const Project& p = doc_->project();
  const SimulationSetup& s = p.simulation;
  const Skeleton* skel = p.skeleton ? &p.skeleton->skeleton : nullptr;
  bool selectedExists = selected_.isEmpty();
  for (const RegionMaterial& r : s.regions) selectedExists |= QString::fromStdString(r.bone) == selected_;
  if (!selectedExists) selected_.clear();

  refreshing_ = true;
  // Table.
  table_->setRowCount(int(s.regions.size()) + 1);
  auto setRow = [&](int row, const QString& label, const QString& bone, const FleshMaterial& m, bool known) {
    const QString cells[kColumns] = {label, QString::number(m.youngsModulus / 1000, 'g', 4),
                                     QString::number(m.poissonRatio, 'f', 3), QString::number(m.density, 'g', 5),
                                     QString::number(m.damping, 'g', 4)};
    for (int c = 0; c < kColumns; ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      item->setData(Qt::UserRole, bone);
      if (c != kRegion) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      if (!known) {
        item->setForeground(Qt::red);
        item->setToolTip(tr("The skeleton has no bone '%1': the simulation refuses to build").arg(bone));
      }
      table_->setItem(row, c, item);
    }
  };
  setRow(0, tr("Flesh"), QString(), materialOf({}), true);
  table_->item(0, kRegion)
      ->setToolTip(tr("Everywhere else. Unless they have a region of their own, the bones nearest the ground (feet) "
                      "get 5x this Young's modulus."));
  for (size_t i = 0; i < s.regions.size(); ++i) {
    const QString bone = QString::fromStdString(s.regions[i].bone);
    setRow(int(i) + 1, bone, bone, s.regions[i].material, skel && skel->find(s.regions[i].bone) >= 0);
  }
  int selectedRow = 0;
  for (int r = 0; r < table_->rowCount(); ++r)
    if (table_->item(r, kRegion)->data(Qt::UserRole).toString() == selected_) selectedRow = r;
  table_->selectRow(selectedRow);
  // Fit the table to its rows (up to eight) so the dock does not scroll inside a scroll area.
  const int rows = std::min(table_->rowCount(), 8);
  table_->setFixedHeight(table_->horizontalHeader()->sizeHint().height() + rows * table_->verticalHeader()->defaultSectionSize() +
                         2 * table_->frameWidth() + 2);

  // Spin boxes: the selected row.
  editing_->setText(selected_.isEmpty() ? tr("Flesh (everywhere else)") : tr("Region of bone %1").arg(selected_));
  const FleshMaterial m = materialOf(selected_);
  const std::pair<QDoubleSpinBox*, double> values[] = {
      {youngs_, m.youngsModulus}, {poisson_, m.poissonRatio}, {density_, m.density}, {damping_, m.damping}};
  for (auto [box, value] : values) {
    const QSignalBlocker block(box);
    box->setValue(value);
  }
  remove_->setEnabled(!selected_.isEmpty());

  // Bones without a region yet.
  const QString current = bone_->currentText();
  {
    const QSignalBlocker block(bone_);
    bone_->clear();
    if (skel)
      for (const Joint& j : skel->joints) {
        const QString name = QString::fromStdString(j.name);
        bool used = false;
        for (const RegionMaterial& r : s.regions) used |= r.bone == j.name;
        if (!used) bone_->addItem(name);
      }
    if (const int i = bone_->findText(current); i >= 0) bone_->setCurrentIndex(i);
  }
  bone_->setEnabled(bone_->count() > 0);
  add_->setEnabled(bone_->count() > 0);
  refreshing_ = false;
}

void MaterialEditor::selectRegion(const QString& bone) {
  selected_ = bone;
  refresh();
}

void MaterialEditor::addRegion() {
  const QString bone = bone_->currentText();
  if (bone.isEmpty()) return;
  SimulationSetup s = doc_->project().simulation;
  for (const RegionMaterial& r : s.regions)
    if (QString::fromStdString(r.bone) == bone) return;
  s.regions.push_back({bone.toStdString(), materialOf({})});
  selected_ = bone;
  doc_->undoStack()->push(new SetSimulationSetupCommand(doc_, std::move(s), tr("Add material region %1").arg(bone)));
}

void MaterialEditor::removeRegion() {
  if (selected_.isEmpty()) return;
  SimulationSetup s = doc_->project().simulation;
  std::erase_if(s.regions, [&](const RegionMaterial& r) { return QString::fromStdString(r.bone) == selected_; });
  const QString bone = selected_;
  selected_.clear();
  doc_->undoStack()->push(new SetSimulationSetupCommand(doc_, std::move(s), tr("Remove material region %1").arg(bone)));
}

void MaterialEditor::applyValue(const char* field, double value) {
  if (refreshing_) return;
  SimulationSetup s = doc_->project().simulation;
  FleshMaterial* m = nullptr;
  if (selected_.isEmpty()) {
    if (!s.flesh) s.flesh = defaultFlesh;
    m = &*s.flesh;
  } else {
    for (RegionMaterial& r : s.regions)
      if (QString::fromStdString(r.bone) == selected_) m = &r.material;
  }
  if (!m || fieldOf(*m, field) == value) return;
  fieldOf(*m, field) = value;
  const QString region = selected_.isEmpty() ? tr("flesh") : selected_;
  doc_->undoStack()->push(new SetSimulationSetupCommand(doc_, std::move(s), tr("Set %1 material").arg(region),
                                                        region + "/" + field));
}

void MaterialEditor::setModelOutdated(bool outdated) {
  note_->setText(outdated ? tr("<b>Changed:</b> the model is rebuilt on the next Reset or Play.")
                          : tr("Material changes rebuild the model on the next Reset or Play."));
}

}  // namespace sinew::app
