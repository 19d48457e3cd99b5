// Tetrahedral meshes: the volumetric model every solver simulates.
#pragma once

#include "core/Types.h"

#include <array>
#include <vector>

namespace sinew {

// Node indices of one tetrahedron, positively oriented:
// (x1 - x0) . ((x2 - x0) x (x3 - x0)) > 0.
using Tet = std::array<int32_t, 4>;

struct TetMesh {
  std::vector<Vec3> nodes;       // rest positions (nNodes), metres
  std::vector<Tet> tets;         // (nTets)
  std::vector<int32_t> region;   // (nTets) -1: flesh, k >= 0: bone k of the owning volume; empty: all flesh

  size_t nodeCount() const { return nodes.size(); }
  size_t tetCount() const { return tets.size(); }
  Aabb bounds() const;
  bool operator==(const TetMesh&) const = default;
};

// Signed volume of tet t (positive for a correctly oriented tet), m^3.
double tetVolume(const TetMesh& mesh, size_t t);
double totalVolume(const TetMesh& mesh);

// Renumbers tets along a Morton (Z-order) curve of their centroids and
// nodes in the order the sorted tets first use them (nodes no tet uses keep
// their relative order, after the others), so that neighbouring tets and
// nodes sit near each other in memory; the element loops then read nodes
// from cache. Regions follow their tets. Returns the new index of each old
// node.
std::vector<int32_t> sortSpatially(TetMesh& mesh);

// The boundary faces of the mesh (faces used by one tet), oriented outward,
// and for each the tet it belongs to.
struct TetBoundary {
  std::vector<Tri> faces;
  std::vector<int32_t> tetOfFace;
};
TetBoundary tetBoundary(const TetMesh& mesh);

// Where the vertices of a surface mesh lie in a tet mesh: for vertex v, tet
// `tet[v]` and barycentric weights `weights[v]` (summing to 1) with
// x_v = sum_k weights[v][k] * nodes[tets[tet[v]][k]]. Vertices outside every
// tet use the nearest tet, with weights extrapolated (some negative), and are
// flagged. This is J_phi of Liu et al. 2013, stored by rows.
struct Embedding {
  std::vector<int32_t> tet;                      // (nVertices)
  std::vector<std::array<double, 4>> weights;    // (nVertices)
  std::vector<uint8_t> extrapolated;             // (nVertices) 1 if the vertex lies outside the tet mesh
  size_t vertexCount() const { return tet.size(); }
  size_t extrapolatedCount() const;
  bool operator==(const Embedding&) const = default;
};

// Positions of the embedded vertices for node positions `nodes` (nNodes).
std::vector<Vec3> embeddedPositions(const Embedding& embedding, const TetMesh& mesh, const std::vector<Vec3>& nodes);

}  // namespace sinew
