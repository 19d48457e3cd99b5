// Animation export: OBJ sequences, PC2 point caches (exact in float, hostile
// files rejected with the file's name) and skeleton animation as BVH clips
// (rotations reproduced to 1e-9, continuous Euler channels, exact BVH round trip).
#include "io/AnimationExport.h"

#include "core/Error.h"
#include "examples/Humanoid.h"
#include "io/Bvh.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <sstream>

namespace sinew {
namespace {

using test::TempDir;

// ---------------------------------------------------------------------------
// Helpers

std::vector<std::vector<Vec3>> wobblingCube(int frames) {
  const TriMesh cube = test::cube(Vec3(-0.5, 0.1, 1.0 / 3.0), 0.7);
  std::vector<std::vector<Vec3>> out;
  for (int f = 0; f < frames; ++f) {
    std::vector<Vec3> p = cube.positions;
    for (size_t i = 0; i < p.size(); ++i) p[i] += Vec3(0.01 * f, std::sin(0.3 * f + i), -1e-7 * double(i));
    out.push_back(p);
  }
  return out;
}

struct ObjFile {
  std::vector<Vec3> v;
  std::vector<Tri> f;
};
ObjFile parseObj(const std::string& text) {
  ObjFile o;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream l(line);
    std::string kw;
    l >> kw;
    if (kw == "v") {
      Vec3 p;
      l >> p.x() >> p.y() >> p.z();
      EXPECT_FALSE(l.fail()) << line;
      o.v.push_back(p);
    } else if (kw == "f") {
      Tri t;
      l >> t[0] >> t[1] >> t[2];
      EXPECT_FALSE(l.fail()) << line;
      o.f.push_back({t[0] - 1, t[1] - 1, t[2] - 1});
    }
  }
  return o;
}

// Expects f() to throw InputError whose message names `path`.
template <class F>
void expectInputErrorNaming(const std::string& path, F&& f, const std::string& alsoContains = {}) {
  try {
    f();
    ADD_FAILURE() << "expected InputError naming " << path;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    if (!alsoContains.empty()) {
      EXPECT_NE(std::string(e.what()).find(alsoContains), std::string::npos) << e.what();
    }
  }
}

double angleBetween(const Quat& a, const Quat& b) { return a.normalized().angularDistance(b.normalized()); }

Quat randomRotation(std::mt19937& rng) {
  std::normal_distribution<double> n;
  return Quat(n(rng), n(rng), n(rng), n(rng)).normalized();
}

// ---------------------------------------------------------------------------
// OBJ sequence

TEST(ObjSequence, WritesOneFilePerFrame) {
  const TempDir dir;
  const std::string out = dir.file("nested/frames");
  const TriMesh cube = test::cube();
  const auto frames = wobblingCube(3);
  std::vector<double> reported;
  const Progress progress([&](double f, std::string_view) { reported.push_back(f); });
  writeObjSequence(out, "body", cube.triangles, frames, progress);

  EXPECT_EQ(test::filesIn(out), (std::vector<std::string>{out + "/body_0000.obj", out + "/body_0001.obj",
                                                          out + "/body_0002.obj"}));
  for (size_t f = 0; f < frames.size(); ++f) {
    const ObjFile obj = parseObj(test::readBytes(out + "/" + objSequenceFileName("body", f)));
    EXPECT_EQ(obj.f, cube.triangles);
    ASSERT_EQ(obj.v.size(), frames[f].size());
    for (size_t i = 0; i < obj.v.size(); ++i)  // %.9g: about 9 significant digits
      EXPECT_LT((obj.v[i] - frames[f][i]).norm(), 1e-8) << "frame " << f << " vertex " << i;
  }
  ASSERT_FALSE(reported.empty());
  EXPECT_TRUE(std::is_sorted(reported.begin(), reported.end()));
  EXPECT_EQ(reported.back(), 1.0);
  EXPECT_EQ(objSequenceFileName("x", 12345), "x_12345.obj");
}

TEST(ObjSequence, RejectsBadInputNamingTheDirectory) {
  const TempDir dir;
  const std::string out = dir.file("seq");
  const TriMesh cube = test::cube();
  auto frames = wobblingCube(2);
  expectInputErrorNaming(out, [&] { writeObjSequence(out, "b", {{0, 1, 8}}, frames); }, "vertex 8");
  frames[1].pop_back();
  expectInputErrorNaming(out, [&] { writeObjSequence(out, "b", cube.triangles, frames); }, "frame 1");
  expectInputErrorNaming(out, [&] { writeObjSequence(out, "a/b", cube.triangles, wobblingCube(1)); });
  // A file where the directory should be.
  test::writeBytes(dir.file("file"), "x");
  expectInputErrorNaming(dir.file("file"), [&] { writeObjSequence(dir.file("file"), "b", {}, wobblingCube(1)); });
  // Cancelling stops the export.
  std::atomic<bool> cancel{true};
  EXPECT_THROW(writeObjSequence(out, "b", cube.triangles, wobblingCube(2), Progress({}, &cancel)), Cancelled);
}

// ---------------------------------------------------------------------------
// PC2

TEST(Pc2, RoundTripIsExactInFloat) {
  const TempDir dir;
  const std::string path = dir.file("cache.pc2");
  const auto frames = wobblingCube(5);
  writePc2(path, frames, 3.0, 0.5);

  const std::string bytes = test::readBytes(path);
  ASSERT_EQ(bytes.size(), 32u + 5 * 8 * 12);
  EXPECT_EQ(std::memcmp(bytes.data(), "POINTCACHE2\0", 12), 0);
  auto i32 = [&](size_t at) {
    int32_t v;
    std::memcpy(&v, bytes.data() + at, 4);  // little-endian host
    return v;
  };
  EXPECT_EQ(i32(12), 1);
  EXPECT_EQ(i32(16), 8);
  EXPECT_EQ(i32(28), 5);

  Pc2Timing timing;
  const auto back = readPc2(path, &timing);
  EXPECT_EQ(timing.startFrame, 3.0f);
  EXPECT_EQ(timing.sampleRate, 0.5f);
  ASSERT_EQ(back.size(), frames.size());
  for (size_t f = 0; f < frames.size(); ++f) {
    ASSERT_EQ(back[f].size(), frames[f].size());
    for (size_t i = 0; i < frames[f].size(); ++i)
      for (int k = 0; k < 3; ++k) EXPECT_EQ(back[f][i][k], double(float(frames[f][i][k])));
  }
  // Writing what was read gives the same bytes.
  writePc2(dir.file("again.pc2"), back, 3.0, 0.5);
  EXPECT_EQ(test::readBytes(dir.file("again.pc2")), bytes);
  // No samples at all is a valid (empty) cache.
  writePc2(dir.file("empty.pc2"), {}, 0.0, 1.0);
  EXPECT_TRUE(readPc2(dir.file("empty.pc2")).empty());
}

TEST(Pc2, HostileFilesAreRejectedNamingTheFile) {
  const TempDir dir;
  const std::string good = dir.file("good.pc2");
  writePc2(good, wobblingCube(4), 0.0, 1.0);
  const std::string bytes = test::readBytes(good);
  auto variant = [&](const std::string& name, std::string data) {
    const std::string path = dir.file(name);
    test::writeBytes(path, data);
    return path;
  };
  auto withI32 = [&](size_t at, int32_t v) {
    std::string b = bytes;
    std::memcpy(b.data() + at, &v, 4);
    return b;
  };
  auto withF32 = [&](size_t at, float v) {
    std::string b = bytes;
    std::memcpy(b.data() + at, &v, 4);
    return b;
  };
  std::string p;
  p = variant("truncated.pc2", bytes.substr(0, bytes.size() - 1));
  expectInputErrorNaming(p, [&] { readPc2(p); }, "truncated");
  p = variant("extra.pc2", bytes + "x");
  expectInputErrorNaming(p, [&] { readPc2(p); }, "size mismatch");
  p = variant("header.pc2", bytes.substr(0, 20));
  expectInputErrorNaming(p, [&] { readPc2(p); }, "header");
  p = variant("magic.pc2", "POINTCACHE3" + bytes.substr(11));
  expectInputErrorNaming(p, [&] { readPc2(p); }, "POINTCACHE2");
  p = variant("version.pc2", withI32(12, 2));
  expectInputErrorNaming(p, [&] { readPc2(p); }, "version 2");
  p = variant("negative.pc2", withI32(16, -8));
  expectInputErrorNaming(p, [&] { readPc2(p); }, "negative");
  // Counts that would need exabytes: rejected before allocating.
  std::string huge = withI32(16, INT32_MAX);
  std::memcpy(huge.data() + 28, "\xff\xff\xff\x7f", 4);
  p = variant("huge.pc2", huge);
  expectInputErrorNaming(p, [&] { readPc2(p); }, "size mismatch");
  p = variant("zeropoints.pc2", withI32(16, 0));
  expectInputErrorNaming(p, [&] { readPc2(p); }, "0 points");
  p = variant("rate.pc2", withF32(24, std::numeric_limits<float>::quiet_NaN()));
  expectInputErrorNaming(p, [&] { readPc2(p); });
  p = variant("nan.pc2", withF32(32 + 12 * 5 + 4, std::numeric_limits<float>::infinity()));
  expectInputErrorNaming(p, [&] { readPc2(p); }, "point 5");
  p = dir.file("missing.pc2");
  expectInputErrorNaming(p, [&] { readPc2(p); });
  p = variant("zero.pc2", "");
  expectInputErrorNaming(p, [&] { readPc2(p); });
}

TEST(Pc2, WriterRejectsWhatItCannotStore) {
  const TempDir dir;
  const std::string p = dir.file("bad.pc2");
  auto frames = wobblingCube(2);
  expectInputErrorNaming(p, [&] { writePc2(p, frames, 0, 0); }, "sample rate");
  frames[1][3].y() = 1e39;  // beyond float
  expectInputErrorNaming(p, [&] { writePc2(p, frames, 0, 1); }, "point 3");
  frames[1][3].y() = NAN;
  expectInputErrorNaming(p, [&] { writePc2(p, frames, 0, 1); }, "point 3");
  frames[1].pop_back();
  expectInputErrorNaming(p, [&] { writePc2(p, frames, 0, 1); }, "frame 1");
  expectInputErrorNaming(p, [&] { writePc2(p, {{}, {}}, 0, 1); }, "no points");
  EXPECT_FALSE(std::filesystem::exists(p));
}

// ---------------------------------------------------------------------------
// Euler angles

TEST(EulerZxy, ReconstructsRotations) {
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    const Quat q = randomRotation(rng);
    const Vec3 e = eulerZxyDegrees(q);
    EXPECT_LE(std::abs(e[1]), 90.0);
    const Quat r = Quat(Eigen::AngleAxisd(e[0] * M_PI / 180, Vec3::UnitZ())) *
                   Quat(Eigen::AngleAxisd(e[1] * M_PI / 180, Vec3::UnitX())) *
                   Quat(Eigen::AngleAxisd(e[2] * M_PI / 180, Vec3::UnitY()));
    EXPECT_LT(angleBetween(q, r), 1e-9);
    // The nearest equivalent to any reference is the same rotation.
    const Vec3 near(720 * (rng() % 3) - 400.0, 200.0, -170.0);
    const Vec3 e2 = eulerZxyDegrees(q, &near);
    const Quat r2 = Quat(Eigen::AngleAxisd(e2[0] * M_PI / 180, Vec3::UnitZ())) *
                    Quat(Eigen::AngleAxisd(e2[1] * M_PI / 180, Vec3::UnitX())) *
                    Quat(Eigen::AngleAxisd(e2[2] * M_PI / 180, Vec3::UnitY()));
    EXPECT_LT(angleBetween(q, r2), 1e-9);
    EXPECT_LE(std::abs(e2[0] - near[0]), 180.0 + 1e-9);
  }
  // At the gimbal (x = +-90) the rotation is still reproduced.
  for (double x : {90.0, -90.0}) {
    const Quat q = Quat(Eigen::AngleAxisd(0.3, Vec3::UnitZ())) *
                   Quat(Eigen::AngleAxisd(x * M_PI / 180, Vec3::UnitX())) *
                   Quat(Eigen::AngleAxisd(-0.2, Vec3::UnitY()));
    const Vec3 near(10, 80, -11.4);
    for (const Vec3* n : {static_cast<const Vec3*>(nullptr), &near}) {
      const Vec3 e = eulerZxyDegrees(q, n);
      const Quat r = Quat(Eigen::AngleAxisd(e[0] * M_PI / 180, Vec3::UnitZ())) *
                     Quat(Eigen::AngleAxisd(e[1] * M_PI / 180, Vec3::UnitX())) *
                     Quat(Eigen::AngleAxisd(e[2] * M_PI / 180, Vec3::UnitY()));
      EXPECT_LT(angleBetween(q, r), 1e-6);
    }
  }
}

