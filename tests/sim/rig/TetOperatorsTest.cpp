// The FEM operators of a tet mesh: the properties every Laplacian must have
// (libigl's "a constant field is in the null space"), checked on regular and
// jittered meshes.
#include "rig/TetOperators.h"

#include "RigScenes.h"

#include <gtest/gtest.h>

#include <random>

namespace sinew {
namespace {

// A 4x3x3-cell block with its interior nodes moved at random (valid tets).
TetMesh jitteredBlock(unsigned seed = 7) {
  TetMesh m = test::gridTetMesh(Vec3(0.1, -0.2, 0.3), Eigen::Vector3i(4, 3, 3), 0.25);
  const Aabb box = m.bounds();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-0.04, 0.04);
  for (Vec3& p : m.nodes) {
    const bool interior = (p.array() > box.min.array() + 1e-9).all() && (p.array() < box.max.array() - 1e-9).all();
    if (interior) p += Vec3(u(rng), u(rng), u(rng));
  }
  return m;
}

std::vector<uint8_t> boundaryNodes(const TetMesh& m) {
  std::vector<uint8_t> b(m.nodeCount(), 0);
  for (const Tri& f : tetBoundary(m).faces)
    for (int32_t i : f) b[size_t(i)] = 1;
  return b;
}

TEST(TetOperators, GradientsOfOneTet) {
  TetMesh m;
  m.nodes = {Vec3(0, 0, 0), Vec3(2, 0, 0), Vec3(0, 3, 0), Vec3(0, 0, 4)};
  m.tets = {{0, 1, 2, 3}};
  const auto g = tetGradients(m, 0);
  // phi_1 = x/2, phi_2 = y/3, phi_3 = z/4.
  EXPECT_TRUE(g[1].isApprox(Vec3(0.5, 0, 0)));
  EXPECT_TRUE(g[2].isApprox(Vec3(0, 1.0 / 3, 0)));
  EXPECT_TRUE(g[3].isApprox(Vec3(0, 0, 0.25)));
  EXPECT_TRUE((g[0] + g[1] + g[2] + g[3]).isZero(1e-15));
  // Degenerate (flat) tet: no gradients, no stiffness.
  m.nodes[3] = Vec3(1, 1, 0);
  for (const Vec3& v : tetGradients(m, 0)) EXPECT_TRUE(v.isZero(0.0));
  EXPECT_EQ(stiffnessMatrix(m).norm(), 0.0);
}

TEST(TetOperators, StiffnessMatchesTheCotangentFormula) {
  // K_ij = -1/6 l_kl cot(theta_kl): theta_kl the dihedral angle at edge kl opposite ij.
  TetMesh m;
  m.nodes = {Vec3(0.1, 0.0, 0.0), Vec3(1.3, 0.2, -0.1), Vec3(0.4, 1.1, 0.2), Vec3(0.3, 0.4, 0.9)};
  m.tets = {{0, 1, 2, 3}};
  ASSERT_GT(tetVolume(m, 0), 0);
  const SparseMatrix K = stiffnessMatrix(m);
  for (int i = 0; i < 4; ++i)
    for (int j = i + 1; j < 4; ++j) {
      int k = 0;
      while (k == i || k == j) ++k;
      int l = k + 1;
      while (l == i || l == j) ++l;
      const Vec3 xk = m.nodes[size_t(k)], xl = m.nodes[size_t(l)];
      const Vec3 e = (xl - xk).normalized();
      // Normals of the faces (k,l,i) and (k,l,j) on the edge kl: project i and j off the edge.
      Vec3 a = m.nodes[size_t(i)] - xk, b = m.nodes[size_t(j)] - xk;
      a -= a.dot(e) * e;
      b -= b.dot(e) * e;
      const double cosT = a.normalized().dot(b.normalized());
      const double theta = std::acos(cosT);
      const double expected = -(xl - xk).norm() / std::tan(theta) / 6.0;
      EXPECT_NEAR(K.coeff(i, j), expected, 1e-12) << i << "," << j;
    }
}

TEST(TetOperators, StiffnessIsSymmetricWithZeroRowSums) {
  const TetMesh m = jitteredBlock();
  const SparseMatrix K = stiffnessMatrix(m);
  ASSERT_EQ(K.rows(), Eigen::Index(m.nodeCount()));
  const SparseMatrix Kt = K.transpose();
  EXPECT_EQ((K - Kt).norm(), 0.0);  // bitwise symmetric
  const double scale = K.diagonal().cwiseAbs().maxCoeff();
  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(K.rows());
  EXPECT_LT((K * ones).cwiseAbs().maxCoeff(), 1e-13 * scale);  // constants in the null space
  for (Eigen::Index i = 0; i < K.rows(); ++i) EXPECT_GT(K.coeff(i, i), 0.0);
}

TEST(TetOperators, StiffnessIsPositiveSemidefinite) {
  const TetMesh m = jitteredBlock(11);
  const SparseMatrix K = stiffnessMatrix(m);
  std::mt19937 rng(3);
  std::normal_distribution<double> n(0.0, 1.0);
  for (int trial = 0; trial < 200; ++trial) {
    Eigen::VectorXd x(K.rows());
    for (Eigen::Index i = 0; i < x.size(); ++i) x[i] = n(rng);
    EXPECT_GE(x.dot(K * x), 0.0);
  }
  // And the energy of a linear field is volume * |gradient|^2 exactly.
  const Vec3 a(0.3, -1.2, 2.0);
  Eigen::VectorXd f(K.rows());
  for (size_t i = 0; i < m.nodeCount(); ++i) f[Eigen::Index(i)] = a.dot(m.nodes[i]) + 0.7;
  EXPECT_NEAR(f.dot(K * f), totalVolume(m) * a.squaredNorm(), 1e-12 * totalVolume(m) * a.squaredNorm());
}

TEST(TetOperators, LinearFunctionsAreHarmonicAtInteriorNodes) {
  for (const TetMesh& m : {test::bar(5, 4, 4, 0.1), jitteredBlock(5)}) {
    const SparseMatrix K = stiffnessMatrix(m);
    const std::vector<uint8_t> boundary = boundaryNodes(m);
    int interior = 0;
    for (const Vec3& a : {Vec3(1, 0, 0), Vec3(0.2, -0.5, 0.9)}) {
      Eigen::VectorXd f(K.rows());
      for (size_t i = 0; i < m.nodeCount(); ++i) f[Eigen::Index(i)] = a.dot(m.nodes[i]) - 0.25;
      const Eigen::VectorXd Kf = K * f;
      const double scale = K.diagonal().maxCoeff() * f.cwiseAbs().maxCoeff();
      interior = 0;
      for (size_t i = 0; i < m.nodeCount(); ++i) {
        if (boundary[i]) continue;
        ++interior;
        EXPECT_LT(std::abs(Kf[Eigen::Index(i)]), 1e-13 * scale) << "node " << i;
      }
    }
    EXPECT_GT(interior, 5);
  }
}

TEST(TetOperators, LumpedMassSharesEachVolumeByFour) {
  const TetMesh m = jitteredBlock();
  const Eigen::VectorXd mass = lumpedMass(m);
  EXPECT_NEAR(mass.sum(), totalVolume(m), 1e-14);
  Eigen::VectorXd expected = Eigen::VectorXd::Zero(mass.size());
  for (size_t t = 0; t < m.tetCount(); ++t)
    for (int32_t i : m.tets[t]) expected[i] += tetVolume(m, t) / 4;
  EXPECT_LT((mass - expected).cwiseAbs().maxCoeff(), 1e-16);
  EXPECT_GT(mass.minCoeff(), 0.0);
}

TEST(TetOperators, BilaplacianIsSymmetricSemidefiniteWithConstantsInItsNullSpace) {
  const TetMesh m = jitteredBlock(9);
  const SparseMatrix K = stiffnessMatrix(m);
  const Eigen::VectorXd mass = lumpedMass(m);
  const SparseMatrix Q = bilaplacian(K, mass);
  const SparseMatrix Qt = Q.transpose();
  EXPECT_EQ((Q - Qt).norm(), 0.0);
  EXPECT_LT((Q * Eigen::VectorXd::Ones(Q.rows())).cwiseAbs().maxCoeff(), 1e-12 * Q.diagonal().maxCoeff());
  // x^T Q x = |K x|^2_{M^-1}.
  std::mt19937 rng(1);
  std::normal_distribution<double> n(0.0, 1.0);
  Eigen::VectorXd x(Q.rows());
  for (Eigen::Index i = 0; i < x.size(); ++i) x[i] = n(rng);
  const Eigen::VectorXd Kx = K * x;
  EXPECT_NEAR(x.dot(Q * x), Kx.dot(mass.cwiseInverse().asDiagonal() * Kx), 1e-9 * x.dot(Q * x));
}

TEST(TetOperators, ComponentsAndAdjacency) {
  TetMesh a = test::bar(2, 1, 1, 1.0);
  const TetMesh b = test::gridTetMesh(Vec3(5, 0, 0), Eigen::Vector3i(1, 1, 1), 1.0);
  const auto base = int32_t(a.nodes.size());
  a.nodes.insert(a.nodes.end(), b.nodes.begin(), b.nodes.end());
  for (Tet t : b.tets) {
    for (int32_t& i : t) i += base;
    a.tets.push_back(t);
  }
  a.nodes.push_back(Vec3(9, 9, 9));  // a node in no tet
  int32_t count = 0;
  const std::vector<int32_t> c = nodeComponents(a, &count);
  EXPECT_EQ(count, 3);
  for (int32_t i = 0; i < base; ++i) EXPECT_EQ(c[size_t(i)], 0);
  for (size_t i = size_t(base); i + 1 < a.nodeCount(); ++i) EXPECT_EQ(c[i], 1);
  EXPECT_EQ(c.back(), 2);

  const NodeAdjacency adj = nodeAdjacency(a);
  ASSERT_EQ(adj.offsets.size(), a.nodeCount() + 1);
  EXPECT_EQ(adj.offsets.back() - adj.offsets[a.nodeCount() - 1], 0);  // isolated node
  // Symmetric, sorted, within one component; a Kuhn cube's main diagonal is an edge.
  auto adjacent = [&](int32_t i, int32_t j) {
    return std::binary_search(adj.neighbors.begin() + adj.offsets[size_t(i)],
                              adj.neighbors.begin() + adj.offsets[size_t(i) + 1], j);
  };
  for (size_t i = 0; i < a.nodeCount(); ++i)
    for (int32_t k = adj.offsets[i]; k < adj.offsets[i + 1]; ++k) {
      const int32_t j = adj.neighbors[size_t(k)];
      EXPECT_NE(j, int32_t(i));
      EXPECT_EQ(c[size_t(j)], c[i]);
      EXPECT_TRUE(adjacent(j, int32_t(i)));
    }
  auto at = [&](const Vec3& p) {
    return int32_t(std::find(a.nodes.begin(), a.nodes.end(), p) - a.nodes.begin());
  };
  EXPECT_TRUE(adjacent(at(Vec3(5, 0, 0)), at(Vec3(6, 1, 1))));
}

}  // namespace
}  // namespace sinew
