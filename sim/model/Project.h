// The project: everything a user authors, as plain data. This is the
// immutable "model" side of Sinew: solvers read it and build their own
// mutable state; the GUI edits it only through undoable commands.
#pragma once

#include "geometry/TriMesh.h"
#include "model/MotionClip.h"
#include "model/Skeleton.h"
#include "model/SkinWeights.h"

#include <optional>
#include <string>
#include <vector>

namespace sinew {

// Stable identity of a project object (outliner, selection, undo), unique
// within a project and never reused.
using ObjectId = uint64_t;

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

struct Project {
  std::string name = "Untitled";
  ObjectId nextId = 1;
  std::vector<MeshObject> meshes;
  std::optional<SkeletonObject> skeleton;  // the character's skeleton (one per project)
  std::vector<ClipObject> clips;

  ObjectId allocateId() { return nextId++; }
  Aabb bounds() const;                     // of the visible meshes and the skeleton
  size_t objectCount() const { return meshes.size() + (skeleton ? 1 : 0) + clips.size(); }

  MeshObject* findMesh(ObjectId id);
  const MeshObject* findMesh(ObjectId id) const;
  ClipObject* findClip(ObjectId id);
  const ClipObject* findClip(ObjectId id) const;
  // Name of object `id` or "" if there is none.
  std::string objectName(ObjectId id) const;

  // Throws InputError(context, ...) if any object is inconsistent (indices
  // out of range, duplicate ids, non-finite values...).
  void validate(const std::string& context) const;
  bool operator==(const Project&) const = default;
};

}  // namespace sinew
