// What the viewport shows of a simulation, and the mouse's part in it: the
// displayed frame's surfaces, skeleton, VIPER pills and a controller's ghost
// reference in place of the rest pose; the project's colliders and a raised
// ground; Ctrl+left drag pulls the displayed surface with a spring (its
// stretch capped). Everything else goes to the inner interaction (the rig
// tools). Holds display state only; the timeline is the worker's.
#pragma once

#include "Document.h"
#include "SimulationWorker.h"
#include "ViewportWidget.h"

#include <QString>

#include <functional>
#include <optional>
#include <vector>

namespace sinew::app {

class SimulationView : public ViewportInteraction {
 public:
  static constexpr double kGrabReach = 0.5;  // m: the longest stretch of the mouse's spring

  SimulationView(Document* doc, ViewportWidget* view, ViewportInteraction* inner);
  ~SimulationView() override;

  // Shows `frame` of a model with these surface triangles and rods.
  void show(const SimFrame& frame, ObjectId surface, const std::vector<Tri>& triangles, const RodLayout* rods);
  // Shows another surface in place of the displayed one (Sheth 2015's mode viewer).
  void showSurface(std::vector<Vec3> positions, std::vector<Transform> joints);
  void clear();  // back to the rest pose
  bool showing() const { return showing_; }
  double time() const { return time_; }
  const std::vector<Vec3>& surface() const { return mesh_.positions; }
  const std::vector<Vec3>& ghost() const { return ghost_; }
  void setGhostBody(const dyn::ArticulatedModel* body) { ghostBody_ = body; }
  static Vec3 ghostOffset() { return Vec3(0.9, 0, 0); }

  // The mouse's spring: `pull` gets the spring to apply (nullopt: released).
  void setPull(std::function<void(const std::optional<Grab>&)> pull) { pull_ = std::move(pull); }
  int32_t grabbedVertex() const { return grabbing_ ? grabVertex_ : -1; }
  void releaseGrab() { grabbing_ = false; }

  void setHighlightedCollider(const QString& name);
  void updateColliders();  // after the project's colliders changed

  // ViewportInteraction.
  bool mousePress(QMouseEvent* e) override;
  bool mouseMove(QMouseEvent* e, bool dragging) override;
  bool mouseRelease(QMouseEvent* e) override;
  bool keyPress(QKeyEvent* e) override { return inner_ && inner_->keyPress(e); }
  bool keyRelease(QKeyEvent* e) override { return inner_ && inner_->keyRelease(e); }
  void decorate(render::FrameScene& scene) override;
  const std::vector<Transform>* jointPose() const override;
  Aabb extraBounds() const override;  // the displayed frame's surfaces and pills
  bool showsSimulatedFrame() const override { return showing_; }

 private:
  void applyGrab(const QPoint& pos);
  void decorateScene(render::FrameScene& scene) const;  // colliders and ground
  void decorateGhost(render::FrameScene& scene) const;

  Document* doc_;
  ViewportWidget* view_;
  ViewportInteraction* inner_;
  std::function<void(const std::optional<Grab>&)> pull_;

  bool showing_ = false;
  double time_ = 0;
  ObjectId surface_ = 0;
  TriMesh mesh_;
  std::vector<Transform> joints_;
  std::vector<Vec3> ghost_;
  const dyn::ArticulatedModel* ghostBody_ = nullptr;
  std::vector<std::pair<ObjectId, TriMesh>> others_;
  render::PillGeometry pills_, bones_;
  bool hasPills_ = false;
  uint64_t version_ = 1;

  QString highlightedCollider_;
  std::vector<TriMesh> colliderMeshes_;
  std::vector<uint64_t> colliderRevisions_;

  bool grabbing_ = false;
  int32_t grabVertex_ = -1;
  Vec3 grabPlanePoint_ = Vec3::Zero(), grabPlaneNormal_ = Vec3::UnitZ();
};

}  // namespace sinew::app
