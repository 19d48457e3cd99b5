// Sinew against peer engines, each pair on the same scene, in one run
// (docs/PERFORMANCE.md, "Sinew against its peers"):
//   build/bin/bench_peers --benchmark_min_time=1
// Every iteration is one step of the scene; realtime_factor is simulated
// seconds per wall-clock second. After the timed steps each benchmark reports
// `stable` (1: every position finite; the cage: no node more than kMaxDrift
// from where it rested before the timing; the skeleton: no link further from
// the pinned root than at rest, give or take kJointSlack) and `steps`/`sim_s`,
// how far the scene ran.
//
// 1. The example character's cage (projects/humanoid/humanoid-rigged.sinew:
//    the Liu 2013 model's nodes, tets, lumped masses, Young's modulus, Poisson
//    ratio; gravity; a ground at Settings::groundHeight).
//    BM_PeerCage_Sinew: one Liu 2013 step (0.5 ms, 1 thread), the skeleton
//      simulated, PD-held in its rest pose (DriveMode::Hold); root_min_m and
//      root_max_m: the lowest and highest the root joint (the hips) went.
//    BM_PeerCage_Bullet/implicit:{0,1}/hz:{2000,240}: the same tet mesh as a
//      btSoftBody in a btDeformableMultiBodyDynamicsWorld (Bullet 3.24, double
//      precision); Neo-Hookean elasticity (btDeformableNeoHookeanForce, the
//      same mu and lambda), btDeformableGravityForce, node-vs-rigid contact
//      (SDF_RDN) with a static ground box; explicit (Bullet's default) or
//      implicit (backward Euler, Newton with CG) elasticity; dt 0.5 ms or
//      1/240 s, one step of dt per stepSimulation.
//    What differs:
//    - The model is built with soleStiffening = 1: Bullet's elastic forces take
//      one mu and lambda per body, so the feet are not 5x stiffer here.
//    - Sinew's skeleton is dynamic (a free root, PD servos holding the rest
//      pose, the character standing on the ground, two-way coupled to the
//      flesh); Bullet's nodes that Sinew fixes to bones are pinned (mass 0) at
//      rest, so the skeleton cannot move at all.
//    - Elasticity: Sinew's corotated linear FEM with pose-based plasticity and
//      damping (Liu 2013, eq. 15-17), symplectic Euler; Bullet's stable
//      Neo-Hookean (its corotated force has no force differential, so its
//      implicit solve would ignore the stiffness) with its stiffness-
//      proportional damping set to Sinew's Rayleigh beta, damping implicit.
//    - Contact: Sinew's penalty springs on the embedded fine surface;
//      Bullet's projection-based contact on the cage's own nodes,
//      with a kBulletContactMargin skin. The cage encloses the surface, so
//      some of its sole nodes start below the ground (counter
//      nodes_below_ground) and Bullet pushes them up while it settles.
//      Bullet's sparse signed distance works on convex shapes, so the ground
//      is a box whose top face is the plane (a btStaticPlaneShape gives no
//      deformable contacts). Friction: Bullet's kDF = Sinew's Coulomb
//      coefficient, the ground's own friction 1 (Bullet multiplies them).
//    - Sinew restarts from its settled state every kResetSteps steps (as
//      BM_Liu2013Step does), so the character cannot walk off; Bullet runs on.
//    BM_PeerCageMultiBody_Bullet/implicit:{0,1}/hz:{2000,240}: as
//      BM_PeerCage_Bullet, but with the skeleton simulated: the model's 19
//      links as a btMultiBody (a floating base for the root, a spherical
//      joint per ball joint; each link's mass, centre of mass and inertia
//      Sinew's, along its principal axes), each with a btMultiBodyLinkCollider
//      (a kBulletLinkRadius sphere that collides with nothing: the anchors
//      need one, and Sinew's bones touch nothing either), every node that
//      Sinew fixes to link k keeping its lumped mass and anchored to link k
//      (btSoftBody::appendDeformableAnchor); a btMultiBodySphericalJointMotor
//      per joint holds the rest pose with Sinew's kp and kd as row gains
//      (bulletMotorGains). kMultiBodySeconds of timed steps, a fixed count.
//      What differs besides the above:
//      - Mass: Sinew's link masses are its fixed nodes' masses; here the
//        anchored nodes keep theirs too, so the bones' mass counts twice
//        (counter mass_kg, nodes plus links).
//      - Coupling: Sinew's fixed nodes are the link (the flesh's forces on
//        them go into the skeleton's step as wrenches); Bullet's anchors are
//        velocity constraints solved with the contacts by Gauss-Seidel, the
//        anchored nodes then set onto their links. Explicit elasticity enters
//        the nodes' velocities before that solve, so the skeleton feels it;
//        implicit elasticity (Newton) comes after, with the anchored nodes
//        held, so the skeleton feels only their gravity and inertia.
//      - Servos: Sinew's stable PD torque; Bullet's motor is a velocity
//        constraint whose gains reproduce stable PD's update of one joint
//        with the inertia Sinew's gains were made for, with no torque bound.
//      Stable, besides drift: at every timed step the root joint (Sinew's
//      link 0 origin, the hips) between the ground and kMaxDrift above its
//      rest height (root_min_m, root_max_m), and after the run no anchored
//      node further than kJointSlack from where its link carries it
//      (anchor_gap_m) and no edge between an anchored and a free node longer
//      or shorter than at rest by more than kJointSlack (bone_edge_m: the
//      flesh leaving the bone).
//
// 2. The example character's skeleton alone (the Liu 2013 model's 19 links,
//    18 ball joints: masses, centres of mass and inertias from the cage's
//    fixed nodes, its joint frames, its PD gains), the root welded to the world
//    at its rest pose, under gravity, from rest; servos:1 every servo holds the
//    rest pose, servos:0 the skeleton falls limp (kp = kd = 0).
//    BM_PeerSkeleton_Sinew/servos/hz: Sinew's reduced-coordinate solver
//      (dyn::step: composite rigid body + recursive Newton-Euler, semi-implicit
//      Euler, PD damping implicit).
//    BM_PeerSkeleton_Ode/quick:{0,1}/servos/hz: ODE 0.16 (double precision):
//      one body per link below the root, ball joints, the same PD torques
//      applied explicitly each step (as tests/sim/dynamics/OdeReferenceTest
//      does); dWorldStep (direct) or dWorldQuickStep (iterative, 20 iterations).
//    What differs: maximal coordinates with constraint stabilisation (ERP 0.2,
//    CFM 1e-10) against reduced coordinates; explicit against implicit servo
//    damping; the skeleton's joint limits are removed in both (ODE's ball
//    joints have none). A run whose links spin faster than kDivergedRate (or
//    whose step Sinew refuses as not finite) is reset to rest and counted
//    (`resets`, `diverged_at_s` the first), so that the timing goes on; ODE
//    would abort the process on the first non-finite rotation.
//
// 3. A Sheth 2015 reduced deformable body on the ground: examples::GridBox's
//    1.0 x 0.28 x 0.28 m box in 30 x 9 x 9 cubes (3,100 nodes, 14,580 tets),
//    Sinew's default BodyMaterial (E 100 kPa, nu 0.3, 1,000 kg/m^3, Rayleigh
//    alpha 0, beta 0.01 s), kReducedModes = 10 modes (2.4 to 8.8 Hz), dropped
//    from kReducedDrop (2 cm) onto the ground at y = 0 (gravity -9.81) and
//    left to settle for kReducedSettleSeconds (0.25 s) before the timing: the
//    timed steps are the body resting on the ground (all 310 underside nodes
//    in contact at 1/60 s). Both engines get the same nodes, lumped masses and
//    modes; Bullet the basis normalised as tests/sim/sheth2015/
//    BulletComparisonTest does (S' = S L^-T, Mr = L L^T: Bullet assumes
//    S^T M S = I) and the diagonal of L^-1 Kr L^-T as its stiffness.
//    BM_PeerReduced_Sinew/hz:{60,600}: one sheth2015::World::step, every
//      particle colliding with the ground (proxy radius kBulletContactMargin).
//    BM_PeerReduced_Bullet/hz:{60,600}: a btReducedDeformableBody with
//      btReducedDeformableBodySolver in a btDeformableMultiBodyDynamicsWorld
//      (Bullet 3.24, double precision), node-vs-rigid contact (SDF_RDN, margin
//      kBulletContactMargin) with the static ground box; one step of dt per
//      stepSimulation.
//    Both: friction 0.5, 8 solver iterations (Sinew's sweeps, Bullet's
//    m_numIterations), 20% of a penetration corrected per step (Sinew's
//    recovery, Bullet's m_deformable_erp); Bullet's other solver settings are
//    its defaults.
//    What differs:
//    - Integrator: Sinew's modes are backward Euler (eq. 35, (Mr + h Cr +
//      h^2 Kr)) with the fictitious forces and the omega' correction; Bullet's
//      are symplectic Euler on the diagonal stiffness with explicit damping
//      (its stability limit is about h omega < 2 / sqrt(1 + 2 beta / h); this
//      body's highest mode, 55 rad/s, is inside it at 1/60 s). Bullet keeps
//      only the diagonal of the normalised stiffness and the beta part of the
//      damping.
//    - Contact: Sinew finds contacts predictively and runs projected
//      Gauss-Seidel with effective masses from its O(r) impulse factor (the
//      sums over the particles are precomputed per body) and impulses through
//      the implicit response; Bullet builds one constraint per node within the
//      margin, and each constraint calls getImpulseFactor, which sums over
//      every node for every mode: O(nodes x modes) per contact, so a resting
//      step costs O(contacts x nodes x modes) (about 88% of Bullet's time under
//      perf at 1/60 s); its impulses reach the modes through Mr^-1 with the
//      particle's diagonal projection block (see BulletComparisonTest).
//    A step after which the body's centre of mass, or the most its modes can
//    move a node (||q|| max_i ||S_i||), is more than kMaxDrift from the start
//    has diverged: the engine is rebuilt (outside the timing) and counted
//    (`resets`, `diverged_at_s`). `stable`: no reset, every node finite and
//    within kMaxDrift of its starting place after the run; `contacts`: the
//    mean number of contacts per timed step; `f_min_hz`, `f_max_hz`: the
//    lowest and highest kept modes.
//
// <ode/ode.h> defines REAL(x): never include TetGen here.
#include "dynamics/Articulated.h"
#include "examples/Bars.h"
#include "io/ProjectFile.h"
#include "liu2013/Liu2013.h"
#include "sheth2015/World.h"
#include "../TestPaths.h"

