#include "model/Project.h"

#include "core/Error.h"

#include <cmath>
#include <set>

namespace sinew {

namespace {

void validateMaterial(const FleshMaterial& m, const std::string& context, const std::string& what) {
  if (!(m.youngsModulus > 0) || !std::isfinite(m.youngsModulus))
    throw InputError(context, what + ": Young's modulus must be positive");
  if (!(m.poissonRatio >= 0 && m.poissonRatio < 0.5)) throw InputError(context, what + ": Poisson ratio must lie in [0, 0.5)");
  if (!(m.density > 0) || !std::isfinite(m.density)) throw InputError(context, what + ": density must be positive");
  if (!(m.damping >= 0) || !std::isfinite(m.damping)) throw InputError(context, what + ": damping must not be negative");
}

}  // namespace

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

const char* volumeKindName(VolumeKind k) { return k == VolumeKind::Cage ? "cage" : "conforming"; }

VolumeObject* Project::findVolume(ObjectId id) {
  for (VolumeObject& v : volumes)
    if (v.id == id) return &v;
  return nullptr;
}
const VolumeObject* Project::findVolume(ObjectId id) const { return const_cast<Project*>(this)->findVolume(id); }

ControllerObject* Project::findController(ObjectId id) {
  for (ControllerObject& c : controllers)
    if (c.id == id) return &c;
  return nullptr;
}
const ControllerObject* Project::findController(ObjectId id) const { return const_cast<Project*>(this)->findController(id); }

RodBodyObject* Project::findRodBody(ObjectId id) {
  for (RodBodyObject& b : rodBodies)
    if (b.id == id) return &b;
  return nullptr;
}
const RodBodyObject* Project::findRodBody(ObjectId id) const { return const_cast<Project*>(this)->findRodBody(id); }

std::string Project::objectName(ObjectId id) const {
  if (const RodBodyObject* b = findRodBody(id)) return b->name;
  if (const ControllerObject* c = findController(id)) return c->name;
  if (const MeshObject* m = findMesh(id)) return m->name;
  if (const VolumeObject* v = findVolume(id)) return v->name;
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
    if (m.mesh.triangles.empty()) throw InputError(context, what + " has no triangles");
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
  for (const VolumeObject& v : volumes) {
    const std::string what = "volume '" + v.name + "'";
    claim(v.id, what);
    const auto nn = int64_t(v.mesh.nodeCount()), nb = int64_t(v.bones.size());
    for (const Vec3& p : v.mesh.nodes)
      if (!p.allFinite()) throw InputError(context, what + " has a non-finite node position");
    for (const Tet& t : v.mesh.tets)
      for (int32_t n : t)
        if (n < 0 || n >= nn) throw InputError(context, what + " has a tet node index out of range");
    if (!v.mesh.region.empty() && v.mesh.region.size() != v.mesh.tetCount())
      throw InputError(context, what + ": region list does not match the tets");
    for (int32_t r : v.mesh.region)
      if (r < -1 || r >= nb) throw InputError(context, what + " has a tet region out of range");
    if (!v.fixedBone.empty() && int64_t(v.fixedBone.size()) != nn)
      throw InputError(context, what + ": fixed-node list does not match the nodes");
    for (int32_t b : v.fixedBone)
      if (b < -1 || b >= nb) throw InputError(context, what + " has a fixed node with an unknown bone");
    if (v.surface) {
      const MeshObject* m = findMesh(v.surface);
      if (!m) throw InputError(context, what + " embeds a mesh that is not in the project");
      if (v.embedding.vertexCount() != m->mesh.vertexCount() || v.embedding.weights.size() != v.embedding.vertexCount() ||
          v.embedding.extrapolated.size() != v.embedding.vertexCount())
        throw InputError(context, what + ": embedding does not match mesh '" + m->name + "'");
      for (int32_t t : v.embedding.tet)
        if (t < 0 || size_t(t) >= v.mesh.tetCount()) throw InputError(context, what + ": embedding refers to a missing tet");
      for (size_t i = 0; i < v.embedding.weights.size(); ++i)
        for (double w : v.embedding.weights[i])
          if (!std::isfinite(w) || std::abs(w) > 1e6)
            throw InputError(context, what + ": embedding weight of vertex " + std::to_string(i) + " is not a finite number");
    }
    if (v.weights) v.weights->validate(context + ": " + what + " weights", v.mesh.nodeCount());
  }
  if (simulation.flesh) validateMaterial(*simulation.flesh, context, "the flesh material");
  std::set<std::string> regionBones;
  for (const RegionMaterial& r : simulation.regions) {
    if (r.bone.empty()) throw InputError(context, "a region material names no bone");
    if (!regionBones.insert(r.bone).second) throw InputError(context, "two region materials for bone '" + r.bone + "'");
    validateMaterial(r.material, context, "the material of region '" + r.bone + "'");
  }
  for (const ControllerObject& c : controllers) {
    claim(c.id, "controller '" + c.name + "'");
    if (!skeleton) throw InputError(context, "controller '" + c.name + "' needs the project's skeleton");
    c.validate(context, skeleton->skeleton.size());
  }
  for (const RodBodyObject& b : rodBodies) {
    claim(b.id, "rod body '" + b.name + "'");
    int64_t vertices = -1;
    if (b.surface) {
      const MeshObject* m = findMesh(b.surface);
      if (!m) throw InputError(context, "rod body '" + b.name + "' skins a mesh that is not in the project");
      vertices = int64_t(m->mesh.vertexCount());
    }
    b.validate(context, vertices);
    for (const std::string& bone : {b.originBone, b.insertionBone})
      if (!bone.empty() && (!skeleton || skeleton->skeleton.find(bone) < 0))
        throw InputError(context, "rod body '" + b.name + "' attaches to bone '" + bone + "', which the skeleton does not have");
    for (const RodPin& pin : b.pins)
      if (!pin.bone.empty() && (!skeleton || skeleton->skeleton.find(pin.bone) < 0))
        throw InputError(context, "rod body '" + b.name + "' pins a node to bone '" + pin.bone + "', which the skeleton does not have");
  }
  if (simulation.groundHeight && !std::isfinite(*simulation.groundHeight))
    throw InputError(context, "the ground height is not a finite number");
  if (simulation.groundFriction && !(*simulation.groundFriction >= 0 && std::isfinite(*simulation.groundFriction)))
    throw InputError(context, "the ground friction must be a finite number, zero or more");
  std::set<std::string> colliderNames;
  for (const Collider& c : simulation.colliders) {
    c.validate(context);
    if (c.name.empty()) throw InputError(context, "a collider has no name");
    if (!colliderNames.insert(c.name).second) throw InputError(context, "two colliders are named '" + c.name + "'");
  }
}

}  // namespace sinew
