// control/: inverse dynamics recovers the PD targets that made a motion,
// retargeting of real CMU data, the sampling search's determinism, and the
// state bytes the MPI ranks exchange.
#include "control/Feedback.h"
#include "control/Flight.h"
#include "control/InverseDynamics.h"
#include "control/Optimize.h"
#include "control/Replan.h"
#include "control/Samcon.h"
#include "io/AnimationExport.h"
#include "io/Bvh.h"

#include "../liu2013/LiuScene.h"
#include "CmuClip.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <random>
#include <set>

namespace sinew::control {
namespace {

using test::riggedHumanoid;

std::shared_ptr<const liu2013::Liu2013Model> model() {
  static const auto m = liu2013::buildLiu2013Model(riggedHumanoid(), controllerModelOptions(riggedHumanoid(), 5, 0.1));
  return m;
}

double angle(const Quat& a, const Quat& b) { return rotationVector(a.conjugate() * b).norm(); }

// A motion made by forward-simulating the whole-body skeleton (high above the
// ground: no contact) towards known PD targets, one per 0.1 s window; the
// inverse dynamics of that motion gives the targets back.
TEST(InverseDynamics, RecoversThePdTargetsThatMadeAMotion) {
  const liu2013::Liu2013Model& m = *model();
  dyn::ArticulatedModel body = wholeBodyModel(m);
  for (size_t l = 0; l < body.links.size(); ++l) {
    body.links[l].kp = m.skeleton.links[l].kp;
    body.links[l].kd = m.skeleton.links[l].kd;
  }
  const double h = 0.0005, window = 0.1;
  const int windows = 4, perWindow = int(std::lround(window / h));
  std::mt19937_64 rng(3);
  std::normal_distribution<double> gauss(0.0, 0.25);
  std::vector<std::vector<Quat>> known;
  dyn::ArticulatedState s = dyn::restState(body);
  s.rootPosition.y() += 5;  // in the air
  for (int k = 0; k < windows; ++k) {
    std::vector<Quat> t = s.rotation;
    for (size_t l = 1; l < t.size(); ++l) t[l] = (dyn::restState(body).rotation[l] * fromRotationVector(Vec3(gauss(rng), gauss(rng), gauss(rng)))).normalized();
    known.push_back(t);
  }
  std::vector<Vec3> roots{s.rootPosition};
  std::vector<std::vector<Quat>> rotations{s.rotation};
  for (int k = 0; k < windows; ++k)
    for (int i = 0; i < perWindow; ++i) {
      ASSERT_TRUE(dyn::step(body, s, dyn::PdTargets{known[size_t(k)], {}}, {}, h));
      roots.push_back(s.rootPosition);
      rotations.push_back(s.rotation);
    }
  const MotionClip clip = skeletonAnimationClip(riggedHumanoid().skeleton->skeleton, roots, rotations, h);
  const ReferenceMotion reference(m, clip);
  InverseDynamicsOptions o;
  o.dt = h;
  // Every window but the first (whose start the finite differences cannot see
  // before) gives its targets back: the mean error over the joints is small
  // next to the targets' own spread (0.25 rad per axis, ~0.4 rad per joint).
  for (int k = 1; k < windows; ++k) {
    const std::vector<Quat> got = inverseDynamicsWindowTarget(reference, m.skeleton, k * window, (k + 1) * window, o);
    double sum = 0, worst = 0, spread = 0;
    for (size_t l = 1; l < got.size(); ++l) {
      const double e = angle(got[l], known[size_t(k)][l]);
      sum += e;
      worst = std::max(worst, e);
      spread += angle(known[size_t(k)][l], known[size_t(k - 1)][l]);
    }
    const double n = double(got.size() - 1);
    std::printf("window %d: mean target error %.4f rad, worst %.4f rad, spread of the targets %.3f rad\n", k, sum / n, worst, spread / n);
    EXPECT_LT(sum / n, 0.01) << "window " << k << ": mean error " << sum / n << " rad, spread " << spread / n;
    EXPECT_LT(worst, 0.03) << "window " << k;
    // The reference pose alone is much further from the targets.
    double poseError = 0;
    const dyn::ArticulatedState mid = reference.pose((k + 0.5) * window);
    for (size_t l = 1; l < got.size(); ++l) poseError += angle(mid.rotation[l], known[size_t(k)][l]);
    EXPECT_GT(poseError / n, 3 * sum / n) << "window " << k;
  }
}

// Standing still on both feet (the rest pose held for half a second): the
// ground carries the weight, split between the feet by eq. 27, and the feet's
// torques are only what the total needs (the same for both: the centre of
// pressure lies behind the feet's centres of mass), not the opposing pair of
// about m g d / 2 (d: half the stance width) that eq. 28 applied foot by foot
// leaves, which the legs would have to hold against each other.
TEST(InverseDynamics, TwoFeetCarryTheWeightWithoutSqueezing) {
  const liu2013::Liu2013Model& m = *model();
  const dyn::ArticulatedModel body = wholeBodyModel(m);
  const dyn::ArticulatedState rest = dyn::restState(body);
  const double h = 0.0005;
  const std::vector<Vec3> roots(1001, rest.rootPosition);
  const std::vector<std::vector<Quat>> rotations(1001, rest.rotation);
  const ReferenceMotion reference(m, skeletonAnimationClip(riggedHumanoid().skeleton->skeleton, roots, rotations, h));
  InverseDynamicsOptions o;
  o.dt = h;
  const InverseDynamicsFrame f = inverseDynamicsAt(reference, m.skeleton, 0.25, o);
  ASSERT_EQ(f.footContact.size(), 2u);
  ASSERT_TRUE(f.footContact[0] && f.footContact[1]) << "both feet on the ground";
  const double weight = dyn::totalMass(body) * body.gravity.norm();
  EXPECT_NEAR(f.contactForce.y(), weight, 1e-6 * weight);
  EXPECT_LT(Vec2(f.contactForce.x(), f.contactForce.z()).norm(), 1e-6 * weight);
  EXPECT_NEAR(f.footForce[0].y() + f.footForce[1].y(), weight, 1e-6 * weight);
  EXPECT_GT(std::min(f.footForce[0].y(), f.footForce[1].y()), 0.3 * weight) << "each foot carries a share";
  // Half the stance width times half the weight: the squeeze eq. 28 alone would leave.
  const dyn::LinkKinematics k = dyn::forwardKinematics(body, rest);
  const double halfWidth =
      0.5 * std::abs(k.pose[size_t(reference.feet()[0])].translation.x() - k.pose[size_t(reference.feet()[1])].translation.x());
  ASSERT_GT(halfWidth, 0.03);
  const double squeeze = halfWidth * 0.5 * weight;
  std::printf("weight %.1f N, feet %.3f / %.3f of it, foot torques (%.2f %.2f %.2f) / (%.2f %.2f %.2f) N m, "
              "a squeeze would be %.1f N m\n",
              weight, f.footForce[0].y() / weight, f.footForce[1].y() / weight, f.footTorque[0].x(),
              f.footTorque[0].y(), f.footTorque[0].z(), f.footTorque[1].x(), f.footTorque[1].y(), f.footTorque[1].z(),
              squeeze);
  EXPECT_LT((f.footTorque[0] - f.footTorque[1]).norm(), 0.05 * squeeze) << "no opposing pair";
  EXPECT_LT(std::abs(f.footTorque[0].z()) + std::abs(f.footTorque[1].z()), 0.05 * squeeze)
      << "no roll about the forward axis";
  EXPECT_LT(f.contactTorque.norm(), 0.05 * squeeze) << "standing still: no net torque about the centre of mass";
}

TEST(Retarget, CmuClipMapsAutomaticallyAndStandsOnTheGround) {
  const Skeleton& skel = riggedHumanoid().skeleton->skeleton;
  const MotionClip clip = readBvh("/usr/share/assimp/models/BVH/01_01.bvh");
  const JointMap map = autoJointMap(skel, clip);
  ASSERT_EQ(map.clipJoint.size(), skel.size());
  for (size_t j = 0; j < skel.size(); ++j) EXPECT_FALSE(map.clipJoint[j].empty()) << skel.joints[j].name;
  EXPECT_EQ(map.clipJoint[size_t(skel.find("LeftLeg"))], "LeftLeg");
  EXPECT_TRUE(startsWithCalibrationFrame(clip));
}

// A standing tail: after the segment's last frame, the character's rest pose
// turned to the last frame's heading and put over its feet, blended into and
// then held at rest on the ground.
TEST(Retarget, StandingTailEndsAtRestInTheRestPoseOverTheLastFeet) {
  const Skeleton& skel = riggedHumanoid().skeleton->skeleton;
  const MotionClip clip = readBvh("/usr/share/assimp/models/BVH/01_01.bvh");
  RetargetOptions ro;
  ro.start = 8.0;
  ro.end = 10.0;
  const RetargetResult seg = retargetClip(clip, skel, autoJointMap(skel, clip), ro);
  ro.standingTail = 0.6;
  const RetargetResult r = retargetClip(clip, skel, autoJointMap(skel, clip), ro);
  EXPECT_EQ(seg.tailFrames, 0);
  EXPECT_EQ(r.tailFrames, int32_t(std::lround(0.6 / seg.clip.frameTime)));
  EXPECT_EQ(r.clip.frameCount, seg.clip.frameCount + r.tailFrames);
  EXPECT_NEAR(r.segment(), seg.clip.duration(), 1e-12);
  EXPECT_NEAR(r.tail(), 0.6, 0.5 * seg.clip.frameTime);  // whole frames
  EXPECT_EQ(r.contacts.contact.size(), size_t(r.clip.frameCount));
  // The segment itself is unchanged (same root lift).
  EXPECT_EQ(r.rootLift, seg.rootLift);
  for (int32_t f = 0; f < seg.clip.frameCount; f += 17)
    for (int32_t c = 0; c < seg.clip.channelCount(); ++c) ASSERT_EQ(r.clip.frame(f)[c], seg.clip.frame(f)[c]) << f;
  const ReferenceMotion ref(*model(), r.clip), before(*model(), seg.clip);
  const double end = seg.clip.duration(), last = r.clip.duration();
  // Still in its second half, both feet down, the pose the first frame's.
  const BodyFeatures standing = ref.features(last), mid = ref.features(end + 0.45);
  EXPECT_LT(mid.centerOfMassVelocity.norm(), 1e-6);
  EXPECT_LT((mid.centerOfMass - standing.centerOfMass).norm(), 1e-9);
  for (const uint8_t c : r.contacts.contact.back()) EXPECT_TRUE(c);
  const dyn::ArticulatedState first = before.pose(0.0), stand = ref.pose(last);
  const dyn::ArticulatedState restPose = dyn::restState(ref.bodyModel());
  for (size_t l = 1; l < stand.rotation.size(); ++l)  // each joint as at rest
    EXPECT_LT(angle(stand.rotation[l], restPose.rotation[l]), 1e-6) << l;
  // Turned to the last frame's heading (the turn: about 180 degrees from the first).
  const auto yaw = [](const Quat& q) { const Vec3 f = q * Vec3::UnitZ(); return std::atan2(f.x(), f.z()); };
  EXPECT_LT(std::abs(std::remainder(yaw(stand.rotation[0]) - yaw(before.pose(end).rotation[0]), 2 * M_PI)), 1e-6);
  EXPECT_GT(std::abs(std::remainder(yaw(stand.rotation[0]) - yaw(first.rotation[0]), 2 * M_PI)), 2.5);
  // Over the last frame's feet, the centre of mass as far from them as at
  // rest (the turn's last frame leans 12 cm past them).
  const BodyFeatures r0 = ref.features(restPose), fe = before.features(end);
  const auto lean = [](const BodyFeatures& f) { return Vec3(f.centerOfMass - f.support).cwiseProduct(Vec3(1, 0, 1)).norm(); };
  EXPECT_NEAR(lean(standing), lean(r0), 1e-6);
  EXPECT_GT(lean(fe), lean(r0) + 0.05);
  EXPECT_LT((standing.support - fe.support).cwiseProduct(Vec3(1, 0, 1)).norm(), 1e-6);
  const auto lowestFoot = [&](const dyn::ArticulatedState& s) {
    const auto k = dyn::forwardKinematics(ref.bodyModel(), s);
    double y = 1e9;
    for (const int32_t foot : ref.feet()) y = std::min(y, k.pose[size_t(foot)].translation.y());
    return y;
  };
  EXPECT_NEAR(lowestFoot(stand), lowestFoot(restPose), 1e-9);  // on the ground as at rest
  // Given a centre of mass, the pose leans about the ankles until it is over
  // the middle of the feet's bone shapes, the feet kept flat and in place.
  ro.standingTail = 0.6;
  ro.centerOfMass = [&](const std::vector<Transform>& pose) {  // the joints' mean
    Vec3 c = Vec3::Zero();
    for (const Transform& t : pose) c += t.translation;
    return Vec3(c / double(pose.size()));
  };
  const RetargetResult leaned = retargetClip(clip, skel, autoJointMap(skel, clip), ro);
  const std::vector<Transform> a = skeletonPoseFromClip(skel, r.clip, r.clip.duration(), false),
                               b = skeletonPoseFromClip(skel, leaned.clip, leaned.clip.duration(), false);
  const Vec3 forward = Quat(Eigen::AngleAxisd(yaw(stand.rotation[0]), Vec3::UnitY())) * Vec3::UnitZ();
  Vec3 centre = Vec3::Zero(), ankles = Vec3::Zero();
  for (const int32_t foot : findFeet(skel)) {
    const BoneShape& shape = skel.joints[size_t(foot)].bone;
    ASSERT_EQ(shape.kind, BoneShapeKind::Box);
    centre += 0.5 * b[size_t(foot)].apply(shape.center);
    ankles += 0.5 * b[size_t(foot)].translation;
    EXPECT_LT((a[size_t(foot)].translation - b[size_t(foot)].translation).norm(), 1e-9);
    EXPECT_LT(angle(a[size_t(foot)].rotation, b[size_t(foot)].rotation), 1e-9);
  }
  EXPECT_NEAR((ro.centerOfMass(b) - centre).dot(forward), 0.0, 1e-9);
  EXPECT_GT((ro.centerOfMass(b) - ro.centerOfMass(a)).dot(forward), 0.02) << "the rest pose has it nearer the heels";
  EXPECT_GT((centre - ankles).dot(forward), 0.03);
  ro.centerOfMass = nullptr;
  // Bad values add nothing.
  for (const double bad : {0.0, -1.0, std::nan("")}) {
    ro.standingTail = bad;
    EXPECT_EQ(retargetClip(clip, skel, autoJointMap(skel, clip), ro).tailFrames, 0) << bad;
  }
}

// Two 0.1 s windows of 01_01 (0.2-0.4 s; more up to `end`), 6 samples, 2 kept, seed 5.
PreparedOptimization twoShortWindows(double end = 0.4) {
  OptimizeSpec spec;
  spec.clip = "01_01";
  spec.start = 0.2;
  spec.end = end;
  spec.samcon.samples = 6;
  spec.samcon.keep = 2;
  spec.samcon.seed = 5;
  return prepareOptimization(test::withCmuClip(riggedHumanoid()), spec);
}

// `problem` with backtracking on: up to `backtracks` times, one window back,
// from a window whose best cost is above `above`.
SamconProblem backtracking(SamconProblem problem, int32_t backtracks, double above) {
  problem.options.backtracks = backtracks;
  problem.options.backtrackAbove = above;
  problem.options.backtrackWindows = 1;
  return problem;
}

// `problem` searched on `threads` threads until `windows` windows are done (or it finished).
std::unique_ptr<SamconSearch> searchUpTo(const SamconProblem& problem, int threads, int32_t windows) {
  auto s = std::make_unique<SamconSearch>(problem, makeThreadedEvaluator(threads));
  while (s->windowsDone() < windows && !s->finished()) s->runWindow();
  return s;
}

// The search's result depends on the seed, not on the number of threads.
TEST(Samcon, SameSeedSameControllerForAnyThreadCount) {
  const PreparedOptimization prepared = twoShortWindows();
  ASSERT_EQ(prepared.problem.windows.size(), 2u);
  auto run = [&](int threads, uint64_t seed) {
    SamconProblem problem = prepared.problem;
    problem.options.seed = seed;
    SamconSearch search(problem, makeThreadedEvaluator(threads));
    while (!search.finished()) search.runWindow();
    EXPECT_FALSE(search.failed());
    return std::make_pair(search.best(), search.bestState());
  };
  const auto a = run(1, 5), b = run(2, 5), c2 = run(2, 6);
  EXPECT_TRUE(a.first == b.first);
  EXPECT_TRUE(a.second == b.second);
  EXPECT_FALSE(a.first == c2.first) << "another seed, other samples";
  {
    // Refinement rounds: the same for any thread count, and other samples.
    SamconProblem problem = prepared.problem;
    problem.options.rounds = 3;
    auto runRounds = [&](int threads) {
      SamconSearch search(problem, makeThreadedEvaluator(threads));
      while (!search.finished()) search.runWindow();
      EXPECT_EQ(search.samplesEvaluated(), 2 * 6);
      return std::make_pair(search.best(), search.bestState());
    };
    const auto r1 = runRounds(1), r2 = runRounds(2);
    EXPECT_TRUE(r1.first == r2.first);
    EXPECT_TRUE(r1.second == r2.second);
    EXPECT_FALSE(r1.first == a.first);
  }
  for (const ControlWindow& w : a.first) {
    EXPECT_GE(w.duration, 0.8 * w.referenceDuration - 1e-9);
    EXPECT_LE(w.duration, 1.2 * w.referenceDuration + 1e-9);
  }
  // The state bytes the MPI ranks send round-trip exactly; damage is refused.
  const std::vector<uint8_t> bytes = liu2013::stateToBytes(a.second);
  EXPECT_TRUE(liu2013::stateFromBytes(bytes.data(), bytes.size()) == a.second);
  EXPECT_THROW(liu2013::stateFromBytes(bytes.data(), bytes.size() - 1), InputError);
  std::vector<uint8_t> bad = bytes;
  bad[0] ^= 0xff;
  EXPECT_THROW(liu2013::stateFromBytes(bad.data(), bad.size()), InputError);
}

// Scored shoves (SamconOptions::scoreShove): a sample costs the mean of its
// plain run and a run shoved at its start; the plain run's end goes on. The
// search stays the same for any thread count, and a saved search resumes and
// replays exactly, under the shove its windows were searched with.
TEST(Samcon, ScoredShoveCostsTheMeanOfThePlainAndShovedRuns) {
  const PreparedOptimization prepared = twoShortWindows(0.5);
  ASSERT_EQ(prepared.problem.windows.size(), 3u);
  SamconProblem shoved = prepared.problem;
  shoved.options.scoreShove = 0.3;
  std::vector<SampleTask> tasks = drawSamples(shoved, 0, 1);
  ASSERT_EQ(tasks.size(), 6u);
  for (const SampleTask& t : tasks) EXPECT_EQ(t.shove, 0.3);
  const Vec3 v0 = shoveVelocity(tasks[0]), v1 = shoveVelocity(tasks[1]);
  EXPECT_NEAR(v0.norm(), 0.3, 1e-12);
  EXPECT_EQ(v0.y(), 0) << "horizontal";
  EXPECT_GT((v0 - v1).norm(), 1e-3) << "each sample its own direction";
  EXPECT_EQ(shoveVelocity(tasks[0]), v0) << "the same sample, the same shove";

  // One sample, shoved and not, against the same sample unshoved.
  const double end = shoved.windows[0].referenceStart + shoved.windows[0].referenceDuration;
  SampleRunner runner(shoved);
  const SampleOutcome both = runner.run({shoved.start, nullptr}, tasks[0], end);
  const liu2013::Liu2013State plainEnd = runner.state();
  SampleTask unshovedTask = tasks[0];
  unshovedTask.shove = 0;
  const SampleOutcome plain = runner.run({shoved.start, nullptr}, unshovedTask, end);
  EXPECT_TRUE(runner.state() == plainEnd) << "the plain run's end goes on, shoved or not";
  EXPECT_EQ(both.cost.pose, plain.cost.pose);
  EXPECT_NE(both.shoved.total, plain.cost.total) << "the shove changed the run";
  EXPECT_GT(both.shoved.velocity, plain.cost.velocity) << "0.3 m/s more centre-of-mass velocity error";
  EXPECT_EQ(both.cost.total, 0.5 * (plain.cost.total + both.shoved.total));
  EXPECT_EQ(scoredCost(both, {shoved.options.weights, 0.3}, shoved.options, tasks[0].scale), both.cost.total);
  EXPECT_EQ(scoredCost(both, {shoved.options.weights, 0}, shoved.options, tasks[0].scale), plain.cost.total);
}

// Whole searches with scored shoves (six of them: Release only).
TEST(Samcon, ScoredShoveSearchesAgreeAcrossThreadsAndResumeExactly) {
  const PreparedOptimization prepared = twoShortWindows(0.5);
  SamconProblem shoved = prepared.problem;
  shoved.options.scoreShove = 0.3;
  const auto one = searchUpTo(shoved, 1, 3), two = searchUpTo(shoved, 2, 3), off = searchUpTo(prepared.problem, 2, 3);
  ASSERT_FALSE(one->failed());
  EXPECT_TRUE(one->best() == two->best());
  EXPECT_TRUE(one->bestState() == two->bestState());
  EXPECT_EQ(one->samplesEvaluated(), off->samplesEvaluated()) << "samples count once, shoved or not";
  EXPECT_FALSE(one->best() == off->best()) << "the shoved runs change the ranking";

  // Stopped after one window and resumed: the same search as one that did not stop.
  const auto stopped = searchUpTo(shoved, 2, 1);
  SamconSearch resumed(shoved, makeThreadedEvaluator(2));
  resumed.resume(stopped->keptPaths());
  while (!resumed.finished()) resumed.runWindow();
  EXPECT_TRUE(resumed.best() == one->best());
  EXPECT_TRUE(resumed.bestState() == one->bestState());
  // Redone without the shove: the saved window replays under the shove it was
  // searched with; told it had none, its cost does not replay.
  SamconSearch redone(prepared.problem, makeThreadedEvaluator(2));
  EXPECT_NO_THROW(redone.resume(stopped->keptPaths(), Progress::none(), {WindowScoring{shoved.options.weights, 0.3}}));
  SamconSearch wrong(prepared.problem, makeThreadedEvaluator(2));
  EXPECT_THROW(wrong.resume(stopped->keptPaths()), InputError);
}

// The tangent (SamconOptions::tangentWeight): each sample also runs a twin of
// its start a tiny difference away and costs the log of how much the
// difference grew; the plain run is untouched, and a twin carried from the
// last window is rescaled, so only its direction matters.
TEST(Samcon, TheTangentTwinLeavesThePlainRunAndCostsItsGrowth) {
  const PreparedOptimization prepared = twoShortWindows(0.5);
  SamconProblem tangent = prepared.problem;
  tangent.options.tangentWeight = 0.05;
  const std::vector<SampleTask> tasks = drawSamples(tangent, 0, 1);
  for (const SampleTask& t : tasks) EXPECT_EQ(t.tangentWeight, 0.05);
  const double end = tangent.windows[0].referenceStart + tangent.windows[0].referenceDuration;
  SampleRunner runner(tangent);
  const SampleOutcome with = runner.run({tangent.start, nullptr}, tasks[0], end);
  const SearchState after = runner.end();
  ASSERT_NE(after.twin, nullptr);
  EXPECT_FALSE(*after.twin == after.character) << "the twin differs";
  SampleTask plainTask = tasks[0];
  plainTask.tangentWeight = 0;
  const SampleOutcome plain = runner.run({tangent.start, nullptr}, plainTask, end);
  EXPECT_TRUE(runner.state() == after.character) << "the plain run's end goes on, bit for bit";
  EXPECT_EQ(runner.end().twin, nullptr);
  EXPECT_EQ(plain.amplification, 1);
  EXPECT_EQ(with.cost.pose, plain.cost.pose);
  EXPECT_EQ(with.cost.velocity, plain.cost.velocity);
  ASSERT_TRUE(std::isfinite(with.amplification));
  EXPECT_GT(with.amplification, 0);
  EXPECT_NE(with.amplification, 1);
  EXPECT_EQ(with.cost.total, plain.cost.total + tangentCost(with.amplification, 0.05));
  EXPECT_EQ(scoredCost(with, {tangent.options.weights, 0, 0.05}, tangent.options, tasks[0].scale), with.cost.total);
  EXPECT_EQ(scoredCost(with, {tangent.options.weights, 0, 0}, tangent.options, tasks[0].scale), plain.cost.total);

  // What growth costs: the log of it under the weight; shrinking costs nothing.
  EXPECT_DOUBLE_EQ(tangentCost(5, 0.05), 0.05 * std::log(5.0));
  EXPECT_GT(tangentCost(20, 0.05), tangentCost(5, 0.05)) << "a sample that amplifies more ranks lower";
  EXPECT_EQ(tangentCost(0.5, 0.05), 0);
  EXPECT_EQ(tangentCost(5, 0), 0);
  EXPECT_EQ(tangentCost(std::numeric_limits<double>::infinity(), 0.05), 1e30) << "a twin gone unstable";

  // Carried into the next window: a twin 1e-3 or 1e-2 m/s away in the same
  // direction is rescaled to the same tiny difference (the same growth); a
  // twin in another direction grows otherwise.
  const std::vector<SampleTask> next = drawSamples(tangent, 1, 1);
  const double end1 = tangent.windows[1].referenceStart + tangent.windows[1].referenceDuration;
  auto twinOf = [&](const Vec3& v) {
    auto t = std::make_shared<liu2013::Liu2013State>(after.character);
    liu2013::addRigidVelocity(*tangent.model, *t, v, Vec3::Zero(), Vec3::Zero());
    return std::shared_ptr<const liu2013::Liu2013State>(t);
  };
  const double near = runner.run({after.character, twinOf({1e-3, 0, 0})}, next[0], end1).amplification;
  const double far = runner.run({after.character, twinOf({1e-2, 0, 0})}, next[0], end1).amplification;
  const double other = runner.run({after.character, twinOf({0, 0, 1e-3})}, next[0], end1).amplification;
  EXPECT_NEAR(far / near, 1, 1e-5);
  EXPECT_GT(std::abs(other / near - 1), 1e-3);
}

// Whole searches with the tangent (five of them: Release only): the twins go
// with the kept states, so the search is the same for any thread count, and
// a stopped one resumes exactly (the replay rebuilds the twins).
TEST(Samcon, TangentSearchesAgreeAcrossThreadsAndResumeExactly) {
  const PreparedOptimization prepared = twoShortWindows(0.5);
  SamconProblem tangent = prepared.problem;
  tangent.options.tangentWeight = 0.05;
  const auto one = searchUpTo(tangent, 1, 3), two = searchUpTo(tangent, 2, 3);
  ASSERT_FALSE(one->failed());
  EXPECT_TRUE(one->best() == two->best());
  EXPECT_TRUE(one->bestState() == two->bestState());
  for (const WindowReport& r : one->reports()) EXPECT_NE(r.amplification, 1) << "window " << r.window;

  const auto stopped = searchUpTo(tangent, 2, 2);
  SamconSearch resumed(tangent, makeThreadedEvaluator(2));
  resumed.resume(stopped->keptPaths());
  while (!resumed.finished()) resumed.runWindow();
  EXPECT_TRUE(resumed.best() == one->best());
  EXPECT_TRUE(resumed.bestState() == one->bestState());
  EXPECT_EQ(resumed.reports().back().amplification, one->reports().back().amplification) << "the carried twin rebuilt";
  // Redone without it: the saved windows replay under the tangent weight they
  // were searched with; told they had none, their costs do not replay.
  SamconSearch redone(prepared.problem, makeThreadedEvaluator(2));
  const WindowScoring saved{tangent.options.weights, 0, 0.05};
  EXPECT_NO_THROW(redone.resume(stopped->keptPaths(), Progress::none(), {saved, saved}));
  SamconSearch wrong(prepared.problem, makeThreadedEvaluator(2));
  EXPECT_THROW(wrong.resume(stopped->keptPaths()), InputError);
}

// Backtracking: a window whose best cost is above the threshold sends the
// search back; the window is searched again with more, fresh samples, the
// better search of it goes on, and only so many times. Off (or never
// triggered), the search is the papers' bit for bit.
TEST(Samcon, ABadWindowSendsTheSearchBackAndTheBetterSearchGoesOn) {
  const PreparedOptimization prepared = twoShortWindows();
  ASSERT_EQ(prepared.problem.windows.size(), 2u);
  auto run = [&](int threads, int backtracks, double above) {
    const SamconProblem problem = backtracking(prepared.problem, backtracks, above);
    auto search = std::make_unique<SamconSearch>(problem, makeThreadedEvaluator(threads));
    while (!search->finished()) search->runWindow();
    EXPECT_FALSE(search->failed());
    return search;
  };
  const auto plain = run(2, 0, 0);
  const auto untriggered = run(2, 3, 1e6);
  EXPECT_TRUE(untriggered->best() == plain->best()) << "never above the threshold: the same search";
  EXPECT_TRUE(untriggered->bestState() == plain->bestState());
  EXPECT_EQ(untriggered->backtracksUsed(), 0);

  // Every window is above 1e-9: window 1 is searched three times (6, then 12
  // and 12 samples), then the search is out of backtracks and goes on.
  const auto a = run(1, 2, 1e-9), b = run(2, 2, 1e-9);
  EXPECT_TRUE(a->best() == b->best()) << "the same for any thread count";
  EXPECT_TRUE(a->bestState() == b->bestState());
  EXPECT_EQ(a->backtracksUsed(), 2);
  EXPECT_EQ(a->samplesEvaluated(), 6 + 12 + 12 + 6);
  const std::vector<WindowReport>& r = a->reports();
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].window, 0);
  EXPECT_EQ(r[0].backTo, 0);
  EXPECT_EQ(r[1].window, 0);
  EXPECT_EQ(r[1].attempt, 1);
  EXPECT_EQ(r[1].samples, 12);
  EXPECT_EQ(r[1].backTo, 0);
  EXPECT_EQ(r[2].attempt, 2);
  EXPECT_EQ(r[2].backTo, -1) << "out of backtracks: on";
  EXPECT_EQ(r[3].window, 1);
  EXPECT_EQ(r[3].attempt, 0);
  // The first window that goes on is the best of its three searches.
  const double first = plain->reports()[0].best.total;
  EXPECT_EQ(r[0].best.total, first) << "the first search of it is the papers'";
  EXPECT_LE(a->best()[0].cost, first);
  EXPECT_EQ(a->best()[0].cost, r[2].best.total);
  EXPECT_EQ(r[2].best.total, std::min({r[0].best.total, r[1].best.total, r[2].best.total}));
  EXPECT_LE(r[1].best.total, r[0].best.total);
  // A search taken over part-way (a redo) never goes back before the windows
  // it took over: they are kept.
  SamconSearch taken(prepared.problem, makeThreadedEvaluator(2));
  taken.runWindow();
  SamconSearch redone(backtracking(prepared.problem, 2, 1e-9), makeThreadedEvaluator(2));
  redone.resume(taken.keptPaths());
  while (!redone.finished()) redone.runWindow();
  ASSERT_EQ(redone.reports().size(), 3u);
  for (const WindowReport& w : redone.reports()) EXPECT_EQ(w.window, 1);
  EXPECT_EQ(redone.reports()[0].backTo, 1) << "back to the window after those taken over";
  EXPECT_TRUE(redone.best()[0] == taken.best()[0]);