// Bullet's inline array and Gram-Schmidt code trips GCC's -Wmaybe-uninitialized in every user.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <BulletDynamics/Featherstone/btMultiBody.h>
#include <BulletDynamics/Featherstone/btMultiBodyLinkCollider.h>
#include <BulletDynamics/Featherstone/btMultiBodySphericalJointMotor.h>
#include <BulletSoftBody/BulletReducedDeformableBody/btReducedDeformableBody.h>
#include <BulletSoftBody/BulletReducedDeformableBody/btReducedDeformableBodySolver.h>
#include <BulletSoftBody/btDeformableBodySolver.h>
#include <BulletSoftBody/btDeformableGravityForce.h>
#include <BulletSoftBody/btDeformableMultiBodyConstraintSolver.h>
#include <BulletSoftBody/btDeformableMultiBodyDynamicsWorld.h>
#include <BulletSoftBody/btDeformableNeoHookeanForce.h>
#include <BulletSoftBody/btSoftBody.h>
#include <BulletSoftBody/btSoftBodyRigidBodyCollisionConfiguration.h>
#pragma GCC diagnostic pop
#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <benchmark/benchmark.h>
#include <ode/ode.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

static_assert(sizeof(btScalar) == sizeof(double), "Bullet's double-precision build (bullet-float64)");

using namespace sinew;

namespace {

// ---------------------------------------------------------------------------
// Parameters shared by every pair (each declared once).

constexpr double kMaxDrift = 1.0;               // m: further than this from the rested state counts as unstable
constexpr double kSettleSeconds = 0.1;          // simulated before the timing (200 Sinew steps)
constexpr int64_t kResetSteps = 1000;           // Sinew's cage restarts from its settled state this often
constexpr double kBulletContactMargin = 0.005;  // m, Bullet's collision skin on the cage nodes
constexpr double kBulletGroundHalfSize = 10;    // m, the ground box (its top face is the ground plane)
constexpr double kBulletLinkRadius = 0.02;      // m, the sphere of each btMultiBodyLinkCollider (it collides with nothing)
constexpr double kBulletMotorImpulse = 1e12;    // N m s: the joint motors' impulse bound (none, as Sinew's servos)
constexpr int kBulletBoneGroup = 1 << 6;        // the link colliders' collision group (mask 0: no pairs)
constexpr double kMultiBodySeconds = 0.5;       // s timed of BM_PeerCageMultiBody_Bullet (a fixed step count)
constexpr double kJointSlack = 0.05;            // m: a skeleton stretched more than this has come apart
constexpr double kDivergedRate = 1e4;           // rad/s: a skeleton link spinning faster has diverged (reset to rest)
constexpr int kOdeQuickIterations = 20;         // dWorldQuickStep's iterations (ODE's default)
constexpr double kOdeErp = 0.2, kOdeCfm = 1e-10;  // ODE's constraint stabilisation (as OdeReferenceTest)

const std::string& projectPath() {
  static const std::string path = std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-rigged.sinew";
  return path;
}

// The Liu 2013 run of the cage: 0.5 ms, one thread, skeleton held at rest.
liu2013::Settings cageSettings() {
  liu2013::Settings s;
  s.threads = 1;
  s.drive = DriveMode::Hold;
  return s;
}

// The example's Liu 2013 model with one material everywhere (no stiffer soles).
const std::shared_ptr<const liu2013::Liu2013Model>& cageModel() {
  static const std::shared_ptr<const liu2013::Liu2013Model> model = [] {
    liu2013::ModelOptions o;
    o.soleStiffening = 1;
    return liu2013::buildLiu2013Model(loadProject(projectPath()), o);
  }();
  return model;
}

// The one mu and lambda of the model (throws if the tets disagree).
std::pair<double, double> uniformLame(const liu2013::Liu2013Model& m) {
  for (size_t t = 0; t < m.tetCount(); ++t)
    if (m.mu[t] != m.mu[0] || m.lambda[t] != m.lambda[0])
      throw std::logic_error("bench_peers: the cage's tets have different materials; Bullet takes one per body");
  return {m.mu[0], m.lambda[0]};
}

double maxDrift(const std::vector<Vec3>& x, const std::vector<Vec3>& rest) {
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double d = (x[i] - rest[i]).norm();
    if (!std::isfinite(d)) return std::numeric_limits<double>::infinity();
    worst = std::max(worst, d);
  }
  return worst;
}

