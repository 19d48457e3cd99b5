// Finding what lies under the cursor: a joint (by screen distance), else the
// nearest mesh face along the view ray, refined to a vertex when one of the
// face's corners is within a few pixels of the cursor. CPU-side, no GL.
#pragma once

#include "Camera.h"
#include "geometry/TriangleTree.h"
#include "model/Project.h"

#include <vector>

namespace sinew::render {

enum class PickKind { None, Vertex, Face, Joint };

struct PickMeshTarget {
  ObjectId object = 0;
  const TriMesh* mesh = nullptr;
  const TriangleTree* tree = nullptr;  // built over *mesh
};

struct PickJointTarget {
  ObjectId object = 0;   // the skeleton
  int32_t joint = -1;
  Vec3 position = Vec3::Zero();
};

struct PickResult {
  PickKind kind = PickKind::None;
  ObjectId object = 0;
  int32_t vertex = -1;  // nearest corner of the hit face (Vertex, Face), or -1
  int32_t face = -1;    // hit face (Vertex, Face), or -1
  int32_t joint = -1;   // Joint
  Vec3 point = Vec3::Zero();
  double rayDistance = 0;  // from the eye
};

struct PickOptions {
  double jointRadiusPixels = 10;
  double vertexRadiusPixels = 8;
};

PickResult pick(const Camera& camera, int width, int height, double x, double y,
                const std::vector<PickMeshTarget>& meshes, const std::vector<PickJointTarget>& joints,
                const PickOptions& options = {});

}  // namespace sinew::render
