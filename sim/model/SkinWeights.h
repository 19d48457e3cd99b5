// Per-vertex skinning weights in compressed sparse rows, referring to bones by
// name so they survive re-rigging (a joint added or removed elsewhere).
#pragma once

#include "core/Types.h"

#include <string>
#include <vector>

namespace sinew {

struct SkinWeights {
  std::vector<std::string> bones;   // bone (joint) names the influences refer to (nBones)
  std::vector<int32_t> offsets;     // influences of vertex v: [offsets[v], offsets[v+1]) (nVertices + 1)
  std::vector<int32_t> bone;        // bone index of each influence (nInfluences)
  std::vector<double> weight;       // weight of each influence (nInfluences), rows sum to 1

  bool empty() const { return bones.empty(); }
  size_t vertexCount() const { return offsets.empty() ? 0 : offsets.size() - 1; }
  size_t influenceCount() const { return bone.size(); }
  // Divides each row by its sum (rows summing to zero stay empty).
  void normalize();
  // Throws InputError(context, ...) unless sizes, indices and weights are consistent with nVertices.
  void validate(const std::string& context, size_t nVertices) const;
  bool operator==(const SkinWeights&) const = default;
};

}  // namespace sinew
