#include "control/Flight.h"

#include <algorithm>
#include <limits>

namespace sinew::control {

FootClearance::FootClearance(std::shared_ptr<const liu2013::Liu2013Model> model, const std::vector<int32_t>& feet,
                             double groundHeight)
    : model_(std::move(model)), ground_(groundHeight) {
  const liu2013::Liu2013Model& m = *model_;
  const dyn::ArticulatedModel& skel = m.skeleton;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const Transform& t : m.linkRest) lo = std::min(lo, t.translation.y()), hi = std::max(hi, t.translation.y());
  const double low = lo + 0.2 * (hi - lo);
  for (int32_t leaf : feet) {
    std::vector<char> inFoot(skel.links.size(), 0);
    for (int32_t l = leaf; l > 0; l = skel.links[size_t(l)].parent) {
      if (l != leaf && m.linkRest[size_t(l)].translation.y() > low) break;
      inFoot[size_t(l)] = 1;
    }
    std::vector<char> taken(m.restNodes.size(), 0);
    std::vector<FootNode> nodes;
    for (size_t t = 0; t < m.tets.size(); ++t) {
      const int32_t link = m.tetRegion[t];
      if (link < 0 || !inFoot[size_t(link)]) continue;
      const Transform toLocal = m.linkRest[size_t(link)].inverse();
      for (int c = 0; c < 4; ++c) {
        const int32_t n = m.tets[t][c];
        if (taken[size_t(n)]) continue;
        taken[size_t(n)] = 1;
        nodes.push_back({n, link, toLocal.apply(m.restNodes[size_t(n)])});
      }
    }
    nodes_.push_back(std::move(nodes));
  }
}

std::vector<double> FootClearance::simulated(const liu2013::Liu2013State& state) const {
  std::vector<double> out;
  for (const auto& foot : nodes_) {
    double low = std::numeric_limits<double>::infinity();
    for (const FootNode& f : foot) low = std::min(low, state.x[size_t(f.node)].y());
    out.push_back(low - ground_);
  }
  return out;
}

std::vector<double> FootClearance::posed(const dyn::ArticulatedState& pose) const {
  const dyn::LinkKinematics k = dyn::forwardKinematics(model_->skeleton, pose);
  std::vector<double> out;
  for (const auto& foot : nodes_) {
    double low = std::numeric_limits<double>::infinity();
    for (const FootNode& f : foot) low = std::min(low, k.pose[size_t(f.link)].apply(f.local).y());
    out.push_back(low - ground_);
  }
  return out;
}

void FlightTracker::add(double t, const std::vector<double>& clearance, double comHeight) {
  const bool airborne =
      !clearance.empty() && std::all_of(clearance.begin(), clearance.end(), [](double c) { return c > kFlightClearance; });
  if (first_) {
    first_ = false;
    startCom_ = comHeight;
  } else if (airborne && airborne_) {
    stats_.seconds += t - lastTime_;
  }
  if (airborne && !airborne_ && stats_.takeOff < 0) stats_.takeOff = t;
  if (!airborne && airborne_ && stats_.landing < 0) stats_.landing = t;
  stats_.peakComRise = std::max(stats_.peakComRise, comHeight - startCom_);
  airborne_ = airborne;
  lastTime_ = t;
}

}  // namespace sinew::control
