#include "control/Cost.h"

#include <algorithm>
#include <cmath>

namespace sinew::control {
namespace {

// The reference's up, carried by the root's orientation error.
Vec3 upOfTheError(const BodyFeatures& sim, const BodyFeatures& ref) {
  return sim.rootRotation * ref.rootRotation.conjugate() * Vec3::UnitY();
}

}  // namespace

CostTerms trackingCost(const BodyFeatures& sim, const BodyFeatures& ref, const CostWeights& w) {
  CostTerms c;
  const size_t n = std::min(sim.jointRotations.size(), ref.jointRotations.size());
  for (size_t l = 1; l < n; ++l)
    c.pose += rotationVector(sim.jointRotations[l].conjugate() * ref.jointRotations[l]).squaredNorm();
  if (n > 1) c.pose /= double(n - 1);
  c.root = rotationVector(sim.rootRotation.conjugate() * ref.rootRotation).squaredNorm();
  c.position = (sim.rootPosition - ref.rootPosition).squaredNorm();
  const size_t e = std::min(sim.endEffectors.size(), ref.endEffectors.size());
  for (size_t i = 0; i < e; ++i)
    c.endEffector += ((sim.endEffectors[i] - sim.rootPosition) - (ref.endEffectors[i] - ref.rootPosition)).squaredNorm();
  if (e > 0) c.endEffector /= double(e);
  Vec3 sb = sim.centerOfMass - sim.support, rb = ref.centerOfMass - ref.support;
  sb.y() = rb.y() = 0;
  c.balance = (sb - rb).squaredNorm();
  c.velocity = (sim.centerOfMassVelocity - ref.centerOfMassVelocity).squaredNorm();
  c.sank = sim.rootPosition.y() < 0.4 * ref.rootPosition.y();
  c.tipped = upOfTheError(sim, ref).y() < std::cos(60 * M_PI / 180);
  c.fallen = c.sank || c.tipped;
  c.total = weightedTotal(c, w);
  if (c.total == 1e30) c.fallen = true;
  return c;
}

double weightedTotal(const CostTerms& c, const CostWeights& w) {
  const double total = w.pose * c.pose + w.root * c.root + w.position * c.position + w.endEffector * c.endEffector +
                       w.balance * c.balance + w.velocity * c.velocity + (c.fallen ? kFallenCost : 0.0);
  return std::isfinite(total) ? total : 1e30;
}

std::string fallReason(const CostTerms& c) {
  if (c.sank && c.tipped) return "its root sank below 40% of the reference's height and tilted past 60 degrees";
  if (c.sank) return "its root sank below 40% of the reference's height";
  if (c.tipped) return "it tilted past 60 degrees from the reference's orientation";
  if (c.fallen) return "the simulation became unstable (the servos or the contact too stiff for the time step)";
  return {};
}

double tiltDegrees(const BodyFeatures& sim, const BodyFeatures& ref) {
  return std::acos(std::clamp(upOfTheError(sim, ref).y(), -1.0, 1.0)) * 180 / M_PI;
}

}  // namespace sinew::control
