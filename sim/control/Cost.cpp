#include "control/Cost.h"

#include <cmath>

namespace sinew::control {

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
  const Vec3 up = sim.rootRotation * ref.rootRotation.conjugate() * Vec3::UnitY();  // the reference's up, carried by the error
  c.fallen = sim.rootPosition.y() < 0.4 * ref.rootPosition.y() || up.y() < std::cos(60 * M_PI / 180);
  c.total = w.pose * c.pose + w.root * c.root + w.position * c.position + w.endEffector * c.endEffector +
            w.balance * c.balance + w.velocity * c.velocity + (c.fallen ? kFallenCost : 0.0);
  if (!std::isfinite(c.total)) c.total = 1e30, c.fallen = true;
  return c;
}

}  // namespace sinew::control
