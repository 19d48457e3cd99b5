// What a tet mesh looks like in the viewport: its outer faces, or with a
// cut-away, the faces of the tets on one side of a plane (exposing the
// interior), coloured by region (flesh, or the bone a tet belongs to), plus
// its fixed nodes as dots. CPU-side: produces plain geometry for MeshItem and
// PointItem.
#pragma once

#include "Renderer.h"
#include "volume/TetMesh.h"

#include <vector>

namespace sinew::render {

struct CutAway {
  bool enabled = false;
  int axis = 2;           // 0 x, 1 y, 2 z
  double position = 0.0;  // keep tets whose centroid is at or below this coordinate (metres)
};

struct VolumeGeometry {
  TriMesh faces;                  // one triangle per visible tet face, own vertices
  std::vector<Vec3f> colors;      // per vertex of `faces`
  std::vector<int32_t> faceTet;   // the tet of each face
  std::vector<Vec3f> nodePoints;  // fixed nodes on the kept side
  std::vector<Vec3f> nodeColors;
  size_t keptTets = 0;
};

// Colour of bone `k` (flesh is k = -1).
Vec3f regionColor(int k);

// `highlight`: tets drawn in red (e.g. the worst by quality).
VolumeGeometry volumeGeometry(const TetMesh& mesh, const std::vector<int32_t>& fixedBone, const CutAway& cut,
                              const std::vector<int32_t>& highlight = {});

// Drops the triangles of a surface whose centroid lies beyond the cut (for
// showing a surface together with a cut-away volume).
TriMesh cutSurface(const TriMesh& mesh, const CutAway& cut);

}  // namespace sinew::render
