// What the weight and the muscle paint tools share: a copy of the painted
// surface and its ray tree, the point and normal under the cursor, a stroke's
// samples a quarter of the radius apart along the drag (a fast stroke leaves
// no gaps), and the brush's circle on the surface. What a sample does to the
// surface is the tool's.
#pragma once

#include "ViewportWidget.h"
#include "geometry/TriangleTree.h"

#include <functional>
#include <memory>
#include <optional>

namespace sinew::app {

class SurfaceBrush {
 public:
  // A sample at a surface point; true when it changed something.
  using Sample = std::function<bool(const Vec3& at)>;

  explicit SurfaceBrush(ViewportWidget* view) : view_(view) {}

  // Paints on `mesh` (copied); the tree is rebuilt only for another object or
  // revision. True when it was rebuilt.
  bool setSurface(const TriMesh& mesh, ObjectId id, uint64_t revision);
  void clear();  // nothing to paint
  bool ready() const { return bool(tree_); }
  const TriMesh& surface() const { return rest_; }

  // The surface point under a viewport position (nullopt: off the surface).
  std::optional<Vec3> pointUnder(const QPointF& p) const;

  // Press starts a stroke where the surface is hit (false: off it); move keeps
  // the point under the cursor and, while stroking and dragging, samples the
  // way there; release ends the stroke: true when a sample changed something.
  bool press(const QPointF& p, const Sample& sample);
  void move(const QPointF& p, bool dragging, double radius, const Sample& sample);
  bool release();
  bool stroking() const { return stroking_; }

  // A circle of `radius` on the surface under the cursor, and a tick along its normal.
  void draw(render::FrameScene& scene, double radius, const render::Vec3f& color) const;

 private:
  struct Hit {
    Vec3 point;
    Vec3 normal;
  };
  std::optional<Hit> hitUnder(const QPointF& p) const;
  void take(const Vec3& at, const Sample& sample);

  ViewportWidget* view_;
  TriMesh rest_;  // the tree points into it
  std::unique_ptr<TriangleTree> tree_;
  ObjectId id_ = 0;
  uint64_t revision_ = 0;
  bool stroking_ = false;
  bool changed_ = false;  // in this stroke
  std::optional<Vec3> last_;
  std::optional<Vec3> hover_;
  Vec3 hoverNormal_ = Vec3::UnitZ();
};

}  // namespace sinew::app
