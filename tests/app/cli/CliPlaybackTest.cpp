// Controllers played back through sinew-cli simulate --controller: the
// shipped ones (the 01_01 jumps, the whole clip, the kick) and a controller that ends standing
// still, held by the balance hold. Seconds of simulated motion each, judged by
// what the character does: label "physics" (Release only), the sanitizer build
// runs the same playback code in CliOptimizeTest's shorter replays.
#include "TestPaths.h"
#include "CliRun.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

namespace sinew {
namespace {

using json = nlohmann::json;
using test::ProcessResult;
using test::TempDir;

const std::string kProject = std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-rigged.sinew";

ProcessResult cli(const TempDir& dir, std::vector<std::string> args, double timeout = 600) { return test::runCli(dir, std::move(args), timeout); }

// A controller that ends standing still (the generated "Elbow bend" clip's
// first 0.2 s, its initial targets alone) is followed by the hold: the
// reference's last pose on an ankle-strategy balance keeps the character up
// long after the end (before the hold and the rigid feet it fell 1.5 s after).
TEST(CliPlayback, AControllerThatEndsStillIsHeldUprightAfterItsEnd) {
  const TempDir dir;
  const ProcessResult o = cli(dir, {"optimize", kProject, "--clip", "Elbow bend", "--end", "0.2", "--samples", "1",
                                    "--keep", "1", "--noise", "0", "--time-scaling", "off", "--threads", "1", "-o",
                                    dir.file("stand.sinew"), "--name", "stand"});
  ASSERT_EQ(o.exitCode, 0) << o.out << o.err;
  const std::string held = dir.file("held.json");
  const ProcessResult h = cli(dir, {"simulate", dir.file("stand.sinew"), "--controller", "stand", "--threads", "2",
                                    "--stats-json", held, "--fps", "10", "--seconds", "3"});
  ASSERT_EQ(h.exitCode, 0) << h.out << h.err;
  EXPECT_NE(h.out.find("then it holds the reference's last pose under balance feedback"), std::string::npos) << h.out;
  const json hs = json::parse(test::readBytes(held))["summary"];
  EXPECT_LT(hs["controller_end"].get<double>(), 0.25);
  EXPECT_TRUE(hs["stayed_up"].get<bool>()) << hs.dump(1);
  EXPECT_LT(hs["max_tilt_degrees"].get<double>(), 3.0) << hs.dump(1);
}

// The shipped jump (projects/humanoid/humanoid-jump.sinew, 01_01 1.0-2.7 s,
// searched with a 1 s standing tail, --settle 1): played by simulate
// --controller to 3 s past its end (2.616 s), the character crouches, leaves
// the ground with both feet when the reference does, lands near the
// reference's root and stays up in the hold. Measured: flight 0.25 s
// (reference 0.233 s), take-off 0.917 s (0.917 s), centre of mass up 0.215 m
// (0.221 m), root 0.199 m from the reference's at landing and 0.183 m at the
// controller's end, forward travel 0.82 m (0.65 m), max tilt 8.3 degrees.
TEST(CliPlayback, ShippedJumpLeavesTheGroundLandsAndStaysUp) {
  const TempDir dir;
  const std::string stats = dir.file("jump.json");
  const ProcessResult r = cli(dir, {"simulate", std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-jump.sinew",
                                    "--controller", "01_01 1-2.7 s", "--threads", "1", "--seconds", "5.6",
                                    "--stats-json", stats});
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("flight: "), std::string::npos) << r.out;
  const json s = json::parse(test::readBytes(stats))["summary"];
  EXPECT_TRUE(s["stayed_up"].get<bool>()) << s.dump(1);
  EXPECT_LT(s["controller_end"].get<double>(), 5.6 - 2.9) << "played well into the hold";
  const json& f = s["flight"];
  EXPECT_GT(f["reference"]["seconds"].get<double>(), 0.2);
  EXPECT_GT(f["seconds"].get<double>(), 0.2) << "both feet 5 cm off the ground";
  EXPECT_NEAR(f["take_off"].get<double>(), f["reference"]["take_off"].get<double>(), 0.1);
  EXPECT_NEAR(f["landing"].get<double>(), f["reference"]["landing"].get<double>(), 0.1);
  EXPECT_GT(f["peak_com_rise"].get<double>(), 0.15);
  const json& t = s["forward_travel"];
  EXPECT_LT(t["root_error_at_landing"].get<double>(), 0.3);
  EXPECT_LT(t["root_error_at_controller_end"].get<double>(), 0.25);
  EXPECT_LT(t["simulated"].get<double>(), 1.5 * t["reference"].get<double>()) << "not twice as far";
}

// The whole 0-4 s of 01_01 (stand, crouch, first jump, landing, second jump)
// in one controller, shipped in the same project, searched with a 1 s
// standing tail (the jump's command with --start 0 --end 4 --seed 4 --name
// "01_01 0-4 s"; 50 windows, 15,000 samples, 1,007 s; docs/PERFORMANCE.md):
// airborne when the subject is, its root within the 0.25 m of the
// subject's at the first landing and at the end, and up 2 s past the
// controller's end (4.76 s). Measured: flight 0.417 s (reference 0.433 s),
// take-off 1.850 s (1.817 s), first landing 2.033 s (2.083 s), root 0.209 m
// from the reference's at that landing and 0.128 m at the end, travel 1.59 m
// (1.47 m), centre of mass up 0.198 m (0.211 m), max tilt 11 degrees.
TEST(CliPlayback, ShippedZeroToFourSecondsJumpsLandsAndStaysUp) {
  const TempDir dir;
  const std::string stats = dir.file("jump04.json");
  const ProcessResult r = cli(dir, {"simulate", std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-jump.sinew",
                                    "--controller", "01_01 0-4 s", "--threads", "2", "--seconds", "6.8",
                                    "--fps", "60", "--stats-json", stats});
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  const json s = json::parse(test::readBytes(stats))["summary"];
  EXPECT_TRUE(s["stayed_up"].get<bool>()) << s.dump(1);
  EXPECT_LT(s["controller_end"].get<double>(), 6.8 - 1.9) << "played well into the hold";
  const json& f = s["flight"];
  EXPECT_GT(f["reference"]["seconds"].get<double>(), 0.35) << "two jumps";
  EXPECT_GT(f["seconds"].get<double>(), 0.3) << "both feet 5 cm off the ground";
  EXPECT_NEAR(f["take_off"].get<double>(), f["reference"]["take_off"].get<double>(), 0.1);
  EXPECT_NEAR(f["landing"].get<double>(), f["reference"]["landing"].get<double>(), 0.1);
  EXPECT_GT(f["peak_com_rise"].get<double>(), 0.15);
  EXPECT_LT(f["peak_com_rise"].get<double>(), 1.5 * f["reference"]["peak_com_rise"].get<double>());
  const json& t = s["forward_travel"];
  EXPECT_GT(t["reference"].get<double>(), 1.0);
  EXPECT_LT(t["root_error_at_landing"].get<double>(), 0.25);
  EXPECT_LT(t["root_error_at_controller_end"].get<double>(), 0.25);
  EXPECT_LT(t["simulated"].get<double>(), 1.25 * t["reference"].get<double>()) << "not twice as far";
  EXPECT_GT(t["simulated"].get<double>(), 0.75 * t["reference"].get<double>());
}

// The shipped 0-4 s jump shoved 5 cm/s forward before its window at 0.5695 s
// falls; re-planned against that shove (`sinew-cli replan ... --from-time 0.5
// --push 0.5,0.05,0,0 --reanchor 0.8 --hold 2 --seed 1`, 40 samples, 4 kept,
// 3 windows ahead; docs/PERFORMANCE.md), the run shipped in the same project
// as "Jump, shoved and re-planned" carries its shove and, played, still jumps,
// lands and stands. Measured (played to 7.2 s; the controller ends at 6.92 s):
// flight 0.517 s (reference 0.467 s), centre of mass up 0.204 m (0.211 m),
// forward travel 1.45 m (1.47 m), root 0.247 m from the reference's at landing
// and 0.329 m at the end, max tilt 11.8 degrees. As saved, the same shove
// makes the jump fall at 2.59 s.
TEST(CliPlayback, ShippedShovedJumpStandsWhereTheJumpAsSavedFalls) {
  const TempDir dir;
  const std::string project = std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-jump.sinew";
  const std::string saved = dir.file("saved.json");
  const ProcessResult a = cli(dir, {"simulate", project, "--controller", "01_01 0-4 s", "--threads", "2", "--seconds",
                                    "2.9", "--fps", "60", "--push", "0.5695,0.05,0,0", "--stats-json", saved});
  ASSERT_EQ(a.exitCode, 0) << a.out << a.err;
  const json as = json::parse(test::readBytes(saved))["summary"];
  EXPECT_FALSE(as["stayed_up"].get<bool>()) << "the jump as saved falls when shoved: " << as.dump(1);

  const std::string replanned = dir.file("replanned.json");
  const ProcessResult r = cli(dir, {"simulate", project, "--controller", "Jump, shoved and re-planned", "--threads",
                                    "2", "--seconds", "7.2", "--fps", "60", "--stats-json", replanned});
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  const json all = json::parse(test::readBytes(replanned));
  const json& s = all["summary"];
  ASSERT_TRUE(s["setup"].contains("push")) << "the controller's own shove is given";
  EXPECT_EQ(s["setup"]["push"]["from"], "controller");
  EXPECT_EQ(s["setup"]["push"]["velocity"][0].get<double>(), 0.05);
  EXPECT_TRUE(s["stayed_up"].get<bool>()) << s.dump(1);
  const json& f = s["flight"];
  EXPECT_GT(f["seconds"].get<double>(), 0.3) << "it still jumps";
  const json& t = s["forward_travel"];
  EXPECT_LT(t["root_error_at_landing"].get<double>(), 0.3);
  EXPECT_LT(t["simulated"].get<double>(), 1.25 * t["reference"].get<double>()) << "not twice as far";
}

// The shipped kick (projects/humanoid/humanoid-kick.sinew: the generated Kick
// clip 0-2.5 s, the weight shifted onto the left foot, a front kick with the
// right, the foot put down; searched with a 1 s standing tail): played by
// simulate --controller to 2 s past its end (3.42 s), the right foot rises as
// high as the reference's, the left one stays on the ground, and the
// character stays up. Measured: right sole up to 0.632 m (reference 0.543 m),
// left 0.007 m (0.002 m), max tilt 7.0 degrees, up 5 s past the end.
TEST(CliPlayback, ShippedKickStandsOnOneLegKicksAndStaysUp) {
  const TempDir dir;
  const std::string stats = dir.file("kick.json");
  const ProcessResult r = cli(dir, {"simulate", std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-kick.sinew",
                                    "--controller", "Kick 0-2.5 s", "--threads", "2", "--seconds", "5.4", "--stats-json",
                                    stats});
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("feet, highest sole above the ground: LeftFoot"), std::string::npos) << r.out;
  const json s = json::parse(test::readBytes(stats))["summary"];
  EXPECT_TRUE(s["stayed_up"].get<bool>()) << s.dump(1);
  EXPECT_LT(s["controller_end"].get<double>(), 5.4 - 1.9) << "played well into the hold";
  EXPECT_EQ(s["flight"]["seconds"].get<double>(), 0.0) << "one foot always down";
  std::map<std::string, json> feet;
  for (const json& f : s["feet"]) feet[f["name"].get<std::string>()] = f;
  ASSERT_TRUE(feet.count("LeftFoot") && feet.count("RightFoot")) << s["feet"].dump();
  const json &left = feet["LeftFoot"], &right = feet["RightFoot"];
  EXPECT_GT(right["reference_peak_clearance"].get<double>(), 0.4) << "the clip kicks";
  EXPECT_GT(right["peak_clearance"].get<double>(), 0.8 * right["reference_peak_clearance"].get<double>());
  EXPECT_LT(right["peak_clearance"].get<double>(), right["reference_peak_clearance"].get<double>() + 0.2);
  EXPECT_LT(left["peak_clearance"].get<double>(), 0.05) << "the standing foot stays down";
  EXPECT_LT(s["forward_travel"]["root_error_at_controller_end"].get<double>(), 0.15);
}


