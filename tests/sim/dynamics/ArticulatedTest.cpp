// The reduced-coordinate skeleton solver on its own: conservation laws of a
// free-floating tree, stable (implicit) PD, joint limits, kinematic drive
// consistency, wrench semantics and determinism. Agreement with ODE is in
// OdeReferenceTest.cpp.
#include "dynamics/Articulated.h"

#include "DynamicsScenes.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <random>

namespace sinew {
namespace {

using dyn::ArticulatedModel;
using dyn::ArticulatedState;
using dyn::JointKind;
using dyn::LinkWrench;
using dyn::PdTargets;

constexpr double kStep = 5e-4;  // 0.5 ms, the solver's working step

Vec3 rotationVector(const Quat& q) {
  const Eigen::AngleAxisd aa(q);
  const double angle = aa.angle() > M_PI ? aa.angle() - 2 * M_PI : aa.angle();
  return angle * aa.axis();
}

// Positions advanced by t along the state's velocities, independently of the
// solver: root + t v, rotation * exp(t omega), hinge angle + t rate.
ArticulatedState advancePositions(const ArticulatedModel& m, ArticulatedState s, double t) {
  int o = 0;
  for (size_t i = 0; i < m.links.size(); ++i) {
    const dyn::Link& l = m.links[i];
    switch (l.kind) {
      case JointKind::Free: {
        s.rootPosition += t * s.velocity.segment<3>(o);
        const Vec3 w = s.velocity.segment<3>(o + 3);
        if (w.norm() > 0) s.rotation[i] = s.rotation[i] * Quat(Eigen::AngleAxisd(t * w.norm(), w.normalized()));
        break;
      }
      case JointKind::Ball: {
        const Vec3 w = s.velocity.segment<3>(o);
        if (w.norm() > 0) s.rotation[i] = s.rotation[i] * Quat(Eigen::AngleAxisd(t * w.norm(), w.normalized()));
        break;
      }
      case JointKind::Hinge: s.rotation[i] = s.rotation[i] * Quat(Eigen::AngleAxisd(t * s.velocity[o], l.hingeAxis)); break;
      case JointKind::Fixed: break;
    }
    o += m.jointDofs(int(i));
  }
  return s;
}

TEST(Articulated, DofLayoutAndModelCheck) {
  const ArticulatedModel m = test::floatingTree();
  EXPECT_EQ(m.dofCount(), 6 + 3 + 1 + 3 + 3 + 0);
  EXPECT_EQ(m.dofOffset(2), 9);
  EXPECT_EQ(m.jointDofs(5), 0);
  EXPECT_EQ(dyn::checkModel(m), "");
  ArticulatedModel bad = m;
  bad.links[3].kind = JointKind::Free;
  EXPECT_NE(dyn::checkModel(bad), "");
  bad = m;
  bad.links[2].parent = 4;
  EXPECT_NE(dyn::checkModel(bad), "");
  bad = m;
  bad.links[2].hingeAxis = Vec3(1, 1, 0);
  EXPECT_NE(dyn::checkModel(bad), "");
  bad = m;
  bad.links[2].inertia = {};  // a massless moving leaf: M would be singular
  EXPECT_NE(dyn::checkModel(bad), "");
  EXPECT_EQ(dyn::checkModel(test::pinnedChain(JointKind::Ball, 3, Vec3::Zero(), true)), "");
}

// The mass matrix is symmetric positive definite and gives the kinetic
// energy of the link velocities: 0.5 qdot^T M qdot.
TEST(Articulated, MassMatrixMatchesKineticEnergy) {
  const ArticulatedModel m = test::humanoidTree();
  std::mt19937 rng(7);
  for (int trial = 0; trial < 5; ++trial) {
    const ArticulatedState s = test::randomState(m, rng, 1.5, 2.0);
    const Eigen::MatrixXd M = dyn::massMatrix(m, s);
    EXPECT_LT((M - M.transpose()).norm(), 1e-12 * M.norm());
    EXPECT_EQ(Eigen::LLT<Eigen::MatrixXd>(M).info(), Eigen::Success);
    const double e = dyn::kineticEnergy(m, s);
    EXPECT_NEAR(0.5 * s.velocity.dot(M * s.velocity), e, 1e-11 * e);
  }
}

// Link velocities from forwardKinematics are the time derivatives of the link
// poses (central differences along the state's own velocities).
TEST(Articulated, ForwardKinematicsVelocitiesAreDerivativesOfPoses) {
  const ArticulatedModel m = test::floatingTree();
  std::mt19937 rng(3);
  const ArticulatedState s = test::randomState(m, rng, 2.0, 3.0);
  const double eps = 1e-6;
  const dyn::LinkKinematics k = dyn::forwardKinematics(m, s);
  const dyn::LinkKinematics kp = dyn::forwardKinematics(m, advancePositions(m, s, eps));
  const dyn::LinkKinematics km = dyn::forwardKinematics(m, advancePositions(m, s, -eps));
  double worst = 0;
  for (size_t i = 0; i < m.links.size(); ++i) {
    const Vec3 linear = (kp.pose[i].translation - km.pose[i].translation) / (2 * eps);
    const Vec3 angular = rotationVector(kp.pose[i].rotation * km.pose[i].rotation.conjugate()) / (2 * eps);
    worst = std::max({worst, (linear - k.linear[i]).norm(), (angular - k.angular[i]).norm()});
    EXPECT_LT((linear - k.linear[i]).norm(), 1e-6 * (1 + k.linear[i].norm())) << m.links[i].name;
    EXPECT_LT((angular - k.angular[i]).norm(), 1e-6 * (1 + k.angular[i].norm())) << m.links[i].name;
  }
  std::printf("[ info ] FK velocity vs pose derivative: worst difference %.2e\n", worst);
}

// setPoseKinematic puts the state on the new pose with the velocities that
// carry the old pose to it in one step; the link velocities then match the
// finite differences of the link poses.
TEST(Articulated, SetPoseKinematicVelocitiesMatchFiniteDifferences) {
  const ArticulatedModel m = test::floatingTree();
  std::mt19937 rng(11);
  const ArticulatedState a = test::randomState(m, rng, 2.0, 0.0);
  const ArticulatedState b = test::randomState(m, rng, 2.0, 0.0);
  const double h = 1e-3;
  // Pose c: close to a (a small motion over h).
  ArticulatedState c = a;
  for (size_t i = 0; i < m.links.size(); ++i) {
    if (m.links[i].kind == JointKind::Ball || m.links[i].kind == JointKind::Free)
      c.rotation[i] = a.rotation[i] * Quat(Eigen::AngleAxisd(0.002 * double(i + 1), Vec3(1, 2, 3).normalized()));
    if (m.links[i].kind == JointKind::Hinge)
      c.rotation[i] = a.rotation[i] * Quat(Eigen::AngleAxisd(-0.003, m.links[i].hingeAxis));
  }
  c.rootPosition = a.rootPosition + Vec3(0.001, -0.002, 0.0015);

  for (const ArticulatedState* target : {&b, static_cast<const ArticulatedState*>(&c)}) {
    ArticulatedState s = a;
    dyn::setPoseKinematic(m, s, target->rootPosition, target->rotation, h);
    EXPECT_LT((s.rootPosition - target->rootPosition).norm(), 1e-15);
    for (size_t i = 0; i < m.links.size(); ++i) EXPECT_LT(s.rotation[i].angularDistance(target->rotation[i]), 1e-12);
    // The velocities carry a to the target over h.
    ArticulatedState moved = a;
    moved.velocity = s.velocity;
    moved = advancePositions(m, moved, h);
    EXPECT_LT((moved.rootPosition - target->rootPosition).norm(), 1e-12);
    for (size_t i = 0; i < m.links.size(); ++i)
      EXPECT_LT(moved.rotation[i].angularDistance(target->rotation[i]), 1e-10) << m.links[i].name;
  }

  // For the small motion, link velocities ~ finite differences of link poses (first order in h).
  ArticulatedState s = a;
  dyn::setPoseKinematic(m, s, c.rootPosition, c.rotation, h);
  const dyn::LinkKinematics k0 = dyn::forwardKinematics(m, a), k1 = dyn::forwardKinematics(m, s);
  for (size_t i = 0; i < m.links.size(); ++i) {
    const Vec3 linear = (k1.pose[i].translation - k0.pose[i].translation) / h;
    const Vec3 angular = rotationVector(k1.pose[i].rotation * k0.pose[i].rotation.conjugate()) / h;
    EXPECT_LT((linear - k1.linear[i]).norm(), 0.02 * (1 + linear.norm())) << m.links[i].name;
    EXPECT_LT((angular - k1.angular[i]).norm(), 0.02 * (1 + angular.norm())) << m.links[i].name;
  }
}

// No gravity, no servos, no wrenches: the free-floating tree conserves linear
// momentum to round-off, angular momentum about the centre of mass to a small
// drift (semi-implicit Euler), and its energy does not grow.
TEST(Articulated, FreeFloatingTreeConservesMomentum) {
  const ArticulatedModel m = test::floatingTree();
  std::mt19937 rng(2024);
  ArticulatedState s = test::randomState(m, rng, 0.8, 2.0);
  const Vec3 p0 = dyn::linearMomentum(m, s);
  const Vec3 l0 = dyn::angularMomentum(m, s, dyn::centerOfMass(m, s));
  const double e0 = dyn::kineticEnergy(m, s);
  ASSERT_GT(p0.norm(), 0.5);
  ASSERT_GT(l0.norm(), 0.5);
  double dp = 0, dl = 0, eMax = e0, eMin = e0;
  const int steps = 4000;  // 2 s
  for (int n = 0; n < steps; ++n) {
    ASSERT_TRUE(dyn::step(m, s, {}, {}, kStep));
    const Vec3 com = dyn::centerOfMass(m, s);
    dp = std::max(dp, (dyn::linearMomentum(m, s) - p0).norm() / p0.norm());
    dl = std::max(dl, (dyn::angularMomentum(m, s, com) - l0).norm() / l0.norm());
    const double e = dyn::kineticEnergy(m, s);
    eMax = std::max(eMax, e);
    eMin = std::min(eMin, e);
  }
  std::printf("[ info ] free tree, 2 s at 0.5 ms: |dP|/|P| %.2e, |dL|/|L| %.2e, energy %+.2e / %+.2e (max/min rel)\n",
              dp, dl, eMax / e0 - 1, eMin / e0 - 1);
  EXPECT_LT(dp, 1e-10);
  EXPECT_LT(dl, 2e-3);
  EXPECT_LT(eMax / e0 - 1, 2e-3);  // energy oscillates slightly but does not grow
  // The centre of mass moves in a straight line at P / m.
  EXPECT_GT(s.velocity.norm(), 0.1);
}

// Under gravity the centre of mass of a free tree falls exactly as a point
// mass under semi-implicit Euler, whatever the joints do.
TEST(Articulated, FreeFallOfCentreOfMass) {
  ArticulatedModel m = test::floatingTree();
  m.gravity = Vec3(0, -9.81, 0);
  std::mt19937 rng(5);
  ArticulatedState s = test::randomState(m, rng, 0.8, 2.0);
  const double mass = dyn::totalMass(m);
  Vec3 x = dyn::centerOfMass(m, s), v = dyn::linearMomentum(m, s) / mass;
  for (int n = 0; n < 2000; ++n) {
    ASSERT_TRUE(dyn::step(m, s, {}, {}, kStep));
    v += kStep * m.gravity;
    x += kStep * v;
  }
  EXPECT_LT((dyn::centerOfMass(m, s) - x).norm(), 1e-11);
  EXPECT_LT((dyn::linearMomentum(m, s) / mass - v).norm(), 1e-11);
}

// Wrenches: world force and world torque about the link origin. Their effect
// on the momenta over one short step is F and T + (x_link - a) x F.
TEST(Articulated, WrenchesChangeMomentaAsNewtonSays) {
  const ArticulatedModel m = test::floatingTree();
  std::mt19937 rng(9);
  ArticulatedState s = test::randomState(m, rng, 0.8, 0.0);  // at rest: no gyroscopic change
  std::vector<LinkWrench> w(m.links.size());
  w[2] = {Vec3(3, -1, 2), Vec3(0.5, 0.2, -0.4)};
  w[4] = {Vec3(-1, 4, 0.5), Vec3(-0.3, 0.0, 0.7)};
  const Vec3 a(0.3, -0.2, 0.5);  // any fixed point
  const dyn::LinkKinematics k = dyn::forwardKinematics(m, s);
  Vec3 force = Vec3::Zero(), torque = Vec3::Zero();
  for (size_t i = 0; i < w.size(); ++i) {
    force += w[i].force;
    torque += w[i].torque + (k.pose[i].translation - a).cross(w[i].force);
  }
  const double h = 1e-6;
  const Vec3 l0 = dyn::angularMomentum(m, s, a);
  ASSERT_TRUE(dyn::step(m, s, {}, w, h));
  EXPECT_LT((dyn::linearMomentum(m, s) / h - force).norm(), 1e-6 * force.norm());
  EXPECT_LT(((dyn::angularMomentum(m, s, a) - l0) / h - torque).norm(), 1e-4 * torque.norm());
}

// A passive pendulum chain under gravity keeps its total energy to within a
// small oscillation (no growth, little loss) over 2 s.
TEST(Articulated, PassiveChainEnergyIsBounded) {
  const ArticulatedModel m = test::pinnedChain(JointKind::Ball, 3);
  ArticulatedState s = dyn::restState(m);
  s.rotation[0] = Quat(Eigen::AngleAxisd(0.5, Vec3::UnitZ()));
  s.rotation[1] = Quat(Eigen::AngleAxisd(0.4, Vec3::UnitX()));
  auto energy = [&] { return dyn::kineticEnergy(m, s) + dyn::potentialEnergy(m, s); };
  const double e0 = energy(), scale = 3 * 9.81 * 0.9;  // ~ the chain's weight times its length
  double worst = 0;
  for (int n = 0; n < 4000; ++n) {
    ASSERT_TRUE(dyn::step(m, s, {}, {}, kStep));
    worst = std::max(worst, std::abs(energy() - e0));
  }
  std::printf("[ info ] ball chain energy error over 2 s: %.2e J (%.2e of m g L)\n", worst, worst / scale);
  EXPECT_LT(worst, 2e-3 * scale);
}

// A Fixed root welded at the anchor with the chain below gives the same motion
// as the chain whose root joint is the pin itself.
TEST(Articulated, FixedRootMatchesPinnedRoot) {
  const ArticulatedModel pinned = test::pinnedChain(JointKind::Hinge, 3);
  const ArticulatedModel welded = test::pinnedChain(JointKind::Hinge, 3, Vec3::Zero(), true);
  ArticulatedState a = dyn::restState(pinned), b = dyn::restState(welded);
  a.rotation[0] = b.rotation[1] = Quat(Eigen::AngleAxisd(0.5, Vec3::UnitZ()));
  for (int n = 0; n < 2000; ++n) {
    ASSERT_TRUE(dyn::step(pinned, a, {}, {}, kStep));
    ASSERT_TRUE(dyn::step(welded, b, {}, {}, kStep));
  }
  EXPECT_LT((a.velocity - b.velocity).norm(), 1e-9);
  for (int i = 0; i < 3; ++i) EXPECT_LT(a.rotation[size_t(i)].angularDistance(b.rotation[size_t(i + 1)]), 1e-10);
}

// Stable PD: damping so strong that explicit integration would diverge
// (kd h / I = 100, explicit needs < 2) stays bounded with the implicit
// damping, does not overshoot, and reaches the target.
TEST(Articulated, ImplicitDampingIsStableAtHugeGains) {
  for (JointKind kind : {JointKind::Hinge, JointKind::Ball}) {
    ArticulatedModel m = test::pinnedChain(kind, 1);
    m.gravity.setZero();
    const double inertia = dyn::massMatrix(m, dyn::restState(m))(0, 0);  // about the joint's first axis
    m.links[0].kd = 100 * inertia / kStep;
    m.links[0].kp = 2 * m.links[0].kd;  // time constant kd / kp = 0.5 s
    // The explicit update of this servo, v += h (-kd v) / I, multiplies v by 1 - 100 each step.
    EXPECT_GT(std::abs(1 - m.links[0].kd * kStep / inertia), 2.0);

    const Vec3 axis = kind == JointKind::Hinge ? Vec3::UnitZ() : Vec3(1, 0, 1).normalized();
    PdTargets targets;
    targets.rotation = {Quat(Eigen::AngleAxisd(0.6, axis))};
    ArticulatedState s = dyn::restState(m);
    double maxRate = 0, maxAngle = 0;
    for (int n = 0; n < 10000; ++n) {  // 5 s = 10 time constants
      ASSERT_TRUE(dyn::step(m, s, targets, {}, kStep));
      maxRate = std::max(maxRate, s.velocity.norm());
      maxAngle = std::max(maxAngle, Eigen::AngleAxisd(s.rotation[0]).angle());
    }
    const double error = s.rotation[0].angularDistance(targets.rotation[0]);
    std::printf("[ info ] stable PD (%s): final error %.2e rad, max rate %.3f rad/s, max angle %.4f\n",
                kind == JointKind::Hinge ? "hinge" : "ball", error, maxRate, maxAngle);
    EXPECT_LT(maxRate, 0.6 / 0.5 * 1.01);  // never faster than the first-order servo's initial rate
    EXPECT_LT(maxAngle, 0.6 + 1e-6);       // no overshoot
    EXPECT_LT(error, 1e-3);
  }
}

// With gravity and a PD servo only, a single link comes to rest where the
// servo torque balances gravity: kp (target - theta) = m g d sin(theta).
TEST(Articulated, PdEquilibriumBalancesGravity) {
  ArticulatedModel m = test::pinnedChain(JointKind::Hinge, 1);
  m.links[0].kp = 20;
  m.links[0].kd = 1;
  PdTargets targets;
  const double target = 1.0;
  targets.rotation = {Quat(Eigen::AngleAxisd(target, Vec3::UnitZ()))};
  ArticulatedState s = dyn::restState(m);
  for (int n = 0; n < 8000; ++n) ASSERT_TRUE(dyn::step(m, s, targets, {}, kStep));
  const double theta = dyn::hingeAngle(s.rotation[0], Vec3::UnitZ());
  const double residual = m.links[0].kp * (target - theta) - 1.0 * 9.81 * (test::kChainLength / 2) * std::sin(theta);
  EXPECT_LT(std::abs(residual), 1e-6);
  EXPECT_LT(theta, target - 0.05);  // gravity visibly pulls it down
}

// Joint limits hold: a horizontal link pushed down by gravity onto its lower
// limit (-0.5 rad) stops there, within a small penetration.
TEST(Articulated, LimitsHoldAgainstGravity) {
  for (JointKind kind : {JointKind::Hinge, JointKind::Ball}) {
    ArticulatedModel m;
    dyn::Link l;
    l.kind = kind;
    l.hingeAxis = Vec3::UnitZ();
    l.inertia = test::boxInertia(1.0, Vec3(0.3, 0.1, 0.08), Vec3(0.15, 0, 0));  // sticks out along +x
    l.lower = Vec3::Constant(-0.5);
    l.upper = Vec3::Constant(0.5);
    m.links.push_back(l);
    ArticulatedState s = dyn::restState(m);
    if (kind == JointKind::Ball) s.velocity = Vec3(0.5, 0.3, 0);  // some twist and tilt too
    double lowest = 0, maxOut = 0, last = 0;
    for (int n = 0; n < 6000; ++n) {
      ASSERT_TRUE(dyn::step(m, s, {}, {}, kStep));
      const Vec3 r = rotationVector(s.rotation[0]);
      last = kind == JointKind::Hinge ? dyn::hingeAngle(s.rotation[0], Vec3::UnitZ()) : r.z();
      lowest = std::min(lowest, last);
      maxOut = std::max(maxOut, (r.cwiseAbs().array() - 0.5).maxCoeff());
    }
    std::printf("[ info ] limit (%s): deepest %.4f rad, final %.4f rad (limit -0.5)\n",
                kind == JointKind::Hinge ? "hinge" : "ball", lowest, last);
    EXPECT_GT(lowest, -0.5 - 0.03);
    EXPECT_LT(maxOut, 0.03);
    EXPECT_NEAR(last, -0.5, 0.01);  // resting on the limit
  }
}

// The limit spring is implicit too, so it stays stable at steps where an
// explicit one (natural frequency sqrt(limitStiffness) = 141 rad/s) would
// diverge: h = 20 ms gives omega h = 2.8 > 2. No limit damping here, so that
// only the spring's treatment is tested.
TEST(Articulated, LimitsStableAtLargeSteps) {
  ArticulatedModel m;
  m.limitDamping = 0;
  dyn::Link l;
  l.kind = JointKind::Hinge;
  l.hingeAxis = Vec3::UnitZ();
  l.inertia = test::boxInertia(1.0, Vec3(0.3, 0.1, 0.08), Vec3(0.15, 0, 0));
  l.lower = Vec3::Constant(-0.5);
  l.upper = Vec3::Constant(0.5);
  m.links.push_back(l);
  ArticulatedState s = dyn::restState(m);
  const double h = 0.02;
  double lowest = 0;
  for (int n = 0; n < 200; ++n) {
    ASSERT_TRUE(dyn::step(m, s, {}, {}, h));
    lowest = std::min(lowest, dyn::hingeAngle(s.rotation[0], Vec3::UnitZ()));
  }
  EXPECT_GT(lowest, -0.5 - 0.1);
  EXPECT_NEAR(dyn::hingeAngle(s.rotation[0], Vec3::UnitZ()), -0.5, 0.01);
  EXPECT_LT(std::abs(s.velocity[0]), 1e-3);
}

// A limit between a light free parent and a heavy child (a bob on a stick):
// it holds, stays stable, and does not add energy.
TEST(Articulated, LimitStableBetweenLightParentAndHeavyChild) {
  ArticulatedModel m;
  dyn::Link root;
  root.kind = JointKind::Free;
  root.inertia = test::boxInertia(0.05, Vec3(0.05, 0.05, 0.05), Vec3::Zero());
  dyn::Link child;
  child.parent = 0;
  child.kind = JointKind::Ball;
  child.inertia = test::boxInertia(5.0, Vec3(0.03, 0.03, 0.03), Vec3(0, -0.4, 0));  // a bob on a stick
  child.lower = Vec3::Constant(-0.3);
  child.upper = Vec3::Constant(0.3);
  m.links = {root, child};
  m.gravity.setZero();
  ArticulatedState s = dyn::restState(m);
  s.velocity.tail<3>() = Vec3(4, 1, 6);  // the child spins into its limits
  const double e0 = dyn::kineticEnergy(m, s);
  double worst = 0, eMax = 0;
  for (int n = 0; n < 4000; ++n) {
    ASSERT_TRUE(dyn::step(m, s, {}, {}, kStep));
    worst = std::max(worst, (rotationVector(s.rotation[1]).cwiseAbs().array() - 0.3).maxCoeff());
    eMax = std::max(eMax, dyn::kineticEnergy(m, s));
  }
  std::printf("[ info ] light parent / heavy child limit: deepest %.4f rad beyond, energy max %.3f of initial\n",
              worst, eMax / e0);
  EXPECT_LT(worst, 0.03);
  EXPECT_LT(eMax, e0 * (1 + 1e-3));  // semi-implicit Euler of the free spin itself wobbles ~1e-4
}

// Two identical runs give bit-identical states.
TEST(Articulated, Deterministic) {
  ArticulatedModel m = test::humanoidTree();
  m.gravity = Vec3(0, -9.81, 0);
  std::mt19937 rng(1);
  const ArticulatedState start = test::randomState(m, rng, 0.5, 1.0);
  PdTargets targets;
  for (size_t i = 0; i < m.links.size(); ++i) targets.rotation.push_back(test::randomRotation(rng, 0.4));
  std::vector<LinkWrench> w(m.links.size());
  w[3].force = Vec3(10, 20, -5);
  w[8].torque = Vec3(1, -2, 0.5);
  auto run = [&] {
    ArticulatedState s = start;
    for (int n = 0; n < 1000; ++n) EXPECT_TRUE(dyn::step(m, s, targets, w, kStep));
    return s;
  };
  const ArticulatedState a = run(), b = run();
  EXPECT_TRUE(a.rootPosition == b.rootPosition);
  EXPECT_TRUE(a.velocity == b.velocity);
  for (size_t i = 0; i < a.rotation.size(); ++i) EXPECT_TRUE(a.rotation[i].coeffs() == b.rotation[i].coeffs());
  EXPECT_GT((a.velocity - start.velocity).norm(), 1e-3);  // it did move
}

// Cost of one step of a 22-link humanoid-like tree (printed, not checked):
// the best of 10 batches, as the machine may be shared.
TEST(Articulated, HumanoidStepTiming) {
  ArticulatedModel m = test::humanoidTree();
  m.gravity = Vec3(0, -9.81, 0);
  ArticulatedState s = dyn::restState(m);
  double best = 1e30;
  for (int batch = 0; batch < 10; ++batch) {
    const int steps = 200;
    const auto t0 = std::chrono::steady_clock::now();
    for (int n = 0; n < steps; ++n) ASSERT_TRUE(dyn::step(m, s, {}, {}, kStep));
    best = std::min(best, std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / steps);
  }
  std::printf("[ info ] humanoid tree (%zu links, %d dofs): %.1f us per step\n", m.links.size(), m.dofCount(), best);
  EXPECT_TRUE(s.velocity.allFinite());
}

}  // namespace
}  // namespace sinew
