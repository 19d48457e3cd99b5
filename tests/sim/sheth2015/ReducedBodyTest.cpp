// Reduced deformable bodies (Sheth et al. 2015) checked physically: Fig. 3
// (a free body released from a random reduced displacement keeps zero angular
// momentum with the omega' correction and gains some without), linear
// momentum, the impulse factor of eq. 33 gives exactly the velocity change
// asked for, a body without modes is a rigid body, bad input is named.
#include "sheth2015/ReducedBody.h"
#include "sheth2015/Modes.h"

#include "core/Error.h"
#include "examples/Bars.h"
#include "../../PlotSvg.h"

#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <cstdio>
#include <random>

namespace sinew::sheth2015 {
namespace {

TetMesh cube(double size = 1.0, int cells = 2) {
  examples::GridBox box;
  box.size = Vec3::Constant(size);
  box.cellsX = box.cellsY = box.cellsZ = cells;
  TetMesh m = examples::gridBox(box);
  for (Vec3& x : m.nodes) x += Vec3(0.3, 1.0, -0.2);  // away from the origin
  return m;
}

StepSettings free() {
  StepSettings s;
  s.gravity = Vec3::Zero();
  return s;
}

double angularScale(const ReducedBodyModel& m, double speed) {  // M x size x speed
  double size = 0;
  for (const Vec3& x : m.x0) size = std::max(size, x.norm());
  return m.totalMass * size * speed;
}

TEST(ReducedBody, Fig3TheCorrectionKeepsAngularMomentumZero) {
  BodyMaterial mat;
  mat.youngsModulus = 2e5;
  mat.beta = 0;  // no damping: the modes keep vibrating
  const auto m = buildReducedBody(cube(), mat, 10, "cube");
  ASSERT_EQ(m->modeCount(), 10);
  std::mt19937 rng(3);
  std::normal_distribution<double> n(0, 1);
  ReducedBodyState start = restState(*m);
  for (int k = 0; k < 10; ++k) start.q[k] = 0.05 * n(rng);
  double worstWith = 0, worstWithout = 0, speed = 0;
  Quat endWith, endWithout;
  test::PlotSeries Lwith{"|L| with omega' (eq. 8)", {}, {}, "#1f77b4"}, Lwithout{"|L| without", {}, {}, "#d62728"};
  test::PlotSeries Awith{"with omega'", {}, {}, "#1f77b4"}, Awithout{"without", {}, {}, "#d62728"};
  for (bool correct : {true, false}) {
    ReducedBodyState s = start;
    StepSettings set = free();
    set.dt = 1e-3;
    set.correctAngularMomentum = correct;
    updateAngularVelocity(*m, s, correct);
    for (int k = 0; k < 1000; ++k) {
      stepBody(*m, s, set);
      const double L = (particleAngularMomentum(*m, s) - s.t.cross(particleLinearMomentum(*m, s))).norm();
      (correct ? worstWith : worstWithout) = std::max(correct ? worstWith : worstWithout, L);
      if (k % 5 == 0) {
        (correct ? Lwith : Lwithout).x.push_back((k + 1) * set.dt), (correct ? Lwith : Lwithout).y.push_back(L);
        (correct ? Awith : Awithout).x.push_back((k + 1) * set.dt), (correct ? Awith : Awithout).y.push_back(s.rotation.angularDistance(start.rotation));
      }
      for (size_t i = 0; i < m->particleCount(); ++i) speed = std::max(speed, particleVelocity(*m, s, i).norm());
    }
    (correct ? endWith : endWithout) = s.rotation;
  }
  const double scale = angularScale(*m, speed);
  std::printf("|L| at worst over 1000 steps: %.3g with omega', %.3g without (scale M x size x max speed = %.3g); final "
              "orientations differ by %.3g rad\n",
              worstWith, worstWithout, scale, endWith.angularDistance(endWithout));
  EXPECT_LT(worstWith, 1e-10 * scale);
  EXPECT_GT(worstWithout, 1e-5 * scale) << "without the correction the modes' motion carries angular momentum";
  EXPECT_GT(worstWithout, 1e6 * worstWith);
  test::Plot plotL{"Fig. 3: a free cube with a random reduced displacement (10 modes, no damping)", "time s",
                   "total angular momentum |L|, kg m^2/s", {Lwith, Lwithout}, {}, true};
  EXPECT_TRUE(test::writePlotSvg(plotL, test::figurePath("sheth_fig3_momentum.svg")));
  test::Plot plotA{"Fig. 3: the frame turns against the modes' angular momentum (with omega')", "time s", "angle, rad", {Awith, Awithout}, {}, true};
  EXPECT_TRUE(test::writePlotSvg(plotA, test::figurePath("sheth_fig3_rotation.svg")));
}

TEST(ReducedBody, LinearAndAngularMomentumOfAFreeBodyStay) {
  const auto m = buildReducedBody(cube(0.5, 2), {}, 8, "cube");
  std::mt19937 rng(5);
  std::normal_distribution<double> n(0, 1);
  ReducedBodyState s = restState(*m);
  for (int k = 0; k < 8; ++k) s.q[k] = 0.02 * n(rng), s.qDot[k] = 0.5 * n(rng);
  s.v = Vec3(n(rng), n(rng), n(rng));
  s.L = Vec3(n(rng), n(rng), n(rng)) * 10;
  updateAngularVelocity(*m, s);
  const Vec3 p0 = particleLinearMomentum(*m, s), L0 = particleAngularMomentum(*m, s);
  EXPECT_LT((p0 - m->totalMass * s.v).norm(), 1e-12 * p0.norm()) << "the modes carry no linear momentum";
  double dp = 0, dL = 0;
  for (int k = 0; k < 600; ++k) {
    stepBody(*m, s, free());
    dp = std::max(dp, (particleLinearMomentum(*m, s) - p0).norm());
    dL = std::max(dL, (particleAngularMomentum(*m, s) - L0).norm());
  }
  std::printf("over 600 steps: linear momentum off by %.3g of %.3g, angular (about the origin) by %.3g of %.3g\n", dp,
              p0.norm(), dL, L0.norm());
  EXPECT_LT(dp, 1e-12 * p0.norm());
  EXPECT_LT(dL, 1e-10 * L0.norm());
}

TEST(ReducedBody, AnImpulseGivesExactlyTheVelocityChangeAskedFor) {
  const auto m = buildReducedBody(cube(0.6, 3), {}, 10, "cube");
  std::mt19937 rng(9);
  std::normal_distribution<double> n(0, 1);
  ReducedBodyState s = restState(*m);
  for (int k = 0; k < 10; ++k) s.q[k] = 0.03 * n(rng), s.qDot[k] = n(rng);
  s.rotation = Quat(Eigen::AngleAxisd(1.1, Vec3(1, -2, 0.5).normalized()));
  s.v = Vec3(0.3, -0.2, 0.1);
  s.L = Vec3(5, -3, 2);
  updateAngularVelocity(*m, s);
  for (size_t k : {size_t(0), size_t(13), m->particleCount() - 1}) {
    const Vec3 want(0.7 * n(rng), 0.7 * n(rng), 0.7 * n(rng));
    const Mat3 K = impulseFactor(*m, s, k);
    const Vec3 j = K.partialPivLu().solve(want);  // K is not symmetric (the omega' term)
    const Vec3 before = particleVelocity(*m, s, k);
    const Vec3 p0 = particleLinearMomentum(*m, s), L0 = particleAngularMomentum(*m, s);
    const Vec3 at = particlePosition(*m, s, k);
    // The prediction the joints use: exactly where the impulse and a step move it.
    const Vec3 predicted = particleAfterImpulse(*m, s, k, j, at, free().dt);
    ReducedBodyState moved = s;
    applyImpulse(*m, moved, k, j);
    advancePositions(*m, moved, free());
    EXPECT_LT((predicted - particlePosition(*m, moved, k)).norm(), 1e-12) << "particle " << k;
    applyImpulse(*m, s, k, j);
    const Vec3 got = particleVelocity(*m, s, k) - before;
    EXPECT_LT((got - want).norm(), 1e-10 * want.norm()) << "particle " << k;
    // And it changed the momenta by exactly j and at x j.
    EXPECT_LT((particleLinearMomentum(*m, s) - p0 - j).norm(), 1e-10 * j.norm());
    EXPECT_LT((particleAngularMomentum(*m, s) - L0 - at.cross(j)).norm(), 1e-9 * (L0.norm() + at.cross(j).norm()));
  }
}

TEST(ReducedBody, WithoutModesItIsARigidBody) {
  const auto m = buildReducedBody(cube(0.8, 2), {}, 0, "brick");
  ReducedBodyState s = restState(*m);
  s.L = Vec3(2.0, 0.5, -1.0);
  s.v = Vec3(0.1, 0.2, 0.3);
  updateAngularVelocity(*m, s);
  // A rigid-body integrator of the same scheme: omega = I^-1 L, Q <- exp(h omega) Q.
  const Mat3 I0 = [&] {
    Mat3 I = Mat3::Zero();
    for (size_t i = 0; i < m->particleCount(); ++i)
      I += m->mass[i] * (m->x0[i].squaredNorm() * Mat3::Identity() - m->x0[i] * m->x0[i].transpose());
    return I;
  }();
  Quat q = Quat::Identity();
  Vec3 t = m->restCenter;
  const StepSettings set = free();
  double worst = 0;
  for (int k = 0; k < 1000; ++k) {
    stepBody(*m, s, set);
    const Mat3 R = q.toRotationMatrix();
    const Vec3 w = (R * I0 * R.transpose()).ldlt().solve(s.L);
    const double a = (set.dt * w).norm();
    q = (Quat(Eigen::AngleAxisd(a, w.normalized())) * q).normalized();
    t += set.dt * s.v;
    for (size_t i = 0; i < m->particleCount(); ++i)
      worst = std::max(worst, (particlePosition(*m, s, i) - (q * m->x0[i] + t)).norm());
  }
  std::printf("rigid body: largest particle deviation over 1000 steps %.3g m\n", worst);
  EXPECT_LT(worst, 1e-12);
}

TEST(ReducedBody, SparseModesMatchADenseSolve) {
  // 216 particles: Spectra's shift-invert Lanczos, against Eigen's dense
  // generalized solver on the same K and M.
  const TetMesh mesh = cube(1.0, 5);
  const Eigen::SparseMatrix<double> K = linearStiffness(mesh, 1e5, 0.3);
  std::vector<double> mass(mesh.nodeCount(), 0.0);
  for (size_t t = 0; t < mesh.tetCount(); ++t)
    for (int32_t i : mesh.tets[t]) mass[size_t(i)] += 1000 * tetVolume(mesh, t) / 4;
  const Modes sparse = lowestModes(K, mass, 16, "cube");
  Eigen::VectorXd md(Eigen::Index(3 * mass.size()));
  for (size_t i = 0; i < mass.size(); ++i) md.segment<3>(Eigen::Index(3 * i)).setConstant(mass[i]);
  const Eigen::MatrixXd Kd(K), Md(md.asDiagonal());
  const Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> dense(Kd, Md);
  ASSERT_EQ(sparse.eigenvalues.size(), 16);
  for (int k = 0; k < 6; ++k) EXPECT_LT(std::abs(sparse.eigenvalues[k]), 1e-6 * sparse.eigenvalues[15]) << "rigid mode " << k;
  for (int k = 6; k < 16; ++k) EXPECT_NEAR(sparse.eigenvalues[k], dense.eigenvalues()[k], 1e-8 * dense.eigenvalues()[k]) << k;
  // M-orthonormal.
  const Eigen::MatrixXd gram = sparse.vectors.transpose() * md.asDiagonal() * sparse.vectors;
  EXPECT_LT((gram - Eigen::MatrixXd::Identity(16, 16)).norm(), 1e-8);
}

TEST(ReducedBody, BadInputNamesTheBody) {
  auto message = [](const TetMesh& mesh, int modes) -> std::string {
    try {
      buildReducedBody(mesh, {}, modes, "fin");
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  TetMesh one;
  one.nodes = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1)};
  one.tets = {{0, 1, 2, 3}};
  EXPECT_NE(message(one, 10).find("too few for 10 modes"), std::string::npos) << message(one, 10);
  TetMesh flat = one;
  flat.nodes[3] = Vec3(0.5, 0.5, 0);
  EXPECT_NE(message(flat, 0).find("tet 0 has no volume"), std::string::npos);
  TetMesh loose = one;
  loose.nodes.push_back(Vec3(3, 3, 3));
  EXPECT_NE(message(loose, 0).find("particle 4 is in no tet"), std::string::npos);
  TetMesh two = cube(0.5, 1);
  const size_t n = two.nodes.size();
  TetMesh other = cube(0.5, 1);
  for (Vec3& x : other.nodes) two.nodes.push_back(x + Vec3(2, 0, 0));
  for (Tet t : other.tets) {
    for (int32_t& i : t) i += int32_t(n);
    two.tets.push_back(t);
  }
  EXPECT_NE(message(two, 3).find("more than six rigid modes"), std::string::npos) << message(two, 3);
  EXPECT_EQ(message(one, 0), "") << "one tet without modes is a rigid body";
}

}  // namespace
}  // namespace sinew::sheth2015
