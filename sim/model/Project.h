// The project: everything a user authors, as plain data. This is the
// immutable "model" side of Sinew: solvers read it and build their own
// mutable state; the GUI edits it only through undoable commands.
#pragma once

#include "geometry/TriMesh.h"
#include "model/Collider.h"
#include "model/Controller.h"
#include "model/MotionClip.h"
#include "model/RodBody.h"
#include "model/Skeleton.h"
#include "model/SkinWeights.h"
#include "volume/TetMesh.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sinew {

// Stable identity of a project object (outliner, selection, undo), unique
// within a project and never reused.

struct MeshObject {
  ObjectId id = 0;
  std::string name;
  std::string source;                  // file it was imported from ("" if generated)
  TriMesh mesh;                        // welded surface, metres
  std::optional<SkinWeights> skin;     // imported or painted weights
  Vec3 color{0.8, 0.8, 0.8};           // display colour, linear RGB in [0,1]
  bool visible = true;
  bool operator==(const MeshObject&) const = default;
};

struct SkeletonObject {
  ObjectId id = 0;
  std::string name;
  Skeleton skeleton;
  bool operator==(const SkeletonObject&) const = default;
};

struct ClipObject {
  ObjectId id = 0;
  std::string source;
  MotionClip clip;                     // clip.name is the display name
  bool operator==(const ClipObject&) const = default;
};

// A volumetric model of the character: the coarse cage of Liu et al. 2013
// (fixed nodes inside bone shapes) or the conforming mesh with one region per
// bone of Li et al. 2019; the embedding of a surface mesh in it; and the
// skinning weights of its nodes.
enum class VolumeKind : uint8_t { Cage, Conforming };
const char* volumeKindName(VolumeKind k);

struct VolumeObject {
  ObjectId id = 0;
  std::string name;
  VolumeKind kind = VolumeKind::Cage;
  TetMesh mesh;                        // region[] index into `bones` (conforming)
  std::vector<std::string> bones;      // the skeleton joints whose bones this volume knows, by name
  std::vector<int32_t> fixedBone;      // (nNodes) index into `bones` of the bone holding the node, or -1
  ObjectId surface = 0;                // the embedded surface mesh (0: none)
  Embedding embedding;                 // of that mesh's vertices
  std::optional<SkinWeights> weights;  // per node; bone names as in `bones`
  bool visible = true;
  // Conforming only: a coarser copy of the surface's conforming mesh, kept
  // beside the full one for live playback (Li 2019's "live" parameter). The
  // full one (live = false) is what a run uses by default and what exports.
  bool live = false;
  bool operator==(const VolumeObject&) const = default;
};

// Soft tissue as the simulation sees it (Liu 2013's flesh: Young's modulus,
// Poisson ratio, density and the pose-based damper's coefficient). No
// defaults here: a setup that leaves a material out gets the solver's.
struct FleshMaterial {
  double youngsModulus = 0;  // Pa, > 0
  double poissonRatio = 0;   // [0, 0.5)
  double density = 0;        // kg/m^3, > 0
  double damping = 0;        // 1/s, >= 0 (c of Liu 2013 eq. 17)
  bool operator==(const FleshMaterial&) const = default;
};

// The material of one body region: the tets whose dominant bone is `bone`.
struct RegionMaterial {
  std::string bone;          // a skeleton joint's name (the bone it owns)
  FleshMaterial material;
  bool operator==(const RegionMaterial&) const = default;
};

// Simulation settings the user authors with the character: materials and
// the scene around it (ground and static colliders).
struct SimulationSetup {
  std::optional<FleshMaterial> flesh;   // everywhere (nullopt: the solver's default)...
  std::vector<RegionMaterial> regions;  // ...except these regions (bone names unique)
  std::optional<double> groundHeight;   // m (nullopt: the solver's default, 0)
  std::optional<double> groundFriction; // Coulomb coefficient (nullopt: the solver's default)
  std::vector<Collider> colliders;      // static obstacles (names unique)
  // Per solver (by registry name: "li2019", ...), the values of its
  // parameter table (solver/Solvers.h) chosen for this project; a parameter
  // left out takes the table's default. Checked on load by validateParams.
  // Liu 2013's "dt" is also the step rigging found this character stable at
  // (set when it must be smaller than the default).
  std::map<std::string, std::map<std::string, double>> solverParams;
  // One value of solverParams, when the project sets it.
  std::optional<double> solverParam(const std::string& solver, const std::string& name) const {
    const auto s = solverParams.find(solver);
    if (s == solverParams.end()) return std::nullopt;
    const auto v = s->second.find(name);
    return v == s->second.end() ? std::nullopt : std::optional<double>(v->second);
  }
  // Sets it, or removes it (nullopt: the table's default); no empty solver entry stays.
  void setSolverParam(const std::string& solver, const std::string& name, std::optional<double> value) {
    if (value) {
      solverParams[solver][name] = *value;
      return;
    }
    if (const auto s = solverParams.find(solver); s != solverParams.end()) {
      s->second.erase(name);
      if (s->second.empty()) solverParams.erase(s);
    }
  }
  bool empty() const {
    return !flesh && regions.empty() && !groundHeight && !groundFriction && colliders.empty() && solverParams.empty();
  }
  bool operator==(const SimulationSetup&) const = default;
};

struct Project {
  std::string name = "Untitled";
  ObjectId nextId = 1;
  std::vector<MeshObject> meshes;
  std::optional<SkeletonObject> skeleton;  // the character's skeleton (one per project)
  std::vector<ClipObject> clips;
  std::vector<VolumeObject> volumes;
  std::vector<ControllerObject> controllers;
  std::vector<RodBodyObject> rodBodies;    // VIPER rods: muscles, octopi, bands
  SimulationSetup simulation;

  ObjectId allocateId() { return nextId++; }
  Aabb bounds() const;                     // of the visible meshes and the skeleton
  size_t objectCount() const {
    return meshes.size() + (skeleton ? 1 : 0) + clips.size() + volumes.size() + controllers.size() + rodBodies.size();
  }

  MeshObject* findMesh(ObjectId id);
  const MeshObject* findMesh(ObjectId id) const;
  ClipObject* findClip(ObjectId id);
  const ClipObject* findClip(ObjectId id) const;
  VolumeObject* findVolume(ObjectId id);
  const VolumeObject* findVolume(ObjectId id) const;
  ControllerObject* findController(ObjectId id);
  const ControllerObject* findController(ObjectId id) const;
  RodBodyObject* findRodBody(ObjectId id);
  const RodBodyObject* findRodBody(ObjectId id) const;
  // Name of object `id` or "" if there is none.
  std::string objectName(ObjectId id) const;

  // Throws InputError(context, ...) if any object is inconsistent (indices
  // out of range, duplicate ids, non-finite values...).
  void validate(const std::string& context) const;
  bool operator==(const Project&) const = default;
};

}  // namespace sinew
