#include "rig/WeightPaint.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace sinew {

const char* brushModeName(BrushMode m) {
  switch (m) {
    case BrushMode::Add: return "add";
    case BrushMode::Subtract: return "subtract";
    case BrushMode::Replace: return "replace";
    case BrushMode::Smooth: return "smooth";
  }
  return "?";
}

const char* brushFalloffName(BrushFalloff f) {
  switch (f) {
    case BrushFalloff::Constant: return "constant";
    case BrushFalloff::Linear: return "linear";
    case BrushFalloff::Smooth: return "smooth";
  }
  return "?";
}

// ---------------------------------------------------------------------------
// PaintSurface

PaintSurface::PaintSurface(const TriMesh& mesh) : positions_(mesh.positions) {
  const size_t n = positions_.size();
  // Vertex neighbours from the triangle edges.
  std::vector<std::pair<int32_t, int32_t>> edges;
  edges.reserve(mesh.triangleCount() * 6);
  double edgeSum = 0;
  for (const Tri& t : mesh.triangles)
    for (int k = 0; k < 3; ++k) {
      const int32_t a = t[size_t(k)], b = t[size_t((k + 1) % 3)];
      if (a == b) continue;
      edges.emplace_back(a, b);
      edges.emplace_back(b, a);
      edgeSum += (positions_[size_t(a)] - positions_[size_t(b)]).norm();
    }
  const double meanEdge = edges.empty() ? 0.0 : 2.0 * edgeSum / double(edges.size());
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  neighborOffsets_.assign(n + 1, 0);
  for (const auto& e : edges) ++neighborOffsets_[size_t(e.first) + 1];
  for (size_t i = 0; i < n; ++i) neighborOffsets_[i + 1] += neighborOffsets_[i];
  neighbors_.reserve(edges.size());
  for (const auto& e : edges) neighbors_.push_back(e.second);

  // The grid: cells about two edges wide, at most ~8 cells per vertex.
  Aabb box;
  for (const Vec3& p : positions_) box.add(p);
  if (box.empty()) return;
  origin_ = box.min;
  const Vec3 size = box.size();
  cell_ = std::max({2.0 * meanEdge, 1e-6 * box.diagonal(), 1e-12});
  const double maxCells = 8.0 * double(n) + 64.0;
  for (;;) {
    const Vec3 d = (size / cell_).array().floor() + 1.0;
    if (d.prod() <= maxCells) {
      dims_ = d.cast<int>();
      break;
    }
    cell_ *= 1.25;
  }
  const size_t nCells = size_t(dims_.x()) * size_t(dims_.y()) * size_t(dims_.z());
  std::vector<int32_t> cellOf(n);
  cellStart_.assign(nCells + 1, 0);
  for (size_t v = 0; v < n; ++v) {
    const Eigen::Vector3i c = ((positions_[v] - origin_) / cell_).array().floor().cast<int>().min(dims_.array() - 1).max(0);
    cellOf[v] = c.x() + dims_.x() * (c.y() + dims_.y() * c.z());
    ++cellStart_[size_t(cellOf[v]) + 1];
  }
  for (size_t c = 0; c < nCells; ++c) cellStart_[c + 1] += cellStart_[c];
  cellVertices_.resize(n);
  std::vector<int32_t> fill(cellStart_.begin(), cellStart_.end() - 1);
  for (size_t v = 0; v < n; ++v) cellVertices_[size_t(fill[size_t(cellOf[v])]++)] = int32_t(v);
}

void PaintSurface::verticesInSphere(const Vec3& center, double radius, std::vector<int32_t>& out) const {
  if (positions_.empty() || !(radius > 0)) return;
  const size_t first = out.size();
  const Eigen::Array3d lo = (center.array() - radius - origin_.array()) / cell_;
  const Eigen::Array3d hi = (center.array() + radius - origin_.array()) / cell_;
  if ((hi < 0).any() || (lo >= dims_.array().cast<double>()).any()) return;
  const Eigen::Array3i i0 = lo.floor().max(0).cast<int>();
  const Eigen::Array3i i1 = hi.floor().min(dims_.array().cast<double>() - 1).cast<int>();
  const double r2 = radius * radius;
  for (int k = i0.z(); k <= i1.z(); ++k)
    for (int j = i0.y(); j <= i1.y(); ++j) {
      const size_t rowBase = size_t(dims_.x()) * (size_t(j) + size_t(dims_.y()) * size_t(k));
      for (size_t c = rowBase + size_t(i0.x()); c <= rowBase + size_t(i1.x()); ++c)
        for (int32_t s = cellStart_[c]; s < cellStart_[c + 1]; ++s) {
          const int32_t v = cellVertices_[size_t(s)];
          if ((positions_[size_t(v)] - center).squaredNorm() < r2) out.push_back(v);
        }
    }
  std::sort(out.begin() + std::ptrdiff_t(first), out.end());
}

