// Jumps, measured: how high each foot's sole is above the ground, when the
// character is in flight (every foot above a clearance), and how high its
// centre of mass rises. The simulated character's soles are its flesh: the
// lowest node of the tets whose dominant link is a foot's. The reference has
// no flesh, so the same nodes are carried rigidly by its links. Used by
// `sinew-cli simulate --controller` to report a jump against its reference.
#pragma once

#include "dynamics/Articulated.h"
#include "liu2013/Liu2013.h"

#include <memory>
#include <vector>

namespace sinew::control {

// A foot this high above the ground (m) is off it.
inline constexpr double kFlightClearance = 0.05;

class FootClearance {
 public:
  // `feet`: the feet's leaf links (ReferenceMotion::feet()); each foot is its
  // leaf and the ancestors in the lowest fifth of the skeleton at rest.
  FootClearance(std::shared_ptr<const liu2013::Liu2013Model> model, const std::vector<int32_t>& feet,
                double groundHeight);
  size_t feet() const { return nodes_.size(); }
  // Per foot: its lowest flesh node's height above the ground.
  std::vector<double> simulated(const liu2013::Liu2013State& state) const;
  // Per foot: the same nodes, moved rigidly with their links, in a pose of
  // the skeleton (a reference state).
  std::vector<double> posed(const dyn::ArticulatedState& pose) const;

 private:
  struct FootNode {
    int32_t node = 0, link = 0;
    Vec3 local = Vec3::Zero();  // rest position in the link's rest frame
  };
  std::shared_ptr<const liu2013::Liu2013Model> model_;
  std::vector<std::vector<FootNode>> nodes_;  // per foot
  double ground_ = 0;
};

// Flight over a run, frame by frame: the time every foot was above the
// clearance, the first take-off and landing, and the centre of mass's
// highest rise above its height at the first frame.
struct FlightStats {
  double seconds = 0;        // summed over the flights
  double takeOff = -1;       // s: the first flight's start (-1: never airborne)
  double landing = -1;       // s: its end (-1: still airborne at the last frame, or never)
  double peakComRise = 0;    // m
};

class FlightTracker {
 public:
  // One frame at time t: the feet's clearances and the centre of mass's height.
  void add(double t, const std::vector<double>& clearance, double comHeight);
  const FlightStats& stats() const { return stats_; }

 private:
  FlightStats stats_;
  bool first_ = true, airborne_ = false;
  double lastTime_ = 0, startCom_ = 0;
};

}  // namespace sinew::control
