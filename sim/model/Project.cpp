#include "model/Project.h"

#include "core/Error.h"

#include <set>

namespace sinew {

Aabb Project::bounds() const {
  Aabb b;
  for (const MeshObject& m : meshes)
    if (m.visible) b.add(m.mesh.bounds());
  if (skeleton)
    for (const Vec3& p : skeleton->skeleton.restPositions()) b.add(p);
  return b;
}

MeshObject* Project::findMesh(ObjectId id) {
  for (MeshObject& m : meshes)
    if (m.id == id) return &m;
  return nullptr;
}
const MeshObject* Project::findMesh(ObjectId id) const { return const_cast<Project*>(this)->findMesh(id); }

ClipObject* Project::findClip(ObjectId id) {
  for (ClipObject& c : clips)
    if (c.id == id) return &c;
  return nullptr;
}
const ClipObject* Project::findClip(ObjectId id) const { return const_cast<Project*>(this)->findClip(id); }

std::string Project::objectName(ObjectId id) const {
  if (const MeshObject* m = findMesh(id)) return m->name;
  if (const ClipObject* c = findClip(id)) return c->clip.name;
  if (skeleton && skeleton->id == id) return skeleton->name;
  return {};
}

void Project::validate(const std::string& context) const {
  std::set<ObjectId> ids;
  auto claim = [&](ObjectId id, const std::string& what) {
    if (id == 0 || id >= nextId) throw InputError(context, what + " has invalid id " + std::to_string(id));
    if (!ids.insert(id).second) throw InputError(context, what + " reuses id " + std::to_string(id));
  };
  for (const MeshObject& m : meshes) {
    const std::string what = "mesh '" + m.name + "'";
    claim(m.id, what);
    if (hasInvalidIndices(m.mesh)) throw InputError(context, what + " has a face index out of range");
    for (const Vec3& p : m.mesh.positions)
      if (!p.allFinite()) throw InputError(context, what + " has a non-finite vertex position");
    if (m.skin) m.skin->validate(context + ": " + what, m.mesh.vertexCount());
  }
  if (skeleton) {
    claim(skeleton->id, "skeleton '" + skeleton->name + "'");
    skeleton->skeleton.validate(context + ": skeleton '" + skeleton->name + "'");
  }
  for (const ClipObject& c : clips) {
    claim(c.id, "clip '" + c.clip.name + "'");
    c.clip.validate(context + ": clip '" + c.clip.name + "'");
  }
}

}  // namespace sinew
