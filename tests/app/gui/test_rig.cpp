// The rigging tools driven with simulated input: placing, moving and posing
// joints, editing joint properties, mirroring, importing a skeleton.
#include "GuiTestUtil.h"
#include "MainWindow.h"
#include "SimulatePanel.h"
#include "SimulationController.h"
#include "io/ProjectFile.h"
#include "rig/RigBuild.h"
#include "rig/Skinning.h"
#include "rig/WeightPaint.h"
#include "rig/SkeletonEdit.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QPushButton>
#include <QSpinBox>
#include <QTest>

#include <array>
#include <cmath>

using namespace sinew;
using namespace sinew::app;
using namespace sinew::test;

namespace {

class RigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    window = std::make_unique<MainWindow>(MainWindow::RecoveryPolicy::Ignore);
    window->setInteractive(false);
    window->openProjectData(loadProject(examplePath().toStdString()), examplePath());
    window->resize(1280, 800);
    window->show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(window.get()));
    ASSERT_TRUE(waitUntil([&] { return view()->framesRendered() >= 1; }));
    // Look at the character from the front.
    view()->camera().yaw = 0;
    view()->camera().pitch = 0;
    window->viewport()->frameAll();
  }
  void TearDown() override {
    window->document()->undoStack()->setClean();
    window->close();
    window.reset();
  }
  ViewportWidget* view() { return window->viewport(); }
  const Skeleton& skeleton() { return window->document()->project().skeleton->skeleton; }
  Vec3 joint(const char* name) { return skeleton().restPositions()[size_t(skeleton().find(name))]; }
  QPoint projected(const Vec3& p) {
    double x, y;
    EXPECT_TRUE(view()->camera().project(p, view()->width(), view()->height(), &x, &y));
    return QPoint(int(std::lround(x)), int(std::lround(y)));
  }
  QImage rendered() {
    const int before = view()->framesRendered();
    view()->update();
    EXPECT_TRUE(waitUntil([&] { return view()->framesRendered() > before; }));
    return view()->grabFramebuffer();
  }
  void drag(QPoint from, QPoint to, Qt::KeyboardModifiers mods = Qt::NoModifier) {
    auto send = [&](QEvent::Type type, QPoint pos, Qt::MouseButtons buttons) {
      QMouseEvent e(type, QPointF(pos), QPointF(view()->mapToGlobal(pos)), Qt::LeftButton, buttons, mods);
      QApplication::sendEvent(view(), &e);
    };
    send(QEvent::MouseButtonPress, from, Qt::LeftButton);
    for (int i = 1; i <= 8; ++i) send(QEvent::MouseMove, from + (to - from) * i / 8, Qt::LeftButton);
    send(QEvent::MouseButtonRelease, to, Qt::NoButton);
  }
  std::unique_ptr<MainWindow> window;
};

}  // namespace

TEST_F(RigTest, PlacesAJointInsideTheLimbAsAChildOfTheSelection) {
  window->selectJoint("LeftForeArm");
  window->actToolPlace->trigger();
  const size_t before = skeleton().size();
  const int undoIndex = window->document()->undoStack()->index();
  // Click on the forearm, between elbow and wrist, seen from the front.
  const Vec3 target = 0.5 * (joint("LeftForeArm") + joint("LeftHand"));
  QTest::mouseClick(view(), Qt::LeftButton, Qt::NoModifier, projected(target));
  ASSERT_EQ(skeleton().size(), before + 1);
  const Joint& added = skeleton().joints.back();
  EXPECT_EQ(skeleton().joints[size_t(added.parent)].name, "LeftForeArm");
  EXPECT_EQ(window->rig()->selectedJoint(), QString::fromStdString(added.name));
  const Vec3 at = skeleton().restPositions().back();
  EXPECT_NEAR(at.z(), 0.0, 0.01) << "midway through the limb, not on its surface";
  EXPECT_NEAR(at.y(), target.y(), 0.01);
  EXPECT_EQ(window->document()->undoStack()->index(), undoIndex + 1);
  window->actUndo->trigger();
  EXPECT_EQ(skeleton().size(), before);
  // A click beside the body places nothing.
  QTest::mouseClick(view(), Qt::LeftButton, Qt::NoModifier, QPoint(5, view()->height() / 2));
  EXPECT_EQ(skeleton().size(), before);
}

