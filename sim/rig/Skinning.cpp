#include "rig/Skinning.h"

#include "rig/BoneShapes.h"

#include <limits>

namespace sinew {

std::vector<Transform> skinningTransforms(const Skeleton& s, const std::vector<Transform>& pose) {
  const std::vector<Transform> rest = s.worldRest();
  std::vector<Transform> out(s.size());
  for (size_t j = 0; j < s.size(); ++j) out[j] = pose[j] * rest[j].inverse();
  return out;
}

std::vector<Vec3> linearBlendSkinning(const std::vector<Vec3>& rest, const SkinWeights& w, const Skeleton& s,
                                      const std::vector<Transform>& pose) {
  const std::vector<Transform> S = skinningTransforms(s, pose);
  std::vector<int32_t> joint(w.bones.size());
  for (size_t b = 0; b < w.bones.size(); ++b) joint[b] = s.find(w.bones[b]);
  std::vector<Vec3> out(rest.size());
  for (size_t v = 0; v < rest.size(); ++v) {
    Vec3 x = Vec3::Zero();
    double sum = 0;
    if (v + 1 < w.offsets.size())
      for (int32_t i = w.offsets[v]; i < w.offsets[v + 1]; ++i) {
        const int32_t j = joint[size_t(w.bone[size_t(i)])];
        if (j < 0) continue;
        x += w.weight[size_t(i)] * S[size_t(j)].apply(rest[v]);
        sum += w.weight[size_t(i)];
      }
    out[v] = sum > 0 ? Vec3(x / sum) : rest[v];
  }
  return out;
}

std::vector<Transform> poseFromRotations(const Skeleton& s, const std::vector<Quat>& rotations) {
  std::vector<Transform> local(s.size());
  for (size_t j = 0; j < s.size(); ++j) {
    local[j] = s.joints[j].restLocal;
    if (j < rotations.size()) local[j].rotation = (local[j].rotation * rotations[j]).normalized();
  }
  return s.worldFromLocal(local);
}

SkinWeights nearestBoneWeights(const std::vector<Vec3>& positions, const Skeleton& s) {
  SkinWeights w;
  std::vector<int32_t> bones = s.bones();
  if (bones.empty())
    for (size_t j = 0; j < s.size(); ++j) bones.push_back(int32_t(j));
  const std::vector<Vec3> pos = s.restPositions();
  std::vector<std::pair<Vec3, Vec3>> segments;
  for (int32_t j : bones) {
    w.bones.push_back(s.joints[size_t(j)].name);
    const int32_t c = chainChild(s, j);
    const int32_t up = s.joints[size_t(j)].parent;
    // A leaf's bone continues its parent's direction for half its length.
    const Vec3 end = c >= 0 ? pos[size_t(c)] : up >= 0 ? Vec3(pos[size_t(j)] + 0.5 * (pos[size_t(j)] - pos[size_t(up)])) : pos[size_t(j)];
    segments.push_back({pos[size_t(j)], end});
  }
  w.offsets.push_back(0);
  for (const Vec3& p : positions) {
    int32_t best = -1;
    double bestD = std::numeric_limits<double>::infinity();
    for (size_t b = 0; b < segments.size(); ++b) {
      const auto& [a, e] = segments[b];
      const Vec3 ab = e - a;
      const double t = ab.squaredNorm() > 0 ? std::clamp((p - a).dot(ab) / ab.squaredNorm(), 0.0, 1.0) : 0.0;
      const double d = (p - (a + t * ab)).squaredNorm();
      if (d < bestD) {
        bestD = d;
        best = int32_t(b);
      }
    }
    if (best >= 0) {
      w.bone.push_back(best);
      w.weight.push_back(1.0);
    }
    w.offsets.push_back(int32_t(w.bone.size()));
  }
  return w;
}

}  // namespace sinew
