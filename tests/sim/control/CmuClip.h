// The CMU clip the controller tests use (assimp-testmodels), added to a project.
#pragma once

#include "io/Bvh.h"
#include "model/Project.h"

namespace sinew::test {

inline constexpr const char* kCmuClipPath = "/usr/share/assimp/models/BVH/01_01.bvh";

// `p` with 01_01 as a clip named "01_01".
inline Project withCmuClip(Project p) {
  ClipObject c;
  c.id = p.allocateId();
  c.clip = readBvh(kCmuClipPath);
  c.clip.name = "01_01";
  p.clips.push_back(std::move(c));
  return p;
}

}  // namespace sinew::test
