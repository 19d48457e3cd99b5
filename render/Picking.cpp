#include "Picking.h"

#include <cmath>
#include <limits>

namespace sinew::render {

PickResult pick(const Camera& camera, int width, int height, double x, double y,
                const std::vector<PickMeshTarget>& meshes, const std::vector<PickJointTarget>& joints,
                const PickOptions& options) {
  PickResult best;
  const Ray ray = camera.rayThrough(x, y, width, height);

  // Joints win when the cursor is on them (they sit inside the body).
  double bestJointPx = options.jointRadiusPixels;
  for (const PickJointTarget& j : joints) {
    double px, py;
    if (!camera.project(j.position, width, height, &px, &py)) continue;
    const double d = std::hypot(px - x, py - y);
    if (d <= bestJointPx) {
      bestJointPx = d;
      best = PickResult{PickKind::Joint, j.object, -1, -1, j.joint, j.position, (j.position - ray.origin).norm()};
    }
  }
  if (best.kind == PickKind::Joint) return best;

  double bestT = std::numeric_limits<double>::infinity();
  for (const PickMeshTarget& m : meshes) {
    if (!m.tree || !m.mesh) continue;
    const auto hit = m.tree->raycast(ray.origin, ray.direction, bestT);
    if (!hit || hit->t >= bestT) continue;
    bestT = hit->t;
    best = PickResult{PickKind::Face, m.object, -1, hit->triangle, -1, hit->point, hit->t};
    // Nearest corner in screen space.
    double bestPx = std::numeric_limits<double>::infinity();
    for (int32_t v : m.mesh->triangles[hit->triangle]) {
      double px, py;
      if (!camera.project(m.mesh->positions[v], width, height, &px, &py)) continue;
      const double d = std::hypot(px - x, py - y);
      if (d < bestPx) {
        bestPx = d;
        best.vertex = v;
      }
    }
    if (bestPx <= options.vertexRadiusPixels) best.kind = PickKind::Vertex;
  }
  return best;
}

}  // namespace sinew::render
