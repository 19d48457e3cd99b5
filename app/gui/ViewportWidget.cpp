// The real-time viewport: OpenGL, ImGui overlay, navigation and picking (ViewportWidget.h).
#include "ViewportWidget.h"

#include "core/Hash.h"

#include <QMouseEvent>
#include <QOpenGLContext>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace sinew::app {

using render::Vec3f;

ViewportWidget::ViewportWidget(Document* doc, QWidget* parent) : QOpenGLWidget(parent), doc_(doc) {
  setFocusPolicy(Qt::StrongFocus);
  setMouseTracking(true);
  setMinimumSize(320, 240);
  clock_.start();
  connect(doc_, &Document::structureChanged, this, [this] { update(); });
  connect(doc_, &Document::objectChanged, this, [this] { update(); });
  connect(this, &QOpenGLWidget::frameSwapped, this, [this] {
    if (continuous_) update();
  });
}

ViewportWidget::~ViewportWidget() {
  // The base class destroys the context after this destructor has run: the
  // context's aboutToBeDestroyed must not call back into this half-destroyed
  // object (it would release the renderer a second time).
  if (QOpenGLContext* c = context()) disconnect(c, nullptr, this, nullptr);
  makeCurrent();
  releaseGL();
  doneCurrent();
}

void ViewportWidget::releaseGL() {
  overlay_.release();
  renderer_.release();
  glReady_ = false;
}

void ViewportWidget::onContextDestroyed() {
  makeCurrent();
  releaseGL();
  doneCurrent();
}

void ViewportWidget::initializeGL() {
  // initializeGL can run again after re-parenting: resources belong to the
  // context, so they are freed when it goes away.
  connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, &ViewportWidget::onContextDestroyed,
          Qt::UniqueConnection);
  std::string error;
  if (!renderer_.initialize(&error)) {
    emit glError(tr("OpenGL renderer failed to initialise: %1").arg(QString::fromStdString(error)));
    return;
  }
  if (!overlay_.initialize()) emit glError(tr("ImGui overlay failed to initialise"));
  glInfo_ = QString::fromStdString(renderer_.glVersion());
  glReady_ = true;
}

void ViewportWidget::resizeGL(int, int) {}

void ViewportWidget::setSettings(const render::ViewSettings& s) {
  if (!s.follow) follow_.reset();  // the camera stays where following left it
  settings_ = s;
  emit settingsChanged();
  update();
}

void ViewportWidget::setContinuous(bool on) {
  continuous_ = on;
  if (on) update();
}

void ViewportWidget::setStatusText(const QString& text) {
  if (text == status_) return;
  status_ = text;
  update();
}

QRectF ViewportWidget::overlayWidget(const QString& label) const {
  const auto r = overlay_.widgetRect(label.toStdString());
  return QRectF(r[0], r[1], r[2], r[3]);
}

void ViewportWidget::setTimelineText(const QString& text) {
  timeline_ = text;
  update();
}

void ViewportWidget::setSimulationText(const QString& text) {
  if (text == simulation_) return;
  simulation_ = text;
  update();
}

void ViewportWidget::setSelection(ObjectId object, const render::PickResult& detail) {
  selected_ = object;
  selectionDetail_ = detail;
  update();
}

void ViewportWidget::setClipPose(ObjectId clip, double time) {
  clip_ = clip;
  clipTime_ = time;
  update();
}

render::PillSet ViewportWidget::restPills(const RodBodyObject& body) {
  render::PillSet pills;
  for (const RodBodyRod& rod : body.rods) {
    const auto first = int32_t(pills.centres.size());
    for (size_t i = 0; i < rod.nodes.size(); ++i) {
      pills.centres.push_back(rod.nodes[i]);
      pills.radii.push_back(i < rod.radii.size() ? rod.radii[i] : 0.0);
      pills.scales.push_back(1.0);
      if (i > 0) pills.segments.push_back({first + int32_t(i) - 1, first + int32_t(i)});
    }
  }
  return pills;
}

