// The viewport's rigging tools (select, place, move, pose joints; paint) and what the rig draws (RigController.h).
#include "RigController.h"

#include "Commands.h"
#include "rig/BoneShapes.h"
#include "rig/SkeletonEdit.h"
#include "rig/Skinning.h"
#include "volume/TetQuality.h"

#include <QKeyEvent>
#include <QMouseEvent>

#include <cmath>

namespace sinew::app {

using render::Vec3f;

const char* rigToolName(RigTool t) {
  switch (t) {
    case RigTool::Select: return "Select";
    case RigTool::PlaceJoint: return "Place Joint";
    case RigTool::MoveJoint: return "Move Joint";
    case RigTool::Pose: return "Pose";
    case RigTool::Paint: return "Paint Weights";
    case RigTool::PaintMuscle: return "Paint Muscles";
  }
  return "?";
}

RigController::RigController(Document* doc, ViewportWidget* view, Log* log, QObject* parent)
    : QObject(parent), doc_(doc), view_(view), log_(log) {
  view_->setInteraction(this);
  connect(doc_, &Document::structureChanged, this, [this] {
    invalidatePose();
    flagged_.clear();
  });
  connect(doc_, &Document::objectChanged, this, [this](ObjectId id) {
    if (doc_->project().skeleton && doc_->project().skeleton->id == id) {
      invalidatePose();
      flagged_.clear();
    }
  });
  connect(&doc_->selection(), &Selection::changed, this, [this] {
    activeRing_ = -1;
    view_->update();
  });
}

RigController::~RigController() { view_->setInteraction(nullptr); }

const Skeleton* RigController::skeleton() const {
  return doc_->project().skeleton ? &doc_->project().skeleton->skeleton : nullptr;
}

ViewportInteraction* RigController::paintTool() const {
  if (tool_ == RigTool::Paint) return paintInteraction;
  if (tool_ == RigTool::PaintMuscle) return musclePaintInteraction;
  return nullptr;
}

int32_t RigController::selectedIndex() const {
  const Skeleton* s = skeleton();
  return s && !selectedJoint().isEmpty() ? s->find(selectedJoint().toStdString()) : -1;
}

void RigController::setTool(RigTool tool) {
  if (tool == tool_) return;
  tool_ = tool;
  // Editing the rest skeleton happens in the rest pose.
  if ((tool == RigTool::PlaceJoint || tool == RigTool::MoveJoint) && posed()) resetPose();
  view_->setCursor(tool == RigTool::PlaceJoint ? Qt::CrossCursor
                   : tool == RigTool::MoveJoint ? Qt::SizeAllCursor
                   : tool == RigTool::Paint || tool == RigTool::PaintMuscle ? Qt::BlankCursor
                                                                            : Qt::ArrowCursor);
  emit toolChanged(tool);
  view_->update();
}

void RigController::selectJoint(const QString& name) {
  const Skeleton* s = skeleton();
  const int32_t j = s && !name.isEmpty() ? s->find(name.toStdString()) : -1;
  if (j < 0) return doc_->selection().clear();
  render::PickResult detail;
  detail.kind = render::PickKind::Joint;
  detail.object = doc_->project().skeleton->id;
  detail.joint = j;
  doc_->selection().selectJoint(detail.object, name, detail);
}

ObjectId RigController::targetMesh() const {
  const Project& p = doc_->project();
  if (const MeshObject* m = p.findMesh(targetMesh_); m && m->visible) return m->id;
  for (const MeshObject& m : p.meshes)
    if (m.visible) return m.id;
  return 0;
}

// ---------------------------------------------------------------------------
// Pose

bool RigController::posed() const { return !pose_.empty(); }

void RigController::invalidatePose() {
  poseCacheValid_ = false;
  ++poseVersion_;
  view_->update();
}

void RigController::resetPose() {
  pose_.clear();
  invalidatePose();
  emit poseChanged();
}

void RigController::setJointRotation(const QString& joint, const Quat& rotation) {
  if (rotation.angularDistance(Quat::Identity()) < 1e-12) pose_.erase(joint.toStdString());
  else pose_[joint.toStdString()] = rotation.normalized();
  invalidatePose();
  emit poseChanged();
}

Quat RigController::jointRotation(const QString& joint) const {
  const auto it = pose_.find(joint.toStdString());
  return it == pose_.end() ? Quat::Identity() : it->second;
}

std::vector<Transform> RigController::currentPose() const {
  const Skeleton* s = skeleton();
  if (!s) return {};
  std::vector<Quat> rot(s->size(), Quat::Identity());
  for (size_t j = 0; j < s->size(); ++j) {
    const auto it = pose_.find(s->joints[j].name);
    if (it != pose_.end()) rot[j] = it->second;
  }
  return poseFromRotations(*s, rot);
}

const std::vector<Transform>* RigController::jointPose() const {
  if (!posed() || !skeleton()) return nullptr;
  if (!poseCacheValid_) {
    poseCache_ = currentPose();
    poseCacheValid_ = true;
  }
  return &poseCache_;
}

const TriMesh& RigController::posedMesh(const MeshObject& m) {
  PosedMesh& c = posed_[m.id];
  const uint64_t rev = doc_->revision(m.id);
  if (c.revision == rev && c.poseVersion == poseVersion_) return c.mesh;
  const Skeleton* s = skeleton();
  const SkinWeights* w = m.skin ? &*m.skin : nullptr;
  if (!w) {
    // No weights yet: bind each vertex rigidly to its nearest bone, and say so once.
    if (!c.fallback || c.fallbackRevision != rev) {
      c.fallback = nearestBoneWeights(m.mesh.positions, *s);
      c.fallbackRevision = rev;
      log_->info(tr("'%1' has no skinning weights yet: posing it with nearest-bone weights")
                     .arg(QString::fromStdString(m.name)));
    }
    w = &*c.fallback;
  }
  c.mesh.triangles = m.mesh.triangles;
  c.mesh.positions = linearBlendSkinning(m.mesh.positions, *w, *s, *jointPose());
  c.revision = rev;
  c.poseVersion = poseVersion_;
  return c.mesh;
}

int RigController::ringUnderCursor(const QPoint& p) const {
  const int32_t j = selectedIndex();
  const std::vector<Transform>* pose = jointPose();
  if (j < 0) return -1;
  const Transform w = pose ? (*pose)[size_t(j)] : skeleton()->worldRest()[size_t(j)];
  const render::Camera& cam = view_->camera();
  // Ring radius: about 60 pixels at the joint's depth.
  const double depth = std::max((w.translation - cam.eye()).dot(cam.forward()), 1e-3);
  const double radius = 60.0 * 2.0 * depth * std::tan(0.5 * cam.fovY * M_PI / 180.0) / std::max(view_->height(), 1);
  const Mat3 r = w.rotation.toRotationMatrix();
  int best = -1;
  double bestD = 7.0;  // pixels
  for (int a = 0; a < 3; ++a) {
    const Vec3 u = r.col((a + 1) % 3), v = r.col((a + 2) % 3);
    double px0 = 0, py0 = 0;
    for (int k = 0; k <= 48; ++k) {
      const double t = 2 * M_PI * k / 48;
      double px, py;
      if (!cam.project(w.translation + radius * (std::cos(t) * u + std::sin(t) * v), view_->width(), view_->height(), &px, &py))
        continue;
      if (k > 0) {
        // Distance from p to the segment (px0,py0)-(px,py).
        const double dx = px - px0, dy = py - py0;
        const double len2 = dx * dx + dy * dy;
        const double s = len2 > 0 ? std::clamp(((p.x() - px0) * dx + (p.y() - py0) * dy) / len2, 0.0, 1.0) : 0.0;
        const double d = std::hypot(p.x() - (px0 + s * dx), p.y() - (py0 + s * dy));
        if (d < bestD) {
          bestD = d;
          best = a;
        }
      }
      px0 = px;
      py0 = py;
    }
  }
  return best;
}

void RigController::rotateBy(const QPoint& from, const QPoint& to) {
  const Skeleton* s = skeleton();
  const int32_t j = selectedIndex();
  if (!s || j < 0) return;
  const std::vector<Transform> pose = currentPose();
  const render::Camera& cam = view_->camera();
  Vec3 axis;
  double angle;
  if (activeRing_ >= 0 && activeRing_ < 3) {
    // Rotation about the ring's axis by the angle swept around the joint on screen.
    axis = pose[size_t(j)].rotation.toRotationMatrix().col(activeRing_);
    double cx, cy;
    if (!cam.project(pose[size_t(j)].translation, view_->width(), view_->height(), &cx, &cy)) return;
    const double a0 = std::atan2(from.y() - cy, from.x() - cx), a1 = std::atan2(to.y() - cy, to.x() - cx);
    angle = std::remainder(a1 - a0, 2 * M_PI);
    // Screen y points down: a clockwise sweep on screen is counter-clockwise seen from the camera.
    if (axis.dot(cam.forward()) < 0) angle = -angle;
  } else {
    // Trackball: drag right turns about the camera's up axis, drag down about its right axis.
    const double dx = to.x() - from.x(), dy = to.y() - from.y();
    const Vec3 a = dx * cam.up() + dy * cam.right();
    if (a.norm() < 1e-9) return;
    axis = a.normalized();
    angle = 0.01 * std::hypot(dx, dy);
  }
  // World rotation R about `axis`, expressed as a change of the joint's pose
  // rotation q (local = rest_rotation * q): q' = rest^-1 P^-1 R P rest q.
  const Quat R(Eigen::AngleAxisd(angle, axis));
  const int32_t up = s->joints[size_t(j)].parent;
  const Quat P = up >= 0 ? pose[size_t(up)].rotation : Quat::Identity();
  const Quat rest = s->joints[size_t(j)].restLocal.rotation;
  const Quat q = jointRotation(selectedJoint());
  setJointRotation(selectedJoint(), (rest.conjugate() * P.conjugate() * R * P * rest * q).normalized());
}

// ---------------------------------------------------------------------------
// Skeleton editing

void RigController::pushSkeleton(Skeleton edited, const QString& text, int dragSerial) {
  doc_->undoStack()->push(new SkeletonEditCommand(doc_, std::move(edited), text, dragSerial));
}

void RigController::flagJoints(const QStringList& names) {
  flagged_ = names;
  if (!names.isEmpty()) selectJoint(names.front());
  ++displayVersion_;
  view_->update();
}

render::Ray RigController::rayAt(const QPoint& p) const {
  return view_->camera().rayThrough(p.x(), p.y(), view_->width(), view_->height());
}

int32_t RigController::jointUnderCursor(const QPoint& p) const {
  const render::PickResult r = view_->pickAt(p);
  return r.kind == render::PickKind::Joint ? r.joint : -1;
}

std::vector<std::shared_ptr<const TriangleTree>> RigController::visibleMeshTrees() const {
  std::vector<std::shared_ptr<const TriangleTree>> trees;
  for (const MeshObject& m : doc_->project().meshes)
    if (m.visible) trees.push_back(std::make_shared<const TriangleTree>(m.mesh));
  return trees;
}

std::optional<Vec3> RigController::limbMiddleAt(const QPoint& p,
                                                const std::vector<std::shared_ptr<const TriangleTree>>& trees) const {
  const render::Ray ray = rayAt(p);
  // In the first mesh the ray passes through.
  std::optional<Vec3> at;
  double nearest = std::numeric_limits<double>::infinity();
  for (const auto& tree : trees) {
    const auto hit = tree->raycast(ray.origin, ray.direction);
    if (!hit || hit->t >= nearest) continue;
    if (const auto place = jointPlacement(*tree, ray.origin, ray.direction)) {
      nearest = hit->t;
      at = place;
    }
  }
  return at;
}

void RigController::placeJoint(const QPoint& p) {
  const Project& proj = doc_->project();
  const std::optional<Vec3> at = limbMiddleAt(p, visibleMeshTrees());
  if (!at) {
    emit message(tr("Place a joint by clicking on a mesh: it lands inside the limb under the cursor"));
    return;
  }
  if (!proj.skeleton) {
    // The first joint creates the skeleton.
    Project added;
    added.nextId = proj.nextId;
    SkeletonObject so;
    so.id = added.allocateId();
    so.name = "Skeleton";
    addJoint(so.skeleton, -1, "Root", *at);
    added.skeleton = so;
    doc_->undoStack()->push(new AddObjectsCommand(doc_, std::move(added), tr("Place joint")));
    selectJoint("Root");
    return;
  }
  Skeleton edited = proj.skeleton->skeleton;
  const int32_t j = addJoint(edited, selectedIndex(), selectedJoint().isEmpty() ? "Joint" : selectedJoint().toStdString() + "Child", *at);
  const QString name = QString::fromStdString(edited.joints[size_t(j)].name);
  pushSkeleton(std::move(edited), tr("Place joint %1").arg(name));
  selectJoint(name);
}

bool RigController::deleteSelectedJoint() {
  const Skeleton* s = skeleton();
  const int32_t j = selectedIndex();
  if (!s || j < 0) return false;
  Skeleton edited = *s;
  deleteJoint(edited, j);
  const QString name = selectedJoint();
  selectJoint({});
  pushSkeleton(std::move(edited), tr("Delete joint %1").arg(name));
  return true;
}

bool RigController::insertJointInBone() {
  const Skeleton* s = skeleton();
  const int32_t j = selectedIndex();
  if (!s || j < 0 || s->joints[size_t(j)].parent < 0) {
    emit message(tr("Select a joint that has a parent: the new joint goes halfway along the bone between them"));
    return false;
  }
  Skeleton edited = *s;
  const int32_t k = insertJoint(edited, j, 0.5);
  const QString name = QString::fromStdString(edited.joints[size_t(k)].name);
  pushSkeleton(std::move(edited), tr("Insert joint %1").arg(name));
  selectJoint(name);
  return true;
}

void RigController::mirror(int fromSide) {
  const Skeleton* s = skeleton();
  if (!s) return;
  Skeleton edited = *s;
  const int n = mirrorJoints(edited, fromSide);
  if (n == 0) {
    emit message(tr("No %1 joints with a partner to mirror to (names need Left/Right, L/R prefixes or suffixes)")
                     .arg(fromSide > 0 ? tr("left") : tr("right")));
    return;
  }
  pushSkeleton(std::move(edited), fromSide > 0 ? tr("Mirror left to right") : tr("Mirror right to left"));
  emit message(tr("Mirrored %1 joint(s)").arg(n));
}

void RigController::symmetrize() {
  const Skeleton* s = skeleton();
  if (!s) return;
  Skeleton edited = *s;
  const int n = symmetrizeJoints(edited);
  pushSkeleton(std::move(edited), tr("Symmetrize skeleton"));
  emit message(tr("Symmetrized: %1 joint(s) moved").arg(n));
}

void RigController::assignBoneShapes() {
  const Skeleton* s = skeleton();
  const MeshObject* m = doc_->project().findMesh(targetMesh());
  if (!s || !m) return;
  Skeleton edited = *s;
  assignDefaultBoneShapes(edited, m->mesh);
  pushSkeleton(std::move(edited), tr("Default bone shapes"));
}

bool RigController::fitSkeletonTo(ObjectId meshId) {
  const Skeleton* s = skeleton();
  const MeshObject* m = doc_->project().findMesh(meshId);
  if (!s || !m) return false;
  Skeleton edited = *s;
  const double scale = fitSkeletonToMesh(edited, m->mesh);
  const std::vector<int32_t> outside = jointsOutside(edited, TriangleTree(m->mesh));
  pushSkeleton(std::move(edited), tr("Fit skeleton to %1").arg(QString::fromStdString(m->name)));
  log_->info(tr("Fitted the skeleton to '%1' (scale %2)").arg(QString::fromStdString(m->name)).arg(scale, 0, 'g', 4));
  if (!outside.empty()) {
    QStringList names;
    for (int32_t j : outside) names << QString::fromStdString(skeleton()->joints[size_t(j)].name);
    log_->warning(tr("%1 joint(s) lie outside '%2': %3").arg(outside.size()).arg(QString::fromStdString(m->name), names.join(", ")));
  }
  return true;
}

// ---------------------------------------------------------------------------
// Events

bool RigController::mousePress(QMouseEvent* e) {
  if (tool_ == RigTool::Paint || tool_ == RigTool::PaintMuscle) return paintTool() && paintTool()->mousePress(e);
  if (e->button() != Qt::LeftButton) return false;
  const QPoint p = e->position().toPoint();
  lastPos_ = p;
  switch (tool_) {
    case RigTool::Select:
    case RigTool::Paint:
    case RigTool::PaintMuscle: return false;
    case RigTool::PlaceJoint: placeJoint(p); return true;
    case RigTool::MoveJoint: {
      const int32_t j = jointUnderCursor(p);
      if (j < 0) return false;  // a plain click: select what is there
      const Skeleton* s = skeleton();
      selectJoint(QString::fromStdString(s->joints[size_t(j)].name));
      dragStart_ = s->restPositions()[size_t(j)];
      dragPlanePoint_ = dragStart_;
      dragPlaneNormal_ = view_->camera().forward();
      const render::Ray r = rayAt(p);
      const double t = (dragPlanePoint_ - r.origin).dot(dragPlaneNormal_) / r.direction.dot(dragPlaneNormal_);
      dragGrab_ = r.origin + t * r.direction;
      // Children follow the joint; Shift moves the joint alone.
      dragSubtree_ = !(e->modifiers() & Qt::ShiftModifier);
      dragTrees_ = visibleMeshTrees();  // for Ctrl: snap to the middle of the limb under the cursor
      dragging_ = true;
      ++dragSerial_;
      return true;
    }
    case RigTool::Pose: {
      activeRing_ = ringUnderCursor(p);
      if (activeRing_ >= 0) return true;
      const int32_t j = jointUnderCursor(p);
      if (j < 0) return false;
      selectJoint(QString::fromStdString(skeleton()->joints[size_t(j)].name));
      activeRing_ = 3;  // trackball
      return true;
    }
  }
  return false;
}

bool RigController::mouseMove(QMouseEvent* e, bool dragging) {
  if (tool_ == RigTool::Paint || tool_ == RigTool::PaintMuscle) return paintTool() && paintTool()->mouseMove(e, dragging);
  const QPoint p = e->position().toPoint();
  if (!dragging) return tool_ == RigTool::Pose;  // redraw the gizmo under the cursor
  if (tool_ == RigTool::MoveJoint && dragging_) {
    const render::Ray r = rayAt(p);
    const double den = r.direction.dot(dragPlaneNormal_);
    if (std::abs(den) < 1e-9) return true;
    const Vec3 hit = r.origin + ((dragPlanePoint_ - r.origin).dot(dragPlaneNormal_) / den) * r.direction;
    Vec3 delta = hit - dragGrab_;
    if (axisLock_ >= 0) {
      const double along = delta[axisLock_];
      delta = Vec3::Zero();
      delta[axisLock_] = along;
    }
    const int32_t j = selectedIndex();
    if (j < 0) return true;
    Vec3 to = dragStart_ + delta;
    if (e->modifiers() & Qt::ControlModifier)
      if (const std::optional<Vec3> middle = limbMiddleAt(p, dragTrees_)) to = *middle;
    Skeleton edited = *skeleton();
    moveJoint(edited, j, to, dragSubtree_);
    pushSkeleton(std::move(edited), tr("Move joint %1").arg(selectedJoint()), dragSerial_);
    return true;
  }
  if (tool_ == RigTool::Pose && activeRing_ >= 0) {
    rotateBy(lastPos_, p);
    lastPos_ = p;
    return true;
  }
  return false;
}

bool RigController::mouseRelease(QMouseEvent* e) {
  if (tool_ == RigTool::Paint || tool_ == RigTool::PaintMuscle) return paintTool() && paintTool()->mouseRelease(e);
  dragging_ = false;
  dragTrees_.clear();
  activeRing_ = -1;
  return true;
}

bool RigController::keyPress(QKeyEvent* e) {
  if (paintTool()) return paintTool()->keyPress(e);
  if (tool_ != RigTool::MoveJoint || e->isAutoRepeat()) return false;
  const int axis = e->key() == Qt::Key_X ? 0 : e->key() == Qt::Key_Y ? 1 : e->key() == Qt::Key_Z ? 2 : -1;
  if (axis < 0) return false;
  axisLock_ = axis;
  return true;
}

bool RigController::keyRelease(QKeyEvent* e) {
  if (tool_ != RigTool::MoveJoint || e->isAutoRepeat()) return false;
  const int axis = e->key() == Qt::Key_X ? 0 : e->key() == Qt::Key_Y ? 1 : e->key() == Qt::Key_Z ? 2 : -1;
  if (axis < 0 || axis != axisLock_) return false;
  axisLock_ = -1;
  return true;
}

// ---------------------------------------------------------------------------
// Drawing

void RigController::setVolumeView(const VolumeView& v) {
  volumeView_ = v;
  ++displayVersion_;
  view_->update();
}

void RigController::decorate(render::FrameScene& scene) {
  const Project& p = doc_->project();
  // The posed surface.
  if (posed() && skeleton())
    for (render::MeshItem& item : scene.meshes)
      if (const MeshObject* m = p.findMesh(item.key)) {
        item.mesh = &posedMesh(*m);
        item.revision = item.revision * 1000003u + poseVersion_;
      }

  // Volumes, with the cut-away exposing their interior.
  for (const VolumeObject& v : p.volumes) {
    if (!v.visible || v.mesh.tets.empty() || posed()) continue;
    if (!volumeView_.cutAway && v.id != selectedObject_) continue;
    const Aabb box = v.mesh.bounds();
    render::CutAway cut;
    cut.enabled = volumeView_.cutAway;
    cut.axis = volumeView_.axis;
    cut.position = box.min[cut.axis] + volumeView_.fraction * box.size()[cut.axis];
    VolumeCache& c = volumeCache_[v.id];
    const uint64_t key = doc_->revision(v.id) * 1000003u + displayVersion_;
    if (c.key != key) {
      std::vector<int32_t> worst;
      if (volumeView_.worstTets) {
        // The worst 1% by smallest dihedral angle (inverted tets first).
        TetQualityOptions qo;
        qo.worstCount = std::max<size_t>(1, v.mesh.tetCount() / 100);
        worst = measureTetQuality(v.mesh, qo).worst;
      }
      c.geometry = render::volumeGeometry(v.mesh, volumeView_.fixedNodes ? v.fixedBone : std::vector<int32_t>{}, cut, worst);
      c.key = key;
    }
    render::MeshItem item;
    item.key = v.id | (uint64_t(1) << 62);
    item.revision = key;
    item.mesh = &c.geometry.faces;
    item.vertexColors = &c.geometry.colors;
    item.colorRevision = key;
    item.color = Vec3f(0.93f, 0.62f, 0.60f);
    scene.meshes.push_back(std::move(item));
    if (!c.geometry.nodePoints.empty()) {
      render::PointItem nodes;
      nodes.positions = c.geometry.nodePoints;
      nodes.colors = c.geometry.nodeColors;
      nodes.size = 5.0f;
      scene.points.push_back(std::move(nodes));
    }
    // Surfaces are cut too, so the interior shows.
    if (cut.enabled)
      for (render::MeshItem& it : scene.meshes)
        if (const MeshObject* m = p.findMesh(it.key)) {
          TriMesh& cs = cutSurfaces_[m->id];
          cs = render::cutSurface(*it.mesh, cut);
          it.mesh = &cs;
          it.revision = it.revision * 31u + key;
        }
  }

  // The selected joint's bone shape, as an outline.
  const Skeleton* s = skeleton();
  if (const int32_t j = selectedIndex(); s && j >= 0 && s->joints[size_t(j)].bone.kind != BoneShapeKind::None) {
    const std::vector<Transform> w = jointPose() ? *jointPose() : s->worldRest();
    const TriMesh shape = boneShapeSurface(s->joints[size_t(j)].bone, w[size_t(j)], 12);
    render::LineItem lines;
    lines.onTop = true;
    for (const Tri& t : shape.triangles)
      for (int k = 0; k < 3; ++k)
        if (t[k] < t[(k + 1) % 3])
          lines.add(shape.positions[size_t(t[k])].cast<float>(), shape.positions[size_t(t[(k + 1) % 3])].cast<float>(),
                    Vec3f(0.55f, 0.8f, 1.0f));
    scene.lines.push_back(std::move(lines));
  }

  // Joints a failed step named (rig/Cage's JointsError): red rings, until the skeleton changes.
  if (s && !flagged_.empty()) {
    const std::vector<Transform> w = jointPose() ? *jointPose() : s->worldRest();
    render::PointItem marks;
    marks.onTop = true;
    marks.size = 14.0f;
    for (const QString& name : flagged_)
      if (const int32_t j = s->find(name.toStdString()); j >= 0) {
        marks.positions.push_back(w[size_t(j)].translation.cast<float>());
        marks.colors.push_back(Vec3f(1.0f, 0.2f, 0.15f));
      }
    scene.points.push_back(std::move(marks));
  }

  // Pose gizmo: three rings about the selected joint's axes.
  if (tool_ == RigTool::Pose && s && selectedIndex() >= 0) {
    const int32_t j = selectedIndex();
    const std::vector<Transform> w = jointPose() ? *jointPose() : s->worldRest();
    const render::Camera& cam = view_->camera();
    const double depth = std::max((w[size_t(j)].translation - cam.eye()).dot(cam.forward()), 1e-3);
    const double radius = 60.0 * 2.0 * depth * std::tan(0.5 * cam.fovY * M_PI / 180.0) / std::max(view_->height(), 1);
    const Mat3 r = w[size_t(j)].rotation.toRotationMatrix();
    static const Vec3f colors[3] = {{0.95f, 0.3f, 0.3f}, {0.35f, 0.9f, 0.35f}, {0.35f, 0.55f, 1.0f}};
    render::LineItem rings;
    rings.onTop = true;
    for (int a = 0; a < 3; ++a) {
      const Vec3 u = r.col((a + 1) % 3), v = r.col((a + 2) % 3);
      const Vec3f c = a == activeRing_ ? Vec3f(1.0f, 0.9f, 0.2f) : colors[a];
      for (int k = 0; k < 48; ++k) {
        const double t0 = 2 * M_PI * k / 48, t1 = 2 * M_PI * (k + 1) / 48;
        rings.add((w[size_t(j)].translation + radius * (std::cos(t0) * u + std::sin(t0) * v)).cast<float>(),
                  (w[size_t(j)].translation + radius * (std::cos(t1) * u + std::sin(t1) * v)).cast<float>(), c);
      }
    }
    scene.lines.push_back(std::move(rings));
  }

  // Move tool: the locked axis through the joint.
  if (tool_ == RigTool::MoveJoint && dragging_ && axisLock_ >= 0 && s && selectedIndex() >= 0) {
    const Vec3 at = s->restPositions()[size_t(selectedIndex())];
    Vec3 dir = Vec3::Zero();
    dir[axisLock_] = 10.0;
    render::LineItem axis;
    axis.onTop = true;
    static const Vec3f colors[3] = {{0.95f, 0.3f, 0.3f}, {0.35f, 0.9f, 0.35f}, {0.35f, 0.55f, 1.0f}};
    axis.add((at - dir).cast<float>(), (at + dir).cast<float>(), colors[axisLock_]);
    scene.lines.push_back(std::move(axis));
  }

  if (paintTool()) paintTool()->decorate(scene);
}

}  // namespace sinew::app