TEST_F(RigTest, DraggingAJointIsOneUndoStepAndAxisLockWorks) {
  window->actToolMove->trigger();
  const Vec3 hand = joint("LeftHand"), elbow = joint("LeftForeArm");
  const int undoIndex = window->document()->undoStack()->index();
  drag(projected(hand), projected(hand) + QPoint(30, -40));
  const Vec3 moved = joint("LeftHand");
  EXPECT_GT((moved - hand).norm(), 0.02);
  EXPECT_NEAR(moved.z(), hand.z(), 1e-9) << "dragged in the view plane (front view: z fixed)";
  EXPECT_LT((joint("LeftForeArm") - elbow).norm(), 1e-12);
  EXPECT_EQ(window->document()->undoStack()->index(), undoIndex + 1) << "one drag, one undo step";
  window->actUndo->trigger();
  EXPECT_LT((joint("LeftHand") - hand).norm(), 1e-12);
  // Holding Y: only the height changes.
  QTest::keyPress(view(), Qt::Key_Y);
  drag(projected(hand), projected(hand) + QPoint(30, -40));
  QTest::keyRelease(view(), Qt::Key_Y);
  const Vec3 locked = joint("LeftHand");
  EXPECT_NEAR(locked.x(), hand.x(), 1e-9);
  EXPECT_GT(locked.y(), hand.y() + 0.02);
}

// The children follow a dragged joint, and so does its bone shape; Shift
// moves the joint alone; Ctrl snaps it into the middle of the limb. In the
// orthographic side view a drag moves the joint in depth.
TEST_F(RigTest, ChildrenAndBonesFollowADraggedJointAndCtrlSnapsToTheLimb) {
  window->actToolMove->trigger();
  const Vec3 hand = joint("LeftHand"), elbow = joint("LeftForeArm");
  drag(projected(elbow), projected(elbow) + QPoint(0, -30));
  const Vec3 moved = joint("LeftForeArm");
  EXPECT_GT(moved.y(), elbow.y() + 0.02);
  EXPECT_LT(((joint("LeftHand") - hand) - (moved - elbow)).norm(), 1e-9) << "the hand came along";
  // The arm's bone shape reaches the elbow's new place.
  const Skeleton& s = skeleton();
  const int32_t arm = s.find("LeftArm");
  const BoneShape& bone = s.joints[size_t(arm)].bone;
  ASSERT_EQ(bone.kind, BoneShapeKind::Capsule);
  const Transform armWorld = s.worldRest()[size_t(arm)];
  const Vec3 end = armWorld.apply(bone.end), start = armWorld.apply(bone.start);
  EXPECT_LT(((end - start).normalized() - (moved - joint("LeftArm")).normalized()).norm(), 0.05);
  window->actUndo->trigger();
  // Shift: the hand stays.
  drag(projected(elbow), projected(elbow) + QPoint(0, -30), Qt::ShiftModifier);
  EXPECT_GT(joint("LeftForeArm").y(), elbow.y() + 0.02);
  EXPECT_LT((joint("LeftHand") - hand).norm(), 1e-9);
  window->actUndo->trigger();
  // Ctrl: dragged to a point of the forearm's surface in the front view, the
  // joint lands in the middle of the limb (z about 0), not on its skin.
  const Vec3 mid = 0.5 * (elbow + hand);
  drag(projected(elbow), projected(mid), Qt::ControlModifier);
  EXPECT_NEAR(joint("LeftForeArm").z(), mid.z(), 0.02);
  EXPECT_NEAR(joint("LeftForeArm").x(), mid.x(), 0.02);
  window->actUndo->trigger();
  // The side view: looking along -x, a horizontal drag moves the head in z
  // (the elbows hide each other there).
  window->findChild<QAction*>("actionSideView")->trigger();
  EXPECT_TRUE(view()->camera().orthographic);
  const Vec3 head = joint("Head");
  drag(projected(head), projected(head) + QPoint(25, 0));
  EXPECT_GT(std::abs(joint("Head").z() - head.z()), 0.02);
  EXPECT_NEAR(joint("Head").x(), head.x(), 1e-9);
  window->actUndo->trigger();
}

