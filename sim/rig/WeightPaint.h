// Weight painting on a triangle surface: the kernels behind the paint tool,
// with no GUI in sight. The app turns mouse drags into BrushSamples (a
// surface point from picking, the brush settings) and each call returns the
// vertices it changed with their previous rows, which become the undo step
// and the redraw range.
//
// Model and state as elsewhere in sim/: PaintSurface is built once per mesh
// (positions, vertex neighbours, a uniform grid for "vertices near the
// brush") and never changes; WeightPaintState is what painting edits.
#pragma once

#include "geometry/TriMesh.h"
#include "rig/BoneWeights.h"

#include <string>
#include <vector>

namespace sinew {

class PaintSurface {
 public:
  PaintSurface() = default;
  explicit PaintSurface(const TriMesh& mesh);

  size_t vertexCount() const { return positions_.size(); }
  const std::vector<Vec3>& positions() const { return positions_; }
  // Vertices sharing an edge with v (ascending).
  const int32_t* neighborsBegin(int32_t v) const { return neighbors_.data() + neighborOffsets_[size_t(v)]; }
  const int32_t* neighborsEnd(int32_t v) const { return neighbors_.data() + neighborOffsets_[size_t(v) + 1]; }

  // Appends the vertices strictly within `radius` of `center` to `out`, in
  // ascending order. Visits only the grid cells the sphere's box overlaps.
  void verticesInSphere(const Vec3& center, double radius, std::vector<int32_t>& out) const;
  // The vertex nearest to p within maxDistance (ties: lower index), or -1.
  int32_t nearestVertex(const Vec3& p, double maxDistance) const;

 private:
  std::vector<Vec3> positions_;             // (nVertices), metres
  std::vector<int32_t> neighborOffsets_;    // (nVertices + 1)
  std::vector<int32_t> neighbors_;
  // Uniform grid over the vertices: cell (i,j,k) holds
  // cellVertices_[cellStart_[c] .. cellStart_[c+1]) with c = i + dims.x (j + dims.y k).
  Vec3 origin_ = Vec3::Zero();
  double cell_ = 1.0;                       // metres
  Eigen::Vector3i dims_ = Eigen::Vector3i::Zero();
  std::vector<int32_t> cellStart_;
  std::vector<int32_t> cellVertices_;
};

enum class BrushMode : uint8_t {
  Add,       // w += f
  Subtract,  // w -= f
  Replace,   // w += f (value - w): towards the brush value
  Smooth,    // w += f (mean of the neighbours' w - w): Laplacian smoothing
};
const char* brushModeName(BrushMode m);

enum class BrushFalloff : uint8_t {
  Constant,  // 1
  Linear,    // 1 - t
  Smooth,    // 1 - (3t^2 - 2t^3), t = distance / radius
};
const char* brushFalloffName(BrushFalloff f);

// One sample of a stroke. Each vertex strictly inside the sphere gets the
// factor f = strength * falloff(distance / radius) in [0,1].
struct BrushSample {
  Vec3 center = Vec3::Zero();   // on the surface, metres
  double radius = 0.05;         // metres
  double strength = 0.5;        // 0..1
  BrushFalloff falloff = BrushFalloff::Smooth;
  BrushMode mode = BrushMode::Add;
  double value = 1.0;           // target weight of Replace
};

struct PaintSettings {
  bool autoNormalize = true;    // other unlocked bones rescaled so every changed row sums to 1
  int maxInfluences = 0;        // per vertex; the smallest unlocked influences are pruned (0: no limit)
  bool mirror = false;          // also paint the mirror vertices with the mirror bone
};

struct WeightPaintState {
  WeightMatrix weights;               // (nVertices x nBones), in [0,1]
  std::vector<uint8_t> locked;        // (nBones) 1: never changes; empty: none locked
  int32_t selectedBone = 0;           // the bone being painted
  PaintSettings settings;
  std::vector<int32_t> vertexMirror;  // (nVertices) mirror vertex or -1 (mirrorVertexMap); needed for mirror
  std::vector<int32_t> boneMirror;    // (nBones) mirror bone, itself on the centre line (mirrorBoneMap)

  bool isLocked(int32_t bone) const { return !locked.empty() && locked[size_t(bone)] != 0; }
};

// The rows an operation changed: for undo (put `before` back with revert())
// and redraw. Only rows that differ are listed.
struct PaintChange {
  std::vector<int32_t> vertices;  // ascending
  WeightMatrix before;            // (vertices.size() x nBones), the rows before the operation
  bool empty() const { return vertices.empty(); }
};

// One brush sample on the selected bone (and, with mirror on, its mirror on
// the mirror vertices). Smoothing reads the weights as they were before the
// sample. Nothing changes when the selected bone is locked.
PaintChange applyBrush(const PaintSurface& surface, WeightPaintState& state, const BrushSample& brush);

// Sets the selected bone's weight to `value` on `selection` (vertex indices;
// empty: the whole mesh), then normalises as a brush does.
PaintChange flood(const PaintSurface& surface, WeightPaintState& state, double value,
                  const std::vector<int32_t>& selection = {});

// Applies the normalisation and influence limit of the settings to every row
// (after turning auto-normalise on, or lowering maxInfluences): unlocked
// bones rescaled, locked ones kept.
PaintChange normalizeAll(WeightPaintState& state);

// Puts the rows of `change` back (undo); returns the change that redoes it.
PaintChange revert(WeightPaintState& state, const PaintChange& change);

// ---------------------------------------------------------------------------
// Mirror maps

// For each vertex, the vertex nearest to its mirror image across x = 0 within
// `tolerance` metres (itself on the plane), or -1 (nVertices).
std::vector<int32_t> mirrorVertexMap(const PaintSurface& surface, double tolerance);

// The name of the other side's bone: "Left"/"Right" (and "left"/"LEFT"...)
// anywhere in the name, a one-letter side after a separator ("arm.L",
// "arm_r", "arm-L", "arm L") or before one ("L_arm", "r.arm"), or a capital
// side letter before a capital ("LHipJoint", "lShldr") or after a lower-case
// letter ("ArmL"). Candidates in that order; empty when the name has no side.
std::vector<std::string> mirroredBoneNames(const std::string& name);

// For each bone, the bone named by the first of mirroredBoneNames() that
// exists, or itself (nBones).
std::vector<int32_t> mirrorBoneMap(const std::vector<std::string>& names);

}  // namespace sinew
