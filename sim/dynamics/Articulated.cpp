// Articulated rigid-body solver in reduced coordinates (Liu et al. 2013,
// Section 4.1). Spatial algebra follows Featherstone's notation: motion and
// force vectors are [angular; linear], expressed in a link's own frame about
// its origin; X maps parent coordinates to link coordinates.
#include "dynamics/Articulated.h"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>

#include <cassert>
#include <cmath>

namespace sinew::dyn {
namespace {

using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat6 = Eigen::Matrix<double, 6, 6>;
using MotionSubspace = Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 6>;  // (6 x jointDofs)

// Rotation vector -> unit quaternion (exponential map).
Quat quatExp(const Vec3& r) {
  const double angle = r.norm();
  if (angle < 1e-8) return Quat(1, 0.5 * r.x(), 0.5 * r.y(), 0.5 * r.z()).normalized();
  return Quat(Eigen::AngleAxisd(angle, r / angle));
}

// Unit quaternion -> rotation vector of the shortest rotation (|r| <= pi).
Vec3 quatLog(const Quat& in) {
  Quat q = in;
  if (q.w() < 0) q.coeffs() = -q.coeffs();
  const double s = q.vec().norm();
  if (s == 0) return Vec3::Zero();
  return q.vec() * (2 * std::atan2(s, q.w()) / s);
}

// Inverse right Jacobian of SO(3): d/dt log(R) = Jr^-1(log R) omega for a
// body-frame angular velocity omega (R' = R [omega]x). Bounded for |r| <= pi.
Mat3 rightJacobianInverse(const Vec3& r) {
  const double t = r.norm();
  // (1 - (t/2) cot(t/2)) / t^2, with its series near zero.
  const double c = t < 1e-4 ? 1.0 / 12 + t * t / 720
                            : (1 - 0.5 * t * std::cos(0.5 * t) / std::sin(0.5 * t)) / (t * t);
  const Mat3 k = skew(r);
  return Mat3::Identity() + 0.5 * k + c * k * k;
}

// A rotation about a unit axis, as the quaternion (cos a, axis sin a) of half angle a.
Quat axisQuat(const Vec3& axis, double halfAngle) {
  const double s = std::sin(halfAngle);
  return Quat(std::cos(halfAngle), s * axis.x(), s * axis.y(), s * axis.z());
}

// Coordinate transform parent -> link: a link-frame vector is E * (parent-frame
// vector); r is the link origin in parent coordinates.
struct SpatialTransform {
  Mat3 E = Mat3::Identity();
  Vec3 r = Vec3::Zero();

