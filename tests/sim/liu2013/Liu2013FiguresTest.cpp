// Figures of Liu et al. 2013 reproduced as tests, on the small test humanoid.
// Each writes its curve as CSV into the build tree (docs/ holds the plots).
#include "examples/Humanoid.h"
#include "examples/Motions.h"
#include "liu2013/Liu2013.h"
#include "rig/RigBuild.h"
#include "LiuScene.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>

using namespace sinew;
using namespace sinew::liu2013;
using sinew::test::riggedHumanoid;

namespace {

int32_t jointIndex(const Liu2013Model& m, const char* name) {
  for (size_t j = 0; j < m.jointNames.size(); ++j)
    if (m.jointNames[j] == name) return static_cast<int32_t>(j);
  return -1;
}

double elbowAngleDegrees(const Liu2013Solver& sim) {
  const Liu2013Model& m = sim.model();
  const auto poses = sim.jointPoses();
  const Vec3 upper = poses[jointIndex(m, "LeftForeArm")].translation - poses[jointIndex(m, "LeftArm")].translation;
  const Vec3 lower = poses[jointIndex(m, "LeftHand")].translation - poses[jointIndex(m, "LeftForeArm")].translation;
  return std::acos(std::clamp(upper.normalized().dot(lower.normalized()), -1.0, 1.0)) * 180 / M_PI;
}

}  // namespace

// Fig. 7: a limb motion (a kick) tracked by PD servos in zero gravity with no
// contact, the character spinning: pose-based damping conserves angular and
// linear momentum; Rayleigh damping dissipates angular momentum.
TEST(Liu2013Figures, Fig7KickInZeroGravityConservesMomentumWithPoseDamping) {
  const auto model = buildLiu2013Model(riggedHumanoid());
  std::ofstream csv(std::string(SINEW_BINARY_DIR) + "/liu2013_fig7.csv");
  csv << "damping,time,angular_momentum,linear_momentum\n";
  for (DampingMode mode : {DampingMode::Pose, DampingMode::Rayleigh}) {
    Settings s;
    s.toggles.gravity = false;
    s.toggles.contact = false;
    s.toggles.damping = mode;
    s.drive = DriveMode::Pd;
    s.clip = makeKickClip(riggedHumanoid().skeleton->skeleton, 5.0);
    Liu2013Solver sim(model, s);
    Liu2013State st = sim.state();
    addRigidVelocity(*model, st, Vec3(0.2, 0.0, 0.1), Vec3(0.0, 1.0, 0.3), sim.measure().centerOfMass);
    sim.setState(st);
    const SimMeasures a = sim.measure();
    double worstL = 0, worstP = 0;
    for (int i = 1; i <= 10000; ++i) {  // 5 s
      sim.step();
      if (i % 100 == 0) {
        const SimMeasures b = sim.measure();
        worstL = std::max(worstL, std::abs(b.angularMomentum.norm() - a.angularMomentum.norm()) / a.angularMomentum.norm());
        worstP = std::max(worstP, (b.linearMomentum - a.linearMomentum).norm() / a.linearMomentum.norm());
        csv << dampingModeName(mode) << "," << b.time << "," << b.angularMomentum.norm() << "," << b.linearMomentum.norm() << "\n";
      }
    }
    const SimMeasures b = sim.measure();
    std::printf("%s damping: |L| %.5g -> %.5g (worst relative change %.3g), linear momentum worst %.3g\n",
                dampingModeName(mode), a.angularMomentum.norm(), b.angularMomentum.norm(), worstL, worstP);
    if (mode == DampingMode::Pose) {
      EXPECT_LT(worstL, 0.01);
      EXPECT_LT(worstP, 1e-9);
    } else {
      EXPECT_LT(b.angularMomentum.norm(), 0.9 * a.angularMomentum.norm());
    }
  }
}

// Fig. 5: bending the elbow to 130 degrees: with pose-based plasticity the
// flesh's reference follows the pose and the PD servo reaches its target;
// without it the elastic energy of the bent elbow resists and it falls short.
TEST(Liu2013Figures, Fig5ElbowReachesItsTargetWithPlasticity) {
  const auto model = buildLiu2013Model(riggedHumanoid());
  std::ofstream csv(std::string(SINEW_BINARY_DIR) + "/liu2013_fig5.csv");
  csv << "plasticity,time,elbow_degrees\n";
  double reached[2] = {0, 0};
  for (int plastic = 1; plastic >= 0; --plastic) {
    Settings s;
    s.toggles.gravity = false;
    s.toggles.contact = false;
    s.toggles.plasticity = plastic == 1;
    s.drive = DriveMode::Pd;
    s.loopClip = false;
    s.clip = makeElbowBendClip(riggedHumanoid().skeleton->skeleton, 130, 2.0);
    Liu2013Solver sim(model, s);
    for (int i = 1; i <= 6000; ++i) {  // 3 s: the bend takes 0.8 s, then holds
      sim.step();
      if (i % 100 == 0) csv << plastic << "," << sim.time() << "," << elbowAngleDegrees(sim) << "\n";
    }
    reached[plastic] = elbowAngleDegrees(sim);
    std::printf("plasticity %s: elbow at %.1f degrees (target 130)\n", plastic ? "on" : "off", reached[plastic]);
  }
  EXPECT_NEAR(reached[1], 130.0, 10.0);
  EXPECT_LT(reached[0], reached[1] - 5.0) << "without plasticity the elbow should fall measurably short";
}
