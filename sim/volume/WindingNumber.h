// Generalised winding number of a triangle surface (Jacobson, Kavan and
// Sorkine-Hornung 2013): the signed solid angle the surface subtends at a
// point, over 4 pi. 1 inside and 0 outside a closed, outward-oriented
// surface; for open, non-manifold or self-intersecting surfaces it degrades
// gracefully (about 5/6 inside a cube with one face missing), so "w >= 1/2"
// is a robust inside test for the cage hull.
//
// Evaluated hierarchically (Barill et al. 2018, "Fast winding numbers"):
// a BVH over the triangles; a node far from the query point (distance above
// `beta` times its radius) contributes its dipole term
//   w ~= n~ . (p~ - q) / (4 pi |p~ - q|^3),
// with n~ the sum of area-weighted normals and p~ the area-weighted centroid.
#pragma once

#include "geometry/TriMesh.h"

#include <vector>

namespace sinew {

// Solid angle of triangle (a, b, c) seen from q, over 4 pi (Van Oosterom and
// Strackee 1983); positive when q lies on the side the triangle's normal
// points away from (inside, for an outward-oriented closed surface).
double triangleWindingNumber(const Vec3& q, const Vec3& a, const Vec3& b, const Vec3& c);

class WindingNumber {
 public:
  // Builds over `mesh` (copied data; the mesh need not outlive this).
  // `beta` trades accuracy for speed (2: errors up to about 0.02 close to
  // the surface, fine for the 1/2 threshold).
  explicit WindingNumber(const TriMesh& mesh, double beta = 2.0);

  // Winding number at q (hierarchical approximation).
  double operator()(const Vec3& q) const;
  // Exact sum over all triangles (for tests and small meshes).
  double exact(const Vec3& q) const;

 private:
  struct Node {
    Vec3 centroid = Vec3::Zero();  // area-weighted centroid of the node's triangles
    Vec3 normal = Vec3::Zero();    // sum of area-weighted normals (half cross products)
    double radius = 0;             // max distance from centroid to a vertex of the node
    int32_t left = -1, right = -1; // children, -1 for a leaf
    int32_t first = 0, count = 0;  // range in order_ (leaf)
  };
  int32_t build(int32_t first, int32_t count, const std::vector<Vec3>& centres);

  std::vector<Vec3> positions_;
  std::vector<Tri> triangles_;
  std::vector<int32_t> order_;
  std::vector<Node> nodes_;
  double beta_ = 2.0;
};

}  // namespace sinew
