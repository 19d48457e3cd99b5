// The rigging tools of the viewport: select, place joint, move joint, pose,
// paint weights and paint muscle sources/sinks; plus what the rig adds to the
// picture: the posed surface (linear blend skinning), the weight heat map,
// the volumes with their cut-away, and the tools' gizmos. Edits go through the
// Document's undo stack; the test pose and the display settings are transient
// view state.
#pragma once

#include "Document.h"
#include "Log.h"
#include "ViewportWidget.h"
#include "VolumeView.h"
#include "geometry/TriangleTree.h"

#include <QObject>

#include <map>
#include <memory>
#include <optional>

namespace sinew::app {

enum class RigTool { Select, PlaceJoint, MoveJoint, Pose, Paint, PaintMuscle };
const char* rigToolName(RigTool t);

class RigController : public QObject, public ViewportInteraction {
  Q_OBJECT
 public:
  RigController(Document* doc, ViewportWidget* view, Log* log, QObject* parent = nullptr);
  ~RigController() override;

  RigTool tool() const { return tool_; }
  void setTool(RigTool tool);

  // The selected joint, by name ("" for none): the Document's selection.
  const QString& selectedJoint() const { return doc_->selection().joint(); }
  void selectJoint(const QString& name);  // sets the Document's selection

  // Test pose: local rotations on top of the rest pose (not part of the project).
  bool posed() const;
  void resetPose();
  void setJointRotation(const QString& joint, const Quat& rotation);
  Quat jointRotation(const QString& joint) const;

  // Volume display.
  struct VolumeView {
    bool cutAway = false;
    int axis = 2;            // 0 x, 1 y, 2 z
    double fraction = 0.5;   // of the volume's extent along the axis
    bool fixedNodes = true;
    bool worstTets = false;
  };
  const VolumeView& volumeView() const { return volumeView_; }
  void setVolumeView(const VolumeView& v);

  // Skeleton operations on the current selection (each one undo step).
  // Joints a failed step named (e.g. bones without fixed nodes), marked red
  // in the viewport until the skeleton is edited; the first is selected.
  void flagJoints(const QStringList& names);
  const QStringList& flaggedJoints() const { return flagged_; }
  bool deleteSelectedJoint();
  bool insertJointInBone();
  void mirror(int fromSide);
  void symmetrize();
  void assignBoneShapes();
  bool fitSkeletonTo(ObjectId mesh);

  // The surface the tools work on: the selected mesh, else the first visible one.
  ObjectId targetMesh() const;
  void setTargetMesh(ObjectId id) { targetMesh_ = id; }
  // The object selected in the window: a selected volume is drawn (volumes
  // are otherwise only shown in the cut-away, where they do not hide the surface).
  void setSelectedObject(ObjectId id) {
    selectedObject_ = id;
    view_->update();
  }

  // ViewportInteraction
  bool mousePress(QMouseEvent* e) override;
  bool mouseMove(QMouseEvent* e, bool dragging) override;
  bool mouseRelease(QMouseEvent* e) override;
  bool keyPress(QKeyEvent* e) override;
  bool keyRelease(QKeyEvent* e) override;
  void decorate(render::FrameScene& scene) override;
  const std::vector<Transform>* jointPose() const override;

  // Tool hooks for painting weights and muscle marks (set by the paint controllers).
  ViewportInteraction* paintInteraction = nullptr;
  ViewportInteraction* musclePaintInteraction = nullptr;

 signals:
  void toolChanged(sinew::app::RigTool tool);
  void poseChanged();
  void message(const QString& text);

 private:
  const Skeleton* skeleton() const;
  int32_t selectedIndex() const;
  // The painting tools' interaction when one of them is on (else null).
  ViewportInteraction* paintTool() const;
  render::Ray rayAt(const QPoint& p) const;
  int32_t jointUnderCursor(const QPoint& p) const;
  void pushSkeleton(Skeleton edited, const QString& text, int dragSerial = 0);
  void placeJoint(const QPoint& p);
  // Trees of the visible meshes, and the middle of the limb under the cursor
  // (between where the view ray enters and leaves the first mesh it meets).
  std::vector<std::shared_ptr<const TriangleTree>> visibleMeshTrees() const;
  std::optional<Vec3> limbMiddleAt(const QPoint& p, const std::vector<std::shared_ptr<const TriangleTree>>& trees) const;
  std::vector<Transform> currentPose() const;
  const TriMesh& posedMesh(const MeshObject& m);
  void invalidatePose();
  int ringUnderCursor(const QPoint& p) const;  // pose gizmo: 0 x, 1 y, 2 z, -1 none
  void rotateBy(const QPoint& from, const QPoint& to);

  Document* doc_;
  ViewportWidget* view_;
  Log* log_;
  RigTool tool_ = RigTool::Select;
  ObjectId targetMesh_ = 0;
  ObjectId selectedObject_ = 0;

  // Move tool
  int dragSerial_ = 0;
  bool dragging_ = false;
  Vec3 dragPlanePoint_, dragPlaneNormal_, dragStart_, dragGrab_;
  int axisLock_ = -1;  // -1 free, else 0/1/2 while X/Y/Z is held
  QStringList flagged_;
  bool dragSubtree_ = true;                                  // children follow (Shift: the joint alone)
  std::vector<std::shared_ptr<const TriangleTree>> dragTrees_;  // the visible meshes, for Ctrl-snapping

  // Pose tool
  std::map<std::string, Quat> pose_;  // by joint name
  int activeRing_ = -1;
  QPoint lastPos_;
  mutable std::vector<Transform> poseCache_;
  mutable bool poseCacheValid_ = false;
  struct PosedMesh {
    uint64_t revision = 0;
    uint64_t poseVersion = 0;
    TriMesh mesh;
    std::optional<SkinWeights> fallback;  // nearest-bone weights when the mesh has none
    uint64_t fallbackRevision = 0;
  };
  std::map<ObjectId, PosedMesh> posed_;
  uint64_t poseVersion_ = 1;

  // Volume display cache
  VolumeView volumeView_;
  struct VolumeCache {
    uint64_t key = 0;
    render::VolumeGeometry geometry;
    TriMesh cutSurface;
  };
  std::map<ObjectId, VolumeCache> volumeCache_;
  std::map<ObjectId, TriMesh> cutSurfaces_;
  uint64_t displayVersion_ = 1;
};

}  // namespace sinew::app