void stepCounters(benchmark::State& state, double dt, int64_t settleSteps, bool stable) {
  const auto steps = settleSteps + int64_t(state.iterations());
  state.counters["realtime_factor"] = benchmark::Counter(dt * double(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["steps"] = double(steps);
  state.counters["sim_s"] = dt * double(steps);
  state.counters["stable"] = stable ? 1 : 0;
}

// The cage: finite, and no node further than kMaxDrift from where it rested.
void driftCounters(benchmark::State& state, double dt, int64_t settleSteps, double drift) {
  state.counters["drift_m"] = drift;
  stepCounters(state, dt, settleSteps, std::isfinite(drift) && drift <= kMaxDrift);
}

int64_t settleStepsFor(double dt) { return std::max<int64_t>(1, std::llround(kSettleSeconds / dt)); }

btVector3 toBt(const Vec3& v) { return {v.x(), v.y(), v.z()}; }
Vec3 fromBt(const btVector3& v) { return {v.x(), v.y(), v.z()}; }
btQuaternion toBt(const Quat& q) { return {q.x(), q.y(), q.z(), q.w()}; }
btTransform toBt(const Transform& t) { return btTransform(toBt(t.rotation), toBt(t.translation)); }

// A static ground box whose top face is the plane y = height.
btRigidBody::btRigidBodyConstructionInfo bulletGroundInfo(double height, btBoxShape& shape) {
  btRigidBody::btRigidBodyConstructionInfo info(0, nullptr, &shape);
  info.m_startWorldTransform.setIdentity();
  info.m_startWorldTransform.setOrigin(btVector3(0, height - kBulletGroundHalfSize, 0));
  return info;
}

// ---------------------------------------------------------------------------
// 1. The cage.

// How the cage's bone-fixed nodes meet the skeleton in Bullet.
enum class BulletBones {
  Pinned,     // the nodes pinned at rest (mass 0): a frozen skeleton
  MultiBody,  // a btMultiBody skeleton, the nodes anchored to its links
};

// A Sinew link as Bullet's: Bullet's link frame is at the centre of mass,
// along the principal axes of inertia (it takes a diagonal inertia).
struct BulletLinkFrame {
  Transform inLink;   // Bullet's frame in Sinew's link frame
  Vec3 moments;       // principal moments of inertia, kg m^2
};

BulletLinkFrame bulletLinkFrame(const dyn::Inertia& in) {
  const Eigen::SelfAdjointEigenSolver<Mat3> eigen(in.inertia);
  Mat3 axes = eigen.eigenvectors();
  if (axes.determinant() < 0) axes.col(2) *= -1;
  return {Transform{Quat(axes).normalized(), in.com}, eigen.eigenvalues()};
}

// Sinew's servo (kp, kd on the inertia its gains were made for,
// kd^2 / (4 zeta^2 kp)) as btMultiBodySphericalJointMotor's row gains. Each
// row is a hard velocity constraint, v' = (1 - damping) v* - (kp erp / h) theta
// (v* the velocity before the solve, theta the angle error); stable PD gives
// v' = (I v* - h kp theta) / (I + h kd), so damping = h kd / (I + h kd) and
// kp = h^2 kp / ((I + h kd) erp).
std::pair<double, double> bulletMotorGains(const dyn::Link& l, double h, double erp) {
  const double zeta = liu2013::ModelOptions{}.pdDampingRatio;
  const double inertia = l.kd * l.kd / (4 * zeta * zeta * l.kp);
  const double denominator = inertia + h * l.kd;
  return {h * h * l.kp / (denominator * erp), h * l.kd / denominator};
}

// The cage as a Bullet deformable body in its own world, its bone-fixed
// nodes pinned or anchored to a btMultiBody skeleton.
class BulletCage {
 public:
  BulletCage(const liu2013::Liu2013Model& m, const liu2013::Settings& s, bool implicit, double dt,
             BulletBones bones = BulletBones::Pinned)
      : model_(m), dispatcher_(&config_), ground_(bulletGroundInfo(s.groundHeight, groundShape_)) {
    constraintSolver_.setDeformableSolver(&bodySolver_);
    world_ = std::make_unique<btDeformableMultiBodyDynamicsWorld>(&dispatcher_, &broadphase_, &constraintSolver_,
                                                                  &config_, &bodySolver_);
    const btVector3 g = toBt(m.skeleton.gravity);
    world_->setGravity(g);
    world_->getWorldInfo().m_gravity = g;
    // The world hands its own flag to the body solver at every step.
    world_->setImplicit(implicit);

    ground_.setFriction(1);
    world_->addRigidBody(&ground_);
    if (bones == BulletBones::MultiBody) addSkeleton(dt);

    std::vector<btVector3> x;
    std::vector<btScalar> mass;
    for (size_t i = 0; i < m.nodeCount(); ++i) {
      x.push_back(toBt(m.restNodes[i]));
      // Pinned: bone nodes have inverse mass 0. Anchored: every node its lumped mass.
      mass.push_back(m.nodeLink[i] >= 0 && !skeleton_ ? 0.0 : m.nodeMass[i]);
    }
    body_ = std::make_unique<btSoftBody>(&world_->getWorldInfo(), int(x.size()), x.data(), mass.data());
    appendTets(m);
    body_->getCollisionShape()->setMargin(kBulletContactMargin);
    body_->m_cfg.kCHR = 1;  // contact hardness against rigid bodies
    body_->m_cfg.kKHR = 1;
    body_->m_cfg.kDF = s.friction;
    body_->m_cfg.collisions = btSoftBody::fCollision::SDF_RD | btSoftBody::fCollision::SDF_RDN;
    body_->m_sleepingThreshold = 0;
    world_->addSoftBody(body_.get());
    if (skeleton_)
      for (size_t i = 0; i < m.nodeCount(); ++i)
        if (m.nodeLink[i] >= 0) body_->appendDeformableAnchor(int(i), colliders_[size_t(m.nodeLink[i])].get());

    const auto [mu, lambda] = uniformLame(m);
    elastic_ = std::make_unique<btDeformableNeoHookeanForce>(mu, lambda, s.rayleighStiffness);
    gravity_ = std::make_unique<btDeformableGravityForce>(g);
    world_->addForce(body_.get(), gravity_.get());
    world_->addForce(body_.get(), elastic_.get());
  }
  ~BulletCage() {
    world_->removeSoftBody(body_.get());
    for (auto& motor : motors_) world_->removeMultiBodyConstraint(motor.get());
    for (auto& collider : colliders_) world_->removeCollisionObject(collider.get());
    if (skeleton_) world_->removeMultiBody(skeleton_.get());
    world_->removeRigidBody(&ground_);
  }
  BulletCage(const BulletCage&) = delete;
  BulletCage& operator=(const BulletCage&) = delete;

  void step(double dt) { world_->stepSimulation(dt, 0); }

  std::vector<Vec3> positions() const {
    std::vector<Vec3> x;
    for (int i = 0; i < body_->m_nodes.size(); ++i) x.push_back(fromBt(body_->m_nodes[i].m_x));
    return x;
  }

  // The skeleton's root joint (Sinew's link 0 origin: the hips' pivot), world.
  Vec3 rootPosition() const { return fromBt(skeleton_->getBaseWorldTransform() * toBt(rootInBase_)); }

  // The furthest any anchored node is from where its link carries it (the
  // node's place in Sinew's link frame, through the link's Bullet pose).
  double anchorGap() const {
    double worst = 0;
    for (size_t i = 0; i < model_.nodeCount(); ++i) {
      const int32_t k = model_.nodeLink[i];
      if (k < 0) continue;
      const Vec3 carried = fromBt(colliders_[size_t(k)]->getWorldTransform() * toBt(nodeInCollider_[i]));
      const double d = (fromBt(body_->m_nodes[int(i)].m_x) - carried).norm();
      if (!std::isfinite(d)) return std::numeric_limits<double>::infinity();
      worst = std::max(worst, d);
    }
    return worst;
  }

  // The largest change in length of a cage edge between an anchored node and
  // a free one: the flesh coming away from (or pressed onto) the bone.
  double boneEdgeChange() const {
    double worst = 0;
    for (const auto& [a, b] : boneEdges_) {
      const double rest = (model_.restNodes[size_t(a)] - model_.restNodes[size_t(b)]).norm();
      const double d = std::abs((body_->m_nodes[a].m_x - body_->m_nodes[b].m_x).length() - rest);
      if (!std::isfinite(d)) return std::numeric_limits<double>::infinity();
      worst = std::max(worst, d);
    }
    return worst;
  }

  // Nodes plus links, kg.
  double totalMass() const {
    double mass = 0;
    for (int i = 0; i < body_->m_nodes.size(); ++i)
      if (body_->m_nodes[i].m_im > 0) mass += 1 / body_->m_nodes[i].m_im;
    if (skeleton_) {
      mass += skeleton_->getBaseMass();
      for (int i = 0; i < skeleton_->getNumLinks(); ++i) mass += skeleton_->getLinkMass(i);
    }
    return mass;
  }

 private:
  // The model's skeleton as a btMultiBody: a floating base for the root, a
  // spherical joint per ball joint (a fixed one per fixed joint), each link's
  // mass and inertia Sinew's, held in the rest pose by one
  // btMultiBodySphericalJointMotor per ball joint with Sinew's gains
  // (bulletMotorGains). Each link has a btMultiBodyLinkCollider (a sphere of
  // kBulletLinkRadius at its centre of mass) that collides with nothing: the
  // anchors need one, and Sinew's bones touch nothing either.
  void addSkeleton(double dt) {
    const dyn::ArticulatedModel& sk = model_.skeleton;
    const size_t n = sk.links.size();
    if (sk.links.at(0).kind != dyn::JointKind::Free) throw std::logic_error("bench_peers: the skeleton's root is not free");
    const std::vector<Transform> rest = dyn::forwardKinematics(sk, dyn::restState(sk)).pose;
    std::vector<BulletLinkFrame> frames;
    std::vector<Transform> com;  // Bullet's link frames at rest, world
    for (size_t j = 0; j < n; ++j) {
      frames.push_back(bulletLinkFrame(sk.links[j].inertia));
      com.push_back(rest[j] * frames[j].inLink);
    }
    skeleton_ = std::make_unique<btMultiBody>(int(n) - 1, sk.links[0].inertia.mass, toBt(frames[0].moments),
                                              /*fixedBase*/ false, /*canSleep*/ false);
    skeleton_->setBaseWorldTransform(toBt(com[0]));
    rootInBase_ = com[0].inverse().apply(rest[0].translation);
    for (size_t j = 1; j < n; ++j) {
      const dyn::Link& l = sk.links[j];
      const size_t p = size_t(l.parent);
      const Vec3 pivot = rest[j].translation;
      const btQuaternion parentToThis = toBt((com[j].rotation.conjugate() * com[p].rotation).normalized());
      const btVector3 parentComToPivot = toBt(com[p].rotation.conjugate() * (pivot - com[p].translation));
      const btVector3 pivotToCom = toBt(com[j].rotation.conjugate() * (com[j].translation - pivot));
      switch (l.kind) {
        case dyn::JointKind::Ball:
          skeleton_->setupSpherical(int(j) - 1, l.inertia.mass, toBt(frames[j].moments), int(p) - 1, parentToThis,
                                    parentComToPivot, pivotToCom, true);
          break;
        case dyn::JointKind::Fixed:
          skeleton_->setupFixed(int(j) - 1, l.inertia.mass, toBt(frames[j].moments), int(p) - 1, parentToThis,
                                parentComToPivot, pivotToCom);
          break;
        default:
          throw std::logic_error("bench_peers: the btMultiBody skeleton takes ball and fixed joints only");
      }
    }
    skeleton_->finalizeMultiDof();
    skeleton_->setLinearDamping(0);  // Bullet's default 0.04: Sinew's skeleton has no such damping
    skeleton_->setAngularDamping(0);
    skeleton_->setHasSelfCollision(false);
    world_->addMultiBody(skeleton_.get());

    for (size_t j = 0; j < n; ++j) {
      auto collider = std::make_unique<btMultiBodyLinkCollider>(skeleton_.get(), int(j) - 1);
      collider->setCollisionShape(&linkShape_);
      collider->setActivationState(DISABLE_DEACTIVATION);
      if (j == 0)
        skeleton_->setBaseCollider(collider.get());
      else
        skeleton_->getLink(int(j) - 1).m_collider = collider.get();
      world_->addCollisionObject(collider.get(), kBulletBoneGroup, 0);
      colliders_.push_back(std::move(collider));
    }
    // Bullet's own forward kinematics places the colliders (the anchors take
    // their frames from them); they must agree with the frames built here.
    btAlignedObjectArray<btQuaternion> worldToLocal;
    btAlignedObjectArray<btVector3> localOrigin;
    skeleton_->forwardKinematics(worldToLocal, localOrigin);
    skeleton_->updateCollisionObjectWorldTransforms(worldToLocal, localOrigin);
    for (size_t j = 0; j < n; ++j) {
      const btTransform& t = colliders_[j]->getWorldTransform();
      const Quat r(t.getRotation().w(), t.getRotation().x(), t.getRotation().y(), t.getRotation().z());
      if ((fromBt(t.getOrigin()) - com[j].translation).norm() > 1e-9 || r.angularDistance(com[j].rotation) > 1e-9)
        throw std::logic_error("bench_peers: Bullet places link '" + sk.links[j].name + "' elsewhere than its rest pose");
    }

    const double erp = world_->getSolverInfo().m_erp;
    for (size_t j = 1; j < n; ++j) {
      const dyn::Link& l = sk.links[j];
      if (l.kind != dyn::JointKind::Ball || l.kp <= 0 || l.kd <= 0) continue;
      const auto [kp, damping] = bulletMotorGains(l, dt, erp);
      auto motor = std::make_unique<btMultiBodySphericalJointMotor>(skeleton_.get(), int(j) - 1, kBulletMotorImpulse);
      motor->setPositionTarget(btQuaternion::getIdentity(), kp);
      motor->setVelocityTarget(btVector3(0, 0, 0));
      motor->setDamping(btVector3(damping, damping, damping));
      world_->addMultiBodyConstraint(motor.get());
      motors_.push_back(std::move(motor));
    }

    nodeInCollider_.assign(model_.nodeCount(), Vec3::Zero());
    for (size_t i = 0; i < model_.nodeCount(); ++i)
      if (const int32_t k = model_.nodeLink[i]; k >= 0)
        nodeInCollider_[i] = frames[size_t(k)].inLink.inverse().apply(model_.nodeLocal[i]);
    for (const Tet& t : model_.tets)
      for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b)
          if (model_.nodeLink[size_t(t[a])] >= 0 && model_.nodeLink[size_t(t[b])] < 0)
            boneEdges_.insert({t[a], t[b]});
  }

  // Tets (positively oriented, as Bullet's rest shape matrices expect), their
  // edges as links and the boundary (faces of one tet only, outward) as faces.
  void appendTets(const liu2013::Liu2013Model& m) {
    std::set<std::pair<int32_t, int32_t>> edges;
    std::map<std::array<int32_t, 3>, std::array<int32_t, 3>> boundary;  // sorted -> oriented
    for (Tet t : m.tets) {
      const Vec3& a = m.restNodes[t[0]];
      if ((m.restNodes[t[1]] - a).cross(m.restNodes[t[2]] - a).dot(m.restNodes[t[3]] - a) < 0) std::swap(t[2], t[3]);
      body_->appendTetra(t[0], t[1], t[2], t[3]);
      for (int i = 0; i < 4; ++i)
        for (int j = i + 1; j < 4; ++j) edges.insert(std::minmax(t[i], t[j]));
      for (const std::array<int32_t, 3>& f : {std::array<int32_t, 3>{t[1], t[2], t[3]}, {t[0], t[3], t[2]},
                                              {t[0], t[1], t[3]}, {t[0], t[2], t[1]}}) {
        std::array<int32_t, 3> key = f;
        std::sort(key.begin(), key.end());
        if (!boundary.erase(key)) boundary.emplace(key, f);
      }
    }
    for (const auto& [a, b] : edges) body_->appendLink(a, b);
    for (const auto& [key, f] : boundary) body_->appendFace(f[0], f[1], f[2]);
    body_->initializeDmInverse();
    btSoftBody::TetraScratch atRest;  // F = I (Bullet's scratch has no initialiser)
    atRest.m_F = atRest.m_cofF = atRest.m_corotation = btMatrix3x3::getIdentity();
    atRest.m_trace = 3;
    atRest.m_J = 1;
    body_->m_tetraScratches.resize(body_->m_tetras.size(), atRest);
    body_->m_tetraScratchesTn.resize(body_->m_tetras.size(), atRest);
  }

  const liu2013::Liu2013Model& model_;
  btSoftBodyRigidBodyCollisionConfiguration config_;
  btCollisionDispatcher dispatcher_;
  btDbvtBroadphase broadphase_;
  btDeformableBodySolver bodySolver_;
  btDeformableMultiBodyConstraintSolver constraintSolver_;
  btBoxShape groundShape_{btVector3(kBulletGroundHalfSize, kBulletGroundHalfSize, kBulletGroundHalfSize)};
  btRigidBody ground_;
  std::unique_ptr<btDeformableMultiBodyDynamicsWorld> world_;
  std::unique_ptr<btSoftBody> body_;
  std::unique_ptr<btDeformableGravityForce> gravity_;
  std::unique_ptr<btDeformableNeoHookeanForce> elastic_;
  // The btMultiBody skeleton (BulletBones::MultiBody only).
  btSphereShape linkShape_{kBulletLinkRadius};
  std::unique_ptr<btMultiBody> skeleton_;
  std::vector<std::unique_ptr<btMultiBodyLinkCollider>> colliders_;  // (nLinks), Sinew's link order
  std::vector<std::unique_ptr<btMultiBodySphericalJointMotor>> motors_;
  Vec3 rootInBase_ = Vec3::Zero();              // Sinew's root origin in Bullet's base frame
  std::vector<Vec3> nodeInCollider_;            // an anchored node in its link's Bullet frame (nNodes)
  std::set<std::pair<int32_t, int32_t>> boneEdges_;  // (anchored node, free node)
};

void cageCounters(benchmark::State& state, const liu2013::Liu2013Model& m) {
  state.counters["nodes"] = double(m.nodeCount());
  state.counters["tets"] = double(m.tetCount());
}

}  // namespace

