#include "examples/ViperScenes.h"

#include "core/Error.h"
#include "geometry/SurfaceNets.h"
#include "geometry/Sdf.h"
#include "io/AnimationExport.h"
#include "viper/Viperize.h"

#include <cmath>

namespace sinew::examples {

namespace {

constexpr double kPi = 3.14159265358979323846;

// A surface around every pill of `body`, `offset` outside them (surface nets
// of their smooth union).
TriMesh pillSurface(const RodBodyObject& body, double offset, double spacing) {
  Aabb box;
  for (const RodBodyRod& r : body.rods)
    for (size_t i = 0; i < r.nodes.size(); ++i) {
      box.add(r.nodes[i] + Vec3::Constant(r.radii[i] + offset));
      box.add(r.nodes[i] - Vec3::Constant(r.radii[i] + offset));
    }
  auto field = [&](const Vec3& p) {
    double d = 1e300;
    for (const RodBodyRod& r : body.rods)
      for (size_t i = 0; i + 1 < r.nodes.size(); ++i)
        d = sdf::smoothUnion(d, sdf::taperedCapsule(p, r.nodes[i], r.nodes[i + 1], r.radii[i], r.radii[i + 1]), 0.01);
    return d - offset;
  };
  SurfaceNetsOptions o;
  o.spacing = spacing;
  return extractSurfaceNets(field, box, o);
}

MeshObject meshObject(Project& p, const std::string& name, TriMesh mesh, const Vec3& color) {
  MeshObject m;
  m.id = p.allocateId();
  m.name = name;
  m.mesh = std::move(mesh);
  m.color = color;
  return m;
}

// A clip of `skeleton` from per-frame root positions and local rotations.
MotionClip clipOf(const Skeleton& s, const std::string& name, double seconds, double fps,
                  const std::function<void(double, Vec3&, std::vector<Quat>&)>& pose) {
  const int frames = int(std::lround(seconds * fps)) + 1;
  std::vector<Vec3> root;
  std::vector<std::vector<Quat>> rotations;
  for (int f = 0; f < frames; ++f) {
    Vec3 r = s.joints[0].restLocal.translation;
    std::vector<Quat> q(s.size());
    for (size_t j = 0; j < s.size(); ++j) q[j] = s.joints[j].restLocal.rotation;
    pose(f / fps, r, q);
    root.push_back(r);
    rotations.push_back(q);
  }
  MotionClip clip = skeletonAnimationClip(s, root, rotations, 1.0 / fps);
  clip.name = name;
  return clip;
}

double easeInOut(double x) {
  x = std::clamp(x, 0.0, 1.0);
  return x * x * x * (10 - 15 * x + 6 * x * x);
}

}  // namespace

RodBodyObject octopusRods(const Vec3& origin, double yaw) {
  const Quat turn(Eigen::AngleAxisd(yaw, Vec3::UnitY()));
  RodBodyObject body;
  RodBodyRod head;
  const double headRadius[6] = {0.065, 0.085, 0.095, 0.095, 0.085, 0.06};
  for (int i = 0; i < 6; ++i) {
    head.nodes.push_back(origin + turn * Vec3(0, 0.10 + 0.055 * i, 0));
    head.radii.push_back(headRadius[i]);
  }
  body.rods.push_back(head);
  std::vector<std::array<int32_t, 2>> bundle{{0, 0}};
  for (int a = 0; a < 8; ++a) {
    const double phi = 2 * kPi * a / 8;
    const Vec3 out(std::cos(phi), 0, std::sin(phi));
    RodBodyRod arm;
    for (int i = 0; i < 5; ++i) {
      arm.nodes.push_back(origin + turn * (out * (0.06 + 0.075 * i) + Vec3(0, 0.10 - 0.02 * i, 0)));
      arm.radii.push_back(0.035 - 0.005 * i);
    }
    body.rods.push_back(arm);
    bundle.push_back({int32_t(a + 1), 0});
  }
  body.bundles.push_back(bundle);
  return body;
}

Project makeOctopusProject(int count) {
  if (count < 1 || count > 10000) throw InputError("octopus example", "count must lie in 1..10000");
  Project p;
  p.name = count == 1 ? "Octopus" : std::to_string(count) + " octopi";
  const int side = int(std::ceil(std::sqrt(double(count))));
  // One octopus's surface, at the origin, copied to every octopus.
  const RodBodyObject one = octopusRods(Vec3::Zero(), 0);
  const TriMesh shape = pillSurface(one, 0.006, 0.016);
  RodBodyObject body;
  body.id = 0;
  body.name = "Octopi";
  body.material.stretch = 3e5;
  body.material.bend = 3e4;
  body.material.volume = 3e5;
  body.material.radial = 3e4;
  TriMesh all;
  for (int k = 0; k < count; ++k) {
    const double x = 0.9 * (k % side - 0.5 * (side - 1)), z = 0.9 * (k / side - 0.5 * (side - 1));
    const double yaw = 0.37 * k;  // each a little turned
    const Vec3 origin(x, 0.35 + 0.05 * (k % 3), z);
    const RodBodyObject o = octopusRods(origin, yaw);
    const int32_t base = int32_t(body.rods.size());
    body.rods.insert(body.rods.end(), o.rods.begin(), o.rods.end());
    for (auto bundle : o.bundles) {
      for (auto& member : bundle) member[0] += base;
      body.bundles.push_back(bundle);
    }
    const Quat turn(Eigen::AngleAxisd(yaw, Vec3::UnitY()));
    const int32_t offset = int32_t(all.positions.size());
    for (const Vec3& v : shape.positions) all.positions.push_back(origin + turn * v);
    for (const Tri& t : shape.triangles) all.triangles.push_back({t[0] + offset, t[1] + offset, t[2] + offset});
  }
  MeshObject mesh = meshObject(p, "Octopus skin", std::move(all), Vec3(0.85, 0.45, 0.55));
  body.surface = mesh.id;
  p.meshes.push_back(std::move(mesh));
  body.id = p.allocateId();
  p.rodBodies.push_back(std::move(body));
  p.validate("octopus example");
  return p;
}

Project makeBandProject() {
  Project p;
  p.name = "Elastic band";
  const double length = 0.4, r = 0.012, y = 0.3;
  RodBodyObject body;
  body.name = "Band";
  body.material.stretch = 2e5;
  body.material.radial = 2e4;
  body.material.bend = 2e4;
  body.material.volume = 2e6;
  const int nodes = 21, rods = 3;
  for (int k = 0; k < rods; ++k) {
    RodBodyRod rod;
    for (int i = 0; i < nodes; ++i) {
      rod.nodes.push_back(Vec3(-0.5 * length + length * i / (nodes - 1), y, 2 * r * (k - 1)));
      rod.radii.push_back(r);
    }
    body.rods.push_back(rod);
  }
  for (int i = 0; i < nodes; ++i) body.bundles.push_back({{0, i}, {1, i}, {2, i}});
  // The left end is held in the world, the right end by the handle.
  Skeleton s;
  Joint handle;
  handle.name = "Handle";
  handle.restLocal.translation = Vec3(0.5 * length, y, 0);
  s.joints.push_back(handle);
  for (int k = 0; k < rods; ++k) {
    body.pins.push_back({k, 0, ""});
    body.pins.push_back({k, nodes - 1, "Handle"});
  }
  // The band's surface: a flat box around the rods.
  const Vec3 half(0.5 * length, r, rods * r);
  auto box = [&](const Vec3& q) {
    const Vec3 d = (q - Vec3(0, y, 0)).cwiseAbs() - half;
    return d.cwiseMax(0.0).norm() + std::min(d.maxCoeff(), 0.0);
  };
  SurfaceNetsOptions o;
  o.spacing = 0.006;
  Aabb bounds;
  bounds.add(Vec3(0, y, 0) + half);
  bounds.add(Vec3(0, y, 0) - half);
  MeshObject mesh = meshObject(p, "Band surface", extractSurfaceNets(box, bounds, o), Vec3(0.9, 0.75, 0.3));
  body.surface = mesh.id;
  p.meshes.push_back(std::move(mesh));
  SkeletonObject so;
  so.id = p.allocateId();
  so.name = "Band handles";
  so.skeleton = s;
  ClipObject clip;
  clip.id = p.allocateId();
  clip.clip = clipOf(s, "Stretch", 3.0, 60, [&](double t, Vec3& root, std::vector<Quat>&) {
    // Out to 1.5x the length over 1 s, hold 0.5 s, back over 1 s, hold.
    const double pull = t < 1.5 ? easeInOut(t) : 1 - easeInOut(t - 1.5);
    root.x() += 0.5 * length * pull;
  });
  p.skeleton = std::move(so);
  p.clips.push_back(std::move(clip));
  body.id = p.allocateId();
  p.rodBodies.push_back(std::move(body));
  p.simulation.groundHeight = 0;
  p.validate("band example");
  return p;
}

Project makeArmProject() {
  Project p;
  p.name = "Arm";
  Skeleton s;
  Joint upper;
  upper.name = "UpperArm";
  upper.restLocal.translation = Vec3(0, 0.6, 0);
  upper.bone = BoneShape::capsule(Vec3(0.03, 0, 0), Vec3(0.27, 0, 0), 0.025);
  s.joints.push_back(upper);
  Joint fore;
  fore.name = "Forearm";
  fore.parent = 0;
  fore.restLocal.translation = Vec3(0.3, 0, 0);
  fore.type = JointType::Hinge;
  fore.hingeAxis = Vec3::UnitZ();
  fore.bone = BoneShape::capsule(Vec3(0.03, 0, 0), Vec3(0.26, 0, 0), 0.02);
  s.joints.push_back(fore);
  // The biceps: from above the shoulder end of the humerus to just past the elbow.
  const Vec3 a(0.04, 0.675, 0), b(0.36, 0.645, 0);
  TriMesh muscle = viper::spindleMesh(a, b, 0.028, 0.009, 24, 16);
  RodBodyObject body;
  body.name = "Biceps";
  body.paint = viper::marksNearEnds(muscle, a, b, 0.025);
  body.originBone = "UpperArm";
  body.insertionBone = "Forearm";
  body.rodCount = 5;
  body.sliceCount = 8;
  body.selfCollision = false;
  MeshObject mesh = meshObject(p, "Biceps surface", std::move(muscle), Vec3(0.75, 0.25, 0.25));
  body.surface = mesh.id;
  SkeletonObject so;
  so.id = p.allocateId();
  so.name = "Arm skeleton";
  so.skeleton = s;
  ClipObject clip;
  clip.id = p.allocateId();
  clip.clip = clipOf(s, "Flex", 4.0, 60, [&](double t, Vec3&, std::vector<Quat>& q) {
    // The elbow bends 100 degrees over 1.5 s, holds 0.5 s, opens over 1.5 s, holds.
    const double bend = t < 2.0 ? easeInOut(t / 1.5) : 1 - easeInOut((t - 2.0) / 1.5);
    q[1] = Quat(Eigen::AngleAxisd(bend * 100 * kPi / 180, Vec3::UnitZ()));
  });
  p.meshes.push_back(std::move(mesh));
  p.skeleton = std::move(so);
  p.clips.push_back(std::move(clip));
  body.id = p.allocateId();
  p.rodBodies.push_back(std::move(body));
  viper::viperizeBody(p, "Biceps", {});
  p.validate("arm example");
  return p;
}

}  // namespace sinew::examples
