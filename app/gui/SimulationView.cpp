// What the viewport shows of a simulation, and the mouse's part in it (SimulationView.h).
#include "SimulationView.h"

#include "core/Hash.h"
#include "dynamics/Colliders.h"

#include <QMouseEvent>

#include <cmath>

namespace sinew::app {

namespace {

// The bodies' pills of a frame (nodes [0, bodyNodes)), or the bones' capsules after them.
render::PillSet pillsOf(const RodNodes& nodes, const RodLayout& layout, bool bones) {
  render::PillSet pills;
  const size_t n = std::min(nodes.centres.size(), nodes.radii.size());
  const size_t begin = bones ? std::min(layout.bodyNodes, n) : 0, end = bones ? n : std::min(layout.bodyNodes, n);
  pills.centres.assign(nodes.centres.begin() + long(begin), nodes.centres.begin() + long(end));
  pills.radii.assign(nodes.radii.begin() + long(begin), nodes.radii.begin() + long(end));
  pills.scales.resize(pills.radii.size(), 1.0);
  for (size_t i = 0; i < pills.radii.size() && begin + i < layout.restRadius.size(); ++i)
    if (layout.restRadius[begin + i] > 0) pills.scales[i] = pills.radii[i] / layout.restRadius[begin + i];
  pills.segments = bones ? layout.boneSegments : layout.bodySegments;
  return pills;
}

}  // namespace

SimulationView::SimulationView(Document* doc, ViewportWidget* view, ViewportInteraction* inner)
    : doc_(doc), view_(view), inner_(inner) {
  view_->setInteraction(this);
  updateColliders();
}

SimulationView::~SimulationView() = default;

void SimulationView::show(const SimFrame& f, ObjectId surface, const std::vector<Tri>& triangles, const RodLayout* rods) {
  surface_ = surface;
  mesh_.positions = f.surface;
  joints_ = f.joints;
  ghost_ = f.ghost;
  time_ = f.time;
  const Project& p = doc_->project();
  if (const MeshObject* m = p.findMesh(surface); m && m->mesh.vertexCount() == mesh_.positions.size())
    mesh_.triangles = m->mesh.triangles;
  else
    mesh_.triangles = triangles;
  others_.clear();
  for (const auto& [id, positions] : f.otherSurfaces)
    if (const MeshObject* m = p.findMesh(id); m && m->mesh.vertexCount() == positions.size())
      others_.push_back({id, TriMesh{positions, m->mesh.triangles}});
  hasPills_ = rods && !f.rods.centres.empty();
  pills_ = hasPills_ ? render::pillGeometry(pillsOf(f.rods, *rods, false)) : render::PillGeometry{};
  bones_ = hasPills_ ? render::pillGeometry(pillsOf(f.rods, *rods, true), 10) : render::PillGeometry{};
  showing_ = true;
  ++version_;
  if (!mesh_.positions.empty()) {  // the camera keeps the character in view (View > Follow the Character)
    Vec3 centre = Vec3::Zero();
    for (const Vec3& p : mesh_.positions) centre += p;
    view_->followSubject(centre / double(mesh_.positions.size()), grabbing_);
  }
  view_->update();
}

void SimulationView::showSurface(std::vector<Vec3> positions, std::vector<Transform> joints) {
  mesh_.positions = std::move(positions);
  joints_ = std::move(joints);
  ++version_;
  view_->update();
}

void SimulationView::clear() {
  showing_ = false;
  time_ = 0;
  surface_ = 0;
  mesh_ = {};
  joints_.clear();
  ghost_.clear();
  others_.clear();
  pills_ = {};
  bones_ = {};
  hasPills_ = false;
  grabbing_ = false;
  ++version_;
  view_->endFollow();
  view_->update();
}

// ---------------------------------------------------------------------------
// Drawing

void SimulationView::setHighlightedCollider(const QString& name) {
  highlightedCollider_ = name;
  view_->update();
}

void SimulationView::updateColliders() {
  colliderMeshes_.clear();
  colliderRevisions_.clear();
  for (const Collider& c : doc_->project().simulation.colliders) {
    colliderMeshes_.push_back(dyn::colliderMesh(c, 32));
    // A revision from the collider's values: the renderer re-uploads when they change.
    const double values[] = {double(c.shape), c.center.x(), c.center.y(), c.center.z(), c.rotationDegrees.x(),
                             c.rotationDegrees.y(), c.rotationDegrees.z(), c.size.x(), c.size.y(), c.size.z()};
    colliderRevisions_.push_back(fnv1a64(values, sizeof(values)));
  }
  view_->update();
}

void SimulationView::decorateScene(render::FrameScene& scene) const {
  // The scene's colliders and, when it is not at 0, the ground's outline.
  const SimulationSetup& setup = doc_->project().simulation;
  for (size_t i = 0; i < colliderMeshes_.size() && i < setup.colliders.size(); ++i) {
    render::MeshItem item;
    item.key = (uint64_t(1) << 62) + i;
    item.revision = colliderRevisions_[i];
    item.mesh = &colliderMeshes_[i];
    item.color = render::Vec3f(0.45f, 0.62f, 0.78f);
    item.selected = QString::fromStdString(setup.colliders[i].name) == highlightedCollider_;
    scene.meshes.push_back(item);
  }
  if (setup.groundHeight && *setup.groundHeight != 0) {
    render::LineItem ground;
    const float y = float(*setup.groundHeight), e = float(scene.gridCell * scene.gridCells / 2);
    const render::Vec3f c(0.55f, 0.5f, 0.35f);
    const render::Vec3f corners[4] = {{-e, y, -e}, {e, y, -e}, {e, y, e}, {-e, y, e}};
    for (int k = 0; k < 4; ++k) ground.add(corners[k], corners[(k + 1) % 4], c);
    for (int k = 1; k < 4; ++k) {
      const float t = -e + 2 * e * k / 4;
      ground.add({t, y, -e}, {t, y, e}, c);
      ground.add({-e, y, t}, {e, y, t}, c);
    }
    scene.lines.push_back(std::move(ground));
  }
}

void SimulationView::decorateGhost(render::FrameScene& scene) const {
  // The reference beside the character: a ghost skeleton.
  render::LineItem ghost;
  const render::Vec3f c(0.35f, 0.75f, 1.0f);
  for (size_t l = 1; l < ghost_.size() && l < ghostBody_->links.size(); ++l) {
    const int32_t parent = ghostBody_->links[l].parent;
    if (parent < 0) continue;
    ghost.add((ghost_[size_t(parent)] + ghostOffset()).cast<float>(), (ghost_[l] + ghostOffset()).cast<float>(), c);
  }
  scene.lines.push_back(std::move(ghost));
  render::PointItem joints;
  joints.size = 6.0f;
  for (const Vec3& x : ghost_) {
    joints.positions.push_back((x + ghostOffset()).cast<float>());
    joints.colors.push_back(c);
  }
  scene.points.push_back(std::move(joints));
}

void SimulationView::decorate(render::FrameScene& scene) {
  if (inner_) inner_->decorate(scene);
  decorateScene(scene);
  if (!showing_) return;
  // VIPER: the displayed frame's pills replace the rest ones, its skins the rest surfaces.
  if (hasPills_) {
    std::erase_if(scene.meshes, [](const render::MeshItem& item) { return ViewportWidget::isRestPillKey(item.key); });
    if (view_->settings().pills && !pills_.mesh.triangles.empty()) {
      render::MeshItem pills;
      pills.key = ViewportWidget::kSimulatedPillKey;
      pills.revision = version_;
      pills.mesh = &pills_.mesh;
      pills.vertexColors = &pills_.colors;
      pills.colorRevision = version_;
      scene.meshes.push_back(pills);
    }
    // The bones' capsules, which the muscles' ends ride on and collide with.
    if (view_->settings().pills && !bones_.mesh.triangles.empty()) {
      render::MeshItem bones;
      bones.key = ViewportWidget::kSimulatedPillKey + 1;
      bones.revision = version_;
      bones.mesh = &bones_.mesh;
      bones.color = ViewportWidget::kBonePillColor;
      scene.meshes.push_back(bones);
    }
  }
  auto replace = [&](ObjectId id, const TriMesh* mesh) {
    for (render::MeshItem& item : scene.meshes)
      if (item.key == id) {
        item.mesh = mesh;
        item.revision = item.revision * 1000003u + (uint64_t(1) << 40) + version_;
      }
  };
  for (const auto& [id, mesh] : others_) replace(id, &mesh);
  if (!surface_ || mesh_.positions.empty()) return;
  if (!ghost_.empty() && ghostBody_) decorateGhost(scene);
  replace(surface_, &mesh_);
  if (grabbing_ && grabVertex_ >= 0 && size_t(grabVertex_) < mesh_.positions.size()) {
    render::LineItem line;
    line.onTop = true;
    const Vec3 v = mesh_.positions[size_t(grabVertex_)];
    line.add(v.cast<float>(), grabPlanePoint_.cast<float>(), render::Vec3f(1.0f, 0.8f, 0.2f));
    scene.lines.push_back(std::move(line));
  }
}

Aabb SimulationView::extraBounds() const {
  Aabb box = inner_ ? inner_->extraBounds() : Aabb{};
  if (!showing_) return box;
  for (const Vec3& p : mesh_.positions) box.add(p);
  for (const auto& [id, mesh] : others_) box.add(mesh.bounds());
  for (const TriMesh* m : {&pills_.mesh, &bones_.mesh}) box.add(m->bounds());
  return box;
}

const std::vector<Transform>* SimulationView::jointPose() const {
  if (showing_ && !joints_.empty()) return &joints_;
  return inner_ ? inner_->jointPose() : nullptr;
}

// ---------------------------------------------------------------------------
// The mouse's spring

void SimulationView::applyGrab(const QPoint& pos) {
  const render::Ray ray = view_->camera().rayThrough(pos.x(), pos.y(), view_->width(), view_->height());
  const double denom = ray.direction.dot(grabPlaneNormal_);
  if (std::abs(denom) < 1e-9) return;
  const double t = (grabPlanePoint_ - ray.origin).dot(grabPlaneNormal_) / denom;
  Grab g;
  g.vertex = grabVertex_;
  g.target = ray.origin + t * ray.direction;
  grabPlanePoint_ = g.target;
  // The spring's stiffness scales with the body's mass (the solvers'
  // default); its stretch is capped, so a long drag pulls at most with
  // kGrabReach of stretch (about 1.5 g with Liu 2013's 30 N/m per kg).
  if (grabVertex_ >= 0 && size_t(grabVertex_) < mesh_.positions.size()) {
    const Vec3& at = mesh_.positions[size_t(grabVertex_)];
    if ((g.target - at).norm() > kGrabReach) g.target = at + kGrabReach * (g.target - at).normalized();
  }
  if (pull_) pull_(g);
  view_->update();
}

bool SimulationView::mousePress(QMouseEvent* e) {
  if (e->button() == Qt::LeftButton && (e->modifiers() & Qt::ControlModifier) && showing_ && surface_) {
    const QPoint p = e->position().toPoint();
    // The nearest displayed (simulated) vertex within a few pixels of the
    // cursor: the rest-pose picking of the viewport would miss a moved
    // surface, and joints drawn on top would take the click.
    const render::Ray ray = view_->camera().rayThrough(p.x(), p.y(), view_->width(), view_->height());
    int32_t best = -1;
    double bestDepth = 0;
    for (size_t i = 0; i < mesh_.positions.size(); ++i) {
      double x, y;
      const Vec3& q = mesh_.positions[i];
      if (!view_->camera().project(q, view_->width(), view_->height(), &x, &y)) continue;
      if (std::hypot(x - p.x(), y - p.y()) > 10) continue;
      const double depth = (q - ray.origin).dot(ray.direction);
      if (best < 0 || depth < bestDepth) {
        best = int32_t(i);
        bestDepth = depth;
      }
    }
    if (best >= 0) {
      grabbing_ = true;
      grabVertex_ = best;
      grabPlanePoint_ = mesh_.positions[size_t(best)];
      grabPlaneNormal_ = ray.direction;
      applyGrab(p);
      return true;
    }
  }
  return inner_ && inner_->mousePress(e);
}

bool SimulationView::mouseMove(QMouseEvent* e, bool dragging) {
  if (grabbing_) {
    if (dragging) applyGrab(e->position().toPoint());
    return true;
  }
  return inner_ && inner_->mouseMove(e, dragging);
}

bool SimulationView::mouseRelease(QMouseEvent* e) {
  if (grabbing_) {
    grabbing_ = false;
    grabVertex_ = -1;
    if (pull_) pull_(std::nullopt);
    view_->update();
    return true;
  }
  return inner_ && inner_->mouseRelease(e);
}

}  // namespace sinew::app
