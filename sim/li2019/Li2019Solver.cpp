#include "core/Rotation.h"
#include "li2019/Factorization.h"
#include "li2019/Li2019.h"
#include "li2019/LocalKernel.h"
#include "solver/Simulation.h"

#include <Eigen/Cholesky>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <chrono>
#include <cmath>

namespace sinew::li2019 {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

Mat3 expRotation(const Vec3& w) {
  const double angle = w.norm();
  if (angle < 1e-300) return Mat3::Identity();
  return Eigen::AngleAxisd(angle, w / angle).toRotationMatrix();
}


// (P21 - P12, P02 - P20, P10 - P01): sum m r x (N r) for P = N S.
Vec3 axial(const Mat3& p) { return {p(2, 1) - p(1, 2), p(0, 2) - p(2, 0), p(1, 0) - p(0, 1)}; }

}  // namespace

struct Li2019Solver::Scratch {
  explicit Scratch(int threads) : arena(threads > 0 ? threads : tbb::task_arena::automatic) {}
  tbb::task_arena arena;
  Eigen::MatrixXd y, p, fc, rhs, xhat;
  Eigen::MatrixXd forces;            // the global step's right-hand side forces (kept: no allocation per iteration)
  std::vector<Vec3> normal;          // contact normal per node
  std::vector<double> depth;         // penetration per node (this iteration)
  std::vector<Vec3> x;
  std::vector<Vec3> corner;          // per tet corner: the local step's pull w R g_c
  dyn::ColliderGrid grid;            // the colliders' broad phase, built each step
  // Driven bones (Dirichlet rows of the global step): their first reduced
  // rows, Z = K^-1 E for the unit columns E of their 4 rows each, and the
  // factored E^T Z. Rebuilt when the set of driven bones changes.
  std::vector<uint8_t> drivenSet;
  std::vector<long> drivenRows;
  Eigen::MatrixXd Z;
  Eigen::LLT<Eigen::MatrixXd> capacitance;
};

Li2019Solver::Li2019Solver(std::shared_ptr<const Li2019Model> model, Settings settings)
    : model_(std::move(model)), settings_(std::move(settings)), state_(restState(*model_)),
      scratch_(std::make_unique<Scratch>(settings_.threads)) {}

Li2019Solver::~Li2019Solver() = default;

void Li2019Solver::setState(Li2019State s) {
  if (s.x.size() != model_->nodeCount() || s.v.size() != model_->nodeCount() || s.a.size() != model_->nodeCount() ||
      s.tetRotation.size() != model_->tetCount() || s.bones.size() != model_->bones.size() ||
      s.contactNormal.size() != model_->nodeCount() || s.contactTangent.size() != model_->nodeCount())
    throw std::invalid_argument("Li2019Solver::setState: the state is not of this model");
  state_ = std::move(s);
}

void Li2019Solver::setExternalForces(std::vector<Vec3> forces) {
  if (!forces.empty() && forces.size() != model_->nodeCount())
    throw std::invalid_argument("Li2019Solver::setExternalForces: one force per node");
  external_ = std::move(forces);
}

void Li2019Solver::setBoneTargets(std::vector<std::optional<BonePose>> targets) {
  if (!targets.empty() && targets.size() != model_->bones.size())
    throw std::invalid_argument("Li2019Solver::setBoneTargets: one entry per bone");
  const bool any = std::any_of(targets.begin(), targets.end(), [](const auto& t) { return t.has_value(); });
  if (any && !model_->exact())
    throw std::invalid_argument("Li2019Solver::setBoneTargets: driven bones need exact bones (RigidMode::Exact)");
  targets_ = any ? std::move(targets) : std::vector<std::optional<BonePose>>{};
}

