// The Li, Liu and Kavan 2019 solver checked physically: exact rigidity, joints
// that hold (Fig. 8), convergence to a rigid-body integrator as dt shrinks
// (Fig. 9), the locking of "rigid by stiffness" that the method avoids
// (Fig. 6), conservation of linear momentum, contact, and bad input.
#include "../../PlotSvg.h"
#include "core/Error.h"
#include "examples/Bars.h"
#include "li2019/Li2019.h"
#include "li2019/Li2019Simulation.h"
#include "io/AssimpImport.h"
#include "io/ProjectFile.h"
#include "io/TetFiles.h"

#include <filesystem>

#include <gtest/gtest.h>

#include <Eigen/SVD>

#include <cmath>
#include <cstdio>
#include <random>

namespace sinew::li2019 {
namespace {

using examples::GridBox;
using test::Plot;
using test::PlotSeries;

Input input(const examples::BarScene& s) { return {s.mesh, s.joints.bones, s.joints.joints}; }

// 14 x 5 x 5 nodes, 1,248 tets: two bones of 5 cells with a cell of flesh between.
GridBox smallBar() {
  GridBox b;
  b.size = Vec3(1.0, 0.3, 0.3);
  b.cellsX = 13;
  b.cellsY = b.cellsZ = 4;
  return b;
}

Settings floating() {
  Settings s;
  s.gravity = Vec3::Zero();
  s.ground = false;
  s.threads = 1;
  return s;
}

// The rotation that best maps a bone's rest nodes onto `x` (mass-weighted).
Mat3 fittedRotation(const Li2019Model& m, const Bone& b, const std::vector<Vec3>& x) {
  Vec3 c = Vec3::Zero();
  for (int32_t i : b.nodes) c += m.nodeMass[size_t(i)] * x[size_t(i)];
  c /= b.mass;
  Mat3 h = Mat3::Zero();
  for (int32_t i : b.nodes) h += m.nodeMass[size_t(i)] * (x[size_t(i)] - c) * (m.restNodes[size_t(i)] - b.restCentroid).transpose();
  const Eigen::JacobiSVD<Mat3> svd(h, Eigen::ComputeFullU | Eigen::ComputeFullV);
  Mat3 u = svd.matrixU();
  if ((u * svd.matrixV().transpose()).determinant() < 0) u.col(2) *= -1;
  return u * svd.matrixV().transpose();
}

// The rest state lifted by `lift` and moving rigidly: v = linear + spin x x.
Li2019State thrown(const Li2019Model& m, double lift, const Vec3& linear, const Vec3& spin) {
  Li2019State s = restState(m);
  for (size_t i = 0; i < s.x.size(); ++i) {
    s.x[i].y() += lift;
    s.v[i] = linear + spin.cross(s.x[i]);
  }
  for (BonePose& b : s.bones) b.centroid.y() += lift;
  return s;
}

double angleBetween(const Mat3& a, const Mat3& b) { return Eigen::AngleAxisd(a.transpose() * b).angle(); }

// Bones of exactly rigid bodies keep every distance between their nodes;
// the joint holds; the bar lands on the ground and stays above it.
TEST(Li2019, BonesStayExactlyRigidAndTheJointHolds) {
  const auto model = buildLi2019Model(input(examples::barScene(smallBar())));
  ASSERT_EQ(model->bones.size(), 2u);
  ASSERT_EQ(model->joints.size(), 1u);
  EXPECT_EQ(model->reducedSize, int32_t(model->nodeCount() - model->bones[0].nodes.size() - model->bones[1].nodes.size() + 8));
  Settings settings;
  settings.threads = 1;
  Li2019Solver solver(model, settings);
  const Li2019State s = thrown(*model, 0.6, Vec3(0.5, 1.0, 0), Vec3(1, 3, 2));  // tumbling
  solver.setState(s);
  double worstDistance = 0, worstJoint = 0, lowest = 1;
  for (int step = 0; step < 60; ++step) {
    const StepStats& st = solver.step();
    worstJoint = std::max(worstJoint, st.jointError);
    const auto& x = solver.state().x;
    for (const Bone& b : model->bones)
      for (size_t a = 0; a < b.nodes.size(); a += 7)
        for (size_t c = a + 1; c < b.nodes.size(); c += 5) {
          const size_t i = size_t(b.nodes[a]), j = size_t(b.nodes[c]);
          const double rest = (model->restNodes[i] - model->restNodes[j]).norm();
          worstDistance = std::max(worstDistance, std::abs((x[i] - x[j]).norm() - rest) / rest);
        }
    for (const Vec3& p : x) lowest = std::min(lowest, p.y());
  }
  std::printf("worst relative distance change %.3g, worst joint gap %.3g m, lowest node %.4f m\n", worstDistance,
              worstJoint, lowest);
  EXPECT_LT(worstDistance, 1e-9);
  EXPECT_LT(worstJoint, 1e-8 * model->bones[0].size);
  EXPECT_GT(lowest, -0.01) << "the ground holds the bar";
  EXPECT_LT(lowest, 0.05) << "it landed";
}

// Contact takes energy out and never puts it in: dropped tumbling from 0.6 m,
// the bar's kinetic plus gravitational energy never exceeds its start, and
// it does not bounce back up.
TEST(Li2019, LandingNeverGainsEnergy) {
  const auto model = buildLi2019Model(input(examples::chainScene(4, [] {
    GridBox b = smallBar();
    b.cellsX = 23;
    b.size.x() = 1.6;
    return b;
  }())));
  Settings settings;
  settings.threads = 1;
  Li2019Solver solver(model, settings);
  const Li2019State s = thrown(*model, 0.6, Vec3::Zero(), Vec3(0, 0, 1.5));
  solver.setState(s);
  auto energy = [&](double& comY) {
    double e = 0, y = 0;
    for (size_t i = 0; i < model->nodeCount(); ++i) {
      const double m = model->nodeMass[i];
      e += 0.5 * m * solver.state().v[i].squaredNorm() + m * 9.81 * solver.state().x[i].y();
      y += m * solver.state().x[i].y();
    }
    comY = y / model->totalMass;
    return e;
  };
  double comY = 0;
  const double e0 = energy(comY), start = comY;
  double worst = -1e9;
  bool touched = false;
  std::vector<double> heights;
  for (int step = 0; step < 90; ++step) {
    const StepStats& st = solver.step();
    const double e = energy(comY);
    worst = std::max(worst, e - e0);
    touched = touched || st.contacts > 0;
    heights.push_back(comY);
  }
  const auto lowest = std::min_element(heights.begin(), heights.end());
  const double rebound = *std::max_element(lowest, heights.end()) - *lowest;
  std::printf("energy above the start at worst %.4g J (start %.2f J); centre of mass from %.3f m down to %.3f, "
              "rebound %.3f m\n", worst, e0, start, *lowest, rebound);
  ASSERT_TRUE(touched);
  EXPECT_LT(worst, 1e-3 * std::abs(e0) + 1e-6);
  EXPECT_LT(rebound, 0.2 * (start - *lowest)) << "no bounce to a fifth of the drop";
}

// Fig. 8: within one step the joint error falls geometrically over the
// constraint iterations and ends below 1e-8 of the bone's size.
TEST(Li2019, Fig8JointErrorFallsGeometrically) {
  const auto model = buildLi2019Model(input(examples::chainScene(4, [] {
    GridBox b = smallBar();
    b.cellsX = 23;
    return b;
  }())));
  ASSERT_EQ(model->joints.size(), 3u);
  Li2019Solver solver(model, floating());
  Li2019State s = restState(*model);
  // Each bone spun its own way: the unconstrained step tears the joints apart.
  std::mt19937_64 rng(7);
  std::normal_distribution<double> g(0.0, 4.0);
  std::vector<Vec3> spin(model->bones.size());
  for (Vec3& w : spin) w = Vec3(g(rng), g(rng), g(rng));
  for (size_t i = 0; i < s.x.size(); ++i) {
    const int32_t k = model->nodeBone[i];
    if (k >= 0) s.v[i] = spin[size_t(k)].cross(s.x[i] - model->bones[size_t(k)].restCentroid);
  }
  solver.setState(s);
  const StepStats& st = solver.step();
  ASSERT_EQ(st.jointErrors.size(), 20u);
  const std::vector<double>& first = st.jointErrors.front();
  const double bone = model->bones[0].size;
  ASSERT_GE(first.size(), 3u);
  std::printf("joint error (sum of squared gaps) per constraint iteration:");
  for (double e : first) std::printf(" %.3g", e);
  std::printf("\n");
  EXPECT_GT(std::sqrt(first.front()), 1e-3 * bone) << "the joints were torn apart before the constraint step";
  for (size_t i = 1; i < first.size(); ++i) {
    if (std::sqrt(first[i - 1]) > 1e-12 * bone) EXPECT_LT(first[i], 0.1 * first[i - 1]) << "iteration " << i;
  }
  EXPECT_LE(std::sqrt(first.back()), 1e-8 * bone);
  EXPECT_LE(int(first.size()) - 1, 10) << "usually fewer than 10 iterations";
  Plot plot{"Fig. 8: joint error over constraint iterations (4 bones, 3 joints)", "constraint iteration",
            "log10 (sum of squared joint gaps / bone size^2)", {}, {}, false};
  const char* colors[] = {"#1f77b4", "#d62728", "#2ca02c"};
  for (size_t loop : {size_t(0), size_t(1), size_t(19)}) {
    PlotSeries series{"local/global iteration " + std::to_string(loop + 1), {}, {}, colors[loop == 0 ? 0 : loop == 1 ? 1 : 2]};
    for (size_t i = 0; i < st.jointErrors[loop].size(); ++i) {
      series.x.push_back(double(i));
      series.y.push_back(std::log10(std::max(st.jointErrors[loop][i] / (bone * bone), 1e-40)));
    }
    plot.series.push_back(series);
  }
  plot.hLines.push_back({-16, "(1e-8 bone)^2"});
  EXPECT_TRUE(test::writePlotSvg(plot, test::figurePath("li2019_fig8.svg")));
}

// Fig. 9: a single fully rigid bar tumbling freely converges to a rigid-body
// integrator (RK4 of Euler's equations at a fine step) as dt shrinks.
TEST(Li2019, Fig9RigidBarConvergesToARigidBodyIntegrator) {
  const examples::BarScene scene = examples::rigidBarScene(smallBar());
  const Vec3 omega0(0.4, 2.0, 1.0);  // rad/s: about no principal axis (the bar precesses)
  const double duration = 3.0;
  // Reference: torque-free rigid body, world angular momentum L constant,
  // omega = R I^-1 R^T L, RK4 on the quaternion at 1e-4 s.
  const auto reference = [&](const Li2019Model& m) {
    const Bone& b = m.bones[0];
    const Mat3 inertiaInverse = b.inertia.inverse();
    const Vec3 L = b.inertia * omega0;  // R = I at t = 0
    auto rate = [&](const Quat& q) {
      const Mat3 R = q.normalized().toRotationMatrix();
      const Vec3 w = R * inertiaInverse * R.transpose() * L;
      const Quat dq = Quat(0, w.x(), w.y(), w.z()) * q;
      return Eigen::Vector4d(0.5 * dq.coeffs());
    };
    Quat q = Quat::Identity();
    const double h = 1e-4;
    for (int i = 0; i < int(std::lround(duration / h)); ++i) {
      const Eigen::Vector4d k1 = rate(q);
      const Eigen::Vector4d k2 = rate(Quat(Eigen::Vector4d(q.coeffs() + 0.5 * h * k1)));
      const Eigen::Vector4d k3 = rate(Quat(Eigen::Vector4d(q.coeffs() + 0.5 * h * k2)));
      const Eigen::Vector4d k4 = rate(Quat(Eigen::Vector4d(q.coeffs() + h * k3)));
      q = Quat(Eigen::Vector4d(q.coeffs() + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4))).normalized();
    }
    return q.toRotationMatrix();
  };
  auto run = [&](double dt, double& deviation) {
    ModelOptions o;
    o.dt = dt;
    const auto model = buildLi2019Model(input(scene), o);
    Settings st = floating();
    st.iterations = 5;
    Li2019Solver solver(model, st);
    Li2019State s = restState(*model);
    for (size_t i = 0; i < s.x.size(); ++i) s.v[i] = omega0.cross(s.x[i] - model->bones[0].restCentroid);
    solver.setState(s);
    const int steps = int(std::lround(duration / dt));
    for (int i = 0; i < steps; ++i) solver.step();
    const Mat3 R = reference(*model);
    deviation = 0;
    for (size_t i = 0; i < s.x.size(); ++i) {
      const Vec3 expected = R * (model->restNodes[i] - model->bones[0].restCentroid) + model->bones[0].restCentroid;
      deviation = std::max(deviation, (solver.state().x[i] - expected).norm());
    }
  };
  double coarse = 0, fine = 0;
  run(0.01, coarse);
  run(0.001, fine);
  std::printf("largest node deviation from the rigid-body reference at t = 3 s: dt 0.01: %.4f m, dt 0.001: %.4f m\n",
              coarse, fine);
  EXPECT_LE(fine, coarse / 5);
  EXPECT_LT(fine, 0.05);
  // The convergence plot: the deviation against dt, with first order beside it.
  Plot plot{"Fig. 9: rigid bar vs a rigid-body integrator (RK4), deviation at t = 3 s", "log10 dt (s)",
            "log10 largest node deviation (m)", {}, {}, false};
  PlotSeries measured{"Li et al. 2019, one rigid bone (5 iterations)", {}, {}, "#1f77b4"};
  PlotSeries order{"first order (slope 1)", {}, {}, "#7f7f7f", true};
  for (double dt : {0.02, 0.01, 0.005, 0.002, 0.001}) {
    double d = dt == 0.01 ? coarse : dt == 0.001 ? fine : 0;
    if (d == 0) run(dt, d);
    measured.x.push_back(std::log10(dt));
    measured.y.push_back(std::log10(d));
    order.x.push_back(std::log10(dt));
    order.y.push_back(std::log10(fine * dt / 0.001));
  }
  plot.series = {measured, order};
  EXPECT_TRUE(test::writePlotSvg(plot, test::figurePath("li2019_fig9.svg")));
}

// Fig. 6: bent at the joint and let go, the bar straightens at once with
// exact rigid bones; with the bones merely 1e4 times stiffer than the flesh
// (plain projective dynamics, 20 iterations per step) the global step cannot
// turn the stiff tets, the bones' rotation locks and the bar creeps back over
// a second or more.
TEST(Li2019, Fig6StiffBonesLockWhereExactBonesRotate) {
  const examples::BarScene scene = examples::barScene(smallBar());
  const double bend = 45 * M_PI / 180;
  const Mat3 turn = Eigen::AngleAxisd(bend, Vec3::UnitZ()).toRotationMatrix();
  auto run = [&](RigidMode mode, std::vector<double>& angles) {
    ModelOptions o;
    o.rigid = mode;
    o.youngsModulus = 2e4;
    const auto model = buildLi2019Model(input(scene), o);
    Settings settings = floating();
    Li2019Solver solver(model, settings);
    Li2019State s = restState(*model);
    for (size_t i = 0; i < s.x.size(); ++i)
      if (model->restNodes[i].x() > 0) s.x[i] = turn * model->restNodes[i];
    s.bones[1].rotation = turn;
    s.bones[1].centroid = turn * model->bones[1].restCentroid;
    solver.setState(s);
    for (int step = 0; step <= 45; ++step) {
      if (step > 0) solver.step();
      const auto& x = solver.state().x;
      angles.push_back(angleBetween(fittedRotation(*model, model->bones[0], x), fittedRotation(*model, model->bones[1], x)) *
                       180 / M_PI);
    }
  };
  std::vector<double> exact, stiff;
  run(RigidMode::Exact, exact);
  run(RigidMode::Stiffness, stiff);
  // Time until the bend first falls to half.
  auto halfway = [](const std::vector<double>& a) {
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i] <= 0.5 * a.front()) return i / 30.0;
    return 1e9;
  };
  std::printf("bend falls to half in %.3f s with exact bones, %.3f s with stiff bones; at 0.2 s: %.1f vs %.1f deg\n",
              halfway(exact), halfway(stiff), exact[6], stiff[6]);
  EXPECT_NEAR(exact.front(), 45, 0.5);
  EXPECT_NEAR(stiff.front(), 45, 0.5);
  EXPECT_LT(halfway(exact), 0.2) << "the exact bones rotate back quickly";
  EXPECT_GT(stiff[6], 40) << "the stiff bones have hardly turned at 0.2 s (locking)";
  EXPECT_GT(halfway(stiff), 5 * halfway(exact)) << "plain projective dynamics converges far slower";
  Plot plot{"Fig. 6: bend angle between the two bones after release (dt 1/30 s, 20 iterations)", "time (s)",
            "bend (deg)", {}, {}, true};
  PlotSeries a{"exact rigid bones (Li et al. 2019)", {}, {}, "#1f77b4"}, b{"bones 1e4 x stiffer (plain PD)", {}, {}, "#d62728"};
  for (size_t i = 0; i < exact.size(); ++i) a.x.push_back(i / 30.0), a.y.push_back(exact[i]);
  for (size_t i = 0; i < stiff.size(); ++i) b.x.push_back(i / 30.0), b.y.push_back(stiff[i]);
  plot.series = {a, b};
  EXPECT_TRUE(test::writePlotSvg(plot, test::figurePath("li2019_fig6.svg")));
}

