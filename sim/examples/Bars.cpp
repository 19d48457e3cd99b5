#include "examples/Bars.h"

#include "core/Error.h"

#include <algorithm>
#include <array>
#include <string>

namespace sinew::examples {

namespace {

int32_t nodeIndex(const GridBox& b, int i, int j, int k) {
  return int32_t((k * (b.cellsY + 1) + j) * (b.cellsX + 1) + i);
}

// Bone regions by cell: region(i, j, k) for cell (i, j, k).
template <class Region>
BarScene build(const GridBox& box, Region region) {
  BarScene s;
  s.mesh = gridBox(box);
  s.mesh.region.assign(s.mesh.tets.size(), -1);
  size_t t = 0;
  for (int k = 0; k < box.cellsZ; ++k)
    for (int j = 0; j < box.cellsY; ++j)
      for (int i = 0; i < box.cellsX; ++i)
        for (int c = 0; c < 6; ++c) s.mesh.region[t++] = region(i, j, k);
  return s;
}

Vec3 cellCorner(const GridBox& b, int i, int j, int k) {
  return Vec3(b.size.x() * (double(i) / b.cellsX - 0.5), b.size.y() * (double(j) / b.cellsY - 0.5),
              b.size.z() * (double(k) / b.cellsZ - 0.5));
}

}  // namespace

TetMesh gridBox(const GridBox& b) {
  if (b.cellsX < 1 || b.cellsY < 1 || b.cellsZ < 1 || !(b.size.minCoeff() > 0))
    throw InputError("grid box", "needs at least one cell along each axis and a positive size");
  TetMesh m;
  for (int k = 0; k <= b.cellsZ; ++k)
    for (int j = 0; j <= b.cellsY; ++j)
      for (int i = 0; i <= b.cellsX; ++i) m.nodes.push_back(cellCorner(b, i, j, k));
  // Six tets per cube, each a path 000 -> 111 along the axes in one order
  // (the Kuhn subdivision: neighbouring cubes cut their shared faces alike).
  const std::array<std::array<int, 3>, 6> orders{{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}};
  for (int k = 0; k < b.cellsZ; ++k)
    for (int j = 0; j < b.cellsY; ++j)
      for (int i = 0; i < b.cellsX; ++i)
        for (const auto& order : orders) {
          std::array<int, 3> at{i, j, k};
          Tet tet;
          tet[0] = nodeIndex(b, at[0], at[1], at[2]);
          for (int s = 0; s < 3; ++s) {
            ++at[size_t(order[size_t(s)])];
            tet[size_t(s + 1)] = nodeIndex(b, at[0], at[1], at[2]);
          }
          const Vec3 &p0 = m.nodes[size_t(tet[0])], &p1 = m.nodes[size_t(tet[1])], &p2 = m.nodes[size_t(tet[2])],
                     &p3 = m.nodes[size_t(tet[3])];
          if ((p1 - p0).cross(p2 - p0).dot(p3 - p0) < 0) std::swap(tet[2], tet[3]);
          m.tets.push_back(tet);
        }
  return m;
}

BarScene chainScene(int bones, const GridBox& b) {
  if (bones < 1) throw InputError("chain", "needs at least one bone");
  // Cells along x: one of flesh at each end, `bones` runs separated by one cell.
  const int run = (b.cellsX - 2 - (bones - 1)) / bones;
  if (run < 1) throw InputError("chain", std::to_string(bones) + " bones do not fit in " + std::to_string(b.cellsX) + " cells");
  const int used = bones * run + bones - 1, first = (b.cellsX - used) / 2;
  const int y0 = b.cellsY / 4, y1 = b.cellsY - b.cellsY / 4, z0 = b.cellsZ / 4, z1 = b.cellsZ - b.cellsZ / 4;
  BarScene s = build(b, [&](int i, int j, int k) -> int32_t {
    if (j < y0 || j >= y1 || k < z0 || k >= z1 || i < first) return -1;
    const int rel = i - first, bone = rel / (run + 1);
    return bone < bones && rel % (run + 1) < run ? bone : -1;
  });
  for (int k = 0; k < bones; ++k) s.joints.bones.push_back("bone" + std::to_string(k));
  for (int k = 0; k + 1 < bones; ++k) {
    const int gap = first + (k + 1) * (run + 1) - 1;  // the flesh cell between bone k and k + 1
    RegionJoint j;
    j.name = "joint" + std::to_string(k);
    j.position = 0.5 * (cellCorner(b, gap, 0, 0) + cellCorner(b, gap + 1, 0, 0));
    j.position.y() = 0.5 * (cellCorner(b, 0, y0, 0).y() + cellCorner(b, 0, y1, 0).y());
    j.position.z() = 0.5 * (cellCorner(b, 0, 0, z0).z() + cellCorner(b, 0, 0, z1).z());
    j.parentBone = k;
    j.childBone = k + 1;
    s.joints.joints.push_back(j);
  }
  return s;
}

BarScene barScene(const GridBox& b) { return chainScene(2, b); }

Project makeBarProject(const BarScene& scene, const std::string& name, double lift) {
  Project p;
  p.name = name;
  const Vec3 up(0, lift, 0);
  // The surface: the boundary faces over the boundary nodes.
  const TetBoundary boundary = tetBoundary(scene.mesh);
  std::vector<int32_t> vertexOf(scene.mesh.nodeCount(), -1);
  MeshObject mesh;
  mesh.id = p.allocateId();
  mesh.name = name;
  VolumeObject volume;
  for (size_t f = 0; f < boundary.faces.size(); ++f) {
    Tri tri;
    for (int c = 0; c < 3; ++c) {
      const int32_t node = boundary.faces[f][size_t(c)];
      if (vertexOf[size_t(node)] < 0) {
        vertexOf[size_t(node)] = int32_t(mesh.mesh.positions.size());
        mesh.mesh.positions.push_back(scene.mesh.nodes[size_t(node)] + up);
        // Embedded at the node itself: weight 1 on its corner of the face's tet.
        const int32_t t = boundary.tetOfFace[f];
        std::array<double, 4> w{0, 0, 0, 0};
        for (int k = 0; k < 4; ++k)
          if (scene.mesh.tets[size_t(t)][size_t(k)] == node) w[size_t(k)] = 1;
        volume.embedding.tet.push_back(t);
        volume.embedding.weights.push_back(w);
        volume.embedding.extrapolated.push_back(0);
      }
      tri[size_t(c)] = vertexOf[size_t(node)];
    }
    mesh.mesh.triangles.push_back(tri);
  }
  p.meshes.push_back(mesh);

  // The skeleton: a joint per bone, where the joint file puts it.
  SkeletonObject skel;
  skel.id = p.allocateId();
  skel.name = name + " skeleton";
  TetMesh lifted = scene.mesh;
  for (Vec3& x : lifted.nodes) x += up;
  JointFile joints = scene.joints;
  for (RegionJoint& j : joints.joints) j.position += up;
  skel.skeleton = skeletonFromJoints(joints, lifted);
  const auto& bones = scene.joints.bones;
  p.skeleton = skel;

  volume.id = p.allocateId();
  volume.name = name + " conforming mesh";
  volume.kind = VolumeKind::Conforming;
  volume.mesh = std::move(lifted);
  volume.bones = bones;
  volume.fixedBone.assign(scene.mesh.nodeCount(), -1);
  for (size_t t = 0; t < scene.mesh.tetCount(); ++t)
    if (scene.mesh.region[t] >= 0)
      for (int32_t n : scene.mesh.tets[t]) volume.fixedBone[size_t(n)] = scene.mesh.region[t];
  volume.surface = mesh.id;
  p.volumes.push_back(volume);
  return p;
}

BarScene rigidBarScene(const GridBox& b) {
  BarScene s = build(b, [](int, int, int) { return 0; });
  s.joints.bones = {"bar"};
  return s;
}

}  // namespace sinew::examples