TEST_F(RigTest, PosingBendsTheElbowAndTheSkinFollows) {
  const QImage rest = rendered();
  window->selectJoint("LeftForeArm");
  window->actToolPose->trigger();
  // Bend 90 degrees about the world z axis (towards +y): the hand goes up.
  window->rig()->setJointRotation("LeftForeArm", Quat(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitZ())));
  const std::vector<Transform>* pose = window->rig()->jointPose();
  ASSERT_NE(pose, nullptr);
  const Vec3 hand = (*pose)[size_t(skeleton().find("LeftHand"))].translation;
  const Vec3 elbow = joint("LeftForeArm");
  const double forearm = (joint("LeftHand") - elbow).norm();
  EXPECT_LT((hand - (elbow + Vec3(0, forearm, 0))).norm(), 1e-9);
  const QImage bent = rendered();
  bent.save(tempDir("pose") + "/bent.png");
  // The region above the elbow now shows the forearm's (light) skin.
  const QPoint above = projected(elbow + Vec3(0, 0.6 * forearm, 0.0));
  const QRect r(above.x() - 3, above.y() - 3, 7, 7);
  EXPECT_LT(imageStats(rest, r).brightFraction, 0.2);
  EXPECT_GT(imageStats(bent, r).brightFraction, 0.6);
  // Dragging the z ring rotates further; Reset Pose restores the rest pose.
  window->rig()->resetPose();
  EXPECT_FALSE(window->rig()->posed());
  EXPECT_EQ(window->document()->undoStack()->index(), 0) << "posing is not an edit";
}

TEST_F(RigTest, TheRingGizmoRotatesAboutItsAxis) {
  window->selectJoint("LeftForeArm");
  window->actToolPose->trigger();
  rendered();
  // A point on the z ring (the ring in the view plane, seen from the front):
  // 60 px from the joint, up and to the right on screen (straight up, the x
  // ring seen edge-on passes too), dragged a quarter turn round.
  const QPoint c = projected(joint("LeftForeArm"));
  drag(c + QPoint(42, -42), c + QPoint(-42, -42));
  const Quat q = window->rig()->jointRotation("LeftForeArm");
  const Eigen::AngleAxisd aa(q);
  EXPECT_NEAR(std::abs(aa.angle()), M_PI / 2, 0.15) << "a quarter turn swept on screen";
  EXPECT_GT(std::abs(aa.axis().z()), 0.95) << "about the ring's axis";
}

TEST_F(RigTest, JointPropertiesAreEditableAndUndoable) {
  window->selectJoint("LeftLeg");
  auto* type = window->properties()->findChild<QComboBox*>("Type");
  ASSERT_NE(type, nullptr);
  type->setCurrentText("hinge");
  emit type->activated(type->currentIndex());
  EXPECT_EQ(skeleton().joints[size_t(skeleton().find("LeftLeg"))].type, JointType::Hinge);
  // A hinge shows its axis.
  EXPECT_NE(window->properties()->findChild<QWidget*>("Hinge axis"), nullptr);
  auto* shape = window->properties()->findChild<QComboBox*>("Bone shape");
  ASSERT_NE(shape, nullptr);
  shape->setCurrentText("box");
  emit shape->activated(shape->currentIndex());
  EXPECT_EQ(skeleton().joints[size_t(skeleton().find("LeftLeg"))].bone.kind, BoneShapeKind::Box);
  window->actUndo->trigger();
  window->actUndo->trigger();
  EXPECT_EQ(skeleton().joints[size_t(skeleton().find("LeftLeg"))].type, JointType::Ball);
  EXPECT_EQ(skeleton().joints[size_t(skeleton().find("LeftLeg"))].bone.kind, BoneShapeKind::Capsule);
}

