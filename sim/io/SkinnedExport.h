// Writing a skinned character (meshes, skeleton, skin weights) to the
// formats other tools read: FBX, glTF 2.0 (.gltf/.glb), Collada (.dae) and
// DirectX .x, through Assimp's exporters. The file stores what a DCC tool
// would: a node per joint, a node per mesh, each skinned mesh's bones with
// their offset (inverse bind) matrices, unskinned meshes placed by their node.
//
// The options reproduce how other tools lay files out, so that import can be
// tested on characters Sinew did not shape: an up axis carried by a root node
// (Z-up data under a root that turns it), centimetres, a transform on the
// skinned mesh's node that skinning ignores.
#pragma once

#include "geometry/TriMesh.h"
#include "model/SkinWeights.h"
#include "model/Skeleton.h"

#include <optional>
#include <string>
#include <vector>

namespace sinew {

struct SkinnedPart {
  std::string name;
  TriMesh mesh;                      // metres, world (rest pose)
  std::optional<SkinWeights> skin;   // bones by joint name; none: a rigid part
  int32_t parentJoint = -1;          // rigid part: the joint whose node holds it (-1: the scene root)
};

struct SkinnedExportOptions {
  bool zUp = false;               // store Z-up data under a root node that turns it to Y-up
  double unitsPerMetre = 1.0;     // 100: centimetres in the data
  double rootScale = 1.0;         // a scale on the root node (0.01 with centimetre data: Blender's layout)
  // A transform on skinned meshes' nodes that skinning ignores (glTF's rule;
  // FBX keeps a mesh's bind transform, so leave it at the identity there).
  Transform skinnedMeshNode;
  // Joint-local transforms (metres) the node hierarchy stores instead of the
  // rest pose, as files saved on an animation frame do; the offset matrices
  // keep the bind pose. Empty: the rest pose.
  std::vector<Transform> storedPose;
};

// Writes the character to `path` (format from the extension: fbx, gltf, glb,
// dae, x). Throws InputError naming the file and the problem.
void exportSkinnedCharacter(const Skeleton& skeleton, const std::vector<SkinnedPart>& parts, const std::string& path,
                            const SkinnedExportOptions& options = {});

}  // namespace sinew
