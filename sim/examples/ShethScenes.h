// Scenes for the Sheth et al. 2015 solver ("deformable bones"), generated as
// projects: a surface, a skeleton, and a TetGen volume whose nodes carry
// skinning weights, with the surface embedded in it. Simulate them with
// `sinew-cli simulate --solver sheth2015`.
//  - a free body (Fig. 3): a bunny-like blob on one bone; give it a random
//    reduced displacement with `--excite` and switch gravity off;
//  - a fish split into four deformable bones along its spine (Fig. 6),
//    with smooth weights so that neighbouring bones overlap;
//  - the Pachinko machine (Table 2): the rigged humanoid above a field of
//    pegs (capsule colliders lying along z in staggered rows); more
//    characters with `--copies N`.
#pragma once

#include "model/Project.h"

#include <functional>

namespace sinew::examples {

// `spacing`: the surface's grid cell (m; the volume follows it).
Project makeFreeBodyProject(double spacing = 0.012);
Project makeFishProject(double spacing = 0.012);
// `cageNodes`: the humanoid's volume resolution (the benchmark uses a fine
// one, with harmonic weights: bounded biharmonic ones take a minute there);
// rows x columns pegs below it.
Project makePachinkoProject(size_t cageNodes = 1200, int rows = 4, int columns = 4, bool harmonicWeights = false);

// A project from a closed surface, a skeleton and per-node weights:
// the surface tetrahedralized by TetGen (tets of at most `maxTetVolume`),
// `weights(x)` (one weight per skeleton joint, any scale: rows are
// normalized) at each node, the surface embedded. Throws InputError from
// TetGen.
Project makeWeightedVolumeProject(const std::string& name, const TriMesh& surface, const Skeleton& skeleton,
                                  const std::function<std::vector<double>(const Vec3&)>& weights, double maxTetVolume);

}  // namespace sinew::examples