static void BM_PeerCage_Sinew(benchmark::State& state) {
  const auto& model = cageModel();
  const liu2013::Settings settings = cageSettings();
  liu2013::Liu2013Solver sim(model, settings);
  const int64_t settle = settleStepsFor(settings.dt);
  double drift = std::numeric_limits<double>::infinity();
  double rootLow = std::numeric_limits<double>::infinity(), rootHigh = -rootLow;  // the hips over the timed steps
  try {
    for (int64_t i = 0; i < settle; ++i) sim.step();
    const liu2013::Liu2013State start = sim.state();
    int64_t n = 0;
    for (auto _ : state) {
      sim.step();
      const double y = sim.state().skeleton.rootPosition.y();
      rootLow = std::min(rootLow, y);
      rootHigh = std::max(rootHigh, y);
      if (++n % kResetSteps == 0) sim.setState(start);  // stay in the standing phase
    }
    drift = maxDrift(sim.state().x, start.x);
  } catch (const std::exception& e) {
    state.SetLabel(e.what());
  }
  cageCounters(state, *model);
  state.counters["root_min_m"] = rootLow;
  state.counters["root_max_m"] = rootHigh;
  driftCounters(state, settings.dt, settle, drift);
}
BENCHMARK(BM_PeerCage_Sinew)->Unit(benchmark::kMillisecond)->UseRealTime();