  Vec6 motionToLink(const Vec6& m) const {
    Vec6 out;
    out.head<3>() = E * m.head<3>();
    out.tail<3>() = E * (m.tail<3>() - r.cross(m.head<3>()));
    return out;
  }
  // Force vectors (columns) in link coordinates -> parent coordinates (X^T).
  template <class F>
  F forceToParent(const F& f) const {
    F out = f;
    for (Eigen::Index c = 0; c < f.cols(); ++c) {
      const Vec3 lin = E.transpose() * f.template block<3, 1>(3, c);
      out.template block<3, 1>(3, c) = lin;
      out.template block<3, 1>(0, c) = E.transpose() * f.template block<3, 1>(0, c) + r.cross(lin);
    }
    return out;
  }
  Mat6 motionMatrix() const {
    Mat6 x = Mat6::Zero();
    x.topLeftCorner<3, 3>() = E;
    x.bottomRightCorner<3, 3>() = E;
    x.bottomLeftCorner<3, 3>() = -E * skew(r);
    return x;
  }
};

// v x m for motion vectors, v x* f for force vectors.
Vec6 crossMotion(const Vec6& v, const Vec6& m) {
  Vec6 out;
  out.head<3>() = v.head<3>().cross(m.head<3>());
  out.tail<3>() = v.head<3>().cross(m.tail<3>()) + v.tail<3>().cross(m.head<3>());
  return out;
}
Vec6 crossForce(const Vec6& v, const Vec6& f) {
  Vec6 out;
  out.head<3>() = v.head<3>().cross(f.head<3>()) + v.tail<3>().cross(f.tail<3>());
  out.tail<3>() = v.head<3>().cross(f.tail<3>());
  return out;
}

// Spatial inertia about the link origin, link coordinates.
Mat6 spatialInertia(const Inertia& in) {
  const Mat3 c = skew(in.com);
  Mat6 I;
  I.topLeftCorner<3, 3>() = in.inertia + in.mass * c * c.transpose();
  I.topRightCorner<3, 3>() = in.mass * c;
  I.bottomLeftCorner<3, 3>() = in.mass * c.transpose();
  I.bottomRightCorner<3, 3>() = in.mass * Mat3::Identity();
  return I;
}

int kindDofs(JointKind kind) {
  switch (kind) {
    case JointKind::Free: return 6;
    case JointKind::Ball: return 3;
    case JointKind::Hinge: return 1;
    case JointKind::Fixed: return 0;
  }
  return 0;
}

// Everything the algorithms need about the current configuration and velocity
// ("update kinematics" stage): one entry per link.
struct Kinematics {
  std::vector<int> offset;                 // first dof of each joint (nLinks)
  int dofs = 0;
  std::vector<SpatialTransform> X;         // parent (world for the root) -> link
  std::vector<MotionSubspace> S;           // joint motion subspace, link coordinates
  std::vector<Quat> worldRotation;         // link -> world
  std::vector<Vec3> worldPosition;         // link origin, world
  std::vector<Vec6> v;                     // spatial velocity, link coordinates
  std::vector<Vec6> c;                     // velocity-product acceleration (S' qdot + v x S qdot)
  std::vector<Mat6> I;                     // spatial inertia, link coordinates
};

Kinematics computeKinematics(const ArticulatedModel& model, const ArticulatedState& state) {
  const size_t n = model.links.size();
  assert(state.rotation.size() == n);
  Kinematics k;
  k.offset.resize(n);
  for (size_t i = 0; i < n; ++i) {
    k.offset[i] = k.dofs;
    k.dofs += kindDofs(model.links[i].kind);
  }
  assert(state.velocity.size() == k.dofs);
  k.X.resize(n);
  k.S.resize(n);
  k.worldRotation.resize(n);
  k.worldPosition.resize(n);
  k.v.resize(n);
  k.c.resize(n);
  k.I.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const Link& link = model.links[i];
    const int p = link.parent, o = k.offset[i];
    const Quat jointRotation = link.kind == JointKind::Fixed
                                   ? link.parentFromJoint.rotation
                                   : (link.parentFromJoint.rotation * state.rotation[i]).normalized();
    SpatialTransform& X = k.X[i];
    X.E = jointRotation.toRotationMatrix().transpose();
    X.r = link.kind == JointKind::Free ? state.rootPosition : link.parentFromJoint.translation;
    Vec6 vJ = Vec6::Zero(), cJ = Vec6::Zero();
    MotionSubspace& S = k.S[i];
    switch (link.kind) {
      case JointKind::Free: {
        // dofs: linear velocity (world), angular velocity (link frame). The
        // link-frame linear velocity E v_w changes as the link turns:
        // d/dt (E v_w) = E a_w - omega x (E v_w), hence cJ.
        S.setZero(6, 6);
        S.block<3, 3>(3, 0) = X.E;
        S.block<3, 3>(0, 3).setIdentity();
        vJ = S * state.velocity.segment<6>(o);
        cJ.tail<3>() = -vJ.head<3>().cross(vJ.tail<3>());
        break;
      }
      case JointKind::Ball:
        S.setZero(6, 3);
        S.block<3, 3>(0, 0).setIdentity();
        vJ.head<3>() = state.velocity.segment<3>(o);
        break;
      case JointKind::Hinge:
        S.setZero(6, 1);
        S.block<3, 1>(0, 0) = link.hingeAxis;
        vJ.head<3>() = link.hingeAxis * state.velocity[o];
        break;
      case JointKind::Fixed: S.resize(6, 0); break;
    }
    if (p < 0) {
      k.worldRotation[i] = jointRotation;
      k.worldPosition[i] = X.r;
      k.v[i] = vJ;
    } else {
      k.worldRotation[i] = (k.worldRotation[p] * jointRotation).normalized();
      k.worldPosition[i] = k.worldPosition[p] + k.worldRotation[p] * X.r;
      k.v[i] = X.motionToLink(k.v[p]) + vJ;
    }
    k.c[i] = cJ + crossMotion(k.v[i], vJ);
    k.I[i] = spatialInertia(link.inertia);
  }
  return k;
}

// Joint-space mass matrix by the composite rigid body algorithm.
Eigen::MatrixXd compositeRigidBody(const ArticulatedModel& model, const Kinematics& k) {
  const int n = int(model.links.size());
  std::vector<Mat6> Ic = k.I;  // composite inertia of each subtree
  for (int i = n - 1; i > 0; --i) {
    const Mat6 x = k.X[size_t(i)].motionMatrix();
    Ic[size_t(model.links[size_t(i)].parent)] += x.transpose() * Ic[size_t(i)] * x;
  }
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(k.dofs, k.dofs);
  for (int i = 0; i < n; ++i) {
    const MotionSubspace& Si = k.S[size_t(i)];
    const int ni = int(Si.cols()), oi = k.offset[size_t(i)];
    if (ni == 0) continue;
    MotionSubspace F = Ic[size_t(i)] * Si;  // force to move joint i's dofs, link-i coordinates
    M.block(oi, oi, ni, ni) = Si.transpose() * F;
    for (int j = i; model.links[size_t(j)].parent >= 0;) {
      F = k.X[size_t(j)].forceToParent(F);
      j = model.links[size_t(j)].parent;
      const MotionSubspace& Sj = k.S[size_t(j)];
      if (Sj.cols() == 0) continue;
      const int oj = k.offset[size_t(j)];
      M.block(oj, oi, Sj.cols(), ni) = Sj.transpose() * F;
      M.block(oi, oj, ni, Sj.cols()) = M.block(oj, oi, Sj.cols(), ni).transpose();
    }
  }
  return M;
}

// Bias forces C(q, qdot) - J^T f_ext by recursive Newton-Euler with qdd = 0:
// gravity enters as a fictitious upward acceleration of the world.
Eigen::VectorXd biasForces(const ArticulatedModel& model, const Kinematics& k,
                           const std::vector<LinkWrench>& wrenches) {
  const size_t n = model.links.size();
  Vec6 worldAcceleration = Vec6::Zero();
  worldAcceleration.tail<3>() = -model.gravity;
  std::vector<Vec6> a(n), f(n);
  for (size_t i = 0; i < n; ++i) {
    const int p = model.links[i].parent;
    a[i] = k.X[i].motionToLink(p < 0 ? worldAcceleration : a[size_t(p)]) + k.c[i];
    f[i] = k.I[i] * a[i] + crossForce(k.v[i], k.I[i] * k.v[i]);
    if (!wrenches.empty()) {
      const Mat3 toLink = k.worldRotation[i].toRotationMatrix().transpose();
      f[i].head<3>() -= toLink * wrenches[i].torque;
      f[i].tail<3>() -= toLink * wrenches[i].force;
    }
  }
  Eigen::VectorXd C(k.dofs);
  for (size_t i = n; i-- > 0;) {
    if (k.S[i].cols() > 0) C.segment(k.offset[i], k.S[i].cols()) = k.S[i].transpose() * f[i];
    const int p = model.links[i].parent;
    if (p >= 0) f[size_t(p)] += k.X[i].forceToParent(f[i]);
  }
  return C;
}

// PD servos (Liu 2013 eq. 1, damping implicit as in eq. 4) and one-sided limit
// springs, as generalised forces `tau` (explicit part) and a damping matrix
// `D` whose forces -D qdot_{t+1} are taken at the end of the step. Limits put
// their stiffness into D too (times h): the linearised spring at the new
// position, so that stiff limits stay stable.
void servoAndLimitForces(const ArticulatedModel& model, const ArticulatedState& state, const PdTargets& targets,
                         const Kinematics& k, const Eigen::MatrixXd& M, double h, Eigen::VectorXd& tau,
                         Eigen::MatrixXd& D) {
  tau.setZero(k.dofs);
  D.setZero(k.dofs, k.dofs);
  for (size_t i = 0; i < model.links.size(); ++i) {
    const Link& link = model.links[i];
    const int o = k.offset[i];
    const Quat& q = state.rotation[i];
    const Quat target = targets.rotation.empty() ? Quat::Identity() : targets.rotation[i];
    const Vec3 targetRate = targets.angularVelocity.empty() ? Vec3::Zero() : targets.angularVelocity[i];
    auto limitTerms = [&](double value, double lower, double upper, int dof, const Eigen::Ref<const Vec3>& grad) {
      // One-sided spring on `value`, whose rate is grad . qdot (3 dofs) at dof.
      const double excess = value > upper ? value - upper : value < lower ? value - lower : 0.0;
      if (excess == 0) return;
      const double inertia = M(dof, dof);  // subtree inertia about this axis
      const double stiffness = model.limitStiffness * inertia, damping = model.limitDamping * inertia;
      const int n = link.kind == JointKind::Ball ? 3 : 1;
      tau.segment(o, n) -= stiffness * excess * grad.head(n);
      D.block(o, o, n, n) += (damping + h * stiffness) * grad.head(n) * grad.head(n).transpose();
    };
    switch (link.kind) {
      case JointKind::Free:
      case JointKind::Fixed: break;
      case JointKind::Ball: {
        tau.segment<3>(o) += link.kp * quatLog(q.conjugate() * target) + link.kd * targetRate;
        D.block<3, 3>(o, o).diagonal().array() += link.kd;
        const Vec3 r = quatLog(q);
        const Mat3 rateMap = rightJacobianInverse(r);  // d r / dt = rateMap * omega
        for (int c = 0; c < 3; ++c)
          limitTerms(r[c], link.lower[c], link.upper[c], o + c, rateMap.row(c).transpose());
        break;
      }
      case JointKind::Hinge: {
        tau[o] += link.kp * hingeAngle(q.conjugate() * target, link.hingeAxis) +
                  link.kd * targetRate.dot(link.hingeAxis);
        D(o, o) += link.kd;
        limitTerms(hingeAngle(q, link.hingeAxis), link.lower.x(), link.upper.x(), o, Vec3::UnitX());
        break;
      }
    }
  }
}

// Linear momentum (world) and centre of mass of the whole tree.
void momentumAndCom(const ArticulatedModel& model, const Kinematics& k, Vec3& momentum, Vec3& com) {
  momentum.setZero();
  com.setZero();
  double mass = 0;
  for (size_t i = 0; i < model.links.size(); ++i) {
    const Inertia& in = model.links[i].inertia;
    momentum += k.worldRotation[i] * (k.I[i] * k.v[i]).tail<3>();
    com += in.mass * (k.worldPosition[i] + k.worldRotation[i] * in.com);
    mass += in.mass;
  }
  if (mass > 0) com /= mass;
}

}  // namespace

