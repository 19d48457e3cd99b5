// Medit .mesh and Sinew .joint files: exact round trips and errors that name
// the file and line.
#include "io/TetFiles.h"

#include "TestUtil.h"
#include "volume/Tetrahedralize.h"

#include <gtest/gtest.h>

namespace sinew {
namespace {

using test::TempDir;

// Nested cubes: an inner bone region (1) inside flesh, with awkward coordinates.
TetMesh regionMesh() {
  TriMesh outer = test::cube(Vec3(-0.1, 0.2, 1.0 / 3.0), 2.0);
  const TriMesh inner = test::cube(Vec3(0.4, 0.7, 0.9), 1.0);
  TetrahedralizeOptions o;
  o.maxVolume = 0.05;
  return tetrahedralizeSurface(test::merged(outer, inner), {}, {{Vec3(0.9, 1.2, 1.4), 1}}, o, "nested").mesh;
}

TEST(TetFiles, MeditRoundTripIsExact) {
  const TempDir dir;
  const TetMesh m = regionMesh();
  ASSERT_FALSE(m.region.empty());
  const TetBoundary boundary = tetBoundary(m);
  writeMedit(dir.file("a.mesh"), m, boundary.faces);
  const TetMeshFile f = readMedit(dir.file("a.mesh"));
  EXPECT_EQ(f.mesh, m);  // nodes bit for bit, tets, regions
  EXPECT_EQ(f.triangles, boundary.faces);
  EXPECT_EQ(f.triangleRefs, std::vector<int32_t>(boundary.faces.size(), 0));
  // Regions are written as references region + 1.
  const std::string text = test::readBytes(dir.file("a.mesh"));
  EXPECT_EQ(text.rfind("MeshVersionFormatted 2\nDimension 3\nVertices\n", 0), 0u);
}

TEST(TetFiles, AllFleshMeshReadsBackWithoutRegions) {
  TetMesh m;
  m.nodes = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1), Vec3(0.1 + 0.2, 1e-300, -7.25)};
  m.tets = {{0, 1, 2, 3}};
  const TetMeshFile f = parseMedit(formatMedit(m), "t.mesh");
  EXPECT_EQ(f.mesh, m);
  EXPECT_TRUE(f.mesh.region.empty());
  EXPECT_EQ(f.mesh.nodes[4].x(), 0.1 + 0.2);
}

TEST(TetFiles, ReadsTetGenStyleFiles) {
  // As TetGen writes them: version 1, the dimension on its own line, other
  // sections, negatively oriented tets, comments.
  const std::string text =
      "MeshVersionFormatted 1\n\nDimension\n3\n\n# Set of mesh vertices\nVertices\n4\n"
      "0 0 0 0\n1 0 0 0\n0 1 0 0\n0 0 1 0\n\nEdges\n1\n1 2 0\nCorners\n1\n1\n"
      "Triangles\n1\n1 2 3 5\nTetrahedra\n1\n1 3 2 4 2\n\nEnd\n";
  const TetMeshFile f = parseMedit(text, "tetgen.mesh");
  ASSERT_EQ(f.mesh.tetCount(), 1u);
  EXPECT_GT(tetVolume(f.mesh, 0), 0.0);  // reoriented
  EXPECT_EQ(f.mesh.region, std::vector<int32_t>{1});
  EXPECT_EQ(f.triangleRefs, std::vector<int32_t>{5});
}

TEST(TetFiles, JointRoundTripIsExact) {
  const TempDir dir;
  JointFile j;
  j.bones = {"Hips", "Left Up Leg", "Spine"};
  j.joints = {{"Left Up Leg", Vec3(0.1 + 0.2, -1.0 / 3.0, 1e-17), 0, 1, std::nullopt},
              {"Spine", Vec3(0, 1.03, 5e300), 0, 2, std::nullopt}};
  writeJointFile(dir.file("a.joint"), j);
  EXPECT_EQ(readJointFile(dir.file("a.joint")), j);
  const std::vector<std::string> lines = test::lines(test::readBytes(dir.file("a.joint")));
  EXPECT_NE(std::find(lines.begin(), lines.end(), "2 Left Up Leg"), lines.end());
}

TEST(TetFiles, RegionMeshFilesTogether) {
  // The pair Li et al. 2019 describe: regions in the .mesh, bones and joints in the .joint.
  const TempDir dir;
  const TetMesh m = regionMesh();
  const JointFile j{{"Root", "Bone"}, {{"Bone", Vec3(0.9, 1.2, 1.4), 0, 1, std::nullopt}}};
  writeMedit(dir.file("c.mesh"), m);
  writeJointFile(dir.file("c.joint"), j);
  const TetMeshFile f = readMedit(dir.file("c.mesh"));
  const JointFile g = readJointFile(dir.file("c.joint"));
  for (int32_t r : f.mesh.region) EXPECT_LT(r, int32_t(g.bones.size()));
  EXPECT_EQ(g, j);
}

