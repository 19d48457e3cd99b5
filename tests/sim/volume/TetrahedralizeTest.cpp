// The TetGen wrapper: orientation, regions, Steiner points, quality within
// TetGen's guarantees, errors with TetGen's reason, determinism.
#include "volume/Tetrahedralize.h"

#include "model/BoneShape.h"
#include "sim/volume/VolumeTestUtil.h"
#include "volume/TetQuality.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>

namespace sinew {
namespace {

using test::cube;
using test::merged;

TEST(Tetrahedralize, CubeFillsItsVolumeWithPositiveTets) {
  TetrahedralizeOptions o;
  o.quality = false;
  const TetrahedralizeResult r = tetrahedralizeSurface(cube(), {}, {}, o, "cube");
  ASSERT_GE(r.mesh.tetCount(), 5u);
  EXPECT_EQ(r.mesh.nodeCount(), 8u);
  EXPECT_TRUE(r.mesh.region.empty());
  for (size_t t = 0; t < r.mesh.tetCount(); ++t) EXPECT_GT(tetVolume(r.mesh, t), 0.0);
  EXPECT_NEAR(totalVolume(r.mesh), 1.0, 1e-12);
  // Every input vertex is a node, at its exact position.
  for (size_t v = 0; v < 8; ++v) {
    ASSERT_GE(r.surfaceNode[v], 0);
    EXPECT_EQ(r.mesh.nodes[size_t(r.surfaceNode[v])], cube().positions[v]);
  }
  // The boundary of the tets is the cube's surface: 12 faces, area 6.
  EXPECT_EQ(tetBoundary(r.mesh).faces.size(), 12u);
}

TEST(Tetrahedralize, QualityMeetsTheRequestedBoundsOnACube) {
  // A cube has no small input angles: TetGen's refinement guarantees the
  // radius-edge bound there, and its dihedral target is met too.
  TetrahedralizeOptions o;
  o.radiusEdgeRatio = 1.5;
  o.minDihedralDeg = 10.0;
  o.maxVolume = 0.001;
  const TetrahedralizeResult r = tetrahedralizeSurface(cube(), {}, {}, o, "cube");
  const TetQuality q = measureTetQuality(r.mesh);
  EXPECT_GT(q.tetCount, 1000u);
  EXPECT_EQ(q.invertedCount, 0u);
  EXPECT_LE(q.maxRadiusEdge, 1.5 + 1e-9);
  EXPECT_GE(q.minDihedralDeg, 10.0 - 1e-6);
  EXPECT_LE(q.maxVolume, 0.001 * (1 + 1e-9));
  EXPECT_EQ(q.sliverCount, 0u);
  EXPECT_NEAR(q.totalVolume, 1.0, 1e-9);
}

TEST(Tetrahedralize, NestedShellsMakeRegionsFromSeeds) {
  // An inner cube (region 3) inside an outer one (flesh).
  const TriMesh outer = cube(Vec3::Zero(), 2.0);
  const TriMesh inner = cube(Vec3(0.5, 0.5, 0.5), 1.0);
  TetrahedralizeOptions o;
  o.maxVolume = 0.01;
  const TetrahedralizeResult r =
      tetrahedralizeSurface(merged(outer, inner), {}, {{Vec3(1, 1, 1), 3}}, o, "nested cubes");
  ASSERT_EQ(r.mesh.region.size(), r.mesh.tetCount());
  EXPECT_TRUE(r.missingRegions.empty());
  double boneVolume = 0, fleshVolume = 0;
  for (size_t t = 0; t < r.mesh.tetCount(); ++t) {
    Vec3 c = Vec3::Zero();
    for (int32_t v : r.mesh.tets[t]) c += r.mesh.nodes[size_t(v)] / 4.0;
    const bool insideInner = (c.array() > 0.5).all() && (c.array() < 1.5).all();
    EXPECT_EQ(r.mesh.region[t], insideInner ? 3 : -1) << "tet " << t;
    (r.mesh.region[t] == 3 ? boneVolume : fleshVolume) += tetVolume(r.mesh, t);
  }
  EXPECT_NEAR(boneVolume, 1.0, 1e-9);
  EXPECT_NEAR(fleshVolume, 7.0, 1e-9);
}

TEST(Tetrahedralize, SpatialSortKeepsEveryTetAndRegionAndBringsNeighboursTogether) {
  const TriMesh outer = cube(Vec3::Zero(), 2.0);
  const TriMesh inner = cube(Vec3(0.5, 0.5, 0.5), 1.0);
  TetrahedralizeOptions o;
  o.maxVolume = 0.002;
  const TetMesh before = tetrahedralizeSurface(merged(outer, inner), {}, {{Vec3(1, 1, 1), 3}}, o, "nested cubes").mesh;
  TetMesh after = before;
  const std::vector<int32_t> newIndex = sortSpatially(after);
  ASSERT_EQ(after.nodeCount(), before.nodeCount());
  ASSERT_EQ(after.tetCount(), before.tetCount());
  ASSERT_EQ(after.region.size(), after.tetCount());
  // A permutation of the nodes that moves no position.
  std::vector<int> hit(before.nodeCount(), 0);
  for (size_t i = 0; i < before.nodeCount(); ++i) {
    ASSERT_GE(newIndex[i], 0);
    ASSERT_LT(size_t(newIndex[i]), after.nodeCount());
    ++hit[size_t(newIndex[i])];
    EXPECT_EQ(after.nodes[size_t(newIndex[i])], before.nodes[i]);
  }
  for (int h : hit) EXPECT_EQ(h, 1);
  // The same tets (as sorted node sets, corners in their order) with their regions.
  auto key = [](Tet t) { std::sort(t.begin(), t.end()); return t; };
  std::map<Tet, int32_t> was;
  for (size_t t = 0; t < before.tetCount(); ++t) {
    Tet mapped = before.tets[t];
    for (int32_t& k : mapped) k = newIndex[size_t(k)];
    was[key(mapped)] = before.region[t];
  }
  double volumeBefore = 0, volumeAfter = 0;
  for (size_t t = 0; t < after.tetCount(); ++t) {
    const auto it = was.find(key(after.tets[t]));
    ASSERT_NE(it, was.end()) << "tet " << t << " is new";
    EXPECT_EQ(it->second, after.region[t]);
    EXPECT_GT(tetVolume(after, t), 0) << "tet " << t << " lost its orientation";
    volumeBefore += tetVolume(before, t);
    volumeAfter += tetVolume(after, t);
  }
  EXPECT_NEAR(volumeAfter, volumeBefore, 1e-12);
  // Locality: the mean index distance between the corners of a tet shrinks.
  auto spread = [](const TetMesh& m) {
    double sum = 0;
    for (const Tet& t : m.tets) sum += *std::max_element(t.begin(), t.end()) - *std::min_element(t.begin(), t.end());
    return sum / double(m.tetCount());
  };
  std::printf("mean node index spread per tet: %.0f before, %.0f after (%zu nodes)\n", spread(before), spread(after),
              after.nodeCount());
  EXPECT_LT(spread(after), 0.5 * spread(before));
}

TEST(Tetrahedralize, SteinerPointsInsideBecomeNodesOutsideAreDropped) {
  const std::vector<Vec3> points = {Vec3(0.25, 0.5, 0.5), Vec3(0.7, 0.3, 0.6), Vec3(3, 3, 3)};
  TetrahedralizeOptions o;
  o.quality = false;
  const TetrahedralizeResult r = tetrahedralizeSurface(cube(), points, {}, o, "cube");
  ASSERT_EQ(r.steinerNode.size(), 3u);
  for (int i = 0; i < 2; ++i) {
    ASSERT_GE(r.steinerNode[size_t(i)], 0);
    EXPECT_EQ(r.mesh.nodes[size_t(r.steinerNode[size_t(i)])], points[size_t(i)]);
  }
  EXPECT_EQ(r.steinerNode[2], -1);
  EXPECT_EQ(r.mesh.nodeCount(), 10u);
  EXPECT_NEAR(totalVolume(r.mesh), 1.0, 1e-12);
}

TEST(Tetrahedralize, SelfIntersectionIsAnInputErrorWithTetGensReason) {
  try {
    tetrahedralizeSurface(test::overlappingCubes(), {}, {}, {}, "two cubes");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "two cubes");
    EXPECT_NE(std::string(e.what()).find("TetGen"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("intersects itself"), std::string::npos) << e.what();
  }
}

TEST(Tetrahedralize, TetGensOwnErrorsBecomeInputErrors) {
  // Two cubes 1e-9 apart: closed and not intersecting, but closer than
  // TetGen's tolerance. TetGen 1.5.0's own driver would crash here (double
  // free while unwinding); the wrapper reports its reason.
  const TriMesh m = merged(cube(), cube(Vec3(1 + 1e-9, 0.2, 0.1), 1.0));
  for (bool quality : {false, true}) {
    TetrahedralizeOptions o;
    o.quality = quality;
    try {
      tetrahedralizeSurface(m, {}, {}, o, "close cubes");
      FAIL() << "expected an InputError";
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), "close cubes");
      EXPECT_EQ(e.problem().rfind("TetGen: ", 0), 0u) << e.what();
      EXPECT_NE(e.problem().find("small input feature"), std::string::npos) << e.what();
    }
  }
  // And it keeps working afterwards.
  EXPECT_EQ(tetrahedralizeSurface(cube(), {}, {}, {}, "cube").mesh.nodeCount() > 0, true);
}

