#include "examples/Humanoid.h"

#include "control/Reference.h"
#include "examples/Motions.h"
#include "liu2013/Liu2013.h"
#include "rig/RigBuild.h"

#include "geometry/Sdf.h"
#include "geometry/SurfaceNets.h"
#include "rig/BoneShapes.h"

#include <vector>

namespace sinew {

namespace {

// Joint layout of a 1.75 m figure; everything scales with options.height.
struct JointSpec {
  const char* name;
  const char* parent;
  Vec3 position;  // world rest position (metres, for height 1.75)
};

const std::vector<JointSpec>& jointSpecs() {
  static const std::vector<JointSpec> specs = {
      {"Hips", nullptr, {0.0, 0.92, 0.0}},
      {"LeftUpLeg", "Hips", {0.11, 0.86, 0.0}},
      {"LeftLeg", "LeftUpLeg", {0.15, 0.50, 0.015}},
      {"LeftFoot", "LeftLeg", {0.18, 0.11, -0.01}},
      {"RightUpLeg", "Hips", {-0.11, 0.86, 0.0}},
      {"RightLeg", "RightUpLeg", {-0.15, 0.50, 0.015}},
      {"RightFoot", "RightLeg", {-0.18, 0.11, -0.01}},
      {"Spine", "Hips", {0.0, 1.03, 0.0}},
      {"Spine1", "Spine", {0.0, 1.21, 0.0}},
      {"Neck", "Spine1", {0.0, 1.43, 0.0}},
      {"Head", "Neck", {0.0, 1.52, 0.0}},
      {"LeftShoulder", "Spine1", {0.06, 1.37, 0.0}},
      {"LeftArm", "LeftShoulder", {0.20, 1.37, 0.0}},
      {"LeftForeArm", "LeftArm", {0.46, 1.37, 0.0}},
      {"LeftHand", "LeftForeArm", {0.70, 1.37, 0.0}},
      {"RightShoulder", "Spine1", {-0.06, 1.37, 0.0}},
      {"RightArm", "RightShoulder", {-0.20, 1.37, 0.0}},
      {"RightForeArm", "RightArm", {-0.46, 1.37, 0.0}},
      {"RightHand", "RightForeArm", {-0.70, 1.37, 0.0}},
  };
  return specs;
}

Vec3 jointPosition(const char* name) {
  for (const JointSpec& s : jointSpecs())
    if (std::string_view(s.name) == name) return s.position;
  return Vec3::Zero();
}

// The body as a list of blended primitives (for height 1.75).
struct Part {
  enum Kind { Ellipsoid, Capsule } kind;
  Vec3 a, b;        // centre (ellipsoid) or segment ends (capsule)
  Mat3 frame;       // ellipsoid axes
  Vec3 radii;       // ellipsoid semi-axes; capsule uses radii[0] (at a), radii[1] (at b)
  double floor = -std::numeric_limits<double>::infinity();  // cut flat below this height (a sole)
};

void addTyres(std::vector<Part>& parts, const Vec3& from, const Vec3& to, int count, double r0, double r1,
              double thickness) {
  // A limb: a tapered core plus `count` flattened "tyres" stacked along it.
  const Vec3 axis = (to - from).normalized();
  const Mat3 frame = sdf::frameAlong(axis);
  parts.push_back({Part::Capsule, from, to, Mat3::Identity(), Vec3(0.72 * r0, 0.72 * r1, 0)});
  for (int i = 0; i < count; ++i) {
    const double t = (i + 0.5) / count;
    const double r = r0 + t * (r1 - r0);
    parts.push_back({Part::Ellipsoid, from + t * (to - from), Vec3::Zero(), frame, Vec3(thickness, r, r)});
  }
}

std::vector<Part> bodyParts() {
  std::vector<Part> parts;
  const Mat3 I = Mat3::Identity();
  // Torso: a core plus a stack of horizontal tyres, widest at the belly.
  parts.push_back({Part::Capsule, {0, 0.93, 0}, {0, 1.36, 0}, I, Vec3(0.15, 0.14, 0)});
  const double ys[] = {0.93, 1.04, 1.15, 1.26, 1.36};
  const double rx[] = {0.19, 0.225, 0.24, 0.225, 0.19};
  const double rz[] = {0.15, 0.175, 0.19, 0.17, 0.145};
  for (int i = 0; i < 5; ++i)
    parts.push_back({Part::Ellipsoid, {0, ys[i], 0.005}, Vec3::Zero(), I, Vec3(rx[i], 0.075, rz[i])});
  // Neck ring and head.
  parts.push_back({Part::Ellipsoid, {0, 1.445, 0}, Vec3::Zero(), I, Vec3(0.085, 0.045, 0.08)});
  parts.push_back({Part::Ellipsoid, {0, 1.605, 0.01}, Vec3::Zero(), I, Vec3(0.115, 0.13, 0.12)});
  parts.push_back({Part::Ellipsoid, {0, 1.53, 0.01}, Vec3::Zero(), I, Vec3(0.11, 0.05, 0.11)});
  for (double side : {1.0, -1.0}) {
    const Vec3 m(side, 1, 1);
    auto at = [&](const char* left) { return Vec3(jointPosition(left).cwiseProduct(m)); };
    // Arms: upper arm and forearm tyres, a mitten hand with a thumb.
    addTyres(parts, at("LeftArm") - Vec3(side * 0.04, 0, 0), at("LeftForeArm"), 4, 0.078, 0.07, 0.036);
    addTyres(parts, at("LeftForeArm"), at("LeftHand"), 4, 0.068, 0.058, 0.033);
    parts.push_back({Part::Ellipsoid, at("LeftHand") + Vec3(side * 0.065, -0.005, 0.0), Vec3::Zero(), I,
                     Vec3(0.072, 0.04, 0.055)});
    parts.push_back({Part::Ellipsoid, at("LeftHand") + Vec3(side * 0.03, 0.0, 0.055), Vec3::Zero(),
                     sdf::frameAlong(Vec3(side * 0.6, 0.0, 0.8)), Vec3(0.04, 0.022, 0.022)});
    // Legs: thigh and shin tyres, a boot.
    addTyres(parts, at("LeftUpLeg") + Vec3(0, 0.03, 0), at("LeftLeg"), 5, 0.11, 0.088, 0.042);
    addTyres(parts, at("LeftLeg"), at("LeftFoot") + Vec3(0, 0.03, 0), 5, 0.085, 0.068, 0.04);
    // A boot with a flat sole on the ground (y = 0): a rounded one rocks, and
    // a character cannot stand still on rockers. It reaches 20 cm ahead of
    // the ankle: captured standing poses put the centre of mass up to about
    // 14 cm ahead of it.
    parts.push_back({Part::Ellipsoid, at("LeftFoot") + Vec3(0, -0.05, 0.07), Vec3::Zero(), I,
                     Vec3(0.07, 0.09, 0.17), 0.0});
  }
  return parts;
}

}  // namespace

Skeleton makeHumanoidSkeleton(const HumanoidOptions& options) {
  const double s = options.height / 1.75;
  Skeleton sk;
  for (const JointSpec& spec : jointSpecs()) {
    Joint j;
    j.name = spec.name;
    j.parent = spec.parent ? sk.find(spec.parent) : -1;
    const Vec3 parentPos = spec.parent ? jointPosition(spec.parent) : Vec3::Zero();
    j.restLocal.translation = (spec.position - parentPos) * s;
    sk.joints.push_back(j);
  }
  return sk;
}

TriMesh makeHumanoidSurface(const HumanoidOptions& options, const Progress& progress) {
  const double s = options.height / 1.75;
  const std::vector<Part> parts = bodyParts();
  constexpr double kBlend = 0.028;  // smooth-union width: soft creases between tyres
  auto field = [&](const Vec3& pWorld) {
    const Vec3 p = pWorld / s;
    double d = std::numeric_limits<double>::infinity();
    for (const Part& part : parts) {
      const double di = part.kind == Part::Ellipsoid
                            ? sdf::ellipsoid(p, part.a, part.frame, part.radii)
                            : sdf::taperedCapsule(p, part.a, part.b, part.radii[0], part.radii[1]);
      const double cut = std::max(di, part.floor - p.y());
      d = std::isinf(d) ? cut : sdf::smoothUnion(d, cut, kBlend);
    }
    return d * s;
  };
  Aabb box;
  box.add(Vec3(-0.9, -0.05, -0.3) * s);
  box.add(Vec3(0.9, 1.8, 0.3) * s);
  SurfaceNetsOptions sn;
  sn.spacing = options.gridSpacing * s;
  return extractSurfaceNets(field, box, sn, progress);
}

Project makeHumanoidProject(const HumanoidOptions& options, const Progress& progress) {
  Project p;
  p.name = "Michelin";
  MeshObject body;
  body.id = p.allocateId();
  body.name = "Michelin body";
  body.mesh = makeHumanoidSurface(options, progress);
  body.color = Vec3(0.92, 0.92, 0.88);
  p.meshes.push_back(std::move(body));
  SkeletonObject sk;
  sk.id = p.allocateId();
  sk.name = "Michelin skeleton";
  sk.skeleton = makeHumanoidSkeleton(options);
  assignDefaultBoneShapes(sk.skeleton, p.meshes[0].mesh);
  // The feet: a flat box along the sole, 2 cm above it, so that the foot
  // is rigid where it stands and the ankle's torque reaches the ground.
  const double s = options.height / 1.75;
  for (const char* foot : {"LeftFoot", "RightFoot"}) {
    const int32_t j = sk.skeleton.find(foot);
    if (j >= 0) sk.skeleton.joints[j].bone = BoneShape::box(Vec3(0, -0.07, 0.065) * s, Vec3(0.03, 0.02, 0.1) * s);
  }
  p.skeleton = std::move(sk);
  return p;
}

Project makeRiggedHumanoidProject(const HumanoidOptions& options, const Progress& progress) {
  Project p = makeHumanoidProject(options, progress.sub(0.0, 0.3));
  RigBuildOptions rig;
  applyRigBuild(p, buildRig(p, p.meshes.at(0).id, rig, progress.sub(0.3, 0.95)));
  const Skeleton& s = p.skeleton->skeleton;
  MotionClip kick = makeKickClip(s, 5.0, 120);
  kick.name = "Kick";
  MotionClip walk = makeWalkInPlaceClip(s, 12.0, 120);
  walk.name = "Walk in place";
  MotionClip elbow = makeElbowBendClip(s, 130, 3.0, 120);
  elbow.name = "Elbow bend";
  // No running capture ships here: generated, with the whole body's centre of
  // mass (the character's masses as the controller sees them) on the planned path.
  std::vector<LinkMass> body;
  for (const dyn::Link& link : control::wholeBodyModel(*liu2013::buildLiu2013Model(p)).links)
    body.push_back({link.inertia.mass, link.inertia.com});
  MotionClip run = makeRunClip(s, 7.0, 120, 3.0, body);
  run.name = "Run (generated)";
  for (MotionClip* c : {&kick, &walk, &elbow, &run}) {
    ClipObject o;
    o.id = p.allocateId();
    o.clip = std::move(*c);
    p.clips.push_back(std::move(o));
  }
  p.name = "Michelin (rigged)";
  progress.update(1.0, "done");
  return p;
}

}  // namespace sinew
