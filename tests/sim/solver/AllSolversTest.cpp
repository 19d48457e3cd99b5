// The four solvers through the shared interface (solver/Solvers.h), the same
// checks for each, as MuJoCo tests every integrator: the rest pose is an
// equilibrium, momentum is kept without external forces, results do not
// depend on the thread count, and a bad parameter is refused by name.
// A coarse example humanoid with a cage, a conforming mesh and one muscle.
#include "TestUtil.h"

#include "examples/Humanoid.h"
#include "examples/ViperScenes.h"
#include "rig/RigBuild.h"
#include "solver/Solvers.h"
#include "viper/Viperize.h"

namespace sinew {
namespace {

const Project& scene() {
  static const Project p = [] {
    HumanoidOptions o;
    o.gridSpacing = 0.06;
    Project q = makeHumanoidProject(o);
    RigBuildOptions r;
    r.regions = true;
    r.cageNodes = 600;
    r.standOnGround = false;
    applyRigBuild(q, buildRig(q, 0, r));
    viper::AddMuscleOptions m;
    m.name = "biceps";
    m.originBone = "LeftArm";
    m.insertionBone = "LeftForeArm";
    viper::addMuscle(q, m);
    viper::viperizeBody(q, "biceps", {});
    return q;
  }();
  return p;
}

// No gravity, no ground: nothing outside the character acts on it.
std::unique_ptr<Simulation> isolated(SolverKind kind, const SolverParams& params = {}, const Project& project = scene()) {
  std::unique_ptr<Simulation> sim = makeSimulation(project, kind, params);
  SimToggles t = sim->toggles();
  t.gravity = false;
  t.contact = false;
  sim->setToggles(t);
  return sim;
}

void runFor(Simulation& sim, double seconds) {
  const double end = sim.time() + seconds;
  while (sim.time() < end - 1e-12) sim.step();
}

double largestMove(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
  double d = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) d = std::max(d, (a[i] - b[i]).norm());
  return d;
}

class AllSolvers : public ::testing::TestWithParam<SolverKind> {};

TEST_P(AllSolvers, TheRestPoseIsAnEquilibrium) {
  auto sim = isolated(GetParam());
  const std::vector<Vec3> rest = sim->surfacePositions();
  ASSERT_FALSE(rest.empty());
  runFor(*sim, 0.25);
  EXPECT_LT(largestMove(rest, sim->surfacePositions()), 1e-4) << sim->solverName();
  EXPECT_LT(sim->measure().kineticEnergy, 1e-6) << sim->solverName();
}

// VIPER's muscle hangs from bones the skeleton holds still (external
// constraints): its free body is an octopus.
TEST_P(AllSolvers, MomentumIsKeptWithoutExternalForces) {
  static const Project octopus = examples::makeOctopusProject(1);
  auto sim = isolated(GetParam(), {}, GetParam() == SolverKind::Viper ? octopus : scene());
  // A pull on one vertex for a moment (an external force), then free.
  Grab g;
  g.vertex = 0;
  g.target = sim->surfacePositions()[0] + Vec3(0.05, 0.02, 0.0);
  sim->setGrab(g);
  runFor(*sim, 0.05);
  sim->setGrab(std::nullopt);
  sim->step();
  const SimMeasures after = sim->measure();
  ASSERT_GT(after.linearMomentum.norm(), 1e-6) << sim->solverName() << ": the pull moved nothing";
  runFor(*sim, 0.2);
  const SimMeasures later = sim->measure();
  if (GetParam() == SolverKind::Viper) {
    // VIPER's Jacobi iterations average each node's corrections over its
    // constraints (Angles et al. 2019, eq. 28), which does not keep momentum:
    // measured here, a third of it is lost in 0.2 s. What holds is that
    // nothing is gained (docs/WORK-IN-PROGRESS.md, issue 25).
    EXPECT_LE(later.linearMomentum.norm(), 1.01 * after.linearMomentum.norm())
        << after.linearMomentum.transpose() << " -> " << later.linearMomentum.transpose();
    return;
  }
  EXPECT_LT((later.linearMomentum - after.linearMomentum).norm(), 1e-3 * after.linearMomentum.norm() + 1e-9)
      << sim->solverName() << ": " << after.linearMomentum.transpose() << " -> " << later.linearMomentum.transpose();
}

TEST_P(AllSolvers, ResultsDoNotDependOnTheThreadCount) {
  const SolverKind kind = GetParam();
  bool threaded = false;
  for (const ParamSpec& p : solverParams(kind)) threaded |= p.name == "threads";
  if (!threaded) GTEST_SKIP() << solverKindName(kind) << " runs on one thread";
  auto one = isolated(kind, {{"threads", 1}});
  auto two = isolated(kind, {{"threads", 2}});
  for (Simulation* s : {one.get(), two.get()}) {
    SimToggles t = s->toggles();
    t.gravity = true;  // something to compute
    t.contact = true;
    s->setToggles(t);
    runFor(*s, 0.1);
  }
  EXPECT_EQ(largestMove(one->surfacePositions(), two->surfacePositions()), 0.0) << solverKindName(kind);
}

TEST_P(AllSolvers, ABadParameterIsRefusedByName) {
  const SolverKind kind = GetParam();
  auto refused = [&](const SolverParams& params, const std::string& needle) {
    try {
      makeSimulation(scene(), kind, params);
    } catch (const InputError& e) {
      return std::string(e.what()).find(needle) != std::string::npos ? ::testing::AssertionSuccess()
                                                                      : ::testing::AssertionFailure() << e.what();
    }
    return ::testing::AssertionFailure() << "accepted";
  };
  EXPECT_TRUE(refused({{"dt", std::nan("")}}, "dt: must be a finite number"));
  EXPECT_TRUE(refused({{"dt", -1.0}}, "dt: -1 is out of range"));
  EXPECT_TRUE(refused({{"stiffness", 1.0}}, "stiffness: is not a parameter of the"));
  for (const ParamSpec& p : solverParams(kind)) {
    EXPECT_GE(p.defaultValue, p.min) << p.name;
    EXPECT_LE(p.defaultValue, p.max) << p.name;
    EXPECT_FALSE(p.help.empty()) << p.name;
    if (p.integer) {
      EXPECT_TRUE(refused({{p.name, p.min + 0.5}}, p.name + ": must be a whole number"));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, AllSolvers, ::testing::ValuesIn(kSolverKinds),
                         [](const ::testing::TestParamInfo<SolverKind>& i) { return std::string(solverKindName(i.param)); });

TEST(SolverRegistry, NamesRoundTrip) {
  for (SolverKind k : kSolverKinds) EXPECT_EQ(solverKindFromName(solverKindName(k)), k);
  EXPECT_FALSE(solverKindFromName("bullet"));
}

}  // namespace
}  // namespace sinew
