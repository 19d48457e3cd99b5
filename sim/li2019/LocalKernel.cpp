// The local step's vector kernel (see LocalKernel.h), with the lane helpers
// of core/Lanes.h.
#include "li2019/LocalKernel.h"

#include "core/Lanes.h"
#include "core/Rotation.h"

#include <algorithm>

namespace sinew::li2019 {

using namespace lanes;

namespace {

// As in the Liu 2013 kernel: flatter tets (det relative to size^3) and lanes
// Newton's iteration has not settled in kNewtonIterations go to the SVD.
constexpr double kFlat = 1e-4;
constexpr int kNewtonIterations = 20;


}  // namespace

TetBlocks makeTetBlocks(const std::vector<Tet>& tets, const std::vector<Mat3>& restShapeInverse,
                        const std::vector<double>& weight) {
  TetBlocks e;
  e.count = tets.size();
  e.blocks = blockCount(e.count);
  e.node = blockCorners(tets);
  e.restShapeInverse = blockMatrices(restShapeInverse);
  e.weight = blockScalars(weight);
  return e;
}

__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
void localBlocks(const TetBlocks& e, size_t firstBlock, size_t lastBlock, const Vec3* x, Mat3* rotation,
                 Vec3* corner) {
  for (size_t b = firstBlock; b < lastBlock; ++b) {
    size_t elem[kLanes];
    const int valid = static_cast<int>(std::min<size_t>(kLanes, e.count - b * kLanes));
    for (int l = 0; l < kLanes; ++l) elem[l] = b * kLanes + size_t(std::min(l, valid - 1));
    M inv;
    for (int k = 0; k < 9; ++k) inv.a[k] = load(&e.restShapeInverse[(b * 9 + k) * kLanes]);
    const V w = load(&e.weight[b * kLanes]);

    M ds, f, r0, xr, rot;
    edges(x, &e.node[b * 4 * kLanes], ds);
    mul(ds, inv, f);                                    // F = Ds Dm^-1
    gather(rotation, elem, r0);
    mulTN(r0, f, xr);                                   // nearly symmetric near the warm start
    const Mask ok = polarNewton(xr, kFlat, kNewtonIterations);
    mul(r0, xr, rot);
    for (int l = 0; l < kLanes; ++l)
      if (!ok[l]) setLane(rot, l, nearestRotation(lane(f, l)));
    scatter(rot, elem, valid, rotation);

    // The pull of the projection on corners 1..3 is w R g_c with g_c the
    // rows of Dm^-1 (columns of R Dm^-T); corner 0 takes minus their sum.
    M pull;
    mulNT(rot, inv, pull);
    alignas(64) double buf[9][kLanes];
    for (int k = 0; k < 9; ++k) store(w * pull.a[k], buf[k]);
    for (int l = 0; l < valid; ++l) {
      Vec3* c = corner + elem[l] * 4;
      for (int k = 0; k < 3; ++k) c[k + 1] = Vec3(buf[k * 3][l], buf[k * 3 + 1][l], buf[k * 3 + 2][l]);
      c[0] = -(c[1] + c[2] + c[3]);
    }
  }
}

}  // namespace sinew::li2019