int32_t PaintSurface::nearestVertex(const Vec3& p, double maxDistance) const {
  std::vector<int32_t> near;
  verticesInSphere(p, std::nextafter(maxDistance, std::numeric_limits<double>::infinity()), near);
  int32_t best = -1;
  double bestD = std::numeric_limits<double>::infinity();
  for (int32_t v : near) {  // ascending: ties keep the lower index
    const double d = (positions_[size_t(v)] - p).squaredNorm();
    if (d < bestD) {
      bestD = d;
      best = v;
    }
  }
  return best;
}

// ---------------------------------------------------------------------------
// Row rules: locks, normalisation, influence limit

namespace {

// Rescales the unlocked bones other than `keep` so that the row sums to 1
// (keep = -1: all unlocked bones). When they hold nothing, `keep` takes what
// is left. Locked bones never change.
void normalizeRow(WeightPaintState& s, Eigen::Index v, int32_t keep) {
  auto row = s.weights.row(v);
  double lockedSum = 0, othersSum = 0;
  for (Eigen::Index j = 0; j < row.size(); ++j) {
    if (j == keep) continue;
    if (s.isLocked(int32_t(j))) lockedSum += row[j];
    else othersSum += row[j];
  }
  const double avail = std::max(0.0, 1.0 - lockedSum);
  if (keep >= 0) row[keep] = std::min(row[keep], avail);
  const double rest = keep >= 0 ? avail - row[keep] : avail;
  if (othersSum > 0) {
    const double scale = rest / othersSum;
    for (Eigen::Index j = 0; j < row.size(); ++j)
      if (j != keep && !s.isLocked(int32_t(j))) row[j] = std::min(1.0, row[j] * scale);
  } else if (keep >= 0) {
    row[keep] = avail;  // nowhere else to put the rest
  }
}

// Drops the smallest unlocked influences other than `keep` while the row has
// more than maxInfluences (ties: the higher bone index goes first).
bool pruneRow(WeightPaintState& s, Eigen::Index v, int32_t keep) {
  const int maxInf = s.settings.maxInfluences;
  if (maxInf <= 0) return false;
  auto row = s.weights.row(v);
  int count = 0;
  for (Eigen::Index j = 0; j < row.size(); ++j) count += row[j] > 0;
  if (count <= maxInf) return false;
  std::vector<int32_t> candidates;
  for (Eigen::Index j = 0; j < row.size(); ++j)
    if (row[j] > 0 && j != keep && !s.isLocked(int32_t(j))) candidates.push_back(int32_t(j));
  std::sort(candidates.begin(), candidates.end(),
            [&](int32_t a, int32_t b) { return row[a] != row[b] ? row[a] < row[b] : a > b; });
  for (size_t k = 0; k < candidates.size() && count > maxInf; ++k, --count) row[candidates[k]] = 0.0;
  return true;
}

// Sets bone b of vertex v to `target` under the settings' rules.
void assignWeight(WeightPaintState& s, Eigen::Index v, int32_t b, double target) {
  if (s.isLocked(b)) return;
  s.weights(v, b) = std::clamp(target, 0.0, 1.0);
  if (s.settings.autoNormalize) normalizeRow(s, v, b);
  if (pruneRow(s, v, b) && s.settings.autoNormalize) normalizeRow(s, v, b);
}

double falloff(BrushFalloff f, double t) {
  switch (f) {
    case BrushFalloff::Constant: return 1.0;
    case BrushFalloff::Linear: return 1.0 - t;
    case BrushFalloff::Smooth: return 1.0 - t * t * (3.0 - 2.0 * t);
  }
  return 1.0;
}

struct Op {
  int32_t vertex, bone;
  double target;
};

// Applies `ops` in order (targets computed beforehand from the old weights)
// and reports the rows that changed.
PaintChange applyOps(WeightPaintState& s, const std::vector<Op>& ops) {
  std::vector<int32_t> touched;
  touched.reserve(ops.size());
  for (const Op& op : ops) touched.push_back(op.vertex);
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  WeightMatrix before(Eigen::Index(touched.size()), s.weights.cols());
  for (size_t k = 0; k < touched.size(); ++k) before.row(Eigen::Index(k)) = s.weights.row(touched[k]);

  for (const Op& op : ops) assignWeight(s, op.vertex, op.bone, op.target);

  PaintChange change;
  std::vector<Eigen::Index> keep;
  for (size_t k = 0; k < touched.size(); ++k)
    if (s.weights.row(touched[k]) != before.row(Eigen::Index(k))) {
      change.vertices.push_back(touched[k]);
      keep.push_back(Eigen::Index(k));
    }
  change.before.resize(Eigen::Index(keep.size()), s.weights.cols());
  for (size_t k = 0; k < keep.size(); ++k) change.before.row(Eigen::Index(k)) = before.row(keep[k]);
  return change;
}

int32_t mirrorBone(const WeightPaintState& s, int32_t b) {
  return s.boneMirror.empty() ? b : s.boneMirror[size_t(b)];
}

bool validBone(const WeightPaintState& s, int32_t b) { return b >= 0 && b < s.weights.cols(); }

}  // namespace

