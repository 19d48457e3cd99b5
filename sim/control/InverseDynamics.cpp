#include "control/InverseDynamics.h"

#include <algorithm>
#include <cmath>

namespace sinew::control {

InverseDynamicsFrame inverseDynamicsAt(const ReferenceMotion& ref, const dyn::ArticulatedModel& gains, double t,
                                       const InverseDynamicsOptions& o) {
  const dyn::ArticulatedModel& body = ref.bodyModel();
  const double dT = ref.clip().frameTime;  // the reference's own resolution (eq. 20-21)
  InverseDynamicsFrame f;
  f.time = t;
  // Kinematics (eq. 20-24): positions and velocities at t, accelerations by
  // differences of the velocities one reference frame apart.
  const double tm = std::max(0.0, t - 0.5 * dT), tp = std::min(ref.duration(), t + 0.5 * dT);
  const dyn::ArticulatedState s = ref.state(t, 0.5 * dT);
  const dyn::ArticulatedState sm = ref.state(tm, 0.5 * dT), sp = ref.state(tp, 0.5 * dT);
  Eigen::VectorXd qdd = Eigen::VectorXd::Zero(s.velocity.size());
  if (tp > tm) qdd = (sp.velocity - sm.velocity) / (tp - tm);

  // Total contact force and torque from the momentum change (eq. 25-26).
  const double mass = dyn::totalMass(body);
  Vec3 force = Vec3::Zero(), torque = Vec3::Zero();
  if (tp > tm) {
    const Vec3 cm = dyn::centerOfMass(body, sm), cp = dyn::centerOfMass(body, sp);
    force = (dyn::linearMomentum(body, sp) - dyn::linearMomentum(body, sm)) / (tp - tm) - mass * body.gravity;
    torque = (dyn::angularMomentum(body, sp, cp) - dyn::angularMomentum(body, sm, cm)) / (tp - tm);
  }

  // Feet in contact, and the share of each (eq. 27-28), projected (eq. 29-31).
  const dyn::LinkKinematics k = dyn::forwardKinematics(body, s);
  const dyn::LinkKinematics kn = dyn::forwardKinematics(body, sp);
  const Vec3 com = dyn::centerOfMass(body, s);
  std::vector<dyn::LinkWrench> wrenches(body.links.size());
  std::vector<size_t> touching;
  const std::vector<int32_t>& feet = ref.feet();
  for (size_t i = 0; i < feet.size(); ++i) {
    const size_t l = size_t(feet[i]);
    const double height = k.pose[l].translation.y() - o.groundHeight - ref.footRestHeight()[i];
    Vec3 v = tp > t ? Vec3((kn.pose[l].translation - k.pose[l].translation) / (tp - t)) : Vec3::Zero();
    v.y() = 0;
    const bool contact = height < o.contactHeight && v.norm() < o.contactSpeed;
    f.footContact.push_back(contact ? 1 : 0);
    f.footForce.push_back(Vec3::Zero());
    f.footTorque.push_back(Vec3::Zero());
    if (contact) touching.push_back(i);
  }
  if (!touching.empty()) {
    std::vector<Vec3> d(touching.size());
    std::vector<double> share(touching.size());
    double sum = 0;
    for (size_t j = 0; j < touching.size(); ++j) {
      const size_t l = size_t(feet[touching[j]]);
      d[j] = k.pose[l].apply(body.links[l].inertia.com) - com;
      share[j] = 1.0 / std::max(std::hypot(d[j].x(), d[j].z()), 1e-3);
      sum += share[j];
    }
    // Eq. 28 takes each foot's own moment about the centre of mass out of its
    // own torque. With two feet astride the centre of mass that leaves equal
    // and opposite foot torques (a squeeze of about d m g / 2 each) which the
    // legs would have to hold; so the moment of all the feet's forces is taken
    // out of the total once, and what remains is shared. With one foot this is
    // eq. 28 exactly.
    Vec3 lever = Vec3::Zero();
    for (size_t j = 0; j < touching.size(); ++j) lever += (share[j] / sum) * d[j];
    const Vec3 residual = torque - lever.cross(force);
    for (size_t j = 0; j < touching.size(); ++j) {
      const size_t l = size_t(feet[touching[j]]);
      Vec3 fi = (share[j] / sum) * force;                                            // eq. 27
      Vec3 ti = (share[j] / sum) * residual;                                         // about the foot's centre of mass
      fi.y() = std::max(fi.y(), 0.0);                                                // eq. 29
      const double tangential = std::hypot(fi.x(), fi.z());
      if (tangential > o.friction * fi.y()) {                                        // eq. 30
        const double scale = tangential > 0 ? o.friction * fi.y() / tangential : 0.0;
        fi.x() *= scale;
        fi.z() *= scale;
      }
      const double maxTorque = o.footReach * std::sqrt(1 + o.friction * o.friction) * fi.y();  // eq. 31
      if (ti.norm() > maxTorque) ti *= maxTorque / ti.norm();
      const Vec3 footCom = k.pose[l].apply(body.links[l].inertia.com);
      wrenches[l].force = fi;
      wrenches[l].torque = ti + (footCom - k.pose[l].translation).cross(fi);
      f.footForce[touching[j]] = fi;
      f.footTorque[touching[j]] = ti;
      f.contactForce += fi;
      f.contactTorque += ti + (footCom - com).cross(fi);
    }
  }

  // Joint torques (Newton-Euler, gravity included), then PD targets (eq. 32):
  // stable PD applies kp log(q^-1 target) - kd (qdot + h qddot).
  f.tau = dyn::inverseDynamics(body, s, qdd, wrenches);
  f.targets = s.rotation;
  for (size_t l = 1; l < body.links.size(); ++l) {
    const dyn::Link& g = gains.links[l];
    if (!(g.kp > 0)) continue;
    const int off = body.dofOffset(int(l));
    if (g.kind == dyn::JointKind::Ball) {
      const Vec3 r = (f.tau.segment<3>(off) + g.kd * (s.velocity.segment<3>(off) + o.dt * qdd.segment<3>(off))) / g.kp;
      f.targets[l] = (s.rotation[l] * fromRotationVector(r)).normalized();
    } else if (g.kind == dyn::JointKind::Hinge) {
      const double a = (f.tau[off] + g.kd * (s.velocity[off] + o.dt * qdd[off])) / g.kp;
      f.targets[l] = (s.rotation[l] * Quat(Eigen::AngleAxisd(a, g.hingeAxis))).normalized();
    }
  }
  return f;
}

std::vector<Quat> inverseDynamicsWindowTarget(const ReferenceMotion& ref, const dyn::ArticulatedModel& gains, double t0,
                                              double t1, const InverseDynamicsOptions& o) {
  const int samples = std::max(1, int(std::lround((t1 - t0) / 0.002)));  // every 2 ms
  std::vector<std::vector<Quat>> targets;
  for (int i = 0; i < samples; ++i)
    targets.push_back(inverseDynamicsAt(ref, gains, t0 + (i + 0.5) * (t1 - t0) / samples, o).targets);
  // Mean in the tangent space at the middle sample.
  const std::vector<Quat>& centre = targets[size_t(samples / 2)];
  std::vector<Quat> out = centre;
  for (size_t l = 0; l < out.size(); ++l) {
    Vec3 mean = Vec3::Zero();
    for (const auto& t : targets) mean += rotationVector(centre[l].conjugate() * t[l]);
    out[l] = (centre[l] * fromRotationVector(mean / samples)).normalized();
  }
  return out;
}

}  // namespace sinew::control