// Attachments: the bar pinned at its left end hangs there under gravity
// while the rest swings down; moved pin targets carry the end along; bad
// pins are refused by node.
TEST(Li2019, PinnedNodesHoldTheBarWhereTheirTargetsAre) {
  const examples::BarScene scene = examples::barScene(smallBar());
  ModelOptions o;
  double left = std::numeric_limits<double>::infinity();
  for (const Vec3& p : scene.mesh.nodes) left = std::min(left, p.x());
  for (size_t i = 0; i < scene.mesh.nodes.size(); ++i)
    if (scene.mesh.nodes[i].x() < left + 1e-9) o.pinnedNodes.push_back(int32_t(i));
  o.pinStiffness = 1e4;  // one face holds the whole bar's moment: stiff pins
  const auto model = buildLi2019Model(input(scene), o);
  Settings settings = floating();
  settings.gravity = Vec3(0, -9.81, 0);
  Li2019Solver solver(model, settings);
  double drift = 0, fell = 0;
  for (int step = 0; step < 30; ++step) {
    solver.step();
    for (int32_t i : o.pinnedNodes)
      drift = std::max(drift, (solver.state().x[size_t(i)] - model->restNodes[size_t(i)]).norm());
    fell = std::max(fell, model->bones[1].restCentroid.y() - solver.state().bones[1].centroid.y());
  }
  std::printf("pinned end drifted %.4f m while the free end fell %.3f m\n", drift, fell);
  EXPECT_LT(drift, 0.005);
  EXPECT_GT(fell, 0.1);
  // Move the pins 0.2 m along x: the end follows within a second.
  Settings moved = settings;
  for (int32_t i : o.pinnedNodes) moved.pinTargets.push_back(model->restNodes[size_t(i)] + Vec3(0.2, 0, 0));
  solver.setSettings(moved);
  for (int step = 0; step < 30; ++step) solver.step();
  double lag = 0;
  for (size_t k = 0; k < o.pinnedNodes.size(); ++k)
    lag = std::max(lag, (solver.state().x[size_t(o.pinnedNodes[k])] - moved.pinTargets[k]).norm());
  EXPECT_LT(lag, 0.02);
  Settings wrong = settings;
  wrong.pinTargets.assign(1, Vec3::Zero());
  solver.setSettings(wrong);
  EXPECT_THROW(solver.step(), std::invalid_argument);
  ModelOptions bad;
  bad.pinnedNodes = {int32_t(scene.mesh.nodes.size())};
  try {
    buildLi2019Model(input(scene), bad);
    FAIL() << "a pin outside the mesh";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("pinned node " + std::to_string(scene.mesh.nodes.size())), std::string::npos)
        << e.what();
  }
}