PaintChange applyBrush(const PaintSurface& surface, WeightPaintState& s, const BrushSample& brush) {
  assert(size_t(s.weights.rows()) == surface.vertexCount());
  assert(s.vertexMirror.empty() || s.vertexMirror.size() == surface.vertexCount());
  assert(s.boneMirror.empty() || Eigen::Index(s.boneMirror.size()) == s.weights.cols());
  assert(s.locked.empty() || Eigen::Index(s.locked.size()) == s.weights.cols());
  const int32_t b = s.selectedBone;
  if (!validBone(s, b) || !(brush.radius > 0)) return {};
  const double strength = std::clamp(brush.strength, 0.0, 1.0);
  std::vector<int32_t> inside;
  surface.verticesInSphere(brush.center, brush.radius, inside);

  // The brush factor per vertex, then (with mirror) the same factor on the
  // mirror vertex for the mirror bone.
  struct Hit {
    int32_t vertex, bone;
    double factor;
  };
  std::vector<Hit> hits;
  hits.reserve(2 * inside.size());
  for (int32_t v : inside) {
    const double t = (surface.positions()[size_t(v)] - brush.center).norm() / brush.radius;
    const double f = strength * falloff(brush.falloff, std::min(t, 1.0));
    if (f > 0) hits.push_back({v, b, f});
  }
  if (s.settings.mirror && !s.vertexMirror.empty()) {
    const int32_t mb = mirrorBone(s, b);
    const size_t nPrimary = hits.size();
    for (size_t k = 0; k < nPrimary; ++k) {
      const int32_t mv = s.vertexMirror[size_t(hits[k].vertex)];
      if (mv >= 0 && validBone(s, mb) && !(mv == hits[k].vertex && mb == b)) hits.push_back({mv, mb, hits[k].factor});
    }
  }

  // Targets from the weights before the sample (smoothing reads old values).
  std::vector<Op> ops;
  ops.reserve(hits.size());
  for (const Hit& h : hits) {
    if (s.isLocked(h.bone)) continue;
    const double w = s.weights(h.vertex, h.bone);
    double target = w;
    switch (brush.mode) {
      case BrushMode::Add: target = w + h.factor; break;
      case BrushMode::Subtract: target = w - h.factor; break;
      case BrushMode::Replace: target = w + h.factor * (brush.value - w); break;
      case BrushMode::Smooth: {
        const int32_t* nb = surface.neighborsBegin(h.vertex);
        const int32_t* ne = surface.neighborsEnd(h.vertex);
        if (nb == ne) break;
        double mean = 0;
        for (const int32_t* u = nb; u != ne; ++u) mean += s.weights(*u, h.bone);
        mean /= double(ne - nb);
        target = w + h.factor * (mean - w);
        break;
      }
    }
    ops.push_back({h.vertex, h.bone, target});
  }
  return applyOps(s, ops);
}

PaintChange flood(const PaintSurface& surface, WeightPaintState& s, double value, const std::vector<int32_t>& selection) {
  const int32_t b = s.selectedBone;
  if (!validBone(s, b) || s.isLocked(b)) return {};
  std::vector<int32_t> verts = selection;
  if (selection.empty()) {
    verts.resize(surface.vertexCount());
    for (size_t v = 0; v < verts.size(); ++v) verts[v] = int32_t(v);
  }
  std::sort(verts.begin(), verts.end());
  verts.erase(std::unique(verts.begin(), verts.end()), verts.end());
  std::vector<Op> ops;
  for (int32_t v : verts)
    if (v >= 0 && v < s.weights.rows()) ops.push_back({v, b, value});
  if (s.settings.mirror && !s.vertexMirror.empty()) {
    const int32_t mb = mirrorBone(s, b);
    const size_t nPrimary = ops.size();
    for (size_t k = 0; k < nPrimary; ++k) {
      const int32_t mv = s.vertexMirror[size_t(ops[k].vertex)];
      if (mv >= 0 && validBone(s, mb) && !(mv == ops[k].vertex && mb == b)) ops.push_back({mv, mb, value});
    }
  }
  return applyOps(s, ops);
}

