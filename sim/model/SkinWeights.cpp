#include "model/SkinWeights.h"

#include "core/Error.h"

#include <cmath>

namespace sinew {

void SkinWeights::normalize() {
  for (size_t v = 0; v + 1 < offsets.size(); ++v) {
    double sum = 0;
    for (int32_t i = offsets[v]; i < offsets[v + 1]; ++i) sum += weight[i];
    if (sum > 0)
      for (int32_t i = offsets[v]; i < offsets[v + 1]; ++i) weight[i] /= sum;
  }
}

void SkinWeights::validate(const std::string& context, size_t nVertices) const {
  if (offsets.size() != nVertices + 1)
    throw InputError(context, "skin weights cover " + std::to_string(offsets.empty() ? 0 : offsets.size() - 1) +
                                  " vertices, the mesh has " + std::to_string(nVertices));
  if (bone.size() != weight.size()) throw InputError(context, "skin weights: bone and weight arrays differ in size");
  for (size_t b = 0; b < bones.size(); ++b)
    for (size_t c = 0; c < b; ++c)
      if (bones[c] == bones[b]) throw InputError(context, "skin weights: bone '" + bones[b] + "' is listed twice");
  if (offsets.front() != 0 || offsets.back() != static_cast<int32_t>(bone.size()))
    throw InputError(context, "skin weights: row offsets do not span the influence arrays");
  for (size_t v = 0; v + 1 < offsets.size(); ++v)
    if (offsets[v] > offsets[v + 1]) throw InputError(context, "skin weights: row offsets decrease");
  for (size_t i = 0; i < bone.size(); ++i) {
    if (bone[i] < 0 || bone[i] >= static_cast<int32_t>(bones.size()))
      throw InputError(context, "skin weights: bone index " + std::to_string(bone[i]) + " out of range");
    if (!std::isfinite(weight[i]) || weight[i] < 0)
      throw InputError(context, "skin weights: invalid weight " + std::to_string(weight[i]));
  }
}

}  // namespace sinew