TEST(Tetrahedralize, BadInputIsRefusedBeforeTetGen) {
  TriMesh m = cube();
  m.triangles[3][1] = 99;
  EXPECT_THROW(tetrahedralizeSurface(m, {}, {}, {}, "x"), InputError);
  m = cube();
  m.triangles[0] = {0, 0, 1};
  EXPECT_THROW(tetrahedralizeSurface(m, {}, {}, {}, "x"), InputError);
  m = cube();
  m.positions[2].x() = std::nan("");
  EXPECT_THROW(tetrahedralizeSurface(m, {}, {}, {}, "x"), InputError);
  EXPECT_THROW(tetrahedralizeSurface(TriMesh{}, {}, {}, {}, "x"), InputError);
  EXPECT_THROW(tetrahedralizeSurface(cube(), {}, {{Vec3(0.5, 0.5, 0.5), -2}}, {}, "x"), InputError);
}

TEST(Tetrahedralize, OpenSurfaceFails) {
  try {
    tetrahedralizeSurface(test::openCube(), {}, {}, {}, "open cube");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "open cube");
    EXPECT_NE(e.problem().find("not closed (4 open edges"), std::string::npos) << e.what();
  }
}

TEST(Tetrahedralize, Deterministic) {
  const TriMesh capsule = boneShapeSurface(BoneShape::capsule(Vec3::Zero(), Vec3(0, 0.5, 0), 0.2), {}, 16);
  TetrahedralizeOptions o;
  o.radiusEdgeRatio = 1.4;
  const TetrahedralizeResult a = tetrahedralizeSurface(capsule, {Vec3(0, 0.2, 0)}, {}, o, "capsule");
  const TetrahedralizeResult b = tetrahedralizeSurface(capsule, {Vec3(0, 0.2, 0)}, {}, o, "capsule");
  EXPECT_GT(a.mesh.tetCount(), 100u);
  EXPECT_EQ(a.mesh, b.mesh);
  EXPECT_EQ(a.addedPoints, b.addedPoints);
}

TEST(Tetrahedralize, SwitchesNameTheOptions) {
  TetrahedralizeOptions o;
  o.radiusEdgeRatio = 1.5;
  o.minDihedralDeg = 12;
  o.maxVolume = 0.5;
  o.preserveSurface = true;
  EXPECT_EQ(tetgenSwitches(o, true), "pzQq1.5/12a0.5AY");
  o.quality = false;
  o.maxVolume = 0;
  o.preserveSurface = false;
  EXPECT_EQ(tetgenSwitches(o, false), "pzQ");
  EXPECT_NE(tetgenErrorReason(3).find("intersects"), std::string::npos);
}

}  // namespace
}  // namespace sinew
