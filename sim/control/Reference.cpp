#include "control/Reference.h"

#include "core/Error.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sinew::control {

Vec3 rotationVector(const Quat& in) {
  Quat q = in;
  if (q.w() < 0) q.coeffs() = -q.coeffs();
  const double s = q.vec().norm();
  if (s < 1e-12) return 2.0 * q.vec();
  return 2.0 * std::atan2(s, q.w()) * q.vec() / s;
}

Quat fromRotationVector(const Vec3& r) {
  const double angle = r.norm();
  if (angle < 1e-12) return Quat(1, 0.5 * r.x(), 0.5 * r.y(), 0.5 * r.z()).normalized();
  return Quat(Eigen::AngleAxisd(angle, r / angle));
}

dyn::ArticulatedModel wholeBodyModel(const liu2013::Liu2013Model& m) {
  dyn::ArticulatedModel body = m.skeleton;
  const size_t nLinks = body.links.size();
  std::vector<double> mass(nLinks, 0.0);
  std::vector<Vec3> moment(nLinks, Vec3::Zero());
  std::vector<Mat3> second(nLinks, Mat3::Zero());  // sum m r r^T, link frame
  for (size_t i = 0; i < m.nodeCount(); ++i)
    for (int32_t a = m.influenceOffsets[i]; a < m.influenceOffsets[i + 1]; ++a) {
      const liu2013::Influence& f = m.influences[size_t(a)];
      const double mi = f.weight * m.nodeMass[i];
      const Vec3 r = m.linkRest[size_t(f.link)].inverse().apply(m.restNodes[i]);
      mass[size_t(f.link)] += mi;
      moment[size_t(f.link)] += mi * r;
      second[size_t(f.link)] += mi * r * r.transpose();
    }
  for (size_t l = 0; l < nLinks; ++l) {
    dyn::Inertia& in = body.links[l].inertia;
    if (mass[l] > 1e-9) {
      in.mass = mass[l];
      in.com = moment[l] / mass[l];
      const Mat3 s = second[l] - mass[l] * in.com * in.com.transpose();  // about the centre of mass
      in.inertia = s.trace() * Mat3::Identity() - s;
    } else {
      in.mass = 1e-3 * std::max(m.totalMass, 1.0);
      in.com = Vec3::Zero();
      in.inertia = Mat3::Identity() * (0.4 * in.mass * 0.02 * 0.02);
    }
    in.inertia += Mat3::Identity() * (1e-4 * in.mass * 0.05 * 0.05);
  }
  return body;
}

ReferenceMotion::ReferenceMotion(const liu2013::Liu2013Model& model, MotionClip clip)
    : clip_(std::move(clip)), body_(wholeBodyModel(model)) {
  const size_t n = body_.links.size();
  clipJointOfLink_.assign(n, -1);
  for (size_t l = 0; l < n; ++l)
    for (size_t c = 0; c < clip_.joints.size(); ++c)
      if (clip_.joints[c].name == body_.links[l].name) clipJointOfLink_[l] = int32_t(c);
  if (n == 0 || clipJointOfLink_[0] < 0)
    throw InputError(clip_.name, "the reference clip has no joint for the character's root: retarget the clip first");
  // Leaves are the end effectors; the lowest fifth of them at rest are feet.
  std::vector<int32_t> children(n, 0);
  for (size_t l = 1; l < n; ++l) ++children[size_t(body_.links[l].parent)];
  double lo = model.linkRest[0].translation.y(), hi = lo;
  for (const Transform& t : model.linkRest) lo = std::min(lo, t.translation.y()), hi = std::max(hi, t.translation.y());
  for (size_t l = 1; l < n; ++l)
    if (children[l] == 0) {
      endEffectors_.push_back(int32_t(l));
      if (model.linkRest[l].translation.y() < lo + 0.2 * (hi - lo)) feet_.push_back(int32_t(l));
    }
  double sole = std::numeric_limits<double>::infinity();
  for (const Vec3& x : model.restNodes) sole = std::min(sole, x.y());
  for (int32_t f : feet_) footHeight_.push_back(model.linkRest[size_t(f)].translation.y() - sole);
}

dyn::ArticulatedState ReferenceMotion::pose(double t) const {
  t = std::clamp(t, 0.0, duration());
  const std::vector<Transform> local = clip_.localPoseAt(t);
  dyn::ArticulatedState s = dyn::restState(body_);
  for (size_t l = 0; l < body_.links.size(); ++l) {
    const int32_t c = clipJointOfLink_[l];
    if (c < 0 || body_.links[l].kind == dyn::JointKind::Fixed) continue;
    Quat q = (body_.links[l].parentFromJoint.rotation.conjugate() * local[size_t(c)].rotation).normalized();
    if (body_.links[l].kind == dyn::JointKind::Hinge) {  // the part about the axis
      const Vec3& axis = body_.links[l].hingeAxis;
      q = Quat(Eigen::AngleAxisd(dyn::hingeAngle(q, axis), axis));
    }
    s.rotation[l] = q;
  }
  s.rootPosition = local[size_t(clipJointOfLink_[0])].translation;
  return s;
}

dyn::ArticulatedState ReferenceMotion::state(double t, double h) const {
  const double a = std::max(0.0, std::min(t, duration()) - h), b = std::min(duration(), std::max(t, 0.0) + h);
  dyn::ArticulatedState s = pose(t);
  if (b <= a) return s;
  dyn::ArticulatedState before = pose(a);
  const dyn::ArticulatedState after = pose(b);
  dyn::setPoseKinematic(body_, before, after.rootPosition, after.rotation, b - a);
  s.velocity = before.velocity;
  return s;
}

BodyFeatures ReferenceMotion::features(const dyn::ArticulatedState& s) const {
  BodyFeatures f;
  const dyn::LinkKinematics k = dyn::forwardKinematics(body_, s);
  f.rootPosition = k.pose[0].translation;
  f.rootRotation = k.pose[0].rotation;
  f.jointRotations = s.rotation;
  for (int32_t e : endEffectors_) f.endEffectors.push_back(k.pose[size_t(e)].translation);
  f.centerOfMass = dyn::centerOfMass(body_, s);
  f.centerOfMassVelocity = dyn::linearMomentum(body_, s) / dyn::totalMass(body_);
  for (int32_t foot : feet_) f.support += k.pose[size_t(foot)].translation;
  if (!feet_.empty()) f.support /= double(feet_.size());
  f.support.y() = 0;
  return f;
}

BodyFeatures ReferenceMotion::features(double t) const { return features(state(t)); }

}  // namespace sinew::control
