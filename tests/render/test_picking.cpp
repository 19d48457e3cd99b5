// Picking against a known scene: a unit cube in front of the camera and a
// joint inside it.
#include "Picking.h"

#include <gtest/gtest.h>

using namespace sinew;
using namespace sinew::render;

namespace {
TriMesh cube() {
  TriMesh m;
  for (int i = 0; i < 8; ++i) m.positions.push_back(Vec3(i & 1, (i >> 1) & 1, (i >> 2) & 1) - Vec3(0.5, 0.5, 0.5));
  m.triangles = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
                 {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
  return m;
}
}  // namespace

TEST(Picking, FacesVerticesJointsAndNothing) {
  const TriMesh mesh = cube();
  const TriangleTree tree(mesh);
  Camera cam;
  cam.target = Vec3::Zero();
  cam.distance = 4;
  cam.yaw = 0;
  cam.pitch = 0;  // looking along -z at the +z face
  const int w = 400, h = 400;
  const std::vector<PickMeshTarget> meshes{{7, &mesh, &tree}};
  // The centre of the +z face: a face, not a vertex.
  PickResult r = pick(cam, w, h, 200, 200, meshes, {});
  EXPECT_EQ(r.kind, PickKind::Face);
  EXPECT_EQ(r.object, 7u);
  EXPECT_NEAR(r.point.z(), 0.5, 1e-9);
  EXPECT_NEAR(r.rayDistance, 3.5, 1e-9);
  // Near the corner (0.5, 0.5, 0.5): that vertex.
  double x, y;
  ASSERT_TRUE(cam.project(Vec3(0.5, 0.5, 0.5), w, h, &x, &y));
  r = pick(cam, w, h, x - 2, y + 2, meshes, {});
  EXPECT_EQ(r.kind, PickKind::Vertex);
  EXPECT_EQ(r.vertex, 7);
  // A joint at the centre wins over the face in front of it.
  r = pick(cam, w, h, 200, 200, meshes, {{9, 3, Vec3::Zero()}});
  EXPECT_EQ(r.kind, PickKind::Joint);
  EXPECT_EQ(r.joint, 3);
  EXPECT_EQ(r.object, 9u);
  // Outside the cube: nothing.
  EXPECT_EQ(pick(cam, w, h, 5, 5, meshes, {}).kind, PickKind::None);
}
