// Automatic skinning weights: the box QP against exhaustive enumeration,
// bounded biharmonic and harmonic weights against the properties Jacobson et
// al. 2011 promise (bounds, partition of unity, interpolation, smoothness,
// invariance), and the transfers to SkinWeights and to an embedded surface.
#include "rig/BoneWeights.h"

#include "RigScenes.h"
#include "rig/TetOperators.h"

#include <gtest/gtest.h>

#include <random>

namespace sinew {
namespace {

// ---------------------------------------------------------------------------
// Helpers

// Checks 0 <= w <= 1 exactly and |row sum - 1| <= tol.
void expectBoundedPartition(const WeightMatrix& w, double tol = 1e-12) {
  ASSERT_GT(w.rows(), 0);
  EXPECT_GE(w.minCoeff(), 0.0);
  EXPECT_LE(w.maxCoeff(), 1.0);
  double worst = 0;
  for (Eigen::Index i = 0; i < w.rows(); ++i) worst = std::max(worst, std::abs(w.row(i).sum() - 1.0));
  EXPECT_LE(worst, tol);
}

void expectHandlesInterpolated(const WeightMatrix& w, const std::vector<int32_t>& fixedBone) {
  for (size_t i = 0; i < fixedBone.size(); ++i) {
    if (fixedBone[i] < 0) continue;
    for (Eigen::Index b = 0; b < w.cols(); ++b)
      EXPECT_EQ(w(Eigen::Index(i), b), b == fixedBone[i] ? 1.0 : 0.0) << "handle node " << i << " bone " << b;
  }
}

// Bar handles: the nodes of the end faces x = 0 (bone 0) and x = max (bone 1).
std::vector<int32_t> endHandles(const TetMesh& m) {
  const Aabb box = m.bounds();
  std::vector<int32_t> fixed(m.nodeCount(), -1);
  for (size_t i = 0; i < m.nodeCount(); ++i) {
    if (m.nodes[i].x() <= box.min.x() + 1e-12) fixed[i] = 0;
    if (m.nodes[i].x() >= box.max.x() - 1e-12) fixed[i] = 1;
  }
  return fixed;
}

// A block with four small "point" handles (one node and its axis neighbours
// each): where harmonic weights have their spikes.
struct PointHandleScene {
  TetMesh mesh;
  std::vector<int32_t> fixed;
};
PointHandleScene pointHandles() {
  PointHandleScene s;
  s.mesh = test::gridTetMesh(Vec3::Zero(), Eigen::Vector3i(10, 6, 5), 0.1);
  s.fixed.assign(s.mesh.nodeCount(), -1);
  const Vec3 centres[4] = {Vec3(0.2, 0.2, 0.2), Vec3(0.8, 0.2, 0.3), Vec3(0.5, 0.4, 0.2), Vec3(0.9, 0.5, 0.4)};
  for (size_t i = 0; i < s.mesh.nodeCount(); ++i)
    for (int b = 0; b < 4; ++b)
      if ((s.mesh.nodes[i] - centres[b]).norm() < 0.101) s.fixed[i] = b;
  return s;
}

double biharmonicEnergy(const TetMesh& m, const WeightMatrix& w) {
  const SparseMatrix Q = bilaplacian(stiffnessMatrix(m), lumpedMass(m));
  double e = 0;
  for (Eigen::Index b = 0; b < w.cols(); ++b) {
    const Eigen::VectorXd c = w.col(b);
    e += 0.5 * c.dot(Q * c);
  }
  return e;
}

// Brute-force point location: the tet where the smallest barycentric
// coordinate is largest (inside: all >= 0; outside: extrapolated).
Embedding embed(const TetMesh& m, const std::vector<Vec3>& points) {
  Embedding e;
  for (const Vec3& p : points) {
    double bestMin = -std::numeric_limits<double>::infinity();
    int32_t bestTet = 0;
    std::array<double, 4> bestW{};
    for (size_t t = 0; t < m.tetCount(); ++t) {
      const Tet& k = m.tets[t];
      Mat3 D;
      D << m.nodes[size_t(k[1])] - m.nodes[size_t(k[0])], m.nodes[size_t(k[2])] - m.nodes[size_t(k[0])],
          m.nodes[size_t(k[3])] - m.nodes[size_t(k[0])];
      const Vec3 l = D.inverse() * (p - m.nodes[size_t(k[0])]);
      const std::array<double, 4> w{1 - l.sum(), l.x(), l.y(), l.z()};
      const double mn = *std::min_element(w.begin(), w.end());
      if (mn > bestMin) {
        bestMin = mn;
        bestTet = int32_t(t);
        bestW = w;
      }
    }
    e.tet.push_back(bestTet);
    e.weights.push_back(bestW);
    e.extrapolated.push_back(bestMin < -1e-12 ? 1 : 0);
  }
  return e;
}

// ---------------------------------------------------------------------------
// The box QP

// The KKT point by enumerating every assignment of each variable to
// {lower, free, upper}: tiny problems only.
Eigen::VectorXd exhaustiveBoxQp(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, const Eigen::VectorXd& lo,
                                const Eigen::VectorXd& hi) {
  const int n = int(A.rows());
  int combos = 1;
  for (int i = 0; i < n; ++i) combos *= 3;
  for (int c = 0; c < combos; ++c) {
    std::vector<int> state(static_cast<size_t>(n), 0);
    for (int i = 0, r = c; i < n; ++i, r /= 3) state[size_t(i)] = r % 3;  // 0 lower, 1 free, 2 upper
    Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
    std::vector<int> freeIdx;
    for (int i = 0; i < n; ++i) {
      if (state[size_t(i)] == 0) x[i] = lo[i];
      else if (state[size_t(i)] == 2) x[i] = hi[i];
      else freeIdx.push_back(i);
    }
    if (!freeIdx.empty()) {
      const int f = int(freeIdx.size());
      Eigen::MatrixXd AF(f, f);
      Eigen::VectorXd rhs(f);
      for (int r = 0; r < f; ++r) {
        rhs[r] = -b[freeIdx[size_t(r)]];
        for (int i = 0; i < n; ++i)
          if (state[size_t(i)] != 1) rhs[r] -= A(freeIdx[size_t(r)], i) * x[i];
        for (int s = 0; s < f; ++s) AF(r, s) = A(freeIdx[size_t(r)], freeIdx[size_t(s)]);
      }
      const Eigen::VectorXd xf = AF.llt().solve(rhs);
      for (int r = 0; r < f; ++r) x[freeIdx[size_t(r)]] = xf[r];
    }
    const Eigen::VectorXd g = A * x + b;
    bool kkt = true;
    for (int i = 0; i < n && kkt; ++i) {
      if (state[size_t(i)] == 1) kkt = x[i] >= lo[i] - 1e-12 && x[i] <= hi[i] + 1e-12;
      else if (state[size_t(i)] == 0) kkt = g[i] >= -1e-12;
      else kkt = g[i] <= 1e-12;
    }
    if (kkt) return x;
  }
  ADD_FAILURE() << "no KKT point";
  return Eigen::VectorXd::Zero(n);
}

TEST(BoxQp, MatchesExhaustiveEnumeration) {
  std::mt19937 rng(17);
  std::normal_distribution<double> nd(0.0, 1.0);
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 7;
    Eigen::MatrixXd R(n, n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) R(i, j) = nd(rng);
    const Eigen::MatrixXd A = R.transpose() * R + 0.05 * Eigen::MatrixXd::Identity(n, n);
    Eigen::VectorXd b(n), lo(n), hi(n);
    for (int i = 0; i < n; ++i) {
      b[i] = 3 * nd(rng);
      lo[i] = trial % 2 ? 0.0 : -std::abs(nd(rng));
      hi[i] = trial % 2 ? 1.0 : std::abs(nd(rng));
    }
    const Eigen::VectorXd expected = exhaustiveBoxQp(A, b, lo, hi);
    Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
    const BoxQpResult r = solveBoxQp(A.sparseView(), b, lo, hi, x);
    EXPECT_TRUE(r.converged) << "trial " << trial << " it " << r.iterations << " fact " << r.factorizations << " grad " << r.gradientSteps << " ls " << r.lineSearchSteps;
    EXPECT_LE(r.residual, 1e-10);
    EXPECT_LT((x - expected).cwiseAbs().maxCoeff(), 1e-8) << "trial " << trial;
    EXPECT_LE(boxQpResidual(A.sparseView(), b, lo, hi, x), 1e-10);
    EXPECT_TRUE(((x.array() >= lo.array()) && (x.array() <= hi.array())).all());
  }
}

TEST(BoxQp, ConvergesOnManyRandomSparseProblems) {
  // Random sparse SPD matrices (diagonally dominant and not), random bounds
  // and starts: the KKT residual reaches the tolerance every time.
  std::mt19937 rng(99);
  std::normal_distribution<double> nd(0.0, 1.0);
  std::uniform_int_distribution<int> pick(0, 59);
  int iterations = 0, gradientSteps = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 60;
    std::vector<Eigen::Triplet<double>> t;
    for (int k = 0; k < 150; ++k) t.emplace_back(pick(rng), pick(rng), nd(rng));
    SparseMatrix R(n, n);
    R.setFromTriplets(t.begin(), t.end());
    SparseMatrix I(n, n);
    I.setIdentity();
    const SparseMatrix A = SparseMatrix(R.transpose() * R) + (trial % 3 ? 1e-3 : 1.0) * I;
    Eigen::VectorXd b(n), lo(n), hi(n), x(n);
    for (int i = 0; i < n; ++i) {
      b[i] = 2 * nd(rng);
      lo[i] = -std::abs(nd(rng));
      hi[i] = std::abs(nd(rng));
      x[i] = 3 * nd(rng);
    }
    const BoxQpResult r = solveBoxQp(A, b, lo, hi, x);
    EXPECT_TRUE(r.converged) << "trial " << trial << " residual " << r.residual;
    EXPECT_LE(boxQpResidual(A, b, lo, hi, x), 1e-10);
    iterations += r.iterations;
    gradientSteps += r.gradientSteps;
  }
  EXPECT_LT(iterations, 200 * 12);
  std::cout << "random box QPs: " << iterations << " iterations, " << gradientSteps << " gradient steps\n";
}

