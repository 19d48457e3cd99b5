// Weight painting in the viewport: brush strokes, heat map, brush outline (PaintController.h).
#include "PaintController.h"

#include "Commands.h"
#include "VolumeView.h"
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
    : QObject(parent), doc_(doc), view_(view), log_(log), surfaceBrush_(view) {
  brush.radius = 0.05;
  brush.strength = 0.5;
  // Undo, redo and other edits of the weights or the skeleton: start again from the document.
  connect(doc_, &Document::objectChanged, this, [this](ObjectId id) {
    const bool skeleton = doc_->project().skeleton && doc_->project().skeleton->id == id;
    if (!surfaceBrush_.stroking() && (id == mesh_ || skeleton)) reload();
  });
  connect(doc_, &Document::structureChanged, this, [this] {
    if (!doc_->project().findMesh(mesh_)) mesh_ = 0;
    if (!surfaceBrush_.stroking()) reload();
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
    surfaceBrush_.clear();
    state_ = WeightPaintState{};
    colors_.clear();
    if (bonesChangedNow) emit bonesChanged();
    view_->update();
    return;
  }
  if (surfaceBrush_.setSurface(m->mesh, m->id, doc_->revision(m->id)) || !surface_) {
    surface_ = std::make_unique<PaintSurface>(m->mesh);
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

std::optional<Vec3> PaintController::surfacePoint(const QPoint& p) const { return surfaceBrush_.pointUnder(p); }

bool PaintController::sample(const Vec3& at) {
  BrushSample b = brush;
  b.center = at;
  if (applyBrush(*surface_, state_, b).empty()) return false;
  updateColors();
  return true;
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
  // Off the mesh: nothing to paint, nothing to select either.
  surfaceBrush_.press(e->position().toPoint(), [this](const Vec3& at) { return sample(at); });
  return true;
}

bool PaintController::mouseMove(QMouseEvent* e, bool dragging) {
  surfaceBrush_.move(e->position(), dragging, brush.radius, [this](const Vec3& at) { return sample(at); });
  return true;
}

bool PaintController::mouseRelease(QMouseEvent*) {
  if (!surfaceBrush_.stroking()) return true;
  if (surfaceBrush_.release())
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
  surfaceBrush_.draw(scene, brush.radius, Vec3f(1.0f, 1.0f, 1.0f));
}

}  // namespace sinew::app
