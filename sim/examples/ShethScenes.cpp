#include "examples/ShethScenes.h"

#include "examples/Humanoid.h"
#include "rig/RigBuild.h"
#include "geometry/Sdf.h"
#include "geometry/SurfaceNets.h"
#include "volume/Embed.h"
#include "volume/Tetrahedralize.h"

#include <algorithm>
#include <cmath>

namespace sinew::examples {

namespace {

Joint joint(const std::string& name, int32_t parent, const Vec3& local) {
  Joint j;
  j.name = name;
  j.parent = parent;
  j.restLocal.translation = local;
  return j;
}

}  // namespace

Project makeWeightedVolumeProject(const std::string& name, const TriMesh& surface, const Skeleton& skeleton,
                                  const std::function<std::vector<double>(const Vec3&)>& weights, double maxTetVolume) {
  Project p;
  p.name = name;
  MeshObject mesh;
  mesh.id = p.allocateId();
  mesh.name = name + " surface";
  mesh.mesh = surface;
  mesh.color = Vec3(0.85, 0.75, 0.6);
  p.meshes.push_back(mesh);
  SkeletonObject sk;
  sk.id = p.allocateId();
  sk.name = name + " skeleton";
  sk.skeleton = skeleton;
  p.skeleton = sk;

  TetrahedralizeOptions t;
  t.maxVolume = maxTetVolume;
  const TetrahedralizeResult tets = tetrahedralizeSurface(surface, {}, {}, t, name);
  VolumeObject v;
  v.id = p.allocateId();
  v.name = name + " volume";
  v.kind = VolumeKind::Cage;
  v.mesh = tets.mesh;
  v.mesh.region.clear();
  for (const Joint& j : skeleton.joints) v.bones.push_back(j.name);
  v.fixedBone.assign(v.mesh.nodeCount(), -1);
  v.surface = mesh.id;
  v.embedding = embedPoints(surface.positions, v.mesh);
  SkinWeights w;
  w.bones = v.bones;
  w.offsets = {0};
  for (const Vec3& x : v.mesh.nodes) {
    const std::vector<double> row = weights(x);
    double sum = 0;
    for (double y : row) sum += std::max(0.0, y);
    for (size_t k = 0; k < row.size() && k < w.bones.size(); ++k)
      if (row[k] > 1e-6 * sum) w.bone.push_back(int32_t(k)), w.weight.push_back(row[k] / sum);
    w.offsets.push_back(int32_t(w.bone.size()));
  }
  w.normalize();
  v.weights = w;
  p.volumes.push_back(v);
  return p;
}

Project makeFreeBodyProject(double spacing) {
  // A bunny-like blob: a body, a head and two ears, 0.3 m long.
  auto field = [](const Vec3& p) {
    double d = sdf::ellipsoid(p, Vec3(0, 0.09, 0), Mat3::Identity(), Vec3(0.12, 0.08, 0.08));
    d = sdf::smoothUnion(d, sdf::sphere(p, Vec3(0.11, 0.15, 0), 0.055), 0.03);
    for (double z : {-0.025, 0.025})
      d = sdf::smoothUnion(d, sdf::capsule(p, Vec3(0.12, 0.19, z), Vec3(0.09, 0.28, 1.6 * z), 0.017), 0.015);
    return d;
  };
  Aabb box;
  box.add(Vec3(-0.15, 0.0, -0.1));
  box.add(Vec3(0.2, 0.32, 0.1));
  SurfaceNetsOptions sn;
  sn.spacing = spacing;
  const TriMesh surface = extractSurfaceNets(field, box, sn);
  Skeleton sk;
  sk.joints.push_back(joint("Body", -1, Vec3(0, 0.09, 0)));
  return makeWeightedVolumeProject("Free body", surface, sk, [](const Vec3&) { return std::vector<double>{1.0}; }, 20 * std::pow(spacing, 3));
}

Project makeFishProject(double spacing) {
  // A fish 0.6 m long along x (head at +x): a body ellipsoid, a flattened
  // tail fin and a dorsal fin; four bones along the spine.
  auto field = [](const Vec3& p) {
    double d = sdf::ellipsoid(p, Vec3(0.05, 0.2, 0), Mat3::Identity(), Vec3(0.22, 0.08, 0.05));
    d = sdf::smoothUnion(d, sdf::ellipsoid(p, Vec3(-0.22, 0.2, 0), Mat3::Identity(), Vec3(0.1, 0.09, 0.015)), 0.03);
    d = sdf::smoothUnion(d, sdf::ellipsoid(p, Vec3(0.02, 0.28, 0), Mat3::Identity(), Vec3(0.08, 0.04, 0.012)), 0.02);
    return d;
  };
  Aabb box;
  box.add(Vec3(-0.34, 0.08, -0.07));
  box.add(Vec3(0.3, 0.34, 0.07));
  SurfaceNetsOptions sn;
  sn.spacing = spacing;
  const TriMesh surface = extractSurfaceNets(field, box, sn);
  Skeleton sk;
  const double xs[4] = {0.2, 0.06, -0.08, -0.2};  // Head, Body, Tail, Fin
  sk.joints.push_back(joint("Head", -1, Vec3(xs[0], 0.2, 0)));
  sk.joints.push_back(joint("Body", 0, Vec3(xs[1] - xs[0], 0, 0)));
  sk.joints.push_back(joint("Tail", 1, Vec3(xs[2] - xs[1], 0, 0)));
  sk.joints.push_back(joint("Fin", 2, Vec3(xs[3] - xs[2], 0, 0)));
  // Smooth weights along the spine: a raised cosine around each bone's
  // centre, a bone apart, so that neighbours share a wide band.
  auto weights = [xs](const Vec3& x) {
    std::vector<double> w(4);
    const double width = 0.14;
    for (int k = 0; k < 4; ++k) {
      const double s = std::clamp((x.x() - xs[k]) / width, -1.0, 1.0);
      w[size_t(k)] = 0.5 * (1 + std::cos(3.14159265358979 * s)) + 1e-9;
    }
    if (x.x() > xs[0]) w[0] = 1;   // the head keeps the snout
    if (x.x() < xs[3]) w[3] = 1;   // the fin keeps the tail's end
    return w;
  };
  return makeWeightedVolumeProject("Fish", surface, sk, weights, 20 * std::pow(spacing, 3));
}

Project makePachinkoProject(size_t cageNodes, int rows, int columns, bool harmonicWeights) {
  HumanoidOptions ho;
  Project p;
  if (cageNodes == 1200 && !harmonicWeights) {
    p = makeRiggedHumanoidProject(ho);
  } else {
    p = makeHumanoidProject(ho);
    RigBuildOptions rig;
    rig.cageNodes = cageNodes;
    if (harmonicWeights) rig.method = WeightMethod::Harmonic;
    applyRigBuild(p, buildRig(p, p.meshes.at(0).id, rig));
  }
  p.name = "Pachinko";
  // Pegs: capsules lying along z, rows a metre apart, staggered by half a
  // spacing, below where the character starts (it is lifted above them).
  const double spacing = 1.0;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < columns + (r % 2); ++c) {
      Collider peg;
      peg.name = "peg " + std::to_string(r + 1) + "." + std::to_string(c + 1);
      peg.shape = ColliderShape::Capsule;
      peg.center = Vec3((c - 0.5 * (columns - 1) - 0.5 * (r % 2)) * spacing, 0.6 + spacing * (rows - 1 - r), 0);
      peg.rotationDegrees = Vec3(90, 0, 0);  // the capsule's y axis along z
      peg.size = Vec3(0.05, 0.6, 0);
      peg.friction = 0.1;
      p.simulation.colliders.push_back(peg);
    }
  // The character starts above the top row.
  const double lift = 0.6 + spacing * rows + 0.1;
  for (VolumeObject& v : p.volumes)
    for (Vec3& x : v.mesh.nodes) x.y() += lift;
  for (MeshObject& m : p.meshes)
    for (Vec3& x : m.mesh.positions) x.y() += lift;
  p.skeleton->skeleton.joints[0].restLocal.translation.y() += lift;
  return p;
}

}  // namespace sinew::examples