TEST(BoxQp, SemidefiniteProblemsStillReachTheBounds) {
  // A linear program on the box (A = 0 on most variables): no Newton step
  // exists there, the scaled gradient steps take every variable to its bound.
  const int n = 6;
  SparseMatrix A(n, n);
  A.insert(0, 0) = 2.0;
  Eigen::VectorXd b(n), x = Eigen::VectorXd::Constant(n, 0.5);
  b << -1.0, 1.0, -2.0, 0.5, -0.1, 3.0;
  const BoxQpResult r = solveBoxQp(A, b, Eigen::VectorXd::Zero(n), Eigen::VectorXd::Ones(n), x);
  EXPECT_TRUE(r.converged);
  EXPECT_LT((x - (Eigen::VectorXd(n) << 0.5, 0, 1, 0, 1, 0).finished()).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_GE(r.atLower + r.atUpper, 4);
}

TEST(BoxQp, LargeSparseProblemConvergesToAKktPoint) {
  // A 1D bilaplacian (ill-conditioned, not an M-matrix) with a pull towards
  // an oscillating target, clipped by [0, 1] on a large part of the domain.
  const int n = 400;
  std::vector<Eigen::Triplet<double>> t;
  for (int i = 0; i < n; ++i) {
    const double stencil[5] = {1, -4, 6, -4, 1};
    for (int k = -2; k <= 2; ++k)
      if (i + k >= 0 && i + k < n) t.emplace_back(i, i + k, stencil[k + 2]);
    t.emplace_back(i, i, 1e-3);
  }
  SparseMatrix A(n, n);
  A.setFromTriplets(t.begin(), t.end());
  Eigen::VectorXd b(n);
  for (int i = 0; i < n; ++i) b[i] = -1e-3 * 1.6 * std::sin(0.05 * i);
  const Eigen::VectorXd lo = Eigen::VectorXd::Zero(n), hi = Eigen::VectorXd::Ones(n);
  Eigen::VectorXd x = Eigen::VectorXd::Constant(n, 0.5);
  const BoxQpResult r = solveBoxQp(A, b, lo, hi, x);
  EXPECT_TRUE(r.converged);
  EXPECT_LE(r.residual, 1e-10);
  EXPECT_GT(r.atLower, 10);
  EXPECT_GT(r.atUpper, 10);
  EXPECT_LT(r.iterations, 40);
  // No feasible perturbation does better.
  auto f = [&](const Eigen::VectorXd& y) { return 0.5 * y.dot(A * y) + b.dot(y); };
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1e-3, 1e-3);
  for (int k = 0; k < 50; ++k) {
    Eigen::VectorXd y = x;
    for (int i = 0; i < n; ++i) y[i] = std::clamp(y[i] + u(rng), 0.0, 1.0);
    EXPECT_GE(f(y), f(x) - 1e-15);
  }
}

