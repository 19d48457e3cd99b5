#include "model/Controller.h"

#include "core/Error.h"

#include <algorithm>
#include <cmath>

namespace sinew {

bool ControlWindow::operator==(const ControlWindow& o) const {
  if (referenceStart != o.referenceStart || referenceDuration != o.referenceDuration || duration != o.duration ||
      cost != o.cost || targets.size() != o.targets.size())
    return false;
  for (size_t i = 0; i < targets.size(); ++i)
    if (targets[i].coeffs() != o.targets[i].coeffs()) return false;
  return true;
}

std::vector<ControlWindow> SearchBacktrackRecord::path(int32_t leaf) const {
  std::vector<ControlWindow> windows;
  for (int32_t n = leaf; n >= 0; n = parent[size_t(n)]) windows.push_back(nodes[size_t(n)]);
  std::reverse(windows.begin(), windows.end());
  return windows;
}

double ControllerObject::duration() const {
  double d = 0;
  for (const ControlWindow& w : windows) d += w.duration;
  return d;
}

void ControllerObject::validate(const std::string& context, size_t jointCount) const {
  const std::string what = "controller '" + name + "'";
  if (jointMap.size() != jointCount)
    throw InputError(context, what + ": its joint map does not match the skeleton (" + std::to_string(jointMap.size()) +
                                  " rows for " + std::to_string(jointCount) + " joints)");
  if (!(start >= 0 && end > start && std::isfinite(end))) throw InputError(context, what + ": bad segment");
  if (!(stanceAngle >= 0 && stanceAngle <= 1)) throw InputError(context, what + ": stanceAngle must lie in [0, 1] rad");
  if (!(step == 0 || (step >= kMinControllerStep && step <= kMaxControllerStep)))
    throw InputError(context, what + ": step must be 0 (the project's) or lie in [" + std::to_string(kMinControllerStep) +
                                  ", " + std::to_string(kMaxControllerStep) + "] s");
  reference.validate(context + ": " + what + " reference");
  if (!shove.empty() && !(std::isfinite(shove.time) && shove.velocity.allFinite() && shove.velocity.norm() <= kMaxShoveSpeed))
    throw InputError(context, what + ": its shove must have a finite time and a finite velocity of at most " +
                                  std::to_string(int(kMaxShoveSpeed)) + " m/s");
  auto checkWindow = [&](const ControlWindow& w, const std::string& where) {
    if (!(w.duration > 0 && w.referenceDuration > 0 && w.referenceStart >= 0) || !std::isfinite(w.duration) ||
        !std::isfinite(w.referenceDuration) || !std::isfinite(w.referenceStart))
      throw InputError(context, where + ": durations must be positive");
    if (w.targets.size() != jointCount) throw InputError(context, where + ": its targets do not match the skeleton");
    for (const Quat& q : w.targets)
      if (!q.coeffs().allFinite() || std::abs(q.norm() - 1) > 1e-6) throw InputError(context, where + ": a target is not a unit quaternion");
  };
  for (size_t k = 0; k < windows.size(); ++k) checkWindow(windows[k], what + " window " + std::to_string(k));
  for (size_t p = 0; p < searchKept.size(); ++p) {
    const std::string path = what + " kept search path " + std::to_string(p);
    if (searchKept[p].size() != windows.size()) throw InputError(context, path + ": its length differs from the controller's");
    for (size_t k = 0; k < searchKept[p].size(); ++k) checkWindow(searchKept[p][k], path + " window " + std::to_string(k));
  }
  if (!searchKept.empty() && !(searchKept.front() == windows))
    throw InputError(context, what + ": the first kept search path is not the controller's");
  if (!searchBacktrack.empty()) {
    const SearchBacktrackRecord& r = searchBacktrack;
    const std::string record = what + " search backtracking record";
    if (searchKept.empty()) throw InputError(context, record + ": there is no kept search to go with it");
    if (r.parent.size() != r.nodes.size()) throw InputError(context, record + ": a parent per node");
    for (size_t i = 0; i < r.nodes.size(); ++i) {
      // Parents come first, so that every path ends at the start.
      if (r.parent[i] < -1 || r.parent[i] >= int32_t(i))
        throw InputError(context, record + " node " + std::to_string(i) + ": its parent is not an earlier node");
      checkWindow(r.nodes[i], record + " node " + std::to_string(i));
    }
    const std::vector<SearchBacktrackRecord::KeptSet> furthest{r.furthest};
    for (const auto* sets : {&r.remembered, &r.pending, &furthest})
      for (const SearchBacktrackRecord::KeptSet& s : *sets) {
        if (s.window < 0) throw InputError(context, record + ": a kept set's window is negative");
        for (int32_t leaf : s.leaves)
          if (leaf < -1 || leaf >= int32_t(r.nodes.size()))
            throw InputError(context, record + ": kept set of window " + std::to_string(s.window) + " names node " +
                                          std::to_string(leaf) + ", which is not in the record");
      }
    for (int32_t a : r.attempts)
      if (a < 0) throw InputError(context, record + ": a window's attempts are negative");
    if (r.used < 0 || r.lastFrom < -1 || r.lastTo < 0)
      throw InputError(context, record + ": the backtracks used and the last backtrack must not be negative");
  }
  if (!feedback.empty()) {
    if (feedback.gains.size() != windows.size()) throw InputError(context, what + ": feedback has a gain matrix per window");
    if (!(feedback.period > 0 && feedback.period <= 1)) throw InputError(context, what + ": the feedback period must lie in (0, 1] s");
    for (int32_t j : feedback.joints)
      if (j <= 0 || size_t(j) >= jointCount) throw InputError(context, what + ": feedback joint " + std::to_string(j) + " is not a driven joint of the skeleton");
    const size_t size = 3 * feedback.joints.size() * size_t(std::max(0, feedback.stateSize));
    if (!feedback.swingGains.empty() && feedback.swingGains.size() != windows.size())
      throw InputError(context, what + ": feedback has a swing-leg gain matrix per window, or none");
    for (const auto* set : {&feedback.gains, &feedback.swingGains})
      for (const auto& g : *set) {
        if (g.size() != size) throw InputError(context, what + ": a feedback gain matrix has the wrong size");
        for (double x : g)
          if (!std::isfinite(x)) throw InputError(context, what + ": a feedback gain is not finite");
      }
  }
}

}  // namespace sinew
