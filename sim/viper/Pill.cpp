#include "viper/Pill.h"

#include <algorithm>
#include <cmath>

namespace sinew::viper {

double nearestSphere(const Pill& p, const Vec3& x) {
  const Vec3 axis = p.c2 - p.c1;
  const double l = axis.norm();
  auto gap = [&](double t) { return (x - p.center(t)).norm() - p.radius(t); };
  const double slope = l > 0 ? (p.r1 - p.r2) / l : 0;  // sin of the cone's half angle
  if (!(l > 0) || std::abs(slope) >= 1 - 1e-12)
    return gap(0) <= gap(1) ? 0.0 : 1.0;  // one end sphere holds the other
  const Vec3 u = axis / l;
  const double along = (x - p.c1).dot(u);
  const double across = (x - p.c1 - along * u).norm();
  // d/dt (|x - c(t)| - r(t)) = 0  <=>  along - t l = across tan(theta), sin(theta) = (r1 - r2) / l.
  const double tangent = slope / std::sqrt(1 - slope * slope);
  return std::clamp((along - across * tangent) / l, 0.0, 1.0);
}

double signedDistance(const Pill& p, const Vec3& x) {
  const double t = nearestSphere(p, x);
  return (x - p.center(t)).norm() - p.radius(t);
}

PillContact pillContact(const Pill& a, const Pill& b, int iterations) {
  auto f = [&](double alpha) { return signedDistance(b, a.center(alpha)) - a.radius(alpha); };
  double lo = 0, hi = 1;
  // Dichotomous search: two probes a little apart around the middle; the
  // convex f keeps its minimum on the side of the smaller value.
  for (int it = 0; it < iterations; ++it) {
    const double mid = 0.5 * (lo + hi), eps = 1e-3 * (hi - lo);
    if (f(mid - eps) <= f(mid + eps)) hi = mid + eps;
    else lo = mid - eps;
  }
  PillContact c;
  c.alpha = 0.5 * (lo + hi);
  // The ends are candidates too (the search narrows towards them only
  // geometrically).
  for (double end : {0.0, 1.0})
    if (f(end) < f(c.alpha)) c.alpha = end;
  const Vec3 ca = a.center(c.alpha);
  c.beta = nearestSphere(b, ca);
  const Vec3 d = b.center(c.beta) - ca;
  const double length = d.norm();
  c.normal = length > 1e-15 ? Vec3(d / length) : Vec3::UnitX();
  c.distance = length - a.radius(c.alpha) - b.radius(c.beta);
  return c;
}

}  // namespace sinew::viper
