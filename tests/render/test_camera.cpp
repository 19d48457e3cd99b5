// Camera maths and navigation mapping (no GL needed).
#include "Camera.h"
#include "Navigation.h"

#include <gtest/gtest.h>

using namespace sinew;
using namespace sinew::render;

TEST(Camera, ProjectAndRayThroughAreInverse) {
  Camera cam;
  cam.target = Vec3(0.3, 1.0, -0.2);
  cam.distance = 3.0;
  cam.yaw = 0.7;
  cam.pitch = 0.3;
  const int w = 800, h = 600;
  const Vec3 p(0.5, 1.4, 0.1);
  double x, y;
  ASSERT_TRUE(cam.project(p, w, h, &x, &y));
  const Ray r = cam.rayThrough(x, y, w, h);
  // p lies on the ray through its own projection.
  const Vec3 d = p - r.origin;
  EXPECT_LT((d - d.dot(r.direction) * r.direction).norm(), 1e-4);
  EXPECT_GT(d.dot(r.direction), 0);
}

TEST(Camera, TargetProjectsToTheCentreAndViewIsRigid) {
  Camera cam;
  double x, y, depth;
  ASSERT_TRUE(cam.project(cam.target, 640, 480, &x, &y, &depth));
  EXPECT_NEAR(x, 320, 1e-3);
  EXPECT_NEAR(y, 240, 1e-3);
  EXPECT_GT(depth, -1);
  EXPECT_LT(depth, 1);
  const Eigen::Matrix3f r = cam.view().topLeftCorner<3, 3>();
  EXPECT_LT((r * r.transpose() - Eigen::Matrix3f::Identity()).norm(), 1e-5);
  EXPECT_NEAR((cam.eye() - cam.target).norm(), cam.distance, 1e-9);
  EXPECT_FALSE(cam.project(cam.eye() - cam.forward(), 640, 480, &x, &y)) << "behind the eye";
}

TEST(Camera, FrameFitsTheBoxAndKeepsDirection) {
  Camera cam;
  const Vec3 dir = cam.forward();
  Aabb box;
  box.add(Vec3(-0.8, 0, -0.3));
  box.add(Vec3(0.8, 1.8, 0.3));
  cam.frame(box);
  EXPECT_LT((cam.target - box.center()).norm(), 1e-12);
  EXPECT_LT((cam.forward() - dir).norm(), 1e-12);
  // Every corner of the box projects inside the viewport.
  for (int i = 0; i < 8; ++i) {
    const Vec3 c((i & 1) ? box.max.x() : box.min.x(), (i & 2) ? box.max.y() : box.min.y(),
                 (i & 4) ? box.max.z() : box.min.z());
    double x, y;
    ASSERT_TRUE(cam.project(c, 400, 400, &x, &y));
    EXPECT_GE(x, 0);
    EXPECT_LE(x, 400);
    EXPECT_GE(y, 0);
    EXPECT_LE(y, 400);
  }
}

TEST(Camera, PanMovesTheSceneWithTheCursor) {
  Camera cam;
  const Vec3 p = cam.target;
  double x0, y0, x1, y1;
  cam.project(p, 800, 600, &x0, &y0);
  cam.pan(50, -20, 600);
  cam.project(p, 800, 600, &x1, &y1);
  EXPECT_NEAR(x1 - x0, 50, 0.5);
  EXPECT_NEAR(y1 - y0, -20, 0.5);
}

TEST(Camera, PitchIsClampedAndDollyStaysPositive) {
  Camera cam;
  cam.orbit(0, 10);
  EXPECT_LT(cam.pitch, M_PI / 2);
  cam.orbit(0, -20);
  EXPECT_GT(cam.pitch, -M_PI / 2);
  for (int i = 0; i < 100; ++i) cam.dolly(0.1);
  EXPECT_GT(cam.distance, 0);
}

