// Sinew's reduced-coordinate skeleton solver against the Open Dynamics Engine
// (0.16, double precision, maximal coordinates with joint constraints) on the
// same chains: passive swinging from 30 degrees, and PD servos holding a bent
// pose under gravity. Never include TetGen here: <ode/ode.h> defines REAL(x).
#include "dynamics/Articulated.h"

#include "DynamicsScenes.h"

#include <gtest/gtest.h>
#include <ode/ode.h>

#include <cstdio>

namespace sinew {
namespace {

using dyn::ArticulatedModel;
using dyn::ArticulatedState;
using dyn::JointKind;

constexpr double kStep = 5e-4;

class OdeEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { dInitODE2(0); }
  void TearDown() override { dCloseODE(); }
};
[[maybe_unused]] const auto* const kOdeEnvironment = ::testing::AddGlobalTestEnvironment(new OdeEnvironment);

Vec3 toVec(const dReal* v) { return {v[0], v[1], v[2]}; }

// The same articulated model as ODE bodies (origin at the centre of mass) and
// joints (hinge/ball to the parent, the root's to the world). Joints are
// created in the rest pose, then the bodies are moved to the initial state.
class OdeModel {
 public:
  OdeModel(const ArticulatedModel& m, const ArticulatedState& initial) : model_(m) {
    world_ = dWorldCreate();
    dWorldSetGravity(world_, m.gravity.x(), m.gravity.y(), m.gravity.z());
    dWorldSetERP(world_, 0.2);
    dWorldSetCFM(world_, 1e-10);
    const dyn::LinkKinematics rest = dyn::forwardKinematics(m, dyn::restState(m));
    for (size_t i = 0; i < m.links.size(); ++i) {
      const dyn::Inertia& in = m.links[i].inertia;
      dBodyID b = dBodyCreate(world_);
      dMass mass;
      dMassSetParameters(&mass, in.mass, 0, 0, 0, in.inertia(0, 0), in.inertia(1, 1), in.inertia(2, 2),
                         in.inertia(0, 1), in.inertia(0, 2), in.inertia(1, 2));
      dBodySetMass(b, &mass);
      setBodyPose(b, rest.pose[i], in.com);
      bodies_.push_back(b);
    }
    for (size_t i = 0; i < m.links.size(); ++i) {
      const dyn::Link& l = m.links[i];
      dBodyID parent = l.parent < 0 ? nullptr : bodies_[size_t(l.parent)];
      const Vec3 pivot = rest.pose[i].translation;
      dJointID j = nullptr;
      if (l.kind == JointKind::Hinge) {
        j = dJointCreateHinge(world_, nullptr);
        dJointAttach(j, bodies_[i], parent);
        dJointSetHingeAnchor(j, pivot.x(), pivot.y(), pivot.z());
        const Vec3 axis = rest.pose[i].rotation * l.hingeAxis;
        dJointSetHingeAxis(j, axis.x(), axis.y(), axis.z());
      } else if (l.kind == JointKind::Ball) {
        j = dJointCreateBall(world_, nullptr);
        dJointAttach(j, bodies_[i], parent);
        dJointSetBallAnchor(j, pivot.x(), pivot.y(), pivot.z());
      } else {
        ADD_FAILURE() << "only hinge and ball chains are mirrored in ODE";
      }
    }
    const dyn::LinkKinematics k = dyn::forwardKinematics(m, initial);
    for (size_t i = 0; i < m.links.size(); ++i) {
      setBodyPose(bodies_[i], k.pose[i], m.links[i].inertia.com);
      const Vec3 w = k.angular[i], v = k.linear[i] + w.cross(k.pose[i].rotation * m.links[i].inertia.com);
      dBodySetLinearVel(bodies_[i], v.x(), v.y(), v.z());
      dBodySetAngularVel(bodies_[i], w.x(), w.y(), w.z());
    }
  }
  ~OdeModel() { dWorldDestroy(world_); }
  OdeModel(const OdeModel&) = delete;
  OdeModel& operator=(const OdeModel&) = delete;

