// Element quality measures on tets with known answers.
#include "volume/TetQuality.h"

#include <gtest/gtest.h>

#include <cmath>

namespace sinew {
namespace {

// A regular tet of edge length sqrt(8), positively oriented.
TetMesh regular() {
  TetMesh m;
  m.nodes = {Vec3(1, 1, 1), Vec3(1, -1, -1), Vec3(-1, 1, -1), Vec3(-1, -1, 1)};
  m.tets = {{0, 1, 2, 3}};
  if (tetVolume(m, 0) < 0) std::swap(m.tets[0][0], m.tets[0][1]);
  return m;
}

TEST(TetQuality, RegularTet) {
  const TetShape s = tetShape(regular(), 0);
  const double dihedral = std::acos(1.0 / 3.0) * 180.0 / M_PI;  // 70.53
  EXPECT_NEAR(s.minDihedralDeg, dihedral, 1e-9);
  EXPECT_NEAR(s.maxDihedralDeg, dihedral, 1e-9);
  EXPECT_NEAR(s.radiusEdge, std::sqrt(6.0) / 4.0, 1e-12);
  EXPECT_NEAR(s.volumeEdge, 1.0, 1e-12);
  EXPECT_NEAR(s.volume, 8.0 / 3.0, 1e-12);
}

TEST(TetQuality, RightCornerTet) {
  // The corner tet of a cube: dihedral angles 90 (three) and acos(1/sqrt(3)) = 54.7 (three).
  const TetShape s = tetShape(Vec3::Zero(), Vec3::UnitX(), Vec3::UnitY(), Vec3::UnitZ());
  EXPECT_NEAR(s.volume, 1.0 / 6.0, 1e-15);
  EXPECT_NEAR(s.maxDihedralDeg, 90.0, 1e-9);
  EXPECT_NEAR(s.minDihedralDeg, std::acos(1.0 / std::sqrt(3.0)) * 180.0 / M_PI, 1e-9);
  // Circumradius sqrt(3)/2, shortest edge 1.
  EXPECT_NEAR(s.radiusEdge, std::sqrt(3.0) / 2.0, 1e-12);
}

TEST(TetQuality, SliversAndInvertedTetsAreCounted) {
  TetMesh m = regular();
  // A sliver: four points of a square, one lifted slightly.
  const auto base = int32_t(m.nodes.size());
  m.nodes.insert(m.nodes.end(), {Vec3(3, 0, 0), Vec3(4, 0, 0), Vec3(4, 1, 0), Vec3(3, 1, 0.01)});
  m.tets.push_back({base, base + 1, base + 2, base + 3});
  if (tetVolume(m, 1) < 0) std::swap(m.tets[1][0], m.tets[1][1]);
  // An inverted copy of the regular tet.
  m.tets.push_back({m.tets[0][1], m.tets[0][0], m.tets[0][2], m.tets[0][3]});
  const TetShape sliver = tetShape(m, 1);
  EXPECT_LT(sliver.minDihedralDeg, 5.0);
  EXPECT_GT(sliver.maxDihedralDeg, 170.0);
  const TetQuality q = measureTetQuality(m);
  EXPECT_EQ(q.tetCount, 3u);
  EXPECT_EQ(q.nodeCount, 8u);
  EXPECT_EQ(q.sliverCount, 1u);
  EXPECT_EQ(q.invertedCount, 1u);
  EXPECT_LT(q.minVolume, 0.0);
  // Worst first: the inverted tet, then the sliver, then the regular one.
  ASSERT_EQ(q.worst.size(), 3u);
  EXPECT_EQ(q.worst[0], 2);
  EXPECT_EQ(q.worst[1], 1);
  EXPECT_EQ(q.worst[2], 0);
  EXPECT_NE(describeTetQuality(q).find("1 slivers"), std::string::npos);
}

TEST(TetQuality, EmptyMesh) {
  const TetQuality q = measureTetQuality(TetMesh{});
  EXPECT_EQ(q.tetCount, 0u);
  EXPECT_TRUE(q.worst.empty());
}

}  // namespace
}  // namespace sinew