// The shipped run (projects/humanoid/humanoid-run.sinew: the generated run,
// 7 s from standing to 3 m/s, a second at full speed, then to a stop, with a
// 1 s standing tail; searched to 4.07 s, then again from 4 s with another
// seed): played by simulate --controller to 1.5 s past its end (7.99 s), the
// character stays up, runs as far as the reference and stands near its end.
// Measured (2026-11-29, 10 s played): max tilt 16.3 degrees, forward travel
// 11.90 m (reference 12.05 m), root 0.16 m from the reference's at the
// controller's end (0.56 m at most, at 4.65 s while slowing down).
TEST(CliPlayback, ShippedRunSpeedsUpRunsStopsAndStaysUp) {
  const TempDir dir;
  const std::string stats = dir.file("run.json");
  const ProcessResult r = cli(dir, {"simulate", std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-run.sinew",
                                    "--controller", "Run (generated) 0-7 s", "--threads", "2", "--seconds", "9.5",
                                    "--fps", "20", "--stats-json", stats},
                              900);
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  const json s = json::parse(test::readBytes(stats))["summary"];
  EXPECT_TRUE(s["stayed_up"].get<bool>()) << s.dump(1);
  EXPECT_GT(s["controller_end"].get<double>(), 7.5) << "the whole run and its tail";
  EXPECT_LT(s["controller_end"].get<double>(), 9.5 - 1.0) << "played into the hold";
  const json& t = s["forward_travel"];
  EXPECT_GT(t["reference"].get<double>(), 10.0) << "3 m/s for a while";
  EXPECT_NEAR(t["simulated"].get<double>(), t["reference"].get<double>(), 0.05 * t["reference"].get<double>());
  EXPECT_LT(t["root_error_at_controller_end"].get<double>(), 0.25);
}