// Front, side and top views: parallel projection along the axis, rays that
// invert the projection, the same size at the target as in perspective;
// orbiting returns to perspective.
TEST(Camera, AxisViewsAreOrthographicAlongTheirAxis) {
  Camera cam;
  cam.target = Vec3(0.1, 0.9, 0.0);
  cam.distance = 3.0;
  const int w = 800, h = 600;
  const std::pair<Camera::Axis, Vec3> views[] = {{Camera::Axis::Front, Vec3(0, 0, -1)},
                                                 {Camera::Axis::Side, Vec3(-1, 0, 0)},
                                                 {Camera::Axis::Top, Vec3(0, -1, 0)}};
  for (const auto& [axis, forward] : views) {
    cam.lookAlong(axis);
    EXPECT_TRUE(cam.orthographic);
    EXPECT_GT(cam.forward().dot(forward), 0.9998);
    // Two points one behind the other along the view project to one pixel.
    double x1, y1, x2, y2;
    const Vec3 p(0.3, 1.2, -0.1);
    ASSERT_TRUE(cam.project(p, w, h, &x1, &y1));
    ASSERT_TRUE(cam.project(p + 0.5 * cam.forward(), w, h, &x2, &y2));
    EXPECT_NEAR(x1, x2, 1e-3);
    EXPECT_NEAR(y1, y2, 1e-3);
    const Ray r = cam.rayThrough(x1, y1, w, h);
    const Vec3 d = p - r.origin;
    EXPECT_LT((d - d.dot(r.direction) * r.direction).norm(), 1e-4);
    EXPECT_LT((r.direction - cam.forward()).norm(), 1e-12);
  }
  // A point at the target's depth sits where perspective puts it.
  cam.lookAlong(Camera::Axis::Front);
  const Vec3 q = cam.target + 0.4 * cam.up() + 0.2 * cam.right();
  double xo, yo, xp, yp;
  ASSERT_TRUE(cam.project(q, w, h, &xo, &yo));
  cam.orthographic = false;
  ASSERT_TRUE(cam.project(q, w, h, &xp, &yp));
  EXPECT_NEAR(xo, xp, 0.5);
  EXPECT_NEAR(yo, yp, 0.5);
  cam.lookAlong(Camera::Axis::Side);
  cam.orbit(0.1, 0.0);
  EXPECT_FALSE(cam.orthographic);
}

TEST(Navigation, MayaAndBlenderMappings) {
  const Modifiers none, alt{true, false, false}, shift{false, true, false}, ctrl{false, false, true};
  EXPECT_EQ(navigationFor(MouseButton::Left, alt), NavAction::Orbit);
  EXPECT_EQ(navigationFor(MouseButton::Middle, alt), NavAction::Pan);
  EXPECT_EQ(navigationFor(MouseButton::Right, alt), NavAction::Dolly);
  EXPECT_EQ(navigationFor(MouseButton::Middle, none), NavAction::Orbit);
  EXPECT_EQ(navigationFor(MouseButton::Middle, shift), NavAction::Pan);
  EXPECT_EQ(navigationFor(MouseButton::Middle, ctrl), NavAction::Dolly);
  EXPECT_EQ(navigationFor(MouseButton::Left, none), NavAction::None);
  EXPECT_EQ(navigationFor(MouseButton::Right, none), NavAction::None);
  Camera cam;
  const double d = cam.distance;
  applyWheel(cam, 1);
  EXPECT_LT(cam.distance, d);
  applyWheel(cam, -1);
  EXPECT_NEAR(cam.distance, d, 1e-9);
}

// Following a simulated character: the target moves with the subject across
// the ground only (a jump does not bob the view), the user's own pan between
// frames stays, a held subject (pulled by the mouse) does not carry the
// camera and does not make it jump afterwards, and release() takes back
// exactly what following carried.
TEST(CameraFollow, CarriesTheTargetAcrossTheGroundAndGivesItBack) {
  Camera cam;
  cam.target = Vec3(0.1, 0.9, -0.3);
  CameraFollow follow;
  EXPECT_FALSE(follow.tracking());
  follow.track(cam, Vec3(0, 1, 0));  // anchors
  EXPECT_TRUE(follow.tracking());
  EXPECT_TRUE(cam.target.isApprox(Vec3(0.1, 0.9, -0.3)));
  follow.track(cam, Vec3(0.5, 1.4, 2.0));  // forward 2 m, up 0.4 m, sideways 0.5 m
  EXPECT_LT((cam.target - Vec3(0.6, 0.9, 1.7)).norm(), 1e-12) << "x and z follow, y stays";
  cam.pan(30, 0, 600);  // the user's own move
  const Vec3 panned = cam.target;
  follow.track(cam, Vec3(0.5, 1.0, 2.0), true);  // pulled: held
  follow.track(cam, Vec3(0.5, 1.0, 3.0), true);
  EXPECT_EQ(cam.target, panned) << "held while the mouse pulls";
  follow.track(cam, Vec3(0.5, 1.0, 3.5));  // let go: on from where it is, no jump
  EXPECT_LT((cam.target - (panned + Vec3(0, 0, 0.5))).norm(), 1e-12);
  EXPECT_LT((follow.carried() - Vec3(0.5, 0, 2.5)).norm(), 1e-12);
  follow.track(cam, Vec3(std::nan(""), 0, 0));  // a broken frame moves nothing
  EXPECT_LT((cam.target - (panned + Vec3(0, 0, 0.5))).norm(), 1e-12);
  follow.release(cam);
  EXPECT_LT((cam.target - (panned - Vec3(0.5, 0, 2.0))).norm(), 1e-12) << "back by what following carried";
  EXPECT_FALSE(follow.tracking());
  follow.release(cam);  // twice: nothing more
  EXPECT_LT((cam.target - (panned - Vec3(0.5, 0, 2.0))).norm(), 1e-12);
}