// ---------------------------------------------------------------------------
// Bounded biharmonic weights

TEST(BoneWeights, BarWithHandlesAtBothEnds) {
  const TetMesh m = test::bar(12, 2, 2, 0.1);
  const std::vector<int32_t> fixed = endHandles(m);
  const BoneWeightsResult r = computeBoneWeights(m, fixed, 2);
  ASSERT_EQ(r.weights.rows(), Eigen::Index(m.nodeCount()));
  ASSERT_EQ(r.weights.cols(), 2);
  expectBoundedPartition(r.weights);
  expectHandlesInterpolated(r.weights, fixed);
  EXPECT_TRUE(r.diagnostics.empty());
  ASSERT_EQ(r.bones.size(), 2u);
  for (const BoneWeightStats& s : r.bones) {
    EXPECT_TRUE(s.converged);
    EXPECT_LE(s.residual, 1e-10);
    EXPECT_EQ(s.handleNodes, 9);
  }
  // Symmetric under the point reflection through the centre (a symmetry of
  // the Kuhn mesh) with the bones swapped, and decreasing along x.
  const Vec3 corner(1.2, 0.2, 0.2);
  for (size_t i = 0; i < m.nodeCount(); ++i)
    for (size_t j = 0; j < m.nodeCount(); ++j)
      if ((m.nodes[j] - (corner - m.nodes[i])).norm() < 1e-9) {
        EXPECT_NEAR(r.weights(Eigen::Index(i), 0), r.weights(Eigen::Index(j), 1), 1e-9);
      }
  for (size_t i = 0; i < m.nodeCount(); ++i)
    for (size_t j = 0; j < m.nodeCount(); ++j)
      if ((m.nodes[j] - m.nodes[i] - Vec3(0.1, 0, 0)).norm() < 1e-9) {
        EXPECT_LE(r.weights(Eigen::Index(j), 0), r.weights(Eigen::Index(i), 0) + 1e-9);
      }
}

