// Conforming tet meshes with bone regions, generated for the Li et al. 2019
// solver: the paper's "bar" (two bones, one joint, flesh around), a long
// creature with a chain of bones (like its mermaid or snail), and a single
// fully rigid bar (Fig. 9). Every box is cut into cubes and every cube into
// six tets around its main diagonal, so neighbouring cubes share faces; a
// cube is bone k when its centre lies in bone k's box, and bones are kept a
// cube apart so that they share no node.
#pragma once

#include "io/TetFiles.h"
#include "model/Project.h"
#include "volume/TetMesh.h"

namespace sinew::examples {

struct GridBox {
  Vec3 size = Vec3(1.0, 0.28, 0.28);  // m, centred at the origin
  int cellsX = 25, cellsY = 7, cellsZ = 7;
};

// The tet mesh of a box (flesh everywhere).
TetMesh gridBox(const GridBox& box);

// The paper's bar: 1,664 nodes, 7,350 tets at the defaults; bones from cells
// 1 to cellsX/2 - 1 and from cellsX/2 + 1 to cellsX - 1 along x, in the inner
// cells across; one joint at the centre.
struct BarScene {
  TetMesh mesh;
  JointFile joints;
};
BarScene barScene(const GridBox& box = {});

// `bones` bones in a row along x with a joint between each pair (a chain).
BarScene chainScene(int bones, const GridBox& box);

// One bone holding every tet (no flesh, no joint).
BarScene rigidBarScene(const GridBox& box);

// A scene as a project the solvers and the application open: its boundary
// as the surface mesh (embedded at the nodes), a skeleton with a joint per
// bone (skeletonFromJoints: the root bone's joint at its centre, each other
// where it meets its parent), and the conforming volume. `lift` raises it
// all (m).
Project makeBarProject(const BarScene& scene, const std::string& name, double lift = 0);

}  // namespace sinew::examples
