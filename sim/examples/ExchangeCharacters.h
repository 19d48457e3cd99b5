// The example humanoid laid out the way characters arrive from other tools,
// so that import, rigging and simulation are tested on files Sinew did not
// shape: a production armature (fingers, toes, end "nub" bones: 64 joints),
// the body split into torso, legs and head meshes skinned to it, two eyes
// that are rigid meshes under the head joint, and a bare A-pose surface with
// no skeleton at all. exportSkinnedCharacter (io/SkinnedExport.h) writes the
// first kind to FBX, glTF or Collada with a Z-up root or centimetres.
#pragma once

#include "io/SkinnedExport.h"
#include "model/Project.h"

namespace sinew {

struct ExchangeCharacter {
  Skeleton skeleton;               // rest pose (T-pose), metres, Y up
  std::vector<SkinnedPart> parts;  // "Torso", "Legs", "Head" (skinned), "LeftEye", "RightEye" (rigid, on Head)
};

// The armature of the example humanoid with five three-joint fingers and an
// end bone per finger on each hand, a toe and toe end per foot and a head
// end: 64 joints, CMU/Mixamo-style names ("LeftHandIndex1", "LeftToe_End").
Skeleton makeProductionSkeleton(const Skeleton& humanoid);

// The character of `humanoid` (its first mesh and skeleton) as a production
// file holds it. Weights fall off with the distance to each bone's segment
// (four influences per vertex); finger and toe bones weigh on the hand and
// boot vertices near them. Deterministic.
ExchangeCharacter makeExchangeCharacter(const Project& humanoid);

// The surface of `humanoid` in an A-pose (both arms turned `degrees` down at
// the shoulder, by linear blend skinning), one mesh with no skeleton, and
// where its joints went (the known answer for automatic joint placement).
struct BarePose {
  TriMesh surface;
  Skeleton skeleton;  // the posed joints (rest transforms of the posed skeleton)
};
BarePose makeAPoseSurface(const Project& humanoid, double degrees = 45.0);

}  // namespace sinew