render::PillSet ViewportWidget::bonePills(const Skeleton& skeleton) {
  // The capsules sinew::viper::viperInputFromProject turns into bone rods.
  render::PillSet pills;
  const std::vector<Transform> rest = skeleton.worldRest();
  for (size_t j = 0; j < skeleton.size(); ++j) {
    const BoneShape& shape = skeleton.joints[j].bone;
    if (shape.kind != BoneShapeKind::Capsule || (shape.end - shape.start).norm() < 1e-6 || !(shape.radius > 0)) continue;
    const auto first = int32_t(pills.centres.size());
    pills.centres.push_back(rest[j].apply(shape.start));
    pills.centres.push_back(rest[j].apply(shape.end));
    pills.radii.insert(pills.radii.end(), 2, shape.radius);
    pills.scales.insert(pills.scales.end(), 2, 1.0);
    pills.segments.push_back({first, first + 1});
  }
  return pills;
}

void ViewportWidget::frameAll() {
  Aabb box = doc_->project().bounds();
  // Rod bodies without a surface (a band) count too, and with rods the bones drawn as pills.
  const Project& p = doc_->project();
  render::PillSet pills;
  for (const RodBodyObject& b : p.rodBodies) {
    const render::PillSet rods = restPills(b);
    pills.centres.insert(pills.centres.end(), rods.centres.begin(), rods.centres.end());
    pills.radii.insert(pills.radii.end(), rods.radii.begin(), rods.radii.end());
  }
  if (!pills.centres.empty() && p.skeleton) {
    const render::PillSet bones = bonePills(p.skeleton->skeleton);
    pills.centres.insert(pills.centres.end(), bones.centres.begin(), bones.centres.end());
    pills.radii.insert(pills.radii.end(), bones.radii.begin(), bones.radii.end());
  }
  for (size_t i = 0; i < pills.centres.size(); ++i) {
    box.add(pills.centres[i] + Vec3::Constant(pills.radii[i]));
    box.add(pills.centres[i] - Vec3::Constant(pills.radii[i]));
  }
  const bool simulated = interaction_ && interaction_->showsSimulatedFrame();
  if (const ClipObject* c = doc_->project().findClip(clip_); c && !simulated)
    for (const Vec3& p : c->clip.worldPointsAt(clipTime_)) box.add(p);
  if (interaction_) box.add(interaction_->extraBounds());
  if (box.empty()) {
    box.add(Vec3(-1, 0, -1));
    box.add(Vec3(1, 2, 1));
  }
  follow_.reset();
  camera_.frame(box);
  update();
}

void ViewportWidget::followSubject(const Vec3& at, bool hold) {
  if (!settings_.follow) return;
  follow_.track(camera_, at, hold);
  update();
}

void ViewportWidget::endFollow() {
  if (!follow_.tracking()) return;
  follow_.release(camera_);
  update();
}

void ViewportWidget::frameObject(ObjectId id) {
  const Project& p = doc_->project();
  Aabb box;
  if (const MeshObject* m = p.findMesh(id)) box = m->mesh.bounds();
  else if (const ClipObject* c = p.findClip(id))
    for (const Vec3& q : c->clip.worldPointsAt(clipTime_)) box.add(q);
  else if (p.skeleton && p.skeleton->id == id)
    for (const Vec3& q : p.skeleton->skeleton.restPositions()) box.add(q);
  if (box.empty()) return frameAll();
  follow_.reset();
  camera_.frame(box);
  update();
}

void ViewportWidget::frameJoint(const QString& name) {
  const Project& p = doc_->project();
  const int32_t j = p.skeleton ? p.skeleton->skeleton.find(name.toStdString()) : -1;
  if (j < 0) return frameAll();
  // The joint with its bone: its parent and children.
  const Skeleton& s = p.skeleton->skeleton;
  const std::vector<Vec3> at = s.restPositions();
  Aabb box;
  box.add(at[size_t(j)]);
  if (s.joints[size_t(j)].parent >= 0) box.add(at[size_t(s.joints[size_t(j)].parent)]);
  for (int32_t c : s.children(j)) box.add(at[size_t(c)]);
  const double pad = std::max(0.05, 0.15 * box.diagonal());
  box.min -= Vec3::Constant(pad);
  box.max += Vec3::Constant(pad);
  follow_.reset();
  camera_.frame(box);
  camera_.target = at[size_t(j)];
  update();
}

