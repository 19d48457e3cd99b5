// The Liu et al. 2013 soft character: conservation, plasticity, contact,
// determinism, snapshots and bad input, on a small humanoid (a coarse cage of
// a few hundred nodes so that the suite stays fast).
#include "core/Error.h"
#include "examples/Bars.h"
#include "examples/Humanoid.h"
#include "examples/Motions.h"
#include "liu2013/Liu2013.h"
#include "rig/RigBuild.h"
#include "LiuScene.h"
#include "solver/SimRun.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace sinew;
using namespace sinew::liu2013;
using sinew::test::riggedHumanoid;

namespace {

std::shared_ptr<const Liu2013Model> model(const ModelOptions& o = {}) { return buildLiu2013Model(riggedHumanoid(), o); }

Settings floating() {
  Settings s;
  s.toggles.gravity = false;
  s.toggles.contact = false;
  return s;
}

}  // namespace

TEST(Liu2013, ModelHasTheRigsMassAndLinks) {
  const auto m = model();
  EXPECT_EQ(m->skeleton.links.size(), riggedHumanoid().skeleton->skeleton.size());
  EXPECT_GT(m->nodeCount(), 200u);
  EXPECT_GT(m->freeNodes.size(), m->nodeCount() / 2);
  double linkMass = 0;
  for (const dyn::Link& l : m->skeleton.links) linkMass += l.inertia.mass;
  double freeMass = 0;
  for (int32_t i : m->freeNodes) freeMass += m->nodeMass[i];
  // The fixed nodes' masses are merged into the bones (plus tiny balls for bone-less joints).
  EXPECT_NEAR(linkMass + freeMass, m->totalMass, 0.01 * m->totalMass);
  // About a human's weight: the lumped masses are scaled to the fine surface's volume.
  std::printf("mass %.1f kg (cage masses x %.3f)\n", m->totalMass, m->massScale);
  EXPECT_GT(m->totalMass, 50.0);
  EXPECT_LT(m->totalMass, 150.0);
  EXPECT_LT(m->massScale, 1.0);
}

TEST(Liu2013, RestIsAnEquilibrium) {
  Liu2013Solver sim(model(), floating());
  for (int i = 0; i < 200; ++i) sim.step();
  double maxSpeed = 0;
  for (const Vec3& v : sim.state().v) maxSpeed = std::max(maxSpeed, v.norm());
  EXPECT_LT(maxSpeed, 1e-8);
  EXPECT_LT(sim.measure().elasticEnergy, 1e-12);
}

TEST(Liu2013, FreeFlightConservesMomentumWithPoseDamping) {
  // A spinning, wobbling character in zero gravity: internal forces only.
  Liu2013Solver sim(model(), floating());
  Liu2013State s = sim.state();
  const Vec3 com = sim.measure().centerOfMass;
  addRigidVelocity(sim.model(), s, Vec3(0.3, 0.1, -0.2), Vec3(0.5, 1.5, 0.2), com);
  for (int32_t i : sim.model().freeNodes) s.v[i] += 0.3 * Vec3(std::sin(i * 1.3), std::cos(i * 0.7), std::sin(i * 2.1));
  sim.setState(s);
  const SimMeasures a = sim.measure();
  for (int i = 0; i < 2000; ++i) sim.step();
  const SimMeasures b = sim.measure();
  const StageTimes& st = sim.stageTimes();
  std::printf("per step: kinematics %.1f us, elastic %.1f us, contact %.1f us, skeleton %.1f us, integrate %.1f us\n",
              1e6 * st.kinematics / st.steps, 1e6 * st.elastic / st.steps, 1e6 * st.contact / st.steps,
              1e6 * st.skeleton / st.steps, 1e6 * st.integrate / st.steps);
  const double p = a.linearMomentum.norm(), l = a.angularMomentum.norm();
  std::printf("linear momentum drift %.3g, angular %.3g (relative)\n", (b.linearMomentum - a.linearMomentum).norm() / p,
              (b.angularMomentum - a.angularMomentum).norm() / l);
  EXPECT_LT((b.linearMomentum - a.linearMomentum).norm(), 1e-9 * p);
  EXPECT_LT((b.angularMomentum - a.angularMomentum).norm(), 0.01 * l);
  EXPECT_LT(b.kineticEnergy + b.elasticEnergy, 1.001 * (a.kineticEnergy + a.elasticEnergy));
}