// A hinge keeps the two bones' axes together while they turn about it; the
// same start with a ball joint tilts the axis away.
TEST(Li2019, HingeKeepsItsAxisAndTurnsAboutIt) {
  auto run = [](bool hinge, double& misalignment, double& bend) {
    examples::BarScene scene = examples::barScene(smallBar());
    if (hinge) scene.joints.joints[0].hingeAxis = Vec3::UnitZ();
    const auto model = buildLi2019Model(input(scene));
    EXPECT_EQ(model->joints[0].hinge, hinge);
    Li2019Solver solver(model, floating());
    Li2019State s = restState(*model);
    const Vec3 pivot = scene.joints.joints[0].position, spin(1.5, 1.0, 3.0);
    for (size_t i = 0; i < s.x.size(); ++i)
      if (model->restNodes[i].x() > pivot.x()) s.v[i] = spin.cross(model->restNodes[i] - pivot);
    solver.setState(s);
    misalignment = bend = 0;
    for (int step = 0; step < 20; ++step) {
      const StepStats& st = solver.step();
      EXPECT_LE(st.jointError, 1e-8 * model->size);
      const Li2019State& now = solver.state();
      misalignment = std::max(misalignment, (now.bones[0].rotation * Vec3::UnitZ() - now.bones[1].rotation * Vec3::UnitZ()).norm());
      const Mat3 relative = now.bones[0].rotation.transpose() * now.bones[1].rotation;
      bend = std::max(bend, std::abs(std::atan2(relative(1, 0), relative(0, 0))));
    }
  };
  double hingeTilt = 0, hingeBend = 0, ballTilt = 0, ballBend = 0;
  run(true, hingeTilt, hingeBend);
  run(false, ballTilt, ballBend);
  std::printf("hinge: axis misalignment <= %.2g, largest bend %.3f rad; ball: misalignment %.3f, largest bend %.3f rad\n", hingeTilt,
              hingeBend, ballTilt, ballBend);
  EXPECT_LE(hingeTilt, 1e-8);
  EXPECT_GT(hingeBend, 0.05) << "it turns about its axis";
  EXPECT_GT(ballTilt, 0.02) << "a ball joint lets the same start tilt the axis";
}