// The error for `text` as a .mesh (or .joint) file.
std::string meditError(const std::string& text) {
  try {
    parseMedit(text, "bad.mesh");
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "bad.mesh");
    return e.problem();
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return {};
}
std::string jointError(const std::string& text) {
  try {
    parseJointFile(text, "bad.joint");
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "bad.joint");
    return e.problem();
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return {};
}

TEST(TetFiles, BadMeditFilesNameTheLine) {
  const std::string head = "MeshVersionFormatted 2\nDimension 3\nVertices\n4\n0 0 0 0\n1 0 0 0\n0 1 0 0\n0 0 1 0\n";
  EXPECT_EQ(meditError(""), "file is empty");
  EXPECT_EQ(meditError("solid cube\n"), "line 1: not a Medit mesh (expected 'MeshVersionFormatted', found 'solid')");
  EXPECT_EQ(meditError(head + "Tetrahedra\n1\n1 2 3 9 0\nEnd\n"), "line 11: vertex index 9 out of range 1..4");
  EXPECT_EQ(meditError(head + "Tetrahedra\n1\n1 2 3 4 -1\nEnd\n"),
            "line 11: region reference -1 is negative or too large");
  EXPECT_EQ(meditError(head + "Tetrahedra\n1\n1 2 3\n"), "line 12: unexpected end of file, expected a vertex index");
  EXPECT_EQ(meditError(head + "Tetrahedra\n1\n1 2 3 3 0\n"), "line 11: tetrahedron 1 repeats a vertex");
  EXPECT_EQ(meditError(head + "Tetrahedra\n99999999\n1 2 3 4 0\n"),
            "line 10: the tetrahedron count 99999999 is more than the file holds");
  EXPECT_EQ(meditError("MeshVersionFormatted 2\nDimension 3\nVertices\n1\n0 zero 0 0\n"),
            "line 5: expected a coordinate, found 'zero'");
  EXPECT_EQ(meditError(head + "Prisms\n0\n"), "line 9: unsupported section 'prisms'");
  EXPECT_EQ(meditError(head + "End\n"), "no Tetrahedra section");
  EXPECT_EQ(meditError("MeshVersionFormatted 2\nDimension 2\n"), "line 2: only 3D meshes are supported");
  EXPECT_NO_THROW(parseMedit(head + "Tetrahedra\n1\n1 2 3 4 0\n", "no-end.mesh"));  // no End: accepted
}

TEST(TetFiles, BadJointFilesNameTheLine) {
  EXPECT_EQ(jointError(""), "file is empty");
  EXPECT_EQ(jointError("Joints 0\n"), "line 1: not a Sinew joint file (expected 'SinewJoints 1')");
  EXPECT_EQ(jointError("SinewJoints 2\n"), "line 1: unsupported format version");
  EXPECT_EQ(jointError("SinewJoints 1\nBones 2\n1 A\n3 B\n"), "line 4: bone reference 3 out of order (expected 2)");
  EXPECT_EQ(jointError("SinewJoints 1\nBones 1\n1 A\nJoints 1\n1 2 0 0 0 J\nEnd\n"),
            "line 5: bone reference 2 out of range 1..1");
  EXPECT_EQ(jointError("SinewJoints 1\nBones 1\n1 A\nJoints 1\n1 1 0 x 0 J\nEnd\n"),
            "line 5: expected a coordinate, found 'x'");
  EXPECT_EQ(jointError("SinewJoints 1\nBones 1\n1 A\nJoints 1\n1 1 0 0 0\nEnd\n"), "line 5: expected a joint name");
  EXPECT_EQ(jointError("SinewJoints 1\nBones 1\n1 A\nJoints 0\n"), "line 4: unexpected end of file, expected 'End'");
  EXPECT_EQ(jointError("SinewJoints 1\nBones 1\n1 A\nJoints 0\nEnd\nmore\n"), "line 6: unexpected text after 'End'");
  EXPECT_EQ(jointError("SinewJoints 1\nBones 1\n1\n"), "line 3: expected a bone name");
}

TEST(TetFiles, UnwritableNamesAreRefused) {
  const TempDir dir;
  EXPECT_THROW(writeJointFile(dir.file("x.joint"), JointFile{{"a\nb"}, {}}), InputError);
  EXPECT_THROW(writeJointFile(dir.file("x.joint"), JointFile{{""}, {}}), InputError);
  EXPECT_THROW(readMedit(dir.file("missing.mesh")), InputError);
}

}  // namespace
}  // namespace sinew
