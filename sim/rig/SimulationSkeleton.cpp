#include "rig/SimulationSkeleton.h"

#include "geometry/TriangleTree.h"
#include "rig/BoneShapes.h"
#include "rig/SkeletonEdit.h"

#include <algorithm>

namespace sinew {

namespace {

struct Segment {
  Vec3 a, b;
  int32_t joint;
};

double distanceToSegment(const Vec3& p, const Segment& s) {
  const Vec3 d = s.b - s.a;
  const double len2 = d.squaredNorm();
  const double t = len2 > 0 ? std::clamp((p - s.a).dot(d) / len2, 0.0, 1.0) : 0.0;
  return (p - (s.a + t * d)).norm();
}

// What a joint's name says of it: a major body part, a small one (fingers,
// toes, face, twist and end bones), or nothing.
enum class NameKind { Major, Minor, Unknown };

NameKind nameKind(std::string name) {
  for (char& ch : name) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  auto has = [&](std::initializer_list<const char*> words) {
    for (const char* w : words)
      if (name.find(w) != std::string::npos) return true;
    return false;
  };
  if (has({"finger", "thumb", "index", "middle", "ring", "pinky", "toe", "eye", "brow", "lid", "lip", "jaw",
           "cheek", "mouth", "tongue", "teeth", "nose", "nub", "_end", "end_", "twist", "roll", "tail",
           "hair", "breast", "prop", "weapon"}))
    return NameKind::Minor;
  if (has({"hip", "pelvis", "spine", "chest", "torso", "neck", "head", "shoulder", "clavicle", "collar", "arm",
           "elbow", "hand", "wrist", "leg", "thigh", "knee", "calf", "shin", "foot", "ankle", "root"}))
    return NameKind::Major;
  return NameKind::Unknown;
}

}  // namespace

size_t SimulationSkeletonChoice::count() const { return size_t(std::count(simulated.begin(), simulated.end(), true)); }

SimulationSkeletonChoice chooseSimulatedJoints(const Skeleton& s, const TriMesh& surface,
                                               const SimulationSkeletonOptions& opt) {
  SimulationSkeletonChoice c;
  const size_t n = s.size();
  c.simulated.assign(n, true);
  c.areaShare.assign(n, 0.0);
  if (n == 0 || surface.triangles.empty()) return c;

  // Each joint's bone: segments to its children, or into the flesh for a leaf.
  const std::vector<Vec3> pos = s.restPositions();
  std::vector<Segment> segments;
  for (size_t j = 0; j < n; ++j) {
    const std::vector<int32_t> kids = s.children(int32_t(j));
    if (kids.empty()) segments.push_back({pos[j], boneEnd(s, int32_t(j), surface), int32_t(j)});
    for (int32_t k : kids) segments.push_back({pos[j], pos[size_t(k)], int32_t(j)});
  }
  // The surface nearest each joint's bone.
  std::vector<double> area(n, 0.0);
  double total = 0;
  for (const Tri& t : surface.triangles) {
    const Vec3 &a = surface.positions[size_t(t[0])], &b = surface.positions[size_t(t[1])],
               &d = surface.positions[size_t(t[2])];
    const double at = 0.5 * (b - a).cross(d - a).norm();
    const Vec3 centre = (a + b + d) / 3.0;
    double best = std::numeric_limits<double>::infinity();
    int32_t owner = 0;
    for (const Segment& seg : segments) {
      const double dist = distanceToSegment(centre, seg);
      if (dist < best) {
        best = dist;
        owner = seg.joint;
      }
    }
    area[size_t(owner)] += at;
    total += at;
  }
  if (!(total > 0)) return c;
  const TriangleTree tree(surface);
  std::vector<bool> outside(n, false);
  for (int32_t j : jointsOutside(s, tree)) outside[size_t(j)] = true;

  // From the leaves up (parents precede children in the joint order).
  for (double raise = 1.0;; raise *= 1.25) {
    std::vector<double> acc(area);
    for (size_t j = n; j-- > 0;) {
      for (int32_t k : s.children(int32_t(j)))
        if (!c.simulated[size_t(k)]) acc[j] += acc[size_t(k)];
      const NameKind kind = nameKind(s.joints[j].name);
      const double needed = kind == NameKind::Major ? opt.majorAreaFraction
                            : kind == NameKind::Minor ? opt.minorAreaFraction
                                                      : opt.minAreaFraction;
      c.simulated[j] = s.joints[j].parent < 0 || (!outside[j] && acc[j] >= raise * needed * total);
      c.areaShare[j] = acc[j] / total;
    }
    if (c.count() <= std::max<size_t>(opt.maxJoints, 1)) break;
  }
  return c;
}

void applySimulatedJoints(Skeleton& s, const std::vector<bool>& simulated) {
  for (size_t j = 0; j < s.size() && j < simulated.size(); ++j) {
    s.joints[j].simulated = simulated[j];
    if (!simulated[j]) s.joints[j].bone = BoneShape{};
  }
}

}  // namespace sinew