TEST(BoneWeights, BoundsPartitionAndInterpolationWithPointHandles) {
  const PointHandleScene s = pointHandles();
  BoneWeightOptions o;
  o.qp.tolerance = 1e-10;
  const BoneWeightsResult r = computeBoneWeights(s.mesh, s.fixed, 4, o);
  expectBoundedPartition(r.weights);
  expectHandlesInterpolated(r.weights, s.fixed);
  // The separate solves were nearly a partition of unity already; the bounds
  // were active (the unconstrained solution leaves [0,1]).
  EXPECT_LT(r.partitionDefect, 0.2);
  int atZero = 0;
  for (const BoneWeightStats& b : r.bones) {
    EXPECT_TRUE(b.converged);
    EXPECT_LE(b.residual, 1e-10);
    atZero += b.atZero;
  }
  EXPECT_GT(atZero, 0);
  EXPECT_GT(r.totalIterations, 0);
  EXPECT_LE(r.maxResidual, 1e-10);
}

TEST(BoneWeights, SmootherThanHarmonicWeights) {
  const PointHandleScene s = pointHandles();
  BoneWeightOptions harmonic;
  harmonic.method = WeightMethod::Harmonic;
  const WeightMatrix wb = computeBoneWeights(s.mesh, s.fixed, 4).weights;
  const WeightMatrix wh = computeBoneWeights(s.mesh, s.fixed, 4, harmonic).weights;
  const double eb = biharmonicEnergy(s.mesh, wb), eh = biharmonicEnergy(s.mesh, wh);
  // Harmonic weights are feasible for the same problem, so the minimiser's
  // energy is lower; normalisation changes it little. Measured: 0.53.
  EXPECT_LT(eb, 0.6 * eh) << "bbw " << eb << " harmonic " << eh;
  // Per bone too.
  const SparseMatrix Q = bilaplacian(stiffnessMatrix(s.mesh), lumpedMass(s.mesh));
  for (int b = 0; b < 4; ++b) {
    const Eigen::VectorXd cb = wb.col(b), ch = wh.col(b);
    EXPECT_LT(cb.dot(Q * cb), 0.8 * ch.dot(Q * ch)) << "bone " << b;
  }
}