// ---------------------------------------------------------------------------
// Skeleton animation

struct JointSpec {
  const char* name;
  int32_t parent;
  Quat rotation;
  Vec3 translation;
};
Skeleton chain(const std::vector<JointSpec>& specs) {
  Skeleton s;
  for (const JointSpec& j : specs) {
    Joint joint;
    joint.name = j.name;
    joint.parent = j.parent;
    joint.restLocal = {j.rotation, j.translation};
    s.joints.push_back(joint);
  }
  return s;
}

// Random per-joint rotations that drift smoothly from frame to frame.
std::vector<std::vector<Quat>> smoothRandomRotations(size_t joints, int frames, std::mt19937& rng) {
  std::vector<Quat> start(joints), axisSpin(joints);
  std::vector<Vec3> axes(joints);
  std::normal_distribution<double> n;
  for (size_t j = 0; j < joints; ++j) {
    start[j] = randomRotation(rng);
    axes[j] = Vec3(n(rng), n(rng), n(rng)).normalized();
  }
  std::vector<std::vector<Quat>> out(frames, std::vector<Quat>(joints));
  for (int f = 0; f < frames; ++f)
    for (size_t j = 0; j < joints; ++j) out[f][j] = Quat(Eigen::AngleAxisd(0.15 * f, axes[j])) * start[j];
  return out;
}