  // Searched again, a window draws other samples, and more of them.
  const std::vector<SampleTask> once = drawSamples(prepared.problem, 0, 1), again = drawSamples(prepared.problem, 0, 1, 1);
  ASSERT_EQ(once.size(), 6u);
  ASSERT_EQ(again.size(), 12u);
  EXPECT_FALSE(once[0].targets == again[0].targets);
}

// The real samples, with 1000 added to the cost of every sample drawn for
// the listed searches of a window ((window, how many times it was searched
// before)), recognised by its targets and duration: a window that goes badly
// where a test wants it to, and goes as badly when it is replayed.
class BadSearches final : public SampleEvaluator {
 public:
  BadSearches(const SamconProblem& problem, const std::set<std::pair<int32_t, int32_t>>& bad) {
    for (const auto& [window, attempt] : bad)
      for (SampleTask& t : drawSamples(problem, window, 1, attempt)) bad_.push_back(std::move(t));
  }
  void evaluate(const SamconProblem& problem, double referenceEnd, const std::vector<SearchState>& starts,
                const std::vector<SampleTask>& tasks, int keep, std::vector<SampleOutcome>& outcomes,
                std::vector<std::pair<int32_t, SearchState>>& kept, const Progress& progress) override {
    // The kept set is chosen here, after the penalties: all states, ranked.
    std::vector<std::pair<int32_t, SearchState>> all;
    real_->evaluate(problem, referenceEnd, starts, tasks, int(tasks.size()), outcomes, all, progress);
    for (size_t i = 0; i < tasks.size(); ++i)
      if (std::any_of(bad_.begin(), bad_.end(), [&](const SampleTask& b) {
            return b.window == tasks[i].window && b.steps == tasks[i].steps && b.targets == tasks[i].targets;
          }))
        outcomes[i].cost.total += 1000;
    std::vector<double> costs;
    for (const SampleOutcome& o : outcomes) costs.push_back(o.cost.total);
    kept.clear();
    for (int32_t i : selectBest(costs, keep))
      for (auto& a : all)
        if (a.first == i) kept.emplace_back(i, std::move(a.second));
  }
  int workers() const override { return 1; }