void Li2019Solver::holdDrivenBones(Eigen::MatrixXd& xhat) {
  const Li2019Model& m = *model_;
  Scratch& w = *scratch_;
  std::vector<uint8_t> set(m.bones.size(), 0);
  for (size_t k = 0; k < m.bones.size(); ++k) set[k] = driven(k) ? 1 : 0;
  if (set != w.drivenSet) {
    // x = x0 + Z lambda with (E^T Z) lambda = t - E^T x0 is the minimiser
    // of the same quadratic with the driven rows fixed at t.
    w.drivenSet = set;
    w.drivenRows.clear();
    for (size_t k = 0; k < m.bones.size(); ++k)
      if (set[k]) w.drivenRows.push_back(m.reducedIndex[size_t(m.bones[k].nodes.front())]);
    const long d = long(4 * w.drivenRows.size());
    Eigen::MatrixXd E = Eigen::MatrixXd::Zero(m.reducedSize, d);
    for (size_t j = 0; j < w.drivenRows.size(); ++j)
      for (int a = 0; a < 4; ++a) E(w.drivenRows[j] + a, long(4 * j) + a) = 1;
    m.factor->solve(E, w.Z);
    Eigen::MatrixXd S(d, d);
    for (size_t j = 0; j < w.drivenRows.size(); ++j)
      for (int a = 0; a < 4; ++a) S.row(long(4 * j) + a) = w.Z.row(w.drivenRows[j] + a);
    w.capacitance.compute(0.5 * (S + S.transpose()));
  }
  if (w.drivenRows.empty()) return;
  Eigen::MatrixXd gap(long(4 * w.drivenRows.size()), 3);
  size_t j = 0;
  for (size_t k = 0; k < m.bones.size(); ++k) {
    if (!set[k]) continue;
    const BonePose& target = *targets_[k];
    const long row = w.drivenRows[j], at = long(4 * j);
    gap.block<3, 3>(at, 0) = target.rotation.transpose() - xhat.block<3, 3>(row, 0);  // rows A^T
    gap.row(at + 3) = target.centroid.transpose() - xhat.row(row + 3);
    ++j;
  }
  xhat.noalias() += w.Z * w.capacitance.solve(gap);
}

void Li2019Solver::localStep(const std::vector<Vec3>& x) {
  const Li2019Model& m = *model_;
  const TetBlocks& blocks = *m.tetBlocks;
  Eigen::MatrixXd& p = scratch_->p;
  std::vector<Vec3>& corner = scratch_->corner;
  corner.resize(m.tetCount() * 4);
  scratch_->arena.execute([&] {
    // Per tet: R nearest to F and its pull w R g_c on each corner (eight
    // tets per vector operation, LocalKernel.h).
    tbb::parallel_for(tbb::blocked_range<size_t>(0, blocks.blocks, 64), [&](const tbb::blocked_range<size_t>& r) {
      localBlocks(blocks, r.begin(), r.end(), x.data(), state_.tetRotation.data(), corner.data());
    });
    // J p per node: the sum of its corners' pulls (a gather: no two threads
    // write one node, and the order of the sum is fixed).
    tbb::parallel_for(tbb::blocked_range<size_t>(0, m.nodeCount(), 512), [&](const tbb::blocked_range<size_t>& r) {
      for (size_t i = r.begin(); i < r.end(); ++i) {
        Vec3 sum = Vec3::Zero();
        for (int32_t a = m.cornerOffsets[i]; a < m.cornerOffsets[i + 1]; ++a) sum += corner[size_t(m.corners[size_t(a)])];
        p.row(long(i)) = sum.transpose();
      }
    });
  });
}

