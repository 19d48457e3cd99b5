// The conforming region mesh (Li et al. 2019): tets of each bone inside that
// bone, flesh outside all, fixed nodes, joints, and clear refusals of
// surfaces it cannot mesh.
#include "volume/RegionMesh.h"

#include "examples/Humanoid.h"
#include "sim/volume/VolumeTestUtil.h"
#include "volume/FixedNodes.h"
#include "volume/WindingNumber.h"

#include <gtest/gtest.h>

namespace sinew {
namespace {

Vec3 centroid(const TetMesh& m, size_t t) {
  Vec3 c = Vec3::Zero();
  for (int32_t v : m.tets[t]) c += m.nodes[size_t(v)] / 4.0;
  return c;
}

// Every bone tet's centroid inside its bone surface, every flesh tet's
// centroid outside all of them (exact winding numbers).
void expectRegionsMatchSurfaces(const VolumeObject& v, const std::vector<BoneSurface>& bones) {
  ASSERT_EQ(v.mesh.region.size(), v.mesh.tetCount());
  ASSERT_EQ(v.bones.size(), bones.size());
  std::vector<WindingNumber> winding;
  std::vector<Aabb> boxes;
  for (const BoneSurface& b : bones) {
    winding.emplace_back(b.surface);
    boxes.push_back(b.surface.bounds());
  }
  size_t wrong = 0;
  for (size_t t = 0; t < v.mesh.tetCount(); ++t) {
    const Vec3 c = centroid(v.mesh, t);
    int32_t inside = -1;
    for (size_t b = 0; b < bones.size(); ++b) {
      if ((c.array() < boxes[b].min.array()).any() || (c.array() > boxes[b].max.array()).any()) continue;
      if (winding[b].exact(c) > 0.5) inside = int32_t(b);
    }
    if (inside != v.mesh.region[t]) {
      if (++wrong < 5) ADD_FAILURE() << "tet " << t << " region " << v.mesh.region[t] << " centroid in " << inside;
    }
  }
  EXPECT_EQ(wrong, 0u);
}

// A cube of side 2 with two box bones inside.
struct BoxScene {
  TriMesh exterior = test::cube(Vec3::Constant(-1), 2.0);
  std::vector<BoneSurface> bones = {
      {"Left", boneShapeSurface(BoneShape::box(Vec3(-0.5, 0, 0), Vec3(0.3, 0.2, 0.2)), {})},
      {"Right", boneShapeSurface(BoneShape::box(Vec3(0.5, 0, 0), Vec3(0.3, 0.2, 0.2)), {})},
  };
};

TEST(RegionMesh, BoxBonesInACube) {
  const BoxScene s;
  RegionMeshOptions o;
  o.tetgen.maxVolume = 0.01;
  const RegionMeshResult r = buildRegionMesh(s.exterior, s.bones, o);
  const VolumeObject& v = r.volume;
  EXPECT_EQ(v.kind, VolumeKind::Conforming);
  EXPECT_EQ(v.bones, (std::vector<std::string>{"Left", "Right"}));
  expectRegionsMatchSurfaces(v, s.bones);
  // Volumes: each bone 0.6 x 0.4 x 0.4, the rest flesh.
  double bone[2] = {0, 0}, flesh = 0;
  for (size_t t = 0; t < v.mesh.tetCount(); ++t)
    (v.mesh.region[t] < 0 ? flesh : bone[v.mesh.region[t]]) += tetVolume(v.mesh, t);
  EXPECT_NEAR(bone[0], 0.096, 1e-9);
  EXPECT_NEAR(bone[1], 0.096, 1e-9);
  EXPECT_NEAR(flesh, 8.0 - 0.192, 1e-9);
  // Fixed nodes: exactly the nodes of bone tets.
  std::vector<int32_t> expected(v.mesh.nodeCount(), -1);
  for (size_t t = 0; t < v.mesh.tetCount(); ++t)
    if (v.mesh.region[t] >= 0)
      for (int32_t n : v.mesh.tets[t]) expected[size_t(n)] = v.mesh.region[t];
  EXPECT_EQ(v.fixedBone, expected);
  EXPECT_TRUE(checkFixedNodes(v.mesh, v.fixedBone, 2).empty());
  EXPECT_EQ(r.report.tetsPerBone.size(), 2u);
  EXPECT_EQ(r.report.extrapolatedVertices, 0u);
  EXPECT_LT(test::maxReproductionError(v.embedding, v.mesh, s.exterior.positions), 1e-12);
}

TEST(RegionMesh, Deterministic) {
  const BoxScene s;
  RegionMeshOptions o;
  o.tetgen.maxVolume = 0.01;
  EXPECT_EQ(buildRegionMesh(s.exterior, s.bones, o).volume, buildRegionMesh(s.exterior, s.bones, o).volume);
}

struct HumanoidRegions {
  Project project = makeHumanoidProject();
  RegionMeshResult result = buildRegionMesh(project.meshes[0].mesh, project.skeleton->skeleton);
};
const HumanoidRegions& humanoid() {
  static const HumanoidRegions h;
  return h;
}

TEST(RegionMesh, HumanoidRegionsFollowTheBoneShapes) {
  const HumanoidRegions& h = humanoid();
  const VolumeObject& v = h.result.volume;
  EXPECT_EQ(v.bones.size(), 19u);
  const RegionMeshOptions defaults;
  expectRegionsMatchSurfaces(v, boneSurfaces(h.project.skeleton->skeleton, defaults.boneSegments));
  // The bone surfaces are inscribed in the capsules: bone tets lie inside the shapes.
  const BoneSet bones = boneSet(h.project.skeleton->skeleton);
  for (size_t t = 0; t < v.mesh.tetCount(); ++t) {
    const int32_t b = v.mesh.region[t];
    if (b < 0) continue;
    EXPECT_LE(boneShapeDistance(h.project.skeleton->skeleton.joints[size_t(bones.joints[size_t(b)])].bone,
                                bones.world[size_t(b)], centroid(v.mesh, t)),
              1e-12);
  }
  for (size_t b = 0; b < v.bones.size(); ++b) EXPECT_GT(h.result.report.tetsPerBone[b], 0u) << v.bones[b];
  EXPECT_TRUE(checkFixedNodes(v.mesh, v.fixedBone, v.bones.size()).empty());
  const TetQuality& q = h.result.report.quality;
  EXPECT_EQ(q.invertedCount, 0u);
  EXPECT_GT(q.minVolume, 0.0);
  EXPECT_LT(double(q.sliverCount), 0.005 * double(q.tetCount));
}

TEST(RegionMesh, HumanoidEmbeddingReproducesTheSurface) {
  const HumanoidRegions& h = humanoid();
  const Embedding& e = h.result.volume.embedding;
  ASSERT_EQ(e.vertexCount(), h.project.meshes[0].mesh.vertexCount());
  EXPECT_LT(test::maxReproductionError(e, h.result.volume.mesh, h.project.meshes[0].mesh.positions), 1e-9);
}

TEST(RegionMesh, HumanoidJointsConnectParentAndChildBones) {
  const HumanoidRegions& h = humanoid();
  const Skeleton& sk = h.project.skeleton->skeleton;
  const std::vector<RegionJoint>& joints = h.result.joints;
  EXPECT_EQ(joints.size(), 18u);  // every bone but the root's
  const std::vector<Vec3> pos = sk.restPositions();
  for (const RegionJoint& j : joints) {
    const int32_t child = sk.find(h.result.volume.bones[size_t(j.childBone)]);
    const int32_t parent = sk.find(h.result.volume.bones[size_t(j.parentBone)]);
    EXPECT_EQ(j.name, sk.joints[size_t(child)].name);
    EXPECT_EQ(sk.joints[size_t(child)].parent, parent);
    EXPECT_EQ(j.position, pos[size_t(child)]);
    EXPECT_FALSE(j.hingeAxis) << "the example's joints are all ball joints";
  }
  // A hinge carries its axis, turned into the world rest frame.
  Skeleton hinged = sk;
  const int32_t knee = hinged.find("LeftLeg");
  ASSERT_GE(knee, 0);
  hinged.joints[size_t(knee)].type = JointType::Hinge;
  hinged.joints[size_t(knee)].hingeAxis = Vec3::UnitX();
  for (const RegionJoint& j : regionJoints(hinged, h.result.volume.bones)) {
    if (j.name != "LeftLeg") continue;
    ASSERT_TRUE(j.hingeAxis);
    EXPECT_NEAR((*j.hingeAxis - hinged.worldRest()[size_t(knee)].rotation * Vec3::UnitX()).norm(), 0, 1e-12);
  }
}

TEST(RegionMesh, OpenExteriorFailsClearlyAndSaysWhatToHighlight) {
  const BoxScene s;
  const TriMesh open = test::openCube(Vec3::Constant(-1), 2.0);
  try {
    buildRegionMesh(open, s.bones, RegionMeshOptions{});
    FAIL() << "expected a RegionMeshError";
  } catch (const RegionMeshError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.file(), "Conforming mesh");
    EXPECT_NE(what.find("not watertight"), std::string::npos) << what;
    EXPECT_NE(what.find("4 open edges"), std::string::npos) << what;
    EXPECT_NE(what.find("cage"), std::string::npos) << what;
    ASSERT_EQ(e.check().problems.size(), 1u);
    EXPECT_EQ(e.check().problems[0].kind, RegionProblem::Kind::ExteriorNotWatertight);
    // The triangles around the hole: all the side faces' triangles touching z = 1.
    const std::vector<int32_t> tris = e.check().exteriorProblemTriangles();
    EXPECT_FALSE(tris.empty());
    for (int32_t t : tris) {
      bool onRim = false;
      for (int32_t v : open.triangles[size_t(t)]) onRim |= open.positions[size_t(v)].z() == 1.0;
      EXPECT_TRUE(onRim) << t;
    }
  }
  // checkRegionInput says the same without throwing.
  EXPECT_FALSE(checkRegionInput(open, s.bones).ok());
  EXPECT_TRUE(checkRegionInput(s.exterior, s.bones).ok());
}

TEST(RegionMesh, BoneOutsideCrossingOrNestedIsRefused) {
  const BoxScene s;
  auto problem = [&](std::vector<BoneSurface> bones) {
    const RegionCheck c = checkRegionInput(s.exterior, bones);
    EXPECT_FALSE(c.ok());
    return c.problems.empty() ? RegionProblem{} : c.problems.front();
  };
  // Outside.
  RegionProblem p = problem({{"Far", boneShapeSurface(BoneShape::box(Vec3(5, 0, 0), Vec3::Constant(0.2)), {})}});
  EXPECT_EQ(p.kind, RegionProblem::Kind::BoneOutside);
  EXPECT_NE(p.message.find("'Far'"), std::string::npos);
  EXPECT_EQ(p.boneTriangles.size(), 12u);
  // Through the exterior.
  p = problem({{"Poke", boneShapeSurface(BoneShape::box(Vec3(1, 0, 0), Vec3::Constant(0.2)), {})}});
  EXPECT_EQ(p.kind, RegionProblem::Kind::BoneCrossesExterior);
  EXPECT_FALSE(p.exteriorTriangles.empty());
  EXPECT_FALSE(p.boneTriangles.empty());
  // Two bones crossing each other.
  p = problem({s.bones[0], {"Overlap", boneShapeSurface(BoneShape::box(Vec3(-0.3, 0.1, 0), Vec3::Constant(0.2)), {})}});
  EXPECT_EQ(p.kind, RegionProblem::Kind::BonesCross);
  EXPECT_EQ(p.bone, 0);
  EXPECT_EQ(p.otherBone, 1);
  EXPECT_NE(p.message.find("'Left'"), std::string::npos);
  // One inside another.
  p = problem({s.bones[0], {"Inner", boneShapeSurface(BoneShape::box(Vec3(-0.5, 0, 0), Vec3::Constant(0.05)), {})}});
  EXPECT_EQ(p.kind, RegionProblem::Kind::BoneInsideBone);
  EXPECT_EQ(p.bone, 1);
  // An open bone surface.
  p = problem({{"Open", test::openCube(Vec3::Constant(-0.2), 0.4)}});
  EXPECT_EQ(p.kind, RegionProblem::Kind::BoneNotWatertight);
  // buildRegionMesh throws the same, as an InputError suggesting the cage.
  try {
    buildRegionMesh(s.exterior, {{"Far", boneShapeSurface(BoneShape::box(Vec3(5, 0, 0), Vec3::Constant(0.2)), {})}});
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bone 'Far' lies outside the exterior surface"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("cage"), std::string::npos);
  }
}

TEST(RegionMesh, SimplifiedExteriorKeepsBonesInside) {
  const HumanoidRegions& h = humanoid();
  EXPECT_LE(h.result.report.exteriorVertices, RegionMeshOptions{}.exteriorTargetVertices);
  EXPECT_TRUE(checkRegionInput(h.result.exterior, boneSurfaces(h.project.skeleton->skeleton, 8)).ok());
  // Where simplification cut inside the original surface, vertices are extrapolated (and say so).
  EXPECT_EQ(h.result.report.extrapolatedVertices, h.result.volume.embedding.extrapolatedCount());
}

}  // namespace
}  // namespace sinew
