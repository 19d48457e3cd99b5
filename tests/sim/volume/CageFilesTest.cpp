// Volumetric meshing of real files nobody here wrote (Debian's
// assimp-testmodels): open, non-manifold, self-intersecting, many pieces.
// The cage accepts them all; the conforming mesh refuses what it cannot mesh.
#include "volume/Cage.h"
#include "volume/RegionMesh.h"

#include "TestUtil.h"
#include "geometry/MeshValidation.h"
#include "io/AssimpImport.h"
#include "sim/volume/VolumeTestUtil.h"

#include <gtest/gtest.h>

namespace sinew {
namespace {

TriMesh importMerged(const std::string& relative) {
  ImportOptions o;
  o.grouping = MeshGrouping::All;
  const ImportResult r = importFile(test::model(relative), o);
  EXPECT_EQ(r.meshes.size(), 1u);
  return r.meshes.empty() ? TriMesh{} : r.meshes[0].mesh;
}

class CageFromFile : public ::testing::TestWithParam<const char*> {};

TEST_P(CageFromFile, EnclosesEveryVertex) {
  const TriMesh m = importMerged(GetParam());
  ASSERT_GT(m.triangleCount(), 0u);
  EXPECT_FALSE(validateMesh(m).watertight());  // that is the point
  CageOptions o;
  o.targetNodes = 600;
  const CageResult c = buildCage(m, Skeleton{}, o);
  EXPECT_TRUE(validateMesh(c.cageSurface).watertight());
  EXPECT_TRUE(c.report.hull.openInput);
  EXPECT_EQ(c.volume.embedding.extrapolatedCount(), 0u);
  EXPECT_LT(test::maxReproductionError(c.volume.embedding, c.volume.mesh, m.positions), 1e-9 * m.bounds().diagonal());
  EXPECT_EQ(c.report.quality.invertedCount, 0u);
  EXPECT_GT(c.report.nodes, 400u);
  EXPECT_LT(c.report.nodes, 900u);
}

INSTANTIATE_TEST_SUITE_P(Assimp, CageFromFile,
                         ::testing::Values("OBJ/spider.obj",           // 18 pieces, open, non-manifold, self-intersecting
                                           "OBJ/WusonOBJ.obj",         // 51 pieces, open, self-intersecting
                                           "STL/sphereWithHole.stl"));  // a sphere with a hole

TEST(RegionMeshFromFile, SphereWithHoleIsRefusedWithTheHoleHighlighted) {
  const TriMesh m = importMerged("STL/sphereWithHole.stl");
  const std::vector<BoneSurface> bones = {{"Core", test::cube(m.bounds().center() - Vec3::Constant(0.1), 0.2)}};
  const RegionCheck check = checkRegionInput(m, bones);
  ASSERT_FALSE(check.ok());
  EXPECT_EQ(check.problems[0].kind, RegionProblem::Kind::ExteriorNotWatertight);
  EXPECT_EQ(check.exterior.boundaryEdgeCount, 9u);
  EXPECT_FALSE(check.exteriorProblemTriangles().empty());
  try {
    buildRegionMesh(m, bones);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("9 open edges"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cage"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace sinew
