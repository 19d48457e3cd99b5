// The cage's surface steps: winding numbers, the voxel hull of any surface,
// and constrained simplification.
#include "volume/Decimate.h"
#include "volume/Hull.h"
#include "volume/WindingNumber.h"

#include "geometry/MeshValidation.h"
#include "model/BoneShape.h"
#include "sim/volume/VolumeTestUtil.h"
#include "volume/Closest.h"

#include <gtest/gtest.h>

namespace sinew {
namespace {

using test::cube;

// Every point strictly inside `surface` (exact winding number) and at least
// `clearance` from it.
void expectEncloses(const TriMesh& surface, const std::vector<Vec3>& points, double clearance = 0.0) {
  const WindingNumber w(surface);
  size_t outside = 0, close = 0;
  for (const Vec3& p : points) {
    outside += w.exact(p) < 0.5;
    double d2 = std::numeric_limits<double>::infinity();
    for (const Tri& t : surface.triangles)
      d2 = std::min(d2, pointTriangleDistanceSquared(p, surface.positions[t[0]], surface.positions[t[1]],
                                                     surface.positions[t[2]]));
    close += std::sqrt(d2) < clearance;
  }
  EXPECT_EQ(outside, 0u);
  EXPECT_EQ(close, 0u);
}

void expectWatertight(const TriMesh& m) {
  const MeshReport r = validateMesh(m);
  EXPECT_TRUE(r.watertight()) << r.diagnostics("hull").front().message;
  EXPECT_TRUE(r.selfIntersectionsChecked);
  EXPECT_GT(enclosedVolume(m), 0.0);
}

TEST(WindingNumber, InsideOutsideAndOpen) {
  const WindingNumber closed(cube());
  EXPECT_NEAR(closed.exact(Vec3(0.5, 0.5, 0.5)), 1.0, 1e-12);
  EXPECT_NEAR(closed.exact(Vec3(2, 0.5, 0.5)), 0.0, 1e-12);
  // A cube missing its top face: 5/6 at the centre (solid angle of five faces).
  const WindingNumber open(test::openCube());
  EXPECT_NEAR(open.exact(Vec3(0.5, 0.5, 0.5)), 5.0 / 6.0, 1e-12);
}

TEST(WindingNumber, HierarchicalMatchesExact) {
  const TriMesh m = boneShapeSurface(BoneShape::capsule(Vec3::Zero(), Vec3(0, 1, 0), 0.3), {}, 48);
  const WindingNumber w(m);
  double worst = 0;
  for (const Vec3& p : test::randomPoints(Aabb{Vec3(-1, -1, -1), Vec3(1, 2, 1)}, 500))
    worst = std::max(worst, std::abs(w(p) - w.exact(p)));
  // First-order far field at beta = 2: a few hundredths at worst, far from
  // the 1/2 threshold the hull uses.
  EXPECT_LT(worst, 0.03);
  const WindingNumber fine(m, 4.0);
  double worstFine = 0;
  for (const Vec3& p : test::randomPoints(Aabb{Vec3(-1, -1, -1), Vec3(1, 2, 1)}, 500))
    worstFine = std::max(worstFine, std::abs(fine(p) - fine.exact(p)));
  EXPECT_LT(worstFine, worst);
}

TEST(Hull, ClosedCube) {
  HullOptions o;
  o.spacing = 0.1;
  o.offset = 0.1;
  HullReport r;
  const TriMesh h = voxelHull(cube(), o, Progress::none(), &r);
  expectWatertight(h);
  expectEncloses(h, cube().positions);
  EXPECT_FALSE(r.openInput);
  // About the cube grown by the offset (rounded corners): between the cube and the grown box.
  EXPECT_GT(enclosedVolume(h), 1.0);
  EXPECT_LT(enclosedVolume(h), 1.25 * 1.25 * 1.25);
}

TEST(Hull, OpenCubeIsFilledNotHollow) {
  HullOptions o;
  o.spacing = 0.1;
  o.offset = 0.1;
  HullReport r;
  const TriMesh h = voxelHull(test::openCube(), o, Progress::none(), &r);
  EXPECT_TRUE(r.openInput);
  expectWatertight(h);
  expectEncloses(h, test::openCube().positions);
  expectEncloses(h, {Vec3(0.5, 0.5, 0.5)});  // the winding number filled the inside
  EXPECT_EQ(validateMesh(h).componentCount, 1u);
}

TEST(Hull, NonManifoldAndSelfIntersectingInput) {
  HullOptions o;
  o.spacing = 0.08;
  o.offset = 0.08;
  for (const TriMesh& m : {test::cubesSharingEdge(), test::overlappingCubes()}) {
    const TriMesh h = voxelHull(m, o);
    expectWatertight(h);
    expectEncloses(h, m.positions);
  }
}

TEST(Hull, EveryVertexInsideEvenWithATinyOffset) {
  // The offset is far below a cell: the vertices' cells are made solid.
  HullOptions o;
  o.spacing = 0.15;
  o.offset = 0.01;
  const TriMesh m = boneShapeSurface(BoneShape::capsule(Vec3::Zero(), Vec3(0.3, 0.8, 0.1), 0.25), {}, 20);
  const TriMesh h = voxelHull(m, o);
  expectWatertight(h);
  expectEncloses(h, m.positions);
}

TEST(Hull, RefusesHugeGridsAndEmptyInput) {
  HullOptions o;
  o.spacing = 1e-4;
  EXPECT_THROW(voxelHull(cube(), o), InputError);
  EXPECT_THROW(voxelHull(TriMesh{}, HullOptions{}), InputError);
}

TEST(Decimate, KeepsPointsInsideAndStaysWatertight) {
  // A finely sampled capsule hull simplified a lot, with points just inside.
  const TriMesh m = boneShapeSurface(BoneShape::capsule(Vec3::Zero(), Vec3(0, 1, 0), 0.3), {}, 40);
  std::vector<Vec3> keep;
  for (const Vec3& p : m.positions) keep.push_back(Vec3(0, std::clamp(p.y(), 0.0, 1.0), 0) +
                                                   0.9 * (p - Vec3(0, std::clamp(p.y(), 0.0, 1.0), 0)));
  DecimateOptions o;
  o.keepInside = keep;
  o.clearance = 0.005;
  DecimateReport r;
  const TriMesh d = decimateSurface(m, 120, o, Progress::none(), &r);
  EXPECT_TRUE(r.reachedTarget);
  EXPECT_LE(d.vertexCount(), 120u);
  EXPECT_EQ(r.inputVertices, m.vertexCount());
  expectWatertight(d);
  expectEncloses(d, keep, 0.005 * 0.999);
}

TEST(Decimate, ImproveKeepsTheConstraints) {
  const TriMesh m = boneShapeSurface(BoneShape::capsule(Vec3::Zero(), Vec3(0, 1, 0), 0.3), {}, 32);
  std::vector<Vec3> keep = {Vec3(0, 0.5, 0), Vec3(0.2, 0.5, 0), Vec3(0, -0.2, 0)};
  DecimateOptions o;
  o.keepInside = keep;
  o.clearance = 0.01;
  Decimator d(m, o);
  d.run(200);
  d.improve(3);
  EXPECT_EQ(d.vertexCount(), d.mesh().vertexCount());
  EXPECT_LE(d.vertexCount(), 200u);
  expectWatertight(d.mesh());
  expectEncloses(d.mesh(), keep, 0.01 * 0.999);
  // Continuing only removes vertices.
  d.run(100);
  EXPECT_LE(d.vertexCount(), 100u);
  expectWatertight(d.mesh());
}

TEST(Decimate, RefusesOpenSurfaces) {
  EXPECT_THROW(Decimator(test::openCube(), {}), InputError);
  EXPECT_THROW(Decimator(test::cubesSharingEdge(), {}), InputError);
}

TEST(Decimate, Deterministic) {
  const TriMesh m = boneShapeSurface(BoneShape::capsule(Vec3::Zero(), Vec3(0, 1, 0), 0.3), {}, 24);
  EXPECT_EQ(decimateSurface(m, 80), decimateSurface(m, 80));
}

}  // namespace
}  // namespace sinew
