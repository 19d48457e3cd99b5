#include "control/Retarget.h"

#include "core/Error.h"
#include "io/AnimationExport.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

namespace sinew::control {

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool startsWith(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }
bool endsWith(const std::string& s, const std::string& p) {
  return s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
}

// A name reduced to what identifies a joint across conventions:
// "mixamorig:LeftUpLeg", "Left_UpLeg", "upleg_l" and "L UpLeg" all become "lupleg".
std::string canonicalName(const std::string& name) {
  std::string s = lower(name);
  for (const char* prefix : {"mixamorig:", "mixamorig_", "bip01 ", "bip001 ", "bip01_", "bip001_"})
    if (startsWith(s, prefix)) s = s.substr(std::string(prefix).size());
  if (const size_t colon = s.rfind(':'); colon != std::string::npos) s = s.substr(colon + 1);  // namespaces
  std::string side;
  for (const char* suffix : {"_l", ".l", " l", "-l"})
    if (endsWith(s, suffix)) side = "l", s.resize(s.size() - 2);
  for (const char* suffix : {"_r", ".r", " r", "-r"})
    if (endsWith(s, suffix)) side = "r", s.resize(s.size() - 2);
  if (side.empty()) {
    for (const auto& [word, letter] : {std::pair{"left", "l"}, std::pair{"right", "r"}})
      if (startsWith(s, word)) side = letter, s = s.substr(std::string(word).size());
    if (side.empty() && s.size() > 2 && (s[0] == 'l' || s[0] == 'r') && (s[1] == '_' || s[1] == ' ' || s[1] == '.'))
      side = std::string(1, s[0]), s = s.substr(2);
  }
  std::string out = side;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c))) out += c;
  return out;
}

// Sum of bone lengths from joint j up to (not past) ancestor `top`.
double chainLength(const std::vector<int32_t>& parent, const std::vector<Vec3>& rest, int32_t j, int32_t top) {
  double len = 0;
  while (j >= 0 && j != top) {
    const int32_t p = parent[size_t(j)];
    if (p < 0) break;
    len += (rest[size_t(j)] - rest[size_t(p)]).norm();
    j = p;
  }
  return len;
}

std::vector<int32_t> parents(const Skeleton& s) {
  std::vector<int32_t> p;
  for (const Joint& j : s.joints) p.push_back(j.parent);
  return p;
}

}  // namespace

bool startsWithCalibrationFrame(const MotionClip& clip) {
  if (clip.frameCount < 3) return false;
  auto zeros = [&](int32_t frame) {
    const double* v = clip.frame(frame);
    int n = 0;
    for (const ClipJoint& j : clip.joints)
      for (size_t c = 0; c < j.channels.size(); ++c)
        if (j.channels[c] >= Channel::Xrotation && v[j.firstChannel + int32_t(c)] == 0.0) ++n;
    return n;
  };
  int rotations = 0;
  for (const ClipJoint& j : clip.joints)
    for (Channel c : j.channels) rotations += c >= Channel::Xrotation ? 1 : 0;
  return rotations > 0 && zeros(0) - zeros(1) >= 0.3 * rotations;
}

namespace {

// The anatomical role of a canonical name (side letter first, if any) and
// its side: synonyms of the common conventions (CMU, Mixamo, 3ds Max biped,
// MotionBuilder/Boxing files). "shoulder" is the collar bone unless the
// hierarchy also has a collar, where it is the upper arm.
std::pair<char, std::string> role(const std::string& canonical, bool hasCollar) {
  char side = 0;
  std::string base = canonical;
  if (!base.empty() && (base[0] == 'l' || base[0] == 'r') && base.size() > 2) {
    // Only a side letter when what follows is a known part.
    side = base[0];
    base = base.substr(1);
  }
  static const std::vector<std::pair<std::string, std::vector<std::string>>> table = {
      {"hips", {"hips", "pelvis", "root"}},
      {"upleg", {"upleg", "upperleg", "thigh", "hip", "hipjoint"}},
      {"leg", {"leg", "lowerleg", "knee", "shin", "calf"}},
      {"foot", {"foot", "ankle"}},
      {"toe", {"toe", "toes", "toebase"}},
      {"spine", {"spine", "ab", "abdomen", "spine0"}},
      {"spine1", {"spine1", "chest", "spine2", "upperchest"}},
      {"neck", {"neck"}},
      {"head", {"head"}},
      {"collar", {"collar", "clavicle"}},
      {"arm", {"arm", "upperarm"}},
      {"forearm", {"forearm", "lowerarm", "elbow"}},
      {"hand", {"hand", "wrist"}},
  };
  auto lookup = [&](const std::string& b) -> std::string {
    if (b == "shoulder") return hasCollar ? "arm" : "collar";
    for (const auto& [r, names] : table)
      for (const std::string& n : names)
        if (b == n) return r;
    return {};
  };
  if (side) {
    if (std::string r = lookup(base); !r.empty()) return {side, r};
    base = canonical;  // the first letter was part of the name
    side = 0;
  }
  std::string r = lookup(base);
  if (r == "upleg" || r == "hips") {
    // "hip" alone is the pelvis; "lhipjoint" (CMU) is a short pelvis bone, not the thigh.
    if (base == "hip") r = "hips";
  }
  return {side, r};
}

}  // namespace

