// The automatic coarse cage (Liu et al. 2013): size, enclosure, fixed
// nodes, quality and determinism on the example humanoid, and cages around
// surfaces no conforming mesher accepts.
#include "volume/Cage.h"

#include "examples/Humanoid.h"
#include "geometry/MeshValidation.h"
#include "sim/volume/VolumeTestUtil.h"
#include "volume/FixedNodes.h"
#include "volume/WindingNumber.h"

#include <gtest/gtest.h>

#include <map>

namespace sinew {
namespace {

struct HumanoidCage {
  Project project = makeHumanoidProject();
  CageResult cage = buildCage(project.meshes[0].mesh, project.skeleton->skeleton);
  const TriMesh& surface() const { return project.meshes[0].mesh; }
  const Skeleton& skeleton() const { return project.skeleton->skeleton; }
};
const HumanoidCage& humanoid() {
  static const HumanoidCage h;
  return h;
}

TEST(Cage, HumanoidHasThePapersSize) {
  const CageReport& r = humanoid().cage.report;
  const VolumeObject& v = humanoid().cage.volume;
  // Liu et al. 2013, Table 1: about 1.2K nodes and 4K tets.
  EXPECT_GE(r.nodes, 1080u);
  EXPECT_LE(r.nodes, 1320u);
  EXPECT_GE(r.tets, 3000u);
  EXPECT_LE(r.tets, 6000u);
  EXPECT_EQ(v.kind, VolumeKind::Cage);
  EXPECT_EQ(v.mesh.nodeCount(), r.nodes);
  EXPECT_TRUE(v.mesh.region.empty());
  EXPECT_EQ(v.fixedBone.size(), v.mesh.nodeCount());
  EXPECT_EQ(v.bones.size(), 19u);
  EXPECT_EQ(v.bones.front(), "Hips");
}

TEST(Cage, SurfaceIsClosedManifoldAndEnclosesEveryRenderVertex) {
  const CageResult& c = humanoid().cage;
  const MeshReport report = validateMesh(c.cageSurface);
  EXPECT_TRUE(report.watertight());
  EXPECT_TRUE(report.selfIntersectionsChecked);
  const WindingNumber w(c.cageSurface);
  size_t outside = 0;
  for (const Vec3& p : humanoid().surface().positions) outside += w.exact(p) < 0.5;
  EXPECT_EQ(outside, 0u);
  // The embedding agrees: nothing extrapolated.
  EXPECT_EQ(c.volume.embedding.vertexCount(), humanoid().surface().vertexCount());
  EXPECT_EQ(c.volume.embedding.extrapolatedCount(), 0u);
  EXPECT_EQ(c.report.extrapolatedVertices, 0u);
  // The tets' boundary is the cage surface (TetGen kept it: 'Y').
  EXPECT_EQ(tetBoundary(c.volume.mesh).faces.size(), c.cageSurface.triangleCount());
  EXPECT_NEAR(totalVolume(c.volume.mesh), enclosedVolume(c.cageSurface), 1e-9);
}

TEST(Cage, EmbeddingReproducesRestPositions) {
  const CageResult& c = humanoid().cage;
  EXPECT_LT(test::maxReproductionError(c.volume.embedding, c.volume.mesh, humanoid().surface().positions), 1e-9);
}

TEST(Cage, EveryBoneHoldsFourNonCoplanarFixedNodesInsideItsShape) {
  const CageResult& c = humanoid().cage;
  const VolumeObject& v = c.volume;
  EXPECT_TRUE(checkFixedNodes(v.mesh, v.fixedBone, v.bones.size()).empty());
  std::vector<std::vector<Vec3>> perBone(v.bones.size());
  const BoneSet bones = boneSet(humanoid().skeleton());
  for (size_t n = 0; n < v.mesh.nodeCount(); ++n) {
    const int32_t b = v.fixedBone[n];
    // Fixed exactly when inside some bone shape.
    bool insideAny = false;
    for (size_t k = 0; k < bones.joints.size(); ++k)
      insideAny |= boneShapeContains(humanoid().skeleton().joints[size_t(bones.joints[k])].bone, bones.world[k],
                                     v.mesh.nodes[n]);
    EXPECT_EQ(b >= 0, insideAny) << "node " << n;
    if (b < 0) continue;
    EXPECT_TRUE(boneShapeContains(humanoid().skeleton().joints[size_t(bones.joints[size_t(b)])].bone,
                                  bones.world[size_t(b)], v.mesh.nodes[n]));
    perBone[size_t(b)].push_back(v.mesh.nodes[n]);
  }
  for (size_t b = 0; b < perBone.size(); ++b) {
    EXPECT_GE(perBone[b].size(), 4u) << v.bones[b];
    EXPECT_TRUE(spansVolume(perBone[b])) << v.bones[b];
  }
  EXPECT_EQ(c.report.anchorsInserted, c.report.anchors);
}

TEST(Cage, QualityIsSane) {
  const CageResult& c = humanoid().cage;
  const TetQuality& q = c.report.quality;
  EXPECT_EQ(q.invertedCount, 0u);
  EXPECT_GT(q.minVolume, 0.0);
  EXPECT_GT(q.minDihedralDeg, 1.0);
  EXPECT_LT(q.maxDihedralDeg, 175.0);
  // TetGen bounds the radius-edge ratio away from small input features; the
  // cage surface (kept as is) and the bone anchors are such features, so a
  // few tets near them may exceed the bound, most may not.
  const double bound = CageOptions{}.tetgen.radiusEdgeRatio;
  size_t over = 0;
  for (size_t t = 0; t < c.volume.mesh.tetCount(); ++t) over += tetShape(c.volume.mesh, t).radiusEdge > bound;
  EXPECT_LT(double(over), 0.05 * double(q.tetCount));
  EXPECT_LT(q.meanRadiusEdge, bound);
  EXPECT_LT(double(q.sliverCount), 0.005 * double(q.tetCount));
  EXPECT_EQ(q.worst.size(), 10u);
}

TEST(Cage, HumanoidIsBuiltWithinTheTimeBudget) {
  // 2 s in Release on the 2-core machine; Debug and sanitizer builds are slower.
#if defined(NDEBUG) && !defined(__SANITIZE_ADDRESS__)
  EXPECT_LT(humanoid().cage.report.totalSeconds, 4.0);
#endif
  EXPECT_GT(humanoid().cage.report.totalSeconds, 0.0);
}

TEST(Cage, Deterministic) {
  const CageResult again = buildCage(humanoid().surface(), humanoid().skeleton());
  EXPECT_EQ(again.volume, humanoid().cage.volume);
  EXPECT_EQ(again.cageSurface, humanoid().cage.cageSurface);
}

TEST(Cage, NodeTargetControlsTheResolution) {
  CageOptions o;
  o.targetNodes = 600;
  const CageResult r = buildCage(humanoid().surface(), humanoid().skeleton(), o);
  EXPECT_GE(r.report.nodes, 480u);
  EXPECT_LE(r.report.nodes, 720u);
  EXPECT_EQ(r.volume.embedding.extrapolatedCount(), 0u);
  EXPECT_TRUE(checkFixedNodes(r.volume.mesh, r.volume.fixedBone, r.volume.bones.size()).empty());
}

// Surfaces no conforming mesher accepts: the cage still encloses every vertex.
void expectCageEncloses(const TriMesh& surface, const char* what) {
  SCOPED_TRACE(what);
  CageOptions o;
  o.targetNodes = 200;
  const CageResult r = buildCage(surface, Skeleton{}, o);
  EXPECT_GT(r.report.tets, 0u);
  EXPECT_TRUE(validateMesh(r.cageSurface).watertight());
  EXPECT_EQ(r.volume.embedding.extrapolatedCount(), 0u);
  EXPECT_LT(test::maxReproductionError(r.volume.embedding, r.volume.mesh, surface.positions), 1e-9);
  for (size_t t = 0; t < r.volume.mesh.tetCount(); ++t) EXPECT_GT(tetVolume(r.volume.mesh, t), 0.0);
  EXPECT_TRUE(r.volume.bones.empty());
  for (int32_t b : r.volume.fixedBone) EXPECT_EQ(b, -1);
}

TEST(Cage, FromAnOpenMesh) {
  expectCageEncloses(test::openCube(), "cube with a hole");
}

TEST(Cage, FromANonManifoldMesh) {
  expectCageEncloses(test::cubesSharingEdge(), "two cubes sharing an edge");
}

TEST(Cage, FromASelfIntersectingMesh) {
  expectCageEncloses(test::overlappingCubes(), "two overlapping cubes");
}

TEST(Cage, FromDisjointPieces) {
  expectCageEncloses(test::merged(test::cube(), test::cube(Vec3(3, 0, 0), 0.5)), "two cubes apart");
}

TEST(Cage, FixedNodesForABoxBone) {
  // A box bone inside a cube: its four inset corners become fixed nodes.
  const Skeleton s = test::oneBone(BoneShape::box(Vec3::Zero(), Vec3(0.2, 0.1, 0.1)), Vec3(0.5, 0.5, 0.5), "Box");
  CageOptions o;
  o.targetNodes = 150;
  const CageResult r = buildCage(test::cube(), s, o);
  ASSERT_EQ(r.volume.bones, std::vector<std::string>{"Box"});
  EXPECT_EQ(r.report.anchorsInserted, 4u);
  EXPECT_GE(r.report.fixedPerBone[0], 4u);
  EXPECT_TRUE(checkFixedNodes(r.volume.mesh, r.volume.fixedBone, 1).empty());
}

TEST(Cage, BoneOutsideTheSurfaceIsAnInputErrorNamingIt) {
  const Skeleton s = test::oneBone(BoneShape::capsule(Vec3::Zero(), Vec3(0, 0.5, 0), 0.1), Vec3(5, 5, 5), "Tail");
  CageOptions o;
  o.targetNodes = 150;
  o.name = "cube cage";
  try {
    buildCage(test::cube(), s, o);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "cube cage");
    EXPECT_NE(std::string(e.what()).find("'Tail'"), std::string::npos) << e.what();
  }
}

// Every bone that cannot be built is named, not the first few: a user has
// to find them all.
TEST(Cage, EveryBoneOutsideTheSurfaceIsNamed) {
  Skeleton s;
  for (int k = 0; k < 8; ++k) {
    Joint j;
    j.name = "Out" + std::to_string(k);
    j.parent = k == 0 ? -1 : 0;
    j.restLocal.translation = k == 0 ? Vec3(5, 5, 5) : Vec3(0.3 * k, 0, 0);
    j.bone = BoneShape::capsule(Vec3::Zero(), Vec3(0, 0.2, 0), 0.05);
    s.joints.push_back(j);
  }
  CageOptions o;
  o.targetNodes = 150;
  try {
    buildCage(test::cube(), s, o);
    FAIL() << "expected a JointsError";
  } catch (const JointsError& e) {
    EXPECT_EQ(e.joints().size(), 8u);
    for (int k = 0; k < 8; ++k)
      EXPECT_NE(std::string(e.what()).find("'Out" + std::to_string(k) + "'"), std::string::npos) << e.what();
  }
}

TEST(Cage, ReportsProgressAndCanBeCancelled) {
  double last = -1;
  size_t calls = 0;
  bool monotone = true;
  const Progress progress([&](double f, std::string_view) {
    monotone &= f >= last - 1e-12;
    last = f;
    ++calls;
  });
  CageOptions o;
  o.targetNodes = 200;
  buildCage(test::cube(), Skeleton{}, o, progress);
  EXPECT_GT(calls, 5u);
  EXPECT_TRUE(monotone);
  EXPECT_DOUBLE_EQ(last, 1.0);
  std::atomic<bool> cancel{true};
  EXPECT_THROW(buildCage(test::cube(), Skeleton{}, o, Progress({}, &cancel)), Cancelled);
}

TEST(Cage, EmptySurfaceIsAnInputError) {
  EXPECT_THROW(buildCage(TriMesh{}, Skeleton{}), InputError);
}

TEST(Cage, DegenerateCapsuleStillGetsFourNonCoplanarAnchors) {
  // A capsule shrunk to a sphere: boneShapeAnchors() alone is coplanar.
  const BoneShape sphere = BoneShape::capsule(Vec3::Zero(), Vec3::Zero(), 0.1);
  EXPECT_TRUE(spansVolume(fixedNodeAnchors(sphere, Transform{})));
  for (const Vec3& p : fixedNodeAnchors(sphere, Transform{})) EXPECT_LT(boneShapeDistance(sphere, {}, p), 0.0);
}

}  // namespace
}  // namespace sinew
