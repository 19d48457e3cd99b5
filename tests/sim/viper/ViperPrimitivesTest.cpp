// VIPER's building blocks (Angles et al. 2019) checked against brute force:
// the Hungarian assignment of the "combing" step (Section 8.1), pill
// distances and the pill-pill contact of eq. 30 (Section 7.2), and the
// scale-invariant shape matching of the bundles (Section 7.3).
#include "viper/Hungarian.h"
#include "viper/Pill.h"
#include "viper/ShapeMatching.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>

namespace sinew::viper {
namespace {

TEST(Hungarian, OptimalOnRandomInstancesAgainstBruteForce) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0, 10);
  int instances = 0;
  for (int n = 1; n <= 7; ++n)
    for (int trial = 0; trial < 40; ++trial) {
      Eigen::MatrixXd cost(n, n);
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) cost(i, j) = trial % 4 == 0 ? std::floor(u(rng) / 3) : u(rng);  // ties too
      const Assignment a = minCostAssignment(cost);
      std::vector<int> perm(static_cast<size_t>(n));
      std::iota(perm.begin(), perm.end(), 0);
      double best = std::numeric_limits<double>::infinity();
      do {
        double c = 0;
        for (int i = 0; i < n; ++i) c += cost(i, perm[size_t(i)]);
        best = std::min(best, c);
      } while (std::next_permutation(perm.begin(), perm.end()));
      std::vector<int> cols = a.columnOfRow;
      std::sort(cols.begin(), cols.end());
      for (int i = 0; i < n; ++i) ASSERT_EQ(cols[size_t(i)], i) << "not a permutation (n = " << n << ")";
      EXPECT_NEAR(a.cost, best, 1e-9) << "n = " << n << ", trial " << trial;
      ++instances;
    }
  EXPECT_EQ(instances, 280);
  EXPECT_THROW(minCostAssignment(Eigen::MatrixXd::Zero(2, 3)), std::invalid_argument);
  Eigen::MatrixXd bad = Eigen::MatrixXd::Zero(2, 2);
  bad(0, 1) = std::nan("");
  EXPECT_THROW(minCostAssignment(bad), std::invalid_argument);
  EXPECT_TRUE(minCostAssignment(Eigen::MatrixXd(0, 0)).columnOfRow.empty());
}

Pill randomPill(std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1), r(0.05, 0.5);
  Pill p;
  p.c1 = Vec3(u(rng), u(rng), u(rng));
  p.c2 = p.c1 + Vec3(u(rng), u(rng), u(rng));
  p.r1 = r(rng);
  p.r2 = r(rng);
  return p;
}

TEST(Pill, NearestSphereMatchesSamplingAndTheDistanceIsSigned) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-2, 2);
  for (int k = 0; k < 500; ++k) {
    const Pill p = randomPill(rng);
    const Vec3 x(u(rng), u(rng), u(rng));
    double best = std::numeric_limits<double>::infinity();
    for (int s = 0; s <= 4000; ++s) {
      const double t = s / 4000.0;
      best = std::min(best, (x - p.center(t)).norm() - p.radius(t));
    }
    const double d = signedDistance(p, x);
    EXPECT_LE(d, best + 1e-12) << "pill " << k;
    EXPECT_GE(d, best - 1e-6) << "pill " << k;  // the sampling's resolution
  }
  Pill ball{Vec3::Zero(), Vec3::Zero(), 0.3, 0.3};  // degenerate: a sphere
  EXPECT_NEAR(signedDistance(ball, Vec3(1, 0, 0)), 0.7, 1e-12);
  Pill nested{Vec3::Zero(), Vec3(0.1, 0, 0), 0.5, 0.2};  // the small end sphere lies inside the big one
  EXPECT_NEAR(signedDistance(nested, Vec3(0, 2, 0)), 1.5, 1e-12);
}