TEST(SkeletonAnimation, ClipReproducesRotationsAndBvhRoundTrips) {
  const Skeleton s = makeHumanoidSkeleton();
  std::mt19937 rng(3);
  const int frames = 60;
  const auto rotations = smoothRandomRotations(s.size(), frames, rng);
  std::vector<Vec3> roots;
  for (int f = 0; f < frames; ++f) roots.push_back(Vec3(0.01 * f, 0.9 + 0.05 * std::sin(0.2 * f), -0.3));
  const MotionClip clip = skeletonAnimationClip(s, roots, rotations, 1.0 / 60);
  EXPECT_NO_THROW(clip.validate("clip"));
  EXPECT_EQ(clip.frameCount, frames);
  EXPECT_EQ(clip.frameTime, 1.0 / 60);
  EXPECT_EQ(clip.unitScale, 1.0);
  ASSERT_EQ(clip.joints.size(), s.size());
  EXPECT_EQ(clip.skeleton().restPositions(), s.restPositions());

  for (int f = 0; f < frames; ++f) {
    const std::vector<Transform> local = clip.localPose(f);
    for (size_t j = 0; j < s.size(); ++j) {
      EXPECT_EQ(clip.joints[j].name, s.joints[j].name);
      EXPECT_LT(angleBetween(local[j].rotation, s.joints[j].restLocal.rotation * rotations[f][j]), 1e-9)
          << "frame " << f << " joint " << s.joints[j].name;
      const Vec3 t = j == 0 ? roots[f] : s.joints[j].restLocal.translation;
      EXPECT_LT((local[j].translation - t).norm(), 1e-15);
    }
    // Euler channels never wrap around (near the gimbal, x = +-90, z and y
    // may still turn fast: that is inherent to Euler angles).
    if (f > 0) {
      for (int32_t c = 0; c < clip.channelCount(); ++c)
        EXPECT_LT(std::abs(clip.frame(f)[c] - clip.frame(f - 1)[c]), 180.0) << "frame " << f << " channel " << c;
    }
  }

  const MotionClip back = parseBvh(formatBvh(clip), "x.bvh", 1.0);
  EXPECT_EQ(back.joints, clip.joints);
  ASSERT_EQ(back.values.size(), clip.values.size());
  for (size_t i = 0; i < clip.values.size(); ++i) EXPECT_NEAR(back.values[i], clip.values[i], 1e-6);
  for (int f = 0; f < frames; f += 5) {
    const std::vector<Transform> a = clip.localPose(f), b = back.localPose(f);
    for (size_t j = 0; j < a.size(); ++j) EXPECT_LT(angleBetween(a[j].rotation, b[j].rotation), 1e-9);
  }
  // writeBvh writes the same text.
  const TempDir dir;
  writeBvh(clip, dir.file("sim.bvh"));
  EXPECT_EQ(test::readBytes(dir.file("sim.bvh")), formatBvh(clip));
}