void Li2019Solver::contactStep(const std::vector<Vec3>& x, const std::vector<Vec3>& previous) {
  const Li2019Model& m = *model_;
  const Settings& s = settings_;
  const double h = m.options.dt;
  Scratch& w = *scratch_;
  const size_t n = m.nodeCount();
  w.depth.resize(n);
  std::vector<int32_t> boneContacts(m.bones.size(), 0);
  for (size_t i = 0; i < n; ++i) {
    dyn::ContactPoint deepest{-std::numeric_limits<double>::infinity(), Vec3::UnitY()};
    if (s.ground) deepest = dyn::probeGround(s.groundHeight, x[i]);
    for (int32_t c : w.grid.candidates(x[i])) {
      const dyn::ContactPoint cp = dyn::probe(s.colliders[size_t(c)], w.grid.poses()[size_t(c)], x[i]);
      if (cp.depth > deepest.depth) deepest = cp;
    }
    w.depth[i] = deepest.depth;
    w.normal[i] = deepest.normal;
    const int32_t k = m.exact() ? m.nodeBone[i] : -1;
    if (k >= 0 && (deepest.depth > 0 || state_.contactNormal[i] > 0)) ++boneContacts[size_t(k)];
  }
  for (size_t i = 0; i < n; ++i) {
    double& fn = state_.contactNormal[i];
    Vec3& ft = state_.contactTangent[i];
    const double depth = w.depth[i];
    if (depth <= 0 && fn <= 0) {
      ft.setZero();
      w.fc.row(long(i)).setZero();
      continue;
    }
    // Dual ascent on the penetration at half the node's inertia m/h^2 (a
    // bone's node: its share of the bone's M/h^2). Larger steps (the node's
    // elastic diagonal too) overshoot when a patch of neighbours presses at
    // once, since the patch moves together; what this leaves is projected
    // out after the iterations.
    const int32_t k = m.exact() ? m.nodeBone[i] : -1;
    const double rate = 0.5 * (k < 0 ? m.nodeMass[i] / (h * h)
                                     : m.bones[size_t(k)].mass / (h * h) / std::max(1, boneContacts[size_t(k)]));
    const Vec3 nrm = w.normal[i];
    fn = std::max(0.0, fn + rate * depth);
    if (fn > 0) {
      Vec3 slip = x[i] - previous[i];
      slip -= slip.dot(nrm) * nrm;
      ft -= rate * slip;
      ft -= ft.dot(nrm) * nrm;
      const double limit = s.friction * fn;
      if (ft.norm() > limit) ft *= limit / ft.norm();
    } else {
      ft.setZero();
    }
    w.fc.row(long(i)) = (fn * nrm + ft).transpose();
  }
}

void Li2019Solver::constraintStep(const Eigen::MatrixXd& xhat, std::vector<BonePose>& poses) {
  const Li2019Model& m = *model_;
  std::vector<Mat3> A(m.bones.size());
  std::vector<Vec3> b(m.bones.size());
  for (size_t k = 0; k < m.bones.size(); ++k) {
    const long row = m.reducedIndex[size_t(m.bones[k].nodes.front())];
    A[k] = xhat.block<3, 3>(row, 0).transpose();
    b[k] = xhat.row(row + 3).transpose();
  }
  projectBones(A, b, poses);
}

