// Muscle painting in the viewport: sources and sinks on a rod body's surface (MusclePaintController.h).
#include "MusclePaintController.h"

#include "Commands.h"
#include "geometry/Sdf.h"

#include <QMouseEvent>

#include <cmath>

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
    : QObject(parent), doc_(doc), view_(view) {
  // Undo, redo and other edits of the body or its surface: start again from the document.
  connect(doc_, &Document::objectChanged, this, [this](ObjectId id) {
    if (!stroking_ && id && (id == body_ || id == surface_)) reload();
  });
  connect(doc_, &Document::structureChanged, this, [this] {
    if (!doc_->project().findRodBody(body_)) body_ = 0;
    if (!stroking_) reload();
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
    tree_.reset();
    marks_.clear();
    colors_.clear();
  } else {
    const uint64_t rev = doc_->revision(m->id);
    if (!tree_ || m->id != surface_ || rev != surfaceRevision_) {
      rest_ = m->mesh;
      tree_ = std::make_unique<TriangleTree>(rest_);
      surfaceRevision_ = rev;
    }
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
  if (!tree_) return std::nullopt;
  const render::Ray r = view_->camera().rayThrough(p.x(), p.y(), view_->width(), view_->height());
  const auto hit = tree_->raycast(r.origin, r.direction);
  if (!hit) return std::nullopt;
  return hit->point;
}

void MusclePaintController::sample(const Vec3& at) {
  // Every vertex strictly inside the brush's sphere takes the mark (muscle
  // surfaces have a few thousand vertices at most: no grid needed).
  const MusclePaint mark = markOf(mode);
  const double r2 = radius * radius;
  bool changed = false;
  for (size_t v = 0; v < rest_.positions.size() && v < marks_.size(); ++v)
    if ((rest_.positions[v] - at).squaredNorm() < r2 && marks_[v] != mark) {
      marks_[v] = mark;
      changed = true;
    }
  if (changed) {
    changedInStroke_ = true;
    updateColors();
  }
  lastSample_ = at;
}

bool MusclePaintController::mousePress(QMouseEvent* e) {
  if (e->button() != Qt::LeftButton || !tree_) return false;
  const auto at = surfacePoint(e->position().toPoint());
  if (!at) return true;  // off the surface: nothing to paint, nothing to select either
  stroking_ = true;
  changedInStroke_ = false;
  lastSample_.reset();
  sample(*at);
  return true;
}

bool MusclePaintController::mouseMove(QMouseEvent* e, bool dragging) {
  const auto at = surfacePoint(e->position().toPoint());
  hover_ = at;
  if (at && tree_) {
    const QPointF p = e->position();
    const render::Ray r = view_->camera().rayThrough(p.x(), p.y(), view_->width(), view_->height());
    if (const auto hit = tree_->raycast(r.origin, r.direction))
      hoverNormal_ = triangleNormal(rest_, size_t(hit->triangle));
  }
  if (dragging && stroking_ && at) {
    // Samples every quarter radius along the drag, so fast strokes leave no gaps.
    const Vec3 from = lastSample_.value_or(*at);
    const int steps = std::max(1, int(std::ceil((*at - from).norm() / (0.25 * radius))));
    for (int k = 1; k <= steps; ++k) sample(from + (*at - from) * (double(k) / steps));
  }
  return true;
}

bool MusclePaintController::mouseRelease(QMouseEvent*) {
  if (!stroking_) return true;
  stroking_ = false;
  const RodBodyObject* b = doc_->project().findRodBody(body_);
  if (changedInStroke_ && b) {
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
  // The brush: a circle of its radius on the surface under the cursor.
  if (hover_) {
    const Mat3 f = sdf::frameAlong(hoverNormal_);
    render::LineItem circle;
    circle.onTop = true;
    const Vec3f c = markColor(markOf(mode), Vec3f(1.0f, 1.0f, 1.0f));  // erasing: white
    for (int k = 0; k < 40; ++k) {
      const double t0 = 2 * M_PI * k / 40, t1 = 2 * M_PI * (k + 1) / 40;
      circle.add((*hover_ + radius * (std::cos(t0) * f.col(1) + std::sin(t0) * f.col(2))).cast<float>(),
                 (*hover_ + radius * (std::cos(t1) * f.col(1) + std::sin(t1) * f.col(2))).cast<float>(), c);
    }
    circle.add(hover_->cast<float>(), (*hover_ + 0.5 * radius * hoverNormal_).cast<float>(), c);
    scene.lines.push_back(std::move(circle));
  }
}

}  // namespace sinew::app
