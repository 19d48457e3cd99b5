// Importing meshes, skeletons, skin weights and motion clips from files.
// Meshes go through Assimp (OBJ, FBX, glTF 2.0, Collada, PLY, STL, X and the
// rest of Assimp's formats); BVH motion clips are read by io/Bvh.
#pragma once

#include "core/Progress.h"
#include "geometry/MeshValidation.h"
#include "model/MotionClip.h"
#include "model/Project.h"

#include <optional>
#include <string>
#include <vector>

namespace sinew {

// Scene statistics as Assimp reports them for the file without
// post-processing (the numbers `assimp info -r FILE` prints).
struct AssimpStats {
  unsigned nodes = 0, maxDepth = 0, meshes = 0, animations = 0, textures = 0, materials = 0, cameras = 0,
           lights = 0, vertices = 0, faces = 0, bones = 0, animationChannels = 0;
};

// How a file's meshes become project meshes. BodyParts: in a file with
// skinned meshes, the large skinned ones (each at least a tenth of the
// character's size: torso, legs, head) become one body, welded where they
// meet, and the small or unskinned ones (eyes, teeth, props) stay apart to
// follow the skeleton in a simulation (rig/Followers.h); a file without skins
// keeps its meshes apart. All: one mesh. Separate: one mesh per file mesh.
enum class MeshGrouping : uint8_t { BodyParts, All, Separate };

struct ImportOptions {
  double scale = 0.0;                  // metres per file unit for meshes and skeletons; 0: detect (see importFile)
  double clipScale = 0.0;              // metres per file unit for BVH clips; 0: detect from the rest pose
  bool weld = true;                    // merge coincident vertices (for simulation use)
  MeshGrouping grouping = MeshGrouping::BodyParts;
  bool validate = true;                // run mesh validation
  bool checkSelfIntersections = true;  // part of validation; the costly part
  // Read the file with Assimp in a child process first, so that a damaged file
  // that crashes or hangs Assimp's loader becomes an error instead.
  bool isolate = true;
  double timeoutSeconds = 60.0;        // for that child process
};

struct ImportedMesh {
  std::string name;
  TriMesh mesh;                         // welded (if requested), metres
  std::optional<SkinWeights> skin;
  size_t sourceVertices = 0;            // before welding
  size_t weldedVertices = 0;            // vertices merged by welding
  std::optional<MeshReport> report;     // validation (if requested)
  // Skinned meshes: how far (metres) skinning the imported rest skeleton with
  // the file's offset matrices lands from where the mesh was placed.
  double bindResidual = 0;
};

struct ImportResult {
  std::string path;
  std::string format;                   // lower-case extension
  double scale = 1.0;                   // metres per file unit, as used
  std::string upAxis = "Y";             // the up axis the file declares (turned to +Y on import)
  AssimpStats assimp;
  std::vector<ImportedMesh> meshes;
  std::optional<Skeleton> skeleton;     // from the node hierarchy of the skin's bones
  std::vector<MotionClip> clips;
  std::vector<VolumeObject> volumes;    // from a Medit .mesh (+ .joint) file (ids 0, no surface)
  Diagnostics diagnostics;              // warnings and validation findings, one line each
  bool empty() const { return meshes.empty() && !skeleton && clips.empty() && volumes.empty(); }
};

// Imports a file: meshes through Assimp, BVH clips, and tet meshes from Medit
// .mesh files (with bone names from a .joint file beside them, the model
// files of Li et al. 2019). Throws InputError naming the file and the problem for
// missing, empty, unsupported, truncated or malformed files; throws Cancelled
// when `progress` is cancelled.
// A skinned mesh is placed where skinning at the bind pose puts it (Assimp's
// and glTF's convention: the mesh node's own transform is not used); the
// skeleton's rest pose is the bind pose (from the offset matrices when the
// hierarchy is stored in another pose; ImportedMesh::bindResidual says how
// well the rest skeleton reproduces the mesh); unskinned meshes go by their
// node transforms. A declared up axis (FBX) is turned to +Y; units are
// detected (FBX's declared unit, then a plausible size) unless options.scale
// is given.
ImportResult importFile(const std::string& path, const ImportOptions& options = {},
                        const Progress& progress = Progress::none());

// Adds what `result` holds to `project` (new ids), returning the new ids.
// The skeleton replaces the project's skeleton if there is none yet; else it
// is dropped with a warning appended to `outDiagnostics`.
std::vector<ObjectId> addToProject(Project& project, ImportResult result, Diagnostics& outDiagnostics);

// Extensions (lower case, no dot) Sinew can import.
std::vector<std::string> importExtensions();
bool isImportable(const std::string& path);

// Writes meshes to a file in a format chosen by extension (obj, stl, ply,
// gltf, glb, dae, x, 3ds...). Throws InputError on failure.
void exportMeshes(const std::vector<const MeshObject*>& meshes, const std::string& path);
std::vector<std::string> exportExtensions();

}  // namespace sinew