// Kinematically driven bones. (1) Galilean invariance: the whole bar moving
// at v with bone 0 driven along at v keeps every node at v (the global step
// with the driven rows held is exact, not a correction afterwards). (2) A
// pendulum: bone 0 held in the air, bone 1 falls and swings about the joint,
// which holds; the driven bone's nodes are exactly where they are told.
TEST(Li2019, DrivenBonesFollowTheirTargetsAndTheRestFollowsPhysically) {
  const examples::BarScene scene = examples::barScene(smallBar());
  const auto model = buildLi2019Model(input(scene));
  {
    Li2019Solver solver(model, floating());
    const Vec3 v(0.7, -0.2, 0.3);
    solver.setState(thrown(*model, 0.0, v, Vec3::Zero()));
    double worst = 0;
    for (int step = 0; step < 10; ++step) {
      BonePose target = solver.state().bones[0];
      target.centroid += v * model->options.dt;
      std::vector<std::optional<BonePose>> targets(model->bones.size());
      targets[0] = target;
      solver.setBoneTargets(targets);
      solver.step();
      for (const Vec3& vi : solver.state().v) worst = std::max(worst, (vi - v).norm());
    }
    std::printf("uniform motion with a driven bone: largest velocity error %.3g m/s\n", worst);
    EXPECT_LT(worst, 1e-9);
  }
  {
    Settings settings = floating();
    settings.gravity = Vec3(0, -9.81, 0);
    Li2019Solver solver(model, settings);
    solver.setState(restState(*model));
    const BonePose held = solver.state().bones[0];
    std::vector<std::optional<BonePose>> targets(model->bones.size());
    targets[0] = held;
    solver.setBoneTargets(targets);
    const Bone& free = model->bones[1];
    double lowest = free.restCentroid.y(), worstGap = 0, worstHeld = 0;
    for (int step = 0; step < 30; ++step) {
      const StepStats& st = solver.step();
      worstGap = std::max(worstGap, st.jointError);
      lowest = std::min(lowest, solver.state().bones[1].centroid.y());
      for (int32_t i : model->bones[0].nodes)
        worstHeld = std::max(worstHeld, (solver.state().x[size_t(i)] - model->restNodes[size_t(i)]).norm());
    }
    const double arm = (free.restCentroid - model->joints[0].localA - model->bones[0].restCentroid).norm();
    std::printf("pendulum: free bone's centroid fell %.3f m (arm %.3f m), joint gap <= %.2g m, held bone moved %.2g m\n",
                free.restCentroid.y() - lowest, arm, worstGap, worstHeld);
    EXPECT_GT(free.restCentroid.y() - lowest, 0.5 * arm) << "the free bone should swing down";
    EXPECT_LT(free.restCentroid.y() - lowest, 1.3 * arm) << "but stay on its arm (the flesh stretches a little)";
    EXPECT_LE(worstGap, 1e-8 * model->size);
    EXPECT_LE(worstHeld, 1e-12);
    EXPECT_THROW(solver.setBoneTargets(std::vector<std::optional<BonePose>>(1)), std::invalid_argument);
  }
  ModelOptions stiff;
  stiff.rigid = RigidMode::Stiffness;
  Li2019Solver plain(buildLi2019Model(input(scene), stiff), floating());
  std::vector<std::optional<BonePose>> targets(model->bones.size());
  targets[0] = BonePose{};
  EXPECT_THROW(plain.setBoneTargets(targets), std::invalid_argument);
}

