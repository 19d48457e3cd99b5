// The character's other meshes in a simulation: every mesh but the simulated
// surface rides on the skeleton the solver moves. Skinned meshes (a body
// part left separate, clothes) follow by their own weights (linear blend
// skinning); unskinned ones (eyes, teeth, props) move rigidly with the bone
// nearest to them. Any solver's jointPoses() drives them, so the eyes of a
// falling character fall with its head instead of hanging where they were.
#pragma once

#include "model/Project.h"

#include <utility>
#include <vector>

namespace sinew {

class Followers {
 public:
  Followers() = default;
  // The meshes of `project` other than `simulatedSurface`, bound to its
  // skeleton's rest pose (none without a skeleton).
  Followers(const Project& project, ObjectId simulatedSurface);

  bool empty() const { return meshes_.empty(); }
  size_t size() const { return meshes_.size(); }
  // Each follower's vertices for world joint transforms `jointPoses` (the
  // project skeleton's order). Empty when the pose does not match the skeleton.
  std::vector<std::pair<ObjectId, std::vector<Vec3>>> pose(const std::vector<Transform>& jointPoses) const;

 private:
  struct Mesh {
    ObjectId id = 0;
    std::vector<Vec3> rest;
    SkinWeights weights;
  };
  Skeleton skeleton_;
  std::vector<Mesh> meshes_;
};

}  // namespace sinew
