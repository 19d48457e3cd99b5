// Small tet meshes and rigs for the skinning-weight tests and benchmarks,
// built in code: grids of cubes split into tets, and a voxel cage of the
// example humanoid with its bone shapes as handles. Header-only; depends on
// sinew_sim only (no GoogleTest), so bench_sim includes it too.
#pragma once

#include "examples/Humanoid.h"
#include "geometry/TriangleTree.h"
#include "model/BoneShape.h"
#include "volume/TetMesh.h"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace sinew::test {

// Cubes of a grid (cells.x * cells.y * cells.z, side h, corner `origin`), each
// split into the 6 tets of its Kuhn (Freudenthal) subdivision around the main
// diagonal, which conform across faces. `keepCell(i, j, k)` selects cells
// (default: all); only nodes of kept cells are created. Positively oriented.
inline TetMesh gridTetMesh(const Vec3& origin, const Eigen::Vector3i& cells, double h,
                           const std::function<bool(int, int, int)>& keepCell = {}) {
  const Eigen::Vector3i nn = cells.array() + 1;
  std::vector<int32_t> nodeId(size_t(nn.prod()), -1);
  TetMesh m;
  auto node = [&](int i, int j, int k) {
    const size_t key = size_t(i) + size_t(nn.x()) * (size_t(j) + size_t(nn.y()) * size_t(k));
    if (nodeId[key] < 0) {
      nodeId[key] = int32_t(m.nodes.size());
      m.nodes.push_back(origin + h * Vec3(i, j, k));
    }
    return nodeId[key];
  };
  static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  for (int k = 0; k < cells.z(); ++k)
    for (int j = 0; j < cells.y(); ++j)
      for (int i = 0; i < cells.x(); ++i) {
        if (keepCell && !keepCell(i, j, k)) continue;
        for (const auto& p : perms) {
          Eigen::Vector3i c(i, j, k);
          Tet t;
          t[0] = node(c.x(), c.y(), c.z());
          for (int s = 0; s < 3; ++s) {
            c[p[s]] += 1;
            t[size_t(s) + 1] = node(c.x(), c.y(), c.z());
          }
          m.tets.push_back(t);
          if (tetVolume(m, m.tets.size() - 1) < 0) std::swap(m.tets.back()[2], m.tets.back()[3]);
        }
      }
  return m;
}

// A bar along x: nx x ny x nz cells of side h from the origin.
inline TetMesh bar(int nx, int ny, int nz, double h) {
  return gridTetMesh(Vec3::Zero(), Eigen::Vector3i(nx, ny, nz), h);
}

// A voxel cage of the example humanoid with its default bone shapes as handles:
// the cells that hold a surface vertex or whose centre is inside, and each node
// inside a bone shape grown by `grow` metres fixed to the nearest such bone.
struct HumanoidCage {
  TriMesh surface;
  Skeleton skeleton;
  TetMesh mesh;
  std::vector<std::string> bones;   // names of the bones used (nBones)
  std::vector<int32_t> fixedBone;   // (nNodes) index into bones, or -1
};

inline HumanoidCage humanoidCage(double spacing, size_t maxBones = 0, double surfaceSpacing = 0.028) {
  HumanoidOptions options;
  options.gridSpacing = surfaceSpacing;
  const Project project = makeHumanoidProject(options);
  HumanoidCage cage;
  cage.surface = project.meshes[0].mesh;
  cage.skeleton = project.skeleton->skeleton;
  const Aabb box = cage.surface.bounds();
  const Vec3 origin = box.min - Vec3::Constant(0.5 * spacing);
  const Eigen::Vector3i cells = ((box.size() / spacing).array().ceil() + 1).cast<int>();
  std::vector<uint8_t> keep(size_t(cells.prod()), 0);
  auto index = [&](int i, int j, int k) { return size_t(i) + size_t(cells.x()) * (size_t(j) + size_t(cells.y()) * size_t(k)); };
  auto cellOf = [&](const Vec3& p) -> Eigen::Vector3i {
    return ((p - origin) / spacing).array().floor().cast<int>().max(0).min(cells.array() - 1);
  };
  for (const Vec3& p : cage.surface.positions) {
    const Eigen::Vector3i c = cellOf(p);
    keep[index(c.x(), c.y(), c.z())] = 1;
  }
  const TriangleTree tree(cage.surface);
  const Vec3 dir = Vec3(1.0, 0.0123, 0.0071).normalized();
  for (int k = 0; k < cells.z(); ++k)
    for (int j = 0; j < cells.y(); ++j)
      for (int i = 0; i < cells.x(); ++i) {
        const Vec3 centre = origin + spacing * Vec3(i + 0.5, j + 0.5, k + 0.5);
        if (tree.raycastAll(centre, dir).size() % 2 == 1) keep[index(i, j, k)] = 1;
      }
  cage.mesh = gridTetMesh(origin, cells, spacing, [&](int i, int j, int k) { return keep[index(i, j, k)] != 0; });

  std::vector<int32_t> joints = cage.skeleton.bones();
  if (maxBones > 0 && joints.size() > maxBones) {
    // Drop the shortest bones (the shoulders first on the humanoid).
    std::vector<int32_t> byLength = joints;
    auto length = [&](int32_t j) {
      const BoneShape& s = cage.skeleton.joints[size_t(j)].bone;
      return (s.end - s.start).norm();
    };
    std::stable_sort(byLength.begin(), byLength.end(), [&](int32_t a, int32_t b) { return length(a) < length(b); });
    byLength.resize(joints.size() - maxBones);
    std::erase_if(joints, [&](int32_t j) { return std::find(byLength.begin(), byLength.end(), j) != byLength.end(); });
  }
  const std::vector<Transform> world = cage.skeleton.worldRest();
  for (int32_t j : joints) cage.bones.push_back(cage.skeleton.joints[size_t(j)].name);
  cage.fixedBone.assign(cage.mesh.nodeCount(), -1);
  const double grow = 0.5 * spacing;
  for (size_t i = 0; i < cage.mesh.nodeCount(); ++i) {
    double best = grow;
    for (size_t b = 0; b < joints.size(); ++b) {
      const double d = boneShapeDistance(cage.skeleton.joints[size_t(joints[b])].bone, world[size_t(joints[b])], cage.mesh.nodes[i]);
      if (d <= best) {
        best = d;
        cage.fixedBone[i] = int32_t(b);
      }
    }
  }
  return cage;
}

}  // namespace sinew::test
