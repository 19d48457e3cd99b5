#include "rig/AutoJoints.h"

#include "core/Error.h"
#include "rig/SkeletonEdit.h"
#include "volume/WindingNumber.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>

namespace sinew {

namespace {

// Human proportions (fractions of the height, from the example character,
// whose joints are placed the way CMU's subjects are measured).
constexpr double kAnkle = 0.063;      // ankle above the sole
constexpr double kShin = 0.10;        // a slice of the shin just above the foot
constexpr double kKnee = 0.286;
constexpr double kHipAboveCrotch = 0.06;
constexpr double kHipsAboveHip = 0.034;
constexpr double kHipInset = 0.85;    // hip joint's distance from the middle / the thigh's
constexpr double kSpine = 0.216, kSpine1 = 0.569;  // of the way from Hips to Neck
constexpr double kShoulderBelowNeck = 0.034;
constexpr double kNeckBelowNarrowest = 0.04, kHeadAboveNarrowest = 0.012;  // the narrowest slice of the neck
constexpr double kElbow = 0.406, kWrist = 0.781;   // of the way from the shoulder to the fingertip

// The inside of the body on a grid in a frame whose +Y is the candidate up axis.
struct Grid {
  Vec3 origin = Vec3::Zero();
  double h = 0;
  int nx = 0, ny = 0, nz = 0;
  std::vector<uint8_t> inside;  // x fastest, then z, then y (a level is contiguous)
  bool at(int x, int y, int z) const {
    return x >= 0 && y >= 0 && z >= 0 && x < nx && y < ny && z < nz && inside[(size_t(y) * nz + z) * nx + x];
  }
  Vec3 centre(int x, int y, int z) const { return origin + h * Vec3(x + 0.5, y + 0.5, z + 0.5); }
};

// A connected piece of one level (4-connected in x, z).
struct Piece {
  size_t cells = 0;
  double cx = 0, cz = 0;
  int xmin = 0, xmax = 0;
};

std::vector<Piece> piecesOf(const Grid& g, int y) {
  std::vector<int> label(size_t(g.nx) * g.nz, -1);
  std::vector<Piece> out;
  std::vector<std::pair<int, int>> stack;
  for (int z = 0; z < g.nz; ++z)
    for (int x = 0; x < g.nx; ++x) {
      if (!g.at(x, y, z) || label[size_t(z) * g.nx + x] >= 0) continue;
      Piece p;
      p.xmin = p.xmax = x;
      const int id = int(out.size());
      stack.push_back({x, z});
      label[size_t(z) * g.nx + x] = id;
      while (!stack.empty()) {
        const auto [cx, cz] = stack.back();
        stack.pop_back();
        ++p.cells;
        p.cx += cx;
        p.cz += cz;
        p.xmin = std::min(p.xmin, cx);
        p.xmax = std::max(p.xmax, cx);
        for (const auto& [dx, dz] : {std::pair{1, 0}, {-1, 0}, {0, 1}, {0, -1}}) {
          const int ax = cx + dx, az = cz + dz;
          if (g.at(ax, y, az) && label[size_t(az) * g.nx + ax] < 0) {
            label[size_t(az) * g.nx + ax] = id;
            stack.push_back({ax, az});
          }
        }
      }
      p.cx /= double(p.cells);
      p.cz /= double(p.cells);
      out.push_back(p);
    }
  return out;
}

// The two leg pieces of a level: the largest piece wholly on each side of
// `mid` (none spans it), or nothing.
std::optional<std::pair<Piece, Piece>> legsAt(const std::vector<Piece>& pieces, double mid, size_t minCells) {
  const Piece* side[2] = {nullptr, nullptr};
  for (const Piece& p : pieces) {
    if (p.xmin <= mid && p.xmax >= mid && p.cells >= minCells) return std::nullopt;  // a central piece: not legs
    const int s = p.cx > mid ? 1 : 0;
    if (p.cells >= minCells && (!side[s] || p.cells > side[s]->cells)) side[s] = &p;
  }
  if (!side[0] || !side[1]) return std::nullopt;
  return std::make_pair(*side[0], *side[1]);
}

struct Fit {
  bool ok = false;
  std::string why;
  std::map<std::string, Vec3> joint;  // canonical frame positions
  double height = 0, crotch = 0;
  size_t cells = 0;
};

// Fits the joints in the canonical frame (up = +Y) of grid `g`.
Fit fitCanonical(const Grid& g) {
  Fit f;
  // Extent along the height, and the body's middle in x.
  int y0 = -1, y1 = -1;
  for (int y = 0; y < g.ny; ++y)
    for (int z = 0; z < g.nz; ++z)
      for (int x = 0; x < g.nx; ++x)
        if (g.at(x, y, z)) {
          if (y0 < 0) y0 = y;
          y1 = y;
          ++f.cells;
        }
  if (f.cells < 50 || y1 - y0 < 20) {
    f.why = "the surface encloses too little volume";
    return f;
  }
  const int levels = y1 - y0 + 1;
  const double height = levels * g.h;
  f.height = height;
  // Standing along this axis, a body in a T- or A-pose is about as tall as
  // its span at least: not its depth.
  const double across = std::max(g.nx, g.nz) * g.h;
  if (height < 0.6 * across) {
    f.why = "the body is not tall along this axis";
    return f;
  }
  auto levelOf = [&](double fraction) { return std::clamp(y0 + int(std::floor(fraction * levels)), y0, y1); };
  std::vector<std::vector<Piece>> pieces(size_t(g.ny));
  for (int y = y0; y <= y1; ++y) pieces[size_t(y)] = piecesOf(g, y);
  // The middle: the x-centre of the lowest tenth (between the feet).
  double mid = 0;
  {
    double n = 0;
    for (int y = y0; y <= levelOf(0.1); ++y)
      for (const Piece& p : pieces[size_t(y)]) {
        mid += p.cx * double(p.cells);
        n += double(p.cells);
      }
    mid /= std::max(n, 1.0);
  }
  // Legs: the run of two-leg levels that starts near the soles.
  const size_t minCells = 2;
  int crotch = -1, gaps = 0;
  for (int y = y0; y <= y1; ++y) {
    if (legsAt(pieces[size_t(y)], mid, minCells)) {
      crotch = y;
      gaps = 0;
    } else if (crotch >= 0 && ++gaps > 2) {
      break;
    } else if (crotch < 0 && y > levelOf(0.1)) {
      break;
    }
  }
  if (crotch < 0 || double(crotch - y0) < 0.25 * levels || double(crotch - y0) > 0.7 * levels) {
    f.why = "cannot find two legs";
    return f;
  }
  f.crotch = double(crotch - y0) / levels;
  // A point at fractional cell indices (x, z) of level y.
  auto at = [&](double x, int y, double z) { return Vec3(g.origin + g.h * Vec3(x + 0.5, y + 0.5, z + 0.5)); };
  // A leg's centroid at level y on side s (0: x < mid, 1: x > mid).
  auto legAt = [&](int y, int s) -> std::optional<Piece> {
    const auto legs = legsAt(pieces[size_t(y)], mid, minCells);
    if (!legs) return std::nullopt;
    return s ? legs->second : legs->first;
  };
  // The torso near the middle at level y: cells within `halfWidth` of mid.
  auto torsoAt = [&](int y, double halfWidth) {
    double cx = 0, cz = 0, n = 0;
    for (int z = 0; z < g.nz; ++z)
      for (int x = 0; x < g.nx; ++x)
        if (g.at(x, y, z) && std::abs(x - mid) <= halfWidth / g.h) {
          cx += x;
          cz += z;
          ++n;
        }
    return n > 0 ? std::optional<Vec3>(at(cx / n, y, cz / n)) : std::nullopt;
  };
  std::map<std::string, Vec3>& J = f.joint;
  const char* sideName[2] = {"A", "B"};  // named left/right once the front is known
  double hipX[2] = {0, 0};
  for (int s = 0; s < 2; ++s) {
    const auto shin = legAt(levelOf(kShin), s), knee = legAt(levelOf(kKnee), s),
               thigh = legAt(std::max(y0, crotch - int(0.05 * levels)), s);
    if (!shin || !knee || !thigh) {
      f.why = "cannot follow both legs from the feet to the crotch";
      return f;
    }
    const std::string n = sideName[s];
    J[n + "Foot"] = at(shin->cx, levelOf(kAnkle), shin->cz);
    J[n + "Leg"] = at(knee->cx, levelOf(kKnee), knee->cz);
    hipX[s] = mid + kHipInset * (thigh->cx - mid);  // the joint sits inside the thigh's centre
  }
  const int hipLevel = std::min(y1, crotch + int(kHipAboveCrotch * levels));
  const int hipsLevel = std::min(y1, hipLevel + int(kHipsAboveHip * levels));
  const double torsoHalf = 0.06 * height;
  const auto hipsCentre = torsoAt(hipsLevel, torsoHalf);
  if (!hipsCentre) {
    f.why = "cannot find the pelvis above the legs";
    return f;
  }
  for (int s = 0; s < 2; ++s) {
    const Vec3 hip = at(hipX[s], hipLevel, 0);
    J[std::string(sideName[s]) + "UpLeg"] = Vec3(hip.x(), hip.y(), hipsCentre->z());
  }
  J["Hips"] = Vec3(0.5 * (J["AUpLeg"].x() + J["BUpLeg"].x()), hipsCentre->y(), hipsCentre->z());

  // The neck: the narrowest central slice between the chest and the head.
  int top = y1;
  size_t narrowest = std::numeric_limits<size_t>::max();
  int neck = -1;
  const int from = hipsLevel + int(0.55 * (top - hipsLevel)), to = top - int(0.06 * levels);
  for (int y = from; y <= to; ++y) {
    size_t n = 0;
    for (const Piece& p : pieces[size_t(y)])
      if (p.xmin <= mid + 1 && p.xmax >= mid - 1) n = p.cells;
    if (n > 0 && n < narrowest) {
      narrowest = n;
      neck = y;
    }
  }
  if (neck < 0) {
    f.why = "cannot find a neck and a head above the torso";
    return f;
  }
  const int neckLevel = std::max(hipsLevel + 1, neck - int(kNeckBelowNarrowest * levels));
  const int headLevel = std::min(y1, neck + int(kHeadAboveNarrowest * levels));
  for (const auto& [name, level] : {std::pair<const char*, int>{"Neck", neckLevel}, {"Head", headLevel},
                                    {"Spine", hipsLevel + int(kSpine * (neckLevel - hipsLevel))},
                                    {"Spine1", hipsLevel + int(kSpine1 * (neckLevel - hipsLevel))}}) {
    const auto c = torsoAt(level, name == std::string("Head") || name == std::string("Neck") ? 0.04 * height : torsoHalf);
    if (!c) {
      f.why = std::string("cannot find the ") + name;
      return f;
    }
    J[name] = *c;
  }

  // Arms: from the shoulder line to the farthest point on each side above the crotch.
  const int shoulderLevel = std::max(hipsLevel + 1, neckLevel - int(kShoulderBelowNeck * levels));
  const Vec3 chest = J["Spine1"];
  for (int s = 0; s < 2; ++s) {
    const double sign = s ? 1.0 : -1.0;
    Vec3 tip = Vec3::Zero();
    double best = -std::numeric_limits<double>::infinity();
    for (int y = crotch + int(0.05 * levels); y <= y1; ++y)
      for (int z = 0; z < g.nz; ++z)
        for (int x = 0; x < g.nx; ++x)
          if (g.at(x, y, z) && sign * (x - mid) > best) {
            best = sign * (x - mid);
            tip = g.centre(x, y, z);
          }
    const Vec3 start(chest.x(), g.centre(0, shoulderLevel, 0).y(), chest.z());
    const double span = (tip - start).norm();
    if (!(best * g.h > 0.2 * height) || !(span > 0)) {
      f.why = "cannot find two arms";
      return f;
    }
    const Vec3 dir = (tip - start) / span;
    // Cross-sections along the arm: centroid and size of the flesh in a slab
    // across it, near its axis.
    const double reach = 0.12 * height;
    auto section = [&](double t) {
      const Vec3 c = start + t * span * dir;
      Vec3 sum = Vec3::Zero();
      double n = 0;
      const int r = int(std::ceil(reach / g.h)) + 1;
      const Vec3 rel = (c - g.origin) / g.h;
      for (int y = int(rel.y()) - r; y <= int(rel.y()) + r; ++y)
        for (int z = int(rel.z()) - r; z <= int(rel.z()) + r; ++z)
          for (int x = int(rel.x()) - r; x <= int(rel.x()) + r; ++x) {
            if (!g.at(x, y, z)) continue;
            const Vec3 q = g.centre(x, y, z) - c;
            const double along = q.dot(dir);
            if (std::abs(along) > 0.75 * g.h || (q - along * dir).norm() > reach) continue;
            sum += q + c;
            ++n;
          }
      return std::make_pair(n > 0 ? Vec3(sum / n) : c, n);
    };
    // The arm proper (the outer half of the way to the hand): its axis
    // through the centroids of its cross-sections.
    const Vec3 a = section(0.5).first, b = section(0.9).first;
    const Vec3 axis = (b - a).normalized();
    Vec3 shoulder;
    if (std::abs(axis.y()) > 0.25) {
      // A hanging arm (A-pose): its axis, followed up to the shoulder's height.
      shoulder = a + axis * ((g.centre(0, shoulderLevel, 0).y() - a.y()) / axis.y());
    } else {
      // A level arm (T-pose): going in from the hand, the shoulder is where
      // the cross-section grows past three times the arm's own (the torso).
      std::vector<double> area;
      const int samples = 60;
      for (int k = 0; k <= samples; ++k) area.push_back(section(double(k) / samples).second);
      std::vector<double> armPart(area.begin() + samples / 2, area.begin() + samples * 9 / 10);
      std::nth_element(armPart.begin(), armPart.begin() + long(armPart.size() / 2), armPart.end());
      const double armArea = std::max(armPart[armPart.size() / 2], 1.0);
      int k0 = samples / 2;
      while (k0 > 0 && area[size_t(k0 - 1)] <= 3.0 * armArea) --k0;
      shoulder = section(std::min(0.6, double(k0) / samples)).first;
      shoulder.y() = g.centre(0, shoulderLevel, 0).y();  // the section there takes in the chest below
    }
    const double length = (tip - shoulder).norm();
    const Vec3 armDir = (tip - shoulder) / length;
    auto along = [&](double fraction) {
      const double t = ((shoulder + fraction * length * armDir) - start).dot(dir) / span;
      return section(t).first;
    };
    const std::string n = sideName[s];
    J[n + "Arm"] = shoulder;
    J[n + "ForeArm"] = along(kElbow);
    J[n + "Hand"] = along(kWrist);
    J[n + "Shoulder"] = chest + 0.3 * Vec3(shoulder.x() - chest.x(), 0, 0) +
                        Vec3(0, shoulder.y() - chest.y(), 0);
  }

  // The front: the way the feet point from the ankles.
  double forward = 0;
  for (int s = 0; s < 2; ++s) {
    const auto sole = legAt(levelOf(0.02), s);
    if (sole) forward += at(sole->cx, y0, sole->cz).z() - J[std::string(sideName[s]) + "Foot"].z();
  }
  // Facing +Z, the character's left is +X (up x front).
  const bool facingPlusZ = forward >= 0;
  std::map<std::string, Vec3> named;
  for (const auto& [k, p] : J) {
    std::string name = k;
    if (k[0] == 'A' || k[0] == 'B') {
      const bool plusX = k[0] == 'B';
      const bool left = plusX == facingPlusZ;
      name = (left ? "Left" : "Right") + k.substr(1);
    }
    named[name] = p;
  }
  f.joint = std::move(named);
  f.ok = true;
  return f;
}

}  // namespace

Skeleton autoPlaceJoints(const TriMesh& surface, const AutoJointOptions& options, AutoJointReport* report,
                         const Progress& progress, const std::string& name) {
  const auto start = std::chrono::steady_clock::now();
  if (surface.triangles.empty()) throw InputError(name, "the surface is empty");
  for (const Vec3& p : surface.positions)
    if (!p.allFinite()) throw InputError(name, "a vertex has non-finite coordinates");
  const Aabb box = surface.bounds();
  const double extent = box.size().maxCoeff();
  if (!(extent > 0)) throw InputError(name, "the surface has no extent");
  const WindingNumber wn(surface);

  // Candidate up axes: world -> canonical rotations (canonical up = +Y).
  struct Candidate {
    const char* up;
    Mat3 r;
  };
  auto rx = [](double deg) { return Mat3(Eigen::AngleAxisd(deg * M_PI / 180, Vec3::UnitX())); };
  auto rz = [](double deg) { return Mat3(Eigen::AngleAxisd(deg * M_PI / 180, Vec3::UnitZ())); };
  const Candidate candidates[] = {{"+Y", Mat3::Identity()}, {"+Z", rx(-90)}, {"-Y", rx(180)},
                                  {"-Z", rx(90)},          {"+X", rz(90)},   {"-X", rz(-90)}};
  std::string reasons;
  int tried = 0;
  for (const Candidate& c : candidates) {
    progress.update(double(tried++) / 6.0, std::string("looking for a body standing along ") + c.up);
    // The grid around the turned surface.
    Aabb turned;
    for (const Vec3& p : surface.positions) turned.add(c.r * p);
    Grid g;
    g.h = extent / options.cellsPerHeight;
    g.origin = turned.min - Vec3::Constant(g.h);
    const Vec3 size = turned.size() + Vec3::Constant(2 * g.h);
    g.nx = int(std::ceil(size.x() / g.h));
    g.ny = int(std::ceil(size.y() / g.h));
    g.nz = int(std::ceil(size.z() / g.h));
    g.inside.assign(size_t(g.nx) * g.ny * g.nz, 0);
    const Mat3 back = c.r.transpose();
    for (int y = 0; y < g.ny; ++y) {
      if (y % 8 == 0) progress.update((tried - 1 + double(y) / g.ny) / 6.0);
      for (int z = 0; z < g.nz; ++z)
        for (int x = 0; x < g.nx; ++x)
          g.inside[(size_t(y) * g.nz + z) * g.nx + x] = wn(back * g.centre(x, y, z)) >= 0.5;
    }
    const Fit fit = fitCanonical(g);
    if (!fit.ok) {
      reasons += std::string(reasons.empty() ? "" : "; ") + c.up + " up: " + fit.why;
      continue;
    }
    // The skeleton, in the example's joint order, back in the world frame.
    static const std::pair<const char*, const char*> layout[] = {
        {"Hips", nullptr},           {"LeftUpLeg", "Hips"},        {"LeftLeg", "LeftUpLeg"},
        {"LeftFoot", "LeftLeg"},     {"RightUpLeg", "Hips"},       {"RightLeg", "RightUpLeg"},
        {"RightFoot", "RightLeg"},   {"Spine", "Hips"},            {"Spine1", "Spine"},
        {"Neck", "Spine1"},          {"Head", "Neck"},             {"LeftShoulder", "Spine1"},
        {"LeftArm", "LeftShoulder"}, {"LeftForeArm", "LeftArm"},   {"LeftHand", "LeftForeArm"},
        {"RightShoulder", "Spine1"}, {"RightArm", "RightShoulder"}, {"RightForeArm", "RightArm"},
        {"RightHand", "RightForeArm"}};
    Skeleton s;
    for (const auto& [joint, parent] : layout) {
      Joint j;
      j.name = joint;
      j.parent = parent ? s.find(parent) : -1;
      const Vec3 world = back * fit.joint.at(joint);
      j.restLocal.translation = parent ? Vec3(world - back * fit.joint.at(parent)) : world;
      s.joints.push_back(j);
    }
    if (report) {
      report->upAxis = c.up;
      report->height = fit.height;
      report->crotchHeight = fit.crotch;
      report->insideCells = fit.cells;
      report->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    progress.update(1.0, "joints placed");
    return s;
  }
  throw InputError(name, "cannot find two legs and two arms (is it a humanoid in a T- or A-pose?): " + reasons +
                             ". Place the joints by hand, or import a skeleton and fit it");
}

Skeleton fitSkeletonToJoints(Skeleton s, const Skeleton& placed, const TriMesh& surface) {
  fitSkeletonToMesh(s, surface);
  const std::vector<Vec3> target = placed.restPositions();
  for (size_t j = 0; j < s.size(); ++j)
    if (const int32_t k = placed.find(s.joints[j].name); k >= 0) moveJoint(s, int32_t(j), target[size_t(k)], true);
  for (Joint& j : s.joints) j.bone = BoneShape{};
  return s;
}

}  // namespace sinew