// The whole of CMU 01_01 (22.9 s: four jumps forward, a quarter turn, jumps
// back, a half turn, jumps forward again) in one controller, with a 1 s
// standing tail, shipped as "01_01 whole" in humanoid-jump.sinew. Searched in
// four parts with --redo-from (docs/PERFORMANCE.md "01_01, the whole clip":
// seed 4, then from 6.4 s with the centre of mass's velocity weighted 2, from
// 14.5 s with another seed, from 21.5 s with that weight 4). Played to 2.5 s
// past its end (23.41 s): up all along, airborne most of the subject's flight
// time, the root near the subject's through the clip and at the end, and the
// same forward travel. Measured (2026-11-27, 30 s played): max tilt 26.1
// degrees, flight 2.9 s (reference 3.3 s), root at most 0.68 m from the
// subject's (at 8.9 s, after the landing at 6.8 s; at most 0.40 m from 11 s
// on), 0.054 m at the end, mean 0.21 m, forward travel 2.83 m (2.84 m).
TEST(CliPlayback, ShippedWholeClipKeepsTheCharacterUpToTheEndAndAfter) {
  const TempDir dir;
  const std::string stats = dir.file("whole.json");
  const ProcessResult r = cli(dir, {"simulate", std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-jump.sinew",
                                    "--controller", "01_01 whole", "--threads", "2", "--seconds", "26", "--fps", "20",
                                    "--stats-json", stats},
                              900);
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  const json all = json::parse(test::readBytes(stats));
  const json& s = all["summary"];
  EXPECT_TRUE(s["stayed_up"].get<bool>()) << s.dump(1);
  const double end = s["controller_end"].get<double>();
  EXPECT_GT(end, 22.9) << "the whole clip and its tail";
  EXPECT_LT(end, 26 - 2.0) << "played well into the hold";
  const json& f = s["flight"];
  EXPECT_GT(f["reference"]["seconds"].get<double>(), 2.0) << "the clip's many jumps";
  EXPECT_GT(f["seconds"].get<double>(), 0.75 * f["reference"]["seconds"].get<double>()) << "it jumps with the subject";
  const json& t = s["forward_travel"];
  EXPECT_LT(t["root_error_at_controller_end"].get<double>(), 0.25);
  EXPECT_NEAR(t["simulated"].get<double>(), t["reference"].get<double>(), 0.25 * t["reference"].get<double>());
  // The root follows the subject's all through the clip.
  const json& k = all["tracking"];
  double worst = 0, worstLate = 0, sum = 0;
  int n = 0;
  for (size_t i = 0; i < k["time"].size(); ++i) {
    const double time = k["time"][i].get<double>(), e = k["root_position_error"][i].get<double>();
    if (time > end) continue;
    worst = std::max(worst, e);
    if (time > 11) worstLate = std::max(worstLate, e);
    sum += e;
    ++n;
  }
  ASSERT_GT(n, 400);
  EXPECT_LT(worst, 0.8);
  EXPECT_LT(worstLate, 0.5) << "after the jumps back";
  EXPECT_LT(sum / n, 0.3);
}

}  // namespace
}  // namespace sinew