TEST(BoneWeights, InvariantUnderRigidMotion) {
  const PointHandleScene s = pointHandles();
  TetMesh moved = s.mesh;
  const Quat q = Quat(Eigen::AngleAxisd(0.7, Vec3(0.3, -0.5, 0.8).normalized()));
  for (Vec3& p : moved.nodes) p = q * p + Vec3(3.0, -1.5, 0.25);
  const WeightMatrix a = computeBoneWeights(s.mesh, s.fixed, 4).weights;
  const WeightMatrix b = computeBoneWeights(moved, s.fixed, 4).weights;
  EXPECT_LT((a - b).cwiseAbs().maxCoeff(), 1e-9);
  // And under uniform scaling (the operators scale, the weights do not).
  TetMesh scaled = s.mesh;
  for (Vec3& p : scaled.nodes) p *= 3.7;
  EXPECT_LT((a - computeBoneWeights(scaled, s.fixed, 4).weights).cwiseAbs().maxCoeff(), 1e-9);
}

TEST(BoneWeights, DeterministicWithAndWithoutThreads) {
  const PointHandleScene s = pointHandles();
  BoneWeightOptions serial;
  serial.parallel = false;
  const WeightMatrix a = computeBoneWeights(s.mesh, s.fixed, 4).weights;
  const WeightMatrix b = computeBoneWeights(s.mesh, s.fixed, 4).weights;
  const WeightMatrix c = computeBoneWeights(s.mesh, s.fixed, 4, serial).weights;
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
}

TEST(BoneWeights, HumanoidCage) {
  // A coarse voxel cage of the example character, every bone a handle.
  const test::HumanoidCage cage = test::humanoidCage(0.08, 0, 0.05);
  const auto nBones = int32_t(cage.bones.size());
  ASSERT_GE(nBones, 15);
  const BoneWeightsResult r = computeBoneWeights(cage.mesh, cage.fixedBone, nBones);
  expectBoundedPartition(r.weights);
  expectHandlesInterpolated(r.weights, cage.fixedBone);
  for (const BoneWeightStats& b : r.bones) {
    EXPECT_GT(b.handleNodes, 0);
    EXPECT_TRUE(b.converged);
  }
  EXPECT_LE(r.maxResidual, 1e-10);
  EXPECT_TRUE(r.diagnostics.empty());
  // Locality: the left hand has no say in the right foot.
  const int32_t leftHand = int32_t(std::find(cage.bones.begin(), cage.bones.end(), "LeftHand") - cage.bones.begin());
  ASSERT_LT(leftHand, nBones);
  for (size_t i = 0; i < cage.mesh.nodeCount(); ++i)
    if (cage.mesh.nodes[i].x() < -0.1 && cage.mesh.nodes[i].y() < 0.3) {
      EXPECT_LT(r.weights(Eigen::Index(i), leftHand), 1e-3);
    }
}

