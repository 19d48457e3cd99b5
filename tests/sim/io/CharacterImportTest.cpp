// Characters from outside: skinned files placed where skinning at the bind
// pose puts them, rest skeletons at the bind pose, units and up axes, bone
// counts as Assimp reports them. On real files of assimp-testmodels and on
// the example humanoid exported the way other tools lay files out
// (examples/ExchangeCharacters.h: 64 joints, three skinned meshes and two
// rigid eyes; FBX, glTF, Collada; Z-up roots, centimetres).
#include "TestUtil.h"

#include "examples/ExchangeCharacters.h"
#include "examples/Humanoid.h"
#include "io/AssimpImport.h"
#include "io/SkinnedExport.h"
#include "core/Text.h"

#include <assimp/Importer.hpp>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <set>

namespace sinew {
namespace {

using test::model;

const Project& humanoid() {
  static const Project p = [] {
    HumanoidOptions o;
    o.gridSpacing = 0.05;  // a coarse surface: the layout matters here, not the detail
    return makeHumanoidProject(o);
  }();
  return p;
}

const ExchangeCharacter& character() {
  static const ExchangeCharacter c = makeExchangeCharacter(humanoid());
  return c;
}

ImportOptions quick() {
  ImportOptions o;
  o.checkSelfIntersections = false;
  o.isolate = false;
  return o;
}

TEST(ExchangeCharacter, IsAProductionArmatureWithThreeSkinnedMeshesAndTwoRigidEyes) {
  const ExchangeCharacter& c = character();
  EXPECT_EQ(c.skeleton.size(), 64u);
  EXPECT_NO_THROW(c.skeleton.validate("production"));
  ASSERT_EQ(c.parts.size(), 5u);
  size_t vertices = 0;
  for (int k = 0; k < 3; ++k) {
    ASSERT_TRUE(c.parts[size_t(k)].skin) << c.parts[size_t(k)].name;
    EXPECT_GT(c.parts[size_t(k)].mesh.triangleCount(), 100u) << c.parts[size_t(k)].name;
    vertices += c.parts[size_t(k)].mesh.vertexCount();
  }
  EXPECT_GE(vertices, humanoid().meshes[0].mesh.vertexCount());  // the cuts duplicate vertices
  EXPECT_FALSE(c.parts[3].skin);
  EXPECT_EQ(c.parts[3].parentJoint, c.skeleton.find("Head"));
  // Finger bones carry weight on the hands; end bones carry none.
  std::set<std::string> weighted;
  for (int k = 0; k < 3; ++k) {
    const SkinWeights& w = *c.parts[size_t(k)].skin;
    for (size_t i = 0; i < w.bone.size(); ++i)
      if (w.weight[i] > 0.05) weighted.insert(w.bones[size_t(w.bone[i])]);
  }
  EXPECT_TRUE(weighted.count("LeftHandIndex2"));
  EXPECT_TRUE(weighted.count("RightHandThumb1"));
  EXPECT_FALSE(weighted.count("LeftHandIndex4"));
  EXPECT_FALSE(weighted.count("HeadTop_End"));
}

struct Layout {
  const char* name;
  const char* extension;
  SkinnedExportOptions options;
};

std::string layoutName(const ::testing::TestParamInfo<Layout>& info) { return info.param.name; }

class ExportedCharacter : public ::testing::TestWithParam<Layout> {};

// Exported by Sinew's writer in another tool's layout, imported back: every
// vertex and joint where it was (to float precision), in metres, standing
// along +Y, with the skin bones the file holds.
TEST_P(ExportedCharacter, ImportsWhereItWasWithItsBindPoseAndBones) {
  const Layout& layout = GetParam();
  test::TempDir dir;
  const std::string path = dir.file(std::string("character.") + layout.extension);
  const ExchangeCharacter& c = character();
  exportSkinnedCharacter(c.skeleton, c.parts, path, layout.options);

  ImportOptions o = quick();
  o.grouping = MeshGrouping::All;  // one body: the three skinned meshes and the eyes
  const ImportResult r = importFile(path, o);
  ASSERT_EQ(r.meshes.size(), 1u);
  ASSERT_TRUE(r.skeleton);
  const double height = 1.75;
  EXPECT_NEAR(r.scale * (layout.options.unitsPerMetre * layout.options.rootScale), 1.0, 1e-9) << r.scale;

  // The skeleton: the armature's skin bones (the 51 joints that carry
  // weight; the 13 weightless end bones are not bones to Assimp either), each
  // at its rest position.
  const std::vector<Vec3> want = c.skeleton.restPositions(), got = r.skeleton->restPositions();
  EXPECT_EQ(r.skeleton->size(), 51u);
  for (size_t j = 0; j < c.skeleton.size(); ++j) {
    const std::string& name = c.skeleton.joints[j].name;
    const bool end = name.find("_End") != std::string::npos || name.back() == '4';
    const int32_t k = r.skeleton->find(name);
    EXPECT_EQ(k >= 0, !end) << name;
    if (k >= 0) {
      EXPECT_LT((got[size_t(k)] - want[j]).norm(), 1e-5 * height) << name;
    }
  }

  // The mesh: where it was, every vertex near one of the original's.
  const ImportedMesh& m = r.meshes[0];
  const Aabb box = m.mesh.bounds();
  EXPECT_NEAR(box.max.y() - box.min.y(), humanoid().meshes[0].mesh.bounds().size().y(), 1e-4);
  EXPECT_NEAR(box.min.y(), humanoid().meshes[0].mesh.bounds().min.y(), 1e-4);
  EXPECT_LT(m.bindResidual, 1e-6 * height);
  ASSERT_TRUE(m.skin);
  const std::vector<Vec3>& original = humanoid().meshes[0].mesh.positions;
  double worst = 0;
  for (size_t v = 0; v < m.mesh.vertexCount(); ++v) {
    if (m.skin->offsets[v] == m.skin->offsets[v + 1]) continue;  // eyes are not skinned
    double nearest = std::numeric_limits<double>::infinity();
    for (const Vec3& q : original) nearest = std::min(nearest, (q - m.mesh.positions[v]).squaredNorm());
    worst = std::max(worst, std::sqrt(nearest));
  }
  EXPECT_LT(worst, 1e-5 * height);
  // The eyes came with it, on the face.
  size_t unskinned = 0;
  for (size_t v = 0; v < m.mesh.vertexCount(); ++v) unskinned += m.skin->offsets[v] == m.skin->offsets[v + 1];
  EXPECT_GT(unskinned, 0u);
}

SkinnedExportOptions zUpCentimetres() {
  SkinnedExportOptions o;
  o.zUp = true;
  o.unitsPerMetre = 100;
  o.skinnedMeshNode.rotation = Quat(Eigen::AngleAxisd(-M_PI / 2, Vec3::UnitX()));
  o.skinnedMeshNode.translation = Vec3(0.3, 0, 0);
  return o;
}
// Assimp's FBX writer folds a skinned mesh node's translation into the bind
// pose it writes (FBX keeps the mesh's bind transform in each cluster), so
// the FBX layouts keep that node at the identity, as Maya binds do.
SkinnedExportOptions fbxZUpCentimetres() {
  SkinnedExportOptions o = zUpCentimetres();
  o.skinnedMeshNode = Transform{};
  return o;
}
SkinnedExportOptions blenderCentimetres() {
  SkinnedExportOptions o = zUpCentimetres();
  o.rootScale = 0.01;
  return o;
}

INSTANTIATE_TEST_SUITE_P(Formats, ExportedCharacter,
                         ::testing::Values(Layout{"GltfYUpMetres", "gltf", {}}, Layout{"GlbZUpCentimetres", "glb", zUpCentimetres()},
                                           Layout{"GlbBlenderRootScale", "glb", blenderCentimetres()},
                                           Layout{"ColladaZUpCentimetres", "dae", zUpCentimetres()},
                                           Layout{"FbxYUpMetres", "fbx", {}}, Layout{"FbxZUpCentimetres", "fbx", fbxZUpCentimetres()}),
                         layoutName);

// A file saved on an animation frame: the hierarchy holds a pose (arms down,
// a knee bent), the offset matrices the bind pose. The mesh comes in at the
// bind pose and so does the skeleton.
TEST(ExchangeCharacter, AHierarchyStoredInAnotherPoseImportsAtTheBindPose) {
  test::TempDir dir;
  const ExchangeCharacter& c = character();
  SkinnedExportOptions o;
  o.zUp = true;
  for (const Joint& j : c.skeleton.joints) o.storedPose.push_back(j.restLocal);
  const auto turn = [&](const char* name, const Vec3& axis, double degrees) {
    Transform& t = o.storedPose[size_t(c.skeleton.find(name))];
    t.rotation = t.rotation * Quat(Eigen::AngleAxisd(degrees * M_PI / 180, axis));
  };
  turn("LeftArm", Vec3::UnitZ(), -50);
  turn("RightArm", Vec3::UnitZ(), 50);
  turn("LeftLeg", Vec3::UnitX(), 40);
  const std::string path = dir.file("posed.glb");
  exportSkinnedCharacter(c.skeleton, c.parts, path, o);
  ImportOptions io = quick();
  io.grouping = MeshGrouping::All;
  const ImportResult r = importFile(path, io);
  ASSERT_TRUE(r.skeleton);
  const std::vector<Vec3> want = c.skeleton.restPositions(), got = r.skeleton->restPositions();
  for (const char* name : {"LeftHand", "RightHand", "LeftFoot", "LeftHandIndex2", "Head"}) {
    const int32_t k = r.skeleton->find(name);
    ASSERT_GE(k, 0) << name;
    EXPECT_LT((got[size_t(k)] - want[size_t(c.skeleton.find(name))]).norm(), 1e-5) << name;
  }
  const Aabb box = r.meshes.at(0).mesh.bounds(), rest = humanoid().meshes[0].mesh.bounds();
  EXPECT_NEAR(box.size().x(), rest.size().x(), 1e-4);  // arms out, as at the bind pose
  EXPECT_NEAR(box.min.y(), rest.min.y(), 1e-4);
  EXPECT_LT(r.meshes[0].bindResidual, 1e-6 * 1.75);
  bool said = false;
  for (const Diagnostic& d : r.diagnostics) said |= d.message.find("another pose than the bind pose") != std::string::npos;
  EXPECT_TRUE(said);
}

// BCN_Epileptic.X (assimp-testmodels): three meshes skinned to 54 bones whose
// hierarchy is at the bind pose (every G_b O_b is the identity) while the mesh
// nodes carry a -90 degree turn about X, which skinning ignores. The body must
// be where the skeleton is, upright with it.
TEST(RealSkinnedFile, EpilepticMeshesStandWithTheirSkeleton) {
  ImportOptions o = quick();
  o.grouping = MeshGrouping::Separate;
  const ImportResult r = importFile(model("X/BCN_Epileptic.X"), o);
  ASSERT_TRUE(r.skeleton);
  ASSERT_EQ(r.meshes.size(), 3u);
  const std::vector<Vec3> joints = r.skeleton->restPositions();
  Aabb skeletonBox;
  for (const Vec3& p : joints) skeletonBox.add(p);
  Aabb all;
  for (const ImportedMesh& m : r.meshes) {
    all.add(m.mesh.bounds());
    // The file's single-precision matrices agree to a few parts in a million.
    EXPECT_LT(m.bindResidual, 1e-5 * skeletonBox.size().maxCoeff()) << m.name;
  }
  // The skeleton's long axis is the mesh's long axis, and the two overlap.
  int skeletonAxis = 0, meshAxis = 0;
  skeletonBox.size().maxCoeff(&skeletonAxis);
  all.size().maxCoeff(&meshAxis);
  EXPECT_EQ(skeletonAxis, meshAxis);
  EXPECT_NEAR(all.size()[meshAxis], skeletonBox.size()[skeletonAxis], 0.25 * all.size()[meshAxis]);
  // Every joint lies within the body's box (grown by 5 % of its size).
  Aabb grown = all;
  grown.min -= 0.05 * all.size();
  grown.max += 0.05 * all.size();
  for (size_t j = 0; j < joints.size(); ++j)
    EXPECT_TRUE((joints[j].array() >= grown.min.array()).all() && (joints[j].array() <= grown.max.array()).all())
        << r.skeleton->joints[j].name;
  // Each mesh is near the joints that skin it: its centre lies within the bones' reach.
  for (const ImportedMesh& m : r.meshes) {
    ASSERT_TRUE(m.skin);
    Vec3 centre = 0.5 * (m.mesh.bounds().min + m.mesh.bounds().max);
    double nearest = std::numeric_limits<double>::infinity();
    for (const std::string& b : m.skin->bones)
      if (int32_t j = r.skeleton->find(b); j >= 0) nearest = std::min(nearest, (joints[size_t(j)] - centre).norm());
    EXPECT_LT(nearest, 0.25 * all.size().maxCoeff()) << m.name;
  }
}

// By default the skinned body parts of a file become one body, welded where
// they meet (BCN's torso, legs and head), and small or unskinned parts stay
// apart to follow the skeleton (the exchange character's eyes).
TEST(MeshGrouping, BodyPartsJoinAndSmallPartsStayApart) {
  const ImportResult separate = [] {
    ImportOptions o = quick();
    o.grouping = MeshGrouping::Separate;
    return importFile(model("X/BCN_Epileptic.X"), o);
  }();
  const ImportResult joined = importFile(model("X/BCN_Epileptic.X"), quick());
  ASSERT_EQ(joined.meshes.size(), 1u);
  EXPECT_EQ(joined.meshes[0].name, "BCN_Epileptic");
  size_t triangles = 0, vertices = 0;
  for (const ImportedMesh& m : separate.meshes) {
    triangles += m.mesh.triangleCount();
    vertices += m.mesh.vertexCount();
  }
  EXPECT_EQ(joined.meshes[0].mesh.triangleCount(), triangles);
  EXPECT_LE(joined.meshes[0].mesh.vertexCount(), vertices);
  ASSERT_TRUE(joined.meshes[0].skin);
  EXPECT_EQ(joined.meshes[0].skin->vertexCount(), joined.meshes[0].mesh.vertexCount());

  test::TempDir dir;
  const std::string path = dir.file("character.glb");
  exportSkinnedCharacter(character().skeleton, character().parts, path);
  const ImportResult r = importFile(path, quick());
  ASSERT_EQ(r.meshes.size(), 3u);
  EXPECT_EQ(r.meshes[0].name, "character");
  ASSERT_TRUE(r.meshes[0].skin);
  size_t bodyTriangles = 0;
  for (int k = 0; k < 3; ++k) bodyTriangles += character().parts[size_t(k)].mesh.triangleCount();
  EXPECT_EQ(r.meshes[0].mesh.triangleCount(), bodyTriangles);
  EXPECT_EQ(r.meshes[1].name, "LeftEye");
  EXPECT_EQ(r.meshes[2].name, "RightEye");
  EXPECT_FALSE(r.meshes[1].skin);
}

// Skin bones as Assimp counts them (`assimp info FILE`): the distinct bones
// the meshes name once each vertex keeps its four largest weights (a bone
// left with none is no bone).
TEST(RealSkinnedFile, SkinBonesAgreeWithAssimp) {
  for (const char* file : {"FBX/animation_with_skeleton.fbx", "FBX/huesitos.fbx", "X/BCN_Epileptic.X",
                           "glTF2/simple_skin/simple_skin.gltf", "X/Testwuson.X"}) {
    const ImportResult r = importFile(model(file), quick());
    Assimp::Importer importer;
    const aiScene* s = importer.ReadFile(model(file), aiProcess_Triangulate | aiProcess_LimitBoneWeights);
    ASSERT_TRUE(s) << file;
    std::set<std::string> assimpBones, ours;
    for (unsigned m = 0; m < s->mNumMeshes; ++m)
      for (unsigned b = 0; b < s->mMeshes[m]->mNumBones; ++b)
        assimpBones.insert(sanitizeName(s->mMeshes[m]->mBones[b]->mName.C_Str()));
    for (const ImportedMesh& m : r.meshes)
      if (m.skin) ours.insert(m.skin->bones.begin(), m.skin->bones.end());
    EXPECT_EQ(ours, assimpBones) << file;
    ASSERT_TRUE(r.skeleton) << file;
    for (const std::string& b : assimpBones) EXPECT_GE(r.skeleton->find(b), 0) << file << ": " << b;
    if (std::string(file) == "FBX/animation_with_skeleton.fbx") {
      EXPECT_EQ(ours.size(), 13u);                  // as `assimp info` prints
      EXPECT_EQ(r.skeleton->size(), 15u);  // "Bone.001", weightless, joins "Bone" to "Bone.002"; "Armature" roots both chains
    }
  }
}

}  // namespace
}  // namespace sinew