// Arguments: implicit (0: Bullet's default explicit elasticity, 1: backward Euler), steps per second.
static void BM_PeerCage_Bullet(benchmark::State& state) {
  const auto& model = cageModel();
  const liu2013::Settings settings = cageSettings();
  const double dt = 1.0 / double(state.range(1));
  BulletCage cage(*model, settings, state.range(0) != 0, dt);
  const int64_t settle = settleStepsFor(dt);
  for (int64_t i = 0; i < settle; ++i) cage.step(dt);
  const std::vector<Vec3> start = cage.positions();
  for (auto _ : state) cage.step(dt);
  size_t below = 0;
  for (const Vec3& x : model->restNodes) below += x.y() < settings.groundHeight;
  cageCounters(state, *model);
  state.counters["nodes_below_ground"] = double(below);
  // Measured from the rest shape too: the settling must not hide a blow-up.
  driftCounters(state, dt, settle, std::max(maxDrift(cage.positions(), start), maxDrift(start, model->restNodes)));
}
BENCHMARK(BM_PeerCage_Bullet)
    ->ArgNames({"implicit", "hz"})
    ->Args({0, 2000})
    ->Args({1, 2000})
    ->Args({0, 240})
    ->Args({1, 240})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The cage on a btMultiBody skeleton (BulletBones::MultiBody). Arguments as
// BM_PeerCage_Bullet. A fixed number of steps (kMultiBodySeconds of simulated
// time after the settling): an exploded Bullet step costs tens of ms.
static void BM_PeerCageMultiBody_Bullet(benchmark::State& state) {
  const auto& model = cageModel();
  const liu2013::Settings settings = cageSettings();
  const double dt = 1.0 / double(state.range(1));
  BulletCage cage(*model, settings, state.range(0) != 0, dt, BulletBones::MultiBody);
  const int64_t settle = settleStepsFor(dt);
  for (int64_t i = 0; i < settle; ++i) cage.step(dt);
  const std::vector<Vec3> start = cage.positions();
  // The root's height over the timed steps (Sinew's hips, 0.92 m at rest).
  const double restRoot = model->linkRest.at(0).translation.y();
  double rootLow = std::numeric_limits<double>::infinity(), rootHigh = -rootLow;
  bool rootFinite = true;
  for (auto _ : state) {
    cage.step(dt);
    const double y = cage.rootPosition().y();
    rootFinite = rootFinite && std::isfinite(y);
    rootLow = std::min(rootLow, y);
    rootHigh = std::max(rootHigh, y);
  }
  cageCounters(state, *model);
  const double gap = cage.anchorGap(), boneEdge = cage.boneEdgeChange();
  const double drift = std::max(maxDrift(cage.positions(), start), maxDrift(start, model->restNodes));
  const bool rootSane = rootFinite && rootLow >= settings.groundHeight && rootHigh <= restRoot + kMaxDrift;
  state.counters["mass_kg"] = cage.totalMass();
  state.counters["root_min_m"] = rootFinite ? rootLow : std::numeric_limits<double>::quiet_NaN();
  state.counters["root_max_m"] = rootFinite ? rootHigh : std::numeric_limits<double>::quiet_NaN();
  state.counters["anchor_gap_m"] = gap;
  state.counters["bone_edge_m"] = boneEdge;
  driftCounters(state, dt, settle, drift);
  // Stable also needs the root between the ground and kMaxDrift above its rest
  // height at every timed step, and the skeleton still in the flesh.
  if (!(rootSane && gap <= kJointSlack && boneEdge <= kJointSlack)) state.counters["stable"] = 0;
}
BENCHMARK(BM_PeerCageMultiBody_Bullet)
    ->ArgNames({"implicit", "hz"})
    ->ArgsProduct({{0, 1}, {2000}})
    ->Iterations(std::llround(kMultiBodySeconds * 2000))
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_PeerCageMultiBody_Bullet)
    ->ArgNames({"implicit", "hz"})
    ->ArgsProduct({{0, 1}, {240}})
    ->Iterations(std::llround(kMultiBodySeconds * 240))
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// ---------------------------------------------------------------------------
// 2. The skeleton.

