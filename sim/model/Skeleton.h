// A character's joint hierarchy in its rest pose.
#pragma once

#include "core/Types.h"
#include "model/BoneShape.h"

#include <string>
#include <string_view>
#include <vector>

namespace sinew {

enum class JointType : uint8_t { Ball, Hinge, Fixed };
const char* jointTypeName(JointType t);

// Rotation limits of a joint relative to its parent, in radians, on the
// joint's local X, Y, Z Euler angles (ball) or about the hinge axis (hinge:
// only x is used). Defaults allow everything.
struct JointLimits {
  Vec3 lower = Vec3::Constant(-M_PI);
  Vec3 upper = Vec3::Constant(M_PI);
  bool operator==(const JointLimits&) const = default;
};

struct Joint {
  std::string name;
  int32_t parent = -1;   // index into Skeleton::joints; parents precede children; -1 for a root
  Transform restLocal;   // rest transform relative to the parent joint (world for a root), metres
  JointType type = JointType::Ball;
  Vec3 hingeAxis = Vec3::UnitX();  // joint-local unit axis of a hinge
  JointLimits limits;
  BoneShape bone;        // the bone this joint owns (see BoneShape.h)
  // Whether the joint is part of the simulation skeleton. One that is not
  // (a finger, a toe, an end "nub" bone, a face bone) has no bone shape and
  // follows its parent rigidly: the solvers weld it (zero degrees of freedom).
  bool simulated = true;
  bool operator==(const Joint& o) const {
    return name == o.name && parent == o.parent && restLocal.translation == o.restLocal.translation &&
           restLocal.rotation.coeffs() == o.restLocal.rotation.coeffs() && type == o.type &&
           hingeAxis == o.hingeAxis && limits == o.limits && bone == o.bone && simulated == o.simulated;
  }
};

struct Skeleton {
  std::vector<Joint> joints;  // (nJoints), topologically sorted

  size_t size() const { return joints.size(); }
  bool empty() const { return joints.empty(); }
  // Index of the joint called `name`, or -1.
  int32_t find(std::string_view name) const;
  std::vector<int32_t> children(int32_t joint) const;
  // World transforms from per-joint local transforms (nJoints each).
  std::vector<Transform> worldFromLocal(const std::vector<Transform>& local) const;
  std::vector<Transform> worldRest() const;
  // World rest positions of the joints (nJoints).
  std::vector<Vec3> restPositions() const;
  // Joints that own a bone shape, in joint order (the bones of the rig).
  std::vector<int32_t> bones() const;
  // Throws InputError(context, ...) on an out-of-order parent, a cycle, or a duplicate/empty name.
  void validate(const std::string& context) const;
  bool operator==(const Skeleton&) const = default;
};

}  // namespace sinew
