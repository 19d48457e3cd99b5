// Generated example motions for the default humanoid (examples/Humanoid.h):
// a kick, an elbow bend, a walk in place and a run, as BVH-style motion clips.
//
// Every clip has exactly the skeleton's joints (same names, parents and
// offsets = restLocal.translation), in metres (unitScale 1, units "m"); the
// root has channels Xposition Yposition Zposition Zrotation Xrotation
// Yrotation, the others Zrotation Xrotation Yrotation (see
// skeletonAnimationClip in io/AnimationExport.h, which builds them). The root
// stays at its rest position; leaf joints named Head, LeftHand, RightHand,
// LeftFoot and RightFoot get End Sites (top of the head, finger tips, toes).
// Frame values of 0 give the rest pose.
//
// Motions are designed in the character's frame (facing +z, left = +x, y up)
// and expressed in each joint's rest frame, so they also suit a skeleton
// whose rest rotations are not the identity. Each clip has
// round(seconds * fps) + 1 frames at 1/fps seconds, the last one at `seconds`.
//
// Sign conventions (rotations about the character's axes, right-handed):
//  - hip flexion (thigh forward, towards +z): about -X;
//  - knee flexion (shin backward, towards -z): about +X;
//  - left elbow flexion (forearm, lying along +x, swinging forward towards
//    +z): about -Y, i.e. a LeftForeArm Yrotation channel of -degrees;
//  - arm swing forward in the T-pose: left arm about -Y, right arm about +Y.
//
// All generators throw InputError("<motion> motion", ...) when a joint they
// animate is missing from `s`, or for a non-positive/non-finite duration or
// frame rate.
#pragma once

#include "model/MotionClip.h"

namespace sinew {

// The right leg kicks forward twice over 5 s, standing on the left: first
// the pelvis moves over the left foot in 0.55 s (the legs roll, the left foot
// stays, the right heel lifts), then per ~2.5 s of the clip one kick: the knee
// chambers (hip flexion 40 deg, knee 85 deg), the leg extends with the hip at
// 80 deg flexion and returns to rest, the torso leaning back a little and the
// arms counter-swinging (left forward, right back, 20 deg); in the last 0.55 s
// the weight goes back between the feet. Curves are C1 (monotone cubic
// Hermite through key poses; the weight shift quintic).
// Needs RightUpLeg, RightLeg, RightFoot, LeftUpLeg, LeftFoot, Spine, LeftArm, RightArm.
MotionClip makeKickClip(const Skeleton& s, double seconds = 5.0, double fps = 120);

// The left elbow (LeftForeArm) bends about -Y from 0 to `degrees` (within
// [-180, 180]) over the first 40% of the clip (C2 quintic ease in-out), then
// holds. The angle between the upper arm (LeftArm -> LeftForeArm) and the
// forearm (LeftForeArm -> LeftHand) then equals `degrees` for the humanoid,
// whose arm is straight along +x. Needs LeftForeArm.
MotionClip makeElbowBendClip(const Skeleton& s, double degrees = 130, double seconds = 3.0, double fps = 120);

// Marching in place, for long robustness runs: each leg in turn lifts its
// foot about 10 cm (hip flexion 30 deg, knee 60 deg, foot kept level) during
// half of every stride of `strideSeconds`, while the other leg stands straight
// at rest (so one foot is always at its rest height and the root never moves);
// the arms hang 50 deg below the T-pose, swing +-20 deg opposite to the legs
// with the elbows bent 15 deg, and the chest twists +-3 deg. The motion eases
// in over the first stride and out over the last, so the clip starts and ends
// in the rest pose; it is C2 throughout (feet touch down with zero speed
// and acceleration).
// Needs LeftUpLeg, LeftLeg, LeftFoot, RightUpLeg, RightLeg, RightFoot, Spine1,
// LeftArm, LeftForeArm, RightArm, RightForeArm.
MotionClip makeWalkInPlaceClip(const Skeleton& s, double seconds = 60.0, double fps = 120, double strideSeconds = 1.2);

// Running forward (+z), made to be physically plausible since no running
// capture ships here: it speeds up from standing to `speed` m/s over the first
// 3 s and stops over the last 3 s (C2 ramps, at most 1.9 m/s^2 at 3 m/s), a
// step every 0.35 s: at full speed 0.21 s on one foot, then 0.14 s with both
// feet off the ground; slower, the flight shortens in proportion (none
// standing) and the speed changes only while a foot is down. In flight the
// planned path falls freely (vertical speed +-g tf/2, a parabola, forward
// speed constant); on a foot
// it goes from the last flight's landing speed to the next one's take-off
// speed (the vertical momentum balances over a step). A clip that ends inside
// a step has no flight in its last steps and ends its last swing with it, so
// that its last frame stands. Each foot lands under where the
// hip will be half a stance later, less h a / g while the speed changes at a
// (the ground's push then points through the centre of mass, at height h, so
// the body does not pitch), and stays planted until it lifts (two-bone
// inverse kinematics of hip and knee in the sagittal plane, the sole level);
// the root crouches so that the landing leg is 96% stretched at full speed
// (and the leg reaches across the stance and the lead at every speed). On a foot the
// ground pushes from under the foot through the centre of mass (a
// spring-mass runner): the body brakes while the foot is ahead of it and is
// pushed on once it is behind (2.85-3.1 m/s within a step at 3 m/s). The
// trunk pitches against the legs' swing (a few degrees about its lean) so
// that the whole body's angular momentum about its centre of mass stays at
// its mean over a step: constant in flight, and no torque asked of the
// ground's push; it also twists against the legs so that the yaw momentum
// stays at its mean over a stride. The swinging
// leg, from its hip, folds (knee past 90 deg at full speed, heel towards the
// seat) and unfolds to land, continuing the stance's motion at lift-off and
// touchdown, so the knees never snap (slow, the foot glides from footprint to
// footprint instead; a target out of the leg's reach eases it straight
// rather than clamping). The arms hang 70 deg below the T-pose with the
// elbows bent 80 deg, swinging against the legs; the trunk leans 8 deg. The
// lean, bounce, crouch and swing grow and fade with the speed, so the clip
// starts and ends standing (each joint within a degree of the rest pose). Needs LeftUpLeg, LeftLeg, LeftFoot,
// RightUpLeg, RightLeg, RightFoot, Spine, Spine1, LeftArm, LeftForeArm,
// RightArm, RightForeArm; `seconds` must exceed 6 s (both ramps).
// With `body` (one mass and centre of mass, in the joint's frame, per joint:
// the character's), it is the whole body's centre of mass that takes the
// planned path (falls freely in flight, keeps its speed): the root moves
// against the limbs' swing. Without, the root takes it.
struct LinkMass {
  double mass = 0;            // kg
  Vec3 com = Vec3::Zero();    // in the joint's frame
};
MotionClip makeRunClip(const Skeleton& s, double seconds = 10.0, double fps = 120, double speed = 3.0,
                       const std::vector<LinkMass>& body = {});

}  // namespace sinew