TEST(BoneWeights, ProgressAndCancellation) {
  const PointHandleScene s = pointHandles();
  std::vector<double> seen;
  const Progress progress([&](double f, std::string_view) { seen.push_back(f); });
  computeBoneWeights(s.mesh, s.fixed, 4, {}, progress);
  ASSERT_GE(seen.size(), 3u);
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_EQ(seen.back(), 1.0);
  std::atomic<bool> cancel{true};
  EXPECT_THROW(computeBoneWeights(s.mesh, s.fixed, 4, {}, Progress({}, &cancel)), Cancelled);
}

// ---------------------------------------------------------------------------
// Harmonic weights

TEST(HarmonicWeights, LinearAlongABar) {
  // With whole end faces as handles the harmonic weight is exactly x / L:
  // linear finite elements reproduce linear functions.
  const TetMesh m = test::bar(10, 3, 2, 0.1);
  const std::vector<int32_t> fixed = endHandles(m);
  BoneWeightOptions o;
  o.method = WeightMethod::Harmonic;
  const BoneWeightsResult r = computeBoneWeights(m, fixed, 2, o);
  expectBoundedPartition(r.weights);
  expectHandlesInterpolated(r.weights, fixed);
  for (size_t i = 0; i < m.nodeCount(); ++i) EXPECT_NEAR(r.weights(Eigen::Index(i), 1), m.nodes[i].x() / 1.0, 1e-12);
  EXPECT_TRUE(r.bones.empty());
}

TEST(HarmonicWeights, BoundsAndPartitionOfUnity) {
  const PointHandleScene s = pointHandles();
  BoneWeightOptions o;
  o.method = WeightMethod::Harmonic;
  const BoneWeightsResult r = computeBoneWeights(s.mesh, s.fixed, 4, o);
  expectBoundedPartition(r.weights);
  expectHandlesInterpolated(r.weights, s.fixed);
  EXPECT_LT(r.partitionDefect, 1e-12);  // linear: the solves sum to one before clamping
  // A jittered mesh (obtuse dihedral angles: the maximum principle can fail
  // by a little) still comes out bounded after the clamp.
  TetMesh jittered = s.mesh;
  std::mt19937 rng(2);
  std::uniform_real_distribution<double> u(-0.03, 0.03);
  const Aabb box = jittered.bounds();
  for (Vec3& p : jittered.nodes)
    if ((p.array() > box.min.array() + 1e-9).all() && (p.array() < box.max.array() - 1e-9).all())
      p += Vec3(u(rng), u(rng), u(rng));
  expectBoundedPartition(computeBoneWeights(jittered, s.fixed, 4, o).weights);
}

// ---------------------------------------------------------------------------
// Input problems

TEST(BoneWeights, RejectsInconsistentHandles) {
  const TetMesh m = test::bar(3, 1, 1, 0.1);
  std::vector<int32_t> fixed = endHandles(m);
  EXPECT_THROW(computeBoneWeights(m, std::vector<int32_t>(3, 0), 2), InputError);
  EXPECT_THROW(computeBoneWeights(m, std::vector<int32_t>(m.nodeCount(), -1), 2), InputError);
  EXPECT_THROW(computeBoneWeights(m, fixed, 1), InputError);  // bone 1 out of range
  EXPECT_THROW(computeBoneWeights(m, fixed, 0), InputError);
}

