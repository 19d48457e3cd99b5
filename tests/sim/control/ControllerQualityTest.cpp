// Controllers built by the sampling search on the shipped example character
// (Liu et al. 2013, Section 5; feedback after Liu et al. 2012):
// - a standing segment of real motion capture (CMU 01_01, the first second:
//   standing, shifting its weight before the first jump), searched here: its
//   replay stays upright and tracks the reference within stated errors,
//   replays bit for bit, and its balance feedback absorbs a push that throws
//   the open-loop replay much further;
// - a periodic segment (the example's "Walk in place" clip, 0-2 s), searched
//   with foot placement and committed in projects/humanoid/humanoid-walk.sinew:
//   with its feedback it rides out shoves from four sides; open loop it falls;
// - a stepping segment of real motion capture (01_01 8-10 s: standing, then
//   turning around on a step of each foot), searched with a stronger root
//   position weight and committed in projects/humanoid/humanoid-turn.sinew
//   (searched again here, to the same bits): it turns with the reference
//   upright and rides out shoves mid-turn with its feedback; open loop it
//   falls;
// - the ablations of Section 6 (inverse dynamics, time scaling) with the
//   paper's plain gains, and the inverse-dynamics targets on two feet.
// Release only (label "physics"): the standing search takes five and a half
// minutes on 2 AVX2-only cores (Zen 3), the turn's search 3.8 minutes on 2
// Zen 4 cores (so about 9.5 on Zen 3), hence the 1800 s timeout per test.
#include "TestPaths.h"
#include "control/Optimize.h"
#include "io/Bvh.h"
#include "io/ProjectFile.h"
#include "CmuClip.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <cstdio>
#include <vector>

