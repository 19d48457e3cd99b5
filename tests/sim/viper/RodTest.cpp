// VIPER rods (Angles et al. 2019, Sections 3-6) checked physically: a rod
// held at both ends and stretched thins so that its volume stays (Fig. 5),
// compressed it bulges, a scale disturbance travels along a rod held at its
// length (Fig. 6), a free rod keeps its momentum, bad input is named.
#include "viper/Rod.h"

#include "core/Error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

namespace sinew::viper {
namespace {

constexpr double kPi = 3.14159265358979323846;

std::shared_ptr<const RodModel> straightRod(int nodes, double radius = 0.05) {
  RodInput in;
  in.name = "rod";
  for (int i = 0; i < nodes; ++i) {
    in.nodes.push_back(Vec3(double(i) / (nodes - 1), 0, 0));
    in.radii.push_back(radius);
  }
  return buildRodModel({in});
}

// Both ends pinned at `factor` times the rest length, settled (no gravity).
RodSolver heldAt(const std::shared_ptr<const RodModel>& m, double factor, int iterations) {
  RodSettings st;
  st.gravity = Vec3::Zero();
  st.iterations = iterations;
  st.damping = 0.05;
  st.pinned.assign(m->nodeCount(), 0);
  for (size_t i : {size_t(0), m->nodeCount() - 1}) st.pinned.at(i) = 1;
  RodSolver solver(m, st);
  RodState s = solver.state();
  for (Vec3& c : s.c) c.x() *= factor;
  solver.setState(s);
  for (int k = 0; k < 400; ++k) solver.step();
  return solver;
}

TEST(ViperRod, StretchedByHalfItThinsAndKeepsItsVolume) {
  const auto m = straightRod(21);
  const double rest = kPi * 0.05 * 0.05 * 1.0;
  const RodSolver stretched = heldAt(m, 1.5, 100);
  const double ratio = stretched.volume(0) / rest, mid = stretched.state().s[10];
  std::printf("stretched x1.5: volume ratio %.4f, mid scale %.4f (volume-exact: %.4f)\n", ratio, mid, 1 / std::sqrt(1.5));
  EXPECT_NEAR(stretched.length(0), 1.5, 1e-9) << "held by its ends";
  EXPECT_NEAR(ratio, 1.0, 0.02) << "Fig. 5: the volume stays";
  EXPECT_LT(mid, 0.85);
  const RodSolver squeezed = heldAt(m, 0.7, 100);
  const double ratio2 = squeezed.volume(0) / rest, mid2 = squeezed.state().s[10];
  std::printf("compressed x0.7: volume ratio %.4f, mid scale %.4f (volume-exact: %.4f)\n", ratio2, mid2, 1 / std::sqrt(0.7));
  EXPECT_NEAR(ratio2, 1.0, 0.04);
  EXPECT_GT(mid2, 1.1) << "it bulges";
  // With the paper's 10 iterations the compromise between the volume and the
  // radial term is not reached in a step (Jacobi, multipliers reset each
  // step): the rod keeps more of its radius.
  const RodSolver fewer = heldAt(m, 1.5, 10);
  std::printf("stretched x1.5 at 10 iterations: volume ratio %.4f\n", fewer.volume(0) / rest);
  EXPECT_GT(fewer.state().s[10], mid);
  EXPECT_LT(fewer.state().s[10], 1.0);
}

TEST(ViperRod, AScaleDisturbanceTravelsAlongARodHeldAtItsLength) {
  const auto m = straightRod(41);
  RodSettings st;
  st.gravity = Vec3::Zero();
  st.iterations = 20;
  st.dt = 1e-3;
  st.pinned.assign(m->nodeCount(), 0);
  for (size_t i : {size_t(0), m->nodeCount() - 1}) st.pinned.at(i) = 1;
  RodSolver solver(m, st);
  RodState s = solver.state();
  for (int i = 0; i < 6; ++i) s.s[size_t(i)] = 1 + 0.2 * std::exp(-i * i / 4.0);
  solver.setState(s);
  auto peak = [&] {
    int best = 0;
    double value = 0;
    for (int i = 0; i < 41; ++i)
      if (std::abs(solver.state().s[size_t(i)] - 1) > value) value = std::abs(solver.state().s[size_t(i)] - 1), best = i;
    return best;
  };
  std::vector<int> peaks;
  for (int k = 0; k < 160; ++k) {
    solver.step();
    if ((k + 1) % 40 == 0) peaks.push_back(peak());
  }
  std::printf("scale peak at nodes %d %d %d %d (t = 0.04 .. 0.16 s); length %.6f\n", peaks[0], peaks[1], peaks[2], peaks[3],
              solver.length(0));
  EXPECT_NEAR(solver.length(0), 1.0, 1e-9);
  EXPECT_GT(peaks.back(), peaks.front()) << "the disturbance moves away from where it started";
  EXPECT_GE(peaks.back(), 8);
}

TEST(ViperRod, AFreeRodKeepsItsMomentum) {
  const auto m = straightRod(11);
  RodSettings st;
  st.gravity = Vec3::Zero();
  RodSolver solver(m, st);
  RodState s = solver.state();
  for (size_t i = 0; i < s.c.size(); ++i) s.cDot[i] = Vec3(0.3, 1.0 - 0.2 * double(i), 0.1);  // moving and spinning
  for (double& v : s.s) v = 1.1;                                                            // and swollen
  solver.setState(s);
  auto momentum = [&] {
    Vec3 p = Vec3::Zero();
    for (size_t i = 0; i < m->nodeCount(); ++i) p += m->nodeMass[i] * solver.state().cDot[i];
    return p;
  };
  const Vec3 p0 = momentum();
  for (int k = 0; k < 120; ++k) solver.step();
  std::printf("linear momentum %.6f -> %.6f kg m/s\n", p0.norm(), momentum().norm());
  EXPECT_LT((momentum() - p0).norm(), 1e-9 * (1 + p0.norm()));
}

TEST(ViperRod, BadInputNamesTheRodAndNode) {
  RodInput one{"short", {Vec3::Zero()}, {0.1}, {}};
  EXPECT_THROW(buildRodModel({one}), InputError);
  RodInput flat{"flat", {Vec3::Zero(), Vec3::UnitX()}, {0.1, 0.0}, {}};
  try {
    buildRodModel({flat});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("rod 'flat': node 1"), std::string::npos) << e.what();
  }
  RodInput zero{"zero", {Vec3::Zero(), Vec3::Zero()}, {0.1, 0.1}, {}};
  EXPECT_THROW(buildRodModel({zero}), InputError);
}

}  // namespace
}  // namespace sinew::viper