TEST(BoneWeights, BoneWithoutHandlesAndUnreachedNodes) {
  TetMesh m = test::bar(6, 1, 1, 0.1);
  std::vector<int32_t> fixed = endHandles(m);
  // A separate cube no handle reaches, nearer to bone 1's end.
  const TetMesh island = test::gridTetMesh(Vec3(1.0, 0, 0), Eigen::Vector3i(1, 1, 1), 0.1);
  const auto base = int32_t(m.nodes.size());
  m.nodes.insert(m.nodes.end(), island.nodes.begin(), island.nodes.end());
  for (Tet t : island.tets) {
    for (int32_t& i : t) i += base;
    m.tets.push_back(t);
  }
  fixed.resize(m.nodeCount(), -1);
  for (WeightMethod method : {WeightMethod::BoundedBiharmonic, WeightMethod::Harmonic}) {
    BoneWeightOptions o;
    o.method = method;
    const BoneWeightsResult r = computeBoneWeights(m, fixed, 3, o);  // bone 2 has no handle
    expectBoundedPartition(r.weights);
    EXPECT_EQ(r.weights.col(2).cwiseAbs().maxCoeff(), 0.0);
    for (size_t i = size_t(base); i < m.nodeCount(); ++i) EXPECT_EQ(r.weights(Eigen::Index(i), 1), 1.0);
    EXPECT_EQ(r.diagnostics.size(), 2u) << weightMethodName(method);
  }
}

// ---------------------------------------------------------------------------
// Dense <-> SkinWeights

TEST(SkinWeightsConversion, SparsifyLimitAndRenormalise) {
  WeightMatrix w(3, 4);
  w << 0.5, 0.3, 0.15, 0.05,  //
      0.25, 0.25, 0.25, 0.25,   //
      0.0, 0.0, 0.0, 0.0;
  const std::vector<std::string> names = {"a", "b", "c", "d"};
  SparsifyOptions o;
  o.threshold = 0.1;
  SkinWeights s = toSkinWeights(w, names, o);
  EXPECT_NO_THROW(s.validate("test", 3));
  EXPECT_EQ(s.bones, names);
  EXPECT_EQ(s.offsets, (std::vector<int32_t>{0, 3, 7, 7}));
  EXPECT_NEAR(s.weight[0], 0.5 / 0.95, 1e-15);
  o.maxInfluences = 2;
  s = toSkinWeights(w, names, o);
  EXPECT_EQ(s.offsets, (std::vector<int32_t>{0, 2, 4, 4}));
  EXPECT_EQ(s.bone, (std::vector<int32_t>{0, 1, 0, 1}));  // ties: lower bone index first
  EXPECT_NEAR(s.weight[0], 0.5 / 0.8, 1e-15);
  EXPECT_NEAR(s.weight[2] + s.weight[3], 1.0, 1e-15);
  // A row whose every weight is under the threshold keeps its largest.
  o.threshold = 0.6;
  o.maxInfluences = 0;
  s = toSkinWeights(w, names, o);
  EXPECT_EQ(s.offsets[1] - s.offsets[0], 1);
  EXPECT_EQ(s.weight[0], 1.0);
}

TEST(SkinWeightsConversion, RoundTripByName) {
  const PointHandleScene scene = pointHandles();
  const WeightMatrix w = computeBoneWeights(scene.mesh, scene.fixed, 4).weights;
  const std::vector<std::string> names = {"hip", "knee", "spine", "head"};
  SparsifyOptions o;
  o.threshold = 0.0;
  const SkinWeights s = toSkinWeights(w, names, o);
  EXPECT_NO_THROW(s.validate("test", scene.mesh.nodeCount()));
  EXPECT_LT((toWeightMatrix(s, names) - w).cwiseAbs().maxCoeff(), 1e-15);
  // Other column order: matched by name.
  const std::vector<std::string> reversed = {"head", "spine", "knee", "hip"};
  const WeightMatrix r = toWeightMatrix(s, reversed);
  for (int b = 0; b < 4; ++b) EXPECT_LT((r.col(3 - b) - w.col(b)).cwiseAbs().maxCoeff(), 1e-15);
  // Unknown names are reported, their share renormalised away.
  std::vector<std::string> unknown;
  const WeightMatrix partial = toWeightMatrix(s, {"hip", "knee", "spine"}, &unknown);
  EXPECT_EQ(unknown, (std::vector<std::string>{"head"}));
  for (Eigen::Index i = 0; i < w.rows(); ++i) {
    const double kept = w(i, 0) + w(i, 1) + w(i, 2);
    if (kept > 0) {
      EXPECT_NEAR(partial.row(i).sum(), 1.0, 1e-12);
      EXPECT_NEAR(partial(i, 0), w(i, 0) / kept, 1e-12);
    } else {
      EXPECT_EQ(partial.row(i).sum(), 0.0);  // all its weight was on the unknown bone
    }
  }
}