int ArticulatedModel::dofCount() const {
  int n = 0;
  for (const Link& l : links) n += kindDofs(l.kind);
  return n;
}

int ArticulatedModel::dofOffset(int link) const {
  int n = 0;
  for (int i = 0; i < link; ++i) n += kindDofs(links[size_t(i)].kind);
  return n;
}

int ArticulatedModel::jointDofs(int link) const { return kindDofs(links[size_t(link)].kind); }

double hingeAngle(const Quat& rotation, const Vec3& axis) {
  double angle = 2 * std::atan2(rotation.vec().dot(axis), rotation.w());
  if (angle > M_PI) angle -= 2 * M_PI;
  if (angle <= -M_PI) angle += 2 * M_PI;
  return angle;
}

std::string checkModel(const ArticulatedModel& model) {
  if (model.links.empty()) return "the model has no links";
  for (size_t i = 0; i < model.links.size(); ++i) {
    const Link& l = model.links[i];
    const std::string name = "link " + std::to_string(i) + " (" + l.name + "): ";
    if (i == 0 && l.parent != -1) return name + "the first link must be the root (parent -1)";
    if (i > 0 && (l.parent < 0 || size_t(l.parent) >= i)) return name + "its parent must be an earlier link";
    if (i > 0 && l.kind == JointKind::Free) return name + "only the root may have a free joint";
    if (l.kind == JointKind::Hinge && std::abs(l.hingeAxis.norm() - 1) > 1e-6) return name + "hinge axis is not unit";
    if (!(l.inertia.mass >= 0) || !l.inertia.inertia.allFinite() || !l.inertia.com.allFinite())
      return name + "mass properties are negative or not finite";
    if ((l.inertia.inertia - l.inertia.inertia.transpose()).norm() > 1e-9 * (1 + l.inertia.inertia.norm()))
      return name + "inertia is not symmetric";
    if (Eigen::SelfAdjointEigenSolver<Mat3>(l.inertia.inertia).eigenvalues().minCoeff() < 0)
      return name + "inertia is not positive semi-definite";
    if ((l.lower.array() > 0).any() || (l.upper.array() < 0).any()) return name + "limits must satisfy lower <= 0 <= upper";
    if (!(l.kp >= 0) || !(l.kd >= 0)) return name + "PD gains must be non-negative";
  }
  if (model.links[0].kind == JointKind::Free && !(totalMass(model) > 0)) return "a free-floating tree needs mass";
  // Every dof must move some inertia, else M is singular.
  const Eigen::MatrixXd M = massMatrix(model, restState(model));
  for (size_t i = 0; i < model.links.size(); ++i)
    for (int d = 0; d < model.jointDofs(int(i)); ++d)
      if (!(M(model.dofOffset(int(i)) + d, model.dofOffset(int(i)) + d) > 0))
        return "link " + std::to_string(i) + " (" + model.links[i].name + "): nothing with inertia moves with its joint";
  if (M.size() > 0 && Eigen::LLT<Eigen::MatrixXd>(M).info() != Eigen::Success)
    return "the mass matrix is singular: give the links mass and inertia";
  return {};
}