  void step(double h) { dWorldStep(world_, h); }

  // Link frame -> world (the body sits at the link's centre of mass).
  Transform pose(size_t i) const {
    const dReal* q = dBodyGetQuaternion(bodies_[i]);
    Transform t;
    t.rotation = Quat(q[0], q[1], q[2], q[3]).normalized();
    t.translation = toVec(dBodyGetPosition(bodies_[i])) - t.rotation * model_.links[i].inertia.com;
    return t;
  }
  Vec3 angularVelocity(size_t i) const { return toVec(dBodyGetAngularVel(bodies_[i])); }

  // The joint's rotation relative to its joint frame, as Sinew's state has it.
  Quat jointRotation(size_t i) const {
    const dyn::Link& l = model_.links[i];
    const Quat frame = l.parent < 0 ? l.parentFromJoint.rotation
                                    : pose(size_t(l.parent)).rotation * l.parentFromJoint.rotation;
    return (frame.conjugate() * pose(i).rotation).normalized();
  }

  // Explicit PD servos (Liu 2013 eq. 1) as equal and opposite body torques.
  void addPdTorques(const std::vector<Quat>& targets) {
    for (size_t i = 0; i < model_.links.size(); ++i) {
      const dyn::Link& l = model_.links[i];
      const Quat rel = jointRotation(i);
      const Quat world = pose(i).rotation;
      const Vec3 parentRate = l.parent < 0 ? Vec3::Zero() : angularVelocity(size_t(l.parent));
      const Vec3 relRate = angularVelocity(i) - parentRate;  // world
      Vec3 torque;                                            // world
      if (l.kind == JointKind::Hinge) {
        const Vec3 axis = world * l.hingeAxis;
        torque = (l.kp * dyn::hingeAngle(rel.conjugate() * targets[i], l.hingeAxis) - l.kd * axis.dot(relRate)) * axis;
      } else {
        const Eigen::AngleAxisd error(rel.conjugate() * targets[i]);
        const double angle = error.angle() > M_PI ? error.angle() - 2 * M_PI : error.angle();
        torque = world * (l.kp * angle * error.axis()) - l.kd * relRate;
      }
      dBodyAddTorque(bodies_[i], torque.x(), torque.y(), torque.z());
      if (l.parent >= 0) dBodyAddTorque(bodies_[size_t(l.parent)], -torque.x(), -torque.y(), -torque.z());
    }
  }

 private:
  static void setBodyPose(dBodyID b, const Transform& linkPose, const Vec3& com) {
    const Vec3 c = linkPose.apply(com);
    dBodySetPosition(b, c.x(), c.y(), c.z());
    const Quat& r = linkPose.rotation;
    const dQuaternion q = {r.w(), r.x(), r.y(), r.z()};
    dBodySetQuaternion(b, q);
  }

