// The local step of Li et al. 2019 (projective dynamics, Bouaziz et al. 2014)
// eight tets at a time: per tet the rotation nearest to its deformation
// gradient F, and the projection's pull on its four corners. Private to
// li2019/. Tets are stored in blocks of kLanes with structure-of-arrays
// fields, like the Liu 2013 element kernel, and the kernel is compiled for
// several instruction sets: a tet's result does not depend on its block, the
// instruction set or the thread count.
#pragma once

#include "core/Types.h"
#include "volume/TetMesh.h"

#include <cstdint>
#include <vector>

namespace sinew::li2019 {

struct TetBlocks {
  size_t count = 0;                      // tets
  size_t blocks = 0;                     // ceil(count / 8)
  std::vector<int32_t> node;             // [block][corner 0..3][lane]
  std::vector<double> restShapeInverse;  // Dm^-1 [block][col-major entry 0..8][lane]
  std::vector<double> weight;            // w of w/2 ||F - R||^2 [block][lane]
};

// restShapeInverse[t] = Dm^-1 (rows 1..3 of the tet's gradient operator G).
TetBlocks makeTetBlocks(const std::vector<Tet>& tets, const std::vector<Mat3>& restShapeInverse,
                        const std::vector<double>& weight);

// Tets of blocks [firstBlock, lastBlock): F = Ds Dm^-1, R its polar rotation
// (Newton's iteration warm-started at rotation[t], which is read and
// written; inverted or flat tets take the proper rotation maximising
// tr(R^T F) from the SVD), and the corner pulls w R g_c (g_c the gradient of
// corner c's shape function) in corner[4 t + c].
void localBlocks(const TetBlocks& e, size_t firstBlock, size_t lastBlock, const Vec3* x, Mat3* rotation,
                 Vec3* corner);

}  // namespace sinew::li2019
