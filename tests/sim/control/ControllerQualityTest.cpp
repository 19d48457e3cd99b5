// A controller built by the sampling search for a real motion-capture
// segment (CMU 01_01, the first second: standing, shifting its weight before
// the first jump) on the shipped example character: its replay stays upright
// and tracks the reference within stated errors, replays bit for bit, and its
// balance feedback absorbs a push that throws the open-loop replay much
// further (Liu et al. 2013, Section 5; feedback after Liu et al. 2012).
// Release only (label "physics"): about a minute and a half on 2 AVX-512 cores,
// five and a half minutes on 2 AVX2-only cores (Zen 3), hence its 1200 s timeout.
#include "control/Optimize.h"
#include "io/Bvh.h"
#include "io/ProjectFile.h"
#include "CmuClip.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

namespace sinew::control {
namespace {

struct Replay {
  double maxTiltDegrees = 0;     // root orientation away from the reference's
  double meanRootError = 0;      // m
  double meanPoseError = 0;      // rad^2 (the cost's pose term)
  bool fell = false;
  liu2013::Liu2013State end;
};

Replay replay(const Project& project, const ControllerObject& c, bool feedback, double push) {
  liu2013::Settings physics;
  liu2013::applyScene(project.simulation, physics);
  physics.threads = 1;
  ControllerRun run = prepareControllerRun(project, c, physics, feedback);
  liu2013::Liu2013Solver& sim = *run.solver;
  Replay r;
  int samples = 0;
  const int steps = int(std::lround(c.duration() / physics.dt)), pushAt = int(std::lround(0.2 / physics.dt));
  for (int i = 0; i < steps; ++i) {
    if (i == pushAt && push != 0) {  // a shove from behind: the whole body gains `push` m/s forward
      liu2013::Liu2013State s = sim.state();
      liu2013::addRigidVelocity(sim.model(), s, Vec3(0, 0, push), Vec3::Zero(), Vec3::Zero());
      sim.setState(s);
    }
    sim.step();
    if (i % 20 == 19) {
      const BodyFeatures now = run.reference->features(sim.state().skeleton);
      const BodyFeatures ref = run.reference->features(run.policy->referenceTime(sim.time()));
      const CostTerms cost = trackingCost(now, ref, {});
      const Vec3 up = now.rootRotation * ref.rootRotation.conjugate() * Vec3::UnitY();
      r.maxTiltDegrees = std::max(r.maxTiltDegrees, std::acos(std::clamp(up.y(), -1.0, 1.0)) * 180 / M_PI);
      r.meanRootError += std::sqrt(cost.position);
      r.meanPoseError += cost.pose;
      r.fell = r.fell || cost.fallen;
      ++samples;
    }
  }
  r.meanRootError /= samples;
  r.meanPoseError /= samples;
  r.end = sim.state();
  return r;
}

TEST(ControllerQuality, StandingSegmentStaysUprightTracksAndAbsorbsAPush) {
  const Project project =
      test::withCmuClip(loadProject(std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-rigged.sinew"));
  OptimizeSpec spec;
  spec.clip = "01_01";
  spec.start = 0;
  spec.end = 1.0;
  spec.samcon.samples = 120;
  spec.samcon.keep = 10;
  spec.samcon.feedback = true;
  const PreparedOptimization prepared = prepareOptimization(project, spec);
  SamconSearch search(prepared.problem, makeThreadedEvaluator(2));
  while (!search.finished()) search.runWindow();
  ASSERT_FALSE(search.failed());
  const ControllerObject c = makeControllerObject(project, spec, prepared, search, "stand");
  ASSERT_FALSE(c.feedback.empty());

  const Replay a = replay(project, c, true, 0), b = replay(project, c, true, 0);
  EXPECT_TRUE(a.end == b.end) << "two replays differ";
  std::printf("replay with feedback: max tilt %.1f deg, mean root error %.3f m, mean pose error %.4f rad^2\n",
              a.maxTiltDegrees, a.meanRootError, a.meanPoseError);
  EXPECT_FALSE(a.fell);
  EXPECT_LT(a.maxTiltDegrees, 20.0);
  EXPECT_LT(a.meanRootError, 0.12);
  EXPECT_LT(a.meanPoseError, 0.05);

  // A push of 0.6 m/s forward at 0.2 s: the feedback keeps the tilt far
  // smaller than the open-loop replay of the same windows.
  const Replay pushed = replay(project, c, true, 0.6), openLoop = replay(project, c, false, 0.6);
  std::printf("pushed 0.6 m/s: max tilt %.1f deg with feedback, %.1f deg open loop\n", pushed.maxTiltDegrees,
              openLoop.maxTiltDegrees);
  EXPECT_FALSE(pushed.fell);
  EXPECT_LT(pushed.maxTiltDegrees, 40.0);
  EXPECT_LT(pushed.maxTiltDegrees, 0.75 * openLoop.maxTiltDegrees);
}

}  // namespace
}  // namespace sinew::control
