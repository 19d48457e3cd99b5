// Colliders: the probe's depth and normal against the analytic shapes, and
// the drawn mesh against the probe (its vertices lie on the probed surface,
// it is closed and outward).
#include "dynamics/Colliders.h"

#include "core/Error.h"
#include "geometry/MeshValidation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>

namespace sinew::dyn {
namespace {

Collider make(ColliderShape shape, const Vec3& size, const Vec3& degrees) {
  Collider c;
  c.name = colliderShapeName(shape);
  c.shape = shape;
  c.center = Vec3(0.3, -0.2, 1.1);
  c.rotationDegrees = degrees;
  c.size = size;
  return c;
}

TEST(Colliders, ProbeDepthAndNormal) {
  const Collider sphere = make(ColliderShape::Sphere, Vec3(0.5, 0, 0), Vec3::Zero());
  ContactPoint c = probe(sphere, sphere.center + Vec3(0, 0.4, 0));
  EXPECT_NEAR(c.depth, 0.1, 1e-12);
  EXPECT_NEAR((c.normal - Vec3::UnitY()).norm(), 0, 1e-12);
  // A box turned 90 degrees about y: its local x (half extent 0.5) lies along world z.
  const Collider box = make(ColliderShape::Box, Vec3(0.5, 0.2, 0.1), Vec3(0, 90, 0));
  c = probe(box, box.center + Vec3(0, 0, 0.45));
  EXPECT_NEAR(c.depth, 0.05, 1e-12);
  EXPECT_NEAR(std::abs(c.normal.z()), 1, 1e-12);
  c = probe(box, box.center + Vec3(0.3, 0, 0));
  EXPECT_NEAR(c.depth, -0.2, 1e-12) << "outside, beyond the 0.1 half extent now along world x";
  // A capsule tilted 90 degrees about z lies along world x.
  const Collider capsule = make(ColliderShape::Capsule, Vec3(0.1, 0.4, 0), Vec3(0, 0, 90));
  c = probe(capsule, capsule.center + Vec3(0.45, 0, 0));
  EXPECT_NEAR(c.depth, 0.05, 1e-12);
  EXPECT_NEAR(c.normal.x(), 1, 1e-12);
}

TEST(Colliders, MeshesAreClosedOutwardAndOnTheSurface) {
  for (const Collider& c : {make(ColliderShape::Sphere, Vec3(0.5, 0, 0), Vec3(10, 20, 30)),
                            make(ColliderShape::Box, Vec3(0.5, 0.2, 0.1), Vec3(0, 45, 0)),
                            make(ColliderShape::Capsule, Vec3(0.1, 0.4, 0), Vec3(0, 0, 90)),
                            make(ColliderShape::Capsule, Vec3(0.1, 0, 0), Vec3::Zero())}) {
    const TriMesh m = colliderMesh(c, 32);
    const MeshReport r = validateMesh(m);
    EXPECT_TRUE(r.closed() && r.manifold()) << c.name;
    EXPECT_EQ(r.misorientedEdgeCount, 0u) << c.name;
    for (const Vec3& p : m.positions) EXPECT_NEAR(probe(c, p).depth, 0, 1e-9) << c.name;
    // Outward: the signed volume is positive and below the shape's volume (inscribed).
    const double v = enclosedVolume(m);
    const double exact = c.shape == ColliderShape::Box ? 8 * c.size.prod()
                         : 4.0 / 3 * M_PI * std::pow(c.size.x(), 3) + (c.shape == ColliderShape::Capsule ? 2 * c.size.y() * M_PI * c.size.x() * c.size.x() : 0);
    EXPECT_GT(v, 0.95 * exact) << c.name;
    EXPECT_LE(v, exact * (1 + 1e-12)) << c.name;
  }
}

// The broad phase never misses a collider a point penetrates, lists
// candidates in ascending order, and prunes most pairs in a field of pegs.
TEST(Colliders, GridCandidatesContainEveryPenetratedCollider) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-3, 3), size(0.05, 0.4), angle(0, 180);
  std::vector<Collider> pegs;
  for (int k = 0; k < 200; ++k) {
    Collider c = make(ColliderShape(k % 3), Vec3(size(rng), size(rng), size(rng)), Vec3(angle(rng), angle(rng), angle(rng)));
    c.center = Vec3(u(rng), u(rng), u(rng));
    pegs.push_back(c);
  }
  const ColliderGrid grid(pegs);
  size_t inside = 0, candidates = 0;
  const int points = 20000;
  for (int k = 0; k < points; ++k) {
    const Vec3 p(u(rng), u(rng), u(rng));
    const std::vector<int32_t>& list = grid.candidates(p);
    EXPECT_TRUE(std::is_sorted(list.begin(), list.end()));
    candidates += list.size();
    for (size_t c = 0; c < pegs.size(); ++c)
      if (probe(pegs[c], p).depth > 0) {
        ++inside;
        EXPECT_TRUE(std::binary_search(list.begin(), list.end(), int32_t(c))) << "point " << k << " in collider " << c;
      }
  }
  std::printf("%zu penetrations among %d points; %.1f candidates per point of %zu colliders (cell %.2f m, %zu cells)\n",
              inside, points, double(candidates) / points, pegs.size(), grid.cellSize(), grid.cellCount());
  EXPECT_GT(inside, 100u) << "the test must probe penetrating points";
  EXPECT_LT(double(candidates) / points, 0.2 * double(pegs.size())) << "the grid should prune";
  EXPECT_TRUE(ColliderGrid(std::vector<Collider>{}).candidates(Vec3::Zero()).empty());
}

TEST(Colliders, ValidationNamesTheCollider) {
  Collider c = make(ColliderShape::Box, Vec3(0.5, 0, 0.1), Vec3::Zero());
  try {
    c.validate("scene");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("collider 'box'"), std::string::npos) << e.what();
  }
  c.size.y() = 0.1;
  EXPECT_NO_THROW(c.validate("scene"));
  c.friction = -1;
  EXPECT_THROW(c.validate("scene"), InputError);
  c = make(ColliderShape::Capsule, Vec3(0.1, 0, 0), Vec3::Zero());
  EXPECT_NO_THROW(c.validate("scene")) << "a capsule of zero half length is a sphere";
  c.center.x() = std::nan("");
  EXPECT_THROW(c.validate("scene"), InputError);
}

}  // namespace
}  // namespace sinew::dyn
