// Small articulated scenes shared by the dynamics suites (header-only, no
// GoogleTest): box-shaped links, a pinned chain, a free-floating tree and a
// humanoid-like tree.
#pragma once

#include "dynamics/Articulated.h"

#include <random>
#include <string>

namespace sinew::test {

// A solid box of `size` (x, y, z extents) and mass `mass` centred at `com` (link frame).
inline dyn::Inertia boxInertia(double mass, const Vec3& size, const Vec3& com) {
  dyn::Inertia in;
  in.mass = mass;
  in.com = com;
  const Vec3 s2 = size.cwiseAbs2();
  in.inertia = (mass / 12.0 * Vec3(s2.y() + s2.z(), s2.x() + s2.z(), s2.x() + s2.y())).asDiagonal();
  return in;
}

// Chain links: 0.3 m long along -y from the joint, 1 kg, a 0.1 x 0.3 x 0.08 box.
constexpr double kChainLength = 0.3;
inline const Vec3 kChainBox{0.1, kChainLength, 0.08};

// A chain of `n` links hanging from a world pin at `anchor` along -y, with
// `kind` joints (Ball or Hinge about z). Expressed as "the root's own joint is
// the pin" (link 0 is a Hinge/Ball root at the anchor). With fixedRoot, a
// welded massive root link sits at the anchor instead and the n links follow.
inline dyn::ArticulatedModel pinnedChain(dyn::JointKind kind, int n = 3, const Vec3& anchor = Vec3::Zero(),
                                         bool fixedRoot = false) {
  dyn::ArticulatedModel m;
  if (fixedRoot) {
    dyn::Link root;
    root.name = "base";
    root.kind = dyn::JointKind::Fixed;
    root.parentFromJoint.translation = anchor;
    root.inertia = boxInertia(2.0, Vec3(0.1, 0.1, 0.1), Vec3::Zero());
    m.links.push_back(root);
  }
  for (int i = 0; i < n; ++i) {
    dyn::Link l;
    l.name = "link" + std::to_string(i);
    l.parent = int32_t(m.links.size()) - 1;
    l.kind = kind;
    l.hingeAxis = Vec3::UnitZ();
    l.parentFromJoint.translation = l.parent < 0 ? anchor : Vec3(0, -kChainLength, 0);
    if (fixedRoot && i == 0) l.parentFromJoint.translation = Vec3::Zero();
    l.inertia = boxInertia(1.0, kChainBox, Vec3(0, -kChainLength / 2, 0));
    m.links.push_back(l);
  }
  return m;
}

// A free-floating tree: a torso (free root), two ball "arms" (one with a hinge
// elbow), a ball "leg" and a welded "head".
inline dyn::ArticulatedModel floatingTree() {
  dyn::ArticulatedModel m;
  auto add = [&](const char* name, int32_t parent, dyn::JointKind kind, const Vec3& at, double mass,
                 const Vec3& size, const Vec3& com) {
    dyn::Link l;
    l.name = name;
    l.parent = parent;
    l.kind = kind;
    l.parentFromJoint.translation = at;
    l.hingeAxis = Vec3(0, 0.6, 0.8);
    l.inertia = boxInertia(mass, size, com);
    m.links.push_back(l);
    return int32_t(m.links.size()) - 1;
  };
  const int32_t torso = add("torso", -1, dyn::JointKind::Free, Vec3(0.1, 1.0, -0.2), 6.0, Vec3(0.3, 0.5, 0.2),
                            Vec3(0, 0.05, 0.01));
  const int32_t arm = add("armL", torso, dyn::JointKind::Ball, Vec3(0.2, 0.2, 0), 1.5, Vec3(0.3, 0.08, 0.08),
                          Vec3(0.15, 0, 0));
  add("forearmL", arm, dyn::JointKind::Hinge, Vec3(0.3, 0, 0), 1.0, Vec3(0.25, 0.06, 0.07), Vec3(0.12, 0, 0));
  add("armR", torso, dyn::JointKind::Ball, Vec3(-0.2, 0.2, 0), 1.5, Vec3(0.3, 0.08, 0.08), Vec3(-0.15, 0, 0));
  add("leg", torso, dyn::JointKind::Ball, Vec3(0, -0.25, 0), 3.0, Vec3(0.12, 0.45, 0.12), Vec3(0, -0.22, 0.01));
  add("head", torso, dyn::JointKind::Fixed, Vec3(0, 0.3, 0), 2.0, Vec3(0.15, 0.2, 0.18), Vec3(0, 0.1, 0));
  m.gravity.setZero();
  return m;
}

// A humanoid-like tree: free pelvis, spine, neck and head, arms (ball shoulder
// and wrist, hinge elbow), legs (ball hip and ankle, hinge knee and toe).
// 22 links, 51 dofs. PD gains grow with the mass each joint carries.
inline dyn::ArticulatedModel humanoidTree() {
  dyn::ArticulatedModel m;
  auto add = [&](const char* name, int32_t parent, dyn::JointKind kind, const Vec3& at, double mass,
                 const Vec3& size, const Vec3& com, double kp) {
    dyn::Link l;
    l.name = name;
    l.parent = parent;
    l.kind = kind;
    l.parentFromJoint.translation = at;
    l.hingeAxis = Vec3::UnitX();
    l.inertia = boxInertia(mass, size, com);
    l.kp = kp;
    l.kd = 0.1 * kp;
    m.links.push_back(l);
    return int32_t(m.links.size()) - 1;
  };
  using K = dyn::JointKind;
  const int32_t pelvis = add("pelvis", -1, K::Free, Vec3(0, 1.0, 0), 10, Vec3(0.3, 0.15, 0.2), Vec3::Zero(), 0);
  int32_t s = add("spine1", pelvis, K::Ball, Vec3(0, 0.1, 0), 6, Vec3(0.28, 0.15, 0.18), Vec3(0, 0.07, 0), 400);
  s = add("spine2", s, K::Ball, Vec3(0, 0.15, 0), 6, Vec3(0.3, 0.15, 0.18), Vec3(0, 0.07, 0), 300);
  const int32_t chest = add("chest", s, K::Ball, Vec3(0, 0.15, 0), 8, Vec3(0.34, 0.2, 0.2), Vec3(0, 0.1, 0), 300);
  const int32_t neck = add("neck", chest, K::Ball, Vec3(0, 0.2, 0), 1, Vec3(0.08, 0.1, 0.08), Vec3(0, 0.05, 0), 40);
  add("head", neck, K::Ball, Vec3(0, 0.1, 0), 4, Vec3(0.18, 0.22, 0.2), Vec3(0, 0.1, 0.02), 30);
  for (double side : {1.0, -1.0}) {
    const int32_t clav = add("clavicle", chest, K::Fixed, Vec3(0.08 * side, 0.17, 0), 1, Vec3(0.12, 0.05, 0.05),
                             Vec3(0.06 * side, 0, 0), 0);
    const int32_t upper = add("upperArm", clav, K::Ball, Vec3(0.12 * side, 0, 0), 2, Vec3(0.28, 0.08, 0.08),
                              Vec3(0.14 * side, 0, 0), 60);
    const int32_t fore = add("forearm", upper, K::Hinge, Vec3(0.28 * side, 0, 0), 1.2, Vec3(0.25, 0.06, 0.06),
                             Vec3(0.12 * side, 0, 0), 20);
    add("hand", fore, K::Ball, Vec3(0.25 * side, 0, 0), 0.4, Vec3(0.1, 0.03, 0.08), Vec3(0.05 * side, 0, 0), 4);
    const int32_t thigh = add("thigh", pelvis, K::Ball, Vec3(0.1 * side, -0.05, 0), 7, Vec3(0.14, 0.42, 0.14),
                              Vec3(0, -0.21, 0), 500);
    const int32_t shin = add("shin", thigh, K::Hinge, Vec3(0, -0.42, 0), 3.5, Vec3(0.1, 0.4, 0.1),
                             Vec3(0, -0.2, 0), 250);
    const int32_t foot = add("foot", shin, K::Ball, Vec3(0, -0.4, 0), 1, Vec3(0.1, 0.06, 0.2),
                             Vec3(0, -0.04, 0.05), 60);
    add("toe", foot, K::Hinge, Vec3(0, -0.06, 0.14), 0.2, Vec3(0.1, 0.03, 0.06), Vec3(0, 0, 0.03), 5);
  }
  return m;
}

// Random rotation with angle up to maxAngle.
inline Quat randomRotation(std::mt19937& rng, double maxAngle) {
  std::uniform_real_distribution<double> u(-1, 1);
  Vec3 axis(u(rng), u(rng), u(rng));
  if (axis.norm() < 1e-3) axis = Vec3::UnitX();
  return Quat(Eigen::AngleAxisd(maxAngle * 0.5 * (u(rng) + 1), axis.normalized()));
}

// A random state: rotations up to maxAngle (hinges about their axis), velocities uniform in +-maxRate.
inline dyn::ArticulatedState randomState(const dyn::ArticulatedModel& m, std::mt19937& rng, double maxAngle,
                                         double maxRate) {
  std::uniform_real_distribution<double> u(-1, 1);
  dyn::ArticulatedState s = dyn::restState(m);
  for (size_t i = 0; i < m.links.size(); ++i) {
    const dyn::Link& l = m.links[i];
    if (l.kind == dyn::JointKind::Ball || l.kind == dyn::JointKind::Free) s.rotation[i] = randomRotation(rng, maxAngle);
    if (l.kind == dyn::JointKind::Hinge) s.rotation[i] = Quat(Eigen::AngleAxisd(maxAngle * u(rng), l.hingeAxis));
  }
  for (Eigen::Index d = 0; d < s.velocity.size(); ++d) s.velocity[d] = maxRate * u(rng);
  return s;
}

}  // namespace sinew::test
