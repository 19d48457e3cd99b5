// A scene of reduced deformable bodies (Sheth et al. 2015, Sections 5-8):
// bodies (reduced, rigid when they have no modes, or kinematic), point joints
// between particles of two bodies, skins blending several bodies (the
// "deformable bones" of Section 8, eq. 42), and contact by impulses built on
// the impulse factor of eq. 33 (eq. 45 for a skin particle), so that every
// collision and joint impulse conserves the total linear and angular momentum
// it should.
//
// World::step() is the paper's Section 6 loop with Guendelman et al.'s
// contact handling between its halves:
//   1. velocities of every body (eq. 15-16, 34-35);
//   2. contacts found on the positions of the step's start, predictively
//      (a site that would end the step inside the ground, a static collider
//      or another surface is a contact);
//   3. sweeps over them: projected Gauss-Seidel on each contact's accumulated
//      normal impulse (push only) and friction impulse (inside the Coulomb
//      cone), effective masses from K; the joints' pre-stabilization (Newton
//      on eq. 41) runs in the same sweeps;
//   4. positions (eq. 36-38);
//   5. post-stabilization: the joints' particle velocities made equal (eq. 33a).
#pragma once

#include "dynamics/Colliders.h"
#include "sheth2015/ReducedBody.h"

#include <memory>
#include <string>
#include <vector>

namespace sinew::sheth2015 {

struct WorldBody {
  std::shared_ptr<const ReducedBodyModel> model;
  ReducedBodyState state;
  bool kinematic = false;              // moved by its state only; infinitely heavy for impulses
  bool collides = true;                // its own particles collide (off for a skinned character's bones)
  std::vector<int32_t> proxy;          // particles that collide (empty: all)
  double proxyRadius = 0.02;           // m, around each proxy particle
};

// Particle `particleA` of body A and `particleB` of body B held together.
struct PointJoint {
  int32_t bodyA = 0, particleA = 0, bodyB = 0, particleB = 0;
};

// A surface whose particles ("sites") blend particles of several bodies by
// weight (eq. 42): site s is sum_k w_k x_{body_k, particle_k}, its velocity
// the same blend, an impulse j on it gives body k the impulse w_k j (eq.
// 43-44), and its impulse factor is sum_k w_k^2 K_k (eq. 45).
struct Skin {
  std::string name;
  std::vector<int32_t> offsets{0};     // site s: influences [offsets[s], offsets[s+1])
  std::vector<int32_t> body, particle; // per influence
  std::vector<double> weight;          // per influence; a site's weights sum to 1
  double radius = 0.01;                // m, around each site
  size_t siteCount() const { return offsets.size() - 1; }
};

// Where the Coulomb cone is checked (Section 5.2). On the impulse,
// |j_t| <= mu j.n (Guendelman et al.), accumulated over the sweeps: the
// default, since with many contacts a normal push at an off-centre particle
// has a tangential velocity response and the velocity check then holds
// bodies on slopes they should slide down. On the resulting velocity,
// |(K j)_t| <= mu (K j).n: the paper's modified check, accumulated in
// velocity space (exact for a single contact).
enum class FrictionCone : uint8_t { Impulse, ResultingVelocity };

struct WorldSettings {
  StepSettings step;
  bool ground = true;
  double groundHeight = 0;
  double friction = 0.5;               // ground
  FrictionCone cone = FrictionCone::Impulse;
  // Between surfaces. Their sites are apart by the sum of the proxy radii,
  // so a friction impulse pair there is a couple d n x j_t: momenta are
  // exact without it, angular momentum changes by that couple with it.
  double surfaceFriction = 0.5;
  double restitution = 0.0;
  bool bodyContacts = true;            // between surfaces (bodies' proxies and skins)
  std::vector<Collider> colliders;     // static; each with its own friction
  int sweeps = 8;                      // contact and pre-stabilization passes
  int newtonIterations = 6;            // pre-stabilization per joint per pass
  double newtonTolerance = 1e-7;       // m: a joint whose predicted gap is below this is done
  bool preStabilization = true;
  int postStabilization = 2;           // passes
  // Impulses reach the modes through the implicit step's matrix (Mr + h Cr +
  // h^2 Kr)^-1 rather than Mr^-1 (ReducedBody.h, implicitResponse): a stiff
  // body deforms under a hard hit as its stiffness allows. Off: eq. 29 as
  // printed.
  bool stiffImpulses = true;
  double recovery = 0.2;               // share of a penetration pushed out per step
  double slop = 1e-3;                  // m of penetration left alone (no jitter at rest)
};

struct WorldStats {
  int contacts = 0;                    // contacts of the last step
  int activeContacts = 0;              // those that pushed
  double worstJointGap = 0;            // m, after the step
};

class World {
 public:
  explicit World(WorldSettings settings = {});
  // Throws InputError for a proxy particle that does not exist.
  int32_t addBody(WorldBody body);
  // Throws InputError for a joint naming a body or particle that does not exist.
  void addJoint(const PointJoint& joint);
  // Throws InputError naming the skin: influences on missing bodies or
  // particles, weights that do not sum to 1, two influences on one body.
  int32_t addSkin(Skin skin);
  WorldSettings& settings() { return settings_; }
  const WorldSettings& settings() const { return settings_; }
  const std::vector<WorldBody>& bodies() const { return bodies_; }
  std::vector<WorldBody>& bodies() { return bodies_; }
  const std::vector<PointJoint>& joints() const { return joints_; }
  const std::vector<Skin>& skins() const { return skins_; }
  const WorldStats& step();
  double jointGap(size_t joint) const;

