// "Deformable bones" (Sheth et al. 2015, Sections 8-9): a character's tet
// mesh cut into overlapping subdomains by thresholding its skinning weights,
// each subdomain a reduced body, about three point joints laid out in a
// cross-section of every overlap, the weights renormalized over the bodies
// holding each node (the LBS blend of eq. 42), and a coarse collision proxy:
// a subset of the mesh's boundary nodes, one per cell of a grid.
//
// decompose() is pure geometry and weights; it knows nothing of a project,
// so tests feed it generated meshes and Sheth2015Simulation a project's
// volume.
#pragma once

#include "model/SkinWeights.h"
#include "sheth2015/World.h"
#include "volume/TetMesh.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace sinew::sheth2015 {

struct DecomposeOptions {
  double threshold = 0.2;          // a tet joins bone k's subdomain when its nodes' mean weight of k reaches this
  int modes = 10;                  // r per body (0: rigid bodies)
  BodyMaterial material;
  int jointsPerOverlap = 3;
  double jointSpread = 0.35;       // joint distance from the overlap's centre, as a share of its cross-section radius
  int minimumNodes = 0;            // smaller subdomains merge into their parent bone (0: enough for r modes, at least 20)
  int proxySites = 1500;           // target collision proxy size (0: every boundary node)
  double proxyRadius = 0;          // m (0: a quarter of the proxy grid's cell)
};

// One bone's place in the hierarchy: its name and its parent's index in the
// same list (-1: a root). Joints are laid out only between a body and its
// nearest ancestor that has a body.
struct BoneInfo {
  std::string name;
  int32_t parent = -1;
  Vec3 head = Vec3::Zero();        // the joint's rest position (where the overlap's joints gather)
};

struct DeformableBones {
  std::vector<std::string> bodyNames;                       // the bone of each body
  std::vector<std::shared_ptr<const ReducedBodyModel>> models;
  std::vector<std::vector<int32_t>> bodyNodes;              // per body: the mesh node of each particle
  std::vector<int32_t> mergedInto;                          // per input bone: its body, or -1 if it has no weight
  std::vector<PointJoint> joints;
  Skin skin;                                                // every mesh node (for drawing), eq. 42
  Skin proxy;                                               // the collision proxy's sites
  std::vector<int32_t> proxyNodes;                          // mesh node of each proxy site
  size_t particleCount() const;                             // summed over the bodies
};

// Throws InputError naming the bone or body: weights that do not match the
// mesh, no bone with weight, a subdomain in several pieces or too small for
// its modes with no parent to merge into, modal analysis failures (from
// buildReducedBody, naming the body). `progress` (may be empty) gets 0..1.
DeformableBones decompose(const TetMesh& mesh, const SkinWeights& weights, const std::vector<BoneInfo>& bones,
                          const DecomposeOptions& options, const std::function<void(double)>& progress = {});

// The decomposition's bodies, joints and proxy skin added to `world` (bodies
// start at rest where the mesh is); returns the index of the first body.
int32_t addToWorld(const DeformableBones& bones, World& world);

}  // namespace sinew::sheth2015