JointMap autoJointMap(const Skeleton& character, const MotionClip& clip) {
  JointMap map;
  map.clipJoint.assign(character.size(), "");
  std::map<std::string, std::string> byCanonical;
  bool clipCollar = false, charCollar = false;
  for (const ClipJoint& c : clip.joints) {
    byCanonical.emplace(canonicalName(c.name), c.name);
    const std::string n = canonicalName(c.name);
    clipCollar |= n.find("collar") != std::string::npos || n.find("clavicle") != std::string::npos;
  }
  for (const Joint& j : character.joints) {
    const std::string n = canonicalName(j.name);
    charCollar |= n.find("collar") != std::string::npos || n.find("clavicle") != std::string::npos;
  }
  // Roles of the clip's joints (the first joint of each role and side wins:
  // CMU's LHipJoint is listed before LeftUpLeg but is no thigh, see role()).
  std::map<std::pair<char, std::string>, std::string> byRole;
  for (const ClipJoint& c : clip.joints) {
    const std::string n = canonicalName(c.name);
    if (n.find("hipjoint") != std::string::npos) continue;  // CMU: a short pelvis bone
    const auto r = role(n, clipCollar);
    if (!r.second.empty()) byRole.emplace(r, c.name);
  }
  for (size_t j = 0; j < character.size(); ++j) {
    const std::string& name = character.joints[j].name;
    const bool exact = std::any_of(clip.joints.begin(), clip.joints.end(), [&](const ClipJoint& c) { return c.name == name; });
    if (exact) {
      map.clipJoint[j] = name;
    } else if (auto it = byCanonical.find(canonicalName(name)); it != byCanonical.end()) {
      map.clipJoint[j] = it->second;
    } else if (const auto r = role(canonicalName(name), charCollar); !r.second.empty()) {
      if (auto rt = byRole.find(r); rt != byRole.end()) map.clipJoint[j] = rt->second;
    }
  }
  // Exact or canonical name matches can contradict roles when conventions
  // differ (Boxing's "LeftShoulder" is an upper arm): when the clip has a
  // collar and the character does not name one, prefer roles throughout.
  if (clipCollar != charCollar)
    for (size_t j = 0; j < character.size(); ++j) {
      const auto r = role(canonicalName(character.joints[j].name), charCollar);
      if (r.second.empty()) continue;
      if (auto rt = byRole.find(r); rt != byRole.end()) map.clipJoint[j] = rt->second;
    }
  return map;
}

void checkJointMap(const JointMap& map, const Skeleton& character, const MotionClip& clip) {
  if (map.clipJoint.size() != character.size())
    throw InputError(clip.name, "the joint map has " + std::to_string(map.clipJoint.size()) + " rows for " +
                                    std::to_string(character.size()) + " character joints");
  std::string missing;
  for (size_t j = 0; j < character.size(); ++j) {
    const std::string& c = map.clipJoint[j];
    if (c.empty()) continue;
    const bool found = std::any_of(clip.joints.begin(), clip.joints.end(), [&](const ClipJoint& cj) { return cj.name == c; });
    if (!found) missing += (missing.empty() ? "" : ", ") + character.joints[j].name + " -> " + c;
  }
  if (!missing.empty()) throw InputError(clip.name, "the clip has no joint for: " + missing);
  if (character.empty() || map.clipJoint[0].empty())
    throw InputError(clip.name, "the character's root joint '" + (character.empty() ? std::string("?") : character.joints[0].name) +
                                    "' maps to no joint of the clip (map the joints first)");
}

