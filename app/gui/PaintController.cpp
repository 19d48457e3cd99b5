// Weight painting in the viewport: brush strokes, heat map, brush outline (PaintController.h).
#include "PaintController.h"

#include "Commands.h"
#include "VolumeView.h"
#include "geometry/Sdf.h"
#include "rig/Skinning.h"

#include <QMouseEvent>

#include <cmath>

namespace sinew::app {

using render::Vec3f;

namespace {
// Blue (0) -> green (0.5) -> red (1): a weight heat map.
Vec3f heat(double w) {
  const float t = float(std::clamp(w, 0.0, 1.0));
  if (t < 0.5f) return {0.1f, 0.2f + 1.4f * t, 0.9f - 1.4f * t};
  return {0.2f + 1.5f * (t - 0.5f), 0.9f - 1.4f * (t - 0.5f), 0.2f};
}
}  // namespace

PaintController::PaintController(Document* doc, ViewportWidget* view, Log* log, QObject* parent)
    : QObject(parent), doc_(doc), view_(view), log_(log) {
  brush.radius = 0.05;
  brush.strength = 0.5;
  // Undo, redo and other edits of the weights or the skeleton: start again from the document.
  connect(doc_, &Document::objectChanged, this, [this](ObjectId id) {
    const bool skeleton = doc_->project().skeleton && doc_->project().skeleton->id == id;
    if (!stroking_ && (id == mesh_ || skeleton)) reload();
  });
  connect(doc_, &Document::structureChanged, this, [this] {
    if (!doc_->project().findMesh(mesh_)) mesh_ = 0;
    if (!stroking_) reload();
  });
}

void PaintController::setMesh(ObjectId mesh) {
  if (mesh == mesh_) return;
  mesh_ = mesh;
  reload();
}

void PaintController::reload() {
  const Project& p = doc_->project();
  const MeshObject* m = p.findMesh(mesh_);
  std::vector<std::string> bones;
  if (p.skeleton) {
    const Skeleton& s = p.skeleton->skeleton;
    std::vector<int32_t> idx = s.bones();
    if (idx.empty())
      for (size_t j = 0; j < s.size(); ++j) idx.push_back(int32_t(j));
    for (int32_t j : idx) bones.push_back(s.joints[size_t(j)].name);
  }
  const bool bonesChangedNow = bones != bones_;
  bones_ = std::move(bones);
  if (!m || bones_.empty()) {
    surface_.reset();
    tree_.reset();
    state_ = WeightPaintState{};
    colors_.clear();
    if (bonesChangedNow) emit bonesChanged();
    view_->update();
    return;
  }
  const uint64_t rev = doc_->revision(m->id);
  if (!surface_ || rev != meshRevision_) {
    surface_ = std::make_unique<PaintSurface>(m->mesh);
    tree_.reset();
    rest_ = m->mesh;
    tree_ = std::make_unique<TriangleTree>(rest_);
    meshRevision_ = rev;
    state_.vertexMirror = mirrorVertexMap(*surface_, 1e-4 * std::max(m->mesh.bounds().diagonal(), 1e-9));
  }
  const int32_t selected = std::clamp(state_.selectedBone, 0, int32_t(bones_.size()) - 1);
  std::vector<uint8_t> locks = state_.locked;
  if (m->skin) {
    state_.weights = toWeightMatrix(*m->skin, bones_);
  } else {
    // No weights yet: start from each vertex bound to its nearest bone.
    state_.weights = toWeightMatrix(nearestBoneWeights(m->mesh.positions, p.skeleton->skeleton), bones_);
  }
  clampAndNormalizeRows(state_.weights);
  state_.selectedBone = selected;
  state_.locked = bonesChangedNow ? std::vector<uint8_t>(bones_.size(), 0) : locks;
  state_.locked.resize(bones_.size(), 0);
  state_.boneMirror = mirrorBoneMap(bones_);
  updateColors();
  if (bonesChangedNow) emit bonesChanged();
  emit weightsChanged();
}

void PaintController::setSelectedBone(int32_t bone) {
  if (bone < 0 || size_t(bone) >= bones_.size()) return;
  state_.selectedBone = bone;
  updateColors();
}

void PaintController::setLocked(int32_t bone, bool locked) {
  if (bone < 0 || size_t(bone) >= bones_.size()) return;
  state_.locked.resize(bones_.size(), 0);
  state_.locked[size_t(bone)] = locked ? 1 : 0;
}

std::optional<Vec3> PaintController::surfacePoint(const QPoint& p) const {
  if (!tree_) return std::nullopt;
  const render::Ray r = view_->camera().rayThrough(p.x(), p.y(), view_->width(), view_->height());
  const auto hit = tree_->raycast(r.origin, r.direction);
  if (!hit) return std::nullopt;
  return hit->point;
}

void PaintController::sample(const Vec3& at) {
  BrushSample b = brush;
  b.center = at;
  if (!applyBrush(*surface_, state_, b).empty()) {
    changedInStroke_ = true;
    updateColors();
  }
  lastSample_ = at;
}

void PaintController::commit(const QString& text) {
  const Project& p = doc_->project();
  if (!p.findMesh(mesh_)) return;
  std::optional<SkinWeights> meshSkin = toSkinWeights(state_.weights, bones_);
  // A volume embedding this mesh gets node weights from the painted ones.
  ObjectId volumeId = 0;
  std::optional<SkinWeights> nodeSkin;
  for (const VolumeObject& v : p.volumes) {
    if (v.surface != mesh_ || v.embedding.vertexCount() != size_t(state_.weights.rows())) continue;
    const WeightMatrix surface = toWeightMatrix(*meshSkin, v.bones);
    const WeightMatrix nodes = nodeWeightsFromSurface(v.mesh, v.embedding, surface, v.fixedBone);
    nodeSkin = toSkinWeights(nodes, v.bones);
    volumeId = v.id;
    break;
  }
  doc_->undoStack()->push(new SetWeightsCommand(doc_, mesh_, std::move(meshSkin), volumeId, std::move(nodeSkin), text));
}

void PaintController::floodSelected(double value) {
  if (!surface_) return;
  flood(*surface_, state_, value);
  updateColors();
  commit(tr("Flood %1").arg(QString::fromStdString(bones_[size_t(state_.selectedBone)])));
}

void PaintController::normalizeAll() {
  if (!surface_) return;
  sinew::normalizeAll(state_);
  updateColors();
  commit(tr("Normalize weights"));
}

bool PaintController::mousePress(QMouseEvent* e) {
  if (e->button() != Qt::LeftButton || !surface_) return false;
  const auto at = surfacePoint(e->position().toPoint());
  if (!at) return true;  // off the mesh: nothing to paint, nothing to select either
  stroking_ = true;
  changedInStroke_ = false;
  lastSample_.reset();
  sample(*at);
  return true;
}

bool PaintController::mouseMove(QMouseEvent* e, bool dragging) {
  const auto at = surfacePoint(e->position().toPoint());
  hover_ = at;
  if (at && tree_) {
    const render::Ray r = view_->camera().rayThrough(e->position().x(), e->position().y(), view_->width(), view_->height());
    if (const auto hit = tree_->raycast(r.origin, r.direction)) hoverNormal_ = triangleNormal(*tree_->mesh(), size_t(hit->triangle));
  }
  if (dragging && stroking_ && at) {
    // Samples every quarter radius along the drag, so fast strokes leave no gaps.
    const Vec3 from = lastSample_.value_or(*at);
    const double spacing = 0.25 * brush.radius;
    const int steps = std::max(1, int(std::ceil((*at - from).norm() / spacing)));
    for (int k = 1; k <= steps; ++k) sample(from + (*at - from) * (double(k) / steps));
  }
  return true;
}

bool PaintController::mouseRelease(QMouseEvent*) {
  if (!stroking_) return true;
  stroking_ = false;
  if (changedInStroke_)
    commit(tr("Paint %1").arg(QString::fromStdString(bones_[size_t(std::clamp<int32_t>(state_.selectedBone, 0, int32_t(bones_.size()) - 1))])));
  return true;
}

void PaintController::updateColors() {
  const auto n = size_t(state_.weights.rows());
  colors_.resize(n);
  const int32_t b = state_.selectedBone;
  for (size_t v = 0; v < n; ++v) {
    if (showDominant) {
      Eigen::Index best = 0;
      state_.weights.row(Eigen::Index(v)).maxCoeff(&best);
      colors_[v] = render::regionColor(int(best));
    } else {
      colors_[v] = b >= 0 && b < state_.weights.cols() ? heat(state_.weights(Eigen::Index(v), b)) : heat(0);
    }
  }
  ++colorRevision_;
  view_->update();
}

void PaintController::decorate(render::FrameScene& scene) {
  if (!active || !mesh_) return;
  for (render::MeshItem& item : scene.meshes)
    if (item.key == mesh_ && item.mesh && item.mesh->vertexCount() == colors_.size()) {
      item.vertexColors = &colors_;
      item.colorRevision = colorRevision_;
    }
  // The brush: a circle of its radius on the surface under the cursor.
  if (hover_) {
    const Mat3 f = sdf::frameAlong(hoverNormal_);
    render::LineItem circle;
    circle.onTop = true;
    const Vec3f c(1.0f, 1.0f, 1.0f);
    for (int k = 0; k < 40; ++k) {
      const double t0 = 2 * M_PI * k / 40, t1 = 2 * M_PI * (k + 1) / 40;
      circle.add((*hover_ + brush.radius * (std::cos(t0) * f.col(1) + std::sin(t0) * f.col(2))).cast<float>(),
                 (*hover_ + brush.radius * (std::cos(t1) * f.col(1) + std::sin(t1) * f.col(2))).cast<float>(), c);
    }
    circle.add(hover_->cast<float>(), (*hover_ + 0.5 * brush.radius * hoverNormal_).cast<float>(), c);
    scene.lines.push_back(std::move(circle));
  }
}

}  // namespace sinew::app