render::FrameScene ViewportWidget::buildScene() {
  render::FrameScene scene;
  const Project& p = doc_->project();
  const Aabb bounds = p.bounds();
  if (!bounds.empty()) {
    // Grid cells of 25 cm for human-sized scenes, scaled for others.
    const double extent = std::max({bounds.size().x(), bounds.size().z(), 1.0});
    scene.gridCell = std::pow(10.0, std::floor(std::log10(extent))) * 0.25;
    scene.gridCells = std::clamp(int(std::ceil(extent / scene.gridCell)) + 4, 8, 200);
  }
  // With pills on, the skins of rod bodies are see-through: the rods lie inside them.
  std::vector<ObjectId> rodSkins;
  if (settings_.pills)
    for (const RodBodyObject& b : p.rodBodies)
      if (b.visible && !b.rods.empty() && b.surface) rodSkins.push_back(b.surface);
  for (const MeshObject& m : p.meshes) {
    if (!m.visible) continue;
    render::MeshItem item;
    item.key = m.id;
    item.revision = doc_->revision(m.id);
    item.mesh = &m.mesh;
    item.color = m.color.cast<float>();
    item.selected = m.id == selected_;
    item.translucent = std::find(rodSkins.begin(), rodSkins.end(), m.id) != rodSkins.end();
    if (const MeshReport* r = doc_->meshReport(m.id)) {
      item.highlightFaces = r->problemTriangles();
      item.highlightEdges = r->boundaryEdges;
      item.highlightEdges.insert(item.highlightEdges.end(), r->nonManifoldEdges.begin(), r->nonManifoldEdges.end());
    }
    if (const std::vector<int32_t>* h = doc_->highlight(m.id))
      item.highlightFaces.insert(item.highlightFaces.end(), h->begin(), h->end());
    scene.meshes.push_back(std::move(item));
  }
  // Rod bodies at rest: pills, all white (scale 1). A simulation that shows
  // its frames puts its own pills in their place (SimulationController).
  for (auto it = pillCache_.begin(); it != pillCache_.end();)
    it = p.findRodBody(it->first) ? std::next(it) : pillCache_.erase(it);
  if (settings_.pills)
    for (const RodBodyObject& b : p.rodBodies) {
      if (!b.visible || b.rods.empty()) continue;
      PillCache& c = pillCache_[b.id];
      const uint64_t rev = doc_->revision(b.id);
      if (c.revision != rev || c.geometry.mesh.positions.empty()) {
        c.geometry = render::pillGeometry(restPills(b));
        c.revision = rev;
      }
      render::MeshItem item;
      item.key = restPillKey(b.id);
      item.revision = rev;
      item.mesh = &c.geometry.mesh;
      item.vertexColors = &c.geometry.colors;
      item.colorRevision = rev;
      item.color = Vec3f(0.95f, 0.95f, 0.95f);
      item.selected = b.id == selected_;
      scene.meshes.push_back(std::move(item));
    }
  // With rods on show, the bones they ride on too (otherwise bones stay inside the flesh, undrawn).
  const bool rods =
      std::any_of(p.rodBodies.begin(), p.rodBodies.end(), [](const RodBodyObject& b) { return !b.rods.empty(); });
  if (settings_.pills && rods && p.skeleton) {
    // A few capsules: made every frame, uploaded again only when they change (the hash is the revision).
    const render::PillSet bones = bonePills(p.skeleton->skeleton);
    std::vector<double> values;
    for (size_t i = 0; i < bones.centres.size(); ++i)
      values.insert(values.end(), {bones.centres[i].x(), bones.centres[i].y(), bones.centres[i].z(), bones.radii[i]});
    const uint64_t hash = fnv1a64(values.data(), values.size() * sizeof(double)) | 1;
    if (bonePillCache_.revision != hash) {
      bonePillCache_.geometry = render::pillGeometry(bones, 10);
      bonePillCache_.revision = hash;
    }
    if (!bonePillCache_.geometry.mesh.triangles.empty()) {
      render::MeshItem item;
      item.key = restPillKey(p.skeleton->id);
      item.revision = hash;
      item.mesh = &bonePillCache_.geometry.mesh;
      item.color = kBonePillColor;
      scene.meshes.push_back(std::move(item));
    }
  }
  // The character's skeleton: bones as lines, joints as dots, drawn on top.
  if (settings_.skeleton && p.skeleton) {
    const Skeleton& sk = p.skeleton->skeleton;
    std::vector<Vec3> pos = sk.restPositions();
    if (const std::vector<Transform>* pose = interaction_ ? interaction_->jointPose() : nullptr; pose && pose->size() == pos.size())
      for (size_t j = 0; j < pos.size(); ++j) pos[j] = (*pose)[j].translation;
    render::LineItem bones;
    bones.onTop = true;
    render::PointItem joints;
    joints.onTop = true;
    joints.size = 9.0f;
    const bool skeletonSelected = p.skeleton->id == selected_ || selectionDetail_.kind == render::PickKind::Joint;
    for (size_t j = 0; j < sk.size(); ++j) {
      const bool sel = selectionDetail_.kind == render::PickKind::Joint && selectionDetail_.joint == int32_t(j);
      joints.positions.push_back(pos[j].cast<float>());
      joints.colors.push_back(sel ? Vec3f(1.0f, 0.6f, 0.1f) : Vec3f(0.95f, 0.85f, 0.3f));
      if (sk.joints[j].parent >= 0)
        bones.add(pos[sk.joints[j].parent].cast<float>(), pos[j].cast<float>(),
                  skeletonSelected ? Vec3f(1.0f, 0.7f, 0.3f) : Vec3f(0.85f, 0.75f, 0.35f));
    }
    scene.lines.push_back(std::move(bones));
    scene.points.push_back(std::move(joints));
  }
  // A motion clip, posed at the playback time, as a stick figure.
  const bool simulated = interaction_ && interaction_->showsSimulatedFrame();
  if (const ClipObject* c = p.findClip(clip_); c && !simulated) {
    const MotionClip& clip = c->clip;
    const Skeleton sk = clip.skeleton();
    const std::vector<Transform> world = sk.worldFromLocal(clip.localPoseAt(clipTime_));
    render::LineItem sticks;
    sticks.onTop = true;
    render::PointItem dots;
    dots.onTop = true;
    dots.size = 7.0f;
    const Vec3f color = c->id == selected_ ? Vec3f(0.4f, 0.95f, 1.0f) : Vec3f(0.3f, 0.75f, 0.9f);
    for (size_t j = 0; j < sk.size(); ++j) {
      dots.positions.push_back(world[j].translation.cast<float>());
      dots.colors.push_back(color);
      if (sk.joints[j].parent >= 0)
        sticks.add(world[sk.joints[j].parent].translation.cast<float>(), world[j].translation.cast<float>(), color);
      if (clip.joints[j].endSite)
        sticks.add(world[j].translation.cast<float>(), world[j].apply(*clip.joints[j].endSite * clip.unitScale).cast<float>(),
                   color);
    }
    scene.lines.push_back(std::move(sticks));
    scene.points.push_back(std::move(dots));
  }
  // The picked face (outline) and vertex (dot).
  if (const MeshObject* m = p.findMesh(selectionDetail_.object)) {
    if (selectionDetail_.face >= 0 && size_t(selectionDetail_.face) < m->mesh.triangleCount()) {
      render::LineItem outline;
      outline.onTop = true;
      const Tri& t = m->mesh.triangles[selectionDetail_.face];
      for (int k = 0; k < 3; ++k)
        outline.add(m->mesh.positions[t[k]].cast<float>(), m->mesh.positions[t[(k + 1) % 3]].cast<float>(),
                    Vec3f(1.0f, 0.95f, 0.2f));
      scene.lines.push_back(std::move(outline));
    }
    if (selectionDetail_.kind == render::PickKind::Vertex && selectionDetail_.vertex >= 0 &&
        size_t(selectionDetail_.vertex) < m->mesh.vertexCount()) {
      render::PointItem v;
      v.onTop = true;
      v.size = 10.0f;
      v.positions.push_back(m->mesh.positions[selectionDetail_.vertex].cast<float>());
      v.colors.push_back(Vec3f(1.0f, 0.3f, 0.9f));
      scene.points.push_back(std::move(v));
    }
  }
  if (interaction_) interaction_->decorate(scene);
  return scene;
}