void Li2019Solver::projectBones(const std::vector<Mat3>& A, const std::vector<Vec3>& b, std::vector<BonePose>& poses) {
  const Li2019Model& m = *model_;
  const size_t nb = m.bones.size(), nj = m.joints.size();
  for (size_t k = 0; k < nb; ++k) {
    if (driven(k)) {
      poses[k] = *targets_[k];
      continue;
    }
    // Procrustes: the rotation nearest to the affine map (mass-weighted), the
    // centroid kept.
    poses[k].rotation = nearestRotation(A[k] * m.bones[k].secondMoment);
    poses[k].centroid = b[k];
  }
  // The joints the projection can close: those with a free bone (between
  // two driven bones the caller's poses decide).
  std::vector<size_t> active;
  for (size_t j = 0; j < nj; ++j)
    if (!driven(size_t(m.joints[j].boneA)) || !driven(size_t(m.joints[j].boneB))) active.push_back(j);
  if (active.empty()) return;
  std::vector<double>& errors = stats_.jointErrors.emplace_back();
  const double tolerance = settings_.jointTolerance * m.size;
  // Rows: three per joint (the gap), two more per hinge (its axis).
  const size_t na = active.size();
  std::vector<long> rowOf(na);
  long rows = 0;
  for (size_t j = 0; j < na; ++j) rowOf[j] = rows, rows += m.joints[active[j]].hinge ? 5 : 3;
  Eigen::MatrixXd C(rows, long(6 * nb)), schur(rows, rows);
  Eigen::VectorXd c(long(6 * nb)), r(rows), qinvC(long(6 * nb));
  std::vector<Mat3> inertiaInverse(nb);
  for (size_t k = 0; k < nb; ++k) inertiaInverse[k] = m.bones[k].inertia.inverse();
  int iterations = 0;
  for (; iterations < settings_.maxConstraintIterations; ++iterations) {
    // Joint gaps (the residual of eq. 13c).
    double error = 0, worst = 0;
    for (size_t j = 0; j < na; ++j) {
      const Joint& J = m.joints[active[j]];
      const BonePose &pa = poses[size_t(J.boneA)], &pb = poses[size_t(J.boneB)];
      const Vec3 gap = (pb.rotation * J.localB + pb.centroid) - (pa.rotation * J.localA + pa.centroid);
      r.segment<3>(rowOf[j]) = gap;
      error += gap.squaredNorm();
      worst = std::max(worst, gap.norm());
      if (J.hinge) {
        // B's axis against A's normals (radians), counted at the model's size.
        const Vec3 q = pb.rotation * J.axis;
        for (int i = 0; i < 2; ++i) {
          const double ci = (pa.rotation * (i == 0 ? J.normal1 : J.normal2)).dot(q);
          r[rowOf[j] + 3 + i] = ci;
          error += ci * ci * m.size * m.size;
          worst = std::max(worst, std::abs(ci) * m.size);
        }
      }
    }
    errors.push_back(error);
    if (worst <= tolerance) break;
    // Objective (eq. 18-19) in each bone's frame: s_k = (omega_k, l_k),
    // Q_k = diag(I_k, M_k), c_k = (-2 axial(R^T A S), 2 M R^T (c - b)).
    // After kRestoreAfter iterations the objective's pull is dropped (c = 0):
    // where the affine maps are far from rigid (a bone pressed hard by
    // contact), the Gauss-Newton steps on the objective converge slowly and
    // keep re-opening the joints; the pure constraint steps that follow close
    // them quadratically, moving the bones as little as their masses allow.
    constexpr int kRestoreAfter = 8;
    for (size_t k = 0; k < nb; ++k) {
      const Bone& bone = m.bones[k];
      const Mat3& R = poses[k].rotation;
      if (iterations >= kRestoreAfter || driven(k)) {
        c.segment<6>(long(6 * k)).setZero();
        continue;
      }
      c.segment<3>(long(6 * k)) = -2 * axial(R.transpose() * A[k] * bone.secondMoment);
      c.segment<3>(long(6 * k + 3)) = 2 * bone.mass * R.transpose() * (poses[k].centroid - b[k]);
    }
    // Linearised joints (eq. 16-17): C s = r.
    C.setZero();
    for (size_t j = 0; j < na; ++j) {
      const Joint& J = m.joints[active[j]];
      const long row = rowOf[j], a = 6 * J.boneA, bb = 6 * J.boneB;
      const Mat3 &Ra = poses[size_t(J.boneA)].rotation, &Rb = poses[size_t(J.boneB)].rotation;
      C.block<3, 3>(row, a) = -Ra * skew(J.localA);
      C.block<3, 3>(row, a + 3) = Ra;
      C.block<3, 3>(row, bb) = Rb * skew(J.localB);
      C.block<3, 3>(row, bb + 3) = -Rb;
      if (J.hinge) {
        // c_i = (Ra t_i) . (Rb u): dc/dw_a = t_i x Ra^T q, dc/dw_b = u x Rb^T (Ra t_i).
        const Vec3 q = Rb * J.axis;
        for (int i = 0; i < 2; ++i) {
          const Vec3& t = i == 0 ? J.normal1 : J.normal2;
          C.block<1, 3>(row + 3 + i, a) = -t.cross(Ra.transpose() * q).transpose();
          C.block<1, 3>(row + 3 + i, bb) = -J.axis.cross(Rb.transpose() * (Ra * t)).transpose();
        }
      }
    }
    // min s^T Q s + c^T s, C s = r: s = (2Q)^-1 (C^T lambda - c) with
    // C (2Q)^-1 C^T lambda = r + C (2Q)^-1 c.
    // A driven bone has infinite mass here: the projection never moves it.
    auto halfQinv = [&](const Eigen::VectorXd& v) {
      Eigen::VectorXd out(v.size());
      for (size_t k = 0; k < nb; ++k) {
        if (driven(k)) {
          out.segment<6>(long(6 * k)).setZero();
          continue;
        }
        out.segment<3>(long(6 * k)) = 0.5 * inertiaInverse[k] * v.segment<3>(long(6 * k));
        out.segment<3>(long(6 * k + 3)) = 0.5 / m.bones[k].mass * v.segment<3>(long(6 * k + 3));
      }
      return out;
    };
    Eigen::MatrixXd QinvCt(long(6 * nb), rows);
    for (long col = 0; col < rows; ++col) QinvCt.col(col) = halfQinv(C.row(col).transpose());
    schur = C * QinvCt;
    const Eigen::VectorXd lambda = schur.ldlt().solve(r + C * halfQinv(c));
    Eigen::VectorXd s = QinvCt * lambda - halfQinv(c);
    // A trust region: the linearisation holds for small rotations, so no
    // bone turns by more than 0.5 rad in one iteration (the step is scaled).
    double largest = 0;
    for (size_t k = 0; k < nb; ++k) largest = std::max(largest, s.segment<3>(long(6 * k)).norm());
    if (largest > 0.5) s *= 0.5 / largest;
    // Back to SE(3) exactly (eq. 14 with the exponential map).
    for (size_t k = 0; k < nb; ++k) {
      if (driven(k)) continue;
      const Vec3 omega = s.segment<3>(long(6 * k)), l = s.segment<3>(long(6 * k + 3));
      poses[k].centroid += poses[k].rotation * l;
      poses[k].rotation = poses[k].rotation * expRotation(omega);
    }
  }
  stats_.constraintIterations += iterations;
  stats_.maxConstraintIterations = std::max(stats_.maxConstraintIterations, iterations);
}