 private:
  std::vector<SampleTask> bad_;
  std::unique_ptr<SampleEvaluator> real_ = makeThreadedEvaluator(1);
};

// A window that sends the search back again before the search got past it
// goes further back than the first time (going back there did not help); a
// later window goes back the usual distance.
TEST(Samcon, AWindowThatGoesBadlyAgainSendsTheSearchFurtherBack) {
  const PreparedOptimization prepared = twoShortWindows(0.6);
  ASSERT_EQ(prepared.problem.windows.size(), 4u);
  const SamconProblem problem = backtracking(prepared.problem, 3, 100);
  SamconSearch search(problem, std::make_unique<BadSearches>(problem, std::set<std::pair<int32_t, int32_t>>{
                                                                          {2, 0}, {2, 1}, {3, 0}}));
  while (!search.finished()) search.runWindow();
  EXPECT_FALSE(search.failed());
  EXPECT_EQ(search.backtracksUsed(), 3);
  const std::vector<WindowReport>& r = search.reports();
  std::vector<int32_t> windows, attempts, backTo;
  for (const WindowReport& w : r) {
    windows.push_back(w.window);
    attempts.push_back(w.attempt);
    backTo.push_back(w.backTo);
  }
  // Window 2 goes badly: back 1 window, to window 1. Searched again, it goes
  // badly again: back 1 window further, to window 0. Then window 3 goes badly
  // for the first time: back 1 window, to window 2.
  EXPECT_EQ(windows, (std::vector<int32_t>{0, 1, 2, 1, 2, 0, 1, 2, 3, 2, 3}));
  EXPECT_EQ(attempts, (std::vector<int32_t>{0, 0, 0, 1, 1, 1, 2, 2, 0, 3, 1}));
  EXPECT_EQ(backTo, (std::vector<int32_t>{-1, -1, 1, -1, 0, -1, -1, -1, 2, -1, -1}));
  EXPECT_EQ(search.samplesEvaluated(), 3 * 6 + 5 * 12 + 6 + 2 * 12);
  // What goes on is the search of each window that did not go badly.
  const std::vector<ControlWindow> best = search.best();
  ASSERT_EQ(best.size(), 4u);
  for (const ControlWindow& w : best) EXPECT_LT(w.cost, 100);
  EXPECT_FALSE(r[7].earlierKept);
  EXPECT_FALSE(r[10].earlierKept);
}