void ViewportWidget::paintGL() {
  if (!glReady_) return;
  const qint64 start = clock_.nsecsElapsed();
  const double dpr = devicePixelRatioF();
  const int w = int(width() * dpr), h = int(height() * dpr);
  renderer_.render(buildScene(), camera_, settings_, w, h, defaultFramebufferObject());

  render::HudInfo hud;
  hud.fps = fps_;
  hud.frameMs = frameMs_;
  hud.triangles = renderer_.stats().trianglesDrawn;
  for (const MeshObject& m : doc_->project().meshes)
    if (m.visible) hud.vertices += m.mesh.vertexCount();
  hud.renderer = glInfo_.toStdString();
  hud.status = status_.toStdString();
  hud.timeline = (interaction_ && interaction_->showsSimulatedFrame() ? simulation_ : timeline_).toStdString();
  const double dt = lastFrameNs_ ? (start - lastFrameNs_) * 1e-9 : 1.0 / 60;
  overlay_.setFramebufferScale(float(dpr));
  render::ViewSettings s = settings_;
  if (overlay_.draw(width(), height(), dt, hud, camera_, s)) {
    if (!s.follow) follow_.reset();  // the camera stays where following left it
    settings_ = s;
    emit settingsChanged();
    update();
  } else if (overlay_.wantsAnotherFrame()) {
    update();
  }
  // Frame time: this paint; frame rate: smoothed interval between paints.
  const qint64 end = clock_.nsecsElapsed();
  frameMs_ = (end - start) * 1e-6;
  if (lastFrameNs_) {
    const double inst = 1e9 / std::max<qint64>(start - lastFrameNs_, 1);
    fps_ = fps_ > 0 ? 0.9 * fps_ + 0.1 * inst : inst;
  }
  lastFrameNs_ = start;
  ++frames_;
}