void Li2019Solver::resolvePenetration(std::vector<Vec3>& x, const std::vector<Vec3>& previous,
                                      std::vector<BonePose>& poses) {
  const Li2019Model& m = *model_;
  const Settings& s = settings_;
  const dyn::ColliderGrid& grid = scratch_->grid;
  auto deepest = [&](const Vec3& p) {
    dyn::ContactPoint d{0, Vec3::UnitY()};
    if (s.ground) d = dyn::probeGround(s.groundHeight, p);
    for (int32_t c : grid.candidates(p)) {
      const dyn::ContactPoint cp = dyn::probe(s.colliders[size_t(c)], grid.poses()[size_t(c)], p);
      if (cp.depth > d.depth) d = cp;
    }
    return d;
  };
  std::vector<dyn::ContactPoint> boneShift(m.bones.size(), dyn::ContactPoint{0, Vec3::UnitY()});
  for (size_t i = 0; i < m.nodeCount(); ++i) {
    const dyn::ContactPoint d = deepest(x[i]);
    if (!(d.depth > 0)) continue;
    const int32_t k = m.exact() ? m.nodeBone[i] : -1;
    if (k < 0) {
      x[i] += d.depth * d.normal;
      // Coulomb friction on the position level: the step's sliding shrinks
      // by mu times the depth pushed out.
      Vec3 slide = x[i] - previous[i];
      slide -= slide.dot(d.normal) * d.normal;
      const double length = slide.norm();
      if (length > 0) x[i] -= slide * std::min(1.0, s.friction * d.depth / length);
    } else if (!driven(size_t(k)) && d.depth > boneShift[size_t(k)].depth) {
      boneShift[size_t(k)] = d;
    }
  }
  bool moved = false;
  std::vector<Mat3> A(m.bones.size());
  std::vector<Vec3> b(m.bones.size());
  for (size_t k = 0; k < m.bones.size(); ++k) {
    A[k] = poses[k].rotation;
    b[k] = poses[k].centroid + boneShift[k].depth * boneShift[k].normal;
    moved = moved || boneShift[k].depth > 0;
  }
  if (!moved) return;
  // The moved bones as the target of the joint projection, so the joints hold.
  projectBones(A, b, poses);
  for (size_t k = 0; k < m.bones.size(); ++k)
    for (int32_t i : m.bones[k].nodes)
      x[size_t(i)] = poses[k].rotation * (m.restNodes[size_t(i)] - m.bones[k].restCentroid) + poses[k].centroid;
}