ArticulatedState restState(const ArticulatedModel& model) {
  ArticulatedState s;
  s.rootPosition = model.links.empty() ? Vec3::Zero() : model.links[0].parentFromJoint.translation;
  s.rotation.assign(model.links.size(), Quat::Identity());
  s.velocity = Eigen::VectorXd::Zero(model.dofCount());
  return s;
}

LinkKinematics forwardKinematics(const ArticulatedModel& model, const ArticulatedState& state) {
  const Kinematics k = computeKinematics(model, state);
  LinkKinematics out;
  const size_t n = model.links.size();
  out.pose.resize(n);
  out.linear.resize(n);
  out.angular.resize(n);
  for (size_t i = 0; i < n; ++i) {
    out.pose[i] = Transform{k.worldRotation[i], k.worldPosition[i]};
    out.angular[i] = k.worldRotation[i] * k.v[i].head<3>();
    out.linear[i] = k.worldRotation[i] * k.v[i].tail<3>();
  }
  return out;
}

Eigen::VectorXd inverseDynamics(const ArticulatedModel& model, const ArticulatedState& state, const Eigen::VectorXd& qdd,
                                const std::vector<LinkWrench>& wrenches) {
  assert(wrenches.empty() || wrenches.size() == model.links.size());
  const Kinematics k = computeKinematics(model, state);
  assert(qdd.size() == k.dofs);
  return compositeRigidBody(model, k) * qdd + biasForces(model, k, wrenches);
}