// Out of backtracks, a window that goes badly hands over to the furthest
// good kept set an earlier pass found, when that pass got past the window:
// the worse pass does not throw the better one away. A checkpoint keeps that
// set, so a search resumed before or after the hand-over goes on the same.
TEST(Samcon, OutOfBacktracksTheFurthestGoodSearchGoesOn) {
  const PreparedOptimization prepared = twoShortWindows(0.6);
  ASSERT_EQ(prepared.problem.windows.size(), 4u);
  const SamconProblem problem = backtracking(prepared.problem, 2, 100);
  const std::set<std::pair<int32_t, int32_t>> bad{{2, 0}, {1, 1}, {1, 2}};
  std::map<size_t, std::pair<std::vector<std::vector<ControlWindow>>, SearchBacktrackRecord>> checkpoints{{3, {}}, {5, {}}, {6, {}}};
  SamconSearch search(problem, std::make_unique<BadSearches>(problem, bad));
  std::vector<std::vector<ControlWindow>> firstPass;  // the kept paths after windows 0 and 1
  while (!search.finished()) {
    search.runWindow();
    if (search.reports().size() == 2) firstPass = search.keptPaths();
    auto c = checkpoints.find(search.reports().size());
    if (c != checkpoints.end()) c->second = {search.keptPaths(), search.backtrackRecord()};
  }
  EXPECT_FALSE(search.failed());
  const std::vector<WindowReport>& r = search.reports();
  std::vector<int32_t> windows, attempts, backTo;
  for (const WindowReport& w : r) {
    windows.push_back(w.window);
    attempts.push_back(w.attempt);
    backTo.push_back(w.backTo);
  }
  // Windows 0 and 1 go well, window 2 badly: back to window 1, which goes
  // badly again (further back, to 0; the backtracks are used up). Window 1's
  // third search goes badly too: the first pass's kept set after window 1
  // goes on (2 windows done), and window 2's second search is good.
  EXPECT_EQ(windows, (std::vector<int32_t>{0, 1, 2, 1, 0, 1, 2, 3}));
  EXPECT_EQ(attempts, (std::vector<int32_t>{0, 0, 0, 1, 1, 2, 1, 0}));
  EXPECT_EQ(backTo, (std::vector<int32_t>{-1, -1, 1, 0, -1, 2, -1, -1}));
  for (size_t i = 0; i < r.size(); ++i) EXPECT_EQ(r[i].furthestGood, i == 5) << i;
  EXPECT_GT(r[5].best.total, 1000) << "the window that handed over went badly";
  EXPECT_EQ(search.samplesEvaluated(), 4 * 6 + 4 * 12);
  const std::vector<ControlWindow> best = search.best();
  ASSERT_EQ(best.size(), 4u);
  for (const ControlWindow& w : best) EXPECT_LT(w.cost, 100);
  const std::vector<ControlWindow> start(best.begin(), best.begin() + 2);
  EXPECT_TRUE(std::find(firstPass.begin(), firstPass.end(), start) != firstPass.end()) << "the first pass's windows 0 and 1";

  // Checkpoints before the hand-over (the furthest set is the first pass's,
  // two windows ahead) and after it resume to the same search.
  // Once the backtracks are used up (the fourth report), no backtrack reads
  // a remembered kept set again: the search keeps and saves none.
  EXPECT_FALSE(checkpoints[3].second.remembered.empty());
  EXPECT_TRUE(checkpoints[5].second.remembered.empty());
  EXPECT_TRUE(checkpoints[6].second.remembered.empty());
  ASSERT_EQ(checkpoints[5].second.furthest.window, 2);
  ASSERT_FALSE(checkpoints[5].second.furthest.leaves.empty());
  EXPECT_EQ(checkpoints[5].first.front().size(), 1u);
  for (const auto& [stop, c] : checkpoints) {
    SamconSearch resumed(problem, std::make_unique<BadSearches>(problem, bad));
    resumed.resume(c.first, Progress::none(), {}, c.second);
    while (!resumed.finished()) resumed.runWindow();
    ASSERT_EQ(resumed.reports().size(), r.size() - stop) << stop;
    for (size_t i = 0; i < resumed.reports().size(); ++i) {
      EXPECT_EQ(resumed.reports()[i].window, r[stop + i].window) << stop << " " << i;
      EXPECT_EQ(resumed.reports()[i].backTo, r[stop + i].backTo) << stop << " " << i;
      EXPECT_EQ(resumed.reports()[i].best.total, r[stop + i].best.total) << stop << " " << i;
    }
    EXPECT_TRUE(resumed.best() == search.best()) << stop;
    EXPECT_TRUE(resumed.bestState() == search.bestState()) << stop;
  }
  // Without the furthest set, the resumed search has nothing to go on from.
  SearchBacktrackRecord forgetful = checkpoints[5].second;
  forgetful.furthest = {};
  SamconSearch without(problem, std::make_unique<BadSearches>(problem, bad));
  without.resume(checkpoints[5].first, Progress::none(), {}, forgetful);
  while (!without.finished()) without.runWindow();
  EXPECT_TRUE(without.failed()) << "every sample of window 1 fell (the penalty), and of window 2 before";
  EXPECT_EQ(without.windowsDone(), 1);
  // A furthest set that names a node the record lacks is refused.
  SearchBacktrackRecord broken = checkpoints[5].second;
  broken.furthest.leaves.push_back(int32_t(broken.nodes.size()));
  SamconSearch refused(problem, makeThreadedEvaluator(1));
  EXPECT_THROW(refused.resume(checkpoints[5].first, Progress::none(), {}, broken), InputError);
}

