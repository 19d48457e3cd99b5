// The Rig dock's Muscles section: muscle brush, viperization, spindle muscles (MusclePanel.h).
#include "MusclePanel.h"

#include "Commands.h"
#include "core/Error.h"
#include "viper/Viperize.h"

#include <QAction>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QToolButton>

#include <algorithm>

namespace sinew::app {

namespace {

QToolButton* actionButton(QAction* action, QWidget* parent) {
  auto* b = new QToolButton(parent);
  b->setDefaultAction(action);
  b->setToolButtonStyle(Qt::ToolButtonTextOnly);
  b->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  return b;
}

}  // namespace

MusclePanel::MusclePanel(Document* doc, TaskRunner* tasks, Log* log, MusclePaintController* paint, QAction* paintTool,
                         QAction* viperizeAction, QAction* addMuscleAction, QWidget* parent)
    : QGroupBox(tr("Muscles (VIPER rods)"), parent), doc_(doc), tasks_(tasks), log_(log), paint_(paint) {
  auto* f = new QFormLayout(this);
  body_ = new QComboBox(this);
  body_->setObjectName("muscleBody");
  body_->setToolTip(tr("The rod body to paint and viperize (bodies with a surface)"));
  f->addRow(tr("Muscle"), body_);

  // Painting sources and sinks.
  mode_ = new QComboBox(this);
  mode_->setObjectName("musclePaintMode");
  using Mode = MusclePaintController::Mode;
  for (Mode m : {Mode::Source, Mode::Sink, Mode::Erase}) mode_->addItem(tr(MusclePaintController::modeName(m)), int(m));
  radius_ = new QDoubleSpinBox(this);
  radius_->setObjectName("musclePaintRadius");
  radius_->setRange(0.001, 1.0);
  radius_->setDecimals(3);
  radius_->setSingleStep(0.002);
  radius_->setSuffix(" m");
  radius_->setValue(paint_->radius);
  f->addRow(actionButton(paintTool, this));
  f->addRow(tr("Paint"), mode_);
  f->addRow(tr("Radius"), radius_);

  // Viperize: K rods of M nodes.
  rods_ = new QSpinBox(this);
  rods_->setObjectName("viperRods");
  rods_->setRange(1, viper::kMaxRods);
  rods_->setToolTip(tr("K: rods (fibres) across the muscle"));
  slices_ = new QSpinBox(this);
  slices_->setObjectName("viperSlices");
  slices_->setRange(2, viper::kMaxSlices);
  slices_->setToolTip(tr("M: nodes per rod (cross-sections from origin to insertion)"));
  auto* km = new QHBoxLayout;
  km->addWidget(rods_);
  km->addWidget(slices_);
  f->addRow(tr("K rods, M nodes"), km);
  f->addRow(actionButton(viperizeAction, this));

  // A new muscle between two bones.
  origin_ = new QComboBox(this);
  origin_->setObjectName("muscleOrigin");
  insertion_ = new QComboBox(this);
  insertion_->setObjectName("muscleInsertion");
  f->addRow(tr("Origin bone"), origin_);
  f->addRow(tr("Insertion bone"), insertion_);
  f->addRow(actionButton(addMuscleAction, this));

  connect(body_, &QComboBox::currentIndexChanged, this, &MusclePanel::showBody);
  connect(mode_, &QComboBox::currentIndexChanged, this,
          [this] { paint_->mode = MusclePaintController::Mode(mode_->currentData().toInt()); });
  connect(radius_, &QDoubleSpinBox::valueChanged, this, [this](double r) { paint_->radius = r; });
  connect(doc_, &Document::structureChanged, this, [this] {
    shownBody_ = 0;  // another project, or bodies added or removed: K and M from the current body again
    refresh();
  });
  connect(doc_, &Document::objectChanged, this, [this](ObjectId id) {
    const Project& p = doc_->project();
    if (p.findRodBody(id) || (p.skeleton && p.skeleton->id == id)) refresh();
  });
  refresh();
}

ObjectId MusclePanel::currentBody() const { return ObjectId(body_->currentData().toULongLong()); }

void MusclePanel::setCurrentBody(ObjectId body) {
  const int i = body_->findData(QVariant::fromValue<qulonglong>(body));
  if (i >= 0) body_->setCurrentIndex(i);
}

void MusclePanel::refresh() {
  const Project& p = doc_->project();
  {
    // Bodies with a surface: those can be painted and viperized.
    const ObjectId current = currentBody();
    const QSignalBlocker block(body_);
    body_->clear();
    for (const RodBodyObject& b : p.rodBodies)
      if (b.surface) body_->addItem(QString::fromStdString(b.name), QVariant::fromValue<qulonglong>(b.id));
    const int i = body_->findData(QVariant::fromValue<qulonglong>(current));
    body_->setCurrentIndex(i >= 0 ? i : 0);
  }
  // The skeleton's bones (joints with a bone shape; all joints if none has one).
  for (QComboBox* box : {origin_, insertion_}) {
    const QString current = box->currentText();
    const QSignalBlocker block(box);
    box->clear();
    if (p.skeleton) {
      const Skeleton& s = p.skeleton->skeleton;
      std::vector<int32_t> bones = s.bones();
      if (bones.empty())
        for (size_t j = 0; j < s.size(); ++j) bones.push_back(int32_t(j));
      for (int32_t j : bones) box->addItem(QString::fromStdString(s.joints[size_t(j)].name));
    }
    if (box->findText(current) >= 0) box->setCurrentText(current);
    else if (box == insertion_ && box->count() > 1) box->setCurrentIndex(1);  // two different bones to start with
  }
  showBody();
}

void MusclePanel::showBody() {
  const RodBodyObject* b = doc_->project().findRodBody(currentBody());
  // K and M start from another body's values; edits of this one (a paint
  // stroke) keep what the user set for its next viperization.
  if (b && b->id != shownBody_) {
    const QSignalBlocker b1(rods_), b2(slices_);
    rods_->setValue(b->rodCount);
    slices_->setValue(b->sliceCount);
  }
  shownBody_ = b ? b->id : 0;
  paint_->setBody(shownBody_);
}

bool MusclePanel::viperize() {
  const Project& p = doc_->project();
  const RodBodyObject* body = p.findRodBody(currentBody());
  const QString title = tr("Viperize");
  if (!body) {
    const QString message = tr("There is no muscle to viperize: add one (Add Muscle Between Bones) or open a project "
                               "with a painted rod body.");
    log_->error(tr("Viperize: %1").arg(message));
    emit failed(title, message);
    return false;
  }
  const QString name = QString::fromStdString(body->name);
  const MeshObject* surface = p.findMesh(body->surface);
  // What can be checked is checked here, before any work: K and M, the paint, the surface.
  try {
    if (!surface) throw InputError("muscle '" + body->name + "'", "has no surface mesh to viperize");
    viper::ViperizeOptions o;
    o.rods = rods_->value();
    o.slices = slices_->value();
    viper::checkViperizeInput(surface->mesh, body->paint, o, body->name);
  } catch (const std::exception& e) {
    const QString message = QString::fromStdString(e.what());
    log_->error(tr("Viperize: %1").arg(message));
    emit failed(title, message);
    return false;
  }
  // The worker viperizes a copy of the project with the chosen K and M.
  Project snapshot = p;
  RodBodyObject* copy = snapshot.findRodBody(body->id);
  copy->rodCount = rods_->value();
  copy->sliceCount = slices_->value();
  const ObjectId id = body->id;
  const std::string bodyName = body->name;
  auto result = std::make_shared<RodBodyObject>();
  auto report = std::make_shared<viper::ViperizeResult>();
  return tasks_->run(
      tr("Viperizing %1").arg(name),
      [snapshot = std::move(snapshot), id, bodyName, result, report](const Progress& progress) mutable {
        *report = viper::viperizeBody(snapshot, bodyName, {}, progress);
        *result = *snapshot.findRodBody(id);
      },
      [this, id, result, report, name] {
        const RodBodyObject* now = doc_->project().findRodBody(id);
        if (!now) return log_->warning(tr("Viperize: '%1' was deleted meanwhile; nothing changed").arg(name));
        // The rods come from the result; whatever else was edited meanwhile (paint) stays.
        RodBodyObject after = *now;
        after.rods = result->rods;
        after.bundles = result->bundles;
        after.pins = result->pins;
        after.material = result->material;
        after.selfCollision = result->selfCollision;
        after.rodCount = result->rodCount;
        after.sliceCount = result->sliceCount;
        doc_->undoStack()->push(new SetRodBodyCommand(doc_, std::move(after), tr("Viperize %1").arg(name)));
        const double rodShare = report->muscleVolume > 0 ? report->rodVolume / report->muscleVolume : 0;
        log_->info(tr("Viperized '%1': %2 rods of %3 nodes in %4 s; %5% of the node spheres lie inside the surface, "
                      "the rods hold %6% of its volume")
                       .arg(name)
                       .arg(result->rods.size())
                       .arg(result->sliceCount)
                       .arg(report->seconds, 0, 'f', 2)
                       .arg(100 * report->insideFraction, 0, 'f', 0)
                       .arg(100 * rodShare, 0, 'f', 0));
        emit message(tr("Viperized %1").arg(name));
      },
      [this, title, name](const QString& message, bool cancelled) {
        if (cancelled) return log_->info(tr("Viperizing %1 cancelled; nothing changed").arg(name));
        log_->error(tr("Viperize: %1").arg(message));
        emit failed(title, message);
      });
}

bool MusclePanel::addMuscleBetweenBones() {
  const Project& p = doc_->project();
  const QString title = tr("Add Muscle");
  // The muscle is built in a small project holding what addMuscle reads (the
  // skeleton, the bodies' names, the next id): its new mesh and body are the
  // objects to add.
  Project staged;
  staged.nextId = p.nextId;
  staged.skeleton = p.skeleton;
  staged.rodBodies = p.rodBodies;
  viper::AddMuscleOptions o;
  o.originBone = origin_->currentText().toStdString();
  o.insertionBone = insertion_->currentText().toStdString();
  o.rods = rods_->value();
  o.slices = slices_->value();
  // A free name from the bones: "UpperArm-Forearm", "UpperArm-Forearm 2", ...
  const std::string base = o.originBone + "-" + o.insertionBone;
  o.name = base;
  auto taken = [&](const std::string& name) {
    return std::any_of(p.rodBodies.begin(), p.rodBodies.end(), [&](const RodBodyObject& b) { return b.name == name; });
  };
  for (int k = 2; taken(o.name); ++k) o.name = base + " " + std::to_string(k);
  try {
    const std::string who = "add muscle";
    if (!p.skeleton) throw InputError(who, "the project has no skeleton: a muscle goes between two of its bones");
    if (o.originBone.empty() || o.insertionBone.empty()) throw InputError(who, "choose the origin and insertion bones");
    if (o.originBone == o.insertionBone) throw InputError(who, "the origin and insertion must be different bones");
    viper::addMuscle(staged, o);
  } catch (const std::exception& e) {
    const QString message = QString::fromStdString(e.what());
    log_->error(tr("Add muscle: %1").arg(message));
    emit failed(title, message);
    return false;
  }
  Project added;
  added.nextId = staged.nextId;
  added.meshes = std::move(staged.meshes);
  added.rodBodies.push_back(std::move(staged.rodBodies.back()));
  const ObjectId id = added.rodBodies.back().id;
  const QString name = QString::fromStdString(o.name);
  doc_->undoStack()->push(new AddObjectsCommand(doc_, std::move(added), tr("Add muscle %1").arg(name)));
  setCurrentBody(id);
  log_->info(tr("Added muscle '%1' from %2 to %3: paint its ends if needed, then Viperize")
                 .arg(name, origin_->currentText(), insertion_->currentText()));
  emit bodyAdded(id);
  return true;
}

}  // namespace sinew::app