TEST_F(RigTest, JointPositionIsTypedIntoItsXyzFields) {
  window->selectJoint("LeftHand");
  auto* row = window->properties()->findChild<QWidget*>("Position (m)");
  ASSERT_NE(row, nullptr);
  std::array<QDoubleSpinBox*, 3> xyz{row->findChild<QDoubleSpinBox*>("x"), row->findChild<QDoubleSpinBox*>("y"),
                                     row->findChild<QDoubleSpinBox*>("z")};
  const Vec3 before = joint("LeftHand");
  for (int k = 0; k < 3; ++k) {
    ASSERT_NE(xyz[size_t(k)], nullptr) << "xyz"[k];
    EXPECT_EQ(xyz[size_t(k)]->decimals(), 4);
    EXPECT_NEAR(xyz[size_t(k)]->value(), before[k], 1e-4) << "xyz"[k];
  }
  window->findChild<QDockWidget*>("dockProperties")->raise();
  QApplication::processEvents();
  window->properties()->grab().save("/tmp/sinew-joint-properties.png");
  // Typed and committed with Enter: one edit, the joint moves by it.
  xyz[1]->setFocus();
  xyz[1]->selectAll();
  QTest::keyClicks(xyz[1], QString::number(before.y() + 0.05, 'f', 4));
  QTest::keyClick(xyz[1], Qt::Key_Return);
  EXPECT_NEAR(joint("LeftHand").y(), before.y() + 0.05, 1e-4);
  EXPECT_NEAR(joint("LeftHand").x(), before.x(), 1e-4);
  window->actUndo->trigger();
  EXPECT_LT((joint("LeftHand") - before).norm(), 1e-6);
}

TEST_F(RigTest, MirrorAndSymmetrizeAreUndoable) {
  window->actToolMove->trigger();
  drag(projected(joint("LeftHand")), projected(joint("LeftHand")) + QPoint(20, 25));
  const Vec3 left = joint("LeftHand");
  window->actMirrorLR->trigger();
  EXPECT_LT((joint("RightHand") - Vec3(-left.x(), left.y(), left.z())).norm(), 1e-9);
  window->actUndo->trigger();
  EXPECT_GT((joint("RightHand") - Vec3(-left.x(), left.y(), left.z())).norm(), 1e-3);
  window->actSymmetrize->trigger();
  const Vec3 l = joint("LeftHand"), r = joint("RightHand");
  EXPECT_LT((l - Vec3(-r.x(), r.y(), r.z())).norm(), 1e-9);
}

TEST_F(RigTest, ImportsABvhSkeletonFittedToTheMesh) {
  // Without a skeleton: the imported one becomes the project's, fitted inside the body.
  window->selectJoint({});
  window->selectObject(window->document()->project().skeleton->id);
  window->actDelete->trigger();
  ASSERT_FALSE(window->document()->project().skeleton.has_value());
  ASSERT_TRUE(window->importSkeleton("/usr/share/assimp/models/BVH/01_01.bvh"));
  ASSERT_TRUE(window->tasks()->waitForIdle(30000));
  ASSERT_TRUE(window->document()->project().skeleton.has_value());
  EXPECT_EQ(skeleton().size(), 31u);
  // Fitted by scale and translation only: the trunk is inside the body and
  // the skeleton spans the body's height; the CMU limbs (longer, wider apart)
  // poke out of the Michelin man's, and the Log says which.
  const TriMesh& body = window->document()->project().meshes[0].mesh;
  const std::vector<int32_t> outside = jointsOutside(skeleton(), TriangleTree(body));
  for (const char* name : {"Hips", "LowerBack", "Spine", "Spine1", "Neck", "Head"})
    EXPECT_EQ(std::count(outside.begin(), outside.end(), skeleton().find(name)), 0) << name << " is outside";
  Aabb joints;
  for (const Vec3& p : skeleton().restPositions()) joints.add(p);
  const double span = joints.size().y() / body.bounds().size().y();
  EXPECT_GT(span, 0.65) << "the skeleton spans most of the body's height";
  EXPECT_LT(span, 1.0);
  bool warned = false;
  for (const LogEntry& e : window->log()->entries()) warned |= e.message.contains("lie outside");
  EXPECT_EQ(warned, !outside.empty());
  EXPECT_FALSE(skeleton().bones().empty()) << "bone shapes were assigned";
  window->actUndo->trigger();
  EXPECT_FALSE(window->document()->project().skeleton.has_value());
}

