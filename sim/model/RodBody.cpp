#include "model/RodBody.h"

#include "core/Error.h"

#include <cmath>

namespace sinew {

size_t RodBodyObject::nodeCount() const {
  size_t n = 0;
  for (const RodBodyRod& r : rods) n += r.nodes.size();
  return n;
}

size_t RodBodyObject::segmentCount() const {
  size_t n = 0;
  for (const RodBodyRod& r : rods) n += r.nodes.empty() ? 0 : r.nodes.size() - 1;
  return n;
}

void RodBodyObject::validate(const std::string& context, int64_t surfaceVertices) const {
  const std::string who = "rod body '" + name + "'";
  auto fail = [&](const std::string& what) { throw InputError(context, who + ": " + what); };
  if (surfaceVertices >= 0 && !paint.empty() && int64_t(paint.size()) != surfaceVertices)
    fail(std::to_string(paint.size()) + " painted marks for a surface of " + std::to_string(surfaceVertices) + " vertices");
  for (MusclePaint p : paint)
    if (uint8_t(p) > 2) fail("unknown paint value " + std::to_string(int(p)));
  if (!(activation >= 0 && activation <= 1)) fail("activation must lie in [0, 1]");
  const RodMaterial& m = material;
  for (double v : {m.density, m.stretch, m.shear, m.radial, m.bend, m.scaleBend, m.volume})
    if (!(v > 0) || !std::isfinite(v)) fail("material values must be positive and finite");
  if (!(m.maxContraction >= 0 && m.maxContraction < 1)) fail("maximum contraction must lie in [0, 1)");
  for (size_t k = 0; k < rods.size(); ++k) {
    const RodBodyRod& r = rods[k];
    const std::string rod = "rod " + std::to_string(k);
    if (r.nodes.size() < 2) fail(rod + " has fewer than 2 nodes");
    if (r.radii.size() != r.nodes.size()) fail(rod + ": " + std::to_string(r.radii.size()) + " radii for " + std::to_string(r.nodes.size()) + " nodes");
    if (!r.contractile.empty() && r.contractile.size() + 1 != r.nodes.size()) fail(rod + ": contractile weights do not match its segments");
    for (size_t i = 0; i < r.nodes.size(); ++i) {
      if (!r.nodes[i].allFinite()) fail(rod + ", node " + std::to_string(i) + " is not finite");
      if (!(r.radii[i] > 0) || !std::isfinite(r.radii[i])) fail(rod + ", node " + std::to_string(i) + " has a radius that is not positive");
    }
    for (double c : r.contractile)
      if (!(c >= 0 && c <= 1)) fail(rod + ": contractile weights must lie in [0, 1]");
  }
  auto exists = [&](int32_t rod, int32_t node) {
    return rod >= 0 && size_t(rod) < rods.size() && node >= 0 && size_t(node) < rods[size_t(rod)].nodes.size();
  };
  for (size_t b = 0; b < bundles.size(); ++b) {
    if (bundles[b].size() < 2) fail("bundle " + std::to_string(b) + " has fewer than 2 members");
    for (const auto& [rod, node] : bundles[b])
      if (!exists(rod, node)) fail("bundle " + std::to_string(b) + " names rod " + std::to_string(rod) + ", node " + std::to_string(node) + ", which does not exist");
  }
  for (const RodPin& p : pins)
    if (!exists(p.rod, p.node)) fail("a pin names rod " + std::to_string(p.rod) + ", node " + std::to_string(p.node) + ", which does not exist");
}

}  // namespace sinew
