// The Simulate dock's scene: ground and static colliders, undoable edits (SceneEditor.h).
#include "SceneEditor.h"

#include "Commands.h"
#include "NumberBox.h"
#include "liu2013/Liu2013.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace sinew::app {

namespace {

enum Column { kName, kShape, kCenter, kColumns };

const liu2013::Settings solverDefaults;

QString shapeTitle(ColliderShape s) {
  switch (s) {
    case ColliderShape::Sphere: return QObject::tr("Sphere");
    case ColliderShape::Box: return QObject::tr("Box");
    case ColliderShape::Capsule: return QObject::tr("Capsule");
  }
  return {};
}

}  // namespace

SceneEditor::SceneEditor(Document* doc, QWidget* parent) : QGroupBox(tr("Scene"), parent), doc_(doc) {
  auto* v = new QVBoxLayout(this);

  // The ground plane.
  auto* ground = new QFormLayout;
  groundHeight_ = numberBox(this, "simGroundHeight", -100, 100, 3, 0.05, tr(" m"));
  groundHeight_->setToolTip(tr("Height of the ground plane (y)"));
  groundFriction_ = numberBox(this, "simGroundFriction", 0, 10, 2, 0.1);
  groundFriction_->setToolTip(tr("Coulomb friction coefficient of the ground"));
  auto* groundRow = new QHBoxLayout;
  groundRow->addWidget(groundHeight_, 1);
  groundRow->addWidget(new QLabel(tr("friction"), this));
  groundRow->addWidget(groundFriction_, 1);
  ground->addRow(tr("Ground"), groundRow);
  v->addLayout(ground);

  // The colliders.
  table_ = new QTableWidget(0, kColumns, this);
  table_->setObjectName("simColliders");
  table_->setHorizontalHeaderLabels({tr("Collider"), tr("Shape"), tr("Centre (m)")});
  table_->verticalHeader()->hide();
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setAlternatingRowColors(true);
  table_->horizontalHeader()->setSectionResizeMode(kName, QHeaderView::Stretch);
  table_->horizontalHeader()->setSectionResizeMode(kShape, QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setSectionResizeMode(kCenter, QHeaderView::ResizeToContents);
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
  v->addWidget(table_);

  auto* row = new QHBoxLayout;
  shape_ = new QComboBox(this);
  shape_->setObjectName("simColliderShape");
  for (ColliderShape s : {ColliderShape::Box, ColliderShape::Sphere, ColliderShape::Capsule})
    shape_->addItem(shapeTitle(s), int(s));
  add_ = new QPushButton(tr("Add collider"), this);
  add_->setObjectName("simColliderAdd");
  add_->setToolTip(tr("A static obstacle beside the character, resting on the ground"));
  remove_ = new QPushButton(tr("Remove"), this);
  remove_->setObjectName("simColliderRemove");
  row->addWidget(shape_, 1);
  row->addWidget(add_);
  row->addWidget(remove_);
  v->addLayout(row);

  // The selected collider.
  details_ = new QWidget(this);
  auto* form = new QFormLayout(details_);
  form->setContentsMargins(0, 0, 0, 0);
  name_ = new QLineEdit(details_);
  name_->setObjectName("simColliderName");
  form->addRow(tr("Name"), name_);
  auto triple = [&](QDoubleSpinBox* (&boxes)[3], const char* prefix, double lo, double hi, int decimals, double step,
                    const QString& suffix, QLabel** labels) {
    auto* h = new QHBoxLayout;
    const char* axes[3] = {"X", "Y", "Z"};
    for (int k = 0; k < 3; ++k) {
      if (labels) {
        labels[k] = new QLabel(details_);
        h->addWidget(labels[k]);
      }
      boxes[k] = numberBox(details_, QString("%1%2").arg(prefix, axes[k]), lo, hi, decimals, step, suffix);
      h->addWidget(boxes[k], 1);
    }
    return h;
  };
  form->addRow(tr("Centre"), triple(center_, "simColliderCenter", -100, 100, 3, 0.05, QString(), nullptr));
  form->addRow(tr("Rotation °"), triple(rotation_, "simColliderRotation", -360, 360, 1, 5, QString(), nullptr));
  form->addRow(tr("Size"), triple(size_, "simColliderSize", 0.001, 100, 3, 0.01, QString(), sizeLabel_));
  friction_ = numberBox(details_, "simColliderFriction", 0, 10, 2, 0.1);
  form->addRow(tr("Friction"), friction_);
  v->addWidget(details_);
  auto* note = new QLabel(tr("Scene changes reach a running simulation at once."), this);
  note->setWordWrap(true);
  v->addWidget(note);

  connect(table_, &QTableWidget::itemSelectionChanged, this, [this] {
    if (refreshing_) return;
    const auto rows = table_->selectionModel()->selectedRows();
    selectCollider(rows.isEmpty() ? QString() : table_->item(rows.front().row(), kName)->text());
  });
  connect(add_, &QPushButton::clicked, this, [this] { addCollider(ColliderShape(shape_->currentData().toInt())); });
  connect(remove_, &QPushButton::clicked, this, &SceneEditor::removeCollider);
  connect(groundHeight_, &QDoubleSpinBox::valueChanged, this, &SceneEditor::applyGround);
  connect(groundFriction_, &QDoubleSpinBox::valueChanged, this, &SceneEditor::applyGround);
  connect(name_, &QLineEdit::editingFinished, this, [this] {
    const QString name = name_->text().trimmed();
    if (refreshing_ || name == selected_) return;
    const auto& colliders = doc_->project().simulation.colliders;
    const bool taken = std::any_of(colliders.begin(), colliders.end(),
                                   [&](const Collider& c) { return QString::fromStdString(c.name) == name; });
    if (name.isEmpty() || taken) {
      refresh();  // back to the current name: names are unique and not empty
      return;
    }
    SimulationSetup setup = doc_->project().simulation;
    for (Collider& c : setup.colliders)
      if (QString::fromStdString(c.name) == selected_) c.name = name.toStdString();
    const QString old = selected_;
    selected_ = name;
    doc_->undoStack()->push(new SetSimulationSetupCommand(doc_, std::move(setup), tr("Rename collider %1 to %2").arg(old, name)));
    emit selectionChanged(selected_);
  });
  for (int k = 0; k < 3; ++k) {
    connect(center_[k], &QDoubleSpinBox::valueChanged, this,
            [this, k](double x) { editSelected(QString("center%1").arg(k), [&](Collider& c) { c.center[k] = x; }); });
    connect(rotation_[k], &QDoubleSpinBox::valueChanged, this, [this, k](double x) {
      editSelected(QString("rotation%1").arg(k), [&](Collider& c) { c.rotationDegrees[k] = x; });
    });
    connect(size_[k], &QDoubleSpinBox::valueChanged, this,
            [this, k](double x) { editSelected(QString("size%1").arg(k), [&](Collider& c) { c.size[k] = x; }); });
  }
  connect(friction_, &QDoubleSpinBox::valueChanged, this,
          [this](double x) { editSelected("friction", [&](Collider& c) { c.friction = x; }); });
  connect(doc_, &Document::settingsChanged, this, &SceneEditor::refresh);
  connect(doc_, &Document::structureChanged, this, &SceneEditor::refresh);
  refresh();
}

void SceneEditor::refresh() {
  const SimulationSetup& s = doc_->project().simulation;
  const Collider* sel = nullptr;
  for (const Collider& c : s.colliders)
    if (QString::fromStdString(c.name) == selected_) sel = &c;
  if (!sel) selected_.clear();

  refreshing_ = true;
  {
    const QSignalBlocker b1(groundHeight_), b2(groundFriction_);
    groundHeight_->setValue(s.groundHeight.value_or(solverDefaults.groundHeight));
    groundFriction_->setValue(s.groundFriction.value_or(solverDefaults.friction));
  }
  table_->setRowCount(int(s.colliders.size()));
  for (size_t i = 0; i < s.colliders.size(); ++i) {
    const Collider& c = s.colliders[i];
    const QString cells[kColumns] = {QString::fromStdString(c.name), shapeTitle(c.shape),
                                     QString("%1, %2, %3").arg(c.center.x(), 0, 'f', 2).arg(c.center.y(), 0, 'f', 2).arg(c.center.z(), 0, 'f', 2)};
    for (int col = 0; col < kColumns; ++col) table_->setItem(int(i), col, new QTableWidgetItem(cells[col]));
    if (sel == &c) table_->selectRow(int(i));
  }
  if (!sel) table_->clearSelection();
  const int rows = std::clamp(table_->rowCount(), 1, 6);
  table_->setFixedHeight(table_->horizontalHeader()->sizeHint().height() + rows * table_->verticalHeader()->defaultSectionSize() +
                         2 * table_->frameWidth() + 2);

  details_->setEnabled(sel != nullptr);
  remove_->setEnabled(sel != nullptr);
  const Collider shown = sel ? *sel : Collider{};
  name_->setText(QString::fromStdString(shown.name));
  for (int k = 0; k < 3; ++k) {
    const QSignalBlocker b1(center_[k]), b2(rotation_[k]), b3(size_[k]);
    center_[k]->setValue(shown.center[k]);
    rotation_[k]->setValue(shown.rotationDegrees[k]);
    size_[k]->setValue(std::max(shown.size[k], size_[k]->minimum()));
  }
  {
    const QSignalBlocker b(friction_);
    friction_->setValue(shown.friction);
  }
  // Which sizes the shape uses, and what they mean.
  const QString labels[3][3] = {{tr("r"), QString(), QString()},
                                {tr("half x"), tr("y"), tr("z")},
                                {tr("r"), tr("half length"), QString()}};
  const int kind = shown.shape == ColliderShape::Sphere ? 0 : shown.shape == ColliderShape::Box ? 1 : 2;
  for (int k = 0; k < 3; ++k) {
    sizeLabel_[k]->setText(labels[kind][k]);
    const bool used = !labels[kind][k].isEmpty();
    sizeLabel_[k]->setVisible(used);
    size_[k]->setVisible(used);
  }
  if (shown.shape == ColliderShape::Capsule) size_[1]->setMinimum(0.0);
  else size_[1]->setMinimum(0.001);
  refreshing_ = false;
}

void SceneEditor::selectCollider(const QString& name) {
  if (name == selected_) return;
  selected_ = name;
  refresh();
  emit selectionChanged(selected_);
}

void SceneEditor::addCollider(ColliderShape shape) {
  const Project& p = doc_->project();
  SimulationSetup s = p.simulation;
  Collider c;
  c.shape = shape;
  for (int n = 1;; ++n) {
    const std::string name = shapeTitle(shape).toStdString() + " " + std::to_string(n);
    if (std::none_of(s.colliders.begin(), s.colliders.end(), [&](const Collider& o) { return o.name == name; })) {
      c.name = name;
      break;
    }
  }
  // Sized to the character, in front of it, resting on the ground.
  const Aabb b = p.bounds();
  const double height = b.empty() ? 1.7 : std::max(0.2, b.max.y() - b.min.y());
  const double r = 0.1 * height;
  c.size = shape == ColliderShape::Box ? Vec3(r, r, r) : shape == ColliderShape::Sphere ? Vec3(r, 0, 0) : Vec3(0.5 * r, r, 0);
  const double ground = s.groundHeight.value_or(solverDefaults.groundHeight);
  const double up = shape == ColliderShape::Capsule ? c.size.x() + c.size.y() : r;  // lowest point on the ground
  const double front = b.empty() ? 0.5 : b.max.z() + r + 0.05 * height;
  c.center = Vec3(b.empty() ? 0 : 0.5 * (b.min.x() + b.max.x()), ground + up, front);
  // On the editor's millimetre grid, so that its fields show the exact values.
  for (int k = 0; k < 3; ++k) {
    c.center[k] = std::round(c.center[k] * 1000) / 1000;
    c.size[k] = std::round(c.size[k] * 1000) / 1000;
  }
  c.friction = solverDefaults.friction;
  s.colliders.push_back(c);
  selected_ = QString::fromStdString(c.name);
  doc_->undoStack()->push(new SetSimulationSetupCommand(doc_, std::move(s), tr("Add collider %1").arg(selected_)));
  emit selectionChanged(selected_);
}

void SceneEditor::removeCollider() {
  if (selected_.isEmpty()) return;
  SimulationSetup s = doc_->project().simulation;
  std::erase_if(s.colliders, [&](const Collider& c) { return QString::fromStdString(c.name) == selected_; });
  const QString name = selected_;
  selected_.clear();
  doc_->undoStack()->push(new SetSimulationSetupCommand(doc_, std::move(s), tr("Remove collider %1").arg(name)));
  emit selectionChanged(selected_);
}

void SceneEditor::editSelected(const QString& field, const std::function<void(Collider&)>& edit) {
  if (refreshing_ || selected_.isEmpty()) return;
  SimulationSetup s = doc_->project().simulation;
  Collider* target = nullptr;
  for (Collider& c : s.colliders)
    if (QString::fromStdString(c.name) == selected_) target = &c;
  if (!target) return;
  const Collider before = *target;
  edit(*target);
  if (*target == before) return;
  try {
    target->validate("scene");
  } catch (const std::exception&) {
    refresh();
    return;
  }
  const QString name = QString::fromStdString(target->name);
  doc_->undoStack()->push(
      new SetSimulationSetupCommand(doc_, std::move(s), tr("Edit collider %1").arg(name), "collider/" + name + "/" + field));
}

void SceneEditor::applyGround() {
  if (refreshing_) return;
  SimulationSetup s = doc_->project().simulation;
  const double height = groundHeight_->value(), friction = groundFriction_->value();
  if (s.groundHeight.value_or(solverDefaults.groundHeight) == height &&
      s.groundFriction.value_or(solverDefaults.friction) == friction)
    return;
  s.groundHeight = height;
  s.groundFriction = friction;
  doc_->undoStack()->push(new SetSimulationSetupCommand(doc_, std::move(s), tr("Edit ground"), "ground"));
}

}  // namespace sinew::app
