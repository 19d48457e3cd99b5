#include "PillView.h"

#include <algorithm>
#include <cmath>

namespace sinew::render {

namespace {

constexpr double kPi = 3.14159265358979323846;

// An orthonormal, right-handed frame (u, v, w) with u x v = w.
void frameAround(const Vec3& w, Vec3* u, Vec3* v) {
  const Vec3 helper = std::abs(w.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY();
  *u = helper.cross(w).normalized();
  *v = w.cross(*u);
}

bool usable(const Vec3& c, double r) { return c.allFinite() && std::isfinite(r) && r > 0; }

}  // namespace

Vec3f scaleColor(double s) {
  const Vec3f white(0.95f, 0.95f, 0.95f), blue(0.15f, 0.35f, 0.95f), red(0.95f, 0.15f, 0.12f);
  if (!std::isfinite(s)) return white;
  const float t = float(std::clamp((s - 1.0) / kScaleColorRange, -1.0, 1.0));
  return t < 0 ? Vec3f(white + (-t) * (blue - white)) : Vec3f(white + t * (red - white));
}

PillGeometry pillGeometry(const PillSet& pills, int sides) {
  PillGeometry g;
  sides = std::max(sides, 6);
  const int rings = sides / 2;
  const size_t n = pills.centres.size();
  auto scaleOf = [&](size_t i) { return i < pills.scales.size() ? pills.scales[i] : 1.0; };
  auto radiusOf = [&](size_t i) { return i < pills.radii.size() ? pills.radii[i] : 0.0; };
  // Spheres: one pole vertex at each end and rings - 1 rings of `sides`
  // vertices between; triangles wound counter-clockwise seen from outside.
  for (size_t i = 0; i < n; ++i) {
    const Vec3& c = pills.centres[i];
    const double r = radiusOf(i);
    if (!usable(c, r)) continue;
    const Vec3f color = scaleColor(scaleOf(i));
    Vec3 u, v;
    const Vec3 w = Vec3::UnitY();
    frameAround(w, &u, &v);
    const auto base = int32_t(g.mesh.positions.size());
    g.mesh.positions.push_back(c + r * w);  // pole at theta = 0
    for (int j = 1; j < rings; ++j) {
      const double theta = kPi * j / rings;
      for (int k = 0; k < sides; ++k) {
        const double phi = 2 * kPi * k / sides;
        const Vec3 radial = std::cos(phi) * u + std::sin(phi) * v;
        g.mesh.positions.push_back(c + r * (std::sin(theta) * radial + std::cos(theta) * w));
      }
    }
    g.mesh.positions.push_back(c - r * w);  // pole at theta = pi
    const int32_t last = int32_t(g.mesh.positions.size()) - 1;
    auto at = [&](int j, int k) -> int32_t {
      if (j == 0) return base;
      if (j == rings) return last;
      return base + 1 + (j - 1) * sides + (k % sides);
    };
    for (int j = 0; j < rings; ++j)
      for (int k = 0; k < sides; ++k) {
        // Quad (j, k) (j+1, k) (j+1, k+1) (j, k+1), less the halves that collapse at a pole.
        if (j + 1 < rings) g.mesh.triangles.push_back({at(j, k), at(j + 1, k), at(j + 1, k + 1)});
        if (j > 0) g.mesh.triangles.push_back({at(j, k), at(j + 1, k + 1), at(j, k + 1)});
      }
    g.colors.resize(g.mesh.positions.size(), color);
  }
  // Cones: tangent to both spheres, touching sphere a at a + r_a n and b at
  // b + r_b n, with n = sin(phi) d + cos(phi) (radial), sin(phi) = (r_a - r_b) / L.
  for (const auto& [a, b] : pills.segments) {
    if (a < 0 || b < 0 || size_t(a) >= n || size_t(b) >= n) continue;
    const Vec3 &ca = pills.centres[size_t(a)], &cb = pills.centres[size_t(b)];
    const double ra = radiusOf(size_t(a)), rb = radiusOf(size_t(b));
    if (!usable(ca, ra) || !usable(cb, rb)) continue;
    const double length = (cb - ca).norm();
    if (!(length > std::abs(ra - rb))) continue;  // one sphere holds the other: the sphere is the pill
    const Vec3 d = (cb - ca) / length;
    const double sinPhi = (ra - rb) / length, cosPhi = std::sqrt(std::max(0.0, 1 - sinPhi * sinPhi));
    Vec3 u, v;
    frameAround(d, &u, &v);
    const auto base = int32_t(g.mesh.positions.size());
    const Vec3f colorA = scaleColor(scaleOf(size_t(a))), colorB = scaleColor(scaleOf(size_t(b)));
    for (int k = 0; k < sides; ++k) {
      const double t = 2 * kPi * k / sides;
      const Vec3 normal = sinPhi * d + cosPhi * (std::cos(t) * u + std::sin(t) * v);
      g.mesh.positions.push_back(ca + ra * normal);
      g.mesh.positions.push_back(cb + rb * normal);
      g.colors.push_back(colorA);
      g.colors.push_back(colorB);
    }
    for (int k = 0; k < sides; ++k) {
      const int32_t a0 = base + 2 * k, b0 = a0 + 1, a1 = base + 2 * ((k + 1) % sides), b1 = a1 + 1;
      g.mesh.triangles.push_back({a0, a1, b0});
      g.mesh.triangles.push_back({a1, b1, b0});
    }
  }
  return g;
}

}  // namespace sinew::render