std::vector<int32_t> findFeet(const Skeleton& s) {
  const std::vector<Vec3> rest = s.restPositions();
  if (rest.empty()) return {};
  double minY = rest[0].y(), maxY = rest[0].y();
  for (const Vec3& p : rest) minY = std::min(minY, p.y()), maxY = std::max(maxY, p.y());
  // Leaves in the lowest fifth of the figure, at most one each side of the root.
  std::vector<int32_t> feet;
  for (size_t j = 0; j < s.size(); ++j) {
    if (!s.children(int32_t(j)).empty()) continue;
    if (rest[j].y() > minY + 0.2 * (maxY - minY)) continue;
    feet.push_back(int32_t(j));
  }
  return feet;
}

FootContacts detectFootContacts(const MotionClip& clip, const Skeleton& character, double groundHeight,
                                double soleHeight, double contactHeight, double contactSpeed) {
  FootContacts out;
  out.feet = findFeet(character);
  const int n = clip.frameCount;
  std::vector<std::vector<Vec3>> pos(static_cast<size_t>(n));
  const Skeleton cs = clip.skeleton();
  std::vector<int32_t> clipIndex;
  for (int32_t f : out.feet) clipIndex.push_back(cs.find(character.joints[size_t(f)].name));
  for (int f = 0; f < n; ++f) {
    const std::vector<Transform> world = cs.worldFromLocal(clip.localPose(f));
    for (int32_t c : clipIndex) pos[size_t(f)].push_back(c >= 0 ? world[size_t(c)].translation : Vec3::Constant(1e9));
  }
  out.contact.assign(size_t(n), std::vector<uint8_t>(out.feet.size(), 0));
  for (int f = 0; f < n; ++f)
    for (size_t i = 0; i < out.feet.size(); ++i) {
      const int a = std::max(0, f - 1), b = std::min(n - 1, f + 1);
      Vec3 d = pos[size_t(b)][i] - pos[size_t(a)][i];
      d.y() = 0;
      const double speed = b > a ? d.norm() / ((b - a) * clip.frameTime) : 0;
      const double sole = pos[size_t(f)][i].y() - soleHeight - groundHeight;
      out.contact[size_t(f)][i] = sole < contactHeight && speed < contactSpeed ? 1 : 0;
    }
  return out;
}

namespace {

// The heading (yaw about +Y) of a world rotation.
double yawOf(const Quat& q) {
  const Vec3 forward = q * Vec3::UnitZ();
  return std::hypot(forward.x(), forward.z()) > 1e-9 ? std::atan2(forward.x(), forward.z()) : 0.0;
}

// Where a bone shape sits in its joint's frame (the joint itself for none).
Vec3 shapeCentre(const BoneShape& b) {
  switch (b.kind) {
    case BoneShapeKind::Box: return b.center;
    case BoneShapeKind::Capsule: return 0.5 * (b.start + b.end);
    case BoneShapeKind::None: break;
  }
  return Vec3::Zero();
}

// RetargetResult::tail: the frames after the segment's last, blending into
// the character's rest pose placed where the last frame stands (root height
// `standHeight`), then holding it.
template <class WorldPose>
void appendStandingTail(const Skeleton& character, const std::vector<int32_t>& feet, double rate, double seconds,
                        double standHeight, const std::function<Vec3(const std::vector<Transform>&)>& centerOfMass,
                        const WorldPose& worldPose, std::vector<Vec3>& roots,
                        std::vector<std::vector<Quat>>& rotations, int& frames, int32_t& tailFrames) {
  const int added = std::max(2, int(std::lround(seconds * rate)));
  const int blend = std::max(1, added / 2);
  auto feetMiddle = [&](const std::vector<Quat>& rot, const Vec3& root) {
    const std::vector<Transform> w = worldPose(rot, root);
    Vec3 m = Vec3::Zero();
    for (int32_t foot : feet) m += w[size_t(foot)].translation;
    return Vec3(m / double(feet.size()));
  };
  const int last = frames - 1;
  const Transform& restRoot = character.joints[0].restLocal;
  const std::vector<Quat> rest(rotations[0].size(), Quat::Identity());
  const Quat turn(Eigen::AngleAxisd(yawOf(restRoot.rotation * rotations[size_t(last)][0]) - yawOf(restRoot.rotation),
                                    Vec3::UnitY()));
  std::vector<Quat> stand = rest;
  stand[0] = (restRoot.rotation.conjugate() * turn * restRoot.rotation).normalized();
  const Vec3 offset = turn * (restRoot.translation - feetMiddle(rest, restRoot.translation));  // root from its feet
  Vec3 standRoot = feetMiddle(rotations[size_t(last)], roots[size_t(last)]) + offset;
  standRoot.y() = standHeight;
  if (centerOfMass) {  // lean forward about the ankles (feet kept flat) until the centre of mass is over the feet
    const Quat heading(Eigen::AngleAxisd(yawOf(turn * restRoot.rotation), Vec3::UnitY()));
    const Vec3 forward = heading * Vec3::UnitZ();
    const std::vector<Transform> w = worldPose(stand, standRoot);
    const Vec3 ankles = feetMiddle(stand, standRoot);
    Vec3 feetCentre = Vec3::Zero();
    for (int32_t foot : feet) feetCentre += w[size_t(foot)].apply(shapeCentre(character.joints[size_t(foot)].bone));
    feetCentre /= double(feet.size());
    const Vec3 r = centerOfMass(w) - ankles;
    const double along = r.dot(forward), up = r.y(), reach = std::hypot(along, up);
    const double target = (feetCentre - ankles).dot(forward);
    if (reach > 1e-6 && std::abs(target) < reach) {
      const double lean = std::asin(target / reach) - std::atan2(along, up);
      const Quat pitch(Eigen::AngleAxisd(lean, heading * Vec3::UnitX()));
      stand[0] = (restRoot.rotation.conjugate() * pitch * restRoot.rotation * stand[0]).normalized();
      standRoot = ankles + pitch * (standRoot - ankles);
      for (int32_t foot : feet) {
        const Quat parent = w[size_t(character.joints[size_t(foot)].parent)].rotation;
        const Quat restLocal = character.joints[size_t(foot)].restLocal.rotation;
        stand[size_t(foot)] =
            (restLocal.conjugate() * parent.conjugate() * pitch.conjugate() * w[size_t(foot)].rotation).normalized();
      }
    }
  }
  const std::vector<Quat> from = rotations[size_t(last)];
  const Vec3 fromRoot = roots[size_t(last)];
  for (int i = 1; i <= added; ++i) {
    const double u = std::min(1.0, double(i) / blend), s = u * u * (3 - 2 * u);
    std::vector<Quat> q(from.size());
    for (size_t j = 0; j < q.size(); ++j) q[j] = from[j].slerp(s, stand[j]).normalized();
    rotations.push_back(std::move(q));
    roots.push_back(fromRoot + s * (standRoot - fromRoot));
  }
  frames += added;
  tailFrames = added;
}

}  // namespace

