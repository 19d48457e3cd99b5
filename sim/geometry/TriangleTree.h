// Bounding-volume hierarchy over the triangles of a mesh: ray casts (picking,
// "where does the view ray enter and leave the body"), box queries and the
// self-intersection pairs used by mesh validation.
#pragma once

#include "geometry/TriMesh.h"

#include <functional>
#include <optional>
#include <vector>

namespace sinew {

struct RayHit {
  int32_t triangle = -1;
  double t = 0;  // ray parameter: point = origin + t * dir
  Vec3 barycentric = Vec3::Zero();  // weights of the triangle's three vertices
  Vec3 point = Vec3::Zero();
};

class TriangleTree {
 public:
  TriangleTree() = default;
  // Builds over `mesh`, which must outlive the tree and not change.
  explicit TriangleTree(const TriMesh& mesh);

  const TriMesh* mesh() const { return mesh_; }
  bool empty() const { return nodes_.empty(); }

  // Closest hit along the ray with t in [0, tMax].
  std::optional<RayHit> raycast(const Vec3& origin, const Vec3& dir,
                                double tMax = std::numeric_limits<double>::infinity()) const;
  // Every hit along the ray, sorted by t.
  std::vector<RayHit> raycastAll(const Vec3& origin, const Vec3& dir) const;

  // Calls visit(triangle) for every triangle whose box overlaps `box`.
  void query(const Aabb& box, const std::function<void(int32_t)>& visit) const;

  // Calls visit(a, b) with a < b for every pair of triangles whose (slightly
  // inflated) boxes overlap, in a deterministic order; stops early (and
  // returns false) as soon as visit returns false.
  bool selfOverlapPairs(double inflate, const std::function<bool(int32_t, int32_t)>& visit) const;

 private:
  struct Node {
    Aabb box;
    int32_t left = -1, right = -1;  // children (internal), or -1
    int32_t first = 0, count = 0;   // range in order_ (leaf)
  };
  int32_t build(int32_t first, int32_t count, std::vector<Vec3>& centroids, std::vector<Aabb>& boxes);
  bool pairs(int32_t a, int32_t b, double inflate, const std::vector<Aabb>& boxes,
             const std::function<bool(int32_t, int32_t)>& visit) const;

  const TriMesh* mesh_ = nullptr;
  std::vector<Node> nodes_;        // nodes_[0] is the root
  std::vector<int32_t> order_;     // triangle indices, leaves own contiguous ranges
  std::vector<Aabb> triBoxes_;     // per-triangle boxes (nTriangles)
};

}  // namespace sinew
