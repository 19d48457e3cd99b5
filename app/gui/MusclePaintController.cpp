// Muscle painting in the viewport: sources and sinks on a rod body's surface (MusclePaintController.h).
#include "MusclePaintController.h"

#include "Commands.h"

#include <QMouseEvent>

namespace sinew::app {

using render::Vec3f;

const char* MusclePaintController::modeName(Mode m) {
  switch (m) {
    case Mode::Source: return "Source (origin)";
    case Mode::Sink: return "Sink (insertion)";
    case Mode::Erase: return "Erase";
  }
  return "?";
}

MusclePaint MusclePaintController::markOf(Mode m) {
  return m == Mode::Source ? MusclePaint::Source : m == Mode::Sink ? MusclePaint::Sink : MusclePaint::None;
}

Vec3f MusclePaintController::markColor(MusclePaint m, const Vec3f& unpainted) {
  switch (m) {
    case MusclePaint::Source: return {0.2f, 0.85f, 0.3f};
    case MusclePaint::Sink: return {0.95f, 0.2f, 0.15f};
    case MusclePaint::None: break;
  }
  return unpainted;
}

MusclePaintController::MusclePaintController(Document* doc, ViewportWidget* view, QObject* parent)
    : QObject(parent), doc_(doc), view_(view), surfaceBrush_(view) {
  // Undo, redo and other edits of the body or its surface: start again from the document.
  connect(doc_, &Document::objectChanged, this, [this](ObjectId id) {
    if (!surfaceBrush_.stroking() && id && (id == body_ || id == surface_)) reload();
  });
  connect(doc_, &Document::structureChanged, this, [this] {
    if (!doc_->project().findRodBody(body_)) body_ = 0;
    if (!surfaceBrush_.stroking()) reload();
  });
}

void MusclePaintController::setBody(ObjectId body) {
  if (body == body_) return;
  body_ = body;
  reload();
}

void MusclePaintController::reload() {
  const Project& p = doc_->project();
  const RodBodyObject* b = p.findRodBody(body_);
  const MeshObject* m = b ? p.findMesh(b->surface) : nullptr;
  const ObjectId before = surface_;
  if (!m) {
    surface_ = 0;
    surfaceBrush_.clear();
    marks_.clear();
    colors_.clear();
  } else {
    surfaceBrush_.setSurface(m->mesh, m->id, doc_->revision(m->id));
    surface_ = m->id;
    // An unpainted (or differently sized) paint starts blank: viperize says what is missing.
    marks_ = b->paint;
    marks_.resize(m->mesh.vertexCount(), MusclePaint::None);
    updateColors();
  }
  if (surface_ != before) emit bodyChanged();
  view_->update();
}

std::optional<Vec3> MusclePaintController::surfacePoint(const QPoint& p) const {
  return surfaceBrush_.pointUnder(p);
}

bool MusclePaintController::sample(const Vec3& at) {
  // Every vertex strictly inside the brush's sphere takes the mark (muscle
  // surfaces have a few thousand vertices at most: no grid needed).
  const MusclePaint mark = markOf(mode);
  const double r2 = radius * radius;
  const std::vector<Vec3>& rest = surfaceBrush_.surface().positions;
  bool changed = false;
  for (size_t v = 0; v < rest.size() && v < marks_.size(); ++v)
    if ((rest[v] - at).squaredNorm() < r2 && marks_[v] != mark) {
      marks_[v] = mark;
      changed = true;
    }
  if (changed) updateColors();
  return changed;
}

bool MusclePaintController::mousePress(QMouseEvent* e) {
  if (e->button() != Qt::LeftButton || !surfaceBrush_.ready()) return false;
  // Off the surface: nothing to paint, nothing to select either.
  surfaceBrush_.press(e->position().toPoint(), [this](const Vec3& at) { return sample(at); });
  return true;
}

bool MusclePaintController::mouseMove(QMouseEvent* e, bool dragging) {
  surfaceBrush_.move(e->position(), dragging, radius, [this](const Vec3& at) { return sample(at); });
  return true;
}

bool MusclePaintController::mouseRelease(QMouseEvent*) {
  if (!surfaceBrush_.stroking()) return true;
  const bool changed = surfaceBrush_.release();
  const RodBodyObject* b = doc_->project().findRodBody(body_);
  if (changed && b) {
    RodBodyObject edited = *b;
    edited.paint = marks_;
    const QString what = mode == Mode::Source ? tr("sources") : mode == Mode::Sink ? tr("sinks") : tr("erase marks");
    doc_->undoStack()->push(new SetRodBodyCommand(doc_, std::move(edited),
                                                  tr("Paint %1 on %2").arg(what, QString::fromStdString(b->name))));
  }
  return true;
}

void MusclePaintController::updateColors() {
  // Unpainted vertices in a neutral grey, not the mesh's colour: muscles are
  // usually red, which would hide the sinks.
  const Vec3f unpainted(0.72f, 0.72f, 0.74f);
  colors_.resize(marks_.size());
  for (size_t v = 0; v < marks_.size(); ++v) colors_[v] = markColor(marks_[v], unpainted);
  ++colorRevision_;
  view_->update();
}

void MusclePaintController::decorate(render::FrameScene& scene) {
  if (!active || !surface_) return;
  for (render::MeshItem& item : scene.meshes)
    if (item.key == surface_ && item.mesh && item.mesh->vertexCount() == colors_.size()) {
      item.vertexColors = &colors_;
      item.colorRevision = colorRevision_;
      item.translucent = false;  // the skin being painted is shown solid, pills or not
    }
  // The brush under the cursor, in the mark's colour (erasing: white).
  surfaceBrush_.draw(scene, radius, markColor(markOf(mode), Vec3f(1.0f, 1.0f, 1.0f)));
}

}  // namespace sinew::app