TEST(Liu2013, PoseDampingRemovesWobbleButRayleighAlsoRemovesSpin) {
  for (DampingMode mode : {DampingMode::Pose, DampingMode::Rayleigh}) {
    Settings s = floating();
    s.toggles.damping = mode;
    Liu2013Solver sim(model(), s);
    Liu2013State st = sim.state();
    addRigidVelocity(sim.model(), st, Vec3::Zero(), Vec3(0, 2.0, 0), sim.measure().centerOfMass);
    sim.setState(st);
    const double l0 = sim.measure().angularMomentum.norm();
    for (int i = 0; i < 2000; ++i) sim.step();
    const double l1 = sim.measure().angularMomentum.norm();
    std::printf("%s: |L| %.6g -> %.6g\n", dampingModeName(mode), l0, l1);
    if (mode == DampingMode::Pose) EXPECT_NEAR(l1, l0, 0.01 * l0);
    else EXPECT_LT(l1, 0.8 * l0) << "Rayleigh (mass-proportional) damping dissipates the spin (30 % in 1 s)";
  }
}

TEST(Liu2013, SameInputsAndThreadsGiveBitIdenticalResultsAndThreadCountDoesNotMatter) {
  Settings s = floating();
  s.toggles.gravity = true;
  s.toggles.contact = true;
  s.drive = DriveMode::Pd;
  s.clip = makeKickClip(riggedHumanoid().skeleton->skeleton, 2.0);
  auto run = [&](int threads) {
    Settings t = s;
    t.threads = threads;
    Liu2013Solver sim(model(), t);
    for (int i = 0; i < 400; ++i) sim.step();
    return sim.state();
  };
  const Liu2013State a = run(2), b = run(2), c = run(1);
  EXPECT_TRUE(a == b);
  EXPECT_TRUE(a == c);
}

// With the ground as the only collider the contact loop skips the surface
// clear of it; a collider far out of reach sends every vertex through the full
// response instead. Both must give the same bits, feet on the ground included.
TEST(Liu2013, SkippingTheSurfaceClearOfTheGroundChangesNoBit) {
  Settings s;
  s.drive = DriveMode::Pd;
  s.clip = makeKickClip(riggedHumanoid().skeleton->skeleton, 2.0);
  s.threads = 1;
  auto run = [&](bool farCollider) {
    Settings t = s;
    if (farCollider) {
      Collider box;
      box.name = "out of reach";
      box.shape = ColliderShape::Box;
      box.size = Vec3(1, 1, 1);
      box.center = Vec3(0, 50, 0);
      t.colliders.push_back(box);
    }
    Liu2013Solver sim(model(), t);
    for (int i = 0; i < 1000; ++i) sim.step();
    return sim.state();
  };
  const Liu2013State skipped = run(false), full = run(true);
  const auto touching = std::count(skipped.contactSource.begin(), skipped.contactSource.end(), 1);
  EXPECT_GT(touching, 0) << "no vertex is on the ground: the test checks nothing";
  EXPECT_LT(touching, std::ptrdiff_t(skipped.contactSource.size()) / 2);
  EXPECT_TRUE(skipped == full);
}

TEST(Liu2013, SnapshotAndRestoreReplayExactly) {
  Settings s;
  s.drive = DriveMode::Pd;
  s.clip = makeKickClip(riggedHumanoid().skeleton->skeleton, 2.0);
  Liu2013Solver sim(model(), s);
  for (int i = 0; i < 100; ++i) sim.step();
  const auto snap = sim.snapshot();
  for (int i = 0; i < 150; ++i) sim.step();
  const Liu2013State first = sim.state();
  sim.restore(*snap);
  EXPECT_DOUBLE_EQ(sim.time(), snap->time());
  for (int i = 0; i < 150; ++i) sim.step();
  EXPECT_TRUE(sim.state() == first);
}

