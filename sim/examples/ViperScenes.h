// Scenes for the VIPER solver (Angles et al. 2019), generated as projects
// with rod bodies (model/RodBody.h):
//  - octopi: each an octopus of 37 pills (a head rod of 5 segments and 8
//    arms of 4, the arm roots and the head's base bundled), skinned to a
//    surface made from its pills, dropped on the ground in a grid (Fig. 7);
//  - an elastic band (Fig. 8): three parallel rods bundled per
//    cross-section, one end fixed in the world, the other carried by a
//    "Handle" joint that a clip ("Stretch") pulls to 1.5x and back;
//  - an arm: upper arm and forearm bones (capsules), a spindle biceps
//    painted at its ends and viperized (5 rods of 8 nodes), its ends pinned
//    to the two bones, and a clip ("Flex") that bends the elbow.
#pragma once

#include "model/Project.h"

namespace sinew::examples {

// `count` octopi (>= 1) in a square grid 0.9 m apart, 0.35 m above the ground.
Project makeOctopusProject(int count = 1);
Project makeBandProject();
Project makeArmProject();

// One octopus's rods (37 pills) and its bundle, about `origin`, turned by
// `yaw` radians about the vertical.
RodBodyObject octopusRods(const Vec3& origin, double yaw);

}  // namespace sinew::examples
