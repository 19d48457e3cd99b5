#include "model/Skeleton.h"

#include "core/Error.h"

#include <cmath>
#include <set>

namespace sinew {

const char* jointTypeName(JointType t) {
  switch (t) {
    case JointType::Ball: return "ball";
    case JointType::Hinge: return "hinge";
    case JointType::Fixed: return "fixed";
  }
  return "?";
}

std::vector<int32_t> Skeleton::bones() const {
  std::vector<int32_t> b;
  for (size_t i = 0; i < joints.size(); ++i)
    if (joints[i].bone.kind != BoneShapeKind::None) b.push_back(int32_t(i));
  return b;
}

int32_t Skeleton::find(std::string_view name) const {
  for (size_t i = 0; i < joints.size(); ++i)
    if (joints[i].name == name) return static_cast<int32_t>(i);
  return -1;
}

std::vector<int32_t> Skeleton::children(int32_t joint) const {
  std::vector<int32_t> c;
  for (size_t i = 0; i < joints.size(); ++i)
    if (joints[i].parent == joint) c.push_back(static_cast<int32_t>(i));
  return c;
}

std::vector<Transform> Skeleton::worldFromLocal(const std::vector<Transform>& local) const {
  std::vector<Transform> world(joints.size());
  for (size_t i = 0; i < joints.size(); ++i) {
    const int32_t p = joints[i].parent;
    world[i] = p < 0 ? local[i] : world[p] * local[i];
  }
  return world;
}

std::vector<Transform> Skeleton::worldRest() const {
  std::vector<Transform> local(joints.size());
  for (size_t i = 0; i < joints.size(); ++i) local[i] = joints[i].restLocal;
  return worldFromLocal(local);
}

std::vector<Vec3> Skeleton::restPositions() const {
  std::vector<Vec3> p;
  for (const Transform& t : worldRest()) p.push_back(t.translation);
  return p;
}

void Skeleton::validate(const std::string& context) const {
  std::set<std::string> names;
  for (size_t i = 0; i < joints.size(); ++i) {
    const Joint& j = joints[i];
    if (j.name.empty()) throw InputError(context, "joint " + std::to_string(i) + " has no name");
    if (!names.insert(j.name).second) throw InputError(context, "duplicate joint name '" + j.name + "'");
    if (j.parent >= static_cast<int32_t>(i) || j.parent < -1)
      throw InputError(context, "joint '" + j.name + "' has invalid parent index " + std::to_string(j.parent));
    if (!j.restLocal.translation.allFinite() || !j.restLocal.rotation.coeffs().allFinite())
      throw InputError(context, "joint '" + j.name + "' has a non-finite rest transform");
    if (!j.hingeAxis.allFinite() || std::abs(j.hingeAxis.norm() - 1.0) > 1e-6)
      throw InputError(context, "joint '" + j.name + "' has a hinge axis that is not a unit vector");
    if (!(j.limits.lower.array() <= j.limits.upper.array()).all())
      throw InputError(context, "joint '" + j.name + "' has a lower limit above its upper limit");
    const BoneShape& b = j.bone;
    if (b.kind == BoneShapeKind::Capsule && !(b.radius > 0 && b.start.allFinite() && b.end.allFinite()))
      throw InputError(context, "joint '" + j.name + "' has an invalid capsule bone shape");
    if (b.kind == BoneShapeKind::Box && !((b.halfExtents.array() > 0).all() && b.center.allFinite()))
      throw InputError(context, "joint '" + j.name + "' has an invalid box bone shape");
  }
}

}  // namespace sinew
