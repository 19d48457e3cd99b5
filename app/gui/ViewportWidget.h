// The real-time viewport: a QOpenGLWidget hosting render::Renderer and the
// ImGui overlay. Translates Qt input into navigation (Maya and Blender
// conventions, see render/Navigation.h) and picking; builds the frame's
// render::FrameScene from the Document.
#pragma once

#include "Document.h"
#include "Camera.h"
#include "Navigation.h"
#include "Overlay.h"
#include "Picking.h"
#include "PillView.h"
#include "Renderer.h"

#include <QElapsedTimer>
#include <QOpenGLWidget>
#include <QPoint>

#include <map>
#include <memory>

namespace sinew::app {

// What a viewport tool (place joint, move joint, pose, paint) plugs into the
// viewport: mouse and key events before the default picking, additions to
// the frame's scene, and a posed skeleton to draw and pick instead of the
// rest pose. Events return true when the tool used them.
class ViewportInteraction {
 public:
  virtual ~ViewportInteraction() = default;
  virtual bool mousePress(QMouseEvent*) { return false; }
  virtual bool mouseMove(QMouseEvent*, bool dragging) { return false; }
  virtual bool mouseRelease(QMouseEvent*) { return false; }
  virtual bool keyPress(QKeyEvent*) { return false; }
  virtual bool keyRelease(QKeyEvent*) { return false; }
  virtual void decorate(render::FrameScene&) {}
  virtual const std::vector<Transform>* jointPose() const { return nullptr; }
  // What the tool draws beyond the project's rest geometry (a simulated
  // frame), for Frame All; empty: nothing.
  virtual Aabb extraBounds() const { return {}; }
  // True while the tool shows a simulated frame: the transport clip's stick
  // figure and time (which do not follow the simulation) are then not drawn.
  virtual bool showsSimulatedFrame() const { return false; }
};

class ViewportWidget : public QOpenGLWidget {
  Q_OBJECT
 public:
  explicit ViewportWidget(Document* doc, QWidget* parent = nullptr);
  ~ViewportWidget() override;

  render::Camera& camera() { return camera_; }
  const render::ViewSettings& settings() const { return settings_; }
  void setSettings(const render::ViewSettings& s);

  // Mesh keys of the rod bodies' pills: at rest (drawn from the project, one
  // item per body) and as simulated (one item, added by the Simulate dock).
  static uint64_t restPillKey(ObjectId body) { return (uint64_t(2) << 60) | body; }
  static bool isRestPillKey(uint64_t key) { return (key >> 60) == 2; }
  static constexpr uint64_t kSimulatedPillKey = uint64_t(3) << 60;
  // The rest pills of a rod body (scale 1 everywhere).
  static render::PillSet restPills(const RodBodyObject& body);
  // The skeleton's capsule bones as pills at rest: VIPER makes them kinematic
  // pills that carry the muscles' ends; drawn with the rods, in this colour.
  static render::PillSet bonePills(const Skeleton& skeleton);
  static inline const render::Vec3f kBonePillColor{0.86f, 0.82f, 0.70f};

  void frameAll();
  void frameObject(ObjectId id);
  void frameJoint(const QString& name);  // the joint and its bone, centred on the joint
  // A simulated character is shown at `at` (its surface's centre): with the
  // Follow setting on, the camera moves across the ground with it (not while
  // `hold`: the mouse pulls it). Framing anew starts following afresh.
  void followSubject(const Vec3& at, bool hold);
  // The character went back to rest: the camera goes back by what following
  // carried it (the user's own moves stay).
  void endFollow();
  const render::CameraFollow& follow() const { return follow_; }
  void setSelection(ObjectId object, const render::PickResult& detail = {});
  ObjectId selectedObject() const { return selected_; }
  const render::PickResult& selectionDetail() const { return selectionDetail_; }
  // Shows clip `clip` (0: none) posed at `time` seconds.
  void setClipPose(ObjectId clip, double time);

  // Picking at a widget position (logical pixels).
  render::PickResult pickAt(const QPoint& pos);

  // Rendering statistics.
  int framesRendered() const { return frames_; }
  double framesPerSecond() const { return fps_; }
  double lastFrameMs() const { return frameMs_; }
  size_t lastTriangles() const { return renderer_.stats().trianglesDrawn; }
  QString glInfo() const { return glInfo_; }
  // Re-render continuously (playback, benchmarks) instead of on demand.
  void setContinuous(bool on);
  void setStatusText(const QString& text);
  const QString& statusText() const { return status_; }
  void setInteraction(ViewportInteraction* interaction) { interaction_ = interaction; }
  // Where the overlay drew a widget (logical pixels), by label; empty if it did not.
  QRectF overlayWidget(const QString& label) const;
  void setTimelineText(const QString& text);
  // The HUD's line while a simulated frame is shown (solver, time, real-time factor).
  void setSimulationText(const QString& text);
  const QString& simulationText() const { return simulation_; }

 signals:
  void picked(const sinew::render::PickResult& result);
  void hovered(const sinew::render::PickResult& result);
  void settingsChanged();
  void glError(const QString& message);

 protected:
  void initializeGL() override;
  void resizeGL(int w, int h) override;
  void paintGL() override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;
  void wheelEvent(QWheelEvent* e) override;
  void keyPressEvent(QKeyEvent* e) override;
  void keyReleaseEvent(QKeyEvent* e) override;

 private:
  void releaseGL();
  void onContextDestroyed();
  render::FrameScene buildScene();
  std::vector<render::PickMeshTarget> pickTargets();
  std::vector<render::PickJointTarget> jointTargets() const;

  Document* doc_;
  render::Renderer renderer_;
  render::Overlay overlay_;
  render::Camera camera_;
  render::CameraFollow follow_;
  render::ViewSettings settings_;
  bool glReady_ = false;
  QString glInfo_;

  // Interaction
  ViewportInteraction* interaction_ = nullptr;
  bool toolDrag_ = false;  // the active tool took the current press
  render::NavAction drag_ = render::NavAction::None;
  Qt::MouseButton dragButton_ = Qt::NoButton;
  QPoint pressPos_, lastPos_;
  bool moved_ = false;

  // Selection and display state
  ObjectId selected_ = 0;
  render::PickResult selectionDetail_;
  ObjectId clip_ = 0;
  double clipTime_ = 0;
  QString status_, timeline_, simulation_;

  // Picking acceleration, rebuilt when a mesh's revision changes.
  struct PickCache {
    uint64_t revision = 0;
    std::unique_ptr<TriangleTree> tree;
  };
  std::map<ObjectId, PickCache> pickCache_;

  // Rest pills per rod body, rebuilt when the body's revision changes.
  struct PillCache {
    uint64_t revision = 0;
    render::PillGeometry geometry;
  };
  std::map<ObjectId, PillCache> pillCache_;
  PillCache bonePillCache_;  // revision: a hash of the capsules

  // Timing
  QElapsedTimer clock_;
  qint64 lastFrameNs_ = 0;
  double fps_ = 0, frameMs_ = 0;
  int frames_ = 0;
  bool continuous_ = false;
};

}  // namespace sinew::app
