#include "sheth2015/Decompose.h"

#include "core/Error.h"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <numeric>
#include <unordered_map>

namespace sinew::sheth2015 {

size_t DeformableBones::particleCount() const {
  size_t n = 0;
  for (const auto& m : models) n += m->particleCount();
  return n;
}

namespace {

struct UnionFind {
  std::vector<int32_t> parent;
  explicit UnionFind(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  int32_t find(int32_t x) {
    while (parent[size_t(x)] != x) x = parent[size_t(x)] = parent[size_t(parent[size_t(x)])];
    return x;
  }
  void join(int32_t a, int32_t b) { parent[size_t(find(a))] = find(b); }
};

// Tets sharing a face: for each tet, its (up to four) face neighbours.
std::vector<std::array<int32_t, 4>> faceNeighbours(const TetMesh& mesh) {
  std::vector<std::array<int32_t, 4>> nb(mesh.tetCount(), {-1, -1, -1, -1});
  std::unordered_map<uint64_t, std::pair<int32_t, int32_t>> open;  // face key -> (tet, face)
  open.reserve(mesh.tetCount() * 2);
  static constexpr int kFace[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
  for (size_t t = 0; t < mesh.tetCount(); ++t)
    for (int f = 0; f < 4; ++f) {
      std::array<uint64_t, 3> v{};
      for (int k = 0; k < 3; ++k) v[size_t(k)] = uint64_t(mesh.tets[t][size_t(kFace[f][k])]);
      std::sort(v.begin(), v.end());
      const uint64_t key = (v[0] << 42) ^ (v[1] << 21) ^ v[2];
      const auto it = open.find(key);
      if (it == open.end()) {
        open.emplace(key, std::pair{int32_t(t), f});
      } else {
        nb[t][size_t(f)] = it->second.first;
        nb[size_t(it->second.first)][size_t(it->second.second)] = int32_t(t);
        open.erase(it);
      }
    }
  return nb;
}

// Boundary nodes, one per occupied cell of a grid sized so that about
// `target` cells are occupied; in each cell the node nearest the cell's mean.
std::vector<int32_t> proxyNodes(const TetMesh& mesh, int target, double& cellOut) {
  const TetBoundary boundary = tetBoundary(mesh);
  std::vector<int32_t> nodes;
  for (const Tri& f : boundary.faces)
    for (int32_t v : f) nodes.push_back(v);
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  Aabb box;
  for (int32_t v : nodes) box.add(mesh.nodes[size_t(v)]);
  const double diagonal = std::max((box.max - box.min).norm(), 1e-9);
  auto cluster = [&](double cell) {
    std::map<std::array<int64_t, 3>, std::vector<int32_t>> cells;
    for (int32_t v : nodes) {
      const Vec3 c = (mesh.nodes[size_t(v)] - box.min) / cell;
      cells[{int64_t(std::floor(c.x())), int64_t(std::floor(c.y())), int64_t(std::floor(c.z()))}].push_back(v);
    }
    return cells;
  };
  if (target <= 0 || size_t(target) >= nodes.size()) {
    // Every boundary node; the radius from the mean edge length of the boundary.
    double length = 0;
    for (const Tri& f : boundary.faces) length += (mesh.nodes[size_t(f[0])] - mesh.nodes[size_t(f[1])]).norm();
    cellOut = boundary.faces.empty() ? diagonal : length / double(boundary.faces.size());
    return nodes;
  }
  double lo = diagonal * 1e-4, hi = diagonal;  // cells shrink -> more occupied
  for (int it = 0; it < 40; ++it) {
    const double mid = std::sqrt(lo * hi);
    if (cluster(mid).size() > size_t(target)) lo = mid; else hi = mid;
  }
  cellOut = hi;
  std::vector<int32_t> chosen;
  for (const auto& [key, members] : cluster(hi)) {
    Vec3 mean = Vec3::Zero();
    for (int32_t v : members) mean += mesh.nodes[size_t(v)];
    mean /= double(members.size());
    int32_t best = members.front();
    for (int32_t v : members)
      if ((mesh.nodes[size_t(v)] - mean).squaredNorm() < (mesh.nodes[size_t(best)] - mean).squaredNorm()) best = v;
    chosen.push_back(best);
  }
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

}  // namespace

DeformableBones decompose(const TetMesh& mesh, const SkinWeights& weights, const std::vector<BoneInfo>& bones,
                          const DecomposeOptions& o, const std::function<void(double)>& progress) {
  const size_t nNodes = mesh.nodeCount(), nTets = mesh.tetCount(), nBones = bones.size();
  if (nTets == 0) throw InputError("deformable bones", "the volume has no tets");
  weights.validate("deformable bones: skinning weights", nNodes);
  if (!(o.threshold > 0 && o.threshold < 1)) throw InputError("deformable bones", "the threshold must lie in (0, 1)");
  if (o.jointsPerOverlap < 1) throw InputError("deformable bones", "at least one joint per overlap");
  // The weights' bones as indices into `bones`.
  std::vector<int32_t> boneOf(weights.bones.size(), -1);
  for (size_t k = 0; k < weights.bones.size(); ++k) {
    for (size_t b = 0; b < nBones; ++b)
      if (bones[b].name == weights.bones[k]) boneOf[k] = int32_t(b);
    if (boneOf[k] < 0) throw InputError("deformable bones", "the weights name bone '" + weights.bones[k] + "', which the skeleton lacks");
  }
  for (size_t b = 0; b < nBones; ++b)
    if (bones[b].parent >= int32_t(b)) throw InputError("bone '" + bones[b].name + "'", "its parent must come before it");

  // Each bone's weight may be handed to an ancestor (`owner`) when its
  // subdomain is too small; the node weights of the owners.
  const int minimum = o.minimumNodes > 0 ? o.minimumNodes : std::max(20, (o.modes + 6 + 2) / 3 * 2);
  std::vector<int32_t> owner(nBones);
  std::iota(owner.begin(), owner.end(), 0);
  auto root = [&](int32_t b) {
    while (owner[size_t(b)] != b) b = owner[size_t(b)];
    return b;
  };
  auto nodeWeights = [&](size_t n) {  // (owner, weight), owners unique
    std::vector<std::pair<int32_t, double>> w;
    for (int32_t i = weights.offsets[n]; i < weights.offsets[n + 1]; ++i) {
      const int32_t b = root(boneOf[size_t(weights.bone[size_t(i)])]);
      const double x = weights.weight[size_t(i)];
      auto it = std::find_if(w.begin(), w.end(), [&](const auto& p) { return p.first == b; });
      if (it == w.end()) w.push_back({b, x}); else it->second += x;
    }
    return w;
  };
  std::vector<int32_t> dominant(nTets);
  std::vector<std::vector<std::pair<int32_t, double>>> tetWeights(nTets);
  auto computeTetWeights = [&]() {
    std::vector<std::vector<std::pair<int32_t, double>>> nw(nNodes);
    for (size_t n = 0; n < nNodes; ++n) nw[n] = nodeWeights(n);
    for (size_t t = 0; t < nTets; ++t) {
      auto& tw = tetWeights[t];
      tw.clear();
      for (int32_t n : mesh.tets[t])
        for (const auto& [b, x] : nw[size_t(n)]) {
          const int32_t bone = b;  // a structured binding cannot be captured before C++20 (clang 14)
          auto it = std::find_if(tw.begin(), tw.end(), [&](const auto& p) { return p.first == bone; });
          if (it == tw.end()) tw.push_back({b, x / 4}); else it->second += x / 4;
        }
      dominant[t] = -1;
      double best = 0;
      for (auto [b, x] : tw)
        if (x > best || (x == best && b < dominant[t])) best = x, dominant[t] = b;
      if (dominant[t] < 0) throw InputError("deformable bones", "tet " + std::to_string(t) + " has no skinning weight");
    }
  };
  for (int round = 0; round < int(nBones) + 1; ++round) {
    computeTetWeights();
    std::vector<std::vector<char>> used(nBones);
    std::vector<int32_t> count(nBones, 0);
    for (size_t t = 0; t < nTets; ++t)
      for (auto [b, x] : tetWeights[t])
        if (b == dominant[t] || x >= o.threshold) {
          if (used[size_t(b)].empty()) used[size_t(b)].assign(nNodes, 0);
          for (int32_t n : mesh.tets[t]) count[size_t(b)] += !used[size_t(b)][size_t(n)], used[size_t(b)][size_t(n)] = 1;
        }
    bool merged = false;
    for (size_t b = nBones; b-- > 0;) {  // leaves first
      if (owner[b] != int32_t(b) || count[b] == 0 || count[b] >= minimum) continue;
      int32_t up = bones[b].parent;
      if (up < 0) {
        // A small root: hand it to its largest child instead, if it has one.
        int32_t child = -1;
        for (size_t c = 0; c < nBones; ++c)
          if (bones[c].parent == int32_t(b) && owner[c] == int32_t(c) && (child < 0 || count[c] > count[size_t(child)])) child = int32_t(c);
        if (child < 0)
          throw InputError("bone '" + bones[b].name + "'", "its subdomain has " + std::to_string(count[b]) +
                                                              " nodes, too few for " + std::to_string(o.modes) + " modes, and no bone to merge into");
        owner[b] = child;
      } else {
        owner[b] = root(up);
      }
      merged = true;
      break;  // recompute before merging more
    }
    if (!merged) break;
  }

  // Subdomains: the dominant tets of each body plus the tets whose mean
  // weight reaches the threshold; kept in one piece (face connectivity: a
  // body in two pieces, or pieces meeting at an edge, has extra rigid modes).
  const auto neighbours = faceNeighbours(mesh);
  std::vector<int32_t> bodyBones;
  for (size_t b = 0; b < nBones; ++b)
    if (owner[b] == int32_t(b) && std::any_of(dominant.begin(), dominant.end(), [&](int32_t d) { return d == int32_t(b); }))
      bodyBones.push_back(int32_t(b));
  if (bodyBones.empty()) throw InputError("deformable bones", "no bone has skinning weight");
  const size_t nBodies = bodyBones.size();
  std::vector<int32_t> bodyOfBone(nBones, -1);
  for (size_t k = 0; k < nBodies; ++k) bodyOfBone[size_t(bodyBones[k])] = int32_t(k);
  std::vector<std::vector<char>> inBody(nBodies, std::vector<char>(nTets, 0));
  for (size_t t = 0; t < nTets; ++t)
    for (auto [b, x] : tetWeights[t])
      if (bodyOfBone[size_t(b)] >= 0 && (b == dominant[t] || x >= o.threshold)) inBody[size_t(bodyOfBone[size_t(b)])][t] = 1;
  for (size_t k = 0; k < nBodies; ++k) {
    UnionFind uf(nTets);
    for (size_t t = 0; t < nTets; ++t)
      if (inBody[k][t])
        for (int32_t u : neighbours[t])
          if (u >= 0 && inBody[k][size_t(u)]) uf.join(int32_t(t), u);
    std::unordered_map<int32_t, int32_t> size;
    for (size_t t = 0; t < nTets; ++t)
      if (inBody[k][t]) ++size[uf.find(int32_t(t))];
    int32_t biggest = -1;
    for (auto [c, s] : size)
      if (biggest < 0 || s > size[biggest] || (s == size[biggest] && c < biggest)) biggest = c;
    for (size_t t = 0; t < nTets; ++t)
      if (inBody[k][t] && uf.find(int32_t(t)) != biggest) inBody[k][t] = 0;
  }
  // Tets left in no body (pieces dropped above) go to a face neighbour's
  // body, growing outward until every tet is covered.
  for (bool again = true; again;) {
    again = false;
    bool progressMade = false;
    for (size_t t = 0; t < nTets; ++t) {
      bool covered = false;
      for (size_t k = 0; k < nBodies && !covered; ++k) covered = inBody[k][t];
      if (covered) continue;
      int32_t best = -1;
      double bestWeight = -1;
      for (int32_t u : neighbours[t]) {
        if (u < 0) continue;
        for (size_t k = 0; k < nBodies; ++k) {
          if (!inBody[k][size_t(u)]) continue;
          double w = 0;
          for (auto [b, x] : tetWeights[t])
            if (b == bodyBones[k]) w = x;
          if (w > bestWeight) bestWeight = w, best = int32_t(k);
        }
      }
      if (best >= 0) inBody[size_t(best)][t] = 1, progressMade = true;
      else again = true;
    }
    if (again && !progressMade) {
      size_t loose = 0;
      for (size_t t = 0; t < nTets; ++t) {
        bool covered = false;
        for (size_t k = 0; k < nBodies && !covered; ++k) covered = inBody[k][t];
        loose += !covered;
      }
      throw InputError("deformable bones", "the volume is not one connected piece: " + std::to_string(loose) +
                                               " tets share no face with the rest (a loose part of the mesh?)");
    }
  }

  DeformableBones out;
  out.mergedInto.assign(nBones, -1);
  for (size_t b = 0; b < nBones; ++b) {
    bool hasWeight = false;
    for (size_t k = 0; k < weights.bones.size(); ++k) hasWeight = hasWeight || boneOf[k] == int32_t(b);
    if (hasWeight) out.mergedInto[b] = bodyOfBone[size_t(root(int32_t(b)))];
  }
  std::vector<std::vector<int32_t>> local(nBodies, std::vector<int32_t>(nNodes, -1));
  for (size_t k = 0; k < nBodies; ++k) {
    const std::string name = bones[size_t(bodyBones[k])].name;
    TetMesh sub;
    std::vector<int32_t>& nodes = out.bodyNodes.emplace_back();
    for (size_t t = 0; t < nTets; ++t) {
      if (!inBody[k][t]) continue;
      Tet tet{};
      for (int c = 0; c < 4; ++c) {
        const int32_t n = mesh.tets[t][size_t(c)];
        if (local[k][size_t(n)] < 0) local[k][size_t(n)] = int32_t(nodes.size()), nodes.push_back(n), sub.nodes.push_back(mesh.nodes[size_t(n)]);
        tet[size_t(c)] = local[k][size_t(n)];
      }
      sub.tets.push_back(tet);
    }
    if (nodes.size() < size_t(minimum))
      throw InputError("body '" + name + "'", "its subdomain has " + std::to_string(nodes.size()) + " nodes, too few for " +
                                                  std::to_string(o.modes) + " modes (lower the threshold or the modes)");
    out.bodyNames.push_back(name);
    out.models.push_back(buildReducedBody(sub, o.material, o.modes, name));
    if (progress) progress(double(k + 1) / double(nBodies + 1));
  }

  // Node weights over the bodies holding each node, renormalized (eq. 42).
  out.skin.name = "skin";
  for (size_t n = 0; n < nNodes; ++n) {
    std::vector<std::pair<int32_t, double>> w;
    const auto nw = nodeWeights(n);
    double sum = 0;
    for (size_t k = 0; k < nBodies; ++k) {
      if (local[k][n] < 0) continue;
      double x = 0;
      for (auto [b, y] : nw)
        if (b == bodyBones[k]) x = y;
      w.push_back({int32_t(k), x});
      sum += x;
    }
    if (w.empty()) throw InputError("deformable bones", "node " + std::to_string(n) + " is in no tet");
    for (auto& [k, x] : w) x = sum > 0 ? x / sum : 1.0 / double(w.size());
    for (auto [k, x] : w) {
      if (x <= 0) continue;
      out.skin.body.push_back(k);
      out.skin.particle.push_back(local[size_t(k)][n]);
      out.skin.weight.push_back(x);
    }
    // Renormalize after dropping zeros (exact sums for World::addSkin).
    double kept = 0;
    for (int32_t i = out.skin.offsets.back(); i < int32_t(out.skin.weight.size()); ++i) kept += out.skin.weight[size_t(i)];
    for (int32_t i = out.skin.offsets.back(); i < int32_t(out.skin.weight.size()); ++i) out.skin.weight[size_t(i)] /= kept;
    out.skin.offsets.push_back(int32_t(out.skin.weight.size()));
  }

  // Joints: between each body and its nearest ancestor's body, in a
  // cross-section of their overlap (its two widest principal directions),
  // spread around the centre.
  for (size_t k = 0; k < nBodies; ++k) {
    int32_t up = bones[size_t(bodyBones[k])].parent;
    while (up >= 0 && bodyOfBone[size_t(root(up))] < 0) up = bones[size_t(up)].parent;
    if (up < 0) continue;
    const size_t a = size_t(bodyOfBone[size_t(root(up))]);
    if (a == k) continue;
    std::vector<int32_t> overlap;
    for (int32_t n : out.bodyNodes[k])
      if (local[a][size_t(n)] >= 0) overlap.push_back(n);
    if (overlap.empty())
      throw InputError("bodies '" + out.bodyNames[a] + "' and '" + out.bodyNames[k] + "'",
                       "do not overlap, so no joint can hold them together (lower the threshold)");
    Vec3 c = Vec3::Zero();
    for (int32_t n : overlap) c += mesh.nodes[size_t(n)];
    c /= double(overlap.size());
    Mat3 cov = Mat3::Zero();
    for (int32_t n : overlap) cov += (mesh.nodes[size_t(n)] - c) * (mesh.nodes[size_t(n)] - c).transpose();
    cov /= double(overlap.size());
    const Eigen::SelfAdjointEigenSolver<Mat3> eig(cov);
    const Vec3 axis = eig.eigenvectors().col(0), u = eig.eigenvectors().col(2), v = eig.eigenvectors().col(1);
    double extent = 0;
    for (int32_t n : overlap) {
      const Vec3 d = mesh.nodes[size_t(n)] - c;
      extent = std::max(extent, (d - d.dot(axis) * axis).norm());
    }
    const int count = std::min<int>(o.jointsPerOverlap, int(overlap.size()));
    std::vector<int32_t> picked;
    for (int j = 0; j < count; ++j) {
      const double angle = 2 * 3.14159265358979323846 * j / count;
      const Vec3 target = count == 1 ? c : Vec3(c + o.jointSpread * extent * (std::cos(angle) * u + std::sin(angle) * v));
      int32_t best = -1;
      for (int32_t n : overlap) {
        if (std::find(picked.begin(), picked.end(), n) != picked.end()) continue;
        if (best < 0 || (mesh.nodes[size_t(n)] - target).squaredNorm() < (mesh.nodes[size_t(best)] - target).squaredNorm()) best = n;
      }
      picked.push_back(best);
      out.joints.push_back({int32_t(a), local[a][size_t(best)], int32_t(k), local[k][size_t(best)]});
    }
  }

  // The collision proxy: boundary nodes, one per grid cell, with the skin's weights.
  double cell = 0;
  out.proxyNodes = proxyNodes(mesh, o.proxySites, cell);
  out.proxy.name = "proxy";
  out.proxy.radius = o.proxyRadius > 0 ? o.proxyRadius : 0.25 * cell;
  for (int32_t n : out.proxyNodes) {
    for (int32_t i = out.skin.offsets[size_t(n)]; i < out.skin.offsets[size_t(n) + 1]; ++i) {
      out.proxy.body.push_back(out.skin.body[size_t(i)]);
      out.proxy.particle.push_back(out.skin.particle[size_t(i)]);
      out.proxy.weight.push_back(out.skin.weight[size_t(i)]);
    }
    out.proxy.offsets.push_back(int32_t(out.proxy.body.size()));
  }
  if (progress) progress(1.0);
  return out;
}

int32_t addToWorld(const DeformableBones& bones, World& world) {
  const int32_t first = int32_t(world.bodies().size());
  for (size_t k = 0; k < bones.models.size(); ++k) {
    WorldBody b;
    b.model = bones.models[k];
    b.state = restState(*b.model);
    b.collides = false;  // only the skin collides (Fig. 7)
    world.addBody(b);
  }
  for (PointJoint j : bones.joints) {
    j.bodyA += first, j.bodyB += first;
    world.addJoint(j);
  }
  Skin proxy = bones.proxy;
  for (int32_t& b : proxy.body) b += first;
  world.addSkin(proxy);
  return first;
}

}  // namespace sinew::sheth2015