bool step(const ArticulatedModel& model, ArticulatedState& state, const PdTargets& targets,
          const std::vector<LinkWrench>& wrenches, double h) {
  const size_t n = model.links.size();
  assert(h > 0);
  assert(wrenches.empty() || wrenches.size() == n);
  assert(targets.rotation.empty() || targets.rotation.size() == n);
  assert(targets.angularVelocity.empty() || targets.angularVelocity.size() == n);
  if (n == 0) return true;

  // Update kinematics, then the terms of (M + h D) qdd = tau - D qdot - C.
  const Kinematics k = computeKinematics(model, state);
  const Eigen::MatrixXd M = compositeRigidBody(model, k);
  const Eigen::VectorXd C = biasForces(model, k, wrenches);
  Eigen::VectorXd tau;
  Eigen::MatrixXd D;
  servoAndLimitForces(model, state, targets, k, M, h, tau, D);

  // Solve for the accelerations; velocities first (semi-implicit Euler).
  ArticulatedState next = state;
  if (k.dofs > 0) {
    // M + h D is symmetric positive definite (D is a sum of PSD terms): Cholesky.
    const Eigen::LLT<Eigen::MatrixXd> llt(M + h * D);
    if (llt.info() != Eigen::Success) return false;
    const Eigen::VectorXd qdd = llt.solve(tau - D * state.velocity - C);
    next.velocity = state.velocity + h * qdd;
  }

  // Positions with the new velocities: rotations by the exponential map.
  for (size_t i = 0; i < n; ++i) {
    const Link& link = model.links[i];
    const int o = k.offset[i];
    switch (link.kind) {
      case JointKind::Free:
        next.rotation[i] = (state.rotation[i] * quatExp(h * next.velocity.segment<3>(o + 3))).normalized();
        break;
      case JointKind::Ball:
        next.rotation[i] = (state.rotation[i] * quatExp(h * next.velocity.segment<3>(o))).normalized();
        break;
      case JointKind::Hinge: {
        // Kept exactly about the axis: advance the half angle.
        const Quat& q = state.rotation[i];
        const double half = std::atan2(q.vec().dot(link.hingeAxis), q.w());
        next.rotation[i] = axisQuat(link.hingeAxis, half + 0.5 * h * next.velocity[o]);
        break;
      }
      case JointKind::Fixed: next.rotation[i] = Quat::Identity(); break;
    }
  }

  // A free root translates through the centre of mass: semi-implicit Euler in
  // centroidal coordinates, where the total momentum changes by exactly
  // h * (external force + weight). The root's linear velocity is then the one
  // that gives that momentum with the new joint velocities.
  if (model.links[0].kind == JointKind::Free) {
    const double mass = totalMass(model);
    Vec3 force = mass * model.gravity;
    for (const LinkWrench& w : wrenches) force += w.force;
    Vec3 momentum, com;
    momentumAndCom(model, k, momentum, com);
    const Vec3 comVelocity = (momentum + h * force) / mass;
    Vec3 newMomentum, newCom;
    momentumAndCom(model, computeKinematics(model, next), newMomentum, newCom);
    next.rootPosition += (com + h * comVelocity) - newCom;
    next.velocity.head<3>() += (mass * comVelocity - newMomentum) / mass;
  }

  if (!next.velocity.allFinite() || !next.rootPosition.allFinite()) return false;
  for (const Quat& q : next.rotation)
    if (!q.coeffs().allFinite()) return false;
  state = std::move(next);
  return true;
}