  // Skin sites (eq. 42) and their velocities; the impulse on a site (eq. 43-44).
  Vec3 sitePosition(size_t skin, size_t site) const;
  Vec3 siteVelocity(size_t skin, size_t site) const;
  std::vector<Vec3> sitePositions(size_t skin) const;
  Mat3 siteFactor(size_t skin, size_t site) const;  // eq. 45
  void applySiteImpulse(size_t skin, size_t site, const Vec3& j);

  // The bounding-sphere hierarchy of skin `skin` now (node spheres with the
  // sites under each; radii include the skin's site radius): for tests and
  // drawing.
  struct BoundingSphere {
    Vec3 centre = Vec3::Zero();
    double radius = 0;
    std::vector<int32_t> sites;
  };
  std::vector<BoundingSphere> boundingSpheres(size_t skin) const;

  // Totals over the dynamic bodies' particles: linear momentum and angular
  // momentum about the origin.
  Vec3 linearMomentum() const;
  Vec3 angularMomentum() const;

 private:
  // What collides: a body's proxy particles, or a skin's sites, as one kind
  // of surface (a body's particle is a site with one influence of weight 1).
  struct Surface {
    int32_t skin = -1;                 // index into skins_, or -1: body `body`'s proxy
    int32_t body = -1;
    Skin sites;                        // a skin's sites, or the body's proxy particles as one-influence sites
    std::vector<int32_t> bodiesTouched;  // sorted; which bodies move it
    // A bounding-sphere hierarchy over the sites (binary, built at rest by
    // median splits). Each node's sphere is recomputed every step in O(its
    // bodies) from the bodies' frames and reduced coordinates, with a
    // radius that provably bounds the sites however the bodies move and
    // deform (World.cpp, sphereOf).
    struct Influence {
      int32_t body = 0;
      double meanWeight = 0;           // over the node's sites
      double weightSpread = 0;         // max |w - meanWeight|
      double modeBound = 0;            // max w ||S_i||_2: deformation per unit ||q||
    };
    struct Node {
      int32_t begin = 0, end = 0;      // sites order[begin, end)
      int32_t left = -1, right = -1;
      Vec3 restCentre = Vec3::Zero();
      double restRadius = 0;
      std::vector<Influence> influences;
    };
    std::vector<int32_t> order;
    std::vector<Node> nodes;           // nodes[0] is the root
  };
  struct Sphere {
    Vec3 centre = Vec3::Zero();
    double radius = 0;                 // the sites' proxy radius included
    double speed = 0;                  // bound on any of its sites' speeds (set by findContacts)
  };
  struct Endpoint {                    // one side of a contact
    int32_t surface = -1, site = 0;    // surface -1: static (ground or a collider)
  };
  struct Contact {
    Endpoint a, b;                     // b is always a surface; the normal points from a to b
    Vec3 normal = Vec3::UnitY();
    double want = 0;                   // target normal relative velocity
    double friction = 0;
    // From K, the relative velocity change per unit impulse (+j on b, -j on a):
    double normalMass = 0;             // 1 / n.K n
    Vec3 tangent[2];
    Eigen::Matrix2d tangentMass = Eigen::Matrix2d::Zero();  // (T^T K T)^-1
    double normalImpulse = 0;          // accumulated, >= 0
    Eigen::Vector2d tangentImpulse = Eigen::Vector2d::Zero();
    Mat3 Kinverse = Mat3::Zero();      // FrictionCone::ResultingVelocity: accumulated K j, clamped
    Vec3 delta = Vec3::Zero();
    bool invertible = false;
  };

  Mat3 factor(size_t body, size_t particle) const;  // K of eq. 33 (zero for kinematic bodies)
  const Eigen::MatrixXd* response(size_t body) const;  // for impulses (nullptr: Mr^-1)
  void refreshResponses();
  void impulse(size_t body, size_t particle, const Vec3& j);
  Vec3 skinPosition(const Skin& skin, size_t site) const;
  Vec3 skinVelocity(const Skin& skin, size_t site) const;
  Mat3 skinFactor(const Skin& skin, size_t site) const;
  void skinImpulse(const Skin& skin, size_t site, const Vec3& j);
  Vec3 endpointPosition(const Endpoint& e) const;
  Vec3 endpointVelocity(const Endpoint& e) const;
  Mat3 endpointFactor(const Endpoint& e) const;
  void endpointImpulse(const Endpoint& e, const Vec3& j);
  bool mayTouch(const Surface& a, const Surface& b) const;
  void rebuildSurfaces();
  void buildTree(Surface& s) const;
  Sphere sphereOf(const Surface& s, const Surface::Node& n) const;
  void findContacts();
  int solveContacts();
  double preStabilize();  // the worst joint gap it found before closing it
  void postStabilize();
  Vec3 jointMidpoint(const PointJoint& joint) const;
  void jointImpulse(const PointJoint& joint, const Vec3& j, const Vec3& mid);

  WorldSettings settings_;
  std::vector<WorldBody> bodies_;
  std::vector<PointJoint> joints_;
  std::vector<Skin> skins_;
  std::vector<Surface> surfaces_;
  std::vector<std::vector<int32_t>> jointedWith_;  // per body, sorted
  dyn::ColliderGrid colliderGrid_;
  size_t colliderCount_ = 0;
  std::vector<Contact> contacts_;
  std::vector<double> modeBound_, reach_;  // per body: max ||S_i|| (Frobenius), max |x0_i|
  std::vector<double> speed_;              // per body, this step: bound on its particles' speeds
  std::vector<Eigen::MatrixXd> response_;  // per body: (Mr + h Cr + h^2 Kr)^-1 for responseDt_
  double responseDt_ = -1;
  WorldStats stats_;
};

}  // namespace sinew::sheth2015