TEST_F(RigTest, PaintingAStrokeChangesWeightsAlongItOnlyAndUndoRestoresThem) {
  const MeshObject& body = window->document()->project().meshes[0];
  window->selectObject(body.id);
  window->actToolPaint->trigger();
  PaintController* paint = window->paint();
  ASSERT_EQ(paint->mesh(), body.id);
  ASSERT_EQ(paint->bones().size(), skeleton().size());
  const int32_t spine = int32_t(std::find(paint->bones().begin(), paint->bones().end(), "Spine1") - paint->bones().begin());
  paint->setSelectedBone(spine);
  paint->brush.radius = 0.06;
  paint->brush.strength = 1.0;
  paint->brush.mode = BrushMode::Replace;
  paint->brush.value = 1.0;
  const WeightMatrix before = paint->weights();
  const int undoIndex = window->document()->undoStack()->index();
  // A horizontal stroke across the belly, seen from the front. The brush
  // samples lie on the polyline through the surface points under the mouse.
  const QPoint from = projected(Vec3(-0.12, 1.15, 0.25)), to = projected(Vec3(0.12, 1.15, 0.25));
  std::vector<Vec3> path;
  for (int i = 0; i <= 8; ++i) {
    const auto hit = paint->surfacePoint(from + (to - from) * i / 8);
    ASSERT_TRUE(hit.has_value());
    path.push_back(*hit);
  }
  drag(from, to);
  const WeightMatrix& after = paint->weights();
  EXPECT_EQ(window->document()->undoStack()->index(), undoIndex + 1) << "one stroke, one undo step";
  ASSERT_TRUE(body.skin.has_value());
  // Weights changed near the stroke and nowhere else.
  int changedNear = 0, changedFar = 0;
  for (size_t v = 0; v < body.mesh.vertexCount(); ++v) {
    const bool changed = (after.row(Eigen::Index(v)) - before.row(Eigen::Index(v))).cwiseAbs().maxCoeff() > 1e-9;
    const Vec3& p = body.mesh.positions[v];
    double d = std::numeric_limits<double>::infinity();
    for (size_t k = 0; k + 1 < path.size(); ++k) {
      const Vec3 ab = path[k + 1] - path[k];
      const double t = ab.squaredNorm() > 0 ? std::clamp((p - path[k]).dot(ab) / ab.squaredNorm(), 0.0, 1.0) : 0.0;
      d = std::min(d, (p - (path[k] + t * ab)).norm());
    }
    if (changed && d < paint->brush.radius + 1e-9) ++changedNear;
    if (changed && d > paint->brush.radius + 1e-9) {
      ++changedFar;
      ADD_FAILURE() << "vertex " << v << " at " << p.transpose() << " changed, " << d << " m from the stroke";
    }
  }
  EXPECT_GT(changedNear, 30);
  EXPECT_EQ(changedFar, 0);
  // The painted vertices now belong to Spine1, and rows still sum to 1.
  for (Eigen::Index v = 0; v < after.rows(); ++v) EXPECT_NEAR(after.row(v).sum(), 1.0, 1e-9);
  window->actUndo->trigger();
  EXPECT_TRUE(paint->weights().isApprox(before, 1e-9)) << "undo restores the weights";
  EXPECT_FALSE(window->document()->project().meshes[0].skin.has_value()) << "the mesh had no weights before";
  window->actRedo->trigger();
  EXPECT_TRUE(window->document()->project().meshes[0].skin.has_value());
}

