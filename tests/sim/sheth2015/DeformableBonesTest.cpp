// Deformable bones (Sheth et al. 2015, Sections 7-8): a tet mesh cut into
// overlapping reduced bodies by its skinning weights, joined by point joints
// in the overlaps, skinned (eq. 42) and colliding through its skin (eq.
// 43-45); and the application's simulation of a project built that way.
#include "sheth2015/Decompose.h"
#include "sheth2015/Sheth2015Simulation.h"

#include "core/Error.h"
#include "examples/Bars.h"
#include "examples/ShethScenes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <set>

namespace sinew::sheth2015 {
namespace {

// A 0.9 m bar along x with three bones; raised-cosine weights a bone apart.
struct BarRig {
  TetMesh mesh;
  SkinWeights weights;
  std::vector<BoneInfo> bones;
};

BarRig barRig(double height = 0.6) {
  BarRig r;
  examples::GridBox g;
  g.size = Vec3(0.9, 0.1, 0.1);
  g.cellsX = 18, g.cellsY = 2, g.cellsZ = 2;
  r.mesh = examples::gridBox(g);
  for (Vec3& x : r.mesh.nodes) x += Vec3(0.45, height, 0);
  const double centres[3] = {0.15, 0.45, 0.75};
  r.bones = {{"A", -1, Vec3(0.0, height, 0)}, {"B", 0, Vec3(0.3, height, 0)}, {"C", 1, Vec3(0.6, height, 0)}};
  r.weights.bones = {"A", "B", "C"};
  r.weights.offsets = {0};
  for (const Vec3& x : r.mesh.nodes) {
    double w[3], sum = 0;
    for (int k = 0; k < 3; ++k) {
      const double s = std::clamp((x.x() - centres[k]) / 0.3, -1.0, 1.0);
      w[k] = 0.5 * (1 + std::cos(3.14159265358979 * s));
      if ((k == 0 && x.x() < centres[0]) || (k == 2 && x.x() > centres[2])) w[k] = 1;
      sum += w[k];
    }
    for (int k = 0; k < 3; ++k)
      if (w[k] > 1e-9) r.weights.bone.push_back(k), r.weights.weight.push_back(w[k] / sum);
    r.weights.offsets.push_back(int32_t(r.weights.bone.size()));
  }
  return r;
}

TEST(DeformableBones, ABarIsCutIntoOverlappingBodiesJoinedInTheOverlaps) {
  const BarRig rig = barRig();
  DecomposeOptions o;
  o.modes = 6;
  o.proxySites = 60;
  const DeformableBones d = decompose(rig.mesh, rig.weights, rig.bones, o);
  ASSERT_EQ(d.models.size(), 3u);
  EXPECT_EQ(d.bodyNames, (std::vector<std::string>{"A", "B", "C"}));
  // Overlapping subdomains: more particles than nodes, every node in a body.
  std::set<int32_t> covered;
  for (const auto& nodes : d.bodyNodes) covered.insert(nodes.begin(), nodes.end());
  EXPECT_EQ(covered.size(), rig.mesh.nodeCount());
  EXPECT_GT(d.particleCount(), rig.mesh.nodeCount() + 20);
  // Three joints per overlap (A-B, B-C), each joining one point of both bodies.
  ASSERT_EQ(d.joints.size(), 6u);
  for (const PointJoint& j : d.joints) {
    const Vec3 a = d.models[size_t(j.bodyA)]->x0[size_t(j.particleA)] + d.models[size_t(j.bodyA)]->restCenter;
    const Vec3 b = d.models[size_t(j.bodyB)]->x0[size_t(j.particleB)] + d.models[size_t(j.bodyB)]->restCenter;
    EXPECT_LT((a - b).norm(), 1e-12);
    EXPECT_EQ(j.bodyB, j.bodyA + 1) << "child joined to its parent";
  }
  // The skin (eq. 42) at rest is the mesh, its weights partition unity.
  World world;
  addToWorld(d, world);
  for (size_t n = 0; n < rig.mesh.nodeCount(); ++n) {
    double sum = 0;
    Vec3 x = Vec3::Zero();
    for (int32_t i = d.skin.offsets[n]; i < d.skin.offsets[n + 1]; ++i) {
      sum += d.skin.weight[size_t(i)];
      const auto& m = *d.models[size_t(d.skin.body[size_t(i)])];
      x += d.skin.weight[size_t(i)] * (m.x0[size_t(d.skin.particle[size_t(i)])] + m.restCenter);
    }
    EXPECT_NEAR(sum, 1.0, 1e-12);
    EXPECT_LT((x - rig.mesh.nodes[n]).norm(), 1e-12);
  }
  // The proxy: about the requested number of boundary nodes.
  const TetBoundary boundary = tetBoundary(rig.mesh);
  std::set<int32_t> onBoundary;
  for (const Tri& f : boundary.faces) onBoundary.insert(f.begin(), f.end());
  EXPECT_LE(d.proxyNodes.size(), 60u);
  EXPECT_GE(d.proxyNodes.size(), 30u);
  for (int32_t n : d.proxyNodes) EXPECT_TRUE(onBoundary.count(n)) << "proxy node " << n;
  std::printf("bar: %zu nodes -> %zu particles in 3 bodies, %zu joints, %zu proxy sites (radius %.3f m)\n",
              rig.mesh.nodeCount(), d.particleCount(), d.joints.size(), d.proxyNodes.size(), d.proxy.radius);
}

TEST(DeformableBones, AnImpulseOnASkinParticleGivesExactlyTheRequestedVelocityChange) {
  // eq. 43-45: the impulse is shared by weight, the skin particle's factor
  // is sum w^2 K, so solving K_s j = dv gives exactly dv at the particle.
  const BarRig rig = barRig();
  DecomposeOptions o;
  o.modes = 6;
  World world;
  addToWorld(decompose(rig.mesh, rig.weights, rig.bones, o), world);
  std::mt19937 rng(3);
  std::normal_distribution<double> n(0, 1);
  for (WorldBody& b : world.bodies()) {
    for (int k = 0; k < b.model->modeCount(); ++k) b.state.q[k] = 0.002 * n(rng), b.state.qDot[k] = 0.1 * n(rng);
    b.state.L = Vec3(n(rng), n(rng), n(rng)) * 0.01;
    updateAngularVelocity(*b.model, b.state);
  }
  const Skin& skin = world.skins()[0];
  int shared = 0;
  for (size_t s = 0; s < skin.siteCount(); s += 7) {
    shared += skin.offsets[s + 1] - skin.offsets[s] > 1;
    const Vec3 want(n(rng), n(rng), n(rng));
    const Vec3 before = world.siteVelocity(0, s);
    const Vec3 j = world.siteFactor(0, s).partialPivLu().solve(want);
    const Vec3 p0 = world.linearMomentum();
    world.applySiteImpulse(0, s, j);
    EXPECT_LT((world.siteVelocity(0, s) - before - want).norm(), 1e-9 * want.norm()) << "site " << s;
    EXPECT_LT((world.linearMomentum() - p0 - j).norm(), 1e-9 * j.norm()) << "the whole impulse lands in the bodies";
  }
  EXPECT_GT(shared, 0) << "some tested sites blend two bodies";
}

TEST(DeformableBones, TheSphereHierarchyBoundsTheSkinHoweverTheBonesMoveAndDeform) {
  // Section 8's BD-tree: each sphere is updated from the bodies' frames and
  // reduced coordinates only, and still contains every site under it, with
  // the bodies turned apart and deformed at random.
  const BarRig rig = barRig();
  DecomposeOptions o;
  o.modes = 6;
  o.proxySites = 120;
  World world;
  addToWorld(decompose(rig.mesh, rig.weights, rig.bones, o), world);
  std::mt19937 rng(11);
  std::normal_distribution<double> n(0, 1);
  double tightest = 1e9, loosest = 0;
  for (int trial = 0; trial < 20; ++trial) {
    for (WorldBody& b : world.bodies()) {
      for (int k = 0; k < b.model->modeCount(); ++k) b.state.q[k] = 0.01 * n(rng);
      b.state.rotation = Quat(Eigen::AngleAxisd(0.3 * n(rng), Vec3(n(rng), n(rng), n(rng)).normalized()));
      b.state.t += 0.02 * Vec3(n(rng), n(rng), n(rng));
      updateAngularVelocity(*b.model, b.state);
    }
    const std::vector<Vec3> x = world.sitePositions(0);
    const double siteRadius = world.skins()[0].radius;
    const auto spheres = world.boundingSpheres(0);
    ASSERT_GT(spheres.size(), 10u);
    for (const auto& sp : spheres) {
      double farthest = 0;
      for (int32_t s : sp.sites) farthest = std::max(farthest, (x[size_t(s)] - sp.centre).norm());
      ASSERT_LE(farthest + siteRadius, sp.radius + 1e-12) << "trial " << trial;
      if (sp.sites.size() > 8) tightest = std::min(tightest, (sp.radius - siteRadius) / farthest), loosest = std::max(loosest, (sp.radius - siteRadius) / farthest);
    }
  }
  std::printf("sphere radii over the farthest site (inner nodes, bodies turned ~0.3 rad apart): %.2f to %.2f\n", tightest, loosest);
  EXPECT_LT(loosest, 4.0) << "bounds, but not uselessly loose";
}

TEST(DeformableBones, AnArticulatedBarInFreeFlightKeepsItsMomenta) {
  const BarRig rig = barRig(1.0);
  DecomposeOptions o;
  o.modes = 6;
  WorldSettings set;
  set.step.gravity = Vec3::Zero();
  set.ground = false;
  World world(set);
  addToWorld(decompose(rig.mesh, rig.weights, rig.bones, o), world);
  std::mt19937 rng(5);
  std::normal_distribution<double> n(0, 1);
  for (WorldBody& b : world.bodies()) {
    b.state.v = Vec3(0.3, 0.1, -0.2);
    b.state.L = Vec3(0.0, 0.02, 0.05);
    for (int k = 0; k < b.model->modeCount(); ++k) b.state.qDot[k] = 0.05 * n(rng);
    updateAngularVelocity(*b.model, b.state);
  }
  const Vec3 p0 = world.linearMomentum(), L0 = world.angularMomentum();
  double worstGap = 0;
  for (int s = 0; s < 240; ++s) worstGap = std::max(worstGap, world.step().worstJointGap);
  double mass = 0;
  for (const WorldBody& b : world.bodies()) mass += b.model->totalMass;
  const double scale = mass * 0.4 * 1.0;  // kg x m/s x m
  const double dp = (world.linearMomentum() - p0).norm(), dL = (world.angularMomentum() - L0).norm();
  std::printf("articulated bar, 4 s free flight: momentum change linear %.3g, angular %.3g (scale %.3g); worst joint gap %.3g m\n",
              dp, dL, scale, worstGap);
  EXPECT_LT(dp, 1e-9 * scale);
  // Joint impulse pairs turn both bodies about the joint's midpoint (eq.
  // 41's r-hat): equal, opposite and on one line, so no couple.
  EXPECT_LT(dL, 1e-9 * scale);
  EXPECT_LT(worstGap, 0.01);
}

TEST(DeformableBones, BadInputNamesTheBoneOrBody) {
  const BarRig rig = barRig();
  DecomposeOptions o;
  o.modes = 6;
  // Weights naming a bone the skeleton lacks.
  SkinWeights w = rig.weights;
  w.bones[1] = "Ghost";
  try {
    decompose(rig.mesh, w, rig.bones, o);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("Ghost"), std::string::npos) << e.what();
  }
  // A subdomain too small for its modes, with nothing to merge into.
  DecomposeOptions many = o;
  many.modes = 1000;
  try {
    decompose(rig.mesh, rig.weights, {{"A", -1, Vec3::Zero()}, {"B", -1, Vec3::Zero()}, {"C", -1, Vec3::Zero()}}, many);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("too few"), std::string::npos) << e.what();
  }
  // Weights that do not match the mesh.
  SkinWeights shortWeights = rig.weights;
  shortWeights.offsets.pop_back();
  EXPECT_THROW(decompose(rig.mesh, shortWeights, rig.bones, o), InputError);
  // A joint outside the overlap (its particles apart at rest).
  World world;
  addToWorld(decompose(rig.mesh, rig.weights, rig.bones, o), world);
  try {
    world.addJoint({0, 0, 2, 0});
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("overlap"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'A'"), std::string::npos) << e.what();
  }
}

TEST(DeformableBones, SmallBonesMergeIntoTheirParent) {
  // Bone C gets weight only on the last cell: too small for 6 modes, so its
  // weight goes to B and the bar has two bodies.
  BarRig rig = barRig();
  rig.weights.offsets = {0};
  rig.weights.bone.clear();
  rig.weights.weight.clear();
  for (const Vec3& x : rig.mesh.nodes) {
    const double c = x.x() > 0.88 ? 1.0 : 0.0, a = x.x() < 0.45 ? 1.0 : 0.0, b = 1 - a - c;
    for (auto [k, v] : {std::pair{0, a}, std::pair{1, b}, std::pair{2, c}})
      if (v > 0) rig.weights.bone.push_back(k), rig.weights.weight.push_back(v);
    rig.weights.offsets.push_back(int32_t(rig.weights.bone.size()));
  }
  DecomposeOptions o;
  o.modes = 6;
  o.minimumNodes = 30;
  const DeformableBones d = decompose(rig.mesh, rig.weights, rig.bones, o);
  EXPECT_EQ(d.bodyNames, (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(d.mergedInto, (std::vector<int32_t>{0, 1, 1}));
}

// The application's simulation of a generated project: the fish of Fig. 6
// (four deformable bones) dropped on the ground comes to rest on it, in one
// piece, and a snapshot replays bit for bit.
TEST(Sheth2015Simulation, TheFishLandsAndRestsAndReplaysFromASnapshot) {
  const Project fish = examples::makeFishProject(0.03);
  Sheth2015Options options = optionsFor(fish);
  options.decompose.modes = 6;
  options.decompose.proxySites = 300;
  Sheth2015Simulation sim(fish, options);
  EXPECT_EQ(sim.bones().models.size(), 4u);
  EXPECT_EQ(sim.bones().joints.size(), 9u);
  const double start = sim.measure().centerOfMass.y();
  double worstGap = 0;
  std::unique_ptr<SimSnapshot> mid;
  std::vector<Vec3> after;
  for (int s = 0; s < 150; ++s) {
    sim.step();
    for (size_t j = 0; j < sim.world().joints().size(); ++j) worstGap = std::max(worstGap, sim.world().jointGap(j));
    if (s == 100) mid = sim.snapshot();
  }
  after = sim.surfacePositions();
  const SimMeasures m = sim.measure();
  double lowest = 1e9;
  for (const Vec3& x : after) lowest = std::min(lowest, x.y());
  std::printf("fish: centre of mass %.3f -> %.3f m, momentum %.3g, lowest surface point %.4f m, %d inverted tets, worst joint gap %.4f m\n",
              start, m.centerOfMass.y(), m.linearMomentum.norm(), lowest, m.invertedTets, worstGap);
  EXPECT_LT(m.centerOfMass.y(), start - 0.1) << "it fell";
  EXPECT_GT(lowest, -0.02) << "and stays on the ground";
  EXPECT_LT(m.kineticEnergy, 1e-3) << "at rest after 2.5 s";
  EXPECT_EQ(m.invertedTets, 0);
  EXPECT_LT(worstGap, 0.02) << "joints hold (the skin blends across what is left)";
  // Restore and replay: identical.
  sim.restore(*mid);
  for (int s = 101; s < 150; ++s) sim.step();
  const std::vector<Vec3> again = sim.surfacePositions();
  ASSERT_EQ(again.size(), after.size());
  for (size_t i = 0; i < after.size(); ++i) ASSERT_EQ(again[i], after[i]) << "vertex " << i;
  // The mode viewer moves only where that body reaches.
  const std::vector<Vec3> rest = sim.modeShape(3, 0, 0.0), bent = sim.modeShape(3, 0, 0.05);
  double headMoved = 0, tailMoved = 0;
  for (size_t i = 0; i < rest.size(); ++i) {
    const double d = (bent[i] - rest[i]).norm();
    if (rest[i].x() > 0.15) headMoved = std::max(headMoved, d);
    if (rest[i].x() < -0.25) tailMoved = std::max(tailMoved, d);
  }
  EXPECT_GT(tailMoved, 1e-3);
  EXPECT_EQ(headMoved, 0.0);
  EXPECT_THROW(sim.modeShape(3, 6, 0.1), InputError);
}

TEST(Sheth2015Simulation, AProjectWithoutWeightsSaysToRig) {
  Project p = examples::makeFishProject(0.03);
  p.volumes.clear();
  try {
    Sheth2015Simulation sim(p);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("rig"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace sinew::sheth2015