// A backtracking search stopped anywhere, even part-way through windows it
// searches again or with no window done, and resumed from what a checkpoint
// saves (the kept paths and the backtracking record) goes on exactly as the
// uninterrupted search: the same windows searched, the same samples, the same
// controller. Without the record it would not.
TEST(Samcon, ABacktrackingSearchResumedAnywhereGoesOnAsIfItHadNotStopped) {
  const PreparedOptimization prepared = twoShortWindows(0.6);
  const SamconProblem problem = backtracking(prepared.problem, 3, 100);
  const std::set<std::pair<int32_t, int32_t>> bad{{2, 0}, {2, 1}, {3, 0}};
  // What a checkpoint saves, after 3 reports (window 2 first sent the search
  // back: one set pending), 5 (it sent it further back, to no window done)
  // and 9 (window 3 sent it back); the last two are resumed.
  struct Checkpoint {
    std::vector<std::vector<ControlWindow>> kept;
    SearchBacktrackRecord record;
    int32_t done = 0;
    int64_t samples = 0;
  };
  std::map<size_t, Checkpoint> checkpoints{{3, {}}, {5, {}}, {9, {}}};
  SamconSearch full(problem, std::make_unique<BadSearches>(problem, bad));
  while (!full.finished()) {
    full.runWindow();
    auto c = checkpoints.find(full.reports().size());
    if (c != checkpoints.end())
      c->second = {full.keptPaths(), full.backtrackRecord(), full.windowsDone(), full.samplesEvaluated()};
  }
  const std::vector<WindowReport>& all = full.reports();
  ASSERT_EQ(all.size(), 11u) << "the search of AWindowThatGoesBadlyAgainSendsTheSearchFurtherBack";
  EXPECT_EQ(checkpoints[5].done, 0);
  EXPECT_EQ(checkpoints[3].record.pending.size(), 1u);
  auto same = [](const WindowReport& a, const WindowReport& b) {
    return a.window == b.window && a.attempt == b.attempt && a.backTo == b.backTo && a.earlierKept == b.earlierKept &&
           a.samples == b.samples && a.fallen == b.fallen && a.best.total == b.best.total && a.timeScale == b.timeScale;
  };
  auto controller = [&](const Checkpoint& c) {  // as a checkpoint file has it
    ControllerObject saved;
    saved.name = "seg";
    saved.start = 0.2;
    saved.end = 0.6;
    saved.jointMap.assign(problem.windows.front().targets.size(), "");
    saved.reference = prepared.retarget.clip;
    saved.windows = c.kept.front();
    saved.searchKept = c.kept;
    saved.searchBacktrack = c.record;
    return saved;
  };
  for (const auto& [stop, c] : checkpoints) {
    ASSERT_FALSE(c.record.empty());
    EXPECT_EQ(c.kept.front().size(), size_t(c.done));
    EXPECT_NO_THROW(controller(c).validate("test", problem.windows.front().targets.size())) << stop;
    if (stop == 3) continue;  // resumed below without its record (5 and 9 have a set pending too)
    SamconSearch resumed(problem, std::make_unique<BadSearches>(problem, bad));
    resumed.resume(c.kept, Progress::none(), {}, c.record);
    EXPECT_EQ(resumed.windowsDone(), c.done);
    while (!resumed.finished()) resumed.runWindow();
    const std::vector<WindowReport>& after = resumed.reports();
    ASSERT_EQ(after.size(), all.size() - stop) << "stopped after " << stop;
    for (size_t i = 0; i < after.size(); ++i) EXPECT_TRUE(same(after[i], all[stop + i])) << stop << " " << i;
    EXPECT_TRUE(resumed.best() == full.best()) << stop;
    EXPECT_TRUE(resumed.bestState() == full.bestState()) << stop;
    EXPECT_EQ(resumed.backtracksUsed(), full.backtracksUsed());
    EXPECT_EQ(c.samples + resumed.samplesEvaluated(), full.samplesEvaluated());
  }
  // Without the record the search forgets that window 2 sent it back: it
  // searches window 1 as if for the first time (other samples, fewer of them).
  const Checkpoint& c3 = checkpoints[3];
  {
    SamconSearch forgetful(problem, std::make_unique<BadSearches>(problem, bad));
    forgetful.resume(c3.kept);
    const WindowReport next = forgetful.runWindow();
    EXPECT_EQ(next.window, all[3].window);
    EXPECT_FALSE(same(next, all[3])) << "the record made no difference";
    EXPECT_EQ(all[3].attempt, 1);
    EXPECT_EQ(next.attempt, 0);
  }
  // A record that does not fit is refused, naming what is wrong.
  SearchBacktrackRecord shorter = c3.record;
  shorter.attempts.pop_back();
  SamconSearch other(problem, makeThreadedEvaluator(1));
  EXPECT_THROW(other.resume(c3.kept, Progress::none(), {}, shorter), InputError);
  SearchBacktrackRecord wrongLength = c3.record;
  wrongLength.pending.back().window += 1;
  SamconSearch another(problem, makeThreadedEvaluator(1));
  EXPECT_THROW(another.resume(c3.kept, Progress::none(), {}, wrongLength), InputError);
  ControllerObject broken = controller(c3);
  ASSERT_FALSE(broken.searchBacktrack.parent.empty());
  broken.searchBacktrack.parent.back() = int32_t(broken.searchBacktrack.parent.size());
  EXPECT_THROW(broken.validate("test", broken.jointMap.size()), InputError) << "a parent after its child";
  broken = controller(c3);
  broken.searchBacktrack.pending.back().leaves.push_back(int32_t(broken.searchBacktrack.nodes.size()));
  EXPECT_THROW(broken.validate("test", broken.jointMap.size()), InputError) << "a leaf that is not a node";
}

// The balance feedback's reduced state is zero on the reference and measures
// a tilt; a correction turns the corrected joints in the world by exactly
// H G s and leaves the others alone.
TEST(Feedback, StateIsZeroOnTheReferenceAndCorrectionsTurnTheJointsAsAsked) {
  const liu2013::Liu2013Model& m = *model();
  const Skeleton& skel = riggedHumanoid().skeleton->skeleton;
  std::vector<Vec3> roots(5, m.linkRest[0].translation);
  std::vector<std::vector<Quat>> rotations(5, dyn::restState(m.skeleton).rotation);
  const ReferenceMotion reference(m, skeletonAnimationClip(skel, roots, rotations, 0.05));
  const double t = 0.1;
  for (double x : feedbackState(reference, reference.state(t), t)) EXPECT_EQ(x, 0.0);

  dyn::ArticulatedState tilted = reference.state(t);
  const double a = 0.05;
  tilted.rotation[0] = (Quat(Eigen::AngleAxisd(a, Vec3::UnitX())) * tilted.rotation[0]).normalized();
  const auto s = feedbackState(reference, tilted, t);
  EXPECT_NEAR(s[0], a, 1e-12);  // forward tilt about the heading's x axis
  EXPECT_NEAR(s[1], 0.0, 1e-12);

  const std::vector<int32_t> joints = feedbackJoints(reference);
  ASSERT_EQ(joints.size(), 4u);  // two ankles, two hips
  BalanceGains g;
  g.ankleTilt = 2;
  const std::vector<double> gains = gainMatrix(g, joints, reference);
  const Quat heading = referenceHeading(reference, t);
  const std::vector<Quat> corrected = applyFeedback(m.skeleton, tilted, tilted.rotation, joints, gains, s, heading);
  dyn::ArticulatedState after = tilted;
  after.rotation = corrected;
  const auto before = dyn::forwardKinematics(m.skeleton, tilted), now = dyn::forwardKinematics(m.skeleton, after);
  const std::vector<int32_t>& feet = reference.feet();
  for (size_t l = 0; l < m.skeleton.links.size(); ++l) {
    const bool ankle = std::find(feet.begin(), feet.end(), int32_t(l)) != feet.end();
    const Quat expected = ankle ? Quat(Eigen::AngleAxisd(2 * a, Vec3::UnitX())) * before.pose[l].rotation : before.pose[l].rotation;
    EXPECT_LT(angle(now.pose[l].rotation, expected), 1e-12) << m.jointNames[l];
  }
  // No gains (or the wrong size): the targets unchanged.
  EXPECT_TRUE(applyFeedback(m.skeleton, tilted, tilted.rotation, joints, {}, s, heading) == tilted.rotation);
}

// Foot placement: while the reference swings one leg, the stance leg gets the
// stance gains and the swinging leg's hip the swing gains (its ankle
// nothing); a policy without swing gains leaves the swinging leg alone; the
// swing gains survive the project file.
TEST(Feedback, SwingingLegIsCorrectedOnlyAtItsHipByTheSwingGains) {
  const liu2013::Liu2013Model& m = *model();
  const Skeleton& skel = riggedHumanoid().skeleton->skeleton;
  const dyn::ArticulatedModel& body = m.skeleton;
  std::vector<Vec3> roots(5, m.linkRest[0].translation);
  std::vector<std::vector<Quat>> rotations(5, dyn::restState(body).rotation);
  {
    const ReferenceMotion standing(m, skeletonAnimationClip(skel, roots, rotations, 0.05));
    const int32_t foot = standing.feet()[0];
    const int32_t hip = body.links[size_t(body.links[size_t(foot)].parent)].parent;
    for (auto& r : rotations) r[size_t(hip)] = Quat(Eigen::AngleAxisd(-0.7, Vec3::UnitX())) * r[size_t(hip)];
  }
  const ReferenceMotion reference(m, skeletonAnimationClip(skel, roots, rotations, 0.05));
  const double t = 0.1;
  const std::vector<bool> stance = stanceLegs(reference, t);
  ASSERT_EQ(stance, (std::vector<bool>{false, true})) << "the reference should lift its first foot";
  const std::vector<int32_t>& feet = reference.feet();
  const int32_t swingAnkle = feet[0], stanceAnkle = feet[1];
  auto hipOf = [&](int32_t f) { return body.links[size_t(body.links[size_t(f)].parent)].parent; };
  const int32_t swingHip = hipOf(swingAnkle), stanceHip = hipOf(stanceAnkle);

  dyn::ArticulatedState sim = reference.state(t);
  sim.rotation[0] = (Quat(Eigen::AngleAxisd(0.05, Vec3::UnitX()) * Eigen::AngleAxisd(-0.03, Vec3::UnitZ())) * sim.rotation[0]).normalized();
  const auto s = feedbackState(reference, sim, t);
  ASSERT_GT(std::abs(s[2]) + std::abs(s[3]), 1e-3);  // the centre of mass moved off the support

  BalanceGains g = defaultBalanceGains();
  g.swingHipBalance = -0.5;
  g.swingHipVelocity = -0.2;
  EXPECT_LT(defaultBalanceGains().swingHipVelocity, 0) << "foot placement is on by default";
  const FeedbackPolicy policy = uniformPolicy(g, reference, 1, 0.01);
  ASSERT_EQ(policy.swingGains.size(), 1u);
  ControlWindow w;
  w.referenceStart = 0;
  w.referenceDuration = 0.2;
  const std::vector<Quat> targets = sim.rotation;
  const std::vector<Quat> corrected = correctedTargets(reference, body, policy, w, 0, targets, 2, 4, sim);

  EXPECT_TRUE(corrected[size_t(swingAnkle)] == targets[size_t(swingAnkle)]);  // a swinging ankle cannot push
  EXPECT_TRUE(corrected[size_t(stanceHip)] == targets[size_t(stanceHip)]);    // stance hip gains are zero
  EXPECT_GT(angle(corrected[size_t(stanceAnkle)], targets[size_t(stanceAnkle)]), 0.1);  // 3 x the tilt
  // The swinging hip turns in the world by H G_swing s.
  const Quat heading = referenceHeading(reference, t);
  const Vec3 omega = heading * Vec3(g.swingHipBalance * s[2] + g.swingHipVelocity * s[4], 0,
                                    g.swingHipBalance * s[3] + g.swingHipVelocity * s[5]);
  dyn::ArticulatedState after = sim;
  after.rotation = corrected;
  const auto before = dyn::forwardKinematics(body, sim), now = dyn::forwardKinematics(body, after);
  EXPECT_GT(omega.norm(), 1e-3);
  EXPECT_LT(angle(now.pose[size_t(swingHip)].rotation, fromRotationVector(omega) * before.pose[size_t(swingHip)].rotation), 1e-12);

  // Without swing gains the swinging leg is left alone.
  BalanceGains noSwing = g;
  noSwing.swingHipBalance = noSwing.swingHipVelocity = 0;
  const FeedbackPolicy stanceOnly = uniformPolicy(noSwing, reference, 1, 0.01);
  EXPECT_TRUE(stanceOnly.swingGains.empty());
  const std::vector<Quat> plain = correctedTargets(reference, body, stanceOnly, w, 0, targets, 2, 4, sim);
  EXPECT_TRUE(plain[size_t(swingHip)] == targets[size_t(swingHip)]);
  EXPECT_TRUE(plain[size_t(stanceAnkle)] == corrected[size_t(stanceAnkle)]);
}