TEST(SkeletonAnimation, LongSpinsAndFlexionPastNinetyStayContinuous) {
  // Joint 1 spins twice about Z; joint 2 flexes from 0 to 170 degrees about X
  // (through the ZXY gimbal at 90).
  const Skeleton s = chain({{"root", -1, Quat::Identity(), Vec3(0, 1, 0)},
                            {"a", 0, Quat::Identity(), Vec3(0.2, 0, 0)},
                            {"b", 1, Quat::Identity(), Vec3(0.3, 0, 0)}});
  const int frames = 181;
  std::vector<std::vector<Quat>> rot(frames, std::vector<Quat>(3, Quat::Identity()));
  for (int f = 0; f < frames; ++f) {
    rot[f][1] = Quat(Eigen::AngleAxisd(4 * M_PI * f / (frames - 1), Vec3::UnitZ()));
    rot[f][2] = Quat(Eigen::AngleAxisd(170.0 * M_PI / 180 * f / (frames - 1), Vec3::UnitX()));
  }
  const MotionClip clip = skeletonAnimationClip(s, std::vector<Vec3>(frames, Vec3(0, 1, 0)), rot, 0.01);
  const int32_t za = clip.joints[1].firstChannel, xb = clip.joints[2].firstChannel + 1;
  EXPECT_NEAR(clip.frame(frames - 1)[za], 720.0, 1e-9);
  double maxJump = 0;
  for (int f = 0; f < frames; ++f) {
    const std::vector<Transform> local = clip.localPose(f);
    for (int j = 0; j < 3; ++j) EXPECT_LT(angleBetween(local[j].rotation, rot[f][j]), 1e-9) << f;
    if (f > 0)
      for (int32_t c = 0; c < clip.channelCount(); ++c)
        maxJump = std::max(maxJump, std::abs(clip.frame(f)[c] - clip.frame(f - 1)[c]));
  }
  EXPECT_LT(maxJump, 4.01);  // 720/180 degrees a frame at most
  // Flexion reads as a single growing X angle, even past 90 degrees.
  for (int f = 0; f < frames; f += 10) EXPECT_NEAR(clip.frame(f)[xb], 170.0 * f / (frames - 1), 1e-6) << f;
}

