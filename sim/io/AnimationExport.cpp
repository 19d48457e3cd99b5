#include "io/AnimationExport.h"

#include "core/Error.h"
#include "io/Bvh.h"
#include "io/FileUtil.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace sinew {

namespace fs = std::filesystem;

namespace {

// ---------------------------------------------------------------------------
// Little-endian byte packing (independent of the host's byte order)

void putU32(std::string& out, uint32_t v) {
  for (int k = 0; k < 4; ++k) out.push_back(static_cast<char>((v >> (8 * k)) & 0xffu));
}
void putI32(std::string& out, int32_t v) { putU32(out, static_cast<uint32_t>(v)); }
void putF32(std::string& out, float v) { putU32(out, std::bit_cast<uint32_t>(v)); }

uint32_t getU32(const unsigned char* p) {
  return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
}
int32_t getI32(const unsigned char* p) { return static_cast<int32_t>(getU32(p)); }
float getF32(const unsigned char* p) { return std::bit_cast<float>(getU32(p)); }

constexpr char kPc2Magic[12] = {'P', 'O', 'I', 'N', 'T', 'C', 'A', 'C', 'H', 'E', '2', '\0'};
constexpr size_t kPc2HeaderBytes = 32;

std::string formatG9(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// Checks that every frame has the same number of points; returns it.
size_t commonPointCount(const std::vector<std::vector<Vec3>>& frames, const std::string& where) {
  const size_t n = frames.empty() ? 0 : frames[0].size();
  for (size_t f = 1; f < frames.size(); ++f)
    if (frames[f].size() != n)
      throw InputError(where, "frame " + std::to_string(f) + " has " + std::to_string(frames[f].size()) +
                                  " points, frame 0 has " + std::to_string(n));
  return n;
}

// ---------------------------------------------------------------------------
// Euler angles
//
// q = Rz(z) Rx(x) Ry(y) has the matrix
//   [ cz cy - sz sx sy   -sz cx   cz sy + sz sx cy ]
//   [ sz cy + cz sx sy    cz cx   sz sy - cz sx cy ]
//   [ -cx sy              sx      cx cy            ]
// so x = asin(R21), z = atan2(-R01, R11), y = atan2(-R20, R22). At the gimbal
// (cx = 0) only z + y (x = +90) or z - y (x = -90) is determined.

constexpr double kDeg = 180.0 / M_PI;

double unwrapNear(double a, double nearDeg) { return a + 360.0 * std::round((nearDeg - a) / 360.0); }

}  // namespace

Vec3 eulerZxyDegrees(const Quat& q, const Vec3* near) {
  const Mat3 R = q.normalized().toRotationMatrix();
  const double sx = std::clamp(R(2, 1), -1.0, 1.0);
  const double cx = std::hypot(R(0, 1), R(1, 1));
  const double x = std::atan2(sx, cx) * kDeg;
  double z = 0, y = 0;
  if (cx > 1e-12) {
    z = std::atan2(-R(0, 1), R(1, 1)) * kDeg;
    y = std::atan2(-R(2, 0), R(2, 2)) * kDeg;
  } else {
    // Gimbal: keep y where it was (or 0) and put the rest into z.
    const double sum = std::atan2(R(1, 0), R(0, 0)) * kDeg;  // z + y (x = +90) or z - y (x = -90)
    y = near ? (*near)[2] : 0.0;
    z = sx > 0 ? sum - y : sum + y;
  }
  if (!near) return Vec3(z, x, y);
  // The two equivalent triples, each unwrapped towards `near`; the closer wins.
  const Vec3& n = *near;
  const Vec3 a(unwrapNear(z, n[0]), unwrapNear(x, n[1]), unwrapNear(y, n[2]));
  const Vec3 b(unwrapNear(z + 180.0, n[0]), unwrapNear(180.0 - x, n[1]), unwrapNear(y + 180.0, n[2]));
  return (a - n).squaredNorm() <= (b - n).squaredNorm() ? a : b;
}

// ---------------------------------------------------------------------------
// OBJ sequence

std::string objSequenceFileName(const std::string& baseName, size_t frame) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "_%04zu.obj", frame);
  return baseName + buf;
}