namespace {

// The cage model's skeleton with its root welded at its rest pose, no joint
// limits, and its PD servos (holding the rest pose) on or off.
dyn::ArticulatedModel makePinnedSkeleton(bool servos) {
  dyn::ArticulatedModel s = cageModel()->skeleton;
  s.links.at(0).kind = dyn::JointKind::Fixed;  // a Free root's parentFromJoint is its world rest pose
  for (dyn::Link& l : s.links) {
    l.lower = dyn::Link{}.lower, l.upper = dyn::Link{}.upper;
    if (!servos) l.kp = l.kd = 0;
  }
  if (const std::string problem = dyn::checkModel(s); !problem.empty())
    throw std::logic_error("bench_peers: pinned skeleton: " + problem);
  return s;
}

const dyn::ArticulatedModel& pinnedSkeleton(bool servos) {
  static const std::array<dyn::ArticulatedModel, 2> models = {makePinnedSkeleton(false), makePinnedSkeleton(true)};
  return models[servos ? 1 : 0];
}

std::vector<Vec3> linkOrigins(const dyn::LinkKinematics& k) {
  std::vector<Vec3> x;
  for (const Transform& t : k.pose) x.push_back(t.translation);
  return x;
}

// How much further from the pinned root (link 0) any link origin is than at
// rest: a chain of rigid links cannot stretch, so more is joints coming apart.
double stretch(const std::vector<Vec3>& x, const std::vector<Vec3>& rest) {
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double d = (x[i] - x[0]).norm() - (rest[i] - rest[0]).norm();
    if (!std::isfinite(d)) return std::numeric_limits<double>::infinity();
    worst = std::max(worst, d);
  }
  return worst;
}

// The largest joint rotation away from the rest pose, degrees.
double maxJointDegrees(const std::vector<Quat>& rotation) {
  double worst = 0;
  for (const Quat& q : rotation) worst = std::max(worst, q.angularDistance(Quat::Identity()));
  return worst * 180 / M_PI;
}

Vec3 fromOde(const dReal* v) { return {v[0], v[1], v[2]}; }

// The pinned skeleton in ODE: one body per link below the root (origin at its
// centre of mass), joints to the parent (to the static world for the root's
// children), and the model's PD servos as equal and opposite torques.
class OdeSkeleton {
 public:
  explicit OdeSkeleton(const dyn::ArticulatedModel& m) : model_(m), rest_(dyn::forwardKinematics(m, dyn::restState(m))) {
    world_ = dWorldCreate();
    dWorldSetGravity(world_, m.gravity.x(), m.gravity.y(), m.gravity.z());
    dWorldSetERP(world_, kOdeErp);
    dWorldSetCFM(world_, kOdeCfm);
    dWorldSetQuickStepNumIterations(world_, kOdeQuickIterations);
    bodies_.assign(m.links.size(), nullptr);
    for (size_t i = 1; i < m.links.size(); ++i) {
      const dyn::Inertia& in = m.links[i].inertia;
      dMass mass;
      dMassSetParameters(&mass, in.mass, 0, 0, 0, in.inertia(0, 0), in.inertia(1, 1), in.inertia(2, 2),
                         in.inertia(0, 1), in.inertia(0, 2), in.inertia(1, 2));
      bodies_[i] = dBodyCreate(world_);
      dBodySetMass(bodies_[i], &mass);
    }
    reset();
    for (size_t i = 1; i < m.links.size(); ++i) {
      const dyn::Link& l = m.links[i];
      const Vec3 pivot = rest_.pose[i].translation;
      dJointID j = nullptr;
      switch (l.kind) {
        case dyn::JointKind::Ball:
          j = dJointCreateBall(world_, nullptr);
          dJointAttach(j, bodies_[i], bodies_[size_t(l.parent)]);
          dJointSetBallAnchor(j, pivot.x(), pivot.y(), pivot.z());
          break;
        case dyn::JointKind::Hinge: {
          j = dJointCreateHinge(world_, nullptr);
          dJointAttach(j, bodies_[i], bodies_[size_t(l.parent)]);
          dJointSetHingeAnchor(j, pivot.x(), pivot.y(), pivot.z());
          const Vec3 axis = rest_.pose[i].rotation * l.hingeAxis;
          dJointSetHingeAxis(j, axis.x(), axis.y(), axis.z());
          break;
        }
        case dyn::JointKind::Fixed:
          j = dJointCreateFixed(world_, nullptr);
          dJointAttach(j, bodies_[i], bodies_[size_t(l.parent)]);
          dJointSetFixed(j);
          break;
        case dyn::JointKind::Free:
          throw std::logic_error("bench_peers: a free joint below the root");
      }
    }
  }
  ~OdeSkeleton() { dWorldDestroy(world_); }
  OdeSkeleton(const OdeSkeleton&) = delete;
  OdeSkeleton& operator=(const OdeSkeleton&) = delete;

  // Every body at rest in the rest pose.
  void reset() {
    for (size_t i = 1; i < bodies_.size(); ++i) {
      const Vec3 c = rest_.pose[i].apply(model_.links[i].inertia.com);
      dBodySetPosition(bodies_[i], c.x(), c.y(), c.z());
      const Quat& r = rest_.pose[i].rotation;
      const dQuaternion q = {r.w(), r.x(), r.y(), r.z()};
      dBodySetQuaternion(bodies_[i], q);
      dBodySetLinearVel(bodies_[i], 0, 0, 0);
      dBodySetAngularVel(bodies_[i], 0, 0, 0);
    }
  }

  void step(double dt, bool quick) {
    addPdTorques();
    if (quick)
      dWorldQuickStep(world_, dt);
    else
      dWorldStep(world_, dt);
  }

  // A body spinning beyond kDivergedRate (ODE aborts the process once a
  // rotation is no longer finite, so the caller resets before that).
  bool diverged() const {
    for (size_t i = 1; i < bodies_.size(); ++i)
      if (!(angularVelocity(i).norm() < kDivergedRate)) return true;
    return false;
  }

  Quat rotation(size_t i) const {
    if (!bodies_[i]) return rest_.pose[i].rotation;
    const dReal* q = dBodyGetQuaternion(bodies_[i]);
    return Quat(q[0], q[1], q[2], q[3]).normalized();
  }
  Vec3 angularVelocity(size_t i) const { return bodies_[i] ? fromOde(dBodyGetAngularVel(bodies_[i])) : Vec3::Zero(); }
  std::vector<Vec3> origins() const {
    std::vector<Vec3> x;
    for (size_t i = 0; i < bodies_.size(); ++i)
      x.push_back(bodies_[i] ? fromOde(dBodyGetPosition(bodies_[i])) - rotation(i) * model_.links[i].inertia.com
                             : rest_.pose[i].translation);
    return x;
  }
  // Each joint's rotation relative to its joint frame, as Sinew's state has it.
  Quat jointRotation(size_t i) const {
    const dyn::Link& l = model_.links[i];
    if (l.parent < 0) return Quat::Identity();
    return ((rotation(size_t(l.parent)) * l.parentFromJoint.rotation).conjugate() * rotation(i)).normalized();
  }

 private:
  // Liu 2013 eq. 1 towards the rest pose, explicit: tau = kp log(q^-1) - kd (omega - omega_parent).
  void addPdTorques() {
    for (size_t i = 1; i < model_.links.size(); ++i) {
      const dyn::Link& l = model_.links[i];
      if (l.kind == dyn::JointKind::Fixed || (l.kp == 0 && l.kd == 0)) continue;
      const Quat world = rotation(i);
      const Vec3 relRate = angularVelocity(i) - angularVelocity(size_t(l.parent));  // world
      Vec3 torque;                                                                  // world
      if (l.kind == dyn::JointKind::Hinge) {
        const Vec3 axis = world * l.hingeAxis;
        torque = (l.kp * dyn::hingeAngle(jointRotation(i).conjugate(), l.hingeAxis) - l.kd * axis.dot(relRate)) * axis;
      } else {
        const Eigen::AngleAxisd error(jointRotation(i).conjugate());
        const double angle = error.angle() > M_PI ? error.angle() - 2 * M_PI : error.angle();
        torque = world * (l.kp * angle * error.axis()) - l.kd * relRate;
      }
      dBodyAddTorque(bodies_[i], torque.x(), torque.y(), torque.z());
      if (dBodyID parent = bodies_[size_t(l.parent)]) dBodyAddTorque(parent, -torque.x(), -torque.y(), -torque.z());
    }
  }