// No external force: the total linear momentum stays what it was (elastic
// forces and joint impulses come in opposite pairs).
TEST(Li2019, LinearMomentumIsConservedWithoutExternalForces) {
  const auto model = buildLi2019Model(input(examples::barScene(smallBar())));
  Li2019Solver solver(model, floating());
  Li2019State s = restState(*model);
  std::mt19937_64 rng(3);
  std::normal_distribution<double> g(0.0, 1.0);
  for (Vec3& v : s.v) v = Vec3(g(rng), g(rng), g(rng));
  solver.setState(s);
  auto momentum = [&] {
    Vec3 p = Vec3::Zero();
    for (size_t i = 0; i < model->nodeCount(); ++i) p += model->nodeMass[i] * solver.state().v[i];
    return p;
  };
  for (int i = 0; i < 3; ++i) solver.step();  // velocities now consistent with the rigid bones
  const Vec3 p0 = momentum();
  double worst = 0;
  for (int i = 0; i < 60; ++i) {
    solver.step();
    worst = std::max(worst, (momentum() - p0).norm());
  }
  const double scale = model->totalMass * 1.0;  // kg x (1 m/s)
  std::printf("|P| %.4g kg m/s, largest change %.3g\n", p0.norm(), worst);
  EXPECT_LT(worst, 1e-9 * scale);
}

