// The small rigged humanoid the Liu 2013 tests share (a coarse cage of a few
// hundred nodes, built once per test binary: ~1-2 s).
#pragma once

#include "examples/Humanoid.h"
#include "rig/RigBuild.h"

namespace sinew::test {

inline const Project& riggedHumanoid() {
  static const Project project = [] {
    HumanoidOptions ho;
    ho.gridSpacing = 0.04;
    Project p = makeHumanoidProject(ho);
    RigBuildOptions ro;
    ro.cageNodes = 450;
    applyRigBuild(p, buildRig(p, 0, ro));
    return p;
  }();
  return project;
}

}  // namespace sinew::test
