#include "rig/BoneShapes.h"

#include "geometry/Sdf.h"
#include "geometry/TriangleTree.h"

#include <cmath>
#include <functional>

namespace sinew {

namespace {
int32_t subtreeSize(const Skeleton& s, int32_t j) {
  int32_t n = 1;
  for (int32_t c : s.children(j)) n += subtreeSize(s, c);
  return n;
}

// Distance from `p` along `dir` to the surface (infinity if no hit).
double hitDistance(const TriangleTree& tree, const Vec3& p, const Vec3& dir) {
  const auto h = tree.raycast(p, dir);
  return h ? h->t : std::numeric_limits<double>::infinity();
}
}  // namespace

int32_t chainChild(const Skeleton& s, int32_t j) {
  const std::vector<int32_t> kids = s.children(j);
  if (kids.empty()) return -1;
  const std::vector<Vec3> pos = s.restPositions();
  const Vec3 incoming = s.joints[j].parent >= 0 ? Vec3(pos[j] - pos[s.joints[j].parent]) : Vec3::UnitY();
  int32_t best = kids[0];
  double bestScore = -std::numeric_limits<double>::infinity();
  for (int32_t c : kids) {
    const Vec3 d = pos[c] - pos[j];
    const double align = d.norm() > 0 && incoming.norm() > 0 ? d.normalized().dot(incoming.normalized()) : 0.0;
    const double score = align * 100.0 + subtreeSize(s, c);  // straight on first, then the bigger subtree
    if (score > bestScore) {
      bestScore = score;
      best = c;
    }
  }
  return best;
}

Vec3 boneEnd(const Skeleton& s, int32_t j, const TriMesh& surface) {
  const std::vector<Vec3> pos = s.restPositions();
  const int32_t c = chainChild(s, j);
  if (c >= 0) return pos[c];
  // A leaf: continue the parent's direction until just inside the surface.
  Vec3 dir = s.joints[j].parent >= 0 ? Vec3(pos[j] - pos[s.joints[j].parent]) : Vec3::UnitY();
  const double parentLength = dir.norm();
  dir = parentLength > 0 ? Vec3(dir / parentLength) : Vec3::UnitY();
  double length = parentLength > 0 ? 0.6 * parentLength : 0.1;
  if (!surface.triangles.empty()) {
    const TriangleTree tree(surface);
    const double d = hitDistance(tree, pos[j], dir);
    if (std::isfinite(d)) length = 0.8 * d;
  }
  return pos[j] + length * dir;
}

void assignDefaultBoneShapes(Skeleton& s, const TriMesh& surface, const BoneShapeOptions& opt) {
  const std::vector<Transform> world = s.worldRest();
  const TriangleTree tree(surface);
  for (size_t j = 0; j < s.size(); ++j) {
    if (!s.joints[j].simulated) {  // follows its parent: no volume of its own
      s.joints[j].bone = BoneShape{};
      continue;
    }
    const Vec3 a = world[j].translation;
    // A bone reaches through the joints that follow it (a spine's twist
    // joint, a hand's fingers) to the next simulated one, or to the last
    // joint of the chain: their flesh is its flesh.
    int32_t far = chainChild(s, int32_t(j));
    while (far >= 0 && !s.joints[size_t(far)].simulated && chainChild(s, far) >= 0) far = chainChild(s, far);
    const Vec3 b = far >= 0 ? world[size_t(far)].translation : boneEnd(s, int32_t(j), surface);
    const double length = (b - a).norm();
    if (length < 1e-6) {
      s.joints[j].bone = BoneShape{};
      continue;
    }
    const Vec3 axis = (b - a) / length;
    // Limb radius: the shortest of eight rays from the bone's middle, across it.
    const Mat3 f = sdf::frameAlong(axis);
    double reach = std::numeric_limits<double>::infinity();
    for (int k = 0; k < 8; ++k) {
      const double t = M_PI * k / 4;
      const Vec3 dir = std::cos(t) * f.col(1) + std::sin(t) * f.col(2);
      for (double along : {0.3, 0.5, 0.7}) reach = std::min(reach, hitDistance(tree, a + along * (b - a), dir));
    }
    if (!std::isfinite(reach)) reach = 0.25 * length;  // not inside the surface: a slender default
    const double gap = opt.gapFraction * length;
    double radius = std::max(opt.minRadius, opt.radiusFraction * reach);
    radius = std::min(radius, 0.5 * length - gap);  // keep a cylindrical part between the gaps
    if (radius < opt.minRadius) radius = std::max(0.2 * length, 1e-4);
    const Vec3 start = a + axis * (gap + radius), end = b - axis * (gap + radius);
    const bool shortBone = (end - a).dot(axis) <= (start - a).dot(axis);
    const Vec3 mid = 0.5 * (a + b);
    const Transform inv = world[j].inverse();
    s.joints[j].bone = shortBone ? BoneShape::capsule(inv.apply(mid), inv.apply(mid), radius)
                                 : BoneShape::capsule(inv.apply(start), inv.apply(end), radius);
  }
}

}  // namespace sinew
