#include "viper/Rod.h"

#include "core/Error.h"
#include "viper/Pill.h"
#include "viper/ShapeMatching.h"

#include <Eigen/Dense>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <cmath>
#include <unordered_map>

namespace sinew::viper {

namespace {

constexpr double kPi = 3.14159265358979323846;

Quat expQuat(const Vec3& theta) {
  const double a = theta.norm();
  if (a < 1e-300) return Quat::Identity();
  return Quat(Eigen::AngleAxisd(a, theta / a));
}

// The rotation taking e3 onto the unit vector d (the rest orientation of a
// segment; its twist about d is arbitrary but fixed).
Quat alongE3(const Vec3& d) { return Quat::FromTwoVectors(Vec3::UnitZ(), d).normalized(); }

Vec3 d3(const Quat& q) { return q * Vec3::UnitZ(); }

// Eq. 40 without the length factor: Im(conj(qa) qb).
Vec3 darboux(const Quat& qa, const Quat& qb) { return (qa.conjugate() * qb).vec(); }

// Jacobi accumulators: the sum of the corrections each degree of freedom
// received and how many constraints gave one.
struct Accumulator {
  std::vector<Vec3> dc, dtheta;
  std::vector<double> ds;
  std::vector<int> nc, ns, nq;
  void reset(size_t nodes, size_t segments) {
    dc.assign(nodes, Vec3::Zero());
    ds.assign(nodes, 0.0);
    dtheta.assign(segments, Vec3::Zero());
    nc.assign(nodes, 0);
    ns.assign(nodes, 0);
    nq.assign(segments, 0);
  }
};

}  // namespace

std::shared_ptr<const RodModel> buildRodModel(const std::vector<RodInput>& rods,
                                              const std::vector<BundleInput>& bundles) {
  auto m = std::make_shared<RodModel>();
  m->first.push_back(0);
  for (size_t k = 0; k < rods.size(); ++k) {
    const RodInput& in = rods[k];
    const std::string label = "rod '" + (in.name.empty() ? std::to_string(k) : in.name) + "'";
    if (in.nodes.size() < 2)
      throw InputError("viper", label + " has " + std::to_string(in.nodes.size()) + " node(s); a rod needs 2");
    if (in.radii.size() != in.nodes.size())
      throw InputError("viper", label + ": " + std::to_string(in.radii.size()) + " radii for " +
                                    std::to_string(in.nodes.size()) + " nodes");
    if (!in.contractile.empty() && in.contractile.size() + 1 != in.nodes.size())
      throw InputError("viper", label + ": " + std::to_string(in.contractile.size()) + " contractile weights for " +
                                    std::to_string(in.nodes.size() - 1) + " segments");
    for (double c : in.contractile)
      if (!(c >= 0 && c <= 1)) throw InputError("viper", label + ": contractile weights must lie in [0, 1]");
    if (!(in.material.maxContraction >= 0 && in.material.maxContraction < 1))
      throw InputError("viper", label + ": maximum contraction must lie in [0, 1)");
    const int32_t base = int32_t(m->restCenter.size());
    for (size_t i = 0; i < in.nodes.size(); ++i) {
      if (!in.nodes[i].allFinite()) throw InputError("viper", label + ": node " + std::to_string(i) + " is not finite");
      if (!(in.radii[i] > 0) || !std::isfinite(in.radii[i]))
        throw InputError("viper", label + ": node " + std::to_string(i) + " has radius " + std::to_string(in.radii[i]));
      m->restCenter.push_back(in.nodes[i]);
      m->restRadius.push_back(in.radii[i]);
      m->nodeMass.push_back(0);
    }
    for (size_t i = 0; i + 1 < in.nodes.size(); ++i) {
      const Vec3 d = in.nodes[i + 1] - in.nodes[i];
      const double l = d.norm();
      if (!(l > 1e-9)) throw InputError("viper", label + ": segment " + std::to_string(i) + " has zero length");
      const double r = 0.5 * (in.radii[i] + in.radii[i + 1]);
      const double mass = in.material.density * kPi * r * r * l;
      m->segmentNode.push_back(base + int32_t(i));
      m->segmentRod.push_back(int32_t(k));
      m->restLength.push_back(l);
      m->restOrientation.push_back(alongE3(d / l));
      m->segmentInertia.push_back(mass * r * r / 4);
      m->segmentContractile.push_back(in.contractile.empty() ? 1.0 : in.contractile[i]);
      m->nodeMass[size_t(base) + i] += mass / 2;
      m->nodeMass[size_t(base) + i + 1] += mass / 2;
    }
    m->first.push_back(int32_t(m->restCenter.size()));
    m->names.push_back(in.name);
    m->material.push_back(in.material);
  }
  for (size_t k = 0; k < rods.size(); ++k) m->rodGroup.push_back(rods[k].group);
  {
    int32_t next = 0;
    for (int32_t g : m->rodGroup) next = std::max(next, g + 1);
    for (int32_t& g : m->rodGroup)
      if (g < 0) g = next++;
  }
  for (size_t b = 0; b < bundles.size(); ++b) {
    const std::string label = "bundle " + std::to_string(b);
    if (bundles[b].members.size() < 2) throw InputError("viper", label + " has fewer than 2 members");
    std::vector<int32_t> nodes;
    for (const auto& [rod, node] : bundles[b].members) {
      if (rod < 0 || size_t(rod) >= rods.size() || node < 0 || size_t(node) >= rods[size_t(rod)].nodes.size())
        throw InputError("viper", label + ": member (rod " + std::to_string(rod) + ", node " + std::to_string(node) +
                                      ") does not exist");
      nodes.push_back(m->first[size_t(rod)] + node);
    }
    m->bundles.push_back(std::move(nodes));
  }
  // Pairs that never collide: the same group, or overlapping at rest (with
  // a margin of the radii on one rod: squeezed along its length, a thick
  // rod must not push its own near neighbours apart).
  const RodState rest = restState(*m);
  const double largestRadius =
      m->restRadius.empty() ? 0.0 : *std::max_element(m->restRadius.begin(), m->restRadius.end());
  for (const auto& [j, k] : overlappingPills(*m, rest, largestRadius)) {
    const size_t a = size_t(m->segmentNode[size_t(j)]), b = size_t(m->segmentNode[size_t(k)]);
    const Pill pa{m->restCenter[a], m->restCenter[a + 1], m->restRadius[a], m->restRadius[a + 1]};
    const Pill pb{m->restCenter[b], m->restCenter[b + 1], m->restRadius[b], m->restRadius[b + 1]};
    const bool sameRod = m->segmentRod[size_t(j)] == m->segmentRod[size_t(k)];
    const double margin = sameRod ? std::max(pa.r1, pa.r2) + std::max(pb.r1, pb.r2) : 0.0;
    if (m->rodGroup[size_t(m->segmentRod[size_t(j)])] == m->rodGroup[size_t(m->segmentRod[size_t(k)])] ||
        pillContact(pa, pb, 20).distance < margin)
      m->noCollision.emplace_back(j, k);
  }
  return m;
}

RodState restState(const RodModel& m) {
  RodState s;
  s.c = m.restCenter;
  s.cDot.assign(m.nodeCount(), Vec3::Zero());
  s.s.assign(m.nodeCount(), 1.0);
  s.sDot.assign(m.nodeCount(), 0.0);
  s.q = m.restOrientation;
  s.omega.assign(m.segmentCount(), Vec3::Zero());
  return s;
}

namespace {

Pill segmentPill(const RodModel& m, const RodState& s, size_t j) {
  const size_t a = size_t(m.segmentNode[j]), b = a + 1;
  return {s.c[a], s.c[b], s.s[a] * m.restRadius[a], s.s[b] * m.restRadius[b]};
}

}  // namespace

std::vector<std::pair<int32_t, int32_t>> pillPairs(const RodModel& m, const RodState& s) {
  std::vector<std::pair<int32_t, int32_t>> pairs = overlappingPills(m, s, 0.0);
  std::vector<std::pair<int32_t, int32_t>> kept;
  kept.reserve(pairs.size());
  std::set_difference(pairs.begin(), pairs.end(), m.noCollision.begin(), m.noCollision.end(), std::back_inserter(kept));
  return kept;
}

std::vector<std::pair<int32_t, int32_t>> overlappingPills(const RodModel& m, const RodState& s, double margin) {
  const size_t ns = m.segmentCount();
  std::vector<Vec3> center(ns);
  std::vector<double> radius(ns);
  double largest = 0;
  for (size_t j = 0; j < ns; ++j) {
    const Pill p = segmentPill(m, s, j);
    center[j] = 0.5 * (p.c1 + p.c2);
    radius[j] = 0.5 * (p.c2 - p.c1).norm() + std::max(p.r1, p.r2) + margin;
    largest = std::max(largest, radius[j]);
  }
  std::vector<std::pair<int32_t, int32_t>> pairs;
  if (ns < 2 || !(largest > 0) || !std::isfinite(largest)) return pairs;
  const double cell = 2 * largest;
  auto cellOf = [&](const Vec3& p) {
    return Eigen::Vector3i(int(std::floor(p.x() / cell)), int(std::floor(p.y() / cell)), int(std::floor(p.z() / cell)));
  };
  auto key = [](const Eigen::Vector3i& c) {
    auto bits = [](int v) { return uint64_t(uint32_t(v)) & ((uint64_t(1) << 21) - 1); };
    return (bits(c.x()) << 42) | (bits(c.y()) << 21) | bits(c.z());
  };
  std::unordered_map<uint64_t, std::vector<int32_t>> grid;
  for (size_t j = 0; j < ns; ++j) grid[key(cellOf(center[j]))].push_back(int32_t(j));
  // Spheres in non-neighbouring cells cannot overlap: look at the 27 around.
  for (size_t j = 0; j < ns; ++j) {
    const Eigen::Vector3i c = cellOf(center[j]);
    for (int dx = -1; dx <= 1; ++dx)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dz = -1; dz <= 1; ++dz) {
          const auto it = grid.find(key(c + Eigen::Vector3i(dx, dy, dz)));
          if (it == grid.end()) continue;
          for (int32_t k : it->second) {
            if (size_t(k) <= j) continue;
            const int32_t aj = m.segmentNode[j], ak = m.segmentNode[size_t(k)];
            if (aj == ak || aj + 1 == ak || ak + 1 == aj) continue;  // they share a node
            if ((center[j] - center[size_t(k)]).norm() > radius[j] + radius[size_t(k)]) continue;
            pairs.emplace_back(int32_t(j), k);
          }
        }
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return pairs;
}

RodSolver::RodSolver(std::shared_ptr<const RodModel> model, RodSettings settings)
    : model_(std::move(model)), settings_(std::move(settings)), state_(restState(*model_)) {
  setThreads(settings_.threads);
}

void RodSolver::setThreads(int threads) {
  settings_.threads = threads;
  const int automatic = tbb::task_arena::automatic;
  arena_ = std::make_shared<tbb::task_arena>(threads > 0 ? threads : automatic);
}

double RodSolver::volume(int32_t rod) const {
  const RodModel& m = *model_;
  double v = 0;
  for (size_t j = 0; j < m.segmentCount(); ++j) {
    if (m.segmentRod[j] != rod) continue;
    const size_t a = size_t(m.segmentNode[j]), b = a + 1;
    const double r = 0.5 * (state_.s[a] * m.restRadius[a] + state_.s[b] * m.restRadius[b]);
    v += kPi * r * r * (state_.c[b] - state_.c[a]).norm();
  }
  return v;
}

double RodSolver::length(int32_t rod) const {
  const RodModel& m = *model_;
  double l = 0;
  for (size_t j = 0; j < m.segmentCount(); ++j)
    if (m.segmentRod[j] == rod)
      l += (state_.c[size_t(m.segmentNode[j]) + 1] - state_.c[size_t(m.segmentNode[j])]).norm();
  return l;
}

void RodSolver::moveNode(size_t i, const Vec3& position) { state_.c.at(i) = position; }

// The frame of node i for shape matching: its scale, the orientation of the
// segment that starts there (ends there, for a rod's last node) and its centre.
RodFrame RodSolver::nodeFrame(size_t i, bool rest) const {
  const RodModel& m = *model_;
  size_t rod = 0;
  while (m.first[rod + 1] <= int32_t(i)) ++rod;
  const size_t segment = i + 1 < size_t(m.first[rod + 1]) ? i - rod : i - rod - 1;
  const Quat& q = rest ? m.restOrientation[segment] : state_.q[segment];
  return {rest ? 1.0 : state_.s[i], q.toRotationMatrix(), rest ? m.restCenter[i] : state_.c[i]};
}

// Eq. 33-36 as a hard constraint: each bundle's nodes are set to the best
// similarity transform of their rest frames (pinned nodes stay).
void RodSolver::projectBundles() {
  const RodModel& m = *model_;
  for (const std::vector<int32_t>& bundle : m.bundles) {
    std::vector<RodFrame> rest, now;
    for (int32_t i : bundle) {
      rest.push_back(nodeFrame(size_t(i), true));
      now.push_back(nodeFrame(size_t(i), false));
    }
    Similarity t = matchSimilarity(rest, now);
    // Eq. 35 evaluated as if every rod's rotation agreed with R* (R_i = R*
    // R_i(rest)): the fibres' twists about their own axes are free here, and
    // a mismatch in them would otherwise shrink s* at every projection.
    Vec3 mu = Vec3::Zero(), muRest = Vec3::Zero();
    for (size_t k = 0; k < bundle.size(); ++k) mu += now[k].center, muRest += rest[k].center;
    mu /= double(bundle.size());
    muRest /= double(bundle.size());
    double num = 0, den = 0;
    for (size_t k = 0; k < bundle.size(); ++k) {
      num += 3 * rest[k].scale * now[k].scale + (t.rotation * (rest[k].center - muRest)).dot(now[k].center - mu);
      den += 3 * rest[k].scale * rest[k].scale + (rest[k].center - muRest).squaredNorm();
    }
    t.scale = num / den;
    t.translation = mu - t.scale * t.rotation * muRest;
    for (size_t k = 0; k < bundle.size(); ++k) {
      const size_t i = size_t(bundle[k]);
      if (!settings_.pinned.empty() && settings_.pinned[i]) continue;
      const RodFrame f = apply(t, rest[k]);
      state_.c[i] = f.center;
      state_.s[i] = f.scale;
    }
  }
}

// The step's working data: inverse masses, the step's start, the XPBD
// multipliers, the corrections being gathered.
struct RodSolver::StepWork {
  struct Segment {
    Vec3 stretch = Vec3::Zero(), volume = Vec3::Zero();
    double radial = 0, gradient = 0;
  };
  std::vector<double> wc, ws, wq;      // inverse masses: position, scale (eq. 23), orientation
  std::vector<Vec3> c0;                // the step's start
  std::vector<double> s0;
  std::vector<Quat> q0;
  std::vector<Segment> lambda;         // per segment: stretch, radial, gradient, volume
  std::vector<Vec3> lambdaBend;        // per node
  std::vector<double> lambdaLaplace;   // per node
  std::vector<std::pair<int32_t, int32_t>> pairs;  // the step's broad phase
  Accumulator acc;
};

// VIPER's step (Angles et al. 2019, Section 5): predict, then per Jacobi
// iteration the elastic constraints rod by rod, the bundles, the contacts;
// then the velocities from the motion.
const RodStepStats& RodSolver::step() {
  const auto start = std::chrono::steady_clock::now();
  const RodModel& m = *model_;
  const RodSettings& set = settings_;
  StepWork w;
  predict(w);
  // Broad phase once per step, on the prediction.
  w.pairs = set.collisions ? pillPairs(m, state_) : std::vector<std::pair<int32_t, int32_t>>{};
  stats_.candidatePairs = int(w.pairs.size());
  int constraints = 0;
  for (int it = 0; it < set.iterations; ++it) {
    w.acc.reset(m.nodeCount(), m.segmentCount());
    // Elastic constraints rod by rod: a rod's constraints touch only its own
    // nodes and segments, so rods run in parallel without races, and each
    // degree of freedom sums its corrections in the same order whatever the
    // thread count.
    parallelFor(m.rodCount(), [&](size_t rod) { projectElastic(rod, w); });
    const size_t ns = m.segmentCount();
    constraints = int(4 * ns + 2 * (ns - std::min(ns, m.rodCount())));
    // The elastic corrections first (Jacobi: each degree of freedom moves by
    // the mean of its corrections, relaxed), then the contacts as a second
    // Jacobi pass on the result, so that they are not diluted by the many
    // elastic constraints on a node.
    applyCorrections(w);
    // Bundles as hard constraints (eq. 33-36), before the contacts so that
    // nothing moves a node back into contact after them.
    if (!m.bundles.empty() && ((it + 1) % std::max(1, set.bundleInterval) == 0 || it + 1 == set.iterations))
      projectBundles();
    w.acc.reset(m.nodeCount(), ns);
    constraints += projectContacts(w);
    applyCorrections(w);
  }
  updateVelocities(w);
  stats_.constraints = constraints;
  stats_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return stats_;
}

bool RodSolver::pinned(size_t i) const { return !settings_.pinned.empty() && settings_.pinned[i]; }

void RodSolver::parallelFor(size_t count, const std::function<void(size_t)>& body) {
  auto* arena = static_cast<tbb::task_arena*>(arena_.get());
  if (count < 64 || !arena || arena->max_concurrency() == 1) {
    for (size_t i = 0; i < count; ++i) body(i);
    return;
  }
  arena->execute([&] {
    tbb::parallel_for(tbb::blocked_range<size_t>(0, count, 16), [&](const tbb::blocked_range<size_t>& r) {
      for (size_t i = r.begin(); i != r.end(); ++i) body(i);
    });
  });
}

// Prediction (eq. 21-23): no internal forces; the inverse masses and the
// step's multipliers start here.
void RodSolver::predict(StepWork& w) {
  const RodModel& m = *model_;
  const RodSettings& set = settings_;
  const double h = set.dt;
  const size_t n = m.nodeCount(), ns = m.segmentCount();
  RodState& x = state_;
  w.wc.resize(n);
  w.ws.resize(n);
  w.wq.resize(ns);
  for (size_t i = 0; i < n; ++i) {
    w.wc[i] = pinned(i) ? 0.0 : 1.0 / m.nodeMass[i];
    w.ws[i] = pinned(i) ? 0.0 : 2.0 / (m.nodeMass[i] * m.restRadius[i] * m.restRadius[i]);
  }
  for (size_t j = 0; j < ns; ++j) w.wq[j] = 1.0 / m.segmentInertia[j];
  w.c0 = x.c;
  w.s0 = x.s;
  w.q0 = x.q;
  const bool offset = predictionOffset_.size() == n;
  for (size_t i = 0; i < n; ++i) {
    if (pinned(i)) continue;
    x.c[i] += h * x.cDot[i] + h * h * set.gravity;
    if (offset) x.c[i] += predictionOffset_[i];
    x.s[i] += h * x.sDot[i];
  }
  predictionOffset_.clear();
  for (size_t j = 0; j < ns; ++j) x.q[j] = (expQuat(h * x.omega[j]) * x.q[j]).normalized();
  w.lambda.assign(ns, {});
  w.lambdaBend.assign(n, Vec3::Zero());
  w.lambdaLaplace.assign(n, 0.0);
}

// Each degree of freedom moves by the mean of its gathered corrections,
// relaxed by beta (eq. 28); scales stay above the minimum.
void RodSolver::applyCorrections(StepWork& w) {
  const RodModel& m = *model_;
  const RodSettings& set = settings_;
  const Accumulator& a = w.acc;
  RodState& x = state_;
  const double beta = set.relaxation;
  for (size_t i = 0; i < m.nodeCount(); ++i) {
    if (a.nc[i] && !pinned(i)) x.c[i] += beta * a.dc[i] / a.nc[i];
    if (a.ns[i] && !pinned(i)) x.s[i] = std::max(x.s[i] + beta * a.ds[i] / a.ns[i], set.minScale);
  }
  for (size_t j = 0; j < m.segmentCount(); ++j)
    if (a.nq[j]) x.q[j] = (expQuat(beta * a.dtheta[j] / a.nq[j]) * x.q[j]).normalized();
}

// The elastic constraints of one rod: per segment stretch/shear, radial
// scale, scale gradient and volume (eq. 11-13, 18); per interior node
// bend/twist with scale and the scale Laplacian (eq. 14-15, 39-40).
void RodSolver::projectElastic(size_t rod, StepWork& w) {
  const RodModel& m = *model_;
  const RodSettings& set = settings_;
  const double h = set.dt;
  const RodState& x = state_;
  const std::vector<double>&wc = w.wc, &ws = w.ws, &wq = w.wq;
  std::vector<StepWork::Segment>& lambda = w.lambda;
  std::vector<Vec3>& lambdaBend = w.lambdaBend;
  std::vector<double>& lambdaLaplace = w.lambdaLaplace;
  Accumulator& acc = w.acc;
      const size_t j0 = size_t(m.first[rod]) - rod, j1 = size_t(m.first[rod + 1]) - rod - 1;
  for (size_t j = j0; j < j1; ++j) {
    const size_t a = size_t(m.segmentNode[j]), b = a + 1;
    const RodMaterial& mat = m.material[size_t(m.segmentRod[j])];
    const double l = m.restLength[j];
    const double r = 0.5 * (m.restRadius[a] + m.restRadius[b]);
    const double area = kPi * r * r;
    const Vec3 dir = d3(x.q[j]);
    const Vec3 e = (x.c[b] - x.c[a]) / l;
    const double sm = 0.5 * (x.s[a] + x.s[b]);
    const int32_t rod = m.segmentRod[j];
    const double active = set.activation.empty() ? 0.0 : set.activation[size_t(rod)];
    const double shorten = 1.0 - mat.maxContraction * std::clamp(active, 0.0, 1.0) * m.segmentContractile[j];

    // Stretch/shear (eq. 11): (c_b - c_a) / l - d3 = 0 (rest segments are
    // straight); an activated fibre aims at `shorten` of its length.
    {
      const double alpha = 1.0 / (mat.stretch * area * l * h * h);
      const Vec3 C = e - shorten * dir;
      const Mat3 K = ((wc[a] + wc[b]) / (l * l) + wq[j] * shorten * shorten) * Mat3::Identity() -
                     wq[j] * shorten * shorten * dir * dir.transpose();
      const Vec3 dl = -(K + alpha * Mat3::Identity()).ldlt().solve(C + alpha * lambda[j].stretch);
      lambda[j].stretch += dl;
      acc.dc[a] -= wc[a] / l * dl, ++acc.nc[a];
      acc.dc[b] += wc[b] / l * dl, ++acc.nc[b];
      acc.dtheta[j] -= wq[j] * shorten * dir.cross(dl),
          ++acc.nq[j];  // dC/dtheta = shorten [d3]x
    }
    // Radial scale (eq. 12): s_m - 1 = 0 (rest scale 1).
    {
      const double alpha = 1.0 / (mat.radial * area * l * h * h);
      const double C = sm - 1.0;
      const double dl = -(C + alpha * lambda[j].radial) / (0.25 * (ws[a] + ws[b]) + alpha);
      lambda[j].radial += dl;
      acc.ds[a] += 0.5 * ws[a] * dl, ++acc.ns[a];
      acc.ds[b] += 0.5 * ws[b] * dl, ++acc.ns[b];
    }
    // Scale gradient (eq. 13): (s_b - s_a) / l = 0.
    {
      const double alpha = 1.0 / (0.25 * mat.radial * area * r * r * l * h * h);
      const double C = (x.s[b] - x.s[a]) / l;
      const double dl = -(C + alpha * lambda[j].gradient) / ((ws[a] + ws[b]) / (l * l) + alpha);
      lambda[j].gradient += dl;
      acc.ds[a] -= ws[a] / l * dl, ++acc.ns[a];
      acc.ds[b] += ws[b] / l * dl, ++acc.ns[b];
    }
    // Volume (eq. 18): s_m^2 (c_b - c_a) / l - d3 = 0: a stretched segment
    // must thin so that s^2 times its length stays.
    {
      const double alpha = 1.0 / (mat.volume * area * l * h * h);
      const Vec3 C = sm * sm * e - dir;
      const double s2 = sm * sm;
      const Mat3 K = (wc[a] + wc[b]) * s2 * s2 / (l * l) * Mat3::Identity() +
                     (ws[a] + ws[b]) * s2 * e * e.transpose() + wq[j] * (Mat3::Identity() - dir * dir.transpose());
      const Vec3 dl = -(K + alpha * Mat3::Identity()).ldlt().solve(C + alpha * lambda[j].volume);
      lambda[j].volume += dl;
      acc.dc[a] -= wc[a] * s2 / l * dl, ++acc.nc[a];
      acc.dc[b] += wc[b] * s2 / l * dl, ++acc.nc[b];
      const double dsm = sm * e.dot(dl);  // dC/ds_a = dC/ds_b = s_m e
      acc.ds[a] += ws[a] * dsm, ++acc.ns[a];
      acc.ds[b] += ws[b] * dsm, ++acc.ns[b];
      acc.dtheta[j] -= wq[j] * dir.cross(dl), ++acc.nq[j];
    }
  }
  // Interior nodes: bend/twist with scale (eq. 14, 40) and the scale
  // Laplacian (eq. 15, 39).
  for (size_t j = j0; j + 1 < j1; ++j) {
    const size_t node = size_t(m.segmentNode[j + 1]);
    const RodMaterial& mat = m.material[size_t(m.segmentRod[j])];
    const double la = m.restLength[j], lb = m.restLength[j + 1], lm = 0.5 * (la + lb);
    const double r = m.restRadius[node], area = kPi * r * r;
    {
      const double alpha = 1.0 / (mat.bend * area * r * r * lm * h * h);
      const double k = 4.0 / (la + lb);
      const Vec3 restOmega = k * darboux(m.restOrientation[j], m.restOrientation[j + 1]);
      const Vec3 omega = k * darboux(x.q[j], x.q[j + 1]);
      const double sc = x.s[node];
      const Vec3 C = sc * omega - restOmega;
      // Jacobians by central differences of the world-frame rotation
      // vectors.
      Mat3 Ja, Jb;
      const double eps = 1e-7;
      for (int d = 0; d < 3; ++d) {
        const Vec3 step = eps * Vec3::Unit(d);
        Ja.col(d) = sc * k *
                    (darboux(expQuat(step) * x.q[j], x.q[j + 1]) - darboux(expQuat(-step) * x.q[j], x.q[j + 1])) /
                    (2 * eps);
        Jb.col(d) = sc * k *
                    (darboux(x.q[j], expQuat(step) * x.q[j + 1]) - darboux(x.q[j], expQuat(-step) * x.q[j + 1])) /
                    (2 * eps);
      }
      const Mat3 K =
          wq[j] * Ja * Ja.transpose() + wq[j + 1] * Jb * Jb.transpose() + ws[node] * omega * omega.transpose();
      const Vec3 dl = -(K + alpha * Mat3::Identity()).ldlt().solve(C + alpha * lambdaBend[node]);
      lambdaBend[node] += dl;
      acc.dtheta[j] += wq[j] * Ja.transpose() * dl, ++acc.nq[j];
      acc.dtheta[j + 1] += wq[j + 1] * Jb.transpose() * dl, ++acc.nq[j + 1];
      acc.ds[node] += ws[node] * omega.dot(dl), ++acc.ns[node];
    }
    {
      const size_t a = node - 1, b = node + 1;
      const double alpha = 1.0 / (0.25 * mat.scaleBend * area * r * r * lm * h * h);
      const double ga = -1.0 / la - 1.0 / lb;
      const double C = (x.s[b] - x.s[node]) / lb - (x.s[node] - x.s[a]) / la;
      const double denom = ws[a] / (la * la) + ws[node] * ga * ga + ws[b] / (lb * lb) + alpha;
      const double dl = -(C + alpha * lambdaLaplace[node]) / denom;
      lambdaLaplace[node] += dl;
      acc.ds[a] += ws[a] / la * dl, ++acc.ns[a];
      acc.ds[node] += ws[node] * ga * dl, ++acc.ns[node];
      acc.ds[b] += ws[b] / lb * dl, ++acc.ns[b];
    }
  }
}

// Contacts (eq. 30-31) as inequality projections, only while penetrating:
// pill against pill (narrow phase in parallel, projections in pair order),
// then each node's sphere against the ground with friction on the slide.
// Returns the constraints projected.
int RodSolver::projectContacts(StepWork& w) {
  const RodModel& m = *model_;
  const RodSettings& set = settings_;
  const size_t n = m.nodeCount();
  RodState& x = state_;
  const std::vector<double>&wc = w.wc, &ws = w.ws;
  const std::vector<std::pair<int32_t, int32_t>>& pairs = w.pairs;
  const std::vector<Vec3>& c0 = w.c0;
  Accumulator& acc = w.acc;
  int constraints = 0;
    // Collisions (eq. 31), as inequality projections: only while penetrating.
  int contacts = 0;
  // Narrow phase (eq. 30) in parallel, the projections in pair order.
  std::vector<PillContact> hits(pairs.size());
  parallelFor(pairs.size(), [&](size_t p) {
    hits[p] = pillContact(segmentPill(m, x, size_t(pairs[p].first)), segmentPill(m, x, size_t(pairs[p].second)));
  });
  for (size_t p = 0; p < pairs.size(); ++p) {
    const auto [ja, jb] = pairs[p];
    const PillContact& hit = hits[p];
    if (hit.distance >= 0) continue;
    ++contacts;
    const size_t a0 = size_t(m.segmentNode[size_t(ja)]), b0 = size_t(m.segmentNode[size_t(jb)]);
    const size_t node[4] = {a0, a0 + 1, b0, b0 + 1};
    const double weight[4] = {1 - hit.alpha, hit.alpha, 1 - hit.beta, hit.beta};
    const double side[4] = {-1, -1, 1, 1};  // dC/dc = side weight n; dC/ds = -weight r
    // Against a kinematic pill (a bone) only the positions move: a rigid
    // bone does not pinch, and a muscle resting on it must be carried, not
    // deflated step after step by the hard contact.
    const bool kinematic = (wc[node[0]] == 0 && wc[node[1]] == 0) || (wc[node[2]] == 0 && wc[node[3]] == 0);
    double wsc[4];
    for (int k = 0; k < 4; ++k) wsc[k] = kinematic ? 0.0 : ws[node[k]];
    double denom = 0;
    for (int k = 0; k < 4; ++k) {
      denom += wc[node[k]] * weight[k] * weight[k];
      denom += wsc[k] * weight[k] * weight[k] * m.restRadius[node[k]] * m.restRadius[node[k]];
    }
    if (!(denom > 0)) continue;
    const double dl = -hit.distance / denom;
    for (int k = 0; k < 4; ++k) {
      acc.dc[node[k]] += wc[node[k]] * side[k] * weight[k] * dl * hit.normal, ++acc.nc[node[k]];
      if (wsc[k] > 0) acc.ds[node[k]] -= wsc[k] * weight[k] * m.restRadius[node[k]] * dl, ++acc.ns[node[k]];
    }
    ++constraints;
  }
  // The ground: each node's sphere above the plane, with friction on the
  // slide.
  if (set.ground)
    for (size_t i = 0; i < n; ++i) {
      const double C = x.c[i].y() - x.s[i] * m.restRadius[i] - set.groundHeight;
      if (C >= 0 || pinned(i)) continue;
      ++contacts;
      const double r = m.restRadius[i];
      const double dl = -C / (wc[i] + ws[i] * r * r);
      Vec3 d = wc[i] * dl * Vec3::UnitY();
      Vec3 slide = x.c[i] - c0[i];
      slide.y() = 0;
      const double length = slide.norm();
      if (length > 0) d -= slide * std::min(1.0, set.friction * (-C) / length);
      acc.dc[i] += d, ++acc.nc[i];
      acc.ds[i] -= ws[i] * r * dl, ++acc.ns[i];
      ++constraints;
    }
  stats_.contacts = contacts;
  return constraints;
}

// Velocities from the step's motion, less the damping.
void RodSolver::updateVelocities(const StepWork& w) {
  const RodModel& m = *model_;
  const RodSettings& set = settings_;
  const double h = set.dt;
  RodState& x = state_;
  const double keep = 1.0 - set.damping;
  for (size_t i = 0; i < m.nodeCount(); ++i) {
    x.cDot[i] = keep * (x.c[i] - w.c0[i]) / h;
    x.sDot[i] = keep * (x.s[i] - w.s0[i]) / h;
  }
  for (size_t j = 0; j < m.segmentCount(); ++j) {
    Quat dq = x.q[j] * w.q0[j].conjugate();
    if (dq.w() < 0) dq.coeffs() *= -1;
    x.omega[j] = keep * 2.0 * dq.vec() / h;
  }
  x.time += h;
}

}  // namespace sinew::viper