TEST_F(RigTest, CutAwayShowsTheVolumeInterior) {
  // A rigged copy of the example: cage and conforming mesh built by the CLI's code path.
  Project p = loadProject(examplePath().toStdString());
  RigBuildOptions o;
  o.regions = true;
  o.weights = false;
  applyRigBuild(p, buildRig(p, 0, o));
  ASSERT_EQ(p.volumes.size(), 2u);
  window->openProjectData(std::move(p), {});
  view()->camera().yaw = 0.6;
  view()->camera().pitch = 0.2;
  window->viewport()->frameAll();
  const QImage closed = rendered();
  // Hide the surface and the cage: the conforming mesh, cut along z, shows flesh and bones.
  Project& doc = const_cast<Project&>(window->document()->project());
  (void)doc;
  window->selectObject(window->document()->project().meshes[0].id);
  QCheckBox* visible = window->properties()->findChild<QCheckBox*>("Visible");
  ASSERT_NE(visible, nullptr);
  visible->setChecked(false);
  window->selectObject(window->document()->project().volumes[0].id);  // the cage
  visible = window->properties()->findChild<QCheckBox*>("Visible");
  ASSERT_NE(visible, nullptr);
  visible->setChecked(false);
  RigController::VolumeView vv;
  vv.cutAway = true;
  vv.axis = 2;
  vv.fraction = 0.5;
  window->rig()->setVolumeView(vv);
  const QImage cut = rendered();
  cut.save(tempDir("cutaway") + "/cut.png");
  // Flesh (pink) and bone colours are both on screen.
  const QImage img = cut.convertToFormat(QImage::Format_RGB32);
  int flesh = 0, other = 0;
  for (int y = 0; y < img.height(); y += 2)
    for (int x = 0; x < img.width(); x += 2) {
      const QColor c(img.pixel(x, y));
      if (c.red() > 150 && c.red() > c.green() + 40 && c.red() > c.blue() + 40) ++flesh;
      else if (c.saturation() > 60 && c.value() > 120) ++other;
    }
  EXPECT_GT(flesh, 500) << "flesh tets visible";
  EXPECT_GT(other, 100) << "bone-region tets visible";
  EXPECT_NE(cut, closed);
}

TEST_F(RigTest, BuildingTheRigIsOneUndoStepAndGivesSmoothWeights) {
  const MeshObject& body = window->document()->project().meshes[0];
  window->selectObject(body.id);
  auto* all = window->findChild<QPushButton*>("buildRig");
  ASSERT_NE(all, nullptr);
  const int undoIndex = window->document()->undoStack()->index();
  all->click();
  ASSERT_TRUE(window->tasks()->waitForIdle(280000));
  const Project& p = window->document()->project();
  ASSERT_EQ(p.volumes.size(), 1u);
  EXPECT_EQ(p.volumes[0].kind, VolumeKind::Cage);
  EXPECT_EQ(p.volumes[0].surface, body.id);
  ASSERT_TRUE(p.volumes[0].weights.has_value());
  ASSERT_TRUE(p.meshes[0].skin.has_value());
  EXPECT_EQ(window->outliner()->itemsUnder("Volumetric mesh").size(), 1);
  EXPECT_EQ(window->document()->undoStack()->index(), undoIndex + 1) << "one undo step";
  // Smooth weights: an elbow vertex between the arm bones is shared by both.
  const SkinWeights& w = *p.meshes[0].skin;
  int blended = 0;
  for (size_t v = 0; v + 1 < w.offsets.size(); ++v)
    if (w.offsets[v + 1] - w.offsets[v] >= 2) ++blended;
  EXPECT_GT(blended, int(body.mesh.vertexCount() / 4)) << "many vertices blend two or more bones";
  // Posed with these weights, the bent elbow's skin stays in one piece:
  // neighbouring vertices move apart by little more than their rest distance.
  window->selectJoint("LeftForeArm");
  window->actToolPose->trigger();
  window->rig()->setJointRotation("LeftForeArm", Quat(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitZ())));
  window->rig()->setJointRotation("RightUpLeg", Quat(Eigen::AngleAxisd(-M_PI / 3, Vec3::UnitX())));
  const QImage posed = rendered();
  posed.save(tempDir("rigpose") + "/posed.png");
  const std::vector<Vec3> deformed = linearBlendSkinning(body.mesh.positions, w, skeleton(), *window->rig()->jointPose());
  double worstStretch = 0;
  for (const Tri& t : body.mesh.triangles)
    for (int k = 0; k < 3; ++k) {
      const size_t a = size_t(t[k]), b = size_t(t[(k + 1) % 3]);
      const double rest = (body.mesh.positions[a] - body.mesh.positions[b]).norm();
      worstStretch = std::max(worstStretch, (deformed[a] - deformed[b]).norm() / std::max(rest, 1e-9));
    }
  EXPECT_LT(worstStretch, 3.0) << "no edge tears open";
  window->rig()->resetPose();
  window->actUndo->trigger();
  EXPECT_TRUE(p.volumes.empty());
  EXPECT_FALSE(p.meshes[0].skin.has_value());
}