// Fitting the feedback gains from pushed rollouts: the same gains for any
// thread count, and the controller carries them afterwards.
// A controller with feedback for 01_01 from 0.2 s to `end`, searched with a
// few samples (for the feedback fits, which need one to start from).
ControllerObject shortFeedbackController(const Project& p, double end, int samples, int keep) {
  OptimizeSpec spec;
  spec.clip = "01_01";
  spec.start = 0.2;
  spec.end = end;
  spec.samcon.samples = samples;
  spec.samcon.keep = keep;
  spec.samcon.feedback = true;
  const PreparedOptimization prepared = prepareOptimization(p, spec);
  SamconSearch search(prepared.problem, makeThreadedEvaluator(2));
  while (!search.finished()) search.runWindow();
  return makeControllerObject(p, spec, prepared, search, "short");
}

TEST(Feedback, FitFromPushedRolloutsIsDeterministic) {
  const Project p = test::withCmuClip(riggedHumanoid());
  const ControllerObject made = shortFeedbackController(p, 0.4, 4, 2);
  ASSERT_FALSE(made.feedback.empty());
  ASSERT_EQ(made.feedback.gains.size(), made.windows.size());
  FeedbackFitOptions o;
  o.rollouts = 1;
  o.sweeps = 1;
  o.push = 0.5;
  auto fit = [&](int threads) {
    ControllerObject copy = made;
    o.threads = threads;
    const FeedbackFitResult r = fitFeedback(p, copy, defaultBalanceGains(), o);
    return std::make_pair(r, copy);
  };
  const auto [a, ca] = fit(1);
  const auto [b, cb] = fit(2);
  EXPECT_TRUE(a.fitted == b.fitted);
  EXPECT_EQ(a.fittedScore, b.fittedScore);
  EXPECT_EQ(a.initialScore, b.initialScore);
  EXPECT_LE(a.fittedScore, a.initialScore);
  EXPECT_GE(a.candidates, 2);
  EXPECT_EQ(a.rollouts, 2 * a.candidates);
  EXPECT_TRUE(ca.feedback == cb.feedback);
  ca.validate("fitted", p.skeleton->skeleton.size());
}

// The least-squares map (Liu et al. 2012): corrections made by a known linear
// map of the state are recovered (ridge ~0), each window from its own pairs and
// those of its neighbours; a window without pairs gets no map; the ridge
// shrinks the map toward zero.
TEST(Feedback, LinearMapRecoversAKnownMapPerWindow) {
  const size_t rows = 6, windows = 4;
  std::mt19937_64 rng(3);
  std::normal_distribution<double> n(0.0, 1.0);
  std::vector<std::vector<double>> truth(windows, std::vector<double>(rows * kFeedbackStateSize));
  for (auto& m : truth)
    for (double& g : m) g = n(rng);
  std::vector<FeedbackPair> pairs;
  for (size_t k = 0; k < 3; ++k)  // window 3 gets no pairs
    for (int i = 0; i < 20; ++i) {
      FeedbackPair p;
      p.window = k;
      for (double& s : p.state) s = n(rng);
      p.correction.assign(rows, 0.0);
      for (size_t r = 0; r < rows; ++r)
        for (int c = 0; c < kFeedbackStateSize; ++c) p.correction[r] += truth[k][r * kFeedbackStateSize + size_t(c)] * p.state[size_t(c)];
      pairs.push_back(p);
    }
  const auto own = fitLinearMap(pairs, windows, rows, 0, 0.0);
  ASSERT_EQ(own.size(), windows);
  for (size_t k = 0; k < 3; ++k)
    for (size_t i = 0; i < own[k].size(); ++i) EXPECT_NEAR(own[k][i], truth[k][i], 1e-9) << "window " << k;
  for (double g : own[3]) EXPECT_EQ(g, 0.0);
  // Pooled with its neighbours, window 1 fits all three windows' pairs: not
  // any one of the maps.
  const auto pooled = fitLinearMap(pairs, windows, rows, 1, 0.0);
  double off = 0;
  for (size_t i = 0; i < pooled[1].size(); ++i) off = std::max(off, std::abs(pooled[1][i] - truth[1][i]));
  EXPECT_GT(off, 0.05);
  // Window 3 pools window 2's pairs: window 2's map exactly.
  for (size_t i = 0; i < pooled[3].size(); ++i) EXPECT_NEAR(pooled[3][i], truth[2][i], 1e-9);
  // The ridge shrinks.
  const auto shrunk = fitLinearMap(pairs, windows, rows, 0, 1.0);
  double normTruth = 0, normShrunk = 0;
  for (size_t i = 0; i < truth[0].size(); ++i) normTruth += truth[0][i] * truth[0][i], normShrunk += shrunk[0][i] * shrunk[0][i];
  EXPECT_LT(normShrunk, 0.8 * normTruth);
}

// Fitting the feedback by least squares on perturbed rollouts: the same
// result for any thread count; pairs from every window of the unpushed rollout
// and from the windows after each push; a result kept only when it scores
// lower on the held-out pushes.
TEST(Feedback, LeastSquaresFitFromPerturbedRolloutsIsDeterministic) {
  const Project p = test::withCmuClip(riggedHumanoid());
  const ControllerObject made = shortFeedbackController(p, 0.5, 3, 1);
  ASSERT_EQ(made.windows.size(), 3u);
  FeedbackRegressionOptions o;
  o.rollouts = 1;
  o.corrections = 3;
  o.push = 0.5;
  o.validation = 1;
  auto fit = [&](int threads) {
    ControllerObject copy = made;
    o.threads = threads;
    const FeedbackRegressionResult r = regressFeedback(p, copy, o);
    return std::make_pair(r, copy);
  };
  const auto [a, ca] = fit(1);
  const auto [b, cb] = fit(2);
  EXPECT_EQ(a.pairs, b.pairs);
  EXPECT_EQ(a.fittedScore, b.fittedScore);
  EXPECT_EQ(a.initialScore, b.initialScore);
  EXPECT_EQ(a.kept, b.kept);
  EXPECT_TRUE(ca.feedback == cb.feedback);
  // The unpushed rollout records all 3 windows; the pushed one those after its push.
  EXPECT_GE(a.pairs, 3);
  EXPECT_LE(a.pairs, 5);
  EXPECT_EQ(a.simulations, a.pairs * o.corrections);
  EXPECT_GE(a.meanCorrection, 0.0);
  EXPECT_EQ(a.kept, a.fittedScore < a.initialScore);
  EXPECT_EQ(a.kept, !(ca.feedback == made.feedback));
  ca.validate("fitted", p.skeleton->skeleton.size());
  // Without a feedback policy there is nothing to fit.
  ControllerObject open = made;
  open.feedback = {};
  EXPECT_THROW(regressFeedback(p, open, o), InputError);
}

// A refinement round draws around the elite's mean offset and duration with
// the spreads shrunk, from the elite's start states.
TEST(Samcon, RefinementDrawsAroundTheEliteWithLessSpread) {
  const Project p = test::withCmuClip(riggedHumanoid());
  OptimizeSpec spec;
  spec.clip = "01_01";
  spec.start = 0.2;
  spec.end = 0.3;
  spec.samcon.samples = 4000;
  spec.samcon.noise = 0.1;
  spec.samcon.refineShrink = 0.5;
  const PreparedOptimization prepared = prepareOptimization(p, spec);
  const SamconProblem& problem = prepared.problem;
  const ControlWindow& w = problem.windows[0];
  const Skeleton& skel = riggedHumanoid().skeleton->skeleton;
  const int knee = skel.find("LeftLeg"), hip = skel.find("LeftUpLeg");
  ASSERT_GT(knee, 0);
  ASSERT_GT(hip, 0);
  // Two elite samples: the hip turned by +0.3 and +0.1 rad about x, durations x1.1 and x1.2.
  auto elite = [&](double angle, double scale, int32_t parent) {
    SampleTask t;
    t.targets = w.targets;
    t.targets[size_t(hip)] = (w.targets[size_t(hip)] * Quat(Eigen::AngleAxisd(angle, Vec3::UnitX()))).normalized();
    t.scale = scale;
    t.parent = parent;
    return t;
  };
  const SampleTask e1 = elite(0.3, 1.1, 4), e2 = elite(0.1, 1.2, 7);
  const SampleDistribution d = refinedDistribution(problem, 0, 1, {&e1, &e2});
  EXPECT_NEAR(d.noise, 0.05, 1e-12);
  EXPECT_NEAR(d.mean[size_t(hip)].x(), 0.2, 1e-9);
  EXPECT_NEAR(d.mean[size_t(knee)].norm(), 0.0, 1e-12);
  EXPECT_NEAR(d.scaleRange, 0.1, 1e-12);
  EXPECT_NEAR(d.scaleCentre, 1.1, 1e-12) << "the mean 1.15, kept inside [0.8, 1.2] with its range";
  ASSERT_EQ(d.parents, (std::vector<int32_t>{4, 7}));

  const std::vector<SampleTask> drawn = drawSamples(problem, 0, 1, 4000, d);
  ASSERT_EQ(drawn.size(), 4000u);
  Vec3 sum = Vec3::Zero(), squares = Vec3::Zero();
  double lowest = 10, highest = 0;
  for (size_t i = 0; i < drawn.size(); ++i) {
    EXPECT_EQ(drawn[i].parent, i % 2 == 0 ? 4 : 7);
    const Vec3 r = rotationVector(w.targets[size_t(hip)].conjugate() * drawn[i].targets[size_t(hip)]);
    sum += r;
    squares += r.cwiseProduct(r);
    lowest = std::min(lowest, drawn[i].scale);
    highest = std::max(highest, drawn[i].scale);
  }
  const Vec3 mean = sum / 4000.0;
  const Vec3 sd = (squares / 4000.0 - mean.cwiseProduct(mean)).cwiseSqrt();
  EXPECT_NEAR(mean.x(), 0.2, 0.005);
  EXPECT_NEAR(mean.y(), 0.0, 0.005);
  EXPECT_NEAR(sd.x(), 0.05, 0.004);
  EXPECT_NEAR(sd.z(), 0.05, 0.004);
  EXPECT_GE(lowest, 1.0 - 1e-2);
  EXPECT_LE(highest, 1.2 + 1e-2);
  EXPECT_LT(lowest, 1.02);
  EXPECT_GT(highest, 1.18);
  // Round 0 is the single draw around the initial targets, from every kept state.
  const std::vector<SampleTask> first = drawSamples(problem, 0, 3);
  ASSERT_EQ(first.size(), 4000u);
  EXPECT_EQ(first[5].parent, 2);
}

