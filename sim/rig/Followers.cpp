#include "rig/Followers.h"

#include "rig/Skinning.h"

namespace sinew {

namespace {

// Whether `w` binds `nVertices` vertices with at least one bone the skeleton knows.
bool usable(const SkinWeights& w, size_t nVertices, const Skeleton& s) {
  if (w.vertexCount() != nVertices) return false;
  for (const std::string& b : w.bones)
    if (s.find(b) >= 0) return true;
  return false;
}

}  // namespace

Followers::Followers(const Project& project, ObjectId simulatedSurface) {
  if (!project.skeleton || project.skeleton->skeleton.size() == 0) return;
  skeleton_ = project.skeleton->skeleton;
  for (const MeshObject& m : project.meshes) {
    if (m.id == simulatedSurface || m.mesh.vertexCount() == 0) continue;
    Mesh f;
    f.id = m.id;
    f.rest = m.mesh.positions;
    if (m.skin && usable(*m.skin, f.rest.size(), skeleton_)) {
      f.weights = *m.skin;
    } else {
      // Rigidly with the bone nearest to the mesh's centre: the whole eye turns with the head.
      const Vec3 centre = m.mesh.bounds().center();
      const SkinWeights one = nearestBoneWeights({centre}, skeleton_);
      f.weights.bones = one.bones;
      f.weights.offsets.resize(f.rest.size() + 1);
      for (size_t v = 0; v <= f.rest.size(); ++v) f.weights.offsets[v] = int32_t(v * one.bone.size());
      for (size_t v = 0; v < f.rest.size(); ++v) {
        f.weights.bone.insert(f.weights.bone.end(), one.bone.begin(), one.bone.end());
        f.weights.weight.insert(f.weights.weight.end(), one.weight.begin(), one.weight.end());
      }
    }
    meshes_.push_back(std::move(f));
  }
}

std::vector<std::pair<ObjectId, std::vector<Vec3>>> Followers::pose(const std::vector<Transform>& jointPoses) const {
  std::vector<std::pair<ObjectId, std::vector<Vec3>>> out;
  if (jointPoses.size() != skeleton_.size()) return out;
  for (const Mesh& m : meshes_) out.push_back({m.id, linearBlendSkinning(m.rest, m.weights, skeleton_, jointPoses)});
  return out;
}

}  // namespace sinew
