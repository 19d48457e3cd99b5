// Muscles to rods (Angles et al. 2019, Section 8.1) on a generated spindle:
// the harmonic field rises from the painted sources to the sinks, the rods
// run from one end to the other with their spheres inside the muscle, the
// combing is a minimum-length matching, the result is deterministic, and
// every kind of bad input is refused with a message before any work.
#include "viper/Viperize.h"

#include "core/Error.h"
#include "volume/Closest.h"
#include "volume/WindingNumber.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <atomic>
#include <numeric>

namespace sinew::viper {
namespace {

const Vec3 kA(0, 0, 0), kB(0.3, 0, 0);

struct Spindle {
  TriMesh mesh = spindleMesh(kA, kB, 0.04, 0.012, 20, 14);
  std::vector<MuscleMark> marks = marksNearEnds(mesh, kA, kB, 0.02);
};

double distanceToSurface(const TriMesh& s, const Vec3& p) {
  double best = 1e300;
  for (const Tri& t : s.triangles)
    best = std::min(best, (closestPointOnTriangle(p, s.positions[size_t(t[0])], s.positions[size_t(t[1])],
                                                  s.positions[size_t(t[2])]) - p).norm());
  return best;
}

TEST(Viperize, HarmonicFieldRisesFromSourcesToSinks) {
  const Spindle sp;
  ViperizeOptions o;
  o.rods = 4;
  o.slices = 6;
  const ViperizeResult r = viperize(sp.mesh, sp.marks, o, "biceps");
  ASSERT_EQ(r.field.size(), r.mesh.nodeCount());
  // Bounded by its boundary values (maximum principle) ...
  for (double u : r.field) {
    EXPECT_GE(u, -1e-9);
    EXPECT_LE(u, 1 + 1e-9);
  }
  // ... and increasing along the muscle: the mean over slabs of x rises.
  const int bins = 10;
  std::vector<double> sum(bins, 0.0);
  std::vector<int> count(bins, 0);
  for (size_t i = 0; i < r.mesh.nodeCount(); ++i) {
    const int b = std::clamp(int(r.mesh.nodes[i].x() / kB.x() * bins), 0, bins - 1);
    sum[size_t(b)] += r.field[i];
    ++count[size_t(b)];
  }
  double previous = -1;
  for (int b = 0; b < bins; ++b) {
    ASSERT_GT(count[size_t(b)], 0);
    const double mean = sum[size_t(b)] / count[size_t(b)];
    EXPECT_GT(mean, previous) << "slab " << b;
    previous = mean;
  }
  // Along a free interior node's edges the field has a lower and a higher
  // neighbour (no interior local extremum) for almost all nodes.
  std::vector<double> lo(r.mesh.nodeCount(), 2), hi(r.mesh.nodeCount(), -1);
  for (const Tet& t : r.mesh.tets)
    for (int32_t a : t)
      for (int32_t b : t)
        if (a != b) lo[size_t(a)] = std::min(lo[size_t(a)], r.field[size_t(b)]), hi[size_t(a)] = std::max(hi[size_t(a)], r.field[size_t(b)]);
  int extrema = 0, interior = 0;
  for (size_t i = 0; i < r.mesh.nodeCount(); ++i) {
    if (r.field[i] <= 0 || r.field[i] >= 1) continue;
    ++interior;
    if (r.field[i] < lo[i] - 1e-12 || r.field[i] > hi[i] + 1e-12) ++extrema;
  }
  std::printf("field: %zu nodes, %d free, %d local extrema\n", r.mesh.nodeCount(), interior, extrema);
  EXPECT_LE(extrema, interior / 100);
}

TEST(Viperize, RodsRunFromSourceToSinkInsideTheMuscle) {
  const Spindle sp;
  ViperizeOptions o;
  o.rods = 5;
  o.slices = 8;
  const ViperizeResult r = viperize(sp.mesh, sp.marks, o, "biceps");
  ASSERT_EQ(r.rods.size(), 5u);
  ASSERT_EQ(r.slices.size(), 8u);
  const WindingNumber inside(sp.mesh);
  int spheres = 0, contained = 0;
  for (const RodInput& rod : r.rods) {
    ASSERT_EQ(rod.nodes.size(), 8u);
    // Node m lies on slice m: the rod advances along the muscle, end to end.
    for (size_t m = 1; m < rod.nodes.size(); ++m) EXPECT_GT(rod.nodes[m].x(), rod.nodes[m - 1].x()) << rod.name;
    EXPECT_LT(rod.nodes.front().x(), 0.06) << rod.name;
    EXPECT_GT(rod.nodes.back().x(), 0.24) << rod.name;
    for (size_t m = 0; m < rod.nodes.size(); ++m) {
      EXPECT_GT(rod.radii[m], 0);
      ++spheres;
      if (inside.exact(rod.nodes[m]) > 0.5 && distanceToSurface(sp.mesh, rod.nodes[m]) >= rod.radii[m]) ++contained;
    }
  }
  std::printf("%d of %d node spheres inside; rods %.3g m^3 of muscle %.3g m^3; %.2f s\n", contained, spheres,
              r.rodVolume, r.muscleVolume, r.seconds);
  EXPECT_GE(contained, int(std::ceil(0.95 * spheres)));
  EXPECT_NEAR(r.insideFraction, double(contained) / spheres, 1e-12);
  // The rods are spread over the cross-section: in the belly slice no two
  // nodes closer than one radius.
  const size_t belly = 4;
  for (size_t i = 0; i < r.rods.size(); ++i)
    for (size_t j = i + 1; j < r.rods.size(); ++j)
      EXPECT_GT((r.rods[i].nodes[belly] - r.rods[j].nodes[belly]).norm(), r.rods[i].radii[belly]);
  // Their mass is the muscle's.
  double mass = 0;
  for (const RodInput& rod : r.rods)
    for (size_t m = 0; m + 1 < rod.nodes.size(); ++m) {
      const double rm = 0.5 * (rod.radii[m] + rod.radii[m + 1]);
      mass += rod.material.density * 3.14159265358979323846 * rm * rm * (rod.nodes[m + 1] - rod.nodes[m]).norm();
    }
  EXPECT_NEAR(mass, o.material.density * r.muscleVolume, 1e-9 * mass);
}

TEST(Viperize, CombingGivesTheShortestMatchingAndIsDeterministic) {
  const Spindle sp;
  ViperizeOptions o;
  o.rods = 4;
  o.slices = 5;
  const ViperizeResult r = viperize(sp.mesh, sp.marks, o, "m");
  // Between each pair of adjacent slices, no other pairing of the nodes is shorter.
  for (size_t m = 1; m < 5; ++m) {
    std::vector<int> perm(4);
    std::iota(perm.begin(), perm.end(), 0);
    double mine = 0;
    for (size_t k = 0; k < 4; ++k) mine += (r.rods[k].nodes[m] - r.rods[k].nodes[m - 1]).norm();
    do {
      double other = 0;
      for (size_t k = 0; k < 4; ++k) other += (r.rods[size_t(perm[k])].nodes[m] - r.rods[k].nodes[m - 1]).norm();
      EXPECT_GE(other, mine - 1e-12) << "slice " << m;
    } while (std::next_permutation(perm.begin(), perm.end()));
  }
  const ViperizeResult again = viperize(sp.mesh, sp.marks, o, "m");
  for (size_t k = 0; k < r.rods.size(); ++k) {
    EXPECT_EQ(r.rods[k].nodes, again.rods[k].nodes);
    EXPECT_EQ(r.rods[k].radii, again.rods[k].radii);
  }
}

TEST(Viperize, BadInputIsNamedBeforeAnyWork) {
  const Spindle sp;
  auto message = [&](const TriMesh& mesh, const std::vector<MuscleMark>& marks, ViperizeOptions o) -> std::string {
    try {
      checkViperizeInput(mesh, marks, o, "biceps");
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  const ViperizeOptions ok;
  EXPECT_EQ(message(sp.mesh, sp.marks, ok), "");
  std::vector<MuscleMark> onlySources = sp.marks, onlySinks = sp.marks, none(sp.marks.size(), MuscleMark::None);
  for (MuscleMark& m : onlySources) m = m == MuscleMark::Sink ? MuscleMark::None : m;
  for (MuscleMark& m : onlySinks) m = m == MuscleMark::Source ? MuscleMark::None : m;
  EXPECT_NE(message(sp.mesh, onlySources, ok).find("only sources are painted"), std::string::npos);
  EXPECT_NE(message(sp.mesh, onlySinks, ok).find("only sinks are painted"), std::string::npos);
  EXPECT_NE(message(sp.mesh, none, ok).find("nothing is painted"), std::string::npos);
  std::vector<MuscleMark> touching = sp.marks;
  const Tri& t = sp.mesh.triangles[200];
  touching[size_t(t[0])] = MuscleMark::Source;
  touching[size_t(t[1])] = MuscleMark::Sink;
  EXPECT_NE(message(sp.mesh, touching, ok).find("sources touch sinks"), std::string::npos);
  TriMesh open = sp.mesh;
  open.triangles.pop_back();
  EXPECT_NE(message(open, sp.marks, ok).find("not closed"), std::string::npos);
  ViperizeOptions bad = ok;
  bad.rods = 0;
  EXPECT_NE(message(sp.mesh, sp.marks, bad).find("rods K = 0 is out of range"), std::string::npos);
  bad = ok;
  bad.slices = 1;
  EXPECT_NE(message(sp.mesh, sp.marks, bad).find("slices M = 1 is out of range"), std::string::npos);
  EXPECT_NE(message(sp.mesh, {MuscleMark::Source}, ok).find("1 painted marks for"), std::string::npos);
  EXPECT_THROW(viperize(open, sp.marks, ok, "biceps"), InputError);
}

TEST(Viperize, ConversionReportsProgressAndCanBeCancelled) {
  const Spindle sp;
  std::vector<std::string> stages;
  double last = -1;
  bool monotone = true;
  const Progress progress([&](double f, std::string_view stage) {
    if (f < last - 1e-12) monotone = false;
    last = f;
    if (stages.empty() || stages.back() != stage) stages.emplace_back(stage);
  });
  ViperizeOptions o;
  o.rods = 3;
  o.slices = 4;
  viperize(sp.mesh, sp.marks, o, "m", progress);
  EXPECT_TRUE(monotone);
  EXPECT_NEAR(last, 1.0, 1e-12);
  for (const char* s : {"tetrahedralize", "harmonic field", "slices", "combing"})
    EXPECT_NE(std::find(stages.begin(), stages.end(), s), stages.end()) << s;
  std::atomic<bool> cancel{true};
  EXPECT_THROW(viperize(sp.mesh, sp.marks, o, "m", Progress([](double, std::string_view) {}, &cancel)), Cancelled);
}

}  // namespace
}  // namespace sinew::viper