std::vector<render::PickMeshTarget> ViewportWidget::pickTargets() {
  std::vector<render::PickMeshTarget> targets;
  for (const MeshObject& m : doc_->project().meshes) {
    if (!m.visible) continue;
    PickCache& c = pickCache_[m.id];
    const uint64_t rev = doc_->revision(m.id);
    if (!c.tree || c.revision != rev) {
      c.tree = std::make_unique<TriangleTree>(m.mesh);
      c.revision = rev;
    }
    targets.push_back({m.id, &m.mesh, c.tree.get()});
  }
  // Forget meshes that no longer exist.
  for (auto it = pickCache_.begin(); it != pickCache_.end();)
    it = doc_->project().findMesh(it->first) ? std::next(it) : pickCache_.erase(it);
  return targets;
}

std::vector<render::PickJointTarget> ViewportWidget::jointTargets() const {
  std::vector<render::PickJointTarget> joints;
  const Project& p = doc_->project();
  if (!settings_.skeleton || !p.skeleton) return joints;
  std::vector<Vec3> pos = p.skeleton->skeleton.restPositions();
  if (const std::vector<Transform>* pose = interaction_ ? interaction_->jointPose() : nullptr; pose && pose->size() == pos.size())
    for (size_t j = 0; j < pos.size(); ++j) pos[j] = (*pose)[j].translation;
  for (size_t j = 0; j < pos.size(); ++j) joints.push_back({p.skeleton->id, int32_t(j), pos[j]});
  return joints;
}

