// Small scenes shared by the volume suites (header-only).
#pragma once

#include "TestUtil.h"
#include "model/Skeleton.h"
#include "volume/TetMesh.h"

#include <random>

namespace sinew::test {

// A cube with one face (two triangles) missing: an open surface.
inline TriMesh openCube(const Vec3& origin = Vec3::Zero(), double size = 1.0) {
  TriMesh m = cube(origin, size);
  m.triangles.erase(m.triangles.begin() + 2, m.triangles.begin() + 4);  // the top face (z = 1)
  return m;
}

// Two unit cubes sharing the edge x = 1, y = 1 (non-manifold: four faces on it).
inline TriMesh cubesSharingEdge() {
  TriMesh a = cube(Vec3::Zero(), 1.0);
  TriMesh b = cube(Vec3(1, 1, 0), 1.0);
  TriMesh m = merged(a, b);
  return weldVertices(m.positions, m.triangles, 1e-9).mesh;
}

// Two overlapping cubes in one mesh: self-intersecting.
inline TriMesh overlappingCubes() { return merged(cube(Vec3::Zero(), 1.0), cube(Vec3(0.5, 0.3, 0.2), 1.0)); }

// A one-bone skeleton: a root joint at `at` owning `shape` (joint-local).
inline Skeleton oneBone(const BoneShape& shape, const Vec3& at = Vec3::Zero(), const std::string& name = "Bone") {
  Skeleton s;
  Joint j;
  j.name = name;
  j.restLocal.translation = at;
  j.bone = shape;
  s.joints.push_back(j);
  return s;
}

// Uniform random points in a box (fixed seed).
inline std::vector<Vec3> randomPoints(const Aabb& box, size_t n, unsigned seed = 7) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Vec3> p(n);
  for (Vec3& x : p) x = box.min + Vec3(u(rng), u(rng), u(rng)).cwiseProduct(box.size());
  return p;
}

// Largest distance between embedded rest positions and the points.
inline double maxReproductionError(const Embedding& e, const TetMesh& mesh, const std::vector<Vec3>& points) {
  const std::vector<Vec3> x = embeddedPositions(e, mesh, mesh.nodes);
  double worst = 0;
  for (size_t v = 0; v < points.size(); ++v) worst = std::max(worst, (x[v] - points[v]).norm());
  return worst;
}

}  // namespace sinew::test