TEST_F(RigTest, TheConformingDetailBoxMakesACoarserMeshForLiveLi2019) {
  // The Rig panel's "Conforming detail" builds the conforming mesh from an
  // exterior of about that many vertices; the whole surface stays embedded.
  const MeshObject& body = window->document()->project().meshes[0];
  const size_t vertices = body.mesh.vertexCount();
  window->selectObject(body.id);
  auto* detail = window->findChild<QSpinBox*>("regionVertices");
  auto* build = window->findChild<QPushButton*>("buildRegions");
  ASSERT_NE(detail, nullptr);
  ASSERT_NE(build, nullptr);
  EXPECT_EQ(detail->value(), 2000);
  auto nodesAfterBuild = [&] {
    build->click();
    EXPECT_TRUE(window->tasks()->waitForIdle(280000));
    for (const VolumeObject& v : window->document()->project().volumes)
      if (v.kind == VolumeKind::Conforming) {
        EXPECT_EQ(v.embedding.vertexCount(), vertices);
        return v.mesh.nodes.size();
      }
    ADD_FAILURE() << "no conforming mesh";
    return size_t(0);
  };
  const size_t fine = nodesAfterBuild();
  detail->setValue(400);
  const size_t coarse = nodesAfterBuild();
  EXPECT_LT(double(coarse), 0.7 * double(fine)) << fine << " -> " << coarse;
  window->findChild<QDockWidget*>("dockRig")->raise();
  QApplication::processEvents();
  window->grab().save("/tmp/sinew-conforming-detail.png");
}

