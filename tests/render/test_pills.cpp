// Pill geometry for VIPER rods (render/PillView): spheres and tangent cones,
// outward-facing and without degenerate triangles; the radius colour map.
#include "PillView.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace sinew;
using namespace sinew::render;

namespace {

constexpr double kPi = 3.14159265358979323846;

// Every triangle has area and faces away from the nearest node centre.
void expectOutwardAndSound(const PillGeometry& g, const PillSet& pills) {
  ASSERT_EQ(g.colors.size(), g.mesh.vertexCount());
  for (size_t t = 0; t < g.mesh.triangleCount(); ++t) {
    ASSERT_GT(triangleArea(g.mesh, t), 1e-12) << "triangle " << t;
    const Tri& tri = g.mesh.triangles[t];
    const std::vector<Vec3>& x = g.mesh.positions;
    const Vec3 c = (x[size_t(tri[0])] + x[size_t(tri[1])] + x[size_t(tri[2])]) / 3;
    // Outward: the normal points away from the segment the triangle belongs to.
    double best = 1e300;
    Vec3 axisPoint = Vec3::Zero();
    for (const auto& [a, b] : pills.segments) {
      const Vec3 &p = pills.centres[size_t(a)], &q = pills.centres[size_t(b)];
      const double s = std::clamp((c - p).dot(q - p) / (q - p).squaredNorm(), 0.0, 1.0);
      const Vec3 x = p + s * (q - p);
      if ((c - x).norm() < best) {
        best = (c - x).norm();
        axisPoint = x;
      }
    }
    EXPECT_GT(triangleNormal(g.mesh, t).dot(c - axisPoint), 0) << "triangle " << t << " faces inwards";
  }
  for (const Vec3& n : vertexNormals(g.mesh)) EXPECT_NEAR(n.norm(), 1.0, 1e-9);
}

}  // namespace

TEST(PillView, ATaperedRodIsClosedOutwardAndHasThePillsVolume) {
  PillSet pills;
  pills.centres = {Vec3(0, 0, 0), Vec3(0.3, 0.05, 0), Vec3(0.5, 0.05, 0.1)};
  pills.radii = {0.05, 0.03, 0.02};
  pills.scales = {1.0, 1.2, 0.8};
  pills.segments = {{0, 1}, {1, 2}};
  const PillGeometry g = pillGeometry(pills, 24);
  expectOutwardAndSound(g, pills);
  // One sphere alone: its polygon's volume approaches 4/3 pi r^3.
  PillSet one;
  one.centres = {Vec3(1, 2, 3)};
  one.radii = {0.1};
  const PillGeometry s = pillGeometry(one, 48);
  EXPECT_NEAR(enclosedVolume(s.mesh), 4.0 / 3 * kPi * 1e-3, 0.02 * 4.0 / 3 * kPi * 1e-3);
}

TEST(PillView, OneSphereInsideTheOtherNeedsNoCone) {
  PillSet pills;
  pills.centres = {Vec3(0, 0, 0), Vec3(0.01, 0, 0)};
  pills.radii = {0.1, 0.02};
  pills.segments = {{0, 1}};
  const PillGeometry g = pillGeometry(pills, 12);
  const PillGeometry spheres = pillGeometry(PillSet{pills.centres, pills.radii, {}, {}}, 12);
  EXPECT_EQ(g.mesh.triangleCount(), spheres.mesh.triangleCount());
}

TEST(PillView, NonFiniteNodesAreLeftOut) {
  PillSet pills;
  pills.centres = {Vec3(0, 0, 0), Vec3(std::nan(""), 0, 0), Vec3(1, 0, 0)};
  pills.radii = {0.1, 0.1, 0.1};
  pills.segments = {{0, 1}, {1, 2}};
  const PillGeometry g = pillGeometry(pills, 12);
  for (const Vec3& p : g.mesh.positions) EXPECT_TRUE(p.allFinite());
  EXPECT_EQ(g.mesh.triangleCount(), pillGeometry(PillSet{{Vec3(0, 0, 0)}, {0.1}, {}, {}}, 12).mesh.triangleCount() * 2);
}

TEST(PillView, ScaleColoursRunFromBlueThroughWhiteToRed) {
  const Vec3f thin = scaleColor(1 - kScaleColorRange), rest = scaleColor(1.0), thick = scaleColor(1 + kScaleColorRange);
  EXPECT_GT(thin.z(), thin.x() + 0.5f);
  EXPECT_GT(thick.x(), thick.z() + 0.5f);
  EXPECT_NEAR(rest.x(), rest.z(), 1e-6);
  EXPECT_GT(rest.minCoeff(), 0.9f);
  EXPECT_EQ(scaleColor(0.1), thin) << "saturates";
  EXPECT_EQ(scaleColor(9.0), thick);
  const Vec3f half = scaleColor(1 + 0.5 * kScaleColorRange);
  EXPECT_GT(half.x(), half.z());
  EXPECT_GT(half.z(), thick.z());
}