// Algorithm 1 of Li, Liu and Kavan 2019, one named stage per line: predict,
// then per iteration the local step (elastic projections and contact
// forces), the global solve, the exact bones and joints, the nodes placed;
// then penetration removed and velocities updated.
const StepStats& Li2019Solver::step() {
  const auto t0 = Clock::now();
  const Li2019Model& m = *model_;
  Scratch& w = *scratch_;
  stats_ = {};
  if (!settings_.pinTargets.empty() && settings_.pinTargets.size() != m.pinWeight.size())
    throw std::invalid_argument("Li2019Solver: one pin target per pinned node (" + std::to_string(m.pinWeight.size()) + ")");
  const std::vector<Vec3> previous = state_.x;
  w.grid = dyn::ColliderGrid(settings_.colliders);

  std::vector<BonePose> poses = state_.bones;
  predict(poses);
  const Eigen::MatrixXd inertial = m.factor->BtMh * w.y;
  for (int it = 0; it < settings_.iterations; ++it) {
    auto t = Clock::now();
    localStep(w.x);
    contactStep(w.x, previous);
    stats_.localSeconds += since(t);
    t = Clock::now();
    globalStep(inertial);
    stats_.globalSeconds += since(t);
    t = Clock::now();
    if (m.exact()) constraintStep(w.xhat, poses);
    stats_.jointSeconds += since(t);
    placeNodes(poses);
  }
  if (settings_.ground || !settings_.colliders.empty()) resolvePenetration(w.x, previous, poses);
  updateVelocities(previous, poses);
  for (size_t i = 0; i < m.nodeCount(); ++i) stats_.contacts += state_.contactNormal[i] > 0 ? 1 : 0;
  stats_.totalSeconds = since(t0);
  return stats_;
}

// Prediction y = x + h v + h^2 g (eq. 4); the first guess x = y, driven
// bones (and their nodes) at their targets; contact forces found afresh (a
// warm start from the last step's can launch a body that has lifted off).
void Li2019Solver::predict(std::vector<BonePose>& poses) {
  const Li2019Model& m = *model_;
  Scratch& w = *scratch_;
  const size_t n = m.nodeCount();
  const double h = m.options.dt;
  w.y.resize(long(n), 3);
  for (size_t i = 0; i < n; ++i) w.y.row(long(i)) = (state_.x[i] + h * state_.v[i] + h * h * settings_.gravity).transpose();
  w.p.resize(long(n), 3);
  w.fc = Eigen::MatrixXd::Zero(long(n), 3);
  w.normal.assign(n, Vec3::UnitY());
  std::fill(state_.contactNormal.begin(), state_.contactNormal.end(), 0.0);
  std::fill(state_.contactTangent.begin(), state_.contactTangent.end(), Vec3::Zero());
  w.x.resize(n);
  for (size_t i = 0; i < n; ++i)
    w.x[i] = settings_.warmStart && state_.steps > 0 ? Vec3(state_.x[i] + h * state_.v[i] + h * h * state_.a[i])
                                                     : Vec3(w.y.row(long(i)).transpose());
  for (size_t k = 0; k < m.bones.size(); ++k) {
    if (!driven(k)) continue;
    poses[k] = *targets_[k];
    for (int32_t i : m.bones[k].nodes)
      w.x[size_t(i)] = poses[k].rotation * (m.restNodes[size_t(i)] - m.bones[k].restCentroid) + poses[k].centroid;
  }
}