// The bar as a project (what `sinew-cli example bar` writes) gives the
// scene back through the project's skeleton and conforming volume; the
// Simulation interface shows the surface and joints where they are, restores
// snapshots exactly, and its grab spring pulls the grabbed vertex.
TEST(Li2019, BarProjectRunsBehindTheSimulationInterface) {
  const examples::BarScene scene = examples::barScene(smallBar());
  const Project project = examples::makeBarProject(scene, "bar", 0.5);
  const Input in = inputFromProject(project);
  ASSERT_EQ(in.bones, scene.joints.bones);
  ASSERT_EQ(in.joints.size(), 1u);
  EXPECT_LT((in.joints[0].position - (scene.joints.joints[0].position + Vec3(0, 0.5, 0))).norm(), 1e-12);
  EXPECT_EQ(in.joints[0].parentBone, 0);
  EXPECT_EQ(in.joints[0].childBone, 1);
  EXPECT_THROW(inputFromProject(Project{}), InputError);

  Settings settings = floating();
  Li2019Simulation sim(project, ModelOptions{}, settings);
  EXPECT_EQ(sim.solverName(), "li2019");
  EXPECT_EQ(sim.surfaceMesh(), project.meshes[0].id);
  const std::vector<Vec3> surface = sim.surfacePositions();
  ASSERT_EQ(surface.size(), project.meshes[0].mesh.positions.size());
  for (size_t v = 0; v < surface.size(); ++v) EXPECT_LT((surface[v] - project.meshes[0].mesh.positions[v]).norm(), 1e-12);
  const std::vector<Transform> rest = project.skeleton->skeleton.worldRest(), joints = sim.jointPoses();
  ASSERT_EQ(joints.size(), rest.size());
  for (size_t j = 0; j < rest.size(); ++j) EXPECT_LT((joints[j].translation - rest[j].translation).norm(), 1e-12);

  // Pull the vertex at the bar's +x end upward for 0.5 s.
  size_t end = 0;
  for (size_t v = 0; v < surface.size(); ++v)
    if (surface[v].x() > surface[end].x() + 1e-9 || (std::abs(surface[v].x() - surface[end].x()) < 1e-9 && surface[v].y() > surface[end].y())) end = v;
  const std::unique_ptr<SimSnapshot> start = sim.snapshot();
  sim.setGrab(Grab{int32_t(end), surface[end] + Vec3(0, 0.3, 0), 0});
  for (int i = 0; i < 15; ++i) sim.step();
  const double raised = sim.surfacePositions()[end].y() - surface[end].y();
  const std::vector<Transform> moved = sim.jointPoses();
  std::printf("grabbed end raised by %.3f m; the joint moved %.3f m\n", raised, (moved[1].translation - rest[1].translation).norm());
  EXPECT_GT(raised, 0.02) << "no other force acts (no gravity, no contact)";
  // The joint between the bones moves with them (it rides on bone 1).
  const BonePose& pose = sim.solver().state().bones[1];
  const Vec3 expected = pose.rotation * (rest[1].translation - sim.model().bones[1].restCentroid) + pose.centroid;
  EXPECT_LT((moved[1].translation - expected).norm(), 1e-9);
  const SimMeasures measures = sim.measure();
  EXPECT_GT(measures.kineticEnergy, 0);
  EXPECT_GT(measures.elasticEnergy, 0);
  sim.setGrab(std::nullopt);
  sim.restore(*start);
  EXPECT_EQ(sim.time(), 0);
  for (size_t v = 0; v < surface.size(); ++v) EXPECT_LT((sim.surfacePositions()[v] - surface[v]).norm(), 1e-12);
}