// Re-planning while a controller plays (control/Replan.h). Played as saved
// (no window re-planned) it is the controller's own playback, bit for bit,
// and its own windows from the live state cost what their search found;
// re-planned, a window is the search's only where the search's path ended
// its horizon better than the controller's own from the same live state, and
// the result does not depend on the thread count. Carrying the plan on, a
// searched path's rest is the plan the next window must beat.
TEST(Replan, PlayedAsSavedIsThePlaybackAndReplannedWindowsBeatTheirOwn) {
  const Project p = test::withCmuClip(riggedHumanoid());
  const ControllerObject made = shortFeedbackController(p, 0.5, 4, 2);
  ASSERT_EQ(made.windows.size(), 3u);

  // Windows by their simulated start: the one that starts then or later;
  // after the last starts, the hold's windows count on.
  EXPECT_EQ(windowStartingAt(made, 0), 0);
  EXPECT_EQ(windowStartingAt(made, 1e-3), 1);
  EXPECT_EQ(windowStartingAt(made, made.windows[0].duration), 1);
  EXPECT_EQ(windowStartingAt(made, made.duration() - made.windows[2].duration + 1e-3), 3);
  EXPECT_EQ(windowStartingAt(made, made.duration() + 1.5 * made.windows[2].referenceDuration), 5);
  EXPECT_GT(windowStartingAt(made, 1e300), 1000) << "far after the end: many hold windows, no overflow";

  ReplanOptions saved;
  saved.from = 1000;
  saved.hold = 0;
  const ReplanResult asSaved = replanPlayback(p, made, saved);
  ASSERT_EQ(asSaved.reports.size(), 3u);
  EXPECT_TRUE(asSaved.played.windows == made.windows);
  liu2013::Settings settings;
  liu2013::applyScene(p.simulation, settings);
  settings.threads = 1;
  ControllerRun run = prepareControllerRun(p, made, settings, true);
  while (run.solver->time() < run.policy->end() - 0.5 * run.solver->dt()) run.solver->step();
  const ReferenceMotion& ref = *run.reference;
  const double end = made.windows.back().referenceStart + made.windows.back().referenceDuration;
  EXPECT_EQ(asSaved.reports.back().tiltDegrees,
            tiltDegrees(ref.features(run.solver->state().skeleton), ref.features(end)));
  const Vec3 off = ref.features(run.solver->state().skeleton).rootPosition - ref.features(end).rootPosition;
  EXPECT_EQ(asSaved.reports.back().placeMetres, std::hypot(off.x(), off.z()));

  // Unshoved, the own windows cost exactly what their search found: with a
  // threshold nothing is searched.
  ReplanOptions onPath;
  onPath.above = 1;
  onPath.hold = 0;
  const ReplanResult unshoved = replanPlayback(p, made, onPath);
  EXPECT_TRUE(unshoved.played.windows == made.windows);
  for (const ReplanWindow& w : unshoved.reports) {
    EXPECT_FALSE(w.searched) << "window " << w.window;
    EXPECT_EQ(w.nominalCost, w.savedCost) << "window " << w.window;
  }
  EXPECT_EQ(unshoved.reports.back().tiltDegrees, asSaved.reports.back().tiltDegrees);
  // Whether it left its path is judged against the reference's own place
  // when the search would follow the reference moved to where the character
  // is: nothing is searched either.
  onPath.reanchor = 1;
  const ReplanResult anchored = replanPlayback(p, made, onPath);
  EXPECT_TRUE(anchored.played.windows == made.windows);
  for (const ReplanWindow& w : anchored.reports) EXPECT_FALSE(w.searched) << "window " << w.window;
  EXPECT_EQ(anchored.reports.back().tiltDegrees, asSaved.reports.back().tiltDegrees);

  ReplanOptions o;
  o.carry = false;  // every search around the controller's own windows (carrying on: below)
  o.samples = 12;
  o.keep = 2;
  o.horizon = 2;
  o.hold = 0.05;  // one window of the hold
  o.shoveWindow = 1;
  o.shove = Vec3(1.0, 0, 0);
  auto replanned = [&](int threads) {
    o.threads = threads;
    return replanPlayback(p, made, o);
  };
  const ReplanResult a = replanned(1), b = replanned(2);
  ASSERT_EQ(a.reports.size(), 4u);  // three windows and one of the hold
  EXPECT_TRUE(a.played.windows == b.played.windows);
  EXPECT_EQ(a.maxTiltDegrees, b.maxTiltDegrees);
  int changed = 0;
  for (size_t k = 0; k < a.reports.size(); ++k) {
    const ReplanWindow& w = a.reports[k];
    EXPECT_LT(w.nominalCost, 1e30);
    EXPECT_TRUE(w.searched);
    if (w.replanned) {
      ++changed;
      EXPECT_LT(w.searchedCost, w.nominalCost) << "window " << k;
    } else if (k < made.windows.size()) {
      EXPECT_TRUE(a.played.windows[k] == made.windows[k]) << "window " << k;
    }
    const double len = made.windows[0].referenceDuration;  // every window covers its own span of the reference
    EXPECT_NEAR(a.played.windows[k].referenceStart, made.windows[0].referenceStart + len * double(k), 1e-9) << "window " << k;
  }
  EXPECT_GE(changed, 1);
  EXPECT_EQ(a.samples, b.samples);
  // The controller as played carries its shove, at the start of the shoved
  // window; played with it (as simulate --controller and the GUI give it,
  // before the step it is due at) it replays the run exactly.
  ASSERT_FALSE(a.played.shove.empty());
  EXPECT_EQ(a.played.shove.velocity, o.shove);
  EXPECT_NEAR(a.played.shove.time, a.played.windows[0].duration, 1e-12);
  EXPECT_TRUE(asSaved.played.shove.empty()) << "unshoved runs carry none";
  {
    ControllerRun replay = prepareControllerRun(p, a.played, settings, true);
    liu2013::Liu2013Solver& sim = *replay.solver;
    int shoves = 0;
    while (sim.time() < replay.policy->end() - 0.5 * sim.dt()) {
      if (a.played.shove.dueAt(sim.time(), sim.dt())) shoves += sim.push(a.played.shove.velocity);
      sim.step();
    }
    EXPECT_EQ(shoves, 1);
    const ControlWindow& last = a.played.windows.back();
    const double lastEnd = last.referenceStart + last.referenceDuration;
    const BodyFeatures now = replay.reference->features(sim.state().skeleton), there = replay.reference->features(lastEnd);
    EXPECT_EQ(a.reports.back().tiltDegrees, tiltDegrees(now, there)) << "the replay is the run";
    const Vec3 gap = now.rootPosition - there.rootPosition;
    EXPECT_EQ(a.reports.back().placeMetres, std::hypot(gap.x(), gap.z()));
  }
  // Searched against the reference moved to where the shoved character is:
  // the own windows cost less there (its drift is not counted), and a window
  // is re-planned only where the search beat that.
  o.reanchor = 1;
  const ReplanResult c = replanned(2);
  int lower = 0;
  for (const ReplanWindow& w : c.reports) {
    if (w.window > o.shoveWindow) lower += w.anchoredCost < w.nominalCost;
    if (w.replanned) {
      EXPECT_LT(w.searchedCost, w.anchoredCost) << "window " << w.window;
    }
  }
  EXPECT_GE(lower, 1);
  // Re-anchored part of the way: the reference moved by that fraction of
  // the gap, so the own windows cost something else there than both against
  // the reference's place and against the reference moved all the way.
  o.reanchor = 0.5;
  const ReplanResult half = replanned(2);
  int between = 0;
  for (size_t k = 0; k < half.reports.size() && k < c.reports.size(); ++k) {
    const ReplanWindow& w = half.reports[k];
    if (w.replanned) {
      EXPECT_LT(w.searchedCost, w.anchoredCost) << "window " << w.window;
    }
    if (w.window > o.shoveWindow)
      between += w.anchoredCost != w.nominalCost && w.anchoredCost != c.reports[k].anchoredCost;
  }
  EXPECT_GE(between, 1);
  // Carrying the plan on: after a window played from a searched path, the
  // rest of that path is what the next search must beat, and the search
  // samples around it where it costs less than the own windows.
  o.reanchor = 0;
  o.carry = true;
  o.samples = 20;
  const ReplanResult d = replanned(2);
  EXPECT_TRUE(d.played.windows == replanned(1).played.windows);
  ASSERT_EQ(d.reports.size(), 4u);
  int carriedOn = 0;
  for (size_t k = 0; k < d.reports.size(); ++k) {
    const ReplanWindow& w = d.reports[k];
    const bool before = k > 0 && (d.reports[k - 1].replanned || d.reports[k - 1].carried);
    EXPECT_EQ(w.carriedCost < 1e30, before) << "window " << k << ": a path is carried only after one was played";
    if (w.carried) {
      EXPECT_LT(w.carriedCost, w.anchoredCost) << "window " << k;
    }
    const double plan = w.carried ? w.carriedCost : w.anchoredCost;
    if (w.replanned) {
      EXPECT_LT(w.searchedCost, plan) << "window " << k;
    }
    carriedOn += before;
    if (!w.replanned && !w.carried && k < made.windows.size()) {
      EXPECT_TRUE(d.played.windows[k] == made.windows[k]) << "window " << k;
    }
  }
  EXPECT_GE(carriedOn, 1);
  EXPECT_TRUE(std::any_of(d.reports.begin(), d.reports.end(),
                          [](const ReplanWindow& w) { return w.carried && !w.replanned; }))
      << "a window played on from the carried path";
  for (const ReplanWindow& w : a.reports) EXPECT_FALSE(w.carried || w.carriedCost < 1e30) << "carried only when on";
  a.played.validate("re-planned", p.skeleton->skeleton.size());
  EXPECT_EQ(a.played.feedback.gains.size(), a.played.windows.size());
}

// Options out of range and a controller that does not fit are named.
TEST(Replan, BadOptionsAndControllersAreRefused) {
  const Project p = riggedHumanoid();
  const ControllerObject none;
  // Each option is refused for itself: the options are checked before the
  // controller (which has no windows here), and the message names the re-planning.
  auto refused = [&](const ReplanOptions& o) {
    try {
      replanPlayback(p, none, o);
    } catch (const InputError& e) {
      return e.file() == "re-planning";
    }
    return false;
  };
  ReplanOptions bad;
  bad.samples = 2;
  bad.keep = 3;
  EXPECT_TRUE(refused(bad));
  bad = {};
  bad.hold = std::nan("");
  EXPECT_TRUE(refused(bad));
  bad = {};
  bad.shove = Vec3(0, std::numeric_limits<double>::infinity(), 0);
  EXPECT_TRUE(refused(bad));
  bad.shove = Vec3(0, 0, 101);  // over kMaxShoveSpeed: a file could not hold the played controller
  EXPECT_TRUE(refused(bad));
  bad = {};
  bad.reanchor = 1.5;
  EXPECT_TRUE(refused(bad));
  bad.reanchor = std::nan("");
  EXPECT_TRUE(refused(bad));
  bad.reanchor = 0.5;
  EXPECT_FALSE(refused(bad)) << "a fraction in range passes the options' check";
  EXPECT_THROW(replanPlayback(p, none, {}), InputError);  // no windows
}