  const ArticulatedModel& model_;
  dWorldID world_ = nullptr;
  std::vector<dBodyID> bodies_;
};

// Released from 30 degrees from vertical (the ball chain also with its middle
// joint bent 20 degrees out of the plane), 2 s at 0.5 ms: the tip of the chain
// follows ODE's to within 1% of the chain length at every sample.
void expectPassiveAgreement(JointKind kind) {
  const ArticulatedModel m = test::pinnedChain(kind, 3);
  ArticulatedState s = dyn::restState(m);
  s.rotation[0] = Quat(Eigen::AngleAxisd(M_PI / 6, Vec3::UnitZ()));
  if (kind == JointKind::Ball) s.rotation[1] = Quat(Eigen::AngleAxisd(M_PI / 9, Vec3::UnitX()));
  OdeModel ode(m, s);
  const double chainLength = 3 * test::kChainLength;
  const Vec3 tipLocal(0, -test::kChainLength, 0);
  double worst = 0, worstTime = 0, travel = 0;
  Vec3 lastTip = dyn::forwardKinematics(m, s).pose[2].apply(tipLocal);
  for (int n = 1; n <= 4000; ++n) {
    ASSERT_TRUE(dyn::step(m, s, {}, {}, kStep));
    ode.step(kStep);
    if (n % 10) continue;
    const Vec3 tip = dyn::forwardKinematics(m, s).pose[2].apply(tipLocal);
    const double d = (tip - ode.pose(2).apply(tipLocal)).norm();
    travel += (tip - lastTip).norm();
    lastTip = tip;
    if (d > worst) worst = d, worstTime = n * kStep;
  }
  std::printf("[ info ] %s chain vs ODE: max tip deviation %.3f mm (%.3f%% of the chain length) at t = %.2f s; "
              "tip travelled %.2f m\n",
              kind == JointKind::Hinge ? "hinge" : "ball", worst * 1e3, 100 * worst / chainLength, worstTime, travel);
  EXPECT_LT(worst, 0.01 * chainLength);
  EXPECT_GT(travel, 1.0);  // the chain really swung
}

TEST(OdeReference, PassiveHingeChain) { expectPassiveAgreement(JointKind::Hinge); }
TEST(OdeReference, PassiveBallChain) { expectPassiveAgreement(JointKind::Ball); }

// PD servos hold a bent pose under gravity; after the motion settles both
// engines rest in the same pose (the equilibrium depends only on kp and
// gravity; ODE integrates the servo explicitly, at gains where that is stable).
void expectPdAgreement(JointKind kind) {
  ArticulatedModel m = test::pinnedChain(kind, 3);
  std::vector<Quat> targets;
  if (kind == JointKind::Hinge) {
    for (double a : {0.5, 0.4, -0.3}) targets.emplace_back(Eigen::AngleAxisd(a, Vec3::UnitZ()));
  } else {
    for (const Vec3& r : {Vec3(0, 0.2, 0.5), Vec3(0.3, 0, 0.4), Vec3(-0.2, 0.4, -0.3)})
      targets.emplace_back(Eigen::AngleAxisd(r.norm(), r.normalized()));
  }
  for (dyn::Link& l : m.links) {
    l.kp = 40;
    l.kd = 1.0;  // ODE's explicit servo on the ball chain diverges at kd = 2 (the links' twist inertia is small)
  }
  ArticulatedState s = dyn::restState(m);
  OdeModel ode(m, s);
  dyn::PdTargets pd;
  pd.rotation = targets;
  const int steps = 40000;  // 20 s
  for (int n = 0; n < steps; ++n) {
    ASSERT_TRUE(dyn::step(m, s, pd, {}, kStep));
    ode.addPdTorques(targets);
    ode.step(kStep);
  }
  double worst = 0, sag = 0;
  for (size_t i = 0; i < m.links.size(); ++i) {
    const double d = s.rotation[i].angularDistance(ode.jointRotation(i));
    worst = std::max(worst, d);
    sag = std::max(sag, s.rotation[i].angularDistance(targets[i]));
    EXPECT_LT(d, 0.5 * M_PI / 180) << "joint " << i;
  }
  std::printf("[ info ] PD-held %s chain vs ODE after 20 s: max joint difference %.1e deg (sag from target up to "
              "%.2f deg); residual rate %.2e rad/s\n",
              kind == JointKind::Hinge ? "hinge" : "ball", worst * 180 / M_PI, sag * 180 / M_PI, s.velocity.norm());
  EXPECT_GT(sag, 2 * M_PI / 180);         // gravity matters: the test is not just "reached the target"
  EXPECT_LT(s.velocity.norm(), 1e-3);     // settled
}

TEST(OdeReference, PdHeldHingeChain) { expectPdAgreement(JointKind::Hinge); }
TEST(OdeReference, PdHeldBallChain) { expectPdAgreement(JointKind::Ball); }

}  // namespace
}  // namespace sinew
