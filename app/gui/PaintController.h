// Weight painting in the viewport: brush strokes on the target mesh's
// skinning weights (sim/rig/WeightPaint), a heat map of one bone or of the
// dominant bone, and the brush outline under the cursor. A stroke is one undo
// step; painted weights drive the tet nodes of a volume embedding the mesh
// too (nodeWeightsFromSurface).
#pragma once

#include "Document.h"
#include "Log.h"
#include "SurfaceBrush.h"
#include "ViewportWidget.h"
#include "rig/WeightPaint.h"

#include <QObject>

#include <memory>

namespace sinew::app {

class PaintController : public QObject, public ViewportInteraction {
  Q_OBJECT
 public:
  PaintController(Document* doc, ViewportWidget* view, Log* log, QObject* parent = nullptr);

  // The mesh being painted (0: none); (re)loads its weights.
  void setMesh(ObjectId mesh);
  ObjectId mesh() const { return mesh_; }
  // The bones that can be painted: the skeleton's joints with a bone shape
  // (all joints if none has one).
  const std::vector<std::string>& bones() const { return bones_; }

  // Brush and settings.
  BrushSample brush;          // radius, strength, falloff, mode, value (centre set per sample)
  void setSelectedBone(int32_t bone);
  int32_t selectedBone() const { return state_.selectedBone; }
  void setLocked(int32_t bone, bool locked);
  bool locked(int32_t bone) const { return state_.isLocked(bone); }
  PaintSettings& settings() { return state_.settings; }
  bool showDominant = false;  // heat map of the dominant bone instead of the selected one
  bool active = false;        // the paint tool is on: show the heat map and the brush

  // Whole-mesh operations, each one undo step.
  void floodSelected(double value);
  void normalizeAll();

  // Current weights (nVertices x nBones), for tests.
  const WeightMatrix& weights() const { return state_.weights; }
  // Where a stroke sample would land for a viewport position (nullopt: off the mesh).
  std::optional<Vec3> surfacePoint(const QPoint& p) const;

  bool mousePress(QMouseEvent* e) override;
  bool mouseMove(QMouseEvent* e, bool dragging) override;
  bool mouseRelease(QMouseEvent* e) override;
  void decorate(render::FrameScene& scene) override;

 signals:
  void bonesChanged();
  void weightsChanged();

 private:
  void reload();
  bool sample(const Vec3& at);
  void commit(const QString& text);
  void updateColors();

  Document* doc_;
  ViewportWidget* view_;
  Log* log_;
  ObjectId mesh_ = 0;
  std::vector<std::string> bones_;
  std::unique_ptr<PaintSurface> surface_;
  SurfaceBrush surfaceBrush_;
  WeightPaintState state_;
  std::vector<render::Vec3f> colors_;
  uint64_t colorRevision_ = 1;
};

}  // namespace sinew::app