  const dyn::ArticulatedModel& model_;
  const dyn::LinkKinematics rest_;
  dWorldID world_ = nullptr;
  std::vector<dBodyID> bodies_;  // (nLinks), null for the welded root
};

void skeletonCounters(benchmark::State& state, const dyn::ArticulatedModel& m, double dt, double stretched,
                      double jointDegrees, int64_t resets, int64_t firstReset) {
  state.counters["links"] = double(m.links.size());
  state.counters["dofs"] = double(m.dofCount());
  state.counters["max_joint_deg"] = jointDegrees;
  state.counters["stretch_m"] = stretched;
  state.counters["resets"] = double(resets);
  if (resets) state.counters["diverged_at_s"] = dt * double(firstReset);
  stepCounters(state, dt, 0, resets == 0 && std::isfinite(stretched) && stretched <= kJointSlack);
}

}  // namespace

// Arguments: servos (1: PD holding the rest pose, 0: limp), steps per second.
static void BM_PeerSkeleton_Sinew(benchmark::State& state) {
  const dyn::ArticulatedModel& m = pinnedSkeleton(state.range(0) != 0);
  const double dt = 1.0 / double(state.range(1));
  dyn::ArticulatedState s = dyn::restState(m);
  const std::vector<Vec3> rest = linkOrigins(dyn::forwardKinematics(m, s));
  int64_t steps = 0, resets = 0, firstReset = 0;
  for (auto _ : state) {
    ++steps;
    // dyn::step refuses a step whose result is not finite, leaving the state as it was.
    if (!dyn::step(m, s, {}, {}, dt) || !(s.velocity.lpNorm<Eigen::Infinity>() < kDivergedRate)) {
      if (!resets++) firstReset = steps;
      s = dyn::restState(m);
    }
  }
  skeletonCounters(state, m, dt, stretch(linkOrigins(dyn::forwardKinematics(m, s)), rest),
                   maxJointDegrees(s.rotation), resets, firstReset);
}
BENCHMARK(BM_PeerSkeleton_Sinew)
    ->ArgNames({"servos", "hz"})
    ->ArgsProduct({{1, 0}, {2000, 240}})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// Arguments: quick (0: dWorldStep, 1: dWorldQuickStep), servos, steps per second.
static void BM_PeerSkeleton_Ode(benchmark::State& state) {
  const dyn::ArticulatedModel& m = pinnedSkeleton(state.range(1) != 0);
  const double dt = 1.0 / double(state.range(2));
  const bool quick = state.range(0) != 0;
  OdeSkeleton ode(m);
  const std::vector<Vec3> rest = ode.origins();
  int64_t steps = 0, resets = 0, firstReset = 0;
  for (auto _ : state) {
    ode.step(dt, quick);
    ++steps;
    if (ode.diverged()) {
      if (!resets++) firstReset = steps;
      ode.reset();
    }
  }
  std::vector<Quat> joints;
  for (size_t i = 0; i < m.links.size(); ++i) joints.push_back(ode.jointRotation(i));
  skeletonCounters(state, m, dt, stretch(ode.origins(), rest), maxJointDegrees(joints), resets, firstReset);
}
BENCHMARK(BM_PeerSkeleton_Ode)
    ->ArgNames({"quick", "servos", "hz"})
    ->ArgsProduct({{0, 1}, {1, 0}, {2000, 240}})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// ---------------------------------------------------------------------------
// 3. A reduced deformable body on the ground.

namespace {

constexpr int kReducedModes = 10;
constexpr double kReducedDrop = 0.02;           // m: the box's underside above the ground at the start
constexpr double kReducedSettleSeconds = 0.25;  // simulated before the timing: the fall and the landing

// The body, the same in both engines: examples::GridBox's 1.0 x 0.28 x 0.28 m box cut into 30 x 9 x 9 cubes
// (3,100 nodes, 14,580 tets), Sinew's default BodyMaterial, kReducedModes modes, lying kReducedDrop above the
// ground. Bullet's basis is Sinew's normalised as tests/sim/sheth2015/BulletComparisonTest does (Bullet assumes
// S^T M S = I): S' = S L^-T with Mr = L L^T, stiffness diag(L^-1 Kr L^-T) (Bullet's is a diagonal array).
struct ReducedScene {
  TetMesh mesh;  // world positions at the start
  sheth2015::BodyMaterial material;
  std::shared_ptr<const sheth2015::ReducedBodyModel> model;
  Eigen::MatrixXd bulletModes;        // 3n x r, S L^-T
  Eigen::VectorXd bulletStiffness;    // r, diag(L^-1 Kr L^-T)
  double droppedCoupling = 0;         // largest |off-diagonal| of L^-1 Kr L^-T over its smallest diagonal
  double sinewReach = 0, bulletReach = 0;  // max_i ||S_i||_F: how far a unit ||q|| moves a node at most
};

double modeReach(const Eigen::MatrixXd& S) {
  double worst = 0;
  for (Eigen::Index i = 0; i < S.rows() / 3; ++i) worst = std::max(worst, S.middleRows(3 * i, 3).norm());
  return worst;
}

const ReducedScene& reducedScene() {
  static const ReducedScene scene = [] {
    ReducedScene s;
    examples::GridBox box;
    box.cellsX = 30;
    box.cellsY = box.cellsZ = 9;
    s.mesh = examples::gridBox(box);
    for (Vec3& x : s.mesh.nodes) x.y() += box.size.y() / 2 + kReducedDrop;
    s.model = sheth2015::buildReducedBody(s.mesh, s.material, kReducedModes, "box");
    const sheth2015::ReducedBodyModel& m = *s.model;
    const Eigen::MatrixXd L = Eigen::LLT<Eigen::MatrixXd>(m.Mr).matrixL();
    s.bulletModes = L.triangularView<Eigen::Lower>().solve(m.S.transpose()).transpose();
    const Eigen::MatrixXd Linv =
        L.triangularView<Eigen::Lower>().solve(Eigen::MatrixXd::Identity(kReducedModes, kReducedModes));
    const Eigen::MatrixXd Kn = Linv * m.Kr * Linv.transpose();
    s.bulletStiffness = Kn.diagonal();
    s.droppedCoupling =
        (Kn - Eigen::MatrixXd(Kn.diagonal().asDiagonal())).cwiseAbs().maxCoeff() / Kn.diagonal().minCoeff();
    s.sinewReach = modeReach(m.S);
    s.bulletReach = modeReach(s.bulletModes);
    return s;
  }();
  return scene;
}

// The ground of both engines: y = 0 (WorldSettings' default), friction 0.5, 8 sweeps, 20% of a penetration
// pushed out per step.
sheth2015::WorldSettings reducedWorldSettings(double dt) {
  sheth2015::WorldSettings w;
  w.step.dt = dt;
  return w;
}

// Sinew: one body in a sheth2015::World, every particle colliding with the ground.
class SinewReduced {
 public:
  SinewReduced(const ReducedScene& scene, double dt) : world_(reducedWorldSettings(dt)) {
    sheth2015::WorldBody b;
    b.model = scene.model;
    b.state = sheth2015::restState(*scene.model);
    b.proxyRadius = kBulletContactMargin;
    world_.addBody(std::move(b));
  }
  void step() { contacts_ = world_.step().contacts; }
  Vec3 centre() const { return body().state.t; }
  // How far the modes move any node at most.
  double deformationBound() const { return body().state.q.norm() * reducedScene().sinewReach; }
  std::vector<Vec3> positions() const { return sheth2015::particlePositions(*body().model, body().state); }
  int contacts() const { return contacts_; }

