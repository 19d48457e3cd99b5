// Embedding points in tet meshes: point location, nearest tets,
// extrapolation, exact reproduction of rest positions, J_phi.
#include "volume/Embed.h"

#include "sim/volume/VolumeTestUtil.h"
#include "volume/Closest.h"
#include "volume/Tetrahedralize.h"

#include <gtest/gtest.h>

namespace sinew {
namespace {

TetMesh cubeMesh() {
  TetrahedralizeOptions o;
  o.maxVolume = 0.002;
  return tetrahedralizeSurface(test::cube(), {}, {}, o, "cube").mesh;
}

TEST(Embed, InsidePointsAreFoundAndReproduced) {
  const TetMesh m = cubeMesh();
  const std::vector<Vec3> pts = test::randomPoints(Aabb{Vec3::Constant(0.001), Vec3::Constant(0.999)}, 2000);
  const Embedding e = embedPoints(pts, m);
  ASSERT_EQ(e.vertexCount(), pts.size());
  EXPECT_EQ(e.extrapolatedCount(), 0u);
  for (size_t v = 0; v < pts.size(); ++v) {
    const auto& w = e.weights[v];
    EXPECT_NEAR(w[0] + w[1] + w[2] + w[3], 1.0, 1e-14);
    for (double x : w) EXPECT_GE(x, -1e-10);
  }
  EXPECT_LT(test::maxReproductionError(e, m, pts), 1e-12);
}

TEST(Embed, NodesAndFacePointsAreInside) {
  const TetMesh m = cubeMesh();
  std::vector<Vec3> pts = m.nodes;  // on tet corners, faces and edges
  pts.push_back(Vec3(0.5, 0.5, 0.0));
  pts.push_back(Vec3(1.0, 0.3, 0.7));
  const Embedding e = embedPoints(pts, m);
  EXPECT_EQ(e.extrapolatedCount(), 0u);
  EXPECT_LT(test::maxReproductionError(e, m, pts), 1e-12);
}

TEST(Embed, OutsidePointsUseTheNearestTetAndAreFlagged) {
  const TetMesh m = cubeMesh();
  const std::vector<Vec3> pts = {Vec3(1.2, 0.5, 0.5), Vec3(-0.1, -0.1, -0.1), Vec3(0.5, 2.0, 0.5),
                                 Vec3(0.5, 0.5, 0.5)};
  const Embedding e = embedPoints(pts, m);
  EXPECT_EQ(e.extrapolated, (std::vector<uint8_t>{1, 1, 1, 0}));
  EXPECT_LT(test::maxReproductionError(e, m, pts), 1e-12);
  // The chosen tet is a nearest one (brute force).
  for (size_t v = 0; v < 3; ++v) {
    double best = std::numeric_limits<double>::infinity();
    for (const Tet& k : m.tets)
      best = std::min(best, pointTetDistanceSquared(pts[v], m.nodes[k[0]], m.nodes[k[1]], m.nodes[k[2]], m.nodes[k[3]]));
    const Tet& k = m.tets[size_t(e.tet[v])];
    const double d = pointTetDistanceSquared(pts[v], m.nodes[k[0]], m.nodes[k[1]], m.nodes[k[2]], m.nodes[k[3]]);
    EXPECT_NEAR(std::sqrt(d), std::sqrt(best), 1e-9);
  }
  // Weights of an outside point extrapolate: some are negative.
  EXPECT_LT(*std::min_element(e.weights[0].begin(), e.weights[0].end()), 0.0);
}

TEST(Embed, NearestMatchesBruteForce) {
  const TetMesh m = cubeMesh();
  const TetTree tree(m);
  for (const Vec3& p : test::randomPoints(Aabb{Vec3::Constant(-1), Vec3::Constant(2)}, 300, 11)) {
    double best = std::numeric_limits<double>::infinity();
    for (const Tet& k : m.tets)
      best = std::min(best, pointTetDistanceSquared(p, m.nodes[k[0]], m.nodes[k[1]], m.nodes[k[2]], m.nodes[k[3]]));
    const auto [t, d2] = tree.nearest(p);
    ASSERT_GE(t, 0);
    EXPECT_NEAR(std::sqrt(d2), std::sqrt(best), 1e-9);
    const bool inside = (p.array() >= 0).all() && (p.array() <= 1).all();
    EXPECT_EQ(tree.locate(p) >= 0, inside);
  }
}

TEST(Embed, MatrixIsJPhi) {
  const TetMesh m = cubeMesh();
  const std::vector<Vec3> pts = test::randomPoints(Aabb{Vec3::Constant(-0.2), Vec3::Constant(1.2)}, 500, 3);
  const Embedding e = embedPoints(pts, m);
  const Eigen::SparseMatrix<double> j = embeddingMatrix(e, m);
  ASSERT_EQ(j.rows(), Eigen::Index(pts.size()));
  ASSERT_EQ(j.cols(), Eigen::Index(m.nodeCount()));
  EXPECT_EQ(j.nonZeros(), Eigen::Index(4 * pts.size()));
  Eigen::MatrixXd x(m.nodeCount(), 3);
  for (size_t n = 0; n < m.nodeCount(); ++n) x.row(Eigen::Index(n)) = m.nodes[n].transpose();
  const Eigen::MatrixXd y = j * x;
  const Eigen::VectorXd rowSums = j * Eigen::VectorXd::Ones(Eigen::Index(m.nodeCount()));
  for (size_t v = 0; v < pts.size(); ++v) {
    EXPECT_LT((y.row(Eigen::Index(v)).transpose() - pts[v]).norm(), 1e-12);
    EXPECT_NEAR(rowSums[Eigen::Index(v)], 1.0, 1e-14);
  }
  // Deformed nodes move the embedded points as J_phi says.
  std::vector<Vec3> moved = m.nodes;
  for (Vec3& p : moved) p = Vec3(2 * p.x(), p.y() + p.z() * p.z(), -p.x());
  const std::vector<Vec3> q = embeddedPositions(e, m, moved);
  for (size_t n = 0; n < m.nodeCount(); ++n) x.row(Eigen::Index(n)) = moved[n].transpose();
  const Eigen::MatrixXd yq = j * x;
  for (size_t v = 0; v < pts.size(); ++v) EXPECT_LT((yq.row(Eigen::Index(v)).transpose() - q[v]).norm(), 1e-12);
}

TEST(Embed, EmptyMesh) {
  const Embedding e = embedPoints({Vec3::Zero()}, TetMesh{});
  EXPECT_EQ(e.tet[0], -1);
}

}  // namespace
}  // namespace sinew
