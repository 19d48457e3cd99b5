// Exporting simulated animation: surface meshes per frame (an OBJ sequence, a
// PC2 point cache) and the skeleton's motion (a BVH-writable MotionClip).
//
// Errors are InputError naming the file (or directory) being written or read;
// only skeletonAnimationClip, which writes no file, throws
// std::invalid_argument for arguments whose sizes disagree (a caller's bug).
#pragma once

#include "core/Progress.h"
#include "core/Types.h"
#include "model/MotionClip.h"

#include <string>
#include <vector>

namespace sinew {

// ---------------------------------------------------------------------------
// OBJ sequence

// Writes one Wavefront OBJ file per frame: <directory>/<baseName>_0000.obj,
// _0001.obj, ... (four digits, more when there are 10000 frames or more),
// each with the frame's vertices ("v x y z", %.9g, metres) and the shared
// triangles ("f a b c", 1-based). Creates `directory` if needed; every file is
// written atomically (writeFileAtomic). Files of an earlier, longer sequence
// with the same base name are left alone. A cancelled export leaves the files
// written so far.
//   triangles: (nTris) indices into each frame
//   frames:    (nFrames x nPoints) positions, every frame the same size
void writeObjSequence(const std::string& directory, const std::string& baseName, const std::vector<Tri>& triangles,
                      const std::vector<std::vector<Vec3>>& frames, const Progress& progress = Progress::none());

// File name of frame `frame` of an OBJ sequence ("<baseName>_0007.obj").
std::string objSequenceFileName(const std::string& baseName, size_t frame);

// ---------------------------------------------------------------------------
// Point cache 2 (.pc2), as read by Blender's Mesh Cache modifier and 3ds Max
//
// Layout (all little-endian):
//   char[12] "POINTCACHE2\0", int32 version (1), int32 numPoints,
//   float startFrame, float sampleRate, int32 numSamples,
//   then numSamples x numPoints x 3 float32 coordinates (sample-major).
// sampleRate is the number of frames between samples (1 = one per frame).

struct Pc2Timing {
  float startFrame = 0.0f;
  float sampleRate = 1.0f;
};

// Writes `frames` (nSamples x nPoints, metres; stored as float32). Throws
// InputError(path, ...) for frames of different sizes, non-finite or
// float-overflowing coordinates, a non-positive sample rate, or a failed write.
void writePc2(const std::string& path, const std::vector<std::vector<Vec3>>& frames, double startFrame,
              double sampleRate);

// Reads a PC2 file (nSamples x nPoints). The header is checked (magic,
// version, counts) and the declared size compared with the file length before
// anything is allocated; non-finite coordinates are rejected. Throws
// InputError(path, ...). `outTiming` receives the start frame and sample rate.
std::vector<std::vector<Vec3>> readPc2(const std::string& path, Pc2Timing* outTiming = nullptr);

// ---------------------------------------------------------------------------
// Skeleton animation as a motion clip

// Builds a clip of skeleton `s` from per-frame simulation output, ready for
// writeBvh (io/Bvh.h):
//   rootPositions:  (nFrames) world position of joint 0's origin, metres
//   localRotations: (nFrames x nJoints) rotation of each joint relative to its
//                   rest local frame (see below), in skeleton joint order
//   frameTime:      seconds per frame (> 0)
//
// Convention: at frame f the local transform of joint j (relative to its
// parent, or to the world for the root) is
//     local_j(f) = s.joints[j].restLocal * Transform{localRotations[f][j], 0}
//                = { restLocal.rotation * q, restLocal.translation },
// i.e. q rotates the joint about its own origin, with its axis expressed in
// the joint's rest frame; identity everywhere gives the rest pose. For the
// root, the translation is rootPositions[f] instead.
//
// The clip: units metres (unitScale 1), one joint per skeleton joint with the
// same name, parent and offset (restLocal.translation). Joint 0 gets the
// channels Xposition Yposition Zposition Zrotation Xrotation Yrotation, the
// others Zrotation Xrotation Yrotation; each rotation channel triple holds
// restLocal.rotation * q as BVH Euler angles in degrees (v' = Rz Rx Ry v),
// chosen frame to frame to stay continuous (no 360 degree jumps). The clip's
// localPose(f) therefore equals local_j(f) above and its world transforms equal
// the skeleton's; its zero-channel rest pose equals the skeleton's rest pose
// when the rest rotations are identity (as in the humanoid, and in BVH, which
// cannot store rest rotations).
//
// Joints are listed depth-first (BVH needs each subtree contiguous): the
// skeleton's own order whenever it already is depth-first, otherwise a
// reordering (match joints by name). A leaf joint with a capsule bone gets
// an End Site at the capsule's far end. Throws InputError for a skeleton with
// no joints or several roots, or non-finite input; std::invalid_argument for
// mismatched sizes or a bad frame time.
MotionClip skeletonAnimationClip(const Skeleton& s, const std::vector<Vec3>& rootPositions,
                                 const std::vector<std::vector<Quat>>& localRotations, double frameTime);

// BVH Euler angles (Z, X, Y order: q = Rz(z) Rx(x) Ry(y)), in degrees, returned
// as (z, x, y). With `near`, the equivalent triple closest to it is returned
// (angles unwrapped past +-180, the second solution x' = 180 - x used when
// closer); without, x lies in [-90, 90] and z, y in (-180, 180].
Vec3 eulerZxyDegrees(const Quat& q, const Vec3* near = nullptr);

// ---------------------------------------------------------------------------
// A simulated animation, exported all three ways

struct SimulatedAnimation {
  std::vector<Tri> triangles;                        // the simulated surface's
  std::vector<std::vector<Vec3>> surfaces;           // (nFrames x nVertices)
  std::vector<std::vector<Transform>> jointPoses;    // (nFrames x nJoints) world; empty: no BVH
  double frameTime = 1.0 / 60;                       // s between frames
};

// Writes <directory>/<baseName>_NNNN.obj per frame, <baseName>.pc2 and, with
// joint poses and a skeleton, <baseName>.bvh (each joint's rotation relative
// to its rest frame, the root's position). Returns the paths written (the OBJ
// sequence as its first file). Progress covers the OBJ files, most of the
// work; a cancelled export leaves the files written so far.
std::vector<std::string> exportSimulatedAnimation(const std::string& directory, const std::string& baseName,
                                                  const SimulatedAnimation& animation, const Skeleton* skeleton,
                                                  const Progress& progress = Progress::none());

}  // namespace sinew