TEST(Liu2013, CharacterStandsOnTheGroundCarryingItsWeight) {
  Settings s;  // gravity and contact on, PD holds the rest pose
  Liu2013Solver sim(model(), s);
  for (int i = 0; i < 2000; ++i) sim.step();  // 1 s
  const std::vector<Vec3> surf = sim.surfacePositions();
  double lowest = 1e9;
  for (const Vec3& p : surf) lowest = std::min(lowest, p.y());
  EXPECT_GT(lowest, -0.03) << "the feet sink into the ground";
  EXPECT_LT(lowest, 0.01) << "the character does not reach the ground";
  // Momentum balance: over 0.2 s the ground pushes up with about the weight.
  const SimMeasures a = sim.measure();
  for (int i = 0; i < 400; ++i) sim.step();
  const SimMeasures b = sim.measure();
  const double weight = sim.model().totalMass * 9.81;
  const double groundForce = (b.linearMomentum.y() - a.linearMomentum.y()) / 0.2 + weight;
  std::printf("ground force %.1f N, weight %.1f N\n", groundForce, weight);
  EXPECT_NEAR(groundForce, weight, 0.15 * weight);
}

TEST(Liu2013, GrabbingPullsTheCharacter) {
  Liu2013Solver sim(model(), floating());
  const std::vector<Vec3> rest = sim.surfacePositions();
  size_t top = 0;
  for (size_t v = 0; v < rest.size(); ++v)
    if (rest[v].y() > rest[top].y()) top = v;
  sim.setGrab(Grab{static_cast<int32_t>(top), rest[top] + Vec3(0.5, 0, 0), 0});
  for (int i = 0; i < 400; ++i) sim.step();
  EXPECT_GT(sim.measure().linearMomentum.x(), 1.0);
  sim.setGrab(std::nullopt);
}

TEST(Liu2013, MissingVolumeAndUnstableRunsSayWhatToDo) {
  Project bare = makeHumanoidProject([] {
    HumanoidOptions o;
    o.gridSpacing = 0.06;
    return o;
  }());
  try {
    buildLiu2013Model(bare);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("build the volumetric mesh first"), std::string::npos) << e.what();
  }
  ModelOptions stiff;
  stiff.material.youngsModulus = 5e8;
  Settings s;
  s.dt = 0.004;
  Liu2013Solver sim(model(stiff), s);
  Liu2013State st = sim.state();
  addRigidVelocity(sim.model(), st, Vec3(0, -1, 0), Vec3(1, 0, 0), sim.measure().centerOfMass);
  for (int32_t i : sim.model().freeNodes) st.v[i] += Vec3(std::sin(i), std::cos(3 * i), 0);
  sim.setState(st);
  try {
    for (int i = 0; i < 5000; ++i) sim.step();
    FAIL() << "a 4 ms step with a 500 MPa material should blow up";
  } catch (const SimulationError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("time step"), std::string::npos) << what;
    EXPECT_NE(what.find("bone"), std::string::npos) << what;
    for (const Vec3& x : sim.state().x) ASSERT_TRUE(x.allFinite());
    EXPECT_DOUBLE_EQ(sim.time(), e.lastGoodTime());
  }
}

TEST(Liu2013, KinematicDriveFollowsTheClipAndFleshFollows) {
  Settings s = floating();
  s.drive = DriveMode::Kinematic;
  s.clip = makeKickClip(riggedHumanoid().skeleton->skeleton, 2.0);
  Liu2013Solver sim(model(), s);
  for (int i = 0; i < 1000; ++i) sim.step();  // 0.5 s
  // The skeleton is exactly the clip's pose.
  const std::vector<Transform> clipWorld = s.clip->skeleton().worldFromLocal(s.clip->localPoseAt(sim.time()));
  const auto poses = sim.jointPoses();
  for (size_t j = 0; j < poses.size(); ++j) EXPECT_LT((poses[j].translation - clipWorld[j].translation).norm(), 1e-6) << j;
  // The flesh around the kicking leg moved with it (stays within a few cm of its reference).
  double maxLag = 0;
  const Liu2013State& st = sim.state();
  const Liu2013Model& m = sim.model();
  for (int32_t i : m.freeNodes) {
    const int32_t link = m.influences[m.influenceOffsets[i]].link;
    const Vec3 carried = (poses[link] * m.linkRest[link].inverse()).apply(m.restNodes[i]);
    maxLag = std::max(maxLag, (st.x[i] - carried).norm());
  }
  std::printf("largest distance of a node from where its dominant bone carries it: %.3f m\n", maxLag);
  EXPECT_LT(maxLag, 0.15);
}