// The global step (eq. 8, reduced by the affine bones): the right-hand side
// from inertia, the local projections, contact and external forces and the
// attachments' w p; solved with the prefactored matrix; driven bones held.
void Li2019Solver::globalStep(const Eigen::MatrixXd& inertial) {
  const Li2019Model& m = *model_;
  Scratch& w = *scratch_;
  Eigen::MatrixXd& forces = w.forces;
  forces = w.p + w.fc;
  for (size_t i = 0; i < external_.size(); ++i) forces.row(long(i)) += external_[i].transpose();
  for (size_t k = 0; k < m.pinWeight.size(); ++k) {
    const int32_t i = m.options.pinnedNodes[k];
    const Vec3& target = k < settings_.pinTargets.size() ? settings_.pinTargets[k] : m.restNodes[size_t(i)];
    forces.row(i) += m.pinWeight[k] * target.transpose();
  }
  w.rhs = inertial + m.factor->Bt * forces;
  m.factor->solve(w.rhs, w.xhat);
  if (!targets_.empty()) holdDrivenBones(w.xhat);
}

// Nodes from the global solution: flesh nodes as solved, bone nodes rigidly
// with their bone's pose (exact bones).
void Li2019Solver::placeNodes(const std::vector<BonePose>& poses) {
  const Li2019Model& m = *model_;
  Scratch& w = *scratch_;
  for (size_t i = 0; i < m.nodeCount(); ++i) {
    const int32_t k = m.exact() ? m.nodeBone[i] : -1;
    if (k < 0) {
      w.x[i] = w.xhat.row(m.reducedIndex[i]).transpose();
    } else {
      const BonePose& pose = poses[size_t(k)];
      w.x[i] = pose.rotation * (m.restNodes[i] - m.bones[size_t(k)].restCentroid) + pose.centroid;
    }
  }
}

// v = (x - x_previous) / h, refusing a run that left the finite numbers or
// moves faster than the limit; the state advances and the joints' gaps are
// measured.
void Li2019Solver::updateVelocities(const std::vector<Vec3>& previous, const std::vector<BonePose>& poses) {
  const Li2019Model& m = *model_;
  const Scratch& w = *scratch_;
  const size_t n = m.nodeCount();
  const double h = m.options.dt;
  double fastest = 0;
  for (size_t i = 0; i < n; ++i) {
    const Vec3 v = (w.x[i] - previous[i]) / h;
    if (!v.allFinite()) throw SimulationError("li2019: node " + std::to_string(i) + " left the finite numbers at t = " +
                                                  std::to_string(state_.time), state_.time);
    fastest = std::max(fastest, v.norm());
  }
  if (fastest > settings_.maxSpeed)
    throw SimulationError("li2019: a node moves at " + std::to_string(fastest) + " m/s (limit " +
                              std::to_string(settings_.maxSpeed) + ") at t = " + std::to_string(state_.time) +
                              ": the run diverged",
                          state_.time);
  for (size_t i = 0; i < n; ++i) {
    const Vec3 v = (w.x[i] - previous[i]) / h;
    state_.a[i] = (v - state_.v[i]) / h;
    state_.v[i] = v;
    state_.x[i] = w.x[i];
  }
  state_.bones = poses;
  state_.time += h;
  ++state_.steps;
  for (const Joint& J : m.joints) {
    const Vec3 gap = (poses[size_t(J.boneB)].rotation * J.localB + poses[size_t(J.boneB)].centroid) -
                     (poses[size_t(J.boneA)].rotation * J.localA + poses[size_t(J.boneA)].centroid);
    stats_.jointError = std::max(stats_.jointError, gap.norm());
  }
}

}  // namespace sinew::li2019
