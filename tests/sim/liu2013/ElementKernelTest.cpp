// The SIMD element kernel against the formulas of Liu et al. 2013 (eq. 7-16)
// written plainly with Eigen, on random elements that include the rare cases
// (inverted elements, collapsed plastic references, a partial last block).
#include "liu2013/ElementKernel.h"

#include <gtest/gtest.h>

#include <Eigen/SVD>

#include <numeric>
#include <random>

namespace sinew::liu2013 {
namespace {

Mat3 polarOf(const Mat3& a) {  // the proper rotation nearest to a (by SVD)
  Eigen::JacobiSVD<Mat3> svd(a, Eigen::ComputeFullU | Eigen::ComputeFullV);
  Mat3 u = svd.matrixU();
  const Mat3 v = svd.matrixV();
  if ((u * v.transpose()).determinant() < 0) u.col(2) = -u.col(2);
  return u * v.transpose();
}

struct Scene {
  std::vector<Vec3> x, v, reference;
  std::vector<Tet> tets;
  std::vector<Mat3> bmInv, rotation, plasticRotation;
  std::vector<double> mu, lambda, volume, limiter, budget;
};

Scene randomScene(size_t nTets, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  Scene s;
  for (size_t t = 0; t < nTets; ++t) {
    // A rest tet, a deformed one and a skinned reference, each its own 4 nodes.
    Mat3 rest = Mat3::Identity() * 0.1;
    for (int k = 0; k < 9; ++k) rest.data()[k] += 0.03 * u(rng);
    const Mat3 rot = Eigen::AngleAxisd(3 * u(rng), Vec3(u(rng), u(rng), u(rng)).normalized()).toRotationMatrix();
    Mat3 deform = rot * (Mat3::Identity() + 0.2 * Mat3::Random());
    if (t % 7 == 3) deform.col(0) = -deform.col(0);              // inverted element
    Mat3 refDeform = Mat3::Identity() + 0.1 * Mat3::Random();
    if (t % 11 == 5) refDeform.col(2) *= 0.05;                   // collapsed reference (clamped)
    if (t % 13 == 8) refDeform.col(1) *= 2.6;                    // overstretched reference (clamped)
    const Vec3 origin(u(rng), u(rng), u(rng));
    const auto base = static_cast<int32_t>(s.x.size());
    const Mat3 ds = deform * rest, dp = refDeform * rest;
    s.x.push_back(origin);
    s.reference.push_back(origin);
    for (int c = 0; c < 3; ++c) {
      s.x.push_back(origin + ds.col(c));
      s.reference.push_back(origin + dp.col(c));
    }
    for (int c = 0; c < 4; ++c) s.v.push_back(Vec3(u(rng), u(rng), u(rng)));
    s.tets.push_back({base, base + 1, base + 2, base + 3});
    s.bmInv.push_back(rest.inverse());
    s.volume.push_back(std::abs(rest.determinant()) / 6);
    s.mu.push_back(2e4 * (1 + 0.5 * u(rng)));
    s.lambda.push_back(9e4 * (1 + 0.5 * u(rng)));
    s.limiter.push_back(5e5);
    s.budget.push_back(t % 3 == 1 ? 1e8 : 1e14);  // a third of the elements can hit the step cap
    // Warm starts near the answer, as in a running simulation.
    const Mat3 nudge = Eigen::AngleAxisd(0.05, Vec3::UnitY()).toRotationMatrix();
    s.rotation.push_back(nudge * polarOf(ds * s.bmInv.back()));
    s.plasticRotation.push_back(nudge * polarOf(dp * s.bmInv.back() * (ds * s.bmInv.back()).transpose()));
  }
  return s;
}

struct Result {
  std::vector<Vec3> corner;
  std::vector<double> energy;
  std::vector<uint8_t> inverted;
  std::vector<Mat3> rotation, plasticRotation;
};

Result runKernel(const Scene& s, const ElementInput& settings) {
  const ElementBlocks blocks = makeElementBlocks(s.tets, s.bmInv, s.mu, s.lambda, s.volume);
  Result r;
  r.corner.resize(s.tets.size() * 4);
  r.energy.resize(s.tets.size());
  r.inverted.resize(s.tets.size());
  r.rotation = s.rotation;
  r.plasticRotation = s.plasticRotation;
  ElementInput in = settings;
  in.x = s.x.data();
  in.v = s.v.data();
  in.reference = s.reference.data();
  in.limiterStiffness = s.limiter.data();
  if (settings.limiterBudget) in.limiterBudget = s.budget.data();
  ElementOutput out{r.rotation.data(), r.plasticRotation.data(), r.corner.data(), r.energy.data(), r.inverted.data()};
  computeElements(blocks, 0, blocks.blocks, in, out);
  return r;
}

// Eq. 7-16 per element, plainly (polar decompositions by SVD).
void referenceElement(const Scene& s, size_t t, const ElementInput& in, Vec3 corner[4], double& energy) {
  const Tet& tet = s.tets[t];
  Mat3 ds, dp, dv;
  for (int c = 0; c < 3; ++c) {
    ds.col(c) = s.x[tet[c + 1]] - s.x[tet[0]];
    dp.col(c) = s.reference[tet[c + 1]] - s.reference[tet[0]];
    dv.col(c) = s.v[tet[c + 1]] - s.v[tet[0]];
  }
  const Mat3 f = ds * s.bmInv[t];
  const Mat3 r = polarOf(f);
  Mat3 g = r;
  double restJ = 1;
  if (in.plasticity) {
    Mat3 fp = dp * s.bmInv[t];
    if (fp.determinant() < in.minPlasticStretch || fp.squaredNorm() > in.maxPlasticStretch * in.maxPlasticStretch)
      fp = clampPlasticStretch(fp, in.minPlasticStretch, in.maxPlasticStretch);
    restJ = fp.determinant();
    const Mat3 rStar = polarOf(fp * f.transpose());
    g = rStar.transpose() * fp;
  }
  const Mat3 strain = r.transpose() * (f - g);
  const double tr = strain.trace();
  Mat3 stress = 2 * s.mu[t] * (f - g) + s.lambda[t] * tr * r;
  energy = s.mu[t] * strain.squaredNorm() + 0.5 * s.lambda[t] * tr * tr;
  const double j = f.determinant(), jMin = in.compressionLimit * restJ;
  if (j < jMin) {
    double k = s.limiter[t];
    if (in.limiterBudget) {  // the step cap: k |dJ/dx|^2 (all four corners) <= budget
      const Mat3 grad = j * f.inverse().transpose() * s.bmInv[t].transpose();
      const double curvature = grad.squaredNorm() + grad.rowwise().sum().squaredNorm();
      k = std::min(k, s.budget[t] / curvature);
    }
    stress += k * (j - jMin) * j * f.inverse().transpose();
    energy += 0.5 * k * (j - jMin) * (j - jMin);
  }
  energy *= s.volume[t];
  if (in.rayleigh) {
    const Mat3 d = r.transpose() * dv * s.bmInv[t];
    const Mat3 sym = 0.5 * (d + d.transpose());
    stress += in.rayleighStiffness * r * (2 * s.mu[t] * sym + s.lambda[t] * sym.trace() * Mat3::Identity());
  }
  const Mat3 h = -s.volume[t] * stress * s.bmInv[t].transpose();
  for (int c = 0; c < 3; ++c) corner[c + 1] = h.col(c);
  corner[0] = -(h.col(0) + h.col(1) + h.col(2));
}

class ElementKernel : public ::testing::TestWithParam<std::tuple<bool, bool, bool>> {};

TEST_P(ElementKernel, AgreesWithThePlainFormulas) {
  const auto [plasticity, rayleigh, stepCap] = GetParam();
  const Scene s = randomScene(8 * 12 + 5, 17);  // a partial last block
  ElementInput in;
  in.plasticity = plasticity;
  in.rayleigh = rayleigh;
  in.rayleighStiffness = 1e-3;
  in.limiterBudget = stepCap ? s.budget.data() : nullptr;
  const Result k = runKernel(s, in);
  int inverted = 0, clamped = 0;
  for (size_t t = 0; t < s.tets.size(); ++t) {
    Vec3 corner[4];
    double energy = 0;
    referenceElement(s, t, in, corner, energy);
    double scale = 0;
    for (const Vec3& c : corner) scale = std::max(scale, c.norm());
    for (int c = 0; c < 4; ++c)
      EXPECT_LT((k.corner[t * 4 + c] - corner[c]).norm(), 1e-8 * scale) << "element " << t << " corner " << c;
    EXPECT_NEAR(k.energy[t], energy, 1e-8 * std::abs(energy)) << "element " << t;
    const bool isInverted = (s.x[s.tets[t][1]] - s.x[s.tets[t][0]])
                                .cross(s.x[s.tets[t][2]] - s.x[s.tets[t][0]])
                                .dot(s.x[s.tets[t][3]] - s.x[s.tets[t][0]]) <= 0;
    EXPECT_EQ(k.inverted[t] != 0, isInverted) << "element " << t;
    inverted += isInverted;
    EXPECT_NEAR(k.rotation[t].determinant(), 1.0, 1e-9);
    EXPECT_LT((k.rotation[t].transpose() * k.rotation[t] - Mat3::Identity()).norm(), 1e-9);
    Mat3 fp;
    for (int c = 0; c < 3; ++c) fp.col(c) = s.reference[s.tets[t][c + 1]] - s.reference[s.tets[t][0]];
    fp = fp * s.bmInv[t];
    clamped += fp.determinant() < in.minPlasticStretch || fp.squaredNorm() > in.maxPlasticStretch * in.maxPlasticStretch;
  }
  EXPECT_GT(inverted, 5) << "the scene exercises the scalar fallback";
  if (stepCap) {
    ElementInput uncapped = in;
    uncapped.limiterBudget = nullptr;
    const Result u = runKernel(s, uncapped);
    int capped = 0;
    for (size_t t = 0; t < s.tets.size(); ++t) capped += u.energy[t] != k.energy[t];
    EXPECT_GT(capped, 2) << "the scene exercises the step cap";
  }
  EXPECT_GT(clamped, 5) << "the scene exercises the plastic clamp";
}

INSTANTIATE_TEST_SUITE_P(Modes, ElementKernel,
                         ::testing::Combine(::testing::Bool(), ::testing::Bool(), ::testing::Bool()));

// The compression limiter on an element squashed flat while stretched across
// (as sole flesh between a foot bone and the ground can be), integrated by
// symplectic Euler at the solver's step with one free node and no damping.
// Corotated elasticity alone pulls such an element flat and through (its
// equilibrium is inverted), so the node swings; the limiter must not add
// energy to that swing. Returns the node's top speed over 1 s (stops at 1 km/s).
double limiterRun(double limiterStiffness, bool stepCap) {
  const double l = 0.02, h = 5e-4, E = 6e4, nu = 0.4, density = 1000, stretch = 2;
  Scene s;
  const Mat3 rest = Mat3::Identity() * l;
  s.x = {Vec3::Zero(), Vec3(stretch * l, 0, 0), Vec3(0, 0.03 * l, 0), Vec3(0, 0, stretch * l)};
  s.v.assign(4, Vec3::Zero());
  s.reference = s.x;
  s.tets = {{0, 1, 2, 3}};
  s.bmInv = {rest.inverse()};  // F = diag(2, 0.03, 2): J = 0.12, below the limit 0.3
  s.rotation = {Mat3::Identity()};
  s.plasticRotation = {Mat3::Identity()};
  const double volume = l * l * l / 6, mass = density * volume / 4;
  s.volume = {volume};
  s.mu = {E / (2 * (1 + nu))};
  s.lambda = {E * nu / ((1 + nu) * (1 - 2 * nu))};
  s.limiter = {limiterStiffness * (s.lambda[0] + 2 * s.mu[0])};
  s.budget = {3 * mass / (h * h * volume)};  // as the solver sets it
  ElementInput in;
  in.plasticity = false;
  if (stepCap) in.limiterBudget = s.budget.data();
  double maxSpeed = 0;
  for (int step = 0; step < 2000 && maxSpeed < 1e3; ++step) {
    const Result r = runKernel(s, in);  // node 2 is free; the others are held
    s.rotation = r.rotation;
    s.v[2] += h * r.corner[2] / mass;
    s.x[2] += h * s.v[2];
    maxSpeed = std::max(maxSpeed, s.v[2].norm());
  }
  return maxSpeed;
}

TEST(ElementKernelLimiter, TheStepCapKeepsASquashedStretchedElementStable) {
  const double elasticOnly = limiterRun(0, false);
  const double capped = limiterRun(10, true);      // the solver's default stiffness, with the cap
  const double uncapped = limiterRun(10, false);   // the same, capped only at rest (as before)
  EXPECT_LT(elasticOnly, 20.0) << "m/s: the undamped swing of elasticity alone";
  EXPECT_LT(capped, 1.5 * elasticOnly) << "m/s: with the step cap the limiter adds no energy";
  EXPECT_GT(uncapped, 100 * elasticOnly) << "m/s: without it the same element blows up (the test can fail)";
}

}  // namespace
}  // namespace sinew::liu2013