PaintChange normalizeAll(WeightPaintState& s) {
  WeightMatrix before = s.weights;
  for (Eigen::Index v = 0; v < s.weights.rows(); ++v) {
    if (s.settings.autoNormalize) normalizeRow(s, v, -1);
    if (pruneRow(s, v, -1) && s.settings.autoNormalize) normalizeRow(s, v, -1);
  }
  PaintChange change;
  for (Eigen::Index v = 0; v < s.weights.rows(); ++v)
    if (s.weights.row(v) != before.row(v)) change.vertices.push_back(int32_t(v));
  change.before.resize(Eigen::Index(change.vertices.size()), s.weights.cols());
  for (size_t k = 0; k < change.vertices.size(); ++k) change.before.row(Eigen::Index(k)) = before.row(change.vertices[k]);
  return change;
}

PaintChange revert(WeightPaintState& s, const PaintChange& change) {
  PaintChange redo;
  redo.vertices = change.vertices;
  redo.before.resize(change.before.rows(), change.before.cols());
  for (size_t k = 0; k < change.vertices.size(); ++k) {
    redo.before.row(Eigen::Index(k)) = s.weights.row(change.vertices[k]);
    s.weights.row(change.vertices[k]) = change.before.row(Eigen::Index(k));
  }
  return redo;
}

// ---------------------------------------------------------------------------
// Mirror maps

std::vector<int32_t> mirrorVertexMap(const PaintSurface& surface, double tolerance) {
  std::vector<int32_t> map(surface.vertexCount(), -1);
  for (size_t v = 0; v < map.size(); ++v) {
    const Vec3& p = surface.positions()[v];
    map[v] = surface.nearestVertex(Vec3(-p.x(), p.y(), p.z()), tolerance);
  }
  return map;
}

std::vector<std::string> mirroredBoneNames(const std::string& name) {
  std::vector<std::string> out;
  auto add = [&](const std::string& s) {
    if (s != name && std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  };
  // "Left"/"Right" anywhere (first occurrence), in three cases.
  static const char* const words[][2] = {{"Left", "Right"}, {"left", "right"}, {"LEFT", "RIGHT"}};
  for (const auto& w : words)
    for (int side = 0; side < 2; ++side) {
      const std::string from = w[side], to = w[1 - side];
      const size_t pos = name.find(from);
      if (pos != std::string::npos) add(name.substr(0, pos) + to + name.substr(pos + from.size()));
    }
  auto flip = [](char c) -> char {
    switch (c) {
      case 'L': return 'R';
      case 'R': return 'L';
      case 'l': return 'r';
      case 'r': return 'l';
    }
    return 0;
  };
  auto isSep = [](char c) { return c == '.' || c == '_' || c == '-' || c == ' '; };
  auto with = [&](size_t i) {
    std::string s = name;
    s[i] = flip(name[i]);
    return s;
  };
  const size_t n = name.size();
  if (n < 2) return out;
  // One letter after a separator at the end ("arm.L", "arm_r").
  if (isSep(name[n - 2]) && flip(name[n - 1])) add(with(n - 1));
  // One letter before a separator at the start ("L_arm", "r.arm").
  if (flip(name[0]) && isSep(name[1])) add(with(0));
  // One letter between separators ("Bip01 L Thigh").
  for (size_t i = 1; i + 1 < n; ++i)
    if (flip(name[i]) && isSep(name[i - 1]) && isSep(name[i + 1])) {
      add(with(i));
      break;
    }
  // A side letter before a capital ("LHipJoint", "lShldr").
  if (flip(name[0]) && std::isupper(static_cast<unsigned char>(name[1]))) add(with(0));
  // A capital side letter after a lower-case letter at the end ("ArmL").
  if ((name[n - 1] == 'L' || name[n - 1] == 'R') && std::islower(static_cast<unsigned char>(name[n - 2])))
    add(with(n - 1));
  return out;
}

std::vector<int32_t> mirrorBoneMap(const std::vector<std::string>& names) {
  std::vector<int32_t> map(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    map[i] = int32_t(i);
    for (const std::string& candidate : mirroredBoneNames(names[i])) {
      const auto it = std::find(names.begin(), names.end(), candidate);
      if (it != names.end()) {
        map[i] = int32_t(it - names.begin());
        break;
      }
    }
  }
  return map;
}

}  // namespace sinew
