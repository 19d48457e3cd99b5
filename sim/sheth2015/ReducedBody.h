// Momentum-conserving reduced deformable bodies (Sheth, Lu, Yu and Fedkiw
// 2015): particles x_i = R (S_i q + x0_i) + t (eq. 1-2), a rigid frame (t, R)
// carrying a linear modal basis S with reduced coordinates q. The basis is
// processed so that every mode's mass-weighted column sum is zero (no mode
// moves the centre of mass), and the frame's angular velocity is corrected by
// omega' (eq. 8) so that the modes' velocities carry no net angular momentum:
// the body's total linear and angular momenta are those of the frame.
//
// The immutable model (rest particles, masses, basis and every O(n) sum the
// step needs, precomputed so a step costs O(r^2) and an impulse O(r)) is
// ReducedBodyModel; the mutable state ReducedBodyState; `stepBody` runs the
// paper's Section 6 pipeline (eq. 15-16, 34-35 with the fictitious forces of
// eq. 14, 36-38, then omega' and omega_R again).
#pragma once

#include "core/Types.h"
#include "volume/TetMesh.h"

#include <Eigen/Core>

#include <memory>
#include <string>
#include <vector>

namespace sinew::sheth2015 {

struct BodyMaterial {
  double density = 1000;        // kg/m^3
  double youngsModulus = 1e5;   // Pa (linear FEM)
  double poissonRatio = 0.3;
  double alpha = 0.0;           // Rayleigh damping C = alpha M + beta K (eq. 21)
  double beta = 0.01;
};

struct ReducedBodyModel {
  std::string name;
  // Particles in the body frame (centre of mass at the origin), masses
  // (lumped: the row sums of the mass matrix, as Section 4 allows).
  std::vector<Vec3> x0;
  std::vector<double> mass;
  std::vector<Tet> tets;
  double totalMass = 0;
  Vec3 restCenter = Vec3::Zero();   // where the centre of mass was in the input (world)
  // The basis: 3n x r (rows 3i..3i+2 are S_i), mass-weighted column sums zero.
  Eigen::MatrixXd S;
  Eigen::VectorXd frequencies;      // Hz of the kept modes
  Eigen::MatrixXd Mr, Kr, Cr;       // S^T M S, S^T K S, alpha Mr + beta Kr
  Eigen::MatrixXd MrInverse;        // for impulses (eq. 29)
  // Precomputed sums (object space):
  Eigen::MatrixXd B0;               // 3 x r: sum m_i [x0_i]x S_i           (omega', eq. 8)
  std::vector<Eigen::MatrixXd> Bk;  // r of 3 x r: sum m_i [S_i e_k]x S_i
  Mat3 E0 = Mat3::Zero();           // sum m_i x0 x0^T                      (inertia tensor)
  std::vector<Mat3> Ck;             // r: sum m_i x0_i (S_i e_k)^T
  std::vector<Mat3> Dkl;            // r x r: sum m_i (S_i e_k)(S_i e_l)^T
  Eigen::MatrixXd G[3];             // r x r: sum m_i S_i^T [e_d]x S_i      (fictitious forces, eq. 14)
  Eigen::VectorXd g[3];             // r: sum m_i S_i^T (e_d x x0_i)
  Eigen::MatrixXd H[3][3];          // r x r: sum m_i S_i,d^T S_i,e (rows d and e of S_i)
  Eigen::VectorXd h[3][3];          // r: sum m_i S_i,d^T x0_i,e
  Eigen::VectorXd h0;               // r: sum m_i S_i^T x0_i
  size_t particleCount() const { return x0.size(); }
  int modeCount() const { return int(S.cols()); }
};

// Builds a body from a tet mesh (world positions) with `modes` modes: linear
// FEM stiffness and lumped mass, the generalized eigenproblem K phi = lambda
// M phi (Spectra, shift-invert), the six rigid modes skipped, the basis
// processed and checked for full column rank. modes = 0 gives a rigid body.
// Throws InputError("body '<name>'", ...): a tet of zero volume, a particle
// in no tet (singular mass), too few particles for the modes, more than six
// rigid modes (disconnected), a basis without full rank.
std::shared_ptr<const ReducedBodyModel> buildReducedBody(const TetMesh& mesh, const BodyMaterial& material, int modes,
                                                        const std::string& name);

struct ReducedBodyState {
  Vec3 t = Vec3::Zero();            // centre of mass, world
  Quat rotation = Quat::Identity(); // R
  Eigen::VectorXd q, qDot;          // reduced coordinates and velocities
  Vec3 v = Vec3::Zero();            // linear velocity of the centre of mass
  Vec3 L = Vec3::Zero();            // body angular momentum about the centre of mass, world
  Vec3 omegaR = Vec3::Zero();       // the frame's angular velocity (derived: I^-1 L - omega')
  Vec3 omegaPrime = Vec3::Zero();   // eq. 8 (derived)
  Vec3 omegaRPrevious = Vec3::Zero();  // for the frame's angular acceleration in eq. 14
  Vec3 omegaStepStart = Vec3::Zero();  // omega_R when the step began
  // Derived from the positions (R, q), refreshed by updateAngularVelocity, so
  // that impulses between position updates cost O(r): the inverse world
  // inertia tensor and R sum m_i [p_i]x S_i (3 x r, world).
  Mat3 inertiaInverse = Mat3::Identity();
  Eigen::MatrixXd armSum;
};

// At rest where the mesh was (t = its centre of mass, R = I, q = 0).
ReducedBodyState restState(const ReducedBodyModel& m);

struct StepSettings {
  double dt = 1.0 / 60;
  Vec3 gravity = Vec3(0, -9.81, 0);
  bool correctAngularMomentum = true;  // omega' (eq. 8); off: omega_R = I^-1 L (the uncorrected scheme of Fig. 3)
  bool fictitiousForces = true;        // eq. 14
};

// Derived quantities of the current positions.
Mat3 inertiaWorld(const ReducedBodyModel& m, const ReducedBodyState& s);
Vec3 omegaPrime(const ReducedBodyModel& m, const ReducedBodyState& s);
// omega' and omega_R from L, q and qDot (eq. 8, 11); with `correct` off,
// omega' = 0. Also refreshes the state's derived inertia terms: call it after
// changing t, R or q directly.
void updateAngularVelocity(const ReducedBodyModel& m, ReducedBodyState& s, bool correct = true);

// One step (Section 6). External forces: gravity only (uniform: no torque
// about the centre of mass and no reduced force). It is the two halves below
// in a row: first the velocities (eq. 15-16, 34-35; omega' and omega_R with
// the new velocities), then the positions (eq. 36-38; the inertia tensor,
// omega' and omega_R again). Collisions and joints act between the two.
void stepBody(const ReducedBodyModel& m, ReducedBodyState& s, const StepSettings& settings);
void advanceVelocities(const ReducedBodyModel& m, ReducedBodyState& s, const StepSettings& settings);
void advancePositions(const ReducedBodyModel& m, ReducedBodyState& s, const StepSettings& settings);

// Particle i's world position and velocity (eq. 2, 3).
Vec3 particlePosition(const ReducedBodyModel& m, const ReducedBodyState& s, size_t i);
Vec3 particleVelocity(const ReducedBodyModel& m, const ReducedBodyState& s, size_t i);
std::vector<Vec3> particlePositions(const ReducedBodyModel& m, const ReducedBodyState& s);

// Momenta summed over the particles (the check on the frame's bookkeeping):
// linear, and angular about the world origin.
Vec3 particleLinearMomentum(const ReducedBodyModel& m, const ReducedBodyState& s);
Vec3 particleAngularMomentum(const ReducedBodyModel& m, const ReducedBodyState& s);

// The impulse factor K = K1 + K2 of eq. 33 at particle k: the change of its
// velocity per unit impulse (world). And the impulse itself: v, L and qDot
// change (eq. 25, 27, 29), then omega' and omega_R.
//
// `response` is the reduced velocities' response to a generalized impulse:
// nullptr means Mr^-1, eq. 29 as printed. implicitResponse(m, h) gives
// (Mr + h Cr + h^2 Kr)^-1 instead: the impulse taken as a force acting
// through the step's implicit solve (eq. 35), so that a stiff body's modes
// answer a hard hit with the deformation its stiffness allows rather than
// with its modal mass alone. Momenta are conserved either way (the modes
// carry no linear momentum; omega' takes their angular momentum).
Eigen::MatrixXd implicitResponse(const ReducedBodyModel& m, double dt);
Mat3 impulseFactor(const ReducedBodyModel& m, const ReducedBodyState& s, size_t k, const Eigen::MatrixXd* response = nullptr);
void applyImpulse(const ReducedBodyModel& m, ReducedBodyState& s, size_t k, const Vec3& j,
                  const Eigen::MatrixXd* response = nullptr);
// The same, with the angular part taken about world point `at` instead of
// the particle (a joint's impulses act at the midpoint r-hat of its two
// particles, eq. 41, so that the pair changes no angular momentum).
void applyImpulseAt(const ReducedBodyModel& m, ReducedBodyState& s, size_t k, const Vec3& j, const Vec3& at,
                    const Eigen::MatrixXd* response = nullptr);
// Where particle k would be after applyImpulseAt(k, j, at) and
// advancePositions(dt), without changing the state (O(r^2), no copy): the
// pre-stabilization's f(j) of eq. 41.
Vec3 particleAfterImpulse(const ReducedBodyModel& m, const ReducedBodyState& s, size_t k, const Vec3& j, const Vec3& at,
                          double dt, const Eigen::MatrixXd* response = nullptr);

}  // namespace sinew::sheth2015
