#include "geometry/SurfaceNets.h"

#include <cmath>
#include <vector>

namespace sinew {

namespace {
// Distance (in cells) that vertices keep from their cell's faces.
constexpr double kCellMargin = 1e-3;
}  // namespace

TriMesh extractSurfaceNets(const std::function<double(const Vec3&)>& field, const Aabb& bounds,
                           const SurfaceNetsOptions& opt, const Progress& progress) {
  const double h = opt.spacing;
  const Vec3 origin = bounds.min - Vec3::Constant(2 * h);
  const Vec3 extent = bounds.size() + Vec3::Constant(4 * h);
  const int nx = static_cast<int>(std::ceil(extent.x() / h)) + 1;
  const int ny = static_cast<int>(std::ceil(extent.y() / h)) + 1;
  const int nz = static_cast<int>(std::ceil(extent.z() / h)) + 1;
  auto gridIndex = [&](int i, int j, int k) { return (static_cast<size_t>(k) * ny + j) * nx + i; };
  auto point = [&](int i, int j, int k) { return Vec3(origin + h * Vec3(i, j, k)); };

  // 1. Sample the field at grid points.
  std::vector<double> f(static_cast<size_t>(nx) * ny * nz);
  for (int k = 0; k < nz; ++k) {
    progress.update(0.6 * k / nz, "sampling");
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) f[gridIndex(i, j, k)] = field(point(i, j, k));
  }
  // Cells are indexed by their minimum corner (nx-1 x ny-1 x nz-1).
  auto cellIndex = [&](int i, int j, int k) { return (static_cast<size_t>(k) * (ny - 1) + j) * (nx - 1) + i; };
  std::vector<int32_t> cellVertex(static_cast<size_t>(nx - 1) * (ny - 1) * (nz - 1), -1);

  // 2. One vertex per crossed cell: the mean of the edge crossings, then
  //    projected onto the level set along the gradient.
  static const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0},
                                   {0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}};
  static const int edges[12][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3},
                                   {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
  TriMesh mesh;
  for (int k = 0; k < nz - 1; ++k) {
    progress.update(0.6 + 0.3 * k / nz, "vertices");
    for (int j = 0; j < ny - 1; ++j)
      for (int i = 0; i < nx - 1; ++i) {
        double v[8];
        int inside = 0;
        for (int c = 0; c < 8; ++c) {
          v[c] = f[gridIndex(i + corner[c][0], j + corner[c][1], k + corner[c][2])];
          inside += v[c] < 0;
        }
        if (inside == 0 || inside == 8) continue;
        Vec3 sum = Vec3::Zero();
        int n = 0;
        for (const auto& e : edges) {
          const double a = v[e[0]], b = v[e[1]];
          if ((a < 0) == (b < 0)) continue;
          const double t = a / (a - b);
          const Vec3 pa(corner[e[0]][0], corner[e[0]][1], corner[e[0]][2]);
          const Vec3 pb(corner[e[1]][0], corner[e[1]][1], corner[e[1]][2]);
          sum += pa + t * (pb - pa);
          ++n;
        }
        // Keep every vertex strictly inside its cell (a small margin off the
        // faces): where the field is zero at a grid node, the vertices of the
        // cells around it would otherwise meet there, giving zero-area faces.
        const Vec3 margin = Vec3::Constant(kCellMargin * h);
        const Vec3 lo = point(i, j, k) + margin, hi = point(i + 1, j + 1, k + 1) - margin;
        Vec3 p = (point(i, j, k) + h * sum / n).cwiseMax(lo).cwiseMin(hi);
        for (int s = 0; s < opt.projectionSteps; ++s) {
          const double fp = field(p);
          const double e = 1e-3 * h;
          const Vec3 g((field(p + Vec3(e, 0, 0)) - field(p - Vec3(e, 0, 0))) / (2 * e),
                       (field(p + Vec3(0, e, 0)) - field(p - Vec3(0, e, 0))) / (2 * e),
                       (field(p + Vec3(0, 0, e)) - field(p - Vec3(0, 0, e))) / (2 * e));
          const double g2 = g.squaredNorm();
          if (g2 < 1e-12) break;
          // Stay inside the cell so that neighbouring quads cannot fold over.
          p = (p - fp * g / g2).cwiseMax(lo).cwiseMin(hi);
        }
        cellVertex[cellIndex(i, j, k)] = static_cast<int32_t>(mesh.positions.size());
        mesh.positions.push_back(p);
      }
  }

  // 3. One quad per crossed grid edge, joining the four cells around it,
  //    split along its shorter diagonal.
  auto emitQuad = [&](int32_t a, int32_t b, int32_t c, int32_t d, bool flip) {
    if (flip) std::swap(b, d);
    const auto& P = mesh.positions;
    if ((P[a] - P[c]).squaredNorm() <= (P[b] - P[d]).squaredNorm()) {
      mesh.triangles.push_back({a, b, c});
      mesh.triangles.push_back({a, c, d});
    } else {
      mesh.triangles.push_back({a, b, d});
      mesh.triangles.push_back({b, c, d});
    }
  };
  for (int k = 1; k < nz - 1; ++k) {
    progress.update(0.9 + 0.1 * k / nz, "faces");
    for (int j = 1; j < ny - 1; ++j)
      for (int i = 1; i < nx - 1; ++i) {
        const double f0 = f[gridIndex(i, j, k)];
        // Edge along +x from (i,j,k): cells (i, j-1..j, k-1..k).
        if (i < nx - 1) {
          const double f1 = f[gridIndex(i + 1, j, k)];
          if ((f0 < 0) != (f1 < 0))
            emitQuad(cellVertex[cellIndex(i, j - 1, k - 1)], cellVertex[cellIndex(i, j, k - 1)],
                     cellVertex[cellIndex(i, j, k)], cellVertex[cellIndex(i, j - 1, k)], f0 >= 0);
        }
        if (j < ny - 1) {
          const double f1 = f[gridIndex(i, j + 1, k)];
          if ((f0 < 0) != (f1 < 0))
            emitQuad(cellVertex[cellIndex(i - 1, j, k - 1)], cellVertex[cellIndex(i - 1, j, k)],
                     cellVertex[cellIndex(i, j, k)], cellVertex[cellIndex(i, j, k - 1)], f0 >= 0);
        }
        if (k < nz - 1) {
          const double f1 = f[gridIndex(i, j, k + 1)];
          if ((f0 < 0) != (f1 < 0))
            emitQuad(cellVertex[cellIndex(i - 1, j - 1, k)], cellVertex[cellIndex(i, j - 1, k)],
                     cellVertex[cellIndex(i, j, k)], cellVertex[cellIndex(i - 1, j, k)], f0 >= 0);
        }
      }
  }
  progress.update(1.0, "done");
  return mesh;
}

}  // namespace sinew
