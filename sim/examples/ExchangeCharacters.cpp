#include "examples/ExchangeCharacters.h"

#include "core/Error.h"
#include "rig/BoneShapes.h"

#include <algorithm>
#include <cmath>

namespace sinew {

namespace {

// Adds a joint at world position `world` under `parent` (no rotation).
int32_t addJoint(Skeleton& s, const std::string& name, int32_t parent, const Vec3& world) {
  const std::vector<Vec3> pos = s.restPositions();
  Joint j;
  j.name = name;
  j.parent = parent;
  j.restLocal.translation = world - pos[size_t(parent)];
  s.joints.push_back(j);
  return int32_t(s.joints.size()) - 1;
}

// Segment of each joint's bone (from the joint to its far end), for weights.
struct Segment {
  Vec3 a, b;
};

double distanceToSegment(const Vec3& p, const Segment& s) {
  const Vec3 d = s.b - s.a;
  const double len2 = d.squaredNorm();
  const double t = len2 > 0 ? std::clamp((p - s.a).dot(d) / len2, 0.0, 1.0) : 0.0;
  return (p - (s.a + t * d)).norm();
}

// Weights falling off as 1/d^4 with the distance to each bone's segment,
// the four largest kept and normalised. End joints (no children, named
// "_End" or ending in 4) carry no weight, as in production rigs.
SkinWeights distanceWeights(const Skeleton& s, const TriMesh& surface) {
  std::vector<Segment> segments(s.size());
  std::vector<bool> weighted(s.size(), true);
  for (size_t j = 0; j < s.size(); ++j) {
    const std::string& n = s.joints[j].name;
    const bool end = s.children(int32_t(j)).empty() && s.joints[j].parent >= 0 &&
                     (n.find("_End") != std::string::npos || (!n.empty() && n.back() == '4'));
    weighted[j] = !end;
    segments[j] = {s.restPositions()[j], boneEnd(s, int32_t(j), surface)};
  }
  SkinWeights w;
  for (const Joint& j : s.joints) w.bones.push_back(j.name);
  w.offsets.push_back(0);
  const double eps = 1e-3 * std::max(surface.bounds().size().maxCoeff(), 1e-9);
  std::vector<std::pair<double, int32_t>> all;
  for (const Vec3& p : surface.positions) {
    all.clear();
    for (size_t j = 0; j < s.size(); ++j)
      if (weighted[j]) all.push_back({1.0 / std::pow(distanceToSegment(p, segments[j]) + eps, 4), int32_t(j)});
    const size_t keep = std::min<size_t>(4, all.size());
    std::partial_sort(all.begin(), all.begin() + long(keep), all.end(), std::greater<>());
    double sum = 0;
    for (size_t k = 0; k < keep; ++k) sum += all[k].first;
    for (size_t k = 0; k < keep; ++k) {
      w.bone.push_back(all[k].second);
      w.weight.push_back(all[k].first / sum);
    }
    w.offsets.push_back(int32_t(w.bone.size()));
  }
  return w;
}

// The dominant bone of each vertex.
std::vector<int32_t> dominantBone(const SkinWeights& w) {
  std::vector<int32_t> out(w.vertexCount(), -1);
  for (size_t v = 0; v < w.vertexCount(); ++v) {
    double best = -1;
    for (int32_t k = w.offsets[v]; k < w.offsets[v + 1]; ++k)
      if (w.weight[size_t(k)] > best) {
        best = w.weight[size_t(k)];
        out[v] = w.bone[size_t(k)];
      }
  }
  return out;
}

// The triangles in `keep`, with their vertices (and weights) renumbered.
SkinnedPart subMesh(const std::string& name, const TriMesh& mesh, const SkinWeights& w, const std::vector<bool>& keep) {
  std::vector<int32_t> map(mesh.vertexCount(), -1);
  SkinnedPart part;
  part.name = name;
  SkinWeights sw;
  sw.bones = w.bones;
  sw.offsets.push_back(0);
  for (size_t t = 0; t < mesh.triangleCount(); ++t) {
    if (!keep[t]) continue;
    Tri tri;
    for (int k = 0; k < 3; ++k) {
      const int32_t v = mesh.triangles[t][k];
      if (map[size_t(v)] < 0) {
        map[size_t(v)] = int32_t(part.mesh.positions.size());
        part.mesh.positions.push_back(mesh.positions[size_t(v)]);
        for (int32_t i = w.offsets[size_t(v)]; i < w.offsets[size_t(v) + 1]; ++i) {
          sw.bone.push_back(w.bone[size_t(i)]);
          sw.weight.push_back(w.weight[size_t(i)]);
        }
        sw.offsets.push_back(int32_t(sw.bone.size()));
      }
      tri[k] = map[size_t(v)];
    }
    part.mesh.triangles.push_back(tri);
  }
  part.skin = std::move(sw);
  return part;
}

// A UV sphere (closed, outward).
TriMesh sphere(const Vec3& centre, double radius, int rings = 8, int segments = 12) {
  TriMesh m;
  m.positions.push_back(centre + Vec3(0, radius, 0));
  for (int r = 1; r < rings; ++r) {
    const double phi = M_PI * r / rings;
    for (int s = 0; s < segments; ++s) {
      const double th = 2 * M_PI * s / segments;
      m.positions.push_back(centre + radius * Vec3(std::sin(phi) * std::cos(th), std::cos(phi), std::sin(phi) * std::sin(th)));
    }
  }
  m.positions.push_back(centre - Vec3(0, radius, 0));
  const int32_t bottom = int32_t(m.positions.size()) - 1;
  auto at = [&](int r, int s) { return 1 + (r - 1) * segments + (s % segments); };
  for (int s = 0; s < segments; ++s) m.triangles.push_back({0, at(1, s + 1), at(1, s)});
  for (int r = 1; r + 1 < rings; ++r)
    for (int s = 0; s < segments; ++s) {
      m.triangles.push_back({at(r, s), at(r, s + 1), at(r + 1, s + 1)});
      m.triangles.push_back({at(r, s), at(r + 1, s + 1), at(r + 1, s)});
    }
  for (int s = 0; s < segments; ++s) m.triangles.push_back({bottom, at(rings - 1, s), at(rings - 1, s + 1)});
  return m;
}

const Project& checkedHumanoid(const Project& p) {
  if (p.meshes.empty() || !p.skeleton) throw InputError(p.name, "needs a mesh and a skeleton");
  return p;
}

}  // namespace

Skeleton makeProductionSkeleton(const Skeleton& humanoid) {
  Skeleton s = humanoid;
  // The layout below is for the 1.75 m figure (head joint at 1.52 m); scaled to this one.
  const int32_t head = s.find("Head");
  const double scale = head >= 0 ? s.restPositions()[size_t(head)].y() / 1.52 : 1.0;
  for (double side : {1.0, -1.0}) {
    const std::string lr = side > 0 ? "Left" : "Right";
    const int32_t hand = s.find(lr + "Hand");
    if (hand < 0) throw InputError("skeleton", "has no '" + lr + "Hand' joint");
    const Vec3 wrist = s.restPositions()[size_t(hand)];
    // Thumb: towards the front and out; four fingers spread front to back.
    const Vec3 thumbDir = Vec3(side * 0.6, 0.0, 0.8).normalized();
    int32_t parent = hand;
    for (int k = 1; k <= 4; ++k)
      parent = addJoint(s, lr + "HandThumb" + std::to_string(k), parent,
                        wrist + scale * (Vec3(side * 0.01, 0, 0.02) + (0.018 * k) * thumbDir));
    const char* fingers[] = {"Index", "Middle", "Ring", "Pinky"};
    const double z[] = {0.03, 0.01, -0.01, -0.03};
    for (int f = 0; f < 4; ++f) {
      parent = hand;
      for (int k = 1; k <= 4; ++k)
        parent = addJoint(s, lr + "Hand" + fingers[f] + std::to_string(k), parent,
                          wrist + scale * Vec3(side * (0.04 + 0.025 * (k - 1)), -0.005, z[f]));
    }
    const int32_t foot = s.find(lr + "Foot");
    if (foot < 0) throw InputError("skeleton", "has no '" + lr + "Foot' joint");
    const Vec3 ankle = s.restPositions()[size_t(foot)];
    const int32_t toe = addJoint(s, lr + "ToeBase", foot, ankle + scale * Vec3(0, -0.07, 0.15));
    addJoint(s, lr + "Toe_End", toe, ankle + scale * Vec3(0, -0.07, 0.22));
  }
  if (head >= 0) addJoint(s, "HeadTop_End", head, s.restPositions()[size_t(head)] + scale * Vec3(0, 0.2, 0));
  return s;
}

ExchangeCharacter makeExchangeCharacter(const Project& humanoid) {
  const Project& p = checkedHumanoid(humanoid);
  const TriMesh& body = p.meshes.front().mesh;
  ExchangeCharacter c;
  c.skeleton = makeProductionSkeleton(p.skeleton->skeleton);
  for (Joint& j : c.skeleton.joints) j.bone = BoneShape{};  // a DCC armature has no bone shapes
  const SkinWeights w = distanceWeights(c.skeleton, body);
  // Torso, legs and head by each triangle's dominant bone (of its first vertex).
  const std::vector<int32_t> dominant = dominantBone(w);
  auto under = [&](int32_t j, const char* ancestor) {
    for (; j >= 0; j = c.skeleton.joints[size_t(j)].parent)
      if (c.skeleton.joints[size_t(j)].name == ancestor) return true;
    return false;
  };
  std::vector<int> partOf(body.triangleCount(), 0);
  for (size_t t = 0; t < body.triangleCount(); ++t) {
    const int32_t b = dominant[size_t(body.triangles[t][0])];
    partOf[t] = under(b, "Neck") ? 2 : (under(b, "LeftUpLeg") || under(b, "RightUpLeg")) ? 1 : 0;
  }
  const char* names[] = {"Torso", "Legs", "Head"};
  for (int k = 0; k < 3; ++k) {
    std::vector<bool> keep(body.triangleCount());
    for (size_t t = 0; t < keep.size(); ++t) keep[t] = partOf[t] == k;
    c.parts.push_back(subMesh(names[k], body, w, keep));
  }
  // Eyes: small spheres on the front of the head, rigid under the Head joint.
  const int32_t head = c.skeleton.find("Head");
  const double scale = c.skeleton.restPositions()[size_t(head)].y() / 1.52;
  for (double side : {1.0, -1.0}) {
    SkinnedPart eye;
    eye.name = side > 0 ? "LeftEye" : "RightEye";
    eye.mesh = sphere(scale * Vec3(side * 0.04, 1.63, 0.115), scale * 0.02);
    eye.parentJoint = head;
    c.parts.push_back(std::move(eye));
  }
  return c;
}

BarePose makeAPoseSurface(const Project& humanoid, double degrees) {
  const Project& p = checkedHumanoid(humanoid);
  const Skeleton& s = p.skeleton->skeleton;
  const TriMesh& body = p.meshes.front().mesh;
  const SkinWeights w = distanceWeights(s, body);
  std::vector<Transform> local(s.size());
  for (size_t j = 0; j < s.size(); ++j) local[j] = s.joints[j].restLocal;
  const double a = degrees * M_PI / 180.0;
  for (const auto& [name, sign] : {std::pair<const char*, double>{"LeftArm", -1.0}, {"RightArm", 1.0}}) {
    const int32_t j = s.find(name);
    if (j < 0) throw InputError(p.name, std::string("has no '") + name + "' joint");
    local[size_t(j)].rotation = local[size_t(j)].rotation * Quat(Eigen::AngleAxisd(sign * a, Vec3::UnitZ()));
  }
  const std::vector<Transform> rest = s.worldRest(), posed = s.worldFromLocal(local);
  BarePose out;
  out.surface = body;
  for (size_t v = 0; v < body.vertexCount(); ++v) {
    Vec3 q = Vec3::Zero();
    for (int32_t k = w.offsets[v]; k < w.offsets[v + 1]; ++k) {
      const size_t b = size_t(w.bone[size_t(k)]);
      q += w.weight[size_t(k)] * posed[b].apply(rest[b].inverse().apply(body.positions[v]));
    }
    out.surface.positions[v] = q;
  }
  out.skeleton = s;
  for (size_t j = 0; j < s.size(); ++j) {
    out.skeleton.joints[j].restLocal = local[j];
    out.skeleton.joints[j].bone = BoneShape{};
  }
  return out;
}

}  // namespace sinew