// The paper's model files: the bar written as .mesh + .joint and imported
// again gives the solver the same bones and joints.
TEST(Li2019, MeshAndJointFilesRoundTripIntoTheSolver) {
  const examples::BarScene scene = examples::barScene(smallBar());
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "sinew_li2019_files";
  std::filesystem::create_directories(dir);
  writeMedit((dir / "bar.mesh").string(), scene.mesh);
  writeJointFile((dir / "bar.joint").string(), scene.joints);
  Project project;
  Diagnostics diagnostics;
  addToProject(project, importFile((dir / "bar.mesh").string()), diagnostics);
  std::filesystem::remove_all(dir);
  const Input in = inputFromProject(project);
  EXPECT_EQ(in.mesh.tets, scene.mesh.tets);
  EXPECT_EQ(in.mesh.region, scene.mesh.region);
  ASSERT_EQ(in.bones, scene.joints.bones);
  ASSERT_EQ(in.joints.size(), 1u);
  EXPECT_LT((in.joints[0].position - scene.joints.joints[0].position).norm(), 1e-12);
  EXPECT_EQ(in.joints[0].parentBone, scene.joints.joints[0].parentBone);
  EXPECT_EQ(in.joints[0].childBone, scene.joints.joints[0].childBone);
  const auto model = buildLi2019Model(in);
  EXPECT_EQ(model->joints.size(), 1u);
  // A joint file whose joints loop is refused, naming the file's problem.
  JointFile loop = scene.joints;
  loop.joints.push_back({"back", Vec3::Zero(), 1, 0});
  EXPECT_THROW(skeletonFromJoints(loop, scene.mesh), InputError);
}

