// FBX and Collada animations become motion clips whose joints move exactly as
// the file's keys say: the clip's world joint positions, at each key time,
// match a direct evaluation of the node hierarchy with Assimp's own data.
#include "io/AssimpImport.h"
#include "io/Bvh.h"

#include "TestUtil.h"

#include <assimp/Importer.hpp>
#include <assimp/scene.h>
#include <gtest/gtest.h>

#include <map>

namespace sinew {
namespace {

using test::model;

// World positions of all nodes at `ticks`, from the raw keys (the key at or
// just before `ticks` is used: the test samples exactly at key times).
std::map<std::string, Vec3> nodePositions(const aiScene* s, const aiAnimation* anim, double ticks) {
  std::map<std::string, const aiNodeAnim*> channels;
  for (unsigned c = 0; c < anim->mNumChannels; ++c) channels[anim->mChannels[c]->mNodeName.C_Str()] = anim->mChannels[c];
  std::map<std::string, Vec3> out;
  std::function<void(const aiNode*, const aiMatrix4x4&)> walk = [&](const aiNode* n, const aiMatrix4x4& parent) {
    aiMatrix4x4 local = n->mTransformation;
    const auto it = channels.find(n->mName.C_Str());
    if (it != channels.end()) {
      aiVector3D sc, pos;
      aiQuaternion rot;
      local.Decompose(sc, rot, pos);
      const aiNodeAnim* ch = it->second;
      auto at = [&](const auto* keys, unsigned count) {
        unsigned i = 0;
        while (i + 1 < count && keys[i + 1].mTime <= ticks + 1e-9) ++i;
        return keys[i].mValue;
      };
      if (ch->mNumPositionKeys) pos = at(ch->mPositionKeys, ch->mNumPositionKeys);
      if (ch->mNumRotationKeys) rot = at(ch->mRotationKeys, ch->mNumRotationKeys);
      if (ch->mNumScalingKeys) sc = at(ch->mScalingKeys, ch->mNumScalingKeys);
      local = aiMatrix4x4(sc, rot, pos);
    }
    const aiMatrix4x4 global = parent * local;
    out[n->mName.C_Str()] = Vec3(global.a4, global.b4, global.c4);
    for (unsigned c = 0; c < n->mNumChildren; ++c) walk(n->mChildren[c], global);
  };
  walk(s->mRootNode, aiMatrix4x4());
  return out;
}

void expectClipFollowsKeys(const std::string& file) {
  SCOPED_TRACE(file);
  const ImportResult r = importFile(file);
  ASSERT_EQ(r.clips.size(), 1u);
  const MotionClip& clip = r.clips[0];
  EXPECT_NO_THROW(clip.validate(file));
  EXPECT_GT(clip.frameCount, 2);

  Assimp::Importer importer;
  const aiScene* s = importer.ReadFile(file, 0);
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->mNumAnimations, 1u);
  const aiAnimation* anim = s->mAnimations[0];
  const double tps = anim->mTicksPerSecond > 0 ? anim->mTicksPerSecond : 25.0;
  // The rotation keys of the first channel with several, as sample times.
  const aiNodeAnim* timing = nullptr;
  for (unsigned c = 0; c < anim->mNumChannels && !timing; ++c)
    if (anim->mChannels[c]->mNumRotationKeys > 2) timing = anim->mChannels[c];
  ASSERT_NE(timing, nullptr);
  double size = 0;
  for (const auto& [name, p] : nodePositions(s, anim, 0)) size = std::max(size, p.norm());
  int compared = 0;
  for (unsigned k = 0; k < timing->mNumRotationKeys; ++k) {
    const double ticks = timing->mRotationKeys[k].mTime;
    const double seconds = ticks / tps;
    // Only where a clip frame falls on the key (the clip interpolates between frames).
    const double frame = seconds / clip.frameTime;
    if (std::abs(frame - std::round(frame)) > 1e-6) continue;
    const std::map<std::string, Vec3> expected = nodePositions(s, anim, ticks);
    const std::vector<Transform> world = clip.skeleton().worldFromLocal(clip.localPose(int32_t(std::lround(frame))));
    for (size_t j = 0; j < clip.joints.size(); ++j) {
      const Vec3 want = expected.at(clip.joints[j].name) * clip.unitScale;
      EXPECT_LT((world[j].translation - want).norm(), 1e-6 * std::max(size, 1.0))
          << clip.joints[j].name << " at key " << k;
      ++compared;
    }
  }
  EXPECT_GT(compared, 10);
}

TEST(AnimationImport, FbxArmatureActionsMatchTheirKeys) {
  expectClipFollowsKeys(model("FBX/huesitos.fbx"));
  expectClipFollowsKeys(model("FBX/animation_with_skeleton.fbx"));
}

TEST(AnimationImport, ClipCoversTheSkeletonAndExportsAsBvh) {
  const ImportResult r = importFile(model("FBX/huesitos.fbx"));
  ASSERT_EQ(r.clips.size(), 1u);
  const MotionClip& clip = r.clips[0];
  EXPECT_EQ(clip.channelCount(), 6 * int32_t(clip.joints.size()));
  // The skeleton's joints are all in the clip, so the clip can drive it.
  ASSERT_TRUE(r.skeleton.has_value());
  for (const Joint& j : r.skeleton->joints) {
    bool found = false;
    for (const ClipJoint& c : clip.joints) found |= c.name == j.name;
    EXPECT_TRUE(found) << j.name;
  }
  // Exported as BVH and read back, it is the same motion.
  const MotionClip back = parseBvh(formatBvh(clip), "huesitos.bvh", clip.unitScale);
  EXPECT_EQ(back.joints, clip.joints);
  EXPECT_EQ(back.values, clip.values);
  EXPECT_EQ(back.frameTime, clip.frameTime);
}

}  // namespace
}  // namespace sinew
