// The conforming tet mesh of Li, Liu and Kavan 2019, Section 4: one closed
// surface for the exterior and one per bone, meshed together by TetGen with a
// region attribute per enclosed volume, so that every tet is flesh or belongs
// to exactly one bone; the joints between bones are kept beside it (the
// paper's .mesh and .joint files, see io/TetFiles.h).
//
// The surfaces must be fit for it: the exterior watertight, every bone
// surface closed, inside the exterior, crossing neither the exterior nor
// another bone. checkRegionInput() says what is wrong and which triangles to
// highlight; buildRegionMesh() refuses such input with a RegionMeshError (an
// InputError carrying the same check) that suggests the cage (Cage.h), which
// accepts any surface.
#pragma once

#include "core/Progress.h"
#include "geometry/MeshValidation.h"
#include "model/Project.h"
#include "volume/TetQuality.h"
#include "volume/Tetrahedralize.h"

#include <optional>
#include <string>
#include <vector>

namespace sinew {

// A bone's closed, outward-oriented surface (metres) and the name of the
// joint that owns the bone.
struct BoneSurface {
  std::string name;
  TriMesh surface;
};

// The surfaces of a skeleton's bone shapes (joints with a shape, in joint
// order), `segments` around each capsule.
std::vector<BoneSurface> boneSurfaces(const Skeleton& skeleton, int segments = 12);

// A joint between two bones of a conforming mesh: where the bone of a joint
// meets the bone of its nearest ancestor that has one.
struct RegionJoint {
  std::string name;              // the joint's name
  Vec3 position = Vec3::Zero();  // world rest position, metres
  int32_t parentBone = -1;       // index into the volume's bones (region id)
  int32_t childBone = -1;        // index into the volume's bones (region id)
  std::optional<Vec3> hingeAxis; // a hinge: its unit axis in the world rest frame; none: a ball joint
  bool operator==(const RegionJoint&) const = default;
};
std::vector<RegionJoint> regionJoints(const Skeleton& skeleton, const std::vector<std::string>& bones);

// One reason the surfaces cannot be meshed, and what to highlight.
struct RegionProblem {
  enum class Kind : uint8_t {
    ExteriorNotWatertight,  // open, non-manifold, misoriented, degenerate or self-intersecting
    BoneNotWatertight,
    BoneOutside,            // (part of) a bone lies outside the exterior
    BoneCrossesExterior,
    BonesCross,
    BoneInsideBone,         // one bone nested in another
    BoneWithoutInterior,    // no point strictly inside the bone surface was found
  };
  Kind kind = Kind::ExteriorNotWatertight;
  int32_t bone = -1, otherBone = -1;          // indices into the bone list, or -1
  std::string message;                        // one line, without the mesh name
  std::vector<int32_t> exteriorTriangles;     // exterior triangles to highlight
  std::vector<int32_t> boneTriangles;         // triangles of `bone` to highlight
  std::vector<int32_t> otherTriangles;        // triangles of `otherBone` to highlight
};

struct RegionCheck {
  MeshReport exterior;                    // validation of the exterior
  std::vector<RegionProblem> problems;    // empty when the surfaces can be meshed
  bool ok() const { return problems.empty(); }
  // All exterior triangles named by the problems (sorted, unique).
  std::vector<int32_t> exteriorProblemTriangles() const;
  // "<first problem> (and N more); build a cage instead, it accepts any
  // surface" (one line; "" when ok).
  std::string text() const;
};

RegionCheck checkRegionInput(const TriMesh& exterior, const std::vector<BoneSurface>& bones,
                             const Progress& progress = Progress::none());

// The InputError buildRegionMesh() throws for unusable surfaces.
class RegionMeshError : public InputError {
 public:
  RegionMeshError(const std::string& name, RegionCheck check)
      : InputError(name, check.text()), check_(std::move(check)) {}
  const RegionCheck& check() const { return check_; }

 private:
  RegionCheck check_;
};

// Defaults: TetGen's radius-edge bound (2.0), bone capsules with 8 segments
// and the exterior simplified to 2000 vertices give the example humanoid
// about 10K nodes and 40K tets in about a second; the unsimplified exterior
// (4.6K vertices, surface-nets triangles) gives about 30K nodes, 125K tets.
struct RegionMeshOptions {
  TetrahedralizeOptions tetgen{.quality = true, .radiusEdgeRatio = 2.0, .minDihedralDeg = 10.0};
  int boneSegments = 8;               // around each capsule, when bones come from shapes
  bool simplifyExterior = true;       // simplify the exterior first (keeps the bones inside, clear of it)
  size_t exteriorTargetVertices = 2000;
  bool embedSurface = true;           // embed the (unsimplified) exterior's vertices
  std::string name = "Conforming mesh";
};

struct RegionMeshReport {
  size_t nodes = 0, tets = 0;
  size_t fleshTets = 0;
  std::vector<size_t> tetsPerBone;      // (nBones)
  std::vector<size_t> fixedPerBone;     // (nBones) nodes of each bone's tets
  size_t exteriorVertices = 0;          // of the exterior as meshed (after simplification)
  size_t extrapolatedVertices = 0;      // exterior vertices outside the mesh (where simplification cut inside)
  TetQuality quality;
  double checkSeconds = 0, simplifySeconds = 0, tetgenSeconds = 0, embedSeconds = 0, totalSeconds = 0;
  Diagnostics diagnostics;
};

struct RegionMeshResult {
  VolumeObject volume;            // kind Conforming: mesh with region per tet, bones, fixedBone, embedding; id 0
  TriMesh exterior;               // the exterior as meshed
  std::vector<RegionJoint> joints;  // filled by the skeleton form
  RegionMeshReport report;
};

// Meshes `exterior` with the given bone surfaces. Throws RegionMeshError when
// checkRegionInput() finds a problem, InputError when TetGen fails.
RegionMeshResult buildRegionMesh(const TriMesh& exterior, const std::vector<BoneSurface>& bones,
                                 const RegionMeshOptions& options = {}, const Progress& progress = Progress::none());

// Bone surfaces from the skeleton's bone shapes, and the joints between them.
RegionMeshResult buildRegionMesh(const TriMesh& exterior, const Skeleton& skeleton,
                                 const RegionMeshOptions& options = {}, const Progress& progress = Progress::none());

}  // namespace sinew