render::PickResult ViewportWidget::pickAt(const QPoint& pos) {
  return render::pick(camera_, width(), height(), pos.x(), pos.y(), pickTargets(), jointTargets());
}

namespace {
render::Modifiers modifiersOf(Qt::KeyboardModifiers m) {
  return {bool(m & Qt::AltModifier), bool(m & Qt::ShiftModifier), bool(m & Qt::ControlModifier)};
}
int imguiButton(Qt::MouseButton b) {
  return b == Qt::LeftButton ? 0 : b == Qt::RightButton ? 1 : b == Qt::MiddleButton ? 2 : -1;
}
}  // namespace

void ViewportWidget::mousePressEvent(QMouseEvent* e) {
  const QPoint pos = e->position().toPoint();
  overlay_.mouseMove(float(pos.x()), float(pos.y()));
  overlay_.mouseButton(imguiButton(e->button()), true);
  update();
  if (overlay_.wantsMouse() || dragButton_ != Qt::NoButton) return;
  render::MouseButton b;
  if (e->button() == Qt::LeftButton) b = render::MouseButton::Left;
  else if (e->button() == Qt::MiddleButton) b = render::MouseButton::Middle;
  else if (e->button() == Qt::RightButton) b = render::MouseButton::Right;
  else return;
  drag_ = render::navigationFor(b, modifiersOf(e->modifiers()));
  dragButton_ = e->button();
  pressPos_ = lastPos_ = pos;
  moved_ = false;
  toolDrag_ = drag_ == render::NavAction::None && interaction_ && interaction_->mousePress(e);
  if (toolDrag_) update();
}

void ViewportWidget::mouseMoveEvent(QMouseEvent* e) {
  const QPoint pos = e->position().toPoint();
  overlay_.mouseMove(float(pos.x()), float(pos.y()));
  if (toolDrag_) {
    interaction_->mouseMove(e, true);
    lastPos_ = pos;
    update();
    return;
  }
  if (dragButton_ != Qt::NoButton) {
    const QPoint d = pos - lastPos_;
    lastPos_ = pos;
    if ((pos - pressPos_).manhattanLength() > 3) moved_ = true;
    if (drag_ != render::NavAction::None) render::applyDrag(camera_, drag_, d.x(), d.y(), height());
    update();
    return;
  }
  if (overlay_.wantsMouse()) {
    update();
    return;
  }
  if (interaction_ && interaction_->mouseMove(e, false)) update();
  emit hovered(pickAt(pos));
}

void ViewportWidget::mouseReleaseEvent(QMouseEvent* e) {
  const QPoint pos = e->position().toPoint();
  overlay_.mouseMove(float(pos.x()), float(pos.y()));
  overlay_.mouseButton(imguiButton(e->button()), false);
  update();
  if (e->button() != dragButton_) return;
  if (toolDrag_) {
    toolDrag_ = false;
    dragButton_ = Qt::NoButton;
    interaction_->mouseRelease(e);
    return;
  }
  const bool click = dragButton_ == Qt::LeftButton && drag_ == render::NavAction::None && !moved_;
  dragButton_ = Qt::NoButton;
  drag_ = render::NavAction::None;
  if (click) emit picked(pickAt(pos));
}

void ViewportWidget::wheelEvent(QWheelEvent* e) {
  const double steps = e->angleDelta().y() / 120.0;
  overlay_.mouseWheel(float(steps));
  if (!overlay_.wantsMouse()) render::applyWheel(camera_, steps);
  update();
}

void ViewportWidget::keyPressEvent(QKeyEvent* e) {
  if (!e->text().isEmpty()) overlay_.character(e->text().at(0).unicode());
  if (interaction_ && interaction_->keyPress(e)) {
    update();
    return;
  }
  QOpenGLWidget::keyPressEvent(e);
}

void ViewportWidget::keyReleaseEvent(QKeyEvent* e) {
  if (interaction_ && interaction_->keyRelease(e)) {
    update();
    return;
  }
  QOpenGLWidget::keyReleaseEvent(e);
}

}  // namespace sinew::app