RetargetResult retargetClip(const MotionClip& clip, const Skeleton& character, const JointMap& map,
                            const RetargetOptions& o) {
  clip.validate(clip.name);
  checkJointMap(map, character, clip);
  const double duration = clip.duration();
  double start = o.start;
  const double end = o.end < 0 ? duration : o.end;
  RetargetResult r;
  if (o.skipCalibrationFrame && start < clip.frameTime && startsWithCalibrationFrame(clip)) {
    start = clip.frameTime;  // a calibration pose (all rotations zero) before the motion, as in many CMU files
    r.skippedCalibrationFrame = true;
  }
  if (!(start >= 0 && start < end && end <= duration + 1e-9))
    throw InputError(clip.name, "the segment " + std::to_string(start) + "-" + std::to_string(end) +
                                    " s is empty or outside the clip (0-" + std::to_string(duration) + " s)");
  const double rate = o.frameRate > 0 ? o.frameRate : clip.frameRate();
  int frames = int(std::floor((end - start) * rate + 1e-9)) + 1;

  const Skeleton clipSkel = clip.skeleton();
  const std::vector<Transform> clipRest = clipSkel.worldRest(), charRest = character.worldRest();
  std::vector<Vec3> clipRestPos, charRestPos;
  for (const Transform& t : clipRest) clipRestPos.push_back(t.translation);
  for (const Transform& t : charRest) charRestPos.push_back(t.translation);
  const size_t nj = character.size();
  std::vector<int32_t> clipOf(nj, -1);
  for (size_t j = 0; j < nj; ++j)
    if (!map.clipJoint[j].empty()) clipOf[j] = clipSkel.find(map.clipJoint[j]);

  // Rest alignment per mapped joint: the rotation taking the character's bone
  // (to its first mapped child) onto the clip's, so that every bone points
  // where the clip's does.
  // Branching joints (pelvis, chest) have no single bone direction and keep
  // the clip's orientation as it is.
  std::vector<Quat> align(nj, Quat::Identity());
  for (size_t j = 0; j < nj; ++j) {
    const std::vector<int32_t> children = character.children(int32_t(j));
    if (clipOf[j] < 0 || children.size() != 1 || clipOf[size_t(children[0])] < 0) continue;
    const int32_t k = children[0];
    const Vec3 dj = charRestPos[size_t(k)] - charRestPos[j];
    const Vec3 dc = clipRestPos[size_t(clipOf[size_t(k)])] - clipRestPos[size_t(clipOf[j])];
    if (dj.norm() > 1e-6 && dc.norm() > 1e-6) align[j] = Quat::FromTwoVectors(dj, dc);
  }

  // Limb scale: the character's legs over the clip's (root to each foot).
  r.map = map;
  const std::vector<int32_t> feet = findFeet(character);
  if (o.scaleLimbs) {
    double charLegs = 0, clipLegs = 0;
    const std::vector<int32_t> charParent = parents(character), clipParent = parents(clipSkel);
    for (int32_t f : feet) {
      if (clipOf[size_t(f)] < 0) continue;
      charLegs += chainLength(charParent, charRestPos, f, 0);
      clipLegs += chainLength(clipParent, clipRestPos, clipOf[size_t(f)], clipOf[0]);
    }
    if (charLegs > 0 && clipLegs > 0) r.scale = charLegs / clipLegs;
  }

  // Frames: world rotations by bone direction; the root starts where the
  // character stands and moves as the clip's, scaled.
  std::vector<Vec3> roots(static_cast<size_t>(frames));
  std::vector<std::vector<Quat>> rotations(static_cast<size_t>(frames), std::vector<Quat>(nj));
  const Vec3 clipRoot0 = clipSkel.worldFromLocal(clip.localPoseAt(start))[size_t(clipOf[0])].translation;
  for (int f = 0; f < frames; ++f) {
    const double t = std::min(end, start + f / rate);
    const std::vector<Transform> cw = clipSkel.worldFromLocal(clip.localPoseAt(t));
    std::vector<Quat> world(nj);
    for (size_t j = 0; j < nj; ++j) {
      const int32_t p = character.joints[j].parent;
      if (clipOf[j] >= 0) {
        const size_t c = size_t(clipOf[j]);
        world[j] = (cw[c].rotation * clipRest[c].rotation.conjugate() * align[j] * charRest[j].rotation).normalized();
      } else {
        world[j] = ((p >= 0 ? world[size_t(p)] : Quat::Identity()) * character.joints[j].restLocal.rotation).normalized();
      }
      const Quat local = p >= 0 ? world[size_t(p)].conjugate() * world[j] : world[j];
      rotations[size_t(f)][j] = (character.joints[j].restLocal.rotation.conjugate() * local).normalized();
    }
    const Vec3 c = cw[size_t(clipOf[0])].translation;
    roots[size_t(f)] = charRest[0].translation + r.scale * (c - clipRoot0);
  }

  // Forward kinematics of a frame: world transforms of the joints.
  auto worldPose = [&](const std::vector<Quat>& rot, const Vec3& root) {
    std::vector<Transform> local(nj);
    for (size_t j = 0; j < nj; ++j) {
      local[j] = character.joints[j].restLocal;
      local[j].rotation = (local[j].rotation * rot[j]).normalized();
    }
    local[0].translation = root;
    return character.worldFromLocal(local);
  };

  // The root height: the lowest sole over the segment on the ground.
  const double soleHeight =
      o.soleHeight >= 0 ? o.soleHeight
                        : (feet.empty() ? 0.0 : std::max(0.0, charRestPos[size_t(feet[0])].y() - o.restGround));
  if (o.rootHeightFromFeet && (!feet.empty() || o.lowestPoint)) {
    double lowest = std::numeric_limits<double>::infinity();
    for (int f = 0; f < frames; ++f) {
      const std::vector<Transform> w = worldPose(rotations[size_t(f)], roots[size_t(f)]);
      if (o.lowestPoint) lowest = std::min(lowest, o.lowestPoint(w));
      else
        for (int32_t foot : feet) lowest = std::min(lowest, w[size_t(foot)].translation.y() - soleHeight);
    }
    r.rootLift = o.groundHeight - lowest;
    for (Vec3& p : roots) p.y() += r.rootLift;
  }
  // The rest pose stands on the ground where its lowest point is at restGround.
  if (o.standingTail > 0 && !feet.empty())
    appendStandingTail(character, feet, rate, o.standingTail,
                       charRest[0].translation.y() + o.groundHeight - o.restGround, o.centerOfMass, worldPose, roots,
                       rotations, frames, r.tailFrames);

  r.clip = skeletonAnimationClip(character, roots, rotations, 1.0 / rate);
  r.clip.name = clip.name + " (retargeted)";
  r.contacts = detectFootContacts(r.clip, character, o.groundHeight, soleHeight);
  return r;
}

}  // namespace sinew::control
