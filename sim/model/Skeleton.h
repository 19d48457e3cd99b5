// A character's joint hierarchy in its rest pose.
#pragma once

#include "core/Types.h"

#include <string>
#include <string_view>
#include <vector>

namespace sinew {

struct Joint {
  std::string name;
  int32_t parent = -1;   // index into Skeleton::joints; parents precede children; -1 for a root
  Transform restLocal;   // rest transform relative to the parent joint (world for a root), metres
  bool operator==(const Joint& o) const {
    return name == o.name && parent == o.parent && restLocal.translation == o.restLocal.translation &&
           restLocal.rotation.coeffs() == o.restLocal.rotation.coeffs();
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
  // Throws InputError(context, ...) on an out-of-order parent, a cycle, or a duplicate/empty name.
  void validate(const std::string& context) const;
  bool operator==(const Skeleton&) const = default;
};

}  // namespace sinew
