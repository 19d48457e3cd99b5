// Pills (tapered capsules), VIPER's collision proxies (Angles et al. 2019,
// Section 7.2): the union of the spheres interpolated linearly between two
// end spheres. A pill is convex, so the signed distance of a point to it is
// convex along any line, and the deepest pill-pill contact is found by a
// one-dimensional search (eq. 30).
#pragma once

#include "core/Types.h"

namespace sinew::viper {

struct Pill {
  Vec3 c1 = Vec3::Zero(), c2 = Vec3::UnitX();
  double r1 = 0.1, r2 = 0.1;
  Vec3 center(double t) const { return (1 - t) * c1 + t * c2; }
  double radius(double t) const { return (1 - t) * r1 + t * r2; }
};

// The parameter t in [0, 1] of the pill's sphere nearest to x (the closed
// form of the paper's Appendix D, derived for the convex function
// t -> |x - c(t)| - r(t)), and the signed distance from x to the pill
// (negative inside).
double nearestSphere(const Pill& p, const Vec3& x);
double signedDistance(const Pill& p, const Vec3& x);

struct PillContact {
  double alpha = 0, beta = 0;      // the spheres of a and b (eq. 29)
  double distance = 0;             // |c_a(alpha) - c_b(beta)| - r_a(alpha) - r_b(beta): < 0 penetrating
  Vec3 normal = Vec3::UnitX();     // from a's sphere towards b's
};

// Eq. 30: alpha minimising the signed distance from a's sphere to b, by
// dichotomous search with `iterations` steps (the paper uses 10), beta the
// sphere of b nearest to c_a(alpha). Eq. 31's constraint is distance >= 0.
PillContact pillContact(const Pill& a, const Pill& b, int iterations = 10);

}  // namespace sinew::viper
