// Reduced bodies in a scene (Sheth et al. 2015, Sections 5 and 7): two
// bodies colliding conserve their total momenta; an articulated chain keeps
// its joints together while it swings; a body lands on the ground and stays.
#include "sheth2015/World.h"

#include "core/Error.h"
#include "examples/Bars.h"

#include <gtest/gtest.h>

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
  WorldSettings set;
  set.step.gravity = Vec3::Zero();
  set.ground = false;
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
  for (int k = 0; k < 40; ++k) contacts += world.step().contacts;
  const Vec3 p1 = world.linearMomentum(), L1 = world.angularMomentum();
  const double scale = world.bodies()[0].model->totalMass * 1.5;
  std::printf("%d contact impulses; momentum change: linear %.3g, angular %.3g (scale %.3g); left body now %.2f m/s\n",
              contacts, (p1 - p0).norm(), (L1 - L0).norm(), scale, world.bodies()[0].state.v.x());
  EXPECT_GT(contacts, 0);
  EXPECT_LT(world.bodies()[0].state.v.x(), 1.0) << "the left body was slowed by the collision";
  EXPECT_LT((p1 - p0).norm(), 1e-9 * scale);
  EXPECT_LT((L1 - L0).norm(), 1e-9 * scale);
}

TEST(ReducedWorld, AnArticulatedChainKeepsItsJointsTogether) {
  // Four bars along x, each overlapping the next by one cell; the first is
  // held (kinematic), a point joint (a ball joint) joins each pair at a
  // corner of the overlap.
  World world;
  world.settings().ground = false;
  BodyMaterial mat;
  mat.youngsModulus = 2e5;
  for (int k = 0; k < 4; ++k) {
    WorldBody b;
    b.model = buildReducedBody(box(Vec3(0.3, 0.06, 0.06), 5, 1, 1, Vec3(0.15 + 0.24 * k, 1.0, 0.0)), mat, k == 0 ? 0 : 6,
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
  std::printf("chain of 3 reduced bars on a held one: worst joint gap %.3g m over 2 s; the last bar's centre fell to %.3f m\n",
              worst, lowest);
  EXPECT_LT(lowest, 0.8) << "it swings down under gravity";
  EXPECT_LT(worst, 1e-3) << "joints stay within a millimetre (bars 0.3 m; measured 0.47 mm)";
  EXPECT_THROW(world.addJoint({0, 0, 0, 1}), InputError);
  EXPECT_THROW(world.addJoint({0, 0, 9, 1}), InputError);
}

TEST(ReducedWorld, ABodyLandsOnTheGroundWithoutSinking) {
  World world;
  WorldBody b;
  b.model = buildReducedBody(box(Vec3(0.3, 0.2, 0.3), 3, 2, 3, Vec3(0, 0.5, 0)), {}, 8, "block");
  b.state = restState(*b.model);
  b.state.L = Vec3(0.2, 0.1, 0.3);
  b.proxyRadius = 0.0;
  world.addBody(b);
  double lowest = 1;
  for (int s = 0; s < 300; ++s) {
    world.step();
    if (s % 60 == 59) std::printf("t = %.0f s: speed %.3g m/s, spin %.3g rad/s\n", (s + 1) / 60.0, world.bodies()[0].state.v.norm(), world.bodies()[0].state.omegaR.norm());
    const WorldBody& body = world.bodies()[0];
    for (size_t i = 0; i < body.model->particleCount(); ++i) lowest = std::min(lowest, particlePosition(*body.model, body.state, i).y());
  }
  const WorldBody& body = world.bodies()[0];
  std::printf("landed: lowest particle %.4f m at worst, centre at %.3f m, speed %.3g m/s after 5 s\n", lowest,
              body.state.t.y(), body.state.v.norm());
  EXPECT_GT(lowest, -0.02) << "no particle sinks more than 2 cm";
  EXPECT_LT(body.state.t.y(), 0.2);
  // Not checked yet: coming to rest. The block keeps rocking on an edge at
  // 0.2-0.5 rad/s (rigid or reduced): the contact is a single predictive
  // pass, not yet Guendelman et al.'s collision/contact/shock-propagation
  // sequence the paper uses (docs/WORK-IN-PROGRESS.md).
}

}  // namespace
}  // namespace sinew::sheth2015
