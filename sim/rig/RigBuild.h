// "Build what is missing" for a rig: the steps between an imported mesh with
// a skeleton and a character the solvers can simulate, in one place for the
// CLI (`sinew-cli rig`) and the GUI (Rig dock):
//   1. if the skeleton has no bone shapes: the simulation skeleton (which
//      joints carry volume; the rest follow them) and default bone shapes;
//   2. the coarse cage of Liu et al. 2013 (volume/Cage.h), surface embedded;
//   3. optionally the conforming mesh with bone regions of Li et al. 2019
//      (volume/RegionMesh.h);
//   4. skinning weights on the cage's nodes (bounded biharmonic or harmonic,
//      rig/BoneWeights.h), transferred to the surface through the embedding.
// Nothing is changed in the project: the result holds the new objects, and
// applyRigBuild() (or the GUI's undo commands) puts them in.
#pragma once

#include "core/Progress.h"
#include "model/Project.h"
#include "rig/BoneWeights.h"
#include "volume/Cage.h"
#include "volume/RegionMesh.h"

#include <optional>

namespace sinew {

struct RigBuildOptions {
  bool cage = true;             // build the cage if the mesh has none
  size_t cageNodes = 1200;
  bool regions = false;         // build the conforming mesh if the mesh has none
  // Its resolution: the exterior is simplified to this many vertices before
  // TetGen meshes it (RegionMeshOptions::exteriorTargetVertices); fewer give
  // a coarser mesh that Li 2019 steps faster, while the full surface stays
  // embedded in it for the viewport and export.
  size_t regionVertices = 2000;
  // Also a coarser copy of the conforming mesh for live playback (its
  // exterior simplified to `liveVertices`), kept beside the full one
  // (VolumeObject::live): built if the mesh has none (or rebuilt). A
  // rebuilt conforming mesh rebuilds an existing live copy too.
  bool live = false;
  size_t liveVertices = 400;
  bool weights = true;          // compute weights if the cage has none
  WeightMethod method = WeightMethod::BoundedBiharmonic;
  bool rebuild = false;         // rebuild the requested parts even if present
  int maxInfluences = 0;        // per surface vertex (0: no limit)
  // With no bone shapes yet: choose which joints carry volume and are
  // simulated (rig/SimulationSkeleton.h); off: every joint is.
  bool chooseSimulated = true;
  // When the volumes are built afresh: move the character (its meshes and
  // skeleton) up or down so that it stands on the ground of the project's
  // scene, as a file whose origin is at the pelvis would otherwise start
  // half under it.
  bool standOnGround = true;
};

struct RigBuildReport {
  bool boneShapesAssigned = false;
  std::optional<CageReport> cage;
  std::optional<RegionMeshReport> regions;
  std::optional<RegionMeshReport> liveRegions;  // the live copy, when built
  std::optional<BoneWeightsResult> weights;  // the weights themselves are in the result
  WeightMethod method = WeightMethod::BoundedBiharmonic;
  size_t weightedVertices = 0;
  double maxPartitionError = 0;   // of the surface weights: max |sum - 1|
  double minWeight = 0, maxWeight = 0;
  double totalSeconds = 0;
  Diagnostics diagnostics;
};

struct RigBuildResult {
  ObjectId mesh = 0;                        // the surface the rig is built for
  double lift = 0;                          // metres the character is moved along +Y (standOnGround)
  std::optional<Skeleton> skeleton;         // with bone shapes assigned (when they were missing)
  std::vector<VolumeObject> volumes;        // new (fresh ids) or rebuilt (their old ids)
  std::optional<SkinWeights> surfaceWeights;
  RigBuildReport report;
};

// The cage (or conforming mesh; `live`: its live copy) of `mesh` in the
// project, or nullptr.
const VolumeObject* findVolume(const Project& project, ObjectId mesh, VolumeKind kind, bool live = false);

// Builds what is missing for `mesh` (0: the first mesh). Throws InputError
// when the project has no mesh or no skeleton, or a step fails (with the
// step's reason); throws Cancelled when cancelled.
RigBuildResult buildRig(const Project& project, ObjectId mesh, const RigBuildOptions& options = {},
                        const Progress& progress = Progress::none());

// Puts the result into the project (replacing rebuilt volumes by id; moving
// every mesh, the skeleton and the other volumes by `lift`).
void applyRigBuild(Project& project, const RigBuildResult& result);

}  // namespace sinew