void setPoseKinematic(const ArticulatedModel& model, ArticulatedState& state, const Vec3& rootPosition,
                      const std::vector<Quat>& rotation, double h) {
  assert(rotation.size() == model.links.size() && h > 0);
  int o = 0;
  for (size_t i = 0; i < model.links.size(); ++i) {
    const Link& link = model.links[i];
    const Quat oldRotation = state.rotation[i];
    Quat q = rotation[i].normalized();
    switch (link.kind) {
      case JointKind::Free:
        state.velocity.segment<3>(o) = (rootPosition - state.rootPosition) / h;
        state.velocity.segment<3>(o + 3) = quatLog(oldRotation.conjugate() * q) / h;
        state.rootPosition = rootPosition;
        break;
      case JointKind::Ball: state.velocity.segment<3>(o) = quatLog(oldRotation.conjugate() * q) / h; break;
      case JointKind::Hinge:
        q = axisQuat(link.hingeAxis, 0.5 * hingeAngle(q, link.hingeAxis));
        state.velocity[o] = hingeAngle(oldRotation.conjugate() * q, link.hingeAxis) / h;
        break;
      case JointKind::Fixed: q = Quat::Identity(); break;
    }
    state.rotation[i] = q;
    o += kindDofs(link.kind);
  }
}

double kineticEnergy(const ArticulatedModel& model, const ArticulatedState& state) {
  const Kinematics k = computeKinematics(model, state);
  double e = 0;
  for (size_t i = 0; i < model.links.size(); ++i) e += 0.5 * k.v[i].dot(k.I[i] * k.v[i]);
  return e;
}

Vec3 linearMomentum(const ArticulatedModel& model, const ArticulatedState& state) {
  Vec3 p, com;
  momentumAndCom(model, computeKinematics(model, state), p, com);
  return p;
}

Vec3 angularMomentum(const ArticulatedModel& model, const ArticulatedState& state, const Vec3& about) {
  const Kinematics k = computeKinematics(model, state);
  Vec3 l = Vec3::Zero();
  for (size_t i = 0; i < model.links.size(); ++i) {
    const Vec6 h = k.I[i] * k.v[i];  // about the link origin, link coordinates
    const Vec3 linear = k.worldRotation[i] * h.tail<3>();
    l += k.worldRotation[i] * h.head<3>() + (k.worldPosition[i] - about).cross(linear);
  }
  return l;
}

Vec3 centerOfMass(const ArticulatedModel& model, const ArticulatedState& state) {
  Vec3 p, com;
  momentumAndCom(model, computeKinematics(model, state), p, com);
  return com;
}

double totalMass(const ArticulatedModel& model) {
  double m = 0;
  for (const Link& l : model.links) m += l.inertia.mass;
  return m;
}

double potentialEnergy(const ArticulatedModel& model, const ArticulatedState& state) {
  const LinkKinematics fk = forwardKinematics(model, state);
  double e = 0;
  for (size_t i = 0; i < model.links.size(); ++i)
    e -= model.links[i].inertia.mass * model.gravity.dot(fk.pose[i].apply(model.links[i].inertia.com));
  return e;
}

Eigen::MatrixXd massMatrix(const ArticulatedModel& model, const ArticulatedState& state) {
  return compositeRigidBody(model, computeKinematics(model, state));
}

}  // namespace sinew::dyn