// ---------------------------------------------------------------------------
// Tet nodes <-> embedded surface

TEST(SurfaceTransfer, InterpolatesThroughTheEmbeddingAndBack) {
  const TetMesh m = test::bar(8, 2, 2, 0.1);
  const std::vector<int32_t> fixed = endHandles(m);
  BoneWeightOptions o;
  o.method = WeightMethod::Harmonic;
  const WeightMatrix nodeW = computeBoneWeights(m, fixed, 2, o).weights;  // exactly x / L

  // Points on and in the bar, and a few just outside (extrapolated).
  std::vector<Vec3> pts;
  std::mt19937 rng(8);
  std::uniform_real_distribution<double> ux(0.0, 0.8), uyz(0.0, 0.2);
  for (int i = 0; i < 300; ++i) pts.emplace_back(ux(rng), uyz(rng), uyz(rng));
  pts.emplace_back(-0.02, 0.1, 0.1);
  pts.emplace_back(0.83, 0.1, 0.1);
  const Embedding e = embed(m, pts);
  EXPECT_EQ(e.extrapolatedCount(), 2u);
  const WeightMatrix surfW = surfaceWeightsFromNodes(m, e, nodeW);
  expectBoundedPartition(surfW);
  for (size_t v = 0; v + 2 < pts.size(); ++v) EXPECT_NEAR(surfW(Eigen::Index(v), 1), pts[v].x() / 0.8, 1e-12);
  EXPECT_EQ(surfW(Eigen::Index(pts.size() - 2), 0), 1.0);  // clamped, not 1.025
  EXPECT_EQ(surfW(Eigen::Index(pts.size() - 1), 1), 1.0);

  // Back to the nodes: bounded, a partition, handles kept, close to the original.
  const WeightMatrix back = nodeWeightsFromSurface(m, e, surfW, fixed);
  expectBoundedPartition(back);
  expectHandlesInterpolated(back, fixed);
  EXPECT_LT((back - nodeW).cwiseAbs().maxCoeff(), 0.08);

  // Painting the whole surface with bone 1 drives every non-handle node to it.
  WeightMatrix painted = WeightMatrix::Zero(surfW.rows(), 2);
  painted.col(1).setOnes();
  const WeightMatrix drivenNodes = nodeWeightsFromSurface(m, e, painted, fixed);
  for (size_t i = 0; i < m.nodeCount(); ++i)
    if (fixed[i] < 0) {
      EXPECT_EQ(drivenNodes(Eigen::Index(i), 1), 1.0);
    }
}

TEST(SurfaceTransfer, UntouchedNodesAreFilledHarmonically) {
  // Surface samples only near the two ends: the middle nodes are filled by
  // the Laplace equation, i.e. linearly along the bar.
  const TetMesh m = test::bar(10, 1, 1, 0.1);
  std::vector<Vec3> pts;
  for (int k = 0; k <= 4; ++k)
    for (int l = 0; l <= 4; ++l) {
      pts.emplace_back(0.0, 0.025 * k, 0.025 * l);
      pts.emplace_back(1.0, 0.025 * k, 0.025 * l);
    }
  const Embedding e = embed(m, pts);
  WeightMatrix surfW = WeightMatrix::Zero(Eigen::Index(pts.size()), 2);
  for (size_t v = 0; v < pts.size(); ++v) surfW(Eigen::Index(v), pts[v].x() > 0.5 ? 1 : 0) = 1.0;
  const WeightMatrix w = nodeWeightsFromSurface(m, e, surfW);
  expectBoundedPartition(w);
  for (size_t i = 0; i < m.nodeCount(); ++i) {
    const double x = m.nodes[i].x();
    EXPECT_NEAR(w(Eigen::Index(i), 1), x, 1e-9) << x;
  }
}

}  // namespace
}  // namespace sinew
