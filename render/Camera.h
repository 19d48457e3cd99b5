// Orbit camera: looks at `target` from `distance` along the direction given
// by yaw (about +y) and pitch. Y is up. No GL here: matrices are plain Eigen.
#pragma once

#include "core/Types.h"

#include <Eigen/Core>

#include <optional>

namespace sinew::render {

using Mat4f = Eigen::Matrix4f;

struct Ray {
  Vec3 origin;
  Vec3 direction;  // unit
};

class Camera {
 public:
  Vec3 target = Vec3(0, 1, 0);  // orbit centre (metres)
  double distance = 4.0;        // eye to target (metres)
  double yaw = 0.5;             // radians about +y; 0 looks along -z (from +z)
  double pitch = 0.25;          // radians; positive looks down on the target
  double fovY = 40.0;           // vertical field of view (degrees)
  // Parallel projection (the front, side and top views), as large at the
  // target as the perspective view would show it; orbiting leaves it.
  bool orthographic = false;

  enum class Axis : uint8_t { Front, Side, Top };  // looking from +z, +x, +y
  // An orthographic view along `axis` of the same target and distance.
  void lookAlong(Axis axis);

  Vec3 eye() const;
  Vec3 forward() const;  // unit, eye -> target
  Vec3 right() const;    // unit
  Vec3 up() const;       // unit

  double nearPlane() const { return std::max(1e-3, distance * 1e-3); }
  double farPlane() const { return distance * 1e3 + 100.0; }
  Mat4f view() const;
  Mat4f projection(double aspect) const;

  // Navigation primitives (pixels are converted by the caller, see Navigation.h).
  void orbit(double dYaw, double dPitch);
  void pan(double dxPixels, double dyPixels, int viewportHeight);  // drags the scene with the cursor
  void dolly(double factor);                                       // distance *= factor
  // Fits the box in view, keeping the current direction.
  void frame(const Aabb& box);

  // Ray through pixel (x, y) of a width x height viewport (origin top-left).
  Ray rayThrough(double x, double y, int width, int height) const;
  // Pixel position (origin top-left) and NDC depth of a world point; false if behind the eye.
  bool project(const Vec3& p, int width, int height, double* outX, double* outY, double* outDepth = nullptr) const;
};

// Keeps a moving subject (a simulated character) in view: the camera's target
// moves with the subject across the ground (x and z; not up and down, so a
// jump does not bob the view), and the user's own orbit, pan and zoom stay.
// The first subject seen after reset() anchors it.
class CameraFollow {
 public:
  // The subject is now at `at`. With `hold` the camera stays (the mouse is
  // pulling the subject: following would carry the pull along with it).
  void track(Camera& camera, const Vec3& at, bool hold = false);
  // Back to where following began (the subject went back to rest), then reset.
  void release(Camera& camera);
  void reset();  // forget the subject (the camera was placed anew)
  bool tracking() const { return last_.has_value(); }
  // How far the camera has been carried across the ground since the anchor.
  Vec3 carried() const { return carried_; }

 private:
  std::optional<Vec3> last_;
  Vec3 carried_ = Vec3::Zero();
};

}  // namespace sinew::render