void writeObjSequence(const std::string& directory, const std::string& baseName, const std::vector<Tri>& triangles,
                      const std::vector<std::vector<Vec3>>& frames, const Progress& progress) {
  if (baseName.empty()) throw InputError(directory, "empty base name for the OBJ sequence");
  if (baseName.find('/') != std::string::npos || baseName == "." || baseName == "..")
    throw InputError(directory, "OBJ sequence base name '" + baseName + "' must be a plain file name");
  const size_t nPoints = commonPointCount(frames, directory);
  for (size_t t = 0; t < triangles.size(); ++t)
    for (int32_t v : triangles[t])
      if (v < 0 || static_cast<size_t>(v) >= nPoints)
        throw InputError(directory, "triangle " + std::to_string(t) + " refers to vertex " + std::to_string(v) +
                                        " of frames with " + std::to_string(nPoints) + " points");
  std::error_code ec;
  fs::create_directories(directory, ec);
  if (ec) throw InputError(directory, "cannot create directory: " + ec.message());
  if (!fs::is_directory(directory, ec)) throw InputError(directory, "is not a directory");

  // The face block is the same in every file.
  std::string faces;
  for (const Tri& t : triangles)
    faces += "f " + std::to_string(t[0] + 1) + " " + std::to_string(t[1] + 1) + " " + std::to_string(t[2] + 1) + "\n";
  for (size_t f = 0; f < frames.size(); ++f) {
    progress.update(double(f) / double(frames.size()), "writing OBJ frames");
    const std::string path = (fs::path(directory) / objSequenceFileName(baseName, f)).string();
    std::string text = "# Sinew animation frame " + std::to_string(f) + " of " + std::to_string(frames.size()) +
                       "\no " + baseName + "\n";
    text.reserve(text.size() + frames[f].size() * 36 + faces.size());
    for (const Vec3& p : frames[f]) {
      if (!p.allFinite()) throw InputError(path, "frame " + std::to_string(f) + " has a non-finite vertex");
      text += "v " + formatG9(p.x()) + " " + formatG9(p.y()) + " " + formatG9(p.z()) + "\n";
    }
    text += faces;
    writeFileAtomic(path, text);
  }
  progress.update(1.0, "writing OBJ frames");
}

// ---------------------------------------------------------------------------
// PC2

void writePc2(const std::string& path, const std::vector<std::vector<Vec3>>& frames, double startFrame,
              double sampleRate) {
  if (!std::isfinite(startFrame)) throw InputError(path, "start frame is not a finite number");
  if (!(sampleRate > 0) || !std::isfinite(sampleRate))
    throw InputError(path, "sample rate must be a positive number (got " + formatG9(sampleRate) + ")");
  const size_t nPoints = commonPointCount(frames, path);
  if (!frames.empty() && nPoints == 0) throw InputError(path, "frames have no points");
  if (nPoints > size_t(INT32_MAX) || frames.size() > size_t(INT32_MAX))
    throw InputError(path, "too many points or samples for a PC2 file");
  std::string out;
  out.reserve(kPc2HeaderBytes + frames.size() * nPoints * 12);
  out.append(kPc2Magic, sizeof kPc2Magic);
  putI32(out, 1);
  putI32(out, static_cast<int32_t>(nPoints));
  putF32(out, static_cast<float>(startFrame));
  putF32(out, static_cast<float>(sampleRate));
  putI32(out, static_cast<int32_t>(frames.size()));
  for (size_t f = 0; f < frames.size(); ++f)
    for (size_t i = 0; i < nPoints; ++i)
      for (int k = 0; k < 3; ++k) {
        const auto v = static_cast<float>(frames[f][i][k]);
        if (!std::isfinite(v))
          throw InputError(path, "sample " + std::to_string(f) + ", point " + std::to_string(i) +
                                     ": coordinate " + formatG9(frames[f][i][k]) + " is not a finite float");
        putF32(out, v);
      }
  writeFileAtomic(path, out);
}