TEST(Li2019, BadInputNamesTheBoneOrJoint) {
  const examples::BarScene scene = examples::barScene(smallBar());
  auto expectError = [](const Input& in, const std::string& needle) {
    try {
      buildLi2019Model(in);
      ADD_FAILURE() << "accepted; expected an error mentioning " << needle;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  {
    Input in = input(scene);
    in.bones.push_back("ghost");  // a bone with no tets
    expectError(in, "bone 'ghost' has 0 nodes");
  }
  {
    Input in = input(scene);
    in.joints[0].position = Vec3(0.4, 2.0, 0);  // far from both bones
    expectError(in, "joint 'joint0' does not touch bone");
  }
  {
    Input in = input(scene);
    // The flesh cell between the bones becomes bone 0: the bones now share nodes.
    for (size_t t = 0; t < in.mesh.tets.size(); ++t) {
      Vec3 c = Vec3::Zero();
      for (int k = 0; k < 4; ++k) c += in.mesh.nodes[size_t(in.mesh.tets[t][k])] / 4;
      if (std::abs(c.x()) < 0.03 && std::abs(c.y()) < 0.07 && std::abs(c.z()) < 0.07) in.mesh.region[t] = 0;
    }
    expectError(in, "share node");
  }
  {
    Input in = input(scene);
    std::swap(in.mesh.tets[5][0], in.mesh.tets[5][1]);
    expectError(in, "tet 5 is inverted");
  }
}

// The warm start (Settings::warmStart): the iterations start from x + h v +
// h^2 a with the last step's acceleration instead of the inertial prediction
// y = x + h v + h^2 g. Converged, a step does not depend on where it
// started; with few iterations, a bar tumbling in the air (its nodes on
// curved paths that y extrapolates along straight lines) ends its step
// closer to the converged one. (On the ground it hardly matters: the
// contact forces are found afresh every step, from nothing.)
TEST(Li2019, AWarmStartLeavesTheConvergedStepAndHelpsFewIterations) {
  const auto model = buildLi2019Model(input(examples::barScene(smallBar())));
  Settings settle = floating();
  settle.iterations = 100;
  Li2019Solver solver(model, settle);
  solver.setState(thrown(*model, 0.6, Vec3(0.5, 1.0, 0), Vec3(1, 3, 2)));
  for (int step = 0; step < 10; ++step) solver.step();
  const Li2019State tumbling = solver.state();
  auto stepFrom = [&](int iterations, bool warm) {
    Settings s = settle;
    s.iterations = iterations;
    s.warmStart = warm;
    Li2019Solver one(model, s);
    one.setState(tumbling);
    one.step();
    return one.state().x;
  };
  auto distance = [](const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
    double d = 0;
    for (size_t i = 0; i < a.size(); ++i) d = std::max(d, (a[i] - b[i]).norm());
    return d;
  };
  const std::vector<Vec3> converged = stepFrom(300, false);
  for (int iterations : {1, 3, 5}) {
    const double cold = distance(stepFrom(iterations, false), converged);
    const double warm = distance(stepFrom(iterations, true), converged);
    std::printf("%d iteration(s): %.3g m from the converged step from y, %.3g m warm\n", iterations, cold, warm);
    EXPECT_LT(warm, 0.8 * cold) << iterations << " iteration(s)";
  }
  const double both = distance(stepFrom(300, true), converged);
  std::printf("300 iterations: the warm start's step is %.3g m from y's\n", both);
  EXPECT_LT(both, 1e-6) << "converged, the start does not matter";
}

}  // namespace
}  // namespace sinew::li2019