 private:
  const sheth2015::WorldBody& body() const { return world_.bodies()[0]; }
  sheth2015::World world_;
  int contacts_ = 0;
};

// Bullet: the same particles, masses and (normalised) modes as a btReducedDeformableBody with
// btReducedDeformableBodySolver in a btDeformableMultiBodyDynamicsWorld, node-vs-rigid contact with the ground box.
class BulletReduced {
 public:
  BulletReduced(const ReducedScene& scene, double dt)
      : dispatcher_(&config_), ground_(bulletGroundInfo(reducedWorldSettings(dt).groundHeight, groundShape_)) {
    const sheth2015::WorldSettings w = reducedWorldSettings(dt);
    constraintSolver_.setDeformableSolver(&bodySolver_);
    world_ = std::make_unique<btDeformableMultiBodyDynamicsWorld>(&dispatcher_, &broadphase_, &constraintSolver_,
                                                                  &config_, &bodySolver_);
    const btVector3 g = toBt(w.step.gravity);
    world_->setGravity(g);
    world_->getWorldInfo().m_gravity = g;
    bodySolver_.setGravity(g);  // the reduced solver applies its own gravity to the frame
    btContactSolverInfo& info = world_->getSolverInfo();
    info.m_friction = w.friction;  // the reduced contacts take their friction from here
    info.m_numIterations = w.sweeps;
    info.m_deformable_erp = w.recovery;

    ground_.setFriction(1);
    world_->addRigidBody(&ground_);

    const sheth2015::ReducedBodyModel& m = *scene.model;
    const int n = int(m.particleCount());
    std::vector<btVector3> x;
    std::vector<btScalar> mass;
    btReducedDeformableBody::tDenseArray massArray;
    for (int i = 0; i < n; ++i) {
      x.push_back(toBt(scene.mesh.nodes[size_t(i)]));
      mass.push_back(m.mass[size_t(i)]);
      massArray.push_back(m.mass[size_t(i)]);
    }
    body_ = std::make_unique<btReducedDeformableBody>(&world_->getWorldInfo(), n, x.data(), mass.data());
    body_->setReducedModes(kReducedModes, n);
    body_->m_modes.resize(kReducedModes);
    body_->m_Kr.resize(kReducedModes);
    body_->m_eigenvalues.resize(kReducedModes);
    for (int c = 0; c < kReducedModes; ++c) {
      body_->m_modes[c].resize(3 * n);
      for (int row = 0; row < 3 * n; ++row) body_->m_modes[c][row] = scene.bulletModes(row, c);
      body_->m_Kr[c] = body_->m_eigenvalues[c] = scene.bulletStiffness[c];
    }
    body_->setMassProps(massArray);
    body_->setInertiaProps();
    body_->setDamping(scene.material.alpha, scene.material.beta);  // Bullet uses beta only (alpha is 0 here)
    body_->internalInitialization();
    world_->addSoftBody(body_.get());
    body_->getCollisionShape()->setMargin(kBulletContactMargin);
    body_->m_cfg.kCHR = 1;
    body_->m_cfg.kKHR = 1;
    body_->m_cfg.kDF = w.friction;
    body_->m_cfg.collisions = btSoftBody::fCollision::SDF_RD | btSoftBody::fCollision::SDF_RDN;
    body_->m_sleepingThreshold = 0;
  }
  ~BulletReduced() {
    world_->removeSoftBody(body_.get());
    world_->removeRigidBody(&ground_);
  }
  BulletReduced(const BulletReduced&) = delete;
  BulletReduced& operator=(const BulletReduced&) = delete;

  void step(double dt) { world_->stepSimulation(dt, 0); }
  Vec3 centre() const { return fromBt(body_->getRigidTransform().getOrigin()); }
  double deformationBound() const {
    double q2 = 0;
    for (int c = 0; c < kReducedModes; ++c) q2 += body_->m_reducedDofs[c] * body_->m_reducedDofs[c];
    return std::sqrt(q2) * reducedScene().bulletReach;
  }
  std::vector<Vec3> positions() const {
    std::vector<Vec3> x;
    for (int i = 0; i < body_->m_nodes.size(); ++i) x.push_back(fromBt(body_->m_nodes[i].m_x));
    return x;
  }
  int contacts() const { return body_->m_nodeRigidContacts.size(); }

 private:
  btSoftBodyRigidBodyCollisionConfiguration config_;
  btCollisionDispatcher dispatcher_;
  btDbvtBroadphase broadphase_;
  btReducedDeformableBodySolver bodySolver_;
  btDeformableMultiBodyConstraintSolver constraintSolver_;
  btBoxShape groundShape_{btVector3(kBulletGroundHalfSize, kBulletGroundHalfSize, kBulletGroundHalfSize)};
  btRigidBody ground_;
  std::unique_ptr<btDeformableMultiBodyDynamicsWorld> world_;
  std::unique_ptr<btReducedDeformableBody> body_;
};

// Settles the scene (kReducedSettleSeconds), then one step per iteration. A step after which the body's centre of
// mass, or the most its modes can move a node, is further than kMaxDrift from the start has diverged: the engine is
// rebuilt at the start (outside the timing) and the reset counted, so that a blow-up neither crashes nor stops
// the run.
template <class Engine, class Step>
void runReduced(benchmark::State& state, Step step) {
  const ReducedScene& scene = reducedScene();
  const double dt = 1.0 / double(state.range(0));
  auto engine = std::make_unique<Engine>(scene, dt);
  const Vec3 startCentre = engine->centre();
  int64_t steps = 0, resets = 0, firstReset = 0;
  // One step; true when it diverged (then the caller rebuilds the engine).
  const auto diverges = [&] {
    step(*engine, dt);
    ++steps;
    if ((engine->centre() - startCentre).norm() + engine->deformationBound() <= kMaxDrift) return false;
    if (!resets++) firstReset = steps;
    return true;
  };
  const int64_t settle = std::max<int64_t>(1, std::llround(kReducedSettleSeconds / dt));
  for (int64_t i = 0; i < settle; ++i)
    if (diverges()) engine = std::make_unique<Engine>(scene, dt);
  int64_t contacts = 0;
  for (auto _ : state) {
    if (diverges()) {
      state.PauseTiming();
      engine = std::make_unique<Engine>(scene, dt);
      state.ResumeTiming();
    }
    contacts += engine->contacts();
  }
  const double drift = maxDrift(engine->positions(), scene.mesh.nodes);
  state.counters["nodes"] = double(scene.model->particleCount());
  state.counters["modes"] = kReducedModes;
  state.counters["f_min_hz"] = scene.model->frequencies[0];
  state.counters["f_max_hz"] = scene.model->frequencies[kReducedModes - 1];
  state.counters["contacts"] = double(contacts) / double(std::max<int64_t>(1, int64_t(state.iterations())));
  state.counters["drift_m"] = drift;
  state.counters["resets"] = double(resets);
  if (resets) state.counters["diverged_at_s"] = dt * double(firstReset);
  stepCounters(state, dt, settle, resets == 0 && std::isfinite(drift) && drift <= kMaxDrift);
}

}  // namespace

// Argument: steps per second.
static void BM_PeerReduced_Sinew(benchmark::State& state) {
  runReduced<SinewReduced>(state, [](SinewReduced& e, double) { e.step(); });
}
BENCHMARK(BM_PeerReduced_Sinew)->ArgName("hz")->Arg(60)->Arg(600)->Unit(benchmark::kMillisecond)->UseRealTime();

static void BM_PeerReduced_Bullet(benchmark::State& state) {
  runReduced<BulletReduced>(state, [](BulletReduced& e, double dt) { e.step(dt); });
}
BENCHMARK(BM_PeerReduced_Bullet)->ArgName("hz")->Arg(60)->Arg(600)->Unit(benchmark::kMillisecond)->UseRealTime();

int main(int argc, char** argv) {
  dInitODE2(0);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  dCloseODE();
  return 0;
}