// ModelOptions::stableStep: at a step twice the paper's, the sticking
// friction's drag (a regularisation of Coulomb friction, 20 times the contact
// damping) is what limits the explicit step. Where it must, it is integrated
// implicitly instead of the nodes under it being made heavier, and the
// character stands on its soles without sliding more than at the paper's
// step. At the paper's step nothing changes.
TEST(Liu2013, ALargerStepIntegratesTheStickingDragImplicitlyInsteadOfAddingMass) {
  ModelOptions paper;
  const auto m05 = model(paper);
  ModelOptions twice;
  twice.stableStep = 0.001;
  const auto m1 = model(twice);
  const auto implicitCount = [](const Liu2013Model& m) {
    return std::count(m.vertexImplicitDrag.begin(), m.vertexImplicitDrag.end(), uint8_t(1));
  };
  std::printf("0.5 ms: %zu nodes given %.3f kg, %ld implicit-drag vertices; 1 ms: %zu nodes given %.3f kg of %.1f kg, "
              "%ld implicit-drag vertices of %zu\n",
              m05->massScaledNodes, m05->addedMass, long(implicitCount(*m05)), m1->massScaledNodes, m1->addedMass,
              m1->totalMass, long(implicitCount(*m1)), m1->vertexImplicitDrag.size());
  ASSERT_EQ(m05->vertexImplicitDrag.size(), m05->embedding.vertexCount());
  EXPECT_EQ(m05->massScaledNodes, 0u) << "the paper's step is stable as it is";
  EXPECT_EQ(implicitCount(*m05), 0) << "so nothing changes at it";
  // The contact stiff enough for standing (kContactStiffness) asks for mass
  // at 1 ms on this coarse cage's surface nodes (17 % of the body; at 4e6 N/m
  // per m^2 it was under 1 %): 1 ms is a speed option, not the default.
  EXPECT_LT(m1->addedMass, 0.25 * m1->totalMass);
  EXPECT_GT(implicitCount(*m1), 0);
  // Every node's stable step is about the step the model was made for (the
  // bound acts on nodes more than 10 % past it: Gershgorin over-estimates).
  for (size_t i = 0; i < m1->nodeCount(); ++i) EXPECT_GE(m1->nodeStableStep[i], 0.9 * 0.001) << "node " << i;

  // Standing on its PD-held rest pose at 1 and 0.75 ms: carried by the
  // ground, and its soles (the surface on the ground after 0.3 s) slide no
  // more than at the paper's step over the next 0.9 s (explicit at 1 ms with
  // the drag weakened to its stability limit instead, they slid 4.5 times as far).
  double slides[3];
  ModelOptions o075;
  o075.stableStep = 0.00075;
  const auto m075 = model(o075);
  for (int k = 0; k < 3; ++k) {
    Settings s;
    s.dt = k == 0 ? 0.0005 : k == 1 ? 0.001 : 0.00075;
    Liu2013Solver sim(k == 0 ? m05 : k == 1 ? m1 : m075, s);
    const auto run = [&](double seconds) {
      for (int i = 0, n = int(std::lround(seconds / s.dt)); i < n; ++i) sim.step();
    };
    run(0.3);
    const std::vector<Vec3> landed = sim.surfacePositions();
    run(0.7);
    const SimMeasures a = sim.measure();
    run(0.2);
    const SimMeasures b = sim.measure();
    const double weight = sim.model().totalMass * 9.81;
    const double groundForce = (b.linearMomentum.y() - a.linearMomentum.y()) / 0.2 + weight;
    const std::vector<Vec3> now = sim.surfacePositions();
    double slide = 0;
    int soles = 0;
    for (size_t v = 0; v < now.size(); ++v)
      if (landed[v].y() < 0.005) {
        Vec3 d = now[v] - landed[v];
        d.y() = 0;
        slide = std::max(slide, d.norm());
        ++soles;
      }
    slides[k] = slide;
    std::printf("%g ms: ground force %.1f N, weight %.1f N, %d sole vertices slid at most %.4f m\n", s.dt * 1000,
                groundForce, weight, soles, slide);
    EXPECT_GT(soles, 10);
    EXPECT_NEAR(groundForce, weight, 0.15 * weight);
  }
  EXPECT_LT(slides[1], 1.25 * slides[0] + 0.002);
  EXPECT_LT(slides[2], 1.25 * slides[0] + 0.002);
}