TEST(SkeletonAnimation, RestRotationsAndNonDepthFirstSkeletons) {
  // Joints listed breadth-first, with rest rotations: the clip lists them
  // depth-first and its world transforms equal the skeleton's.
  const Quat r1(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()));
  const Quat r2(Eigen::AngleAxisd(-1.1, Vec3(0, 1, 0)));
  Skeleton s = chain({{"root", -1, r1, Vec3(0, 1, 0)},
                      {"left", 0, r2, Vec3(0.2, 0, 0)},
                      {"right", 0, Quat::Identity(), Vec3(-0.2, 0, 0)},
                      {"leftTip", 1, r1.conjugate(), Vec3(0.3, 0.1, 0)}});
  s.joints[3].bone = BoneShape::capsule(Vec3::Zero(), Vec3(0.1, 0, 0), 0.02);
  std::mt19937 rng(11);
  const auto rot = smoothRandomRotations(4, 10, rng);
  std::vector<Vec3> roots(10, Vec3(0.1, 1.0, 0.2));
  const MotionClip clip = skeletonAnimationClip(s, roots, rot, 0.04);
  ASSERT_EQ(clip.joints.size(), 4u);
  const std::vector<std::string> names = {clip.joints[0].name, clip.joints[1].name, clip.joints[2].name,
                                          clip.joints[3].name};
  EXPECT_EQ(names, (std::vector<std::string>{"root", "left", "leftTip", "right"}));
  EXPECT_EQ(clip.joints[2].parent, 1);
  EXPECT_EQ(clip.joints[3].parent, 0);
  EXPECT_EQ(clip.joints[2].endSite, std::optional<Vec3>(Vec3(0.1, 0, 0)));
  EXPECT_FALSE(clip.joints[3].endSite);
  const int32_t fromClip[4] = {0, 1, 3, 2};  // clip joint -> skeleton joint
  for (int f = 0; f < 10; ++f) {
    std::vector<Transform> local(4);
    for (int j = 0; j < 4; ++j) local[j] = s.joints[j].restLocal * Transform{rot[f][j], Vec3::Zero()};
    local[0].translation = roots[f];
    const std::vector<Transform> expected = s.worldFromLocal(local);
    const std::vector<Transform> got = clip.skeleton().worldFromLocal(clip.localPose(f));
    for (int k = 0; k < 4; ++k) {
      EXPECT_LT(angleBetween(got[k].rotation, expected[fromClip[k]].rotation), 1e-9);
      EXPECT_LT((got[k].translation - expected[fromClip[k]].translation).norm(), 1e-12);
    }
  }
  EXPECT_NO_THROW(parseBvh(formatBvh(clip), "x.bvh", 1.0));
}

