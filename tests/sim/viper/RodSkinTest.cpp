// Skinning a surface to rods (Section 7.4): weights are a partition of
// unity concentrated on the nearest pill; moving, rotating or uniformly
// scaling every rod moves the surface by exactly that similarity; bending a
// rod bends the surface smoothly with it.
#include "viper/RodSkin.h"

#include "core/Error.h"
#include "viper/Viperize.h"

#include <gtest/gtest.h>

namespace sinew::viper {
namespace {

struct SkinScene {
  Vec3 a{0, 0, 0}, b{0.4, 0, 0};
  TriMesh surface = spindleMesh(a, b, 0.05, 0.03, 24, 12);
  std::shared_ptr<const RodModel> model;
  SkinScene() {
    RodInput rod;
    rod.name = "core";
    for (int i = 0; i <= 8; ++i) {
      rod.nodes.push_back(a + (b - a) * i / 8.0);
      rod.radii.push_back(0.03);
    }
    model = buildRodModel({rod});
  }
};

TEST(RodSkin, WeightsArePartitionsOfUnityNearTheClosestPill) {
  const SkinScene s;
  const RodSkin skin = buildRodSkin(s.surface, *s.model);
  ASSERT_EQ(skin.vertexCount(), s.surface.vertexCount());
  for (size_t v = 0; v < skin.vertexCount(); ++v) {
    double sum = 0, best = 0;
    int32_t bestSegment = -1;
    for (int32_t k = skin.offsets[v]; k < skin.offsets[v + 1]; ++k) {
      EXPECT_GT(skin.weight[size_t(k)], 0);
      sum += skin.weight[size_t(k)];
      if (skin.weight[size_t(k)] > best) best = skin.weight[size_t(k)], bestSegment = skin.segment[size_t(k)];
    }
    EXPECT_NEAR(sum, 1.0, 1e-12);
    EXPECT_LE(skin.offsets[v + 1] - skin.offsets[v], 4);
    // The heaviest pill is the one over the vertex (segments are 5 cm long), or its neighbour.
    const int nearest = std::clamp(int(s.surface.positions[v].x() / 0.05), 0, 7);
    EXPECT_LE(std::abs(bestSegment - nearest), 1) << "vertex " << v;
  }
}

TEST(RodSkin, SimilaritiesOfTheRodsMoveTheSurfaceExactly) {
  const SkinScene s;
  const RodSkin skin = buildRodSkin(s.surface, *s.model);
  RodState st = restState(*s.model);
  // At rest the surface is where it was.
  std::vector<Vec3> x = skinnedPositions(skin, *s.model, st);
  for (size_t v = 0; v < x.size(); ++v) EXPECT_LT((x[v] - s.surface.positions[v]).norm(), 1e-12);
  // Every rod scaled by 1.3 about a point, rotated and moved: so is the surface.
  const Quat r(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()));
  const Vec3 t(0.2, -0.1, 0.5);
  const double k = 1.3;
  for (size_t i = 0; i < st.c.size(); ++i) st.c[i] = k * (r * st.c[i]) + t, st.s[i] = k;
  for (Quat& q : st.q) q = r * q;
  x = skinnedPositions(skin, *s.model, st);
  for (size_t v = 0; v < x.size(); ++v) EXPECT_LT((x[v] - (k * (r * s.surface.positions[v]) + t)).norm(), 1e-12);
}

TEST(RodSkin, BadInputIsNamed) {
  const SkinScene s;
  EXPECT_THROW(buildRodSkin(TriMesh{}, *s.model), InputError);
  EXPECT_THROW(buildRodSkin(s.surface, *s.model, {99}), InputError);
}

}  // namespace
}  // namespace sinew::viper
