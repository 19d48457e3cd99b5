// Weight painting kernels on small surfaces: what each brush mode does inside
// the radius (and that nothing changes outside it), normalisation, locks,
// influence limits, mirroring, smoothing, undo.
#include "rig/WeightPaint.h"

#include "examples/Humanoid.h"

#include <gtest/gtest.h>

#include <random>

namespace sinew {
namespace {

// A flat grid in z = 0: x in [-1, 1] (nx cells), y in [0, 1] (ny cells),
// symmetric across x = 0. Vertex (i, j) is i + (nx + 1) j.
TriMesh plane(int nx = 40, int ny = 20) {
  TriMesh m;
  for (int j = 0; j <= ny; ++j)
    for (int i = 0; i <= nx; ++i) m.positions.emplace_back(-1.0 + 2.0 * i / nx, double(j) / ny, 0.0);
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const int a = i + (nx + 1) * j, b = a + 1, c = a + nx + 1, d = c + 1;
      m.triangles.push_back({a, b, d});
      m.triangles.push_back({a, d, c});
    }
  return m;
}

const std::vector<std::string> kBones = {"Hips", "LeftArm", "RightArm", "Spine"};
constexpr int kHips = 0, kLeftArm = 1, kRightArm = 2, kSpine = 3;

WeightPaintState stateWith(const TriMesh& m, const Eigen::RowVectorXd& row) {
  WeightPaintState s;
  s.weights = WeightMatrix(Eigen::Index(m.vertexCount()), row.size());
  for (Eigen::Index v = 0; v < s.weights.rows(); ++v) s.weights.row(v) = row;
  s.locked.assign(size_t(row.size()), 0);
  return s;
}

WeightPaintState randomState(const TriMesh& m, int nBones, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  WeightPaintState s = stateWith(m, Eigen::RowVectorXd::Zero(nBones));
  for (Eigen::Index v = 0; v < s.weights.rows(); ++v) {
    for (int b = 0; b < nBones; ++b) s.weights(v, b) = u(rng);
    s.weights.row(v) /= s.weights.row(v).sum();
  }
  return s;
}

double rowSumError(const WeightMatrix& w) {
  double e = 0;
  for (Eigen::Index v = 0; v < w.rows(); ++v) e = std::max(e, std::abs(w.row(v).sum() - 1.0));
  return e;
}

// Sum over mesh edges of the squared difference of bone b's weight.
double roughness(const PaintSurface& surface, const WeightMatrix& w, int b) {
  double r = 0;
  for (int32_t v = 0; v < int32_t(surface.vertexCount()); ++v)
    for (const int32_t* u = surface.neighborsBegin(v); u != surface.neighborsEnd(v); ++u)
      if (*u > v) r += std::pow(w(v, b) - w(*u, b), 2);
  return r;
}

TEST(PaintSurface, SphereQueriesMatchBruteForce) {
  HumanoidOptions o;
  o.gridSpacing = 0.05;
  const TriMesh m = makeHumanoidSurface(o);
  const PaintSurface surface(m);
  ASSERT_EQ(surface.vertexCount(), m.vertexCount());
  std::mt19937 rng(4);
  std::uniform_int_distribution<int> pick(0, int(m.vertexCount()) - 1);
  std::uniform_real_distribution<double> radius(0.001, 0.6), jitter(-0.05, 0.05);
  for (int q = 0; q < 100; ++q) {
    const Vec3 c = m.positions[size_t(pick(rng))] + Vec3(jitter(rng), jitter(rng), jitter(rng));
    const double r = q == 0 ? 10.0 : radius(rng);
    std::vector<int32_t> got, expected;
    surface.verticesInSphere(c, r, got);
    for (size_t v = 0; v < m.vertexCount(); ++v)
      if ((m.positions[v] - c).squaredNorm() < r * r) expected.push_back(int32_t(v));
    EXPECT_EQ(got, expected) << "query " << q;
  }
  std::vector<int32_t> none;
  surface.verticesInSphere(Vec3(50, 50, 50), 1.0, none);
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(surface.nearestVertex(m.positions[17], 1e-9), 17);
  EXPECT_EQ(surface.nearestVertex(Vec3(50, 50, 50), 1.0), -1);
}

TEST(WeightPaint, FloodWholeMeshAndSelection) {
  const TriMesh m = plane();
  const PaintSurface surface(m);
  WeightPaintState s = stateWith(m, Eigen::RowVector4d(0.4, 0.3, 0.2, 0.1));
  s.selectedBone = kSpine;
  PaintChange c = flood(surface, s, 1.0);
  EXPECT_EQ(c.vertices.size(), m.vertexCount());
  for (Eigen::Index v = 0; v < s.weights.rows(); ++v) EXPECT_EQ(s.weights.row(v), Eigen::RowVector4d(0, 0, 0, 1));

  s = stateWith(m, Eigen::RowVector4d(0.4, 0.3, 0.2, 0.1));
  s.selectedBone = kHips;
  c = flood(surface, s, 0.7, {5, 3, 5});
  EXPECT_EQ(c.vertices, (std::vector<int32_t>{3, 5}));
  EXPECT_TRUE(s.weights.row(3).isApprox(Eigen::RowVector4d(0.7, 0.15, 0.1, 0.05), 1e-15));
  EXPECT_EQ(s.weights.row(4), Eigen::RowVector4d(0.4, 0.3, 0.2, 0.1));
  EXPECT_EQ(c.before.row(0), Eigen::RowVector4d(0.4, 0.3, 0.2, 0.1));
}

TEST(WeightPaint, AddWithFalloffOnlyInsideTheRadius) {
  const TriMesh m = plane();
  const PaintSurface surface(m);
  for (BrushFalloff falloff : {BrushFalloff::Constant, BrushFalloff::Linear, BrushFalloff::Smooth}) {
    WeightPaintState s = stateWith(m, Eigen::RowVector4d(1, 0, 0, 0));
    const WeightMatrix before = s.weights;
    s.selectedBone = kSpine;
    BrushSample brush;
    brush.center = Vec3(0.31, 0.52, 0.0);
    brush.radius = 0.23;
    brush.strength = 0.6;
    brush.falloff = falloff;
    brush.mode = BrushMode::Add;
    const PaintChange c = applyBrush(surface, s, brush);
    ASSERT_FALSE(c.empty());
    std::vector<int32_t> expectedChanged;
    for (size_t v = 0; v < m.vertexCount(); ++v) {
      const auto vi = Eigen::Index(v);
      const double t = (m.positions[v] - brush.center).norm() / brush.radius;
      if (t >= 1.0) {
        EXPECT_EQ(s.weights.row(vi), before.row(vi)) << "outside vertex " << v;  // bitwise
        continue;
      }
      const double f = falloff == BrushFalloff::Constant ? 1.0
                       : falloff == BrushFalloff::Linear ? 1.0 - t
                                                         : 1.0 - t * t * (3 - 2 * t);
      EXPECT_NEAR(s.weights(vi, kSpine), 0.6 * f, 1e-15);
      EXPECT_NEAR(s.weights(vi, kHips), 1.0 - 0.6 * f, 1e-15);  // auto-normalised
      if (f > 0) expectedChanged.push_back(int32_t(v));
    }
    EXPECT_EQ(c.vertices, expectedChanged) << brushFalloffName(falloff);
    for (size_t k = 0; k < c.vertices.size(); ++k) EXPECT_EQ(c.before.row(Eigen::Index(k)), before.row(c.vertices[k]));
    EXPECT_LT(rowSumError(s.weights), 1e-15);
  }
}

TEST(WeightPaint, SubtractAndReplace) {
  const TriMesh m = plane();
  const PaintSurface surface(m);
  WeightPaintState s = stateWith(m, Eigen::RowVector4d(0.5, 0, 0, 0.5));
  s.selectedBone = kSpine;
  BrushSample brush;
  brush.center = Vec3(-0.5, 0.5, 0);
  brush.radius = 0.2;
  brush.strength = 0.2;
  brush.falloff = BrushFalloff::Constant;
  brush.mode = BrushMode::Subtract;
  const PaintChange c = applyBrush(surface, s, brush);
  ASSERT_FALSE(c.empty());
  for (int32_t v : c.vertices) EXPECT_TRUE(s.weights.row(v).isApprox(Eigen::RowVector4d(0.7, 0, 0, 0.3), 1e-15));
  // Subtracting more than there is stops at zero.
  brush.strength = 1.0;
  applyBrush(surface, s, brush);
  for (int32_t v : c.vertices) EXPECT_EQ(s.weights.row(v), Eigen::RowVector4d(1, 0, 0, 0));
  // Replace moves towards the brush value.
  brush.mode = BrushMode::Replace;
  brush.value = 0.25;
  brush.strength = 1.0;
  applyBrush(surface, s, brush);
  for (int32_t v : c.vertices) EXPECT_TRUE(s.weights.row(v).isApprox(Eigen::RowVector4d(0.75, 0, 0, 0.25), 1e-15));
  brush.strength = 0.5;
  brush.value = 1.0;
  applyBrush(surface, s, brush);  // 0.25 + 0.5 (1 - 0.25)
  for (int32_t v : c.vertices) EXPECT_NEAR(s.weights(v, kSpine), 0.625, 1e-15);
  // A vertex with all its weight on the painted bone cannot lose any: there
  // is nowhere to put it while rows must sum to one.
  WeightPaintState full = stateWith(m, Eigen::RowVector4d(0, 0, 0, 1));
  full.selectedBone = kSpine;
  brush.mode = BrushMode::Subtract;
  EXPECT_TRUE(applyBrush(surface, full, brush).empty());
}

TEST(WeightPaint, WithoutAutoNormalizeOnlyThePaintedBoneChanges) {
  const TriMesh m = plane();
  const PaintSurface surface(m);
  WeightPaintState s = stateWith(m, Eigen::RowVector4d(0.6, 0.2, 0.2, 0));
  s.settings.autoNormalize = false;
  s.selectedBone = kSpine;
  BrushSample brush;
  brush.center = Vec3(0, 0.5, 0);
  brush.radius = 0.15;
  brush.falloff = BrushFalloff::Constant;
  brush.strength = 0.3;
  const PaintChange c = applyBrush(surface, s, brush);
  for (int32_t v : c.vertices) EXPECT_EQ(s.weights.row(v), Eigen::RowVector4d(0.6, 0.2, 0.2, 0.3));
  // Turning it on normalises everything in one undoable step.
  s.settings.autoNormalize = true;
  const PaintChange n = normalizeAll(s);
  EXPECT_EQ(n.vertices, c.vertices);
  EXPECT_LT(rowSumError(s.weights), 1e-15);
  for (int32_t v : c.vertices) EXPECT_TRUE(s.weights.row(v).isApprox(Eigen::RowVector4d(0.6, 0.2, 0.2, 0.3) / 1.3, 1e-15));
}

TEST(WeightPaint, LockedBonesNeverChange) {
  const TriMesh m = plane();
  const PaintSurface surface(m);
  WeightPaintState s = randomState(m, 4, 3);
  s.locked[kHips] = 1;
  const Eigen::VectorXd hips = s.weights.col(kHips);
  s.selectedBone = kSpine;
  BrushSample brush;
  brush.center = Vec3(0.2, 0.4, 0);
  brush.radius = 0.5;
  brush.strength = 0.9;
  for (BrushMode mode : {BrushMode::Add, BrushMode::Subtract, BrushMode::Replace, BrushMode::Smooth}) {
    brush.mode = mode;
    EXPECT_FALSE(applyBrush(surface, s, brush).empty()) << brushModeName(mode);
  }
  flood(surface, s, 1.0, {1, 2, 3});
  EXPECT_EQ(Eigen::VectorXd(s.weights.col(kHips)), hips);
  EXPECT_LT(rowSumError(s.weights), 1e-14);
  // With Hips locked, Spine can take at most what Hips leaves.
  for (int32_t v : {1, 2, 3}) EXPECT_NEAR(s.weights(v, kSpine), 1.0 - hips[v], 1e-15);
  // Painting a locked bone does nothing.
  s.selectedBone = kHips;
  EXPECT_TRUE(applyBrush(surface, s, brush).empty());
  EXPECT_TRUE(flood(surface, s, 0.0).empty());
}

TEST(WeightPaint, MaximumInfluences) {
  const TriMesh m = plane();
  const PaintSurface surface(m);
  WeightPaintState s = randomState(m, 4, 9);
  s.settings.maxInfluences = 2;
  s.selectedBone = kLeftArm;
  BrushSample brush;
  brush.center = Vec3(0.5, 0.5, 0);
  brush.radius = 0.3;
  brush.strength = 0.1;
  const PaintChange c = applyBrush(surface, s, brush);
  ASSERT_FALSE(c.empty());
  for (int32_t v : c.vertices) {
    EXPECT_LE((s.weights.row(v).array() > 0).count(), 2);
    EXPECT_GT(s.weights(v, kLeftArm), 0.0);  // the painted bone is kept
    EXPECT_NEAR(s.weights.row(v).sum(), 1.0, 1e-15);
  }
  // The rest of the mesh is limited on request; the largest influences stay.
  const WeightMatrix before = s.weights;
  normalizeAll(s);
  for (Eigen::Index v = 0; v < s.weights.rows(); ++v) {
    EXPECT_LE((s.weights.row(v).array() > 0).count(), 2);
    EXPECT_NEAR(s.weights.row(v).sum(), 1.0, 1e-15);
    Eigen::RowVector4d sorted = before.row(v);
    std::sort(sorted.data(), sorted.data() + 4);
    for (int b = 0; b < 4; ++b)
      if (before(v, b) >= sorted[2] && sorted[2] > sorted[1]) {
        EXPECT_GT(s.weights(v, b), 0.0);
      }
  }
}

TEST(WeightPaint, MirrorPaintsTheOtherSideWithTheMirrorBone) {
  const TriMesh m = plane();
  const PaintSurface surface(m);
  WeightPaintState s = stateWith(m, Eigen::RowVector4d(1, 0, 0, 0));
  s.vertexMirror = mirrorVertexMap(surface, 1e-6);
  s.boneMirror = mirrorBoneMap(kBones);
  ASSERT_EQ(s.boneMirror, (std::vector<int32_t>{kHips, kRightArm, kLeftArm, kSpine}));
  for (size_t v = 0; v < m.vertexCount(); ++v) {
    ASSERT_GE(s.vertexMirror[v], 0);
    const Vec3& p = m.positions[v];
    EXPECT_TRUE(m.positions[size_t(s.vertexMirror[v])].isApprox(Vec3(-p.x(), p.y(), p.z()), 1e-12));
  }
  s.settings.mirror = true;
  s.selectedBone = kLeftArm;  // left = +x
  BrushSample brush;
  brush.center = Vec3(0.6, 0.5, 0);
  brush.radius = 0.25;
  brush.strength = 0.8;
  const PaintChange c = applyBrush(surface, s, brush);
  int left = 0, right = 0;
  for (int32_t v : c.vertices) {
    const double x = m.positions[size_t(v)].x();
    (x > 0 ? left : right) += 1;
    const int32_t mv = s.vertexMirror[size_t(v)];
    // The mirror row is this row with Left and Right swapped.
    EXPECT_EQ(s.weights(mv, kRightArm), s.weights(v, kLeftArm));
    EXPECT_EQ(s.weights(mv, kLeftArm), s.weights(v, kRightArm));
    EXPECT_EQ(s.weights(mv, kHips), s.weights(v, kHips));
  }
  EXPECT_GT(left, 10);
  EXPECT_EQ(left, right);
  for (int32_t v : c.vertices)
    if (m.positions[size_t(v)].x() < 0) {
      EXPECT_GT(s.weights(v, kRightArm), 0.0);
    }
  // Without mirror, the right side stays untouched.
  s.settings.mirror = false;
  brush.center = Vec3(0.6, 0.1, 0);
  for (int32_t v : applyBrush(surface, s, brush).vertices) EXPECT_GT(m.positions[size_t(v)].x(), 0.0);
}

TEST(WeightPaint, SmoothReducesRoughness) {
  const TriMesh m = plane();
  const PaintSurface surface(m);
  WeightPaintState s = randomState(m, 4, 21);
  s.selectedBone = kSpine;
  const double r0 = roughness(surface, s.weights, kSpine);
  BrushSample brush;
  brush.mode = BrushMode::Smooth;
  brush.center = Vec3(0, 0.5, 0);
  brush.radius = 3.0;
  brush.strength = 1.0;
  brush.falloff = BrushFalloff::Constant;
  for (int i = 0; i < 5; ++i) applyBrush(surface, s, brush);
  const double r1 = roughness(surface, s.weights, kSpine);
  EXPECT_LT(r1, 0.1 * r0) << r0 << " -> " << r1;
  EXPECT_LT(rowSumError(s.weights), 1e-14);
  EXPECT_GE(s.weights.minCoeff(), 0.0);
  // A small brush smooths only inside it.
  WeightPaintState t = randomState(m, 4, 22);
  const WeightMatrix before = t.weights;
  t.selectedBone = kSpine;
  brush.radius = 0.2;
  const PaintChange c = applyBrush(surface, t, brush);
  for (size_t v = 0; v < m.vertexCount(); ++v)
    if ((m.positions[v] - brush.center).norm() >= brush.radius) {
      EXPECT_EQ(t.weights.row(Eigen::Index(v)), before.row(Eigen::Index(v)));
    }
  EXPECT_FALSE(c.empty());
}

TEST(WeightPaint, RevertUndoesAndRedoes) {
  const TriMesh m = plane();
  const PaintSurface surface(m);
  WeightPaintState s = randomState(m, 4, 5);
  const WeightMatrix original = s.weights;
  s.selectedBone = kHips;
  BrushSample brush;
  brush.center = Vec3(-0.3, 0.3, 0);
  brush.radius = 0.4;
  const PaintChange c = applyBrush(surface, s, brush);
  const WeightMatrix painted = s.weights;
  const PaintChange redo = revert(s, c);
  EXPECT_EQ(s.weights, original);
  revert(s, redo);
  EXPECT_EQ(s.weights, painted);
}

TEST(WeightPaint, MirroredBoneNames) {
  auto first = [](const std::string& n) {
    const auto c = mirroredBoneNames(n);
    return c.empty() ? std::string() : c.front();
  };
  EXPECT_EQ(first("LeftUpLeg"), "RightUpLeg");
  EXPECT_EQ(first("RightHand"), "LeftHand");
  EXPECT_EQ(first("mixamorig:LeftForeArm"), "mixamorig:RightForeArm");
  EXPECT_EQ(first("upper_arm_left"), "upper_arm_right");
  EXPECT_EQ(first("upperarm.L"), "upperarm.R");
  EXPECT_EQ(first("thigh_r"), "thigh_l");
  EXPECT_EQ(first("L_clavicle"), "R_clavicle");
  EXPECT_EQ(first("Bip01 L Thigh"), "Bip01 R Thigh");
  EXPECT_EQ(first("LHipJoint"), "RHipJoint");
  EXPECT_EQ(first("lShldr"), "rShldr");
  EXPECT_EQ(first("ArmL"), "ArmR");
  EXPECT_EQ(first("Spine"), "");
  EXPECT_EQ(first("Hips"), "");
  EXPECT_EQ(first("Root"), "");

  const std::vector<std::string> cmu = {"Hips", "LHipJoint", "LeftUpLeg", "RHipJoint", "RightUpLeg", "Neck", "lShldr", "rShldr"};
  EXPECT_EQ(mirrorBoneMap(cmu), (std::vector<int32_t>{0, 3, 4, 1, 2, 5, 7, 6}));
  // A side with no partner maps to itself.
  EXPECT_EQ(mirrorBoneMap({"LeftArm", "Spine"}), (std::vector<int32_t>{0, 1}));
}

TEST(WeightPaint, MirrorMapOfTheHumanoid) {
  // The example character is symmetric: almost every vertex finds its twin.
  HumanoidOptions o;
  o.gridSpacing = 0.05;
  const TriMesh m = makeHumanoidSurface(o);
  const PaintSurface surface(m);
  const std::vector<int32_t> map = mirrorVertexMap(surface, 1e-4);
  size_t found = 0;
  for (size_t v = 0; v < map.size(); ++v)
    if (map[v] >= 0) {
      ++found;
      EXPECT_EQ(map[size_t(map[v])], int32_t(v));
    }
  EXPECT_GT(found, map.size() * 95 / 100);
  const Skeleton sk = makeHumanoidSkeleton();
  std::vector<std::string> names;
  for (const Joint& j : sk.joints) names.push_back(j.name);
  const std::vector<int32_t> bones = mirrorBoneMap(names);
  for (size_t j = 0; j < names.size(); ++j) {
    const Vec3 p = sk.restPositions()[j], q = sk.restPositions()[size_t(bones[j])];
    EXPECT_NEAR(p.x(), -q.x(), 1e-12) << names[j];
  }
}

}  // namespace
}  // namespace sinew
