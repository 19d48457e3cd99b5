// Indexed triangle meshes: the surface representation for imported meshes,
// generated characters and (later) embedded render meshes.
#pragma once

#include "core/Types.h"

#include <vector>

namespace sinew {

struct TriMesh {
  std::vector<Vec3> positions;  // vertex positions (nVertices), metres
  std::vector<Tri> triangles;   // vertex indices (nTriangles), CCW seen from outside

  size_t vertexCount() const { return positions.size(); }
  size_t triangleCount() const { return triangles.size(); }
  Aabb bounds() const;
  bool operator==(const TriMesh&) const = default;
};

// Unit normal of triangle t (zero vector when the triangle is degenerate).
Vec3 triangleNormal(const TriMesh& mesh, size_t t);
double triangleArea(const TriMesh& mesh, size_t t);
double surfaceArea(const TriMesh& mesh);

// Area-weighted vertex normals (nVertices), unit length where defined.
std::vector<Vec3> vertexNormals(const TriMesh& mesh);

// Signed volume enclosed by a closed, outward-oriented mesh (m^3).
double enclosedVolume(const TriMesh& mesh);

// True if any index is out of range; used to reject malformed input early.
bool hasInvalidIndices(const TriMesh& mesh);

// Result of merging coincident vertices.
struct WeldResult {
  TriMesh mesh;                 // welded mesh (triangles re-indexed, same order)
  std::vector<int32_t> remap;   // input vertex -> output vertex (nInputVertices)
  size_t mergedCount = 0;       // input vertices merged into an earlier one
};

// Merges vertices closer than `tolerance` (metres). Deterministic: a vertex
// joins the earliest-indexed representative within tolerance. Triangles are
// kept in order (also those that become degenerate: validation reports them).
WeldResult weldVertices(const std::vector<Vec3>& positions, const std::vector<Tri>& triangles,
                        double tolerance);

// A weld tolerance suitable for data that should be "exactly" coincident:
// a tiny fraction of the bounding-box diagonal.
double defaultWeldTolerance(const Aabb& bounds);

}  // namespace sinew