TEST_F(RigTest, ALiveMeshSitsBesideTheFullOneAndTheLiveSwitchPlaysIt) {
  // "Build Live Mesh" adds a coarser copy of the conforming mesh and keeps
  // the full one; the Simulate panel's "Live mesh" switch runs the copy
  // (the HUD and the log say which), and switched off the next Play runs the
  // full mesh again.
  const Project& p = window->document()->project();
  window->selectObject(p.meshes[0].id);
  window->findChild<QPushButton*>("buildRegions")->click();
  ASSERT_TRUE(window->tasks()->waitForIdle(280000));
  ASSERT_EQ(p.volumes.size(), 1u);
  const ObjectId fullId = p.volumes[0].id;
  const size_t fullNodes = p.volumes[0].mesh.nodes.size();
  auto* liveVertices = window->findChild<QSpinBox*>("liveVertices");
  ASSERT_NE(liveVertices, nullptr);
  EXPECT_EQ(liveVertices->value(), 400);
  window->findChild<QPushButton*>("buildLive")->click();
  ASSERT_TRUE(window->tasks()->waitForIdle(280000));
  ASSERT_EQ(p.volumes.size(), 2u);
  EXPECT_EQ(p.volumes[0].id, fullId);
  EXPECT_FALSE(p.volumes[0].live);
  EXPECT_EQ(p.volumes[0].mesh.nodes.size(), fullNodes) << "the full mesh is kept as it was";
  EXPECT_TRUE(p.volumes[1].live);
  EXPECT_FALSE(p.volumes[1].visible);
  EXPECT_LT(double(p.volumes[1].mesh.nodes.size()), 0.7 * double(fullNodes));
  EXPECT_EQ(p.volumes[1].embedding.vertexCount(), p.meshes[0].mesh.vertexCount());
  window->actUndo->trigger();
  EXPECT_EQ(p.volumes.size(), 1u) << "one undo step removes the copy";
  window->actRedo->trigger();
  ASSERT_EQ(p.volumes.size(), 2u);

  window->findChild<QDockWidget*>("dockSimulate")->raise();
  auto* solver = window->simulatePanel()->findChild<QComboBox*>("simSolver");
  ASSERT_NE(solver, nullptr);
  solver->setCurrentIndex(solver->findData(int(SimulationController::Solver::Li2019)));
  QCoreApplication::processEvents();
  auto* live = window->findChild<QCheckBox*>("simParam_live");
  ASSERT_NE(live, nullptr);
  EXPECT_FALSE(live->isChecked());
  auto* iterations = window->findChild<QSpinBox*>("simParam_iterations");
  ASSERT_NE(iterations, nullptr);
  iterations->setValue(5);
  live->setChecked(true);
  EXPECT_EQ(window->simulation()->solverParams(SolverKind::Li2019).at("live"), 1.0);
  SimulationController* sim = window->simulation();
  auto playSome = [&](int frames) {
    QTest::mouseClick(window->simulatePanel()->playButton(), Qt::LeftButton);
    EXPECT_TRUE(waitUntil([&] { return sim->frameCount() >= frames || !sim->lastError().isEmpty(); }, 120000));
    sim->pause();
    EXPECT_TRUE(waitUntil([&] { return !sim->simulating(); }, 60000));
    EXPECT_TRUE(sim->lastError().isEmpty()) << sim->lastError().toStdString();
    return window->viewport()->simulationText();
  };
  const QString hud = playSome(10);
  EXPECT_TRUE(hud.startsWith("li2019 (live mesh)  t = ")) << hud.toStdString();
  EXPECT_TRUE(hud.contains("x real time")) << hud.toStdString();
  bool said = false;
  for (const LogEntry& e : window->log()->entries()) said |= e.message.contains("the live conforming mesh");
  EXPECT_TRUE(said);
  window->viewport()->frameAll();
  QTest::qWait(200);
  window->grab().save("/tmp/sinew-li2019-live.png");

  live->setChecked(false);
  EXPECT_TRUE(window->simulation()->solverParams(SolverKind::Li2019).find("live") ==
              window->simulation()->solverParams(SolverKind::Li2019).end()) << "the default is not stored";
  window->simulatePanel()->findChild<QPushButton*>("simReset")->click();  // rebuilds: the parameters changed
  const QString fullHud = playSome(3);
  EXPECT_TRUE(fullHud.startsWith("li2019  t = ")) << fullHud.toStdString();
}

TEST_F(RigTest, AnOpenSurfaceGetsAConformingMeshAroundAClosedHull) {
  // Cut a hole in the belly: the conforming mesh is built around a closed
  // hull of the surface (inside and outside by winding number), the surface
  // embedded in it, and the log says so.
  Project p = loadProject(examplePath().toStdString());
  TriMesh& m = p.meshes[0].mesh;
  std::erase_if(m.triangles, [&](const Tri& t) {
    const Vec3 c = (m.positions[size_t(t[0])] + m.positions[size_t(t[1])] + m.positions[size_t(t[2])]) / 3;
    return c.z() > 0.15 && std::abs(c.y() - 1.15) < 0.05 && std::abs(c.x()) < 0.05;
  });
  const size_t vertices = m.vertexCount();
  window->openProjectData(std::move(p), {});
  RigBuildOptions o;
  o.regions = true;
  o.cage = o.weights = false;
  ASSERT_TRUE(window->runRigBuild(o, "Building the conforming mesh"));
  ASSERT_TRUE(window->tasks()->waitForIdle(280000));
  const Project& after = window->document()->project();
  ASSERT_EQ(after.volumes.size(), 1u);
  EXPECT_EQ(after.volumes[0].kind, VolumeKind::Conforming);
  EXPECT_EQ(after.volumes[0].embedding.vertexCount(), vertices);
  bool said = false;
  for (const LogEntry& e : window->log()->entries()) said |= e.message.contains("closed hull");
  EXPECT_TRUE(said) << "the log says the surface was not watertight";
}
