#include "sheth2015/ReducedBody.h"

#include "core/Error.h"
#include "sheth2015/Modes.h"

#include <Eigen/Dense>

#include <cmath>

namespace sinew::sheth2015 {

namespace {

constexpr double kPi = 3.14159265358979323846;

Mat3 cross(const Vec3& v) { return skew(v); }

// S_i: the 3 x r block of particle i.
Eigen::Block<const Eigen::MatrixXd> Si(const ReducedBodyModel& m, size_t i) {
  return m.S.block(Eigen::Index(3 * i), 0, 3, m.S.cols());
}

Quat expQuat(const Vec3& theta) {
  const double a = theta.norm();
  if (a < 1e-300) return Quat::Identity();
  return Quat(Eigen::AngleAxisd(a, theta / a));
}

// The object-space second moment sum m p p^T at q (quadratic in q).
Mat3 secondMoment(const ReducedBodyModel& m, const Eigen::VectorXd& q) {
  Mat3 E = m.E0;
  const int r = m.modeCount();
  for (int k = 0; k < r; ++k) {
    E += q[k] * (m.Ck[size_t(k)] + m.Ck[size_t(k)].transpose());
    for (int l = 0; l < r; ++l) E += q[k] * q[l] * m.Dkl[size_t(k * r + l)];
  }
  return E;
}

Mat3 inertiaObject(const ReducedBodyModel& m, const Eigen::VectorXd& q) {
  const Mat3 E = secondMoment(m, q);
  return E.trace() * Mat3::Identity() - E;
}

// sum m_i [p_i]x S_i (3 x r) at q: with R in front, sum m r_i* R S_i.
Eigen::MatrixXd momentArmSum(const ReducedBodyModel& m, const Eigen::VectorXd& q) {
  Eigen::MatrixXd B = m.B0;
  for (int k = 0; k < m.modeCount(); ++k) B += q[k] * m.Bk[size_t(k)];
  return B;
}

}  // namespace

std::shared_ptr<const ReducedBodyModel> buildReducedBody(const TetMesh& mesh, const BodyMaterial& mat, int modes,
                                                        const std::string& name) {
  const std::string who = "body '" + name + "'";
  const size_t n = mesh.nodeCount();
  if (n < 4 || mesh.tets.empty()) throw InputError(who, "needs at least one tet");
  if (modes < 0) throw InputError(who, "the number of modes must be zero or more");
  if (3 * n < size_t(modes) + 6)
    throw InputError(who, std::to_string(n) + " particles are too few for " + std::to_string(modes) + " modes (at most " +
                              std::to_string(3 * n - 6) + ")");
  if (!(mat.density > 0) || !(mat.youngsModulus > 0) || !(mat.poissonRatio >= 0 && mat.poissonRatio < 0.5))
    throw InputError(who, "density and Young's modulus must be positive, Poisson's ratio in [0, 0.5)");
  auto m = std::make_shared<ReducedBodyModel>();
  m->name = name;
  m->tets = mesh.tets;
  // Lumped masses.
  m->mass.assign(n, 0.0);
  for (size_t t = 0; t < mesh.tetCount(); ++t) {
    const double v = tetVolume(mesh, t);
    if (!(v > 0)) throw InputError(who, "tet " + std::to_string(t) + " has no volume (or is inverted)");
    for (int32_t i : mesh.tets[t]) m->mass[size_t(i)] += mat.density * v / 4;
  }
  for (size_t i = 0; i < n; ++i)
    if (!(m->mass[i] > 0)) throw InputError(who, "particle " + std::to_string(i) + " is in no tet: its mass (and the mass matrix) is singular");
  Vec3 com = Vec3::Zero();
  for (size_t i = 0; i < n; ++i) m->totalMass += m->mass[i], com += m->mass[i] * mesh.nodes[i];
  com /= m->totalMass;
  m->restCenter = com;
  for (const Vec3& x : mesh.nodes) m->x0.push_back(x - com);

  const int r = modes;
  m->S = Eigen::MatrixXd::Zero(Eigen::Index(3 * n), r);
  m->frequencies = Eigen::VectorXd::Zero(r);
  if (r > 0) {
    TetMesh centred = mesh;
    centred.nodes = m->x0;
    const Eigen::SparseMatrix<double> K = linearStiffness(centred, mat.youngsModulus, mat.poissonRatio);
    const Modes all = lowestModes(K, m->mass, r + 6, who);
    // Six rigid modes (eigenvalue ~ 0), then the deformation modes.
    const double top = all.eigenvalues[all.eigenvalues.size() - 1];
    if (!(all.eigenvalues[6] > 1e-6 * top))
      throw InputError(who, "has more than six rigid modes: its tets are not one connected piece");
    for (int k = 0; k < r; ++k) {
      m->S.col(k) = all.vectors.col(6 + k);
      m->frequencies[k] = std::sqrt(std::max(0.0, all.eigenvalues[6 + k])) / (2 * kPi);
    }
    // Mass-weighted column sums to zero (they are already, to rounding, by
    // M-orthogonality to the translations; made exact here).
    for (int k = 0; k < r; ++k) {
      Vec3 mean = Vec3::Zero();
      for (size_t i = 0; i < n; ++i) mean += m->mass[i] * m->S.block<3, 1>(Eigen::Index(3 * i), k);
      mean /= m->totalMass;
      for (size_t i = 0; i < n; ++i) m->S.block<3, 1>(Eigen::Index(3 * i), k) -= mean;
    }
    m->Kr = m->S.transpose() * (K * m->S);
  } else {
    m->Kr = Eigen::MatrixXd::Zero(0, 0);
  }
  // Reduced mass and every precomputed sum.
  m->Mr = Eigen::MatrixXd::Zero(r, r);
  m->B0 = Eigen::MatrixXd::Zero(3, r);
  m->Bk.assign(size_t(r), Eigen::MatrixXd::Zero(3, r));
  m->Ck.assign(size_t(r), Mat3::Zero());
  m->Dkl.assign(size_t(r * r), Mat3::Zero());
  m->h0 = Eigen::VectorXd::Zero(r);
  for (int d = 0; d < 3; ++d) {
    m->G[d] = Eigen::MatrixXd::Zero(r, r);
    m->g[d] = Eigen::VectorXd::Zero(r);
    for (int e = 0; e < 3; ++e) m->H[d][e] = Eigen::MatrixXd::Zero(r, r), m->h[d][e] = Eigen::VectorXd::Zero(r);
  }
  for (size_t i = 0; i < n; ++i) {
    const double mi = m->mass[i];
    const Vec3& x = m->x0[i];
    m->E0 += mi * x * x.transpose();
    if (r == 0) continue;
    const Eigen::MatrixXd S = Si(*m, i);
    m->Mr += mi * S.transpose() * S;
    m->B0 += mi * cross(x) * S;
    m->h0 += mi * S.transpose() * x;
    for (int k = 0; k < r; ++k) {
      const Vec3 sk = S.col(k);
      m->Bk[size_t(k)] += mi * cross(sk) * S;
      m->Ck[size_t(k)] += mi * x * sk.transpose();
      for (int l = 0; l < r; ++l) m->Dkl[size_t(k * r + l)] += mi * sk * Vec3(S.col(l)).transpose();
    }
    for (int d = 0; d < 3; ++d) {
      m->G[d] += mi * S.transpose() * cross(Vec3::Unit(d)) * S;
      m->g[d] += mi * S.transpose() * Vec3::Unit(d).cross(x);
      for (int e = 0; e < 3; ++e) {
        m->H[d][e] += mi * S.row(d).transpose() * S.row(e);
        m->h[d][e] += mi * S.row(d).transpose() * x[e];
      }
    }
  }
  m->Cr = mat.alpha * m->Mr + mat.beta * m->Kr;
  if (r > 0) {
    // Full column rank: the reduced mass must be well conditioned.
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(m->Mr);
    if (!(eig.eigenvalues().minCoeff() > 1e-10 * eig.eigenvalues().maxCoeff()))
      throw InputError(who, "its basis does not have full column rank");
    m->MrInverse = m->Mr.inverse();
  } else {
    m->MrInverse = Eigen::MatrixXd::Zero(0, 0);
  }
  return m;
}

ReducedBodyState restState(const ReducedBodyModel& m) {
  ReducedBodyState s;
  s.t = m.restCenter;
  s.q = Eigen::VectorXd::Zero(m.modeCount());
  s.qDot = Eigen::VectorXd::Zero(m.modeCount());
  updateAngularVelocity(m, s, true);
  return s;
}

Mat3 inertiaWorld(const ReducedBodyModel& m, const ReducedBodyState& s) {
  const Mat3 R = s.rotation.toRotationMatrix();
  return R * inertiaObject(m, s.q) * R.transpose();
}

Vec3 omegaPrime(const ReducedBodyModel& m, const ReducedBodyState& s) {
  if (m.modeCount() == 0) return Vec3::Zero();
  // eq. 8: I^-1 sum m_i r_i* R S_i qDot = R I_obj^-1 (sum m [p_i]x S_i) qDot.
  const Vec3 object = inertiaObject(m, s.q).ldlt().solve(momentArmSum(m, s.q) * s.qDot);
  return s.rotation * object;
}

namespace {
// omega' and omega_R from the cached inertia terms (positions unchanged).
void angularVelocityFromCache(const ReducedBodyModel& m, ReducedBodyState& s, bool correct) {
  s.omegaPrime = correct && m.modeCount() > 0 ? Vec3(s.inertiaInverse * (s.armSum * s.qDot)) : Vec3::Zero();  // eq. 8
  s.omegaR = s.inertiaInverse * s.L - s.omegaPrime;                                                         // eq. 11
}
}  // namespace

void updateAngularVelocity(const ReducedBodyModel& m, ReducedBodyState& s, bool correct) {
  const Mat3 R = s.rotation.toRotationMatrix();
  s.inertiaInverse = R * inertiaObject(m, s.q).inverse() * R.transpose();
  s.armSum = m.modeCount() > 0 ? Eigen::MatrixXd(R * momentArmSum(m, s.q)) : Eigen::MatrixXd::Zero(3, 0);
  angularVelocityFromCache(m, s, correct);
}

void stepBody(const ReducedBodyModel& m, ReducedBodyState& s, const StepSettings& set) {
  advanceVelocities(m, s, set);
  advancePositions(m, s, set);
}

void advanceVelocities(const ReducedBodyModel& m, ReducedBodyState& s, const StepSettings& set) {
  const double h = set.dt;
  const int r = m.modeCount();
  s.omegaStepStart = s.omegaR;
  // eq. 15-16: the frame's momenta (gravity: no torque about the centre of mass).
  s.v += h * set.gravity;
  // eq. 34-35: the reduced velocities, implicit in the internal forces.
  if (r > 0) {
    Eigen::VectorXd rhs = m.Mr * s.qDot - h * m.Kr * s.q;
    if (set.fictitiousForces) {
      // eq. 14 in object space: Coriolis -2 sum m S^T (w x S qDot), Euler
      // -sum m S^T (a x p), centrifugal -sum m S^T w x (w x p).
      const Vec3 w = s.rotation.conjugate() * s.omegaR;
      const Vec3 a = s.rotation.conjugate() * ((s.omegaR - s.omegaRPrevious) / h);
      Eigen::VectorXd fict = Eigen::VectorXd::Zero(r);
      for (int d = 0; d < 3; ++d) {
        fict -= 2 * w[d] * (m.G[d] * s.qDot);
        fict -= a[d] * (m.G[d] * s.q + m.g[d]);
        for (int e = 0; e < 3; ++e) fict -= w[d] * w[e] * (m.H[d][e] * s.q + m.h[d][e]);
      }
      fict += w.squaredNorm() * (m.Mr * s.q + m.h0);
      rhs += h * fict;
    }
    const Eigen::MatrixXd A = m.Mr + h * m.Cr + h * h * m.Kr;
    s.qDot = A.ldlt().solve(rhs);
  }
  // omega' and omega_R with the new velocities (eq. 8, 11); the inertia
  // terms refreshed too, in case the caller moved the body.
  updateAngularVelocity(m, s, set.correctAngularMomentum);
}

void advancePositions(const ReducedBodyModel& m, ReducedBodyState& s, const StepSettings& set) {
  const double h = set.dt;
  const Vec3 omegaStart = s.omegaStepStart;
  // eq. 36-38.
  s.t += h * s.v;
  s.rotation = (expQuat(h * s.omegaR) * s.rotation).normalized();
  if (m.modeCount() > 0) s.q += h * s.qDot;
  // The inertia tensor and the angular velocities of the new positions.
  updateAngularVelocity(m, s, set.correctAngularMomentum);
  s.omegaRPrevious = omegaStart;
}

Vec3 particlePosition(const ReducedBodyModel& m, const ReducedBodyState& s, size_t i) {
  Vec3 p = m.x0[i];
  if (m.modeCount() > 0) p += Si(m, i) * s.q;
  return s.rotation * p + s.t;
}

Vec3 particleVelocity(const ReducedBodyModel& m, const ReducedBodyState& s, size_t i) {
  const Vec3 r = particlePosition(m, s, i) - s.t;
  Vec3 v = s.v + s.omegaR.cross(r);
  if (m.modeCount() > 0) v += s.rotation * Vec3(Si(m, i) * s.qDot);
  return v;
}

std::vector<Vec3> particlePositions(const ReducedBodyModel& m, const ReducedBodyState& s) {
  std::vector<Vec3> x(m.particleCount());
  for (size_t i = 0; i < x.size(); ++i) x[i] = particlePosition(m, s, i);
  return x;
}

Vec3 particleLinearMomentum(const ReducedBodyModel& m, const ReducedBodyState& s) {
  Vec3 p = Vec3::Zero();
  for (size_t i = 0; i < m.particleCount(); ++i) p += m.mass[i] * particleVelocity(m, s, i);
  return p;
}

Vec3 particleAngularMomentum(const ReducedBodyModel& m, const ReducedBodyState& s) {
  Vec3 L = Vec3::Zero();
  for (size_t i = 0; i < m.particleCount(); ++i) L += m.mass[i] * particlePosition(m, s, i).cross(particleVelocity(m, s, i));
  return L;
}

Eigen::MatrixXd implicitResponse(const ReducedBodyModel& m, double h) {
  if (m.modeCount() == 0) return Eigen::MatrixXd::Zero(0, 0);
  return Eigen::MatrixXd(m.Mr + h * m.Cr + h * h * m.Kr).inverse();
}

Mat3 impulseFactor(const ReducedBodyModel& m, const ReducedBodyState& s, size_t k, const Eigen::MatrixXd* response) {
  const Mat3 R = s.rotation.toRotationMatrix();
  const Vec3 rk = particlePosition(m, s, k) - s.t;
  const Mat3& Iinv = s.inertiaInverse;
  // eq. 33b: the rigid body's factor.
  Mat3 K = Mat3::Identity() / m.totalMass - cross(rk) * Iinv * cross(rk);
  if (m.modeCount() > 0) {
    // eq. 29: A_k = Mr^-1 S_k^T (P = I: the basis already has no net translation).
    const Eigen::MatrixXd Ak = (response ? *response : m.MrInverse) * Si(m, k).transpose();
    // eq. 33c: R S_k A_k R^T + r_k* I^-1 (sum m r_i* R S_i) A_k R^T.
    K += R * (Si(m, k) * Ak) * R.transpose();
    K += cross(rk) * Iinv * (s.armSum * Ak) * R.transpose();
  }
  return K;
}

void applyImpulse(const ReducedBodyModel& m, ReducedBodyState& s, size_t k, const Vec3& j, const Eigen::MatrixXd* response) {
  applyImpulseAt(m, s, k, j, particlePosition(m, s, k), response);
}

void applyImpulseAt(const ReducedBodyModel& m, ReducedBodyState& s, size_t k, const Vec3& j, const Vec3& at,
                    const Eigen::MatrixXd* response) {
  const Vec3 rk = at - s.t;
  s.v += j / m.totalMass;                 // eq. 25
  s.L += rk.cross(j);                     // eq. 27
  if (m.modeCount() > 0)                  // eq. 29
    s.qDot += (response ? *response : m.MrInverse) * (Si(m, k).transpose() * (s.rotation.conjugate() * j));
  angularVelocityFromCache(m, s, true);   // eq. 28 with omega' (eq. 32)
}

Vec3 particleAfterImpulse(const ReducedBodyModel& m, const ReducedBodyState& s, size_t k, const Vec3& j, const Vec3& at,
                          double h, const Eigen::MatrixXd* response) {
  // applyImpulseAt's velocities (eq. 25, 27, 29 and omega_R from the cached
  // inertia terms), then advancePositions' eq. 36-38 for this one particle.
  const Vec3 v = s.v + j / m.totalMass;
  const Vec3 L = s.L + (at - s.t).cross(j);
  Vec3 p = m.x0[k];
  Vec3 omegaR = s.inertiaInverse * L;
  if (m.modeCount() > 0) {
    const Eigen::VectorXd qDot = s.qDot + (response ? *response : m.MrInverse) * (Si(m, k).transpose() * (s.rotation.conjugate() * j));
    omegaR -= s.inertiaInverse * (s.armSum * qDot);
    p += Si(m, k) * (s.q + h * qDot);
  }
  const Quat R = (expQuat(h * omegaR) * s.rotation).normalized();
  return R * p + s.t + h * v;
}

}  // namespace sinew::sheth2015
