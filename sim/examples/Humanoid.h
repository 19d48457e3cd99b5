// The default example character: a soft humanoid in the spirit of the
// "Michelin" model of Liu et al. 2013 (stacked, blended rounded shapes), with
// a 19-joint skeleton named after the CMU BVH convention so that CMU motion
// clips map onto it by name. Generated entirely by this code.
#pragma once

#include "core/Progress.h"
#include "model/Project.h"

namespace sinew {

struct HumanoidOptions {
  double height = 1.75;        // metres, top of the head above the ground
  double gridSpacing = 0.028;   // surface nets cell size for a 1.75 m figure (scaled with height)
};

// The rest skeleton (T-pose, feet on y = 0, facing +z, left = +x).
Skeleton makeHumanoidSkeleton(const HumanoidOptions& options = {});

// The closed surface of the character (metres).
TriMesh makeHumanoidSurface(const HumanoidOptions& options = {}, const Progress& progress = Progress::none());

// A project holding the surface ("Michelin body") and the skeleton.
Project makeHumanoidProject(const HumanoidOptions& options = {}, const Progress& progress = Progress::none());

// The same character ready to simulate: the coarse cage with fixed nodes,
// the embedding and bounded biharmonic weights (RigBuild), and four
// generated motion clips whose joint names match the skeleton: "Kick",
// "Walk in place", "Elbow bend" and "Run (generated)" (examples/Motions.h).
Project makeRiggedHumanoidProject(const HumanoidOptions& options = {}, const Progress& progress = Progress::none());

}  // namespace sinew