namespace sinew::control {
namespace {

struct Replay {
  double maxTiltDegrees = 0;     // root orientation away from the reference's
  double meanRootError = 0;      // m
  double meanPoseError = 0;      // rad^2 (the cost's pose term)
  bool fell = false;
  double turnedDegrees = 0;      // heading change of the root, start to end (signed)
  double referenceTurnedDegrees = 0;
  double headingErrorDegrees = 0;  // at the end, against the reference's
  std::vector<double> footTravel;  // m: each foot's horizontal displacement, start to end
  liu2013::Liu2013State end;
};

// The heading (yaw about +Y) of a root orientation, degrees.
double headingDegrees(const Quat& root) {
  const Vec3 forward = root * Vec3::UnitZ();
  return std::atan2(forward.x(), forward.z()) * 180 / M_PI;
}

// An angle difference wrapped into (-180, 180].
double wrapDegrees(double a) {
  while (a > 180) a -= 360;
  while (a <= -180) a += 360;
  return a;
}

struct Push {
  double time = 0;             // s
  Vec3 velocity = Vec3::Zero();  // m/s given to the whole body (the character faces +Z)
};

// Simulated seconds of a controller's windows that play its clip segment
// (the windows after them play its standing tail, optimize --settle).
double segmentSeconds(const ControllerObject& c) {
  double t = 0;
  for (const ControlWindow& w : c.windows)
    if (w.referenceStart < c.end - c.start - 1e-6) t += w.duration;
  return t;
}

// Plays the controller for `seconds` (0: its duration; longer: its hold after it).
Replay replay(const Project& project, const ControllerObject& c, bool feedback, const Push& push, double seconds = 0) {
  liu2013::Settings physics;
  liu2013::applyScene(project.simulation, physics);
  physics.threads = 1;
  ControllerRun run = prepareControllerRun(project, c, physics, feedback);
  liu2013::Liu2013Solver& sim = *run.solver;
  Replay r;
  int samples = 0;
  auto feet = [&] {
    const dyn::LinkKinematics k = dyn::forwardKinematics(run.reference->bodyModel(), sim.state().skeleton);
    std::vector<Vec3> at;
    for (int32_t f : run.reference->feet()) at.push_back(k.pose[size_t(f)].translation);
    return at;
  };
  const std::vector<Vec3> feetAtStart = feet();
  const double headingAtStart = headingDegrees(run.reference->features(sim.state().skeleton).rootRotation);
  const double referenceHeadingAtStart = headingDegrees(run.reference->features(run.policy->referenceTime(0)).rootRotation);
  double heading = headingAtStart, referenceHeading = referenceHeadingAtStart;
  const int steps = int(std::lround((seconds > 0 ? seconds : c.duration()) / physics.dt)), pushAt = int(std::lround(push.time / physics.dt));
  for (int i = 0; i < steps; ++i) {
    if (i == pushAt && push.velocity != Vec3::Zero()) {
      liu2013::Liu2013State s = sim.state();
      liu2013::addRigidVelocity(sim.model(), s, push.velocity, Vec3::Zero(), Vec3::Zero());
      sim.setState(s);
    }
    sim.step();
    if (i % 20 == 19) {
      const BodyFeatures now = run.reference->features(sim.state().skeleton);
      const BodyFeatures ref = run.reference->features(run.policy->referenceTime(sim.time()));
      const CostTerms cost = trackingCost(now, ref, {});
      r.maxTiltDegrees = std::max(r.maxTiltDegrees, tiltDegrees(now, ref));
      r.meanRootError += std::sqrt(cost.position);
      r.meanPoseError += cost.pose;
      r.fell = r.fell || cost.fallen;
      ++samples;
      // Headings unwrapped sample by sample (a turn may pass +-180 degrees).
      heading += wrapDegrees(headingDegrees(now.rootRotation) - heading);
      referenceHeading += wrapDegrees(headingDegrees(ref.rootRotation) - referenceHeading);
    }
  }
  r.turnedDegrees = heading - headingAtStart;
  r.referenceTurnedDegrees = referenceHeading - referenceHeadingAtStart;
  r.headingErrorDegrees = wrapDegrees(heading - referenceHeading);
  const std::vector<Vec3> feetAtEnd = feet();
  for (size_t f = 0; f < feetAtEnd.size(); ++f) {
    const Vec3 d = feetAtEnd[f] - feetAtStart[f];
    r.footTravel.push_back(std::hypot(d.x(), d.z()));
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

  const Replay a = replay(project, c, true, {}), b = replay(project, c, true, {});
  EXPECT_TRUE(a.end == b.end) << "two replays differ";
  std::printf("replay with feedback: max tilt %.1f deg, mean root error %.3f m, mean pose error %.4f rad^2\n",
              a.maxTiltDegrees, a.meanRootError, a.meanPoseError);
  EXPECT_FALSE(a.fell);
  EXPECT_LT(a.maxTiltDegrees, 20.0);
  EXPECT_LT(a.meanRootError, 0.12);
  EXPECT_LT(a.meanPoseError, 0.05);

  // A push of 0.6 m/s forward at 0.2 s: the feedback keeps the tilt far
  // smaller than the open-loop replay of the same windows.
  const Push shove{0.2, Vec3(0, 0, 0.6)};
  const Replay pushed = replay(project, c, true, shove), openLoop = replay(project, c, false, shove);
  std::printf("pushed 0.6 m/s: max tilt %.1f deg with feedback, %.1f deg open loop\n", pushed.maxTiltDegrees,
              openLoop.maxTiltDegrees);
  EXPECT_FALSE(pushed.fell);
  EXPECT_LT(pushed.maxTiltDegrees, 45.0);  // 40.3 measured (35.7 before the two-foot contact split)
  EXPECT_LT(pushed.maxTiltDegrees, 0.75 * openLoop.maxTiltDegrees);
}

// The ablations of Section 6 in the paper's regime: servo gains from the
// limbs' inertia alone (no stance stiffening), a weak character whose legs sag
// under the body unless their targets carry the load. The same small search
// (20 samples a window) over 01_01's first second, for two seeds, tracks far
// worse with the reference pose as the initial solution instead of the
// inverse-dynamics targets (Section 5.1), and worse over the two seeds with
// every window's duration fixed instead of sampled (Section 5.2). (On the
// rigid feet and stiff contact of 2026-11-26 time scaling's gain on this
// standing second is small and seed-dependent: 1.11 against 1.00 for seed 1,
// 1.10 against 1.44 for seed 2. With the stiffened legs the searches use by
// default, the effects drown in the seed: docs/WORK-IN-PROGRESS.md.)
TEST(ControllerQuality, InverseDynamicsAndTimeScalingMatterWithPlainGains) {
  const Project project =
      test::withCmuClip(loadProject(std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-rigged.sinew"));
  auto endCost = [&](bool idInit, bool timeScaling, uint64_t seed) {
    OptimizeSpec spec;
    spec.clip = "01_01";
    spec.start = 0;
    spec.end = 1.0;
    spec.stanceAngle = 0;
    spec.samcon.samples = 20;
    spec.samcon.keep = 5;
    spec.samcon.seed = seed;
    spec.samcon.feedback = true;
    spec.samcon.idInit = idInit;
    spec.samcon.timeScaling = timeScaling;
    const PreparedOptimization prepared = prepareOptimization(project, spec);
    SamconSearch search(prepared.problem, makeThreadedEvaluator(2));
    while (!search.finished()) search.runWindow();
    EXPECT_FALSE(search.failed());
    return search.reports().back().best.total;
  };
  double both = 0, withoutId = 0, withoutScaling = 0;
  for (uint64_t seed : {1, 2}) {
    const double a = endCost(true, true, seed), b = endCost(false, true, seed), c = endCost(true, false, seed);
    std::printf("seed %d: end cost %.3f with both, %.3f around the reference pose, %.3f without time scaling\n",
                int(seed), a, b, c);
    EXPECT_LT(a, b) << "seed " << seed;
    both += a;
    withoutId += b;
    withoutScaling += c;
  }
  EXPECT_LT(both, 0.6 * withoutId);
  EXPECT_LT(both, withoutScaling);
}

// The windows' initial targets alone (one sample, no noise, no time scaling,
// feedback on) with the paper's plain gains, over the first 0.7 s of "Walk in
// place", which stands on both feet: the inverse-dynamics targets hold the
// stance closer to the reference than the reference pose does. (With eq. 28
// applied foot by foot the two feet's torques squeezed the legs, and the same
// targets were 15-20 times further off than the reference pose: 0.044 rad^2
// in the first window against 0.003.)
TEST(ControllerQuality, InverseDynamicsTargetsHoldATwoFootedStance) {
  const Project project = loadProject(std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-rigged.sinew");
  auto poseErrors = [&](bool idInit) {
    OptimizeSpec spec;
    spec.clip = "Walk in place";
    spec.start = 0;
    spec.end = 0.7;
    spec.stanceAngle = 0;
    spec.samcon.samples = 1;
    spec.samcon.keep = 1;
    spec.samcon.noise = 0;
    spec.samcon.timeScaling = false;
    spec.samcon.feedback = true;
    spec.samcon.idInit = idInit;
    const PreparedOptimization prepared = prepareOptimization(project, spec);
    SamconSearch search(prepared.problem, makeThreadedEvaluator(2));
    while (!search.finished()) search.runWindow();
    EXPECT_FALSE(search.failed());
    std::vector<double> e;
    for (const WindowReport& r : search.reports()) e.push_back(r.best.pose);
    return e;
  };
  const std::vector<double> id = poseErrors(true), pose = poseErrors(false);
  ASSERT_EQ(id.size(), pose.size());
  ASSERT_GE(id.size(), 6u);
  double sumId = 0, sumPose = 0;
  for (size_t w = 0; w < id.size(); ++w) {
    std::printf("window %zu: pose error %.5f rad^2 with inverse dynamics, %.5f with the reference pose\n", w + 1,
                id[w], pose[w]);
    EXPECT_LT(id[w], pose[w]) << "window " << w + 1;
    sumId += id[w];
    sumPose += pose[w];
  }
  EXPECT_LT(sumId, 0.7 * sumPose);
}

// The periodic segment. Its controller is committed, made by
// `sinew-cli optimize projects/humanoid/humanoid-rigged.sinew --clip "Walk in place"
// --start 0 --end 2 --samples 150 --seed 1 --settle 1 -o projects/humanoid/humanoid-walk.sinew`
// (about 12 minutes on this machine; docs/PERFORMANCE.md), so that this test
// only replays it.
TEST(ControllerQuality, WalkInPlaceRidesOutShovesOnlyWithFeedback) {
  const Project project = loadProject(std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-walk.sinew");
  ASSERT_EQ(project.controllers.size(), 1u);
  const ControllerObject& c = project.controllers[0];
  ASSERT_FALSE(c.feedback.swingGains.empty()) << "searched with foot placement";

  const Replay steady = replay(project, c, true, {}), openLoop = replay(project, c, false, {});
  std::printf("walk in place: max tilt %.1f deg, mean root error %.3f m with feedback; open loop %s\n",
              steady.maxTiltDegrees, steady.meanRootError, openLoop.fell ? "fell" : "stayed up");
  EXPECT_FALSE(steady.fell);
  EXPECT_LT(steady.maxTiltDegrees, 20.0);
  EXPECT_LT(steady.meanRootError, 0.3);
  EXPECT_TRUE(openLoop.fell) << "the open-loop targets alone cannot walk in place";
  // It ends in its standing tail (--settle 1): after its end the hold keeps
  // the character up.
  const Replay held = replay(project, c, true, {}, c.duration() + 4.0);
  std::printf("walk in place, held 4 s after its end: max tilt %.1f deg%s\n", held.maxTiltDegrees,
              held.fell ? ", fell" : "");
  EXPECT_FALSE(held.fell) << "fell in the hold after the controller's end";
  EXPECT_LT(held.maxTiltDegrees, 20.0);

  // Shoves of 0.4 m/s at 1.0 s (mid-stride) from behind, the front and either
  // side, played to the walk's end (not into its standing tail, searched for
  // the unshoved walk: the shove from behind falls there; docs/PERFORMANCE.md).
  for (const Vec3& v : {Vec3(0, 0, 0.4), Vec3(0, 0, -0.4), Vec3(0.4, 0, 0), Vec3(-0.4, 0, 0)}) {
    const Replay pushed = replay(project, c, true, {1.0, v}, segmentSeconds(c));
    std::printf("shoved (%.1f, %.1f) m/s at 1.0 s: max tilt %.1f deg%s\n", v.x(), v.z(), pushed.maxTiltDegrees,
                pushed.fell ? ", fell" : "");
    EXPECT_FALSE(pushed.fell) << "shoved by (" << v.transpose() << ") m/s";
    EXPECT_LT(pushed.maxTiltDegrees, 30.0) << "shoved by (" << v.transpose() << ") m/s";
  }
}

// A stepping segment of real motion capture: CMU 01_01 from 8 to 10 s, where
// the subject stands, then turns around (about 180 degrees in 1.3 s) with a
// step of each foot. Its controller is committed, made by
// `sinew-cli optimize projects/humanoid/humanoid-rigged.sinew --clip
// /usr/share/assimp/models/BVH/01_01.bvh --start 8 --end 10 --samples 150
// --seed 1 --weights position=8 --store-clip off --settle 1 -o projects/humanoid/humanoid-turn.sinew`
// (3.5 minutes on 2 cores; docs/PERFORMANCE.md; with the default root-position
// weight of 1 the search lets the character drift off and lunge forward). This
// test runs that search again and checks it makes the committed controller. The
// replay turns with the reference, on steps of both feet, upright, bit for
// bit the same twice; its feedback rides out shoves mid-turn from four sides;
// open loop it falls.
TEST(ControllerQuality, TurnAroundFrom01_01StepsRoundUprightWithItsFeedback) {
  // The committed project leaves out the 01_01 clip (2 MB, installed by
  // assimp-testmodels); the search needs it back.
  const Project project = test::withCmuClip(
      loadProject(std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-turn.sinew"));
  ASSERT_EQ(project.controllers.size(), 1u);
  const ControllerObject& c = project.controllers[0];
  EXPECT_EQ(c.sourceClip, "01_01");

  // The optimiser still makes that controller from its saved settings, to the
  // last bit: its first three windows are among the states the search keeps
  // after three windows today (the whole search, 3.5 minutes on 2 cores, is the
  // command above; the thread count does not matter).
  const OptimizeSpec spec = specFromJson(c.settings, "humanoid-turn.sinew");
  EXPECT_EQ(spec.start, 8.0);
  EXPECT_EQ(spec.samcon.weights.position, 8.0);
  const PreparedOptimization prepared = prepareOptimization(project, spec);
  SamconSearch search(prepared.problem, makeThreadedEvaluator(2));
  ASSERT_EQ(size_t(search.windowCount()), c.windows.size());
  while (search.windowsDone() < 3) search.runWindow();
  ASSERT_FALSE(search.failed());
  const std::vector<ControlWindow> prefix(c.windows.begin(), c.windows.begin() + 3);
  const auto kept = search.keptPaths();
  EXPECT_TRUE(std::any_of(kept.begin(), kept.end(), [&](const auto& path) { return path == prefix; }))
      << "projects/humanoid/humanoid-turn.sinew is stale: regenerate it with the command above";
  const ControllerObject searched = makeControllerObject(project, spec, prepared, search, c.name);
  EXPECT_TRUE(searched.reference == c.reference) << "the retargeted reference changed";
  EXPECT_EQ(searched.feedback.joints, c.feedback.joints);

  const Replay a = replay(project, c, true, {}), b = replay(project, c, true, {});
  EXPECT_TRUE(a.end == b.end) << "two replays differ";
  std::printf("turn: turned %.1f deg (reference %.1f), heading error at the end %.1f deg, max tilt %.1f deg, "
              "mean root error %.3f m, mean pose error %.4f rad^2, feet moved %.2f and %.2f m\n",
              a.turnedDegrees, a.referenceTurnedDegrees, a.headingErrorDegrees, a.maxTiltDegrees, a.meanRootError,
              a.meanPoseError, a.footTravel.at(0), a.footTravel.at(1));
  EXPECT_FALSE(a.fell);
  EXPECT_GT(std::abs(a.referenceTurnedDegrees), 150.0) << "the reference turns around";
  EXPECT_LT(std::abs(a.headingErrorDegrees), 20.0);
  EXPECT_LT(a.maxTiltDegrees, 20.0);
  EXPECT_LT(a.meanRootError, 0.2);
  EXPECT_LT(a.meanPoseError, 0.05);
  for (double travel : a.footTravel) EXPECT_GT(travel, 0.15) << "each foot steps";

  const Replay openLoop = replay(project, c, false, {});
  EXPECT_TRUE(openLoop.fell) << "the open-loop targets alone cannot turn around";

  // It ends in its standing tail (--settle 1): after its end the hold keeps
  // the character up.
  const Replay held = replay(project, c, true, {}, c.duration() + 4.0);
  std::printf("turn, held 4 s after its end: max tilt %.1f deg%s\n", held.maxTiltDegrees, held.fell ? ", fell" : "");
  EXPECT_FALSE(held.fell) << "fell in the hold after the controller's end";
  EXPECT_LT(held.maxTiltDegrees, 20.0);

  // Shoves of 0.4 m/s at 1.2 s (mid-turn) from four sides of the world,
  // played to the turn's end (the segment's windows; a shoved character is
  // not where the standing tail's targets were searched for, and falls in
  // it: docs/PERFORMANCE.md).
  const double turnEnd = segmentSeconds(c);
  for (const Vec3& v : {Vec3(0, 0, 0.4), Vec3(0, 0, -0.4), Vec3(0.4, 0, 0), Vec3(-0.4, 0, 0)}) {
    const Replay pushed = replay(project, c, true, {1.2, v}, turnEnd);
    std::printf("shoved (%.1f, %.1f) m/s at 1.2 s: max tilt %.1f deg, heading error %.1f deg%s\n", v.x(), v.z(),
                pushed.maxTiltDegrees, pushed.headingErrorDegrees, pushed.fell ? ", fell" : "");
    EXPECT_FALSE(pushed.fell) << "shoved by (" << v.transpose() << ") m/s";
    // The controller searched on the stiff contact (2026-11-26) tilts 34 deg
    // under the shove along -x and comes back (9-27 deg from the others).
    EXPECT_LT(pushed.maxTiltDegrees, 40.0) << "shoved by (" << v.transpose() << ") m/s";
  }
}

}  // namespace
}  // namespace sinew::control