TEST(Samcon, SelectBestOrdersByCostThenIndex) {
  EXPECT_EQ(selectBest({3, 1, 2, 1, 5}, 3), (std::vector<int32_t>{1, 3, 2}));
  EXPECT_EQ(selectBest({1, 1}, 5), (std::vector<int32_t>{0, 1}));
}

}  // namespace
}  // namespace sinew::control

namespace sinew::control {
namespace {

// Flight is counted between frames that both have every foot above the
// clearance; the first take-off and landing are kept.
// A search redone part-way starts from the saved kept paths cut where it is
// redone (each distinct prefix once, best by its last window's cost first),
// or from the best path alone once the search has finished; the record of
// how the first windows were sampled survives the settings' JSON and is cut
// by a later redo.
TEST(Samcon, RedoneSearchStartsFromTheKeptPathsCutAndRecordsEarlierSampling) {
  auto window = [](double start, double cost, double angle) {
    ControlWindow w;
    w.referenceStart = start;
    w.referenceDuration = 0.1;
    w.duration = 0.1;
    w.targets = {Quat(Eigen::AngleAxisd(angle, Vec3::UnitY()))};
    w.cost = cost;
    return w;
  };
  ControllerObject c;
  // Three kept paths: two share their first two windows; the third differs in its second.
  c.windows = {window(0, 0.1, 0.0), window(0.1, 0.3, 0.1), window(0.2, 0.2, 0.2)};
  c.searchKept = {c.windows,
                  {window(0, 0.1, 0.0), window(0.1, 0.3, 0.1), window(0.2, 0.25, 0.3)},
                  {window(0, 0.1, 0.0), window(0.1, 0.2, 0.4), window(0.2, 0.5, 0.5)}};
  std::vector<std::vector<ControlWindow>> paths = pathsBefore(c, 0.2);
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_EQ(paths[0].size(), 2u);
  EXPECT_EQ(paths[0][1].cost, 0.2) << "ranked by the cost where they are cut";
  EXPECT_EQ(paths[1][1].cost, 0.3);
  EXPECT_EQ(pathsBefore(c, 0.15).size(), 1u) << "one first window shared by all";
  EXPECT_TRUE(pathsBefore(c, 0.05).empty()) << "no window ends by then";
  EXPECT_EQ(pathsBefore(c, 1.0).size(), 3u) << "past the last window: the kept set itself (a resume)";
  c.searchKept.clear();
  paths = pathsBefore(c, 0.25);
  ASSERT_EQ(paths.size(), 1u) << "a finished search: its best path";
  EXPECT_TRUE(paths[0] == std::vector<ControlWindow>(c.windows.begin(), c.windows.begin() + 2));

  OptimizeSpec first;
  first.clip = "clip";
  first.samcon.seed = 4;
  first.samcon.samples = 300;
  first.samcon.backtracks = 3;
  first.samcon.backtrackAbove = 0.8;
  OptimizeSpec second = first;
  second.samcon.seed = 9;
  second.samcon.backtracks = 0;
  second.earlier = earlierSampling(first, 20);
  ASSERT_EQ(second.earlier.size(), 1u);
  EXPECT_EQ(second.earlier[0].windows, 20);
  EXPECT_EQ(second.earlier[0].seed, 4u);
  EXPECT_EQ(second.earlier[0].backtracks, 3) << "how the first windows were searched: with backtracking";
  EXPECT_EQ(second.earlier[0].backtrackAbove, 0.8);
  const OptimizeSpec read = specFromJson(specToJson(second), "test");
  EXPECT_TRUE(read.earlier == second.earlier);
  EXPECT_EQ(read.samcon.seed, 9u);
  OptimizeSpec third = read;
  third.earlier = earlierSampling(read, 30);
  ASSERT_EQ(third.earlier.size(), 2u);
  EXPECT_EQ(third.earlier[1].windows, 30);
  EXPECT_EQ(third.earlier[1].seed, 9u);
  EXPECT_EQ(third.earlier[1].backtracks, 0);
  EXPECT_EQ(third.earlier[0].backtracks, 3);
  third.earlier = earlierSampling(read, 12);
  ASSERT_EQ(third.earlier.size(), 1u) << "redone before the earlier record ends: cut";
  EXPECT_EQ(third.earlier[0].windows, 12);
  EXPECT_EQ(third.earlier[0].seed, 4u);
  EXPECT_THROW(specFromJson(R"({"earlier": [{"windows": 5}]})", "test"), InputError);
  EXPECT_THROW(specFromJson(R"({"earlier": [{"windows": 5, "seed": 1, "samples": 1, "keep": 1, "rounds": 1, "noise": 0.1,
                                "refineShrink": 0.6, "weights": {}}, {"windows": 3, "seed": 1, "samples": 1, "keep": 1,
                                "rounds": 1, "noise": 0.1, "refineShrink": 0.6, "weights": {}}]})", "test"), InputError);

  // Each window replays under the weights and the shove it was ranked with.
  OptimizeSpec fourth = read;
  fourth.samcon.weights.velocity = 2;
  fourth.samcon.scoreShove = 0.05;
  fourth.earlier = earlierSampling(read, 25);  // 20 windows by `first`, 5 by `second`
  ASSERT_EQ(fourth.earlier.size(), 2u);
  fourth.earlier[0].weights.velocity = 1;
  fourth.earlier[1].scoreShove = 0.02;
  fourth.earlier[1].tangentWeight = 0.03;
  const std::vector<WindowScoring> w = windowScoring(fourth, 27);
  ASSERT_EQ(w.size(), 27u);
  EXPECT_EQ(w[19].weights.velocity, 1);
  EXPECT_EQ(w[19].shove, 0);
  EXPECT_EQ(w[20].weights.velocity, CostWeights{}.velocity);
  EXPECT_EQ(w[24].shove, 0.02);
  EXPECT_EQ(w[24].tangentWeight, 0.03);
  EXPECT_EQ(w[25].tangentWeight, 0);
  EXPECT_EQ(w[25].weights.velocity, 2);
  EXPECT_EQ(w[25].shove, 0.05);
  const OptimizeSpec fifth = specFromJson(specToJson(fourth), "test");
  EXPECT_TRUE(fifth.earlier == fourth.earlier) << "the shoves of earlier sampling saved";
  EXPECT_EQ(fifth.samcon.scoreShove, 0.05);
  EXPECT_EQ(specToJson(read).find("scoreShove"), std::string::npos) << "absent when off, as before there was one";
  EXPECT_EQ(specToJson(read).find("tangentWeight"), std::string::npos);
  fourth.samcon.tangentWeight = 0.05;
  EXPECT_EQ(specFromJson(specToJson(fourth), "test").samcon.tangentWeight, 0.05);
  EXPECT_THROW(specFromJson(R"({"earlier": [{"windows": 5, "seed": 1, "samples": 1, "keep": 1, "rounds": 1, "noise": 0.1,
                                "refineShrink": 0.6, "weights": {}, "tangentWeight": 2}]})", "test"), InputError);
  EXPECT_THROW(specFromJson(R"({"earlier": [{"windows": 5, "seed": 1, "samples": 1, "keep": 1, "rounds": 1, "noise": 0.1,
                                "refineShrink": 0.6, "weights": {}, "scoreShove": -1}]})", "test"), InputError);
}

TEST(Flight, TrackerCountsTheTimeEveryFootIsOffTheGround) {
  FlightTracker f;
  f.add(0.0, {0.0, 0.01}, 1.0);
  f.add(0.1, {0.06, 0.07}, 1.1);
  f.add(0.2, {0.1, 0.2}, 1.3);
  f.add(0.3, {0.01, 0.2}, 1.0);  // one foot down: landed
  f.add(0.4, {0.3, 0.3}, 1.2);   // a second flight, one frame long
  f.add(0.5, {0.0, 0.0}, 0.9);
  EXPECT_NEAR(f.stats().seconds, 0.1, 1e-12);
  EXPECT_EQ(f.stats().takeOff, 0.1);
  EXPECT_EQ(f.stats().landing, 0.3);
  EXPECT_NEAR(f.stats().peakComRise, 0.3, 1e-12);
  FlightTracker never;
  never.add(0.0, {0.0, 0.0}, 1.0);
  never.add(0.1, {0.2, 0.0}, 1.0);
  EXPECT_EQ(never.stats().seconds, 0.0);
  EXPECT_EQ(never.stats().takeOff, -1.0);
}

// The character settled into the first pose of 01_01's first jump stands on
// its soles; the reference's soles (the same flesh nodes carried by its
// links) stand at the start and are 5 cm above the ground from 1.95 s of the
// clip to 2.2 s (measured: take-off 0.95 s into the segment, landing 1.21 s).
TEST(Flight, TheSettledCharacterStandsAndTheReferenceJumps) {
  const Project p = test::withCmuClip(riggedHumanoid());
  OptimizeSpec spec;
  spec.clip = "01_01";
  spec.start = 1.0;
  spec.end = 2.7;
  spec.samcon.samples = 1;
  const PreparedOptimization prepared = prepareOptimization(p, spec);
  const SamconProblem& problem = prepared.problem;
  const FootClearance feet(problem.model, problem.reference->feet(), problem.settings.groundHeight);
  ASSERT_EQ(feet.feet(), 2u);
  // The penalty ground lets a loaded sole sink (4.7-4.8 cm measured); the
  // reference is placed on the ground with the character's rest sole.
  for (double c : feet.simulated(problem.start)) {
    EXPECT_LT(c, 0.01) << "a settled sole is on the ground";
    EXPECT_GT(c, -0.06) << "a settled sole is on the ground";
  }
  for (double c : feet.posed(problem.reference->state(0.0))) EXPECT_NEAR(c, 0.0, 0.05) << "the reference stands";
  FlightTracker f;
  for (double t = 0; t <= problem.reference->duration(); t += 1.0 / 120)
    f.add(t, feet.posed(problem.reference->state(t)), problem.reference->features(t).centerOfMass.y());
  std::printf("reference flight %.3f s, take-off %.3f s, landing %.3f s, centre of mass up %.3f m\n", f.stats().seconds,
              f.stats().takeOff, f.stats().landing, f.stats().peakComRise);
  EXPECT_GT(f.stats().takeOff, 0.7);
  EXPECT_LT(f.stats().takeOff, 1.0);
  EXPECT_GT(f.stats().landing, 1.15);
  EXPECT_LT(f.stats().landing, 1.45);
  EXPECT_GT(f.stats().seconds, 0.2);
  EXPECT_GT(f.stats().peakComRise, 0.15);
}

}  // namespace
}  // namespace sinew::control
