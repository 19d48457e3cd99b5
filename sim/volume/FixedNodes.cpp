#include "volume/FixedNodes.h"

#include "geometry/Sdf.h"

#include <algorithm>
#include <cmath>

namespace sinew {

BoneSet boneSet(const Skeleton& skeleton) {
  BoneSet b;
  const std::vector<Transform> world = skeleton.worldRest();
  for (int32_t j : skeleton.bones()) {
    b.joints.push_back(j);
    b.names.push_back(skeleton.joints[size_t(j)].name);
    b.world.push_back(world[size_t(j)]);
  }
  return b;
}

bool spansVolume(const std::vector<Vec3>& pts, double tol) {
  if (pts.size() < 4) return false;
  // p0; p1 farthest from p0; p2 farthest from line p0p1; p3 farthest from the plane.
  const Vec3& p0 = pts[0];
  size_t i1 = 0;
  for (size_t i = 1; i < pts.size(); ++i)
    if ((pts[i] - p0).squaredNorm() > (pts[i1] - p0).squaredNorm()) i1 = i;
  const double extent = (pts[i1] - p0).norm();
  if (!(extent > 0)) return false;
  const Vec3 u = (pts[i1] - p0) / extent;
  size_t i2 = 0;
  double best = -1;
  for (size_t i = 0; i < pts.size(); ++i) {
    const Vec3 d = pts[i] - p0;
    const double off = (d - d.dot(u) * u).norm();
    if (off > best) {
      best = off;
      i2 = i;
    }
  }
  if (!(best > tol * extent)) return false;
  const Vec3 n = (pts[i1] - p0).cross(pts[i2] - p0).normalized();
  double height = 0;
  for (const Vec3& p : pts) height = std::max(height, std::abs((p - p0).dot(n)));
  return height > tol * extent;
}

std::vector<Vec3> fixedNodeAnchors(const BoneShape& shape, const Transform& world) {
  std::vector<Vec3> pts = boneShapeAnchors(shape, world);
  // Drop duplicates (a capsule with start == end repeats its centre).
  std::vector<Vec3> unique;
  for (const Vec3& p : pts)
    if (std::none_of(unique.begin(), unique.end(), [&](const Vec3& q) { return (p - q).norm() <= 1e-12; }))
      unique.push_back(p);
  if (spansVolume(unique) || shape.kind != BoneShapeKind::Capsule) return unique;
  // A capsule degenerated to a sphere (or a very short one): add points off
  // the plane of the others, half a radius along the axis.
  const Vec3 a = world.apply(shape.start), b = world.apply(shape.end);
  Vec3 axis = b - a;
  axis = axis.norm() > 1e-12 ? Vec3(axis.normalized()) : Vec3::UnitY();
  const Vec3 c = 0.5 * (a + b);
  const double r = 0.5 * shape.radius;
  const Mat3 f = sdf::frameAlong(axis);
  for (const Vec3& p : {Vec3(c + r * axis), Vec3(c - r * axis), Vec3(c + r * f.col(1)), Vec3(c + r * f.col(2))})
    if (std::none_of(unique.begin(), unique.end(), [&](const Vec3& q) { return (p - q).norm() <= 1e-12; }))
      unique.push_back(p);
  return unique;
}

std::vector<int32_t> nodesInBoneShapes(const TetMesh& mesh, const Skeleton& skeleton, const BoneSet& bones) {
  std::vector<int32_t> fixed(mesh.nodeCount(), -1);
  std::vector<Aabb> boxes;
  for (size_t b = 0; b < bones.joints.size(); ++b)
    boxes.push_back(boneShapeBounds(skeleton.joints[size_t(bones.joints[b])].bone, bones.world[b]));
  for (size_t v = 0; v < mesh.nodeCount(); ++v) {
    const Vec3& p = mesh.nodes[v];
    double deepest = 0;  // inside: distance <= 0
    for (size_t b = 0; b < bones.joints.size(); ++b) {
      if ((p.array() < boxes[b].min.array()).any() || (p.array() > boxes[b].max.array()).any()) continue;
      const double d = boneShapeDistance(skeleton.joints[size_t(bones.joints[b])].bone, bones.world[b], p);
      if (d <= 0 && (fixed[v] < 0 || d < deepest)) {
        fixed[v] = int32_t(b);
        deepest = d;
      }
    }
  }
  return fixed;
}

std::vector<size_t> fixedNodeCounts(const std::vector<int32_t>& fixedBone, size_t boneCount) {
  std::vector<size_t> n(boneCount, 0);
  for (int32_t b : fixedBone)
    if (b >= 0 && size_t(b) < boneCount) ++n[size_t(b)];
  return n;
}

std::vector<FixedNodeProblem> checkFixedNodes(const TetMesh& mesh, const std::vector<int32_t>& fixedBone,
                                              size_t boneCount) {
  std::vector<std::vector<Vec3>> pts(boneCount);
  for (size_t v = 0; v < fixedBone.size() && v < mesh.nodeCount(); ++v)
    if (fixedBone[v] >= 0 && size_t(fixedBone[v]) < boneCount) pts[size_t(fixedBone[v])].push_back(mesh.nodes[v]);
  std::vector<FixedNodeProblem> problems;
  for (size_t b = 0; b < boneCount; ++b)
    if (!spansVolume(pts[b])) problems.push_back({int32_t(b), pts[b].size()});
  return problems;
}

}  // namespace sinew
