// Automatic joints for a bare mesh (rig/AutoJoints.h): the example's surface
// in a T-pose and an A-pose, turned to stand along Z, scaled to centimetres
// and turned to face -Z; the known answer is the example's own skeleton.
#include "TestUtil.h"

#include "examples/ExchangeCharacters.h"
#include "examples/Humanoid.h"
#include "geometry/TriangleTree.h"
#include "rig/AutoJoints.h"
#include "rig/SkeletonEdit.h"

namespace sinew {
namespace {

const Project& humanoid() {
  static const Project p = makeHumanoidProject();
  return p;
}

struct Placement {
  double worst = 0;
  std::string worstJoint;
  size_t outside = 0;
  AutoJointReport report;
};

// Places joints in `surface` turned by `turn` and scaled by `scale`, and
// measures them (turned back) against `truth` in metres of the original.
Placement place(const TriMesh& surface, const Skeleton& truth, const Mat3& turn = Mat3::Identity(), double scale = 1) {
  TriMesh t = surface;
  for (Vec3& p : t.positions) p = scale * (turn * p);
  Placement out;
  const Skeleton s = autoPlaceJoints(t, {}, &out.report);
  EXPECT_NO_THROW(s.validate("placed"));
  EXPECT_EQ(s.size(), 19u);
  const std::vector<Vec3> want = truth.restPositions(), got = s.restPositions();
  for (size_t j = 0; j < truth.size(); ++j) {
    const int32_t k = s.find(truth.joints[j].name);
    if (k < 0) {
      ADD_FAILURE() << "no joint " << truth.joints[j].name;
      continue;
    }
    const double d = (turn.transpose() * got[size_t(k)] / scale - want[j]).norm();
    if (d > out.worst) {
      out.worst = d;
      out.worstJoint = truth.joints[j].name;
    }
  }
  out.outside = jointsOutside(s, TriangleTree(t)).size();
  return out;
}

TEST(AutoJoints, TPoseJointsLieInsideTheLimbsNearTheKnownOnes) {
  const Placement p = place(humanoid().meshes[0].mesh, humanoid().skeleton->skeleton);
  EXPECT_LT(p.worst, 0.04) << p.worstJoint;  // 2.3 % of the height
  EXPECT_EQ(p.outside, 0u);
  EXPECT_EQ(p.report.upAxis, "+Y");
  EXPECT_NEAR(p.report.height, 1.73, 0.05);
}

TEST(AutoJoints, APoseArmsAreFollowedDownToTheHands) {
  const BarePose a = makeAPoseSurface(humanoid(), 45);
  const Placement p = place(a.surface, a.skeleton);
  EXPECT_LT(p.worst, 0.06) << p.worstJoint;
  EXPECT_EQ(p.outside, 0u);
}

TEST(AutoJoints, AnyUpAxisAndScale) {
  const Mat3 zUp(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitX()));  // +Y -> +Z
  const Placement z = place(humanoid().meshes[0].mesh, humanoid().skeleton->skeleton, zUp, 100.0);
  EXPECT_EQ(z.report.upAxis, "+Z");
  EXPECT_LT(z.worst, 0.04) << z.worstJoint;
  const Mat3 xDown(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitZ()));  // +Y -> -X
  const Placement x = place(humanoid().meshes[0].mesh, humanoid().skeleton->skeleton, xDown);
  EXPECT_EQ(x.report.upAxis, "-X");
  EXPECT_LT(x.worst, 0.04) << x.worstJoint;
}

// Turned to face -Z, the character's left is -X: "LeftHand" goes there.
TEST(AutoJoints, LeftAndRightFollowTheWayTheFeetPoint) {
  const Mat3 back(Eigen::AngleAxisd(M_PI, Vec3::UnitY()));
  const Placement p = place(humanoid().meshes[0].mesh, humanoid().skeleton->skeleton, back);
  EXPECT_LT(p.worst, 0.04) << p.worstJoint;  // measured against the same names, turned back
}

TEST(AutoJoints, NotAHumanoidIsRefusedWithWhatIsMissing) {
  try {
    autoPlaceJoints(test::cube(Vec3::Zero(), 1.0), {}, nullptr, Progress::none(), "box");
    FAIL() << "a cube has no legs";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot find two legs and two arms"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("box"), std::string::npos);
  }
  EXPECT_THROW(autoPlaceJoints(TriMesh{}), InputError);
}

// A CMU skeleton (31 joints) fitted onto the placed joints: the joints with
// the same names land on them, the others follow.
TEST(AutoJoints, AnotherSkeletonIsFittedJointByJoint) {
  const TriMesh& surface = humanoid().meshes[0].mesh;
  Skeleton other = makeProductionSkeleton(humanoid().skeleton->skeleton);  // 64 joints, another scale below
  for (Joint& j : other.joints) j.restLocal.translation *= 1.3;
  const Skeleton placed = autoPlaceJoints(surface);
  const Skeleton fitted = fitSkeletonToJoints(other, placed, surface);
  ASSERT_EQ(fitted.size(), 64u);
  const std::vector<Vec3> want = placed.restPositions(), got = fitted.restPositions();
  for (size_t j = 0; j < placed.size(); ++j)
    EXPECT_LT((got[size_t(fitted.find(placed.joints[j].name))] - want[j]).norm(), 1e-9) << placed.joints[j].name;
  // A finger follows its hand: within a hand's length of it.
  const Vec3 hand = got[size_t(fitted.find("LeftHand"))], finger = got[size_t(fitted.find("LeftHandIndex3"))];
  EXPECT_LT((finger - hand).norm(), 0.2);
}

}  // namespace
}  // namespace sinew