std::vector<std::vector<Vec3>> readPc2(const std::string& path, Pc2Timing* outTiming) {
  const uint64_t fileSize = checkReadableFile(path);
  if (fileSize < kPc2HeaderBytes)
    throw InputError(path, "truncated PC2 header (" + std::to_string(fileSize) + " of 32 bytes)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, std::string("cannot open: ") + std::strerror(errno));
  unsigned char h[kPc2HeaderBytes];
  in.read(reinterpret_cast<char*>(h), kPc2HeaderBytes);
  if (in.gcount() != static_cast<std::streamsize>(kPc2HeaderBytes)) throw InputError(path, "cannot read PC2 header");
  if (std::memcmp(h, kPc2Magic, sizeof kPc2Magic) != 0)
    throw InputError(path, "not a point cache: the file does not start with \"POINTCACHE2\"");
  const int32_t version = getI32(h + 12);
  const int32_t nPoints = getI32(h + 16);
  const float startFrame = getF32(h + 20);
  const float sampleRate = getF32(h + 24);
  const int32_t nSamples = getI32(h + 28);
  if (version != 1) throw InputError(path, "unsupported PC2 version " + std::to_string(version) + " (expected 1)");
  if (nPoints < 0 || nSamples < 0)
    throw InputError(path, "negative point or sample count in the PC2 header (" + std::to_string(nPoints) +
                               " points, " + std::to_string(nSamples) + " samples)");
  if (!std::isfinite(startFrame) || !std::isfinite(sampleRate))
    throw InputError(path, "non-finite start frame or sample rate in the PC2 header");
  if (nPoints == 0 && nSamples > 0)
    throw InputError(path, "declares " + std::to_string(nSamples) + " samples of 0 points");
  // Compare the declared size with the file before allocating anything
  // (computed without overflow: both counts are below 2^31).
  const uint64_t dataBytes = fileSize - kPc2HeaderBytes;
  const uint64_t sampleBytes = uint64_t(nPoints) * 12;
  const bool fits = nSamples == 0 || (sampleBytes > 0 && uint64_t(nSamples) <= dataBytes / sampleBytes);
  if (!fits || uint64_t(nSamples) * sampleBytes != dataBytes) {
    const double needed = double(kPc2HeaderBytes) + double(nSamples) * double(sampleBytes);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f", needed);
    throw InputError(path, "size mismatch: the header declares " + std::to_string(nSamples) + " samples of " +
                               std::to_string(nPoints) + " points (" + buf + " bytes), the file has " +
                               std::to_string(fileSize) + " bytes" + (needed > double(fileSize) ? " (truncated?)" : ""));
  }
  std::vector<std::vector<Vec3>> frames(static_cast<size_t>(nSamples));
  std::vector<unsigned char> buffer(sampleBytes);
  for (int32_t f = 0; f < nSamples; ++f) {
    in.read(reinterpret_cast<char*>(buffer.data()), static_cast<std::streamsize>(sampleBytes));
    if (static_cast<uint64_t>(in.gcount()) != sampleBytes)
      throw InputError(path, "read error in sample " + std::to_string(f) + " (file changed while reading?)");
    std::vector<Vec3>& frame = frames[f];
    frame.resize(static_cast<size_t>(nPoints));
    for (int32_t i = 0; i < nPoints; ++i) {
      const unsigned char* p = buffer.data() + size_t(i) * 12;
      frame[i] = Vec3(getF32(p), getF32(p + 4), getF32(p + 8));
      if (!frame[i].allFinite())
        throw InputError(path, "sample " + std::to_string(f) + ", point " + std::to_string(i) +
                                   " has a non-finite coordinate");
    }
  }
  if (outTiming) *outTiming = {startFrame, sampleRate};
  return frames;
}

// ---------------------------------------------------------------------------
// Skeleton animation

MotionClip skeletonAnimationClip(const Skeleton& s, const std::vector<Vec3>& rootPositions,
                                 const std::vector<std::vector<Quat>>& localRotations, double frameTime) {
  const std::string context = "skeleton animation";
  if (s.empty()) throw InputError(context, "the skeleton has no joints");
  for (size_t j = 1; j < s.size(); ++j)
    if (s.joints[j].parent < 0)
      throw InputError(context, "the skeleton has several roots ('" + s.joints[0].name + "' and '" +
                                    s.joints[j].name + "'); BVH export needs one");
  if (!(frameTime > 0) || !std::isfinite(frameTime))
    throw std::invalid_argument("skeletonAnimationClip: frame time must be positive");
  if (rootPositions.size() != localRotations.size())
    throw std::invalid_argument("skeletonAnimationClip: " + std::to_string(rootPositions.size()) +
                                " root positions but " + std::to_string(localRotations.size()) +
                                " frames of rotations");
  if (localRotations.size() > size_t(INT32_MAX)) throw std::invalid_argument("skeletonAnimationClip: too many frames");
  for (size_t f = 0; f < localRotations.size(); ++f)
    if (localRotations[f].size() != s.size())
      throw std::invalid_argument("skeletonAnimationClip: frame " + std::to_string(f) + " has " +
                                  std::to_string(localRotations[f].size()) + " rotations for " +
                                  std::to_string(s.size()) + " joints");

  // Depth-first order, children in index order: the identity for a skeleton
  // that already lists each subtree contiguously.
  std::vector<std::vector<int32_t>> children(s.size());
  for (size_t j = 1; j < s.size(); ++j) children[s.joints[j].parent].push_back(static_cast<int32_t>(j));
  std::vector<int32_t> order;  // clip joint -> skeleton joint
  order.reserve(s.size());
  std::vector<int32_t> stack{0};
  while (!stack.empty()) {
    const int32_t j = stack.back();
    stack.pop_back();
    order.push_back(j);
    for (auto c = children[j].rbegin(); c != children[j].rend(); ++c) stack.push_back(*c);
  }
  std::vector<int32_t> clipIndex(s.size(), -1);  // skeleton joint -> clip joint
  for (size_t k = 0; k < order.size(); ++k) clipIndex[order[k]] = static_cast<int32_t>(k);

  MotionClip clip;
  clip.name = context;  // unitScale 1, units "m": the MotionClip defaults
  clip.frameTime = frameTime;
  int32_t column = 0;
  for (int32_t j : order) {
    const Joint& sj = s.joints[j];
    ClipJoint cj;
    cj.name = sj.name;
    cj.parent = sj.parent < 0 ? -1 : clipIndex[sj.parent];
    cj.offset = sj.restLocal.translation;
    if (j == 0) cj.channels = {Channel::Xposition, Channel::Yposition, Channel::Zposition};
    cj.channels.insert(cj.channels.end(), {Channel::Zrotation, Channel::Xrotation, Channel::Yrotation});
    cj.firstChannel = column;
    column += static_cast<int32_t>(cj.channels.size());
    if (children[j].empty() && sj.bone.kind == BoneShapeKind::Capsule && sj.bone.end != Vec3::Zero())
      cj.endSite = sj.bone.end;
    clip.joints.push_back(std::move(cj));
  }

  const size_t nFrames = localRotations.size();
  clip.frameCount = static_cast<int32_t>(nFrames);
  clip.values.resize(nFrames * static_cast<size_t>(column));
  std::vector<Vec3> previous(s.size());  // last Euler triple per skeleton joint
  for (size_t f = 0; f < nFrames; ++f) {
    if (!rootPositions[f].allFinite())
      throw InputError(context, "frame " + std::to_string(f) + ": the root position is not finite");
    double* v = clip.values.data() + f * static_cast<size_t>(column);
    for (int32_t j : order) {
      const Quat& q = localRotations[f][j];
      if (!q.coeffs().allFinite() || q.norm() < 1e-6)
        throw InputError(context, "frame " + std::to_string(f) + ": the rotation of joint '" + s.joints[j].name +
                                      "' is not a finite rotation");
      const Quat r = (s.joints[j].restLocal.rotation * q.normalized()).normalized();
      const Vec3 e = eulerZxyDegrees(r, f > 0 ? &previous[j] : nullptr);
      previous[j] = e;
      const ClipJoint& cj = clip.joints[clipIndex[j]];
      double* out = v + cj.firstChannel;
      if (j == 0) {
        for (int k = 0; k < 3; ++k) *out++ = rootPositions[f][k];
      }
      for (int k = 0; k < 3; ++k) *out++ = e[k] + 0.0;  // + 0.0: no "-0" in the file
    }
  }
  clip.validate(context);
  return clip;
}

std::vector<std::string> exportSimulatedAnimation(const std::string& directory, const std::string& baseName,
                                                  const SimulatedAnimation& a, const Skeleton* skeleton,
                                                  const Progress& progress) {
  if (a.surfaces.empty()) throw InputError(directory, "there are no simulated frames to export");
  std::vector<std::string> written;
  writeObjSequence(directory, baseName, a.triangles, a.surfaces, progress);
  written.push_back((fs::path(directory) / objSequenceFileName(baseName, 0)).string());
  const std::string pc2 = (fs::path(directory) / (baseName + ".pc2")).string();
  writePc2(pc2, a.surfaces, 0.0, 1.0);
  written.push_back(pc2);
  if (skeleton && !a.jointPoses.empty()) {
    std::vector<Vec3> roots;
    std::vector<std::vector<Quat>> rotations;
    for (const std::vector<Transform>& world : a.jointPoses) {
      if (world.size() != skeleton->joints.size())
        throw std::invalid_argument("exportSimulatedAnimation: joint poses do not match the skeleton");
      roots.push_back(world[0].translation);
      std::vector<Quat> r(world.size());
      for (size_t j = 0; j < world.size(); ++j) {
        const int32_t parent = skeleton->joints[j].parent;
        const Transform local = parent >= 0 ? world[size_t(parent)].inverse() * world[j] : world[j];
        r[j] = (skeleton->joints[j].restLocal.rotation.conjugate() * local.rotation).normalized();
      }
      rotations.push_back(std::move(r));
    }
    const std::string bvh = (fs::path(directory) / (baseName + ".bvh")).string();
    writeBvh(skeletonAnimationClip(*skeleton, roots, rotations, a.frameTime), bvh);
    written.push_back(bvh);
  }
  return written;
}

}  // namespace sinew