TEST(SkeletonAnimation, RejectsBadInput) {
  const Skeleton s = makeHumanoidSkeleton();
  const std::vector<std::vector<Quat>> one(1, std::vector<Quat>(s.size(), Quat::Identity()));
  const std::vector<Vec3> root(1, Vec3(0, 0.9, 0));
  EXPECT_NO_THROW(skeletonAnimationClip(s, root, one, 0.1));
  EXPECT_NO_THROW(skeletonAnimationClip(s, {}, {}, 0.1));  // no frames
  EXPECT_THROW(skeletonAnimationClip(s, {root[0], root[0]}, one, 0.1), std::invalid_argument);
  EXPECT_THROW(skeletonAnimationClip(s, root, {std::vector<Quat>(3, Quat::Identity())}, 0.1), std::invalid_argument);
  EXPECT_THROW(skeletonAnimationClip(s, root, one, 0.0), std::invalid_argument);
  auto nan = one;
  nan[0][4].x() = NAN;
  EXPECT_THROW(skeletonAnimationClip(s, root, nan, 0.1), InputError);
  EXPECT_THROW(skeletonAnimationClip(s, {Vec3(NAN, 0, 0)}, one, 0.1), InputError);
  Skeleton twoRoots = s;
  twoRoots.joints[7].parent = -1;
  EXPECT_THROW(skeletonAnimationClip(twoRoots, root, one, 0.1), InputError);
  EXPECT_THROW(skeletonAnimationClip(Skeleton{}, {}, {}, 0.1), InputError);
}


// The three files of a simulated animation: OBJ frames and PC2 hold the
// surfaces, the BVH's world joint positions are the simulated ones.
TEST(SimulatedAnimationExport, WritesObjPc2AndBvhThatReadBack) {
  const TempDir dir;
  const Skeleton s = makeHumanoidSkeleton();
  std::mt19937 rng(5);
  const int frames = 12;
  const auto rotations = smoothRandomRotations(s.size(), frames, rng);
  SimulatedAnimation a;
  a.triangles = {{0, 1, 2}, {0, 2, 3}};
  a.frameTime = 1.0 / 30;
  for (int f = 0; f < frames; ++f) {
    a.surfaces.push_back({Vec3(0, 0, 0.01 * f), Vec3(1, 0, 0), Vec3(1, 1, 0), Vec3(0, 1, 0.5)});
    std::vector<Transform> local(s.size());
    for (size_t j = 0; j < s.size(); ++j) {
      local[j] = s.joints[j].restLocal;
      local[j].rotation = (local[j].rotation * rotations[f][j]).normalized();
    }
    local[0].translation += Vec3(0.02 * f, 0, 0);
    a.jointPoses.push_back(s.worldFromLocal(local));
  }
  const std::vector<std::string> files = exportSimulatedAnimation(dir.file("out"), "walk", a, &s);
  ASSERT_EQ(files.size(), 3u);
  EXPECT_TRUE(std::filesystem::exists(dir.file("out/walk_0011.obj")));
  const auto cache = readPc2(dir.file("out/walk.pc2"));
  ASSERT_EQ(cache.size(), size_t(frames));
  EXPECT_LT((cache[7][0] - a.surfaces[7][0]).norm(), 1e-6);
  const MotionClip clip = readBvh(dir.file("out/walk.bvh"));
  ASSERT_EQ(clip.frameCount, frames);
  EXPECT_NEAR(clip.frameTime, 1.0 / 30, 1e-9);
  const Skeleton fromClip = clip.skeleton();
  for (int f = 0; f < frames; f += 3) {
    const std::vector<Transform> world = fromClip.worldFromLocal(clip.localPose(f));
    for (size_t j = 0; j < s.size(); ++j)
      EXPECT_LT((world[j].translation - a.jointPoses[f][j].translation).norm(), 1e-5) << "frame " << f << " joint " << j;
  }
  // Nothing to export, or poses that do not fit the skeleton.
  EXPECT_THROW(exportSimulatedAnimation(dir.file("empty"), "x", SimulatedAnimation{}, &s), InputError);
  SimulatedAnimation wrong = a;
  wrong.jointPoses[0].pop_back();
  EXPECT_THROW(exportSimulatedAnimation(dir.file("wrong"), "x", wrong, &s), std::invalid_argument);
}

}  // namespace
}  // namespace sinew