TEST(Pill, PillPillContactMatchesBruteForceSamplingOfBothPills) {
  std::mt19937 rng(5);
  double worst10 = 0, worst40 = 0;
  int penetrating = 0;
  for (int k = 0; k < 300; ++k) {
    const Pill a = randomPill(rng), b = randomPill(rng);
    double brute = std::numeric_limits<double>::infinity();
    const int samples = 400;
    for (int i = 0; i <= samples; ++i)
      for (int j = 0; j <= samples; ++j) {
        const double s = double(i) / samples, t = double(j) / samples;
        brute = std::min(brute, (a.center(s) - b.center(t)).norm() - a.radius(s) - b.radius(t));
      }
    const PillContact c10 = pillContact(a, b), c40 = pillContact(a, b, 40);
    penetrating += brute < 0 ? 1 : 0;
    // The contact's own numbers are consistent...
    EXPECT_NEAR(c10.distance, (a.center(c10.alpha) - b.center(c10.beta)).norm() - a.radius(c10.alpha) - b.radius(c10.beta),
                1e-12);
    // ...never below the true minimum, and at it up to the search's resolution.
    EXPECT_LE(c40.distance, brute + 1e-9) << "pair " << k;
    worst10 = std::max(worst10, c10.distance - brute);
    worst40 = std::max(worst40, c40.distance - brute);
    EXPECT_GE(c40.distance, brute - 2e-3) << "pair " << k;  // brute force samples a 400 x 400 grid
  }
  std::printf("pill-pill contact vs 401 x 401 sampling: worst excess %.2g m (10 iterations), %.2g m (40); "
              "%d of 300 pairs penetrate\n",
              worst10, worst40, penetrating);
  EXPECT_LT(worst10, 5e-3) << "10 dichotomous steps narrow alpha to about 1/1000";
  EXPECT_GT(penetrating, 30);
}

TEST(ShapeMatching, RecoversAKnownSimilarityExactly) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(-1, 1), s(0.5, 2);
  std::vector<RodFrame> rest(6);
  for (RodFrame& f : rest) {
    f.scale = s(rng);
    f.rotation = Eigen::AngleAxisd(3 * u(rng), Vec3(u(rng), u(rng), u(rng)).normalized()).toRotationMatrix();
    f.center = Vec3(u(rng), u(rng), u(rng));
  }
  Similarity known;
  known.scale = 1.37;
  known.rotation = Eigen::AngleAxisd(2.1, Vec3(0.3, -0.5, 0.8).normalized()).toRotationMatrix();
  known.translation = Vec3(0.4, -1.2, 2.0);
  std::vector<RodFrame> current;
  for (const RodFrame& f : rest) current.push_back(apply(known, f));
  const Similarity found = matchSimilarity(rest, current);
  EXPECT_NEAR(found.scale, known.scale, 1e-12);
  EXPECT_NEAR((found.rotation - known.rotation).norm(), 0, 1e-12);
  EXPECT_NEAR((found.translation - known.translation).norm(), 0, 1e-12);
  // Perturbed frames: the match is the least-squares one, so no nearby similarity does better.
  std::vector<RodFrame> noisy = current;
  for (RodFrame& f : noisy) f.center += 0.05 * Vec3(u(rng), u(rng), u(rng)), f.scale *= 1 + 0.05 * u(rng);
  const Similarity fit = matchSimilarity(rest, noisy);
  auto energy = [&](const Similarity& t) {
    double e = 0;
    for (size_t i = 0; i < rest.size(); ++i) {
      const RodFrame m = apply(t, rest[i]);
      e += (m.scale * m.rotation - noisy[i].scale * noisy[i].rotation).squaredNorm() + (m.center - noisy[i].center).squaredNorm();
    }
    return e;
  };
  const double best = energy(fit);
  for (int k = 0; k < 50; ++k) {
    Similarity t = fit;
    t.scale *= 1 + 0.01 * u(rng);
    t.rotation = Eigen::AngleAxisd(0.01 * u(rng), Vec3::UnitY()).toRotationMatrix() * t.rotation;
    t.translation += 0.01 * Vec3(u(rng), u(rng), u(rng));
    EXPECT_GE(energy(t), best - 1e-12);
  }
  EXPECT_THROW(matchSimilarity({}, {}), std::invalid_argument);
}

}  // namespace
}  // namespace sinew::viper
