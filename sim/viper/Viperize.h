// Muscles to rods, "viperization" (Angles et al. 2019, Section 8.1): a closed
// muscle surface whose vertices the user has painted as sources (origin)
// and sinks (insertion) becomes K rods of M nodes each:
//   1. tetrahedralize the surface (TetGen);
//   2. solve a harmonic field u on the tets, u = 0 on the sources and 1 on
//      the sinks (Choi and Blemker 2013): it runs along the muscle;
//   3. cut M iso-surfaces ("slices") of u;
//   4. place K samples on each slice by a restricted centroidal Voronoi
//      diagram (Lloyd iterations on dense samples of the slice, centroids
//      projected back onto it), pulled towards their rod neighbours in the
//      adjacent slices (the rod-length penalty);
//   5. "comb": from the source end, match each slice's samples to the rods
//      of the previous one by minimum total distance (Hungarian method),
//      alternating with step 4;
//   6. give each slice one radius: the radius of K discs that share its
//      area, capped so that every sphere stays inside the muscle.
// The result carries what a viewer or a report needs (field, slices, the
// fraction of spheres inside the surface).
#pragma once

#include "core/Progress.h"
#include "geometry/TriMesh.h"
#include "model/Project.h"
#include "model/RodBody.h"
#include "viper/Rod.h"
#include "volume/TetMesh.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sinew::viper {

// What the user painted on one surface vertex (model/RodBody.h).
using MuscleMark = sinew::MusclePaint;

struct ViperizeOptions {
  int rods = 5;                  // K, 1..64
  int slices = 8;                // M (nodes per rod), 2..200
  double endLevel = 0.02;        // the first and last slices are the iso-levels endLevel and 1 - endLevel
  int rounds = 4;                // alternations of CVD and combing
  int lloydIterations = 25;      // per slice and round
  double lengthPenalty = 0.25;   // pull of a sample towards its rod neighbours (0: pure CVD)
  int samplesPerRod = 80;        // dense samples of a slice per rod, for the restricted CVD
  uint64_t seed = 1;             // the samples are random (deterministic for a seed)
  double maxTetVolume = 0;       // TetGen bound, m^3 (0: 1/2000 of the muscle's volume)
  RodMaterial material;
};

// Limits of K and M (for messages and the GUI).
inline constexpr int kMaxRods = 64;
inline constexpr int kMaxSlices = 200;

struct MuscleSlice {
  double level = 0;              // iso-value of u
  double area = 0;               // m^2
  std::vector<Vec3> triangles;   // 3 points per triangle of the iso-surface
};

struct ViperizeResult {
  TetMesh mesh;                  // the muscle's tets
  std::vector<double> field;     // u per node, in [0, 1]
  std::vector<MuscleSlice> slices;
  std::vector<RodInput> rods;    // K rods; node m of every rod lies on slice m; contractile in the belly
  std::vector<BundleInput> bundles;  // one per slice: node m of every rod (none for K = 1)
  double muscleVolume = 0;       // of the surface, m^3
  double rodVolume = 0;          // of the rods at rest (pills' volumes), m^3
  double insideFraction = 0;     // node spheres wholly inside the surface
  double seconds = 0;
};

// Checks what can be checked before any work: K and M in range, one mark per
// vertex, at least one source and one sink, no edge joining a source to a
// sink, a closed manifold surface. Throws InputError("muscle '<name>'", ...).
void checkViperizeInput(const TriMesh& surface, const std::vector<MuscleMark>& marks, const ViperizeOptions& options,
                        const std::string& name);

// The whole conversion (calls checkViperizeInput first). Rods are named
// "<name>.0", "<name>.1", ...; their density is scaled so that their mass is
// the muscle's (volume times options.material.density). Progress stages:
// "tetrahedralize", "harmonic field", "slices", "combing".
ViperizeResult viperize(const TriMesh& surface, const std::vector<MuscleMark>& marks, const ViperizeOptions& options,
                        const std::string& name, const Progress& progress = Progress::none());

// Viperizes the project's rod body `name` from its surface mesh and paint
// with its K (rodCount) and M (sliceCount): replaces its rods and bundles,
// pins every rod's first node to the origin bone and its last to the
// insertion bone (in the world where a bone is not set), and turns its
// self-collision off (Section 8.2). `options` gives everything else (its
// rods/slices are overridden by the body's). Throws InputError naming the
// body (no such body, no surface, ...) before any work.
ViperizeResult viperizeBody(Project& project, const std::string& name, ViperizeOptions options,
                            const Progress& progress = Progress::none());

// "Add a muscle between these two bones" (Section 8's authoring): a new rod
// body `name` with origin and insertion bones, not viperized yet. Its surface
// is the project mesh `mesh` when given (an imported muscle), else a spindle
// generated from the middle of the origin bone to the middle of the
// insertion bone, moved off them towards `side` (default: up) by the bones'
// radius plus its belly so it lies on them. The surface's vertices within
// `paintReach` (a fraction of its length along the origin-insertion
// direction) of either end are painted as sources (origin end) and sinks.
// Throws InputError naming the bone or mesh that does not exist, a name
// already taken, or bones at the same place.
struct AddMuscleOptions {
  std::string name = "Muscle";
  std::string originBone, insertionBone;
  std::string mesh;                 // a project mesh's name ("": generate a spindle)
  double belly = 0;                 // spindle belly radius, m (0: 12% of its length)
  Vec3 side = Vec3::UnitY();
  double paintReach = 0.1;          // 0..0.45
  int rods = 5, slices = 8;
};
RodBodyObject& addMuscle(Project& project, const AddMuscleOptions& options);

// A closed spindle (fusiform muscle) from a to b: a surface of revolution with
// radius `belly` at the middle, tapering to `tendon` at both ends, closed by
// flat caps; `rings` cross-sections of `sides` vertices.
TriMesh spindleMesh(const Vec3& a, const Vec3& b, double belly, double tendon, int rings = 24, int sides = 16);

// Marks for a muscle between two ends: vertices within `reach` (m) of the
// plane through `a` perpendicular to the axis, on a's side, are sources, and
// likewise at `b` for sinks.
std::vector<MuscleMark> marksNearEnds(const TriMesh& surface, const Vec3& a, const Vec3& b, double reach);

}  // namespace sinew::viper
