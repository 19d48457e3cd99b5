// Reduced bodies in a scene (Sheth et al. 2015, Sections 5 and 7): two
// bodies colliding conserve their total momenta; an articulated chain keeps
// its joints together while it swings; a body lands on the ground and stays.
#include "sheth2015/World.h"

#include "core/Error.h"
#include "model/Collider.h"
#include "examples/Bars.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

namespace sinew::sheth2015 {
namespace {

TetMesh box(const Vec3& size, int cx, int cy, int cz, const Vec3& centre) {
  examples::GridBox g;
  g.size = size;
  g.cellsX = cx, g.cellsY = cy, g.cellsZ = cz;
  TetMesh m = examples::gridBox(g);
  for (Vec3& x : m.nodes) x += centre;
  return m;
}

int32_t nearest(const ReducedBodyModel& m, const ReducedBodyState& s, const Vec3& p) {
  int32_t best = 0;
  for (size_t i = 0; i < m.particleCount(); ++i)
    if ((particlePosition(m, s, i) - p).norm() < (particlePosition(m, s, size_t(best)) - p).norm()) best = int32_t(i);
  return best;
}

TEST(ReducedWorld, TwoBodiesCollidingKeepTheirTotalMomenta) {
  for (double mu : {0.0, 0.5}) {
    WorldSettings set;
    set.step.gravity = Vec3::Zero();
    set.ground = false;
    set.surfaceFriction = mu;
    World world(set);
    BodyMaterial mat;
    mat.youngsModulus = 5e4;
    for (int side : {-1, 1}) {
      WorldBody b;
      b.model = buildReducedBody(box(Vec3(0.3, 0.3, 0.3), 3, 3, 3, Vec3(0.25 * side, 0.04 * side, 0.0)), mat, 10,
                                 side < 0 ? "left" : "right");
      b.state = restState(*b.model);
      b.state.v = Vec3(-1.5 * side, 0, 0.2 * side);
      b.state.L = Vec3(0.3, -0.2 * side, 0.5);
      b.proxyRadius = 0.03;
      world.addBody(b);
    }
    const Vec3 p0 = world.linearMomentum(), L0 = world.angularMomentum();
    int contacts = 0;
    for (int k = 0; k < 40; ++k) contacts += world.step().activeContacts;
    const Vec3 p1 = world.linearMomentum(), L1 = world.angularMomentum();
    const double scale = world.bodies()[0].model->totalMass * 1.5;
    std::printf("friction %.1f: %d contacts pushed; momentum change: linear %.3g, angular %.3g (scale %.3g); left body now %.2f m/s\n",
                mu, contacts, (p1 - p0).norm(), (L1 - L0).norm(), scale, world.bodies()[0].state.v.x());
    EXPECT_GT(contacts, 0);
    EXPECT_LT(world.bodies()[0].state.v.x(), 1.0) << "the left body was slowed by the collision";
    EXPECT_LT((p1 - p0).norm(), 1e-9 * scale);
    if (mu == 0)
      EXPECT_LT((L1 - L0).norm(), 1e-9 * scale);
    else  // the couple of friction across the proxies' gap (World.h)
      EXPECT_LT((L1 - L0).norm(), 0.05 * scale);
  }
}

TEST(ReducedWorld, AnArticulatedChainKeepsItsJointsTogether) {
  // Four bars along x, each overlapping the next by one cell; the first is
  // held (kinematic), the third is rigid (no modes), the others reduced: the
  // three kinds in one scene. A point joint (a ball joint) joins each pair
  // at a corner of the overlap.
  World world;
  world.settings().ground = false;
  BodyMaterial mat;
  mat.youngsModulus = 2e5;
  for (int k = 0; k < 4; ++k) {
    WorldBody b;
    b.model = buildReducedBody(box(Vec3(0.3, 0.06, 0.06), 5, 1, 1, Vec3(0.15 + 0.24 * k, 1.0, 0.0)), mat, k == 0 || k == 2 ? 0 : 6,
                               "bar " + std::to_string(k));
    b.state = restState(*b.model);
    b.kinematic = k == 0;
    world.addBody(b);
  }
  for (int k = 0; k + 1 < 4; ++k) {
    const WorldBody &a = world.bodies()[size_t(k)], &b = world.bodies()[size_t(k + 1)];
    const double x = 0.24 * (k + 1);
    const Vec3 corner(x, 1.03, 0.03);
    world.addJoint({k, nearest(*a.model, a.state, corner), k + 1, nearest(*b.model, b.state, corner)});
  }
  double worst = 0, lowest = 1.0;
  for (int s = 0; s < 120; ++s) {
    worst = std::max(worst, world.step().worstJointGap);
    lowest = std::min(lowest, world.bodies()[3].state.t.y());
  }
  std::printf("chain of reduced, rigid and reduced bars on a held one: worst joint gap %.3g m over 2 s; the last bar's centre fell to %.3f m\n",
              worst, lowest);
  EXPECT_LT(lowest, 0.8) << "it swings down under gravity";
  EXPECT_LT(worst, 1e-3) << "joints stay within a millimetre (bars 0.3 m; measured 0.18 mm)";
  EXPECT_THROW(world.addJoint({0, 0, 0, 1}), InputError);
  EXPECT_THROW(world.addJoint({0, 0, 9, 1}), InputError);
}

TEST(ReducedWorld, ABodyLandsOnTheGroundAndComesToRest) {
  for (int modes : {0, 8}) {
    World world;
    WorldBody b;
    b.model = buildReducedBody(box(Vec3(0.3, 0.2, 0.3), 3, 2, 3, Vec3(0, 0.5, 0)), {}, modes, "block");
    b.state = restState(*b.model);
    b.state.L = Vec3(0.2, 0.1, 0.3);
    b.proxyRadius = 0.0;
    world.addBody(b);
    double lowest = 1;
    for (int s = 0; s < 300; ++s) {
      world.step();
      const WorldBody& body = world.bodies()[0];
      for (size_t i = 0; i < body.model->particleCount(); ++i)
        lowest = std::min(lowest, particlePosition(*body.model, body.state, i).y());
    }
    const WorldBody& body = world.bodies()[0];
    std::printf("%d modes: lowest particle %.4f m at worst, centre at %.4f m, speed %.3g m/s, spin %.3g rad/s after 5 s\n",
                modes, lowest, body.state.t.y(), body.state.v.norm(), body.state.omegaR.norm());
    EXPECT_GT(lowest, -0.02) << "no particle sinks more than 2 cm";
    EXPECT_NEAR(body.state.t.y(), 0.1, 0.002) << "it lies on a face (half height 0.1 m)";
    // At rest: the accumulated contact impulses (velocity-space clamping,
    // Section 5.2's cone on the resulting velocity) settle instead of
    // rocking the block on its edges.
    EXPECT_LT(body.state.v.norm(), 1e-3);
    EXPECT_LT(body.state.omegaR.norm(), 1e-2);
  }
}

TEST(ReducedWorld, StiffImpulsesLetAStiffBodyHitHardDeformOnlyAsItsStiffnessAllows) {
  // A stiff bar (E = 10 MPa) hitting the ground end first at 5 m/s: with
  // impulses reaching the modes through the implicit step's matrix it
  // deforms far less than through the modal mass alone (eq. 29 as printed);
  // both keep it whole.
  double peak[2] = {0, 0};
  for (int stiff : {0, 1}) {
    WorldSettings set;
    set.stiffImpulses = stiff != 0;
    World world(set);
    BodyMaterial mat;
    mat.youngsModulus = 1e7;
    WorldBody b;
    b.model = buildReducedBody(box(Vec3(0.6, 0.06, 0.06), 10, 1, 1, Vec3(0, 0.2, 0)), mat, 8, "stiff bar");
    b.state = restState(*b.model);
    b.state.rotation = Quat(Eigen::AngleAxisd(0.4, Vec3::UnitZ()));  // one end hits first
    b.state.v = Vec3(0, -5, 0);
    b.proxyRadius = 0;
    world.addBody(b);
    for (int s = 0; s < 30; ++s) {
      world.step();
      const WorldBody& body = world.bodies()[0];
      peak[stiff] = std::max(peak[stiff], body.state.q.norm() / std::sqrt(body.model->totalMass));
    }
  }
  std::printf("stiff bar hitting the ground at 5 m/s: peak modal displacement %.4f m (eq. 29), %.4f m (stiff impulses)\n",
              peak[0], peak[1]);
  EXPECT_LT(peak[1], 0.5 * peak[0]);
}

TEST(ReducedWorld, OneKineticContactObeysTheChosenFrictionCone) {
  // A rigid block with one proxy particle (a bottom corner) arriving at the
  // ground fast sideways, no gravity: one contact, kinetic friction. The
  // impulse it takes is M dv (rigid body). Section 5.2: the default cone
  // bounds the impulse, |j_t| = mu j.n; the paper's modified check bounds the
  // resulting velocity change, |(K j)_t| = mu (K j).n.
  for (FrictionCone cone : {FrictionCone::Impulse, FrictionCone::ResultingVelocity}) {
    WorldSettings set;
    set.step.gravity = Vec3::Zero();
    set.cone = cone;
    set.friction = 0.3;
    set.sweeps = 1;
    World world(set);
    WorldBody b;
    b.model = buildReducedBody(box(Vec3(0.2, 0.1, 0.2), 2, 1, 2, Vec3(0, 0.05 + 0.005, 0)), {}, 0, "block");
    b.state = restState(*b.model);
    b.state.v = Vec3(2.0, -1.0, 0.5);
    b.proxyRadius = 0;
    const Vec3 corner = b.state.t + Vec3(-0.1, -0.05, -0.1);
    for (size_t i = 0; i < b.model->particleCount(); ++i)
      if ((particlePosition(*b.model, b.state, i) - corner).norm() < 1e-9) b.proxy = {int32_t(i)};
    ASSERT_EQ(b.proxy.size(), 1u);
    world.addBody(b);
    const ReducedBodyState before = world.bodies()[0].state;
    const Mat3 K = impulseFactor(*b.model, before, size_t(b.proxy[0]));
    world.step();
    const Vec3 j = b.model->totalMass * (world.bodies()[0].state.v - before.v);
    const Vec3 dv = K * j, n = Vec3::UnitY();
    const Vec3 jt = j - j.dot(n) * n, dvt = dv - dv.dot(n) * n;
    std::printf("%s cone: |j_t| / j.n = %.6f, |(Kj)_t| / (Kj).n = %.6f (mu 0.3)\n",
                cone == FrictionCone::Impulse ? "impulse" : "velocity", jt.norm() / j.dot(n), dvt.norm() / dv.dot(n));
    ASSERT_GT(j.dot(n), 0);
    if (cone == FrictionCone::Impulse)
      EXPECT_NEAR(jt.norm() / j.dot(n), 0.3, 1e-9);
    else
      EXPECT_NEAR(dvt.norm() / dv.dot(n), 0.3, 1e-9);
  }
}

TEST(ReducedWorld, ABlockOnASlopeSticksOrSlidesByItsFrictionCoefficient) {
  // A box collider tilted 20 degrees: tan 20 = 0.36. With mu = 0.6 the block
  // stays; with mu = 0.2 it slides down.
  for (double mu : {0.6, 0.2}) {
    WorldSettings set;
    set.ground = false;
    Collider slope;
    slope.name = "slope";
    slope.shape = ColliderShape::Box;
    slope.size = Vec3(2, 0.1, 2);
    slope.rotationDegrees = Vec3(0, 0, 20);
    slope.friction = mu;
    set.colliders = {slope};
    World world(set);
    WorldBody b;
    b.model = buildReducedBody(box(Vec3(0.2, 0.1, 0.2), 2, 1, 2, Vec3::Zero()), {}, 4, "block");
    b.state = restState(*b.model);
    const Quat tilt(Eigen::AngleAxisd(20 * 3.14159265358979 / 180, Vec3::UnitZ()));
    b.state.rotation = tilt;
    b.state.t = tilt * Vec3(0, 0.1 + 0.05 + 0.001, 0);
    b.proxyRadius = 0;
    world.addBody(b);
    const Vec3 start = world.bodies()[0].state.t;
    for (int s = 0; s < 60; ++s) world.step();
    const double moved = (world.bodies()[0].state.t - start).norm();
    const double angle = 20 * 3.14159265358979 / 180, slide = 9.81 * (std::sin(angle) - mu * std::cos(angle)) * 61.0 / 120;  // sum of h^2 a k, k = 1..60
    std::printf("mu %.1f on a 20 degree slope: moved %.4f m in 1 s (Coulomb, symplectic Euler: %.4f m)\n", mu, moved, std::max(0.0, slide));
    if (mu > 0.36)
      EXPECT_LT(moved, 0.01);
    else
      EXPECT_NEAR(moved, slide, 0.05 * slide);
  }
}

}  // namespace
}  // namespace sinew::sheth2015
