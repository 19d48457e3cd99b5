#include "rig/SkeletonEdit.h"

#include "rig/BoneShapes.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <numeric>
#include <stdexcept>

namespace sinew {

namespace {

// Local transform of a joint whose world transform is `world`, under `parent`.
Transform localUnder(const Skeleton& s, int32_t parent, const Transform& world) {
  if (parent < 0) return world;
  return s.worldRest()[size_t(parent)].inverse() * world;
}

void setWorld(Skeleton& s, int32_t j, const Transform& world) {
  s.joints[size_t(j)].restLocal = localUnder(s, s.joints[size_t(j)].parent, world);
}

bool inSubtree(const Skeleton& s, int32_t root, int32_t j) {
  for (; j >= 0; j = s.joints[size_t(j)].parent)
    if (j == root) return true;
  return false;
}

// Re-sorts joints depth-first (parents before children, siblings in their
// current order); returns old -> new.
std::vector<int32_t> resort(Skeleton& s) {
  const size_t n = s.size();
  std::vector<int32_t> order;
  order.reserve(n);
  std::function<void(int32_t)> visit = [&](int32_t j) {
    order.push_back(j);
    for (size_t c = 0; c < n; ++c)
      if (s.joints[c].parent == j) visit(int32_t(c));
  };
  for (size_t r = 0; r < n; ++r)
    if (s.joints[r].parent < 0) visit(int32_t(r));
  std::vector<int32_t> remap(n, -1);
  for (size_t i = 0; i < order.size(); ++i) remap[size_t(order[i])] = int32_t(i);
  std::vector<Joint> sorted;
  sorted.reserve(n);
  for (int32_t old : order) {
    Joint j = s.joints[size_t(old)];
    j.parent = j.parent >= 0 ? remap[size_t(j.parent)] : -1;
    sorted.push_back(std::move(j));
  }
  s.joints = std::move(sorted);
  return remap;
}

Vec3 mirrorPoint(const Vec3& p, double planeX) { return Vec3(2 * planeX - p.x(), p.y(), p.z()); }

// A rotation mirrored across the x = const plane: M R M with M = diag(-1, 1, 1).
Quat mirrorRotation(const Quat& q) { return Quat(q.w(), q.x(), -q.y(), -q.z()); }

}  // namespace

std::optional<Vec3> jointPlacement(const TriangleTree& surface, const Vec3& origin, const Vec3& direction) {
  const std::vector<RayHit> hits = surface.raycastAll(origin, direction);
  if (hits.size() < 2) return std::nullopt;
  // Skip duplicate hits on shared edges (same t).
  const double eps = 1e-9 * (1.0 + hits.back().t);
  for (size_t k = 1; k < hits.size(); ++k)
    if (hits[k].t > hits[0].t + eps) return 0.5 * (hits[0].point + hits[k].point);
  return std::nullopt;
}

std::string uniqueJointName(const Skeleton& s, const std::string& base) {
  const std::string b = base.empty() ? "Joint" : base;
  if (s.find(b) < 0) return b;
  for (int k = 2;; ++k)
    if (s.find(b + "." + std::to_string(k)) < 0) return b + "." + std::to_string(k);
}

int32_t addJoint(Skeleton& s, int32_t parent, const std::string& name, const Vec3& world) {
  Joint j;
  j.name = uniqueJointName(s, name);
  j.parent = parent;
  j.restLocal = localUnder(s, parent, Transform{Quat::Identity(), world});
  if (parent >= 0) j.restLocal.rotation = Quat::Identity();
  s.joints.push_back(j);
  return int32_t(s.size() - 1);
}

namespace {

// Refits a bone shape (joint-local) whose bone ran from the joint to `from`
// and now runs to `to` (both joint-local): stretched along the bone by the
// change of length and turned onto the new direction; radii stay.
void refitBone(BoneShape& b, const Vec3& from, const Vec3& to) {
  if (b.kind == BoneShapeKind::None || from.norm() < 1e-9 || to.norm() < 1e-9) return;
  const Vec3 u = from.normalized();
  const double k = to.norm() / from.norm();
  const Quat turn = Quat::FromTwoVectors(from, to);
  auto map = [&](const Vec3& p) { return Vec3(turn * (p + (k - 1.0) * p.dot(u) * u)); };
  if (b.kind == BoneShapeKind::Capsule) {
    b.start = map(b.start);
    b.end = map(b.end);
  } else {
    b.center = map(b.center);
    int axis = 0;  // the box axis most in line with the bone grows with it
    (b.orientation.toRotationMatrix().transpose() * u).cwiseAbs().maxCoeff(&axis);
    b.halfExtents[axis] *= k;
    b.orientation = (turn * b.orientation).normalized();
  }
}

}  // namespace

void moveJoint(Skeleton& s, int32_t j, const Vec3& world, bool withSubtree) {
  const std::vector<Transform> before = s.worldRest();
  const int32_t parent = s.joints[size_t(j)].parent;
  const int32_t parentChain = parent >= 0 ? chainChild(s, parent) : -1;
  const int32_t chain = chainChild(s, j);
  Transform w = before[size_t(j)];
  w.translation = world;
  setWorld(s, j, w);
  // Bone shapes follow: the parent's bone, when it ends at j, reaches j's new place...
  if (parentChain == j) {
    const Transform up = before[size_t(parent)].inverse();
    refitBone(s.joints[size_t(parent)].bone, up.apply(before[size_t(j)].translation), up.apply(world));
  }
  if (withSubtree) return;  // children are stored relative to j: they follow, bones and all
  for (size_t c = 0; c < s.size(); ++c)
    if (s.joints[c].parent == j) s.joints[c].restLocal = w.inverse() * before[c];
  // ... and j's own bone still ends at its child, which stayed.
  if (chain >= 0)
    refitBone(s.joints[size_t(j)].bone, before[size_t(j)].inverse().apply(before[size_t(chain)].translation),
              w.inverse().apply(before[size_t(chain)].translation));
}

std::vector<int32_t> reparentJoint(Skeleton& s, int32_t j, int32_t newParent) {
  if (newParent >= 0 && inSubtree(s, j, newParent))
    throw std::invalid_argument("cannot make a joint the child of its own descendant");
  const Transform w = s.worldRest()[size_t(j)];
  s.joints[size_t(j)].parent = newParent;
  s.joints[size_t(j)].restLocal = localUnder(s, newParent, w);
  return resort(s);
}

void deleteJoint(Skeleton& s, int32_t j) {
  const std::vector<Transform> world = s.worldRest();
  const int32_t up = s.joints[size_t(j)].parent;
  for (size_t c = 0; c < s.size(); ++c)
    if (s.joints[c].parent == j) {
      s.joints[c].parent = up;
      s.joints[c].restLocal = up >= 0 ? world[size_t(up)].inverse() * world[c] : world[c];
    }
  s.joints.erase(s.joints.begin() + j);
  for (Joint& k : s.joints)
    if (k.parent > j) --k.parent;
}

int32_t insertJoint(Skeleton& s, int32_t j, double t, const std::string& name) {
  const std::vector<Transform> world = s.worldRest();
  const int32_t parent = s.joints[size_t(j)].parent;
  const Vec3 from = parent >= 0 ? world[size_t(parent)].translation : world[size_t(j)].translation;
  const Vec3 at = from + t * (world[size_t(j)].translation - from);
  const Transform kWorld{parent >= 0 ? world[size_t(parent)].rotation : Quat::Identity(), at};
  Joint k;
  k.name = uniqueJointName(s, name.empty() ? s.joints[size_t(j)].name + "Mid" : name);
  k.parent = parent;
  k.restLocal = localUnder(s, parent, kWorld);
  s.joints.insert(s.joints.begin() + j, k);
  for (size_t i = size_t(j) + 1; i < s.size(); ++i)
    if (s.joints[i].parent >= j) ++s.joints[i].parent;
  // The old joint j (now at j + 1) hangs below the new one, keeping its world transform.
  Joint& moved = s.joints[size_t(j) + 1];
  moved.parent = j;
  moved.restLocal = kWorld.inverse() * world[size_t(j)];
  return j;
}

int sideOfName(const std::string& n) {
  auto starts = [&](const char* p) { return n.rfind(p, 0) == 0; };
  auto ends = [&](const char* p) {
    const std::string q(p);
    return n.size() >= q.size() && n.compare(n.size() - q.size(), q.size(), q) == 0;
  };
  if (starts("Left") || starts("left") || starts("L_") || starts("l_") || ends("_L") || ends("_l") || ends(".L") ||
      ends(".l") || ends("Left"))
    return +1;
  if (starts("Right") || starts("right") || starts("R_") || starts("r_") || ends("_R") || ends("_r") || ends(".R") ||
      ends(".r") || ends("Right"))
    return -1;
  // CMU style: "LHipJoint", "RThumb": a capital L or R followed by another capital.
  if (n.size() > 1 && std::isupper(static_cast<unsigned char>(n[1]))) {
    if (n[0] == 'L') return +1;
    if (n[0] == 'R') return -1;
  }
  return 0;
}

std::string mirrorName(const std::string& n) {
  const std::pair<const char*, const char*> prefixes[] = {{"Left", "Right"}, {"left", "right"}, {"L_", "R_"},
                                                          {"l_", "r_"}};
  for (const auto& [a, b] : prefixes) {
    if (n.rfind(a, 0) == 0) return b + n.substr(std::string(a).size());
    if (n.rfind(b, 0) == 0) return a + n.substr(std::string(b).size());
  }
  const std::pair<const char*, const char*> suffixes[] = {{"_L", "_R"}, {"_l", "_r"}, {".L", ".R"},
                                                          {".l", ".r"}, {"Left", "Right"}};
  for (const auto& [a, b] : suffixes) {
    const std::string sa(a), sb(b);
    if (n.size() > sa.size() && n.compare(n.size() - sa.size(), sa.size(), sa) == 0)
      return n.substr(0, n.size() - sa.size()) + sb;
    if (n.size() > sb.size() && n.compare(n.size() - sb.size(), sb.size(), sb) == 0)
      return n.substr(0, n.size() - sb.size()) + sa;
  }
  if (n.size() > 1 && std::isupper(static_cast<unsigned char>(n[1]))) {
    if (n[0] == 'L') return "R" + n.substr(1);
    if (n[0] == 'R') return "L" + n.substr(1);
  }
  return n;
}

int mirrorJoints(Skeleton& s, int from, double planeX) {
  int count = 0;
  const std::vector<Transform> world = s.worldRest();
  std::vector<Transform> target = world;
  std::vector<BoneShape> bones(s.size());
  std::vector<Vec3> axes(s.size());
  std::vector<bool> set(s.size(), false);
  for (size_t j = 0; j < s.size(); ++j) {
    if (sideOfName(s.joints[j].name) != from) continue;
    const int32_t m = s.find(mirrorName(s.joints[j].name));
    if (m < 0 || size_t(m) == j) continue;
    target[size_t(m)] = Transform{mirrorRotation(world[j].rotation), mirrorPoint(world[j].translation, planeX)};
    // Bone shapes and hinge axes live in the joint frame: mirror them in it
    // (a frame mirrored across x keeps its handedness by negating local x).
    BoneShape b = s.joints[j].bone;
    auto flip = [](const Vec3& v) { return Vec3(-v.x(), v.y(), v.z()); };
    b.start = flip(b.start);
    b.end = flip(b.end);
    b.center = flip(b.center);
    b.orientation = mirrorRotation(b.orientation);
    bones[size_t(m)] = b;
    axes[size_t(m)] = flip(s.joints[j].hingeAxis);
    set[size_t(m)] = true;
    ++count;
  }
  // Apply in topological order so parents are final before children.
  for (size_t j = 0; j < s.size(); ++j) {
    if (!set[j]) {
      setWorld(s, int32_t(j), world[j]);  // keep unmirrored joints where they were
      continue;
    }
    setWorld(s, int32_t(j), target[j]);
    s.joints[j].bone = bones[j];
    s.joints[j].hingeAxis = axes[j];
    s.joints[j].limits = s.joints[size_t(s.find(mirrorName(s.joints[j].name)))].limits;
  }
  return count;
}

int symmetrizeJoints(Skeleton& s, double planeX) {
  const std::vector<Transform> world = s.worldRest();
  std::vector<Vec3> target(s.size());
  int moved = 0;
  for (size_t j = 0; j < s.size(); ++j) {
    const Vec3 p = world[j].translation;
    const int32_t m = s.find(mirrorName(s.joints[j].name));
    if (sideOfName(s.joints[j].name) == 0 || m < 0 || size_t(m) == j) target[j] = Vec3(planeX, p.y(), p.z());
    else target[j] = 0.5 * (p + mirrorPoint(world[size_t(m)].translation, planeX));
    if ((target[j] - p).norm() > 1e-12) ++moved;
  }
  for (size_t j = 0; j < s.size(); ++j) setWorld(s, int32_t(j), Transform{world[j].rotation, target[j]});
  return moved;
}

namespace {
// Scales the skeleton by `scale` about `from` and moves `from` to `to`.
void scaleAndMove(Skeleton& s, double scale, const Vec3& from, const Vec3& to) {
  for (Joint& j : s.joints) {
    if (j.parent < 0) j.restLocal.translation = to + scale * (j.restLocal.translation - from);
    else j.restLocal.translation *= scale;
    j.bone.start *= scale;
    j.bone.end *= scale;
    j.bone.center *= scale;
    j.bone.radius *= scale;
    j.bone.halfExtents *= scale;
  }
}
}  // namespace

double fitSkeletonToMesh(Skeleton& s, const TriMesh& surface) {
  if (s.empty() || surface.positions.empty()) return 1.0;
  // Joints sit inside a body, a little in from its extremities: the joints'
  // box should span about 92% of the surface's height (its longest side for
  // a figure lying down), centred. Around that first guess, the scale that
  // keeps the most joints inside wins (ties: the one nearest the guess).
  Aabb joints;
  for (const Vec3& p : s.restPositions()) joints.add(p);
  const Aabb body = surface.bounds();
  int axis = 1;
  if (joints.size().y() < 0.5 * joints.size().maxCoeff()) joints.size().maxCoeff(&axis);
  const double guess = 0.92 * body.size()[axis] / std::max(joints.size()[axis], 1e-12);
  const TriangleTree tree(surface);
  const Skeleton original = s;
  double bestScale = guess;
  size_t bestInside = 0;
  double bestOff = std::numeric_limits<double>::infinity();
  for (int k = -12; k <= 6; ++k) {
    const double scale = guess * (1.0 + 0.02 * k);  // 76% to 112% of the guess
    Skeleton trial = original;
    scaleAndMove(trial, scale, joints.center(), body.center());
    const size_t inside = s.size() - jointsOutside(trial, tree).size();
    const double off = std::abs(std::log(scale / guess));
    if (inside > bestInside || (inside == bestInside && off < bestOff)) {
      bestInside = inside;
      bestScale = scale;
      bestOff = off;
    }
  }
  scaleAndMove(s, bestScale, joints.center(), body.center());
  return bestScale;
}

std::vector<int32_t> jointsOutside(const Skeleton& s, const TriangleTree& surface) {
  std::vector<int32_t> out;
  const std::vector<Vec3> pos = s.restPositions();
  for (size_t j = 0; j < pos.size(); ++j) {
    // Majority vote over three skew directions (robust to grazing hits).
    int inside = 0;
    for (const Vec3& d : {Vec3(0.31, 0.87, 0.38), Vec3(-0.52, 0.21, 0.83), Vec3(0.67, -0.58, -0.46)}) {
      size_t n = 0;
      double last = -1;
      for (const RayHit& h : surface.raycastAll(pos[j], d.normalized()))
        if (h.t > last + 1e-12) {
          ++n;
          last = h.t;
        }
      inside += n % 2;
    }
    if (inside < 2) out.push_back(int32_t(j));
  }
  return out;
}

}  // namespace sinew