namespace {

// A rigid block (every node fixed to its one bone), 30 x 10 x 20 cm, lying on
// a slope of `degrees` about z: a box collider whose top face is the slope,
// the ground plane far below.
struct SlopeScene {
  std::shared_ptr<const Liu2013Model> model;
  Settings settings;
  Vec3 downhill;
};

SlopeScene blockOnSlope(double degrees, double friction) {
  examples::GridBox box;
  box.size = Vec3(0.3, 0.1, 0.2);
  box.cellsX = 6, box.cellsY = 2, box.cellsZ = 4;
  examples::BarScene scene = examples::rigidBarScene(box);
  const Quat tilt(Eigen::AngleAxisd(degrees * M_PI / 180, Vec3::UnitZ()));
  // Resting on the slope's surface (through the origin), 1 mm above it.
  for (Vec3& x : scene.mesh.nodes) x = tilt * (x + Vec3(0, 0.05 + 0.001, 0));
  for (RegionJoint& j : scene.joints.joints) j.position = tilt * (j.position + Vec3(0, 0.051, 0));
  Project p = examples::makeBarProject(scene, "block");
  VolumeObject& v = p.volumes.front();
  v.kind = VolumeKind::Cage;
  SkinWeights w;
  w.bones = v.bones;
  for (size_t i = 0; i < v.mesh.nodeCount(); ++i) {
    w.offsets.push_back(int32_t(i));
    w.bone.push_back(0);
    w.weight.push_back(1);
  }
  w.offsets.push_back(int32_t(v.mesh.nodeCount()));
  v.weights = w;
  SlopeScene s;
  s.model = buildLiu2013Model(p);
  s.settings.groundHeight = -10;
  Collider slope;
  slope.name = "slope";
  slope.shape = ColliderShape::Box;
  slope.size = Vec3(5, 1, 5);
  slope.rotationDegrees = Vec3(0, 0, degrees);
  slope.center = tilt * Vec3(0, -1, 0);
  slope.friction = friction;
  s.settings.colliders.push_back(slope);
  s.downhill = tilt * Vec3(-1, 0, 0);  // the slope falls toward -x
  return s;
}

}  // namespace

// Coulomb friction (Section 4.2.4): a block on a slope below the friction
// angle stays where it landed (the sticking spring; a damper alone lets it
// creep), and above it slides with a = g (sin theta - mu cos theta).
TEST(Liu2013, ABlockStaysOnAGentleSlopeAndSlidesDownASteepOneAsCoulombSays) {
  {
    SlopeScene s = blockOnSlope(20, 0.8);  // tan 20 = 0.36 < 0.8
    Liu2013Solver sim(s.model, s.settings);
    for (int i = 0; i < 600; ++i) sim.step();  // lands and settles (0.3 s)
    const Vec3 landed = sim.measure().centerOfMass;
    for (int i = 0; i < 2000; ++i) sim.step();  // 1 s
    const double slid = (sim.measure().centerOfMass - landed).dot(s.downhill);
    std::printf("20 deg, mu 0.8: slid %.6f m in 1 s\n", slid);
    EXPECT_LT(std::abs(slid), 0.0005);
  }
  {
    const double theta = 40 * M_PI / 180, mu = 0.5;
    SlopeScene s = blockOnSlope(40, mu);
    Liu2013Solver sim(s.model, s.settings);
    for (int i = 0; i < 200; ++i) sim.step();  // lands (0.1 s)
    const double d0 = sim.measure().centerOfMass.dot(s.downhill);
    const double v0 = sim.measure().linearMomentum.dot(s.downhill) / sim.model().totalMass;
    for (int i = 0; i < 1000; ++i) sim.step();  // 0.5 s
    const double d = sim.measure().centerOfMass.dot(s.downhill) - d0;
    const double a = 9.81 * (std::sin(theta) - mu * std::cos(theta));
    const double expected = v0 * 0.5 + 0.5 * a * 0.25;
    std::printf("40 deg, mu 0.5: slid %.4f m in 0.5 s, Coulomb says %.4f (a = %.3f m/s^2, v0 %.3f m/s)\n", d, expected,
                a, v0);
    EXPECT_NEAR(d, expected, 0.1 * expected);
  }
}
