// sinew-cli optimize and simulate --controller end to end: a short segment of
// CMU 01_01 (two windows, kept small: under AddressSanitizer each optimise
// run takes 1-2 min) on the rigged example, determinism across thread counts, replay
// of the saved controller, interruption, and bad input named.
#include "TestPaths.h"
#include "CliRun.h"
#include "TestUtil.h"
#include "io/ProjectFile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace sinew {
namespace {

using json = nlohmann::json;
using test::ProcessResult;
using test::TempDir;

using test::kCli;
const std::string kProject = std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-rigged.sinew";
const std::string kClip = "/usr/share/assimp/models/BVH/01_01.bvh";

ProcessResult cli(const TempDir& dir, std::vector<std::string> args, double timeout = 600) { return test::runCli(dir, std::move(args), timeout); }

std::vector<std::string> optimizeArgs(const std::string& out, const std::string& stats, const std::string& threads) {
  return {"optimize", kProject, "--clip", kClip, "--start", "0", "--end", "0.2", "--samples", "8", "--keep", "2",
          "--seed", "7", "--threads", threads, "-o", out, "--stats-json", stats, "--name", "stand"};
}

TEST(CliOptimize, ShortSegmentIsDeterministicAcrossThreadsAndReplaysExactly) {
  const TempDir dir;
  const ProcessResult a = cli(dir, optimizeArgs(dir.file("a.sinew"), dir.file("a.json"), "2"));
  ASSERT_EQ(a.exitCode, 0) << a.out << a.err;
  std::vector<std::string> argsB = optimizeArgs(dir.file("b.sinew"), dir.file("b.json"), "1");
  argsB.insert(argsB.end(), {"--store-clip", "off"});
  const ProcessResult b = cli(dir, argsB);
  ASSERT_EQ(b.exitCode, 0) << b.out << b.err;

  const json stats = json::parse(test::readBytes(dir.file("a.json")));
  EXPECT_EQ(stats["windows_done"], stats["windows_total"]);
  EXPECT_GE(stats["windows_total"].get<int>(), 2);
  EXPECT_EQ(stats["samples_evaluated"].get<int>(), 8 * stats["windows_total"].get<int>());
  EXPECT_GT(stats["samples_per_second"].get<double>(), 0.0);
  EXPECT_EQ(stats["stopped"], "");
  EXPECT_EQ(stats["controller"], "stand");
  EXPECT_EQ(stats["replay"]["matches_search"], true);  // the saved controller reproduces the search bit for bit
  ASSERT_EQ(stats["windows"].size(), size_t(stats["windows_total"].get<int>()));
  for (const json& w : stats["windows"]) {
    for (const char* key : {"cost", "pose_error", "root_orientation_error", "root_position_error", "end_effector_error",
                            "balance_error", "com_velocity_error", "time_scale", "wall_seconds"})
      ASSERT_TRUE(w.contains(key)) << key;
    EXPECT_EQ(w["samples"], 8);
    EXPECT_EQ(w["fell"], false);
    EXPECT_GE(w["time_scale"].get<double>(), 0.79);
    EXPECT_LE(w["time_scale"].get<double>(), 1.21);
  }

  // One or two threads: the same controller.
  const Project pa = loadProject(dir.file("a.sinew")), pb = loadProject(dir.file("b.sinew"));
  ASSERT_EQ(pa.controllers.size(), 1u);
  ASSERT_EQ(pb.controllers.size(), 1u);
  EXPECT_TRUE(pa.controllers[0].windows == pb.controllers[0].windows);
  EXPECT_EQ(pa.controllers[0].sourceClip, "01_01");
  EXPECT_EQ(pa.clips.size(), loadProject(kProject).clips.size() + 1) << "the BVH file was added as a clip";
  EXPECT_TRUE(pb.clips == loadProject(kProject).clips) << "--store-clip off leaves it out";
  EXPECT_EQ(pb.nextId, pa.nextId) << "the same ids either way";
  EXPECT_FALSE(pa.controllers[0].settings.empty());
  EXPECT_EQ(pa.controllers[0].step, 0.0005) << "made at the project's step, and it plays at it";

  // project-info lists it.
  const ProcessResult info = cli(dir, {"project-info", "--json", dir.file("a.sinew")});
  ASSERT_EQ(info.exitCode, 0) << info.err;
  const json listed = json::parse(info.out)["controllers"];
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0]["name"], "stand");
  EXPECT_EQ(listed[0]["windows"], stats["windows_total"]);

  // Replayed by simulate --controller: tracking per frame, the character up.
  const std::string replay = dir.file("replay.json");
  const ProcessResult s = cli(dir, {"simulate", dir.file("a.sinew"), "--controller", "stand", "--threads", "1",
                                    "--stats-json", replay, "--fps", "40", "--seconds", "0.6"});
  ASSERT_EQ(s.exitCode, 0) << s.out << s.err;
  const json r = json::parse(test::readBytes(replay));
  ASSERT_TRUE(r.contains("tracking"));
  const json& t = r["tracking"];
  ASSERT_GT(t["time"].size(), 10u);
  EXPECT_EQ(t["cost"].size(), t["time"].size());
  EXPECT_EQ(r["summary"]["setup"]["controller"], "stand");
  // Over the controller's own span the character stays near its reference.
  const double duration = r["summary"]["setup"]["controller_duration"].get<double>();
  for (size_t i = 0; i < t["time"].size(); ++i) {
    if (t["time"][i].get<double>() > duration) break;
    EXPECT_FALSE(t["fell"][i].get<bool>()) << "at " << t["time"][i];
    EXPECT_LT(t["root_position_error"][i].get<double>(), 0.15) << "at " << t["time"][i];
  }
  // The summary's largest tilt is the largest of the frames', and upright.
  ASSERT_EQ(t["tilt_degrees"].size(), t["time"].size());
  double maxTilt = 0;
  for (const json& x : t["tilt_degrees"]) maxTilt = std::max(maxTilt, x.get<double>());
  EXPECT_EQ(r["summary"]["max_tilt_degrees"].get<double>(), maxTilt);
  EXPECT_GT(maxTilt, 0.0);
  EXPECT_LT(maxTilt, 60.0) << "the fallen test's angle";
  EXPECT_NE(s.out.find("max tilt"), std::string::npos) << s.out;
  // "Stayed up" is stated against its threshold, and says where the controller ends.
  EXPECT_EQ(r["summary"]["upright_tilt_degrees"].get<double>(), 30.0);
  EXPECT_EQ(r["summary"]["stayed_up"].get<bool>(), !r["summary"]["fell"].get<bool>() && maxTilt < 30.0);
  EXPECT_GT(r["summary"]["controller_end"].get<double>(), 0.0);
  EXPECT_NE(s.out.find("then it holds the reference's last pose under balance feedback"), std::string::npos) << s.out;
  // Jump figures: standing, neither it nor its reference leaves the ground.
  const json& flight = r["summary"]["flight"];
  EXPECT_EQ(flight["clearance"].get<double>(), 0.05);
  EXPECT_EQ(flight["seconds"].get<double>(), 0.0);
  EXPECT_EQ(flight["reference"]["seconds"].get<double>(), 0.0);
  EXPECT_TRUE(flight["take_off"].is_null());
  EXPECT_LT(r["summary"]["forward_travel"]["simulated"].get<double>(), 0.2);
  EXPECT_LT(r["summary"]["forward_travel"]["root_error_at_controller_end"].get<double>(), 0.15);

  // fit-feedback fits its feedback by least squares from perturbed rollouts
  // (a tiny fit: one pushed rollout, two corrections per window) and writes
  // the project with the controller's windows as they were.
  const std::string fitStats = dir.file("fit.json");
  const ProcessResult f = cli(dir, {"fit-feedback", dir.file("a.sinew"), "--controller", "stand", "--rollouts", "1",
                                    "--corrections", "2", "--validation", "1", "--push", "0.5", "--threads", "2", "-o",
                                    dir.file("fit.sinew"), "--stats-json", fitStats});
  ASSERT_EQ(f.exitCode, 0) << f.out << f.err;
  const json fs = json::parse(test::readBytes(fitStats));
  EXPECT_GE(fs["pairs"].get<int>(), stats["windows_total"].get<int>()) << "every window of the unpushed rollout";
  EXPECT_EQ(fs["simulations"].get<int>(), 2 * fs["pairs"].get<int>());
  EXPECT_EQ(fs["kept"].get<bool>(), fs["fitted_score"].get<double>() < fs["initial_score"].get<double>());
  const Project pf = loadProject(dir.file("fit.sinew"));
  ASSERT_EQ(pf.controllers.size(), 1u);
  EXPECT_TRUE(pf.controllers[0].windows == pa.controllers[0].windows);
  EXPECT_EQ(pf.controllers[0].feedback == pa.controllers[0].feedback, !fs["kept"].get<bool>());
  EXPECT_NE(f.out.find("pairs"), std::string::npos) << f.out;

  // replan plays it shoved, re-planning every window from the live state (a
  // tiny search: three samples, one kept, one window ahead) and one window
  // of hold after it, and saves the controller as played beside the other.
  const std::string rpStats = dir.file("rp.json");
  const ProcessResult rp = cli(dir, {"replan", dir.file("a.sinew"), "--controller", "stand", "--samples", "3", "--keep",
                                     "1", "--horizon", "1", "--hold", "0.05", "--push", "0.1,0.3,0,0", "--threads", "2",
                                     "-o", dir.file("rp.sinew"), "--name", "replanned", "--stats-json", rpStats});
  ASSERT_EQ(rp.exitCode, 0) << rp.out << rp.err;
  EXPECT_NE(rp.out.find("the character stayed up"), std::string::npos) << rp.out;
  EXPECT_NE(rp.out.find("with its shove (replay it: simulate --controller 'replanned'"), std::string::npos) << rp.out;
  const json rs = json::parse(test::readBytes(rpStats));
  ASSERT_EQ(rs["windows"].size(), size_t(stats["windows_total"].get<int>() + 1));
  int replanned = 0;
  EXPECT_NE(rp.out.find("m from the reference's place; "), std::string::npos) << rp.out;
  for (const json& w : rs["windows"]) {
    EXPECT_TRUE(w["searched"].get<bool>());
    EXPECT_GE(w["place_metres"].get<double>(), 0.0) << "the root's distance from the reference's";
    if (w["replanned"].get<bool>()) {
      ++replanned;
      EXPECT_LT(w["searched_cost"].get<double>(), w["own_cost"].get<double>());
    }
  }
  EXPECT_EQ(rs["replanned_windows"].get<int>(), replanned);
  const Project pr = loadProject(dir.file("rp.sinew"));
  ASSERT_EQ(pr.controllers.size(), 2u);
  EXPECT_TRUE(pr.controllers[0].windows == pa.controllers[0].windows) << "the re-planned controller is left as it was";
  EXPECT_EQ(pr.controllers[1].name, "replanned");
  EXPECT_EQ(pr.controllers[1].windows.size(), rs["windows"].size());
  // It carries its shove: simulate gives it (said, and in the stats);
  // --no-shove plays it without; --push replaces it.
  ASSERT_FALSE(pr.controllers[1].shove.empty());
  EXPECT_EQ(pr.controllers[1].shove.velocity, Vec3(0.3, 0, 0));
  ASSERT_TRUE(rs["shove"].is_object());
  EXPECT_EQ(rs["shove"]["time"].get<double>(), pr.controllers[1].shove.time);
  EXPECT_TRUE(pr.controllers[0].shove.empty());
  auto play = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"simulate", dir.file("rp.sinew"), "--controller", "replanned", "--threads", "1",
                                     "--stats-json", dir.file("play.json")};
    args.insert(args.end(), extra.begin(), extra.end());
    const ProcessResult r = cli(dir, args);
    EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
    return std::make_pair(r.out, json::parse(test::readBytes(dir.file("play.json"))));
  };
  const auto [shovedOut, shoved] = play({});
  EXPECT_NE(shovedOut.find("(the controller's shove; --no-shove plays it without)"), std::string::npos) << shovedOut;
  const json& push = shoved["summary"]["setup"]["push"];
  EXPECT_EQ(push["from"], "controller");
  EXPECT_NEAR(push["time"].get<double>(), pr.controllers[1].shove.time, 1e-9);
  EXPECT_EQ(push["velocity"][0].get<double>(), 0.3);
  const auto [plainOut, plain] = play({"--no-shove"});
  EXPECT_FALSE(plain["summary"]["setup"].contains("push")) << plainOut;
  EXPECT_EQ(plainOut.find("pushed at"), std::string::npos) << plainOut;
  const auto [otherOut, other] = play({"--push", "0.05,0,0,0.2"});
  EXPECT_EQ(other["summary"]["setup"]["push"]["from"], "--push");
  EXPECT_NEAR(other["summary"]["setup"]["push"]["time"].get<double>(), 0.05, 1e-9);
  EXPECT_NE(shoved["summary"]["max_tilt_degrees"], plain["summary"]["max_tilt_degrees"]) << "the shove was given";
}

// --settle: a standing tail searched after the segment; the controller keeps
// the segment's name and clip times, its windows and duration cover the tail,
// and it saves the setting.
TEST(CliOptimize, AStandingTailIsSearchedAfterTheSegment) {
  const TempDir dir;
  const ProcessResult o = cli(dir, {"optimize", kProject, "--clip", "Elbow bend", "--end", "0.2", "--settle", "0.2",
                                    "--samples", "1", "--keep", "1", "--noise", "0", "--threads", "1", "-o",
                                    dir.file("tail.sinew"), "--stats-json", dir.file("tail.json")});
  ASSERT_EQ(o.exitCode, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("0-0.2 s and 0.2 s of standing tail after it: 4 windows"), std::string::npos) << o.out;
  const json stats = json::parse(test::readBytes(dir.file("tail.json")));
  EXPECT_EQ(stats["windows_total"], 4);
  EXPECT_EQ(stats["windows_done"], 4);
  EXPECT_EQ(stats["end"].get<double>(), 0.2);
  EXPECT_EQ(stats["replay"]["matches_search"], true);
  const Project p = loadProject(dir.file("tail.sinew"));
  ASSERT_EQ(p.controllers.size(), 1u);
  const ControllerObject& c = p.controllers[0];
  EXPECT_EQ(c.name, "Elbow bend 0-0.2 s");
  EXPECT_EQ(c.end, 0.2);
  EXPECT_NEAR(c.duration(), 0.4, 0.05);
  EXPECT_NEAR(c.reference.duration(), 0.4, 0.02);
  EXPECT_NE(c.settings.find("\"settle\":0.2"), std::string::npos) << c.settings;
  // A segment too short for a window is refused whatever tail follows it.
  const ProcessResult shortSegment = cli(dir, {"optimize", kProject, "--clip", "Elbow bend", "--start", "1", "--end",
                                               "1.02", "--settle", "0.5", "-o", dir.file("short.sinew")});
  EXPECT_EQ(shortSegment.exitCode, 2) << shortSegment.out << shortSegment.err;
  EXPECT_NE(shortSegment.err.find("shorter than one control window"), std::string::npos) << shortSegment.err;
  // Bad values are named, as every parameter of the search table's.
  for (const char* bad : {"-1", "11", "nan"}) {
    const ProcessResult b = cli(dir, {"optimize", kProject, "--clip", "Elbow bend", "--end", "0.2", "--settle", bad,
                                      "-o", dir.file("bad.sinew")});
    EXPECT_NE(b.exitCode, 0) << bad << b.out << b.err;
    EXPECT_NE(b.err.find("--settle"), std::string::npos) << bad << b.err;
  }
}

// --time-scale-range and --time-scale-weight (Section 5.2's time scaling):
// range 0 keeps every window at the reference's duration (drawn within +-0.2,
// the best of a window's samples is almost never exactly 1), and both are
// saved with the controller.
TEST(CliOptimize, TheTimeScaleRangeBoundsEachWindowsDuration) {
  const TempDir dir;
  std::vector<std::string> args = {"optimize", kProject, "--clip", "Elbow bend", "--end", "0.3", "--samples", "3",
                                   "--keep", "1", "--threads", "1", "--time-scale-range", "0", "--time-scale-weight",
                                   "3", "-o", dir.file("t.sinew"), "--stats-json", dir.file("t.json")};
  const ProcessResult o = cli(dir, args);
  ASSERT_EQ(o.exitCode, 0) << o.out << o.err;
  const json stats = json::parse(test::readBytes(dir.file("t.json")));
  ASSERT_EQ(stats["windows"].size(), 3u);
  for (const json& w : stats["windows"]) EXPECT_NEAR(w["time_scale"].get<double>(), 1.0, 1e-9) << w.dump();
  EXPECT_EQ(stats["replay"]["matches_search"], true);
  const Project p = loadProject(dir.file("t.sinew"));
  ASSERT_EQ(p.controllers.size(), 1u);
  EXPECT_NE(p.controllers[0].settings.find("\"timeScaleRange\":0.0"), std::string::npos) << p.controllers[0].settings;
  EXPECT_NE(p.controllers[0].settings.find("\"timeScaleWeight\":3.0"), std::string::npos) << p.controllers[0].settings;
}

// --step: the search and its controller at twice the paper's step (half the
// steps per sample); the controller keeps its step and plays at it wherever
// it is played, whatever the project's step.
TEST(CliOptimize, ASearchAtTwiceThePapersStepSavesItsStepAndPlaysAtIt) {
  const TempDir dir;
  std::vector<std::string> args = optimizeArgs(dir.file("a.sinew"), dir.file("a.json"), "2");
  args.insert(args.end(), {"--step", "0.001"});
  const ProcessResult a = cli(dir, args);
  ASSERT_EQ(a.exitCode, 0) << a.out << a.err;
  const json stats = json::parse(test::readBytes(dir.file("a.json")));
  EXPECT_EQ(stats["windows_done"], stats["windows_total"]);
  EXPECT_EQ(stats["replay"]["matches_search"], true);
  const Project p = loadProject(dir.file("a.sinew"));
  ASSERT_EQ(p.controllers.size(), 1u);
  EXPECT_EQ(p.controllers[0].step, 0.001);
  EXPECT_NE(p.controllers[0].settings.find("\"step\":0.001"), std::string::npos) << p.controllers[0].settings;
  EXPECT_FALSE(p.simulation.solverParam("liu2013", "dt")) << "the project's own step is left alone";
  const ProcessResult s = cli(dir, {"simulate", dir.file("a.sinew"), "--controller", "stand", "--threads", "1",
                                    "--stats-json", dir.file("r.json"), "--seconds", "0.4"});
  ASSERT_EQ(s.exitCode, 0) << s.out << s.err;
  EXPECT_NE(s.out.find("steps of 1 ms"), std::string::npos) << s.out;
  const json r = json::parse(test::readBytes(dir.file("r.json")));
  EXPECT_EQ(r["summary"]["stayed_up"], true) << s.out;
}

// --backtracks: a window above --backtrack-above sends the search back; here
// every window is, so the first is searched three times (8, 16, 16 samples)
// before the search is out of backtracks. The output says so, the stats
// count it, the controller records it and replays bit for bit.
TEST(CliOptimize, AWindowThatGoesBadlySendsTheSearchBack) {
  const TempDir dir;
  std::vector<std::string> args = optimizeArgs(dir.file("a.sinew"), dir.file("a.json"), "2");
  args.insert(args.end(), {"--backtracks", "2", "--backtrack-above", "1e-9", "--backtrack-windows", "1"});
  const ProcessResult a = cli(dir, args);
  ASSERT_EQ(a.exitCode, 0) << a.out << a.err;
  EXPECT_NE(a.out.find("above --backtrack-above: back to window 1, searching windows 1-1 again"), std::string::npos)
      << a.out;
  const json stats = json::parse(test::readBytes(dir.file("a.json")));
  EXPECT_EQ(stats["windows_done"], 2);
  EXPECT_EQ(stats["backtracks"], 2);
  EXPECT_EQ(stats["samples_evaluated"], 8 + 16 + 16 + 8);
  ASSERT_EQ(stats["windows"].size(), 4u);
  EXPECT_EQ(stats["windows"][0]["back_to"], 0);
  EXPECT_EQ(stats["windows"][1]["attempt"], 1);
  EXPECT_EQ(stats["windows"][1]["samples"], 16);
  EXPECT_EQ(stats["windows"][2]["back_to"], -1);
  EXPECT_EQ(stats["replay"]["matches_search"], true);
  const Project p = loadProject(dir.file("a.sinew"));
  ASSERT_EQ(p.controllers.size(), 1u);
  EXPECT_NE(p.controllers[0].settings.find("\"backtrack\":{\"above\":1e-09"), std::string::npos) << p.controllers[0].settings;
  EXPECT_LE(p.controllers[0].windows[0].cost, stats["windows"][0]["cost"].get<double>());
  for (const char* bad : {"-1", "nan"}) {
    const ProcessResult b = cli(dir, {"optimize", kProject, "--clip", kClip, "--backtrack-above", bad, "-o", dir.file("b.sinew")});
    EXPECT_NE(b.exitCode, 0) << bad << b.out << b.err;
    EXPECT_NE(b.err.find("--backtrack-above"), std::string::npos) << bad << b.err;
  }
  const ProcessResult b = cli(dir, {"optimize", kProject, "--clip", kClip, "--backtracks", "1.5", "-o", dir.file("b.sinew")});
  EXPECT_NE(b.err.find("--backtracks: must be a whole number"), std::string::npos) << b.err;
}

TEST(CliOptimize, InterruptKeepsTheWindowsDone) {
  const TempDir dir;
  const std::string out = dir.file("int.sinew"), log = dir.file("log.txt");
  std::string cmd = "'" + kCli + "'";
  for (const std::string& a : {std::string("optimize"), kProject, std::string("--clip"), kClip, std::string("--end"),
                               std::string("1.5"), std::string("--samples"), std::string("6"), std::string("--keep"),
                               std::string("2"), std::string("--threads"), std::string("1"), std::string("-o"), out,
                               std::string("--name"), std::string("part")})
    cmd += " '" + a + "'";
  // Start it, wait for its first window, interrupt it (Ctrl-C), report its exit status.
  const std::string script = cmd + " > '" + log + "' 2>&1 & pid=$!; while ! grep -q 'window 1/' '" + log +
                             "'; do sleep 0.1; if ! kill -0 $pid 2>/dev/null; then break; fi; done; kill -INT $pid; wait $pid; echo $?";
  const ProcessResult r = test::runProcess({"/bin/sh", "-c", script}, dir.path().string(), 300);
  ASSERT_FALSE(r.timedOut);
  EXPECT_EQ(test::lines(r.out).back(), "2") << test::readBytes(log);
  const std::string text = test::readBytes(log);
  EXPECT_NE(text.find("stopped (interrupted)"), std::string::npos) << text;
  const Project p = loadProject(out);
  ASSERT_EQ(p.controllers.size(), 1u);
  EXPECT_GE(p.controllers[0].windows.size(), 1u);
  EXPECT_LT(p.controllers[0].windows.size(), 15u);
  // It keeps what --resume goes on from: the kept states' paths, the best first.
  ASSERT_FALSE(p.controllers[0].searchKept.empty());
  EXPECT_TRUE(p.controllers[0].searchKept.front() == p.controllers[0].windows);
  EXPECT_NE(text.find("--resume"), std::string::npos) << text;
}

// A long search saves checkpoints; killed outright (no chance to save), the
// same command with --resume goes on from the last checkpoint and ends with
// the controller an uninterrupted search makes, bit for bit (here on another
// thread count).
TEST(CliOptimize, AKilledSearchResumesFromItsCheckpointToTheSameController) {
  const TempDir dir;
  auto args = [&](const std::string& out, const std::string& threads) {
    return std::vector<std::string>{"optimize", kProject, "--clip", kClip, "--start", "0", "--end", "0.5",
                                    "--samples", "6", "--keep", "3", "--seed", "5", "--threads", threads,
                                    "--name", "seg", "-o", out};
  };
  const ProcessResult full = cli(dir, args(dir.file("full.sinew"), "2"));
  ASSERT_EQ(full.exitCode, 0) << full.out << full.err;

  // Checkpoints after every window; SIGKILL once the second is written.
  const std::string part = dir.file("part.sinew"), log = dir.file("log.txt");
  std::string cmd = "'" + kCli + "'";
  for (const std::string& a : args(part, "1")) cmd += " '" + a + "'";
  const std::string script = cmd + " --checkpoint 0 > '" + log + "' 2>&1 & pid=$!; while ! grep -q 'checkpoint: 2/' '" +
                             log + "'; do sleep 0.05; if ! kill -0 $pid 2>/dev/null; then break; fi; done; kill -KILL $pid; wait $pid; echo $?";
  const ProcessResult killed = test::runProcess({"/bin/sh", "-c", script}, dir.path().string(), 300);
  ASSERT_FALSE(killed.timedOut);
  ASSERT_EQ(test::lines(killed.out).back(), "137") << test::readBytes(log);
  const Project checkpoint = loadProject(part);
  ASSERT_EQ(checkpoint.controllers.size(), 1u);
  const size_t saved = checkpoint.controllers[0].windows.size();
  EXPECT_GE(saved, 2u);
  EXPECT_EQ(checkpoint.controllers[0].searchKept.size(), 3u);

  std::vector<std::string> resume = args(part, "2");
  resume.insert(resume.end(), {"--resume", "--stats-json", dir.file("r.json")});
  const ProcessResult r = cli(dir, resume);
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("resuming 'seg' after window " + std::to_string(saved) + "/"), std::string::npos) << r.out;
  const json stats = json::parse(test::readBytes(dir.file("r.json")));
  EXPECT_EQ(stats["windows_resumed"].get<size_t>(), saved);
  EXPECT_EQ(stats["windows_done"], stats["windows_total"]);
  EXPECT_EQ(stats["replay"]["matches_search"], true);
  const Project a = loadProject(dir.file("full.sinew")), b = loadProject(part);
  ASSERT_EQ(b.controllers.size(), 1u);
  EXPECT_TRUE(a.controllers[0].windows == b.controllers[0].windows) << "the resumed search found another controller";
  EXPECT_TRUE(b.controllers[0].searchKept.empty()) << "a finished search keeps no search state";

  // Nothing left to resume; other settings are named.
  std::vector<std::string> again = args(part, "2");
  again.push_back("--resume");
  const ProcessResult done = cli(dir, again);
  EXPECT_EQ(done.exitCode, 2);
  EXPECT_NE(done.err.find("is finished"), std::string::npos) << done.err;
  std::vector<std::string> other = args(dir.file("full.sinew"), "2");
  other.insert(other.end(), {"--resume", "--noise", "0.2"});
  Project unfinished = a;
  unfinished.controllers[0].searchKept = {unfinished.controllers[0].windows};
  saveProject(unfinished, dir.file("full.sinew"));
  const ProcessResult differ = cli(dir, other);
  EXPECT_EQ(differ.exitCode, 2);
  EXPECT_NE(differ.err.find("noise: saved 0.1, now 0.2"), std::string::npos) << differ.err;
  std::vector<std::string> missing = args(dir.file("none.sinew"), "2");
  missing.push_back("--resume");
  const ProcessResult none = cli(dir, missing);
  EXPECT_EQ(none.exitCode, 2);
  EXPECT_NE(none.err.find("none.sinew: does not exist"), std::string::npos) << none.err;
}

// Out of backtracks, a window that goes badly hands over to the furthest good
// kept set an earlier pass found. Here (seed 1, 8 samples, threshold 0.06)
// window 1 costs 0.058, window 2 0.083: back to window 1, whose second
// search costs 0.062; out of backtracks, the first search of window 1 goes
// on, not the worse second one. The output and the stats say so, and the
// controller replays bit for bit.
TEST(CliOptimize, OutOfBacktracksTheFurthestGoodSearchGoesOn) {
  const TempDir dir;
  std::vector<std::string> args = optimizeArgs(dir.file("a.sinew"), dir.file("a.json"), "1");
  auto seed = std::find(args.begin(), args.end(), "--seed");
  ASSERT_NE(seed, args.end());
  *(seed + 1) = "1";
  args.insert(args.end(), {"--backtracks", "1", "--backtrack-above", "0.06", "--backtrack-windows", "1",
                           "--backtrack-samples", "1"});
  const ProcessResult a = cli(dir, args);
  ASSERT_EQ(a.exitCode, 0) << a.out << a.err;
  EXPECT_NE(a.out.find("above --backtrack-above, out of backtracks: going on from an earlier search's kept set after "
                       "window 1"),
            std::string::npos)
      << a.out;
  const json stats = json::parse(test::readBytes(dir.file("a.json")));
  ASSERT_EQ(stats["windows"].size(), 4u) << stats.dump(1);
  const json& w = stats["windows"];
  EXPECT_LE(w[0]["cost"].get<double>(), 0.06);
  EXPECT_GT(w[1]["cost"].get<double>(), 0.06);
  EXPECT_EQ(w[2]["attempt"], 1);
  EXPECT_GT(w[2]["cost"].get<double>(), w[0]["cost"].get<double>()) << "the second search of window 1 went worse";
  EXPECT_EQ(w[2]["furthest_good"], true);
  EXPECT_EQ(w[2]["back_to"], 1);
  EXPECT_EQ(stats["backtracks"], 1);
  EXPECT_EQ(stats["replay"]["matches_search"], true);
  const Project p = loadProject(dir.file("a.sinew"));
  ASSERT_EQ(p.controllers.size(), 1u);
  ASSERT_EQ(p.controllers[0].windows.size(), 2u);
  EXPECT_EQ(p.controllers[0].windows[0].cost, w[0]["cost"].get<double>()) << "window 1's first search goes on";
}

// A backtracking search killed while it searches a window again (no window
// done yet, the first search of it pending) resumes from its checkpoint,
// which keeps what its backtracking needs, to the controller an
// uninterrupted search makes, with no backtrack given back.
TEST(CliOptimize, AKilledBacktrackingSearchResumesAsIfItHadNotStopped) {
  const TempDir dir;
  auto args = [&](const std::string& out) {
    return std::vector<std::string>{"optimize", kProject, "--clip", kClip, "--start", "0", "--end", "0.3",
                                    "--samples", "4", "--keep", "2", "--seed", "5", "--threads", "2",
                                    "--backtracks", "3", "--backtrack-windows", "1", "--backtrack-above", "1e-9",
                                    "--name", "seg", "-o", out};
  };
  // Every window is above 1e-9: window 1 is searched four times, then the
  // search is out of backtracks and goes on.
  std::vector<std::string> fullArgs = args(dir.file("full.sinew"));
  fullArgs.insert(fullArgs.end(), {"--stats-json", dir.file("full.json")});
  const ProcessResult full = cli(dir, fullArgs);
  ASSERT_EQ(full.exitCode, 0) << full.out << full.err;
  const json fullStats = json::parse(test::readBytes(dir.file("full.json")));
  EXPECT_EQ(fullStats["backtracks"], 3);
  ASSERT_EQ(fullStats["windows"].size(), 6u);
  const Project a = loadProject(dir.file("full.sinew"));

  // Checkpoints after every window; SIGKILL once `line` was printed `times` times.
  auto killAfter = [&](const std::string& part, const std::string& line, int times) {
    const std::string log = dir.file("log.txt");
    std::string cmd = "'" + kCli + "'";
    for (const std::string& arg : args(part)) cmd += " '" + arg + "'";
    // (The log may not exist yet when the loop first looks: it waits then too.)
    const std::string script = cmd + " --checkpoint 0 > '" + log + "' 2>&1 & pid=$!; until [ \"$(grep -c '" + line + "' '" +
                               log + "' 2>/dev/null)\" -ge " + std::to_string(times) +
                               " ] 2>/dev/null; do sleep 0.05; if ! kill -0 $pid 2>/dev/null; then break; fi; done; kill -KILL $pid; wait $pid; echo $?";
    const ProcessResult killed = test::runProcess({"/bin/sh", "-c", script}, dir.path().string(), 300);
    ASSERT_FALSE(killed.timedOut);
    ASSERT_EQ(test::lines(killed.out).back(), "137") << test::readBytes(log);
  };
  // The resumed search evaluates exactly the samples the full one did after
  // its first `searched` window searches (those done before the kill).
  auto resume = [&](const std::string& part, size_t searched) {
    std::vector<std::string> again = args(part);
    again.insert(again.end(), {"--resume", "--stats-json", dir.file("r.json")});
    const ProcessResult r = cli(dir, again);
    if (r.exitCode != 0) {
      ADD_FAILURE() << r.out << r.err;
      return std::string();
    }
    const json stats = json::parse(test::readBytes(dir.file("r.json")));
    EXPECT_EQ(stats["backtracks"], 3) << "no backtrack given back";
    int64_t samples = fullStats["samples_evaluated"].get<int64_t>();
    for (size_t i = 0; i < searched; ++i) samples -= fullStats["windows"][i]["samples"].get<int64_t>();
    EXPECT_EQ(stats["samples_evaluated"].get<int64_t>(), samples) << "searched as the full search did after the kill";
    EXPECT_EQ(stats["windows_done"], stats["windows_total"]);
    const Project b = loadProject(part);
    EXPECT_TRUE(a.controllers[0].windows == b.controllers[0].windows) << "the resumed search found another controller";
    EXPECT_TRUE(b.controllers[0].searchBacktrack.empty()) << "a finished search keeps no search state";
    return r.out;
  };

  // Killed while window 1 is searched the third time.
  const std::string part = dir.file("part.sinew");
  killAfter(part, "checkpoint: 0/", 2);
  {
    const Project checkpoint = loadProject(part);
    ASSERT_EQ(checkpoint.controllers.size(), 1u);
    const ControllerObject& saved = checkpoint.controllers[0];
    EXPECT_TRUE(saved.windows.empty()) << "killed before any window went on";
    ASSERT_FALSE(saved.searchBacktrack.empty());
    EXPECT_EQ(saved.searchBacktrack.used, 2);
    ASSERT_EQ(saved.searchBacktrack.pending.size(), 1u) << "the better search of window 1 so far";
    EXPECT_EQ(saved.searchBacktrack.pending[0].window, 0);
  }
  const std::string out = resume(part, 2);
  EXPECT_NE(out.find("resuming 'seg' after window 0/3: replaying its 1 kept path(s) and the 2 other kept set(s) its "
                     "backtracking needs (2 backtrack(s) used)"),
            std::string::npos)
      << out;
}

// A search redone from part-way (--redo-from, what a long search that fell
// late needs): the windows that end by then are kept bit for bit and the rest
// searched anew with another seed and budget; the controller records how its
// first windows were sampled (their weights and shove, which they replay
// under), a redo of the redo cuts that record, and what cannot be redone is
// named.
TEST(CliOptimize, ASearchRedoneFromPartWayKeepsTheWindowsBefore) {
  const TempDir dir;
  const std::string out = dir.file("o.sinew");
  auto args = [&](const std::string& seed, const std::string& samples) {
    return std::vector<std::string>{"optimize", kProject, "--clip", kClip, "--start", "0", "--end", "0.3", "--samples",
                                    samples, "--keep", "2", "--seed", seed, "--threads", "2", "--name", "seg", "-o", out};
  };
  auto with = [](std::vector<std::string> a, std::initializer_list<std::string> more) {
    a.insert(a.end(), more);
    return a;
  };
  const ProcessResult made = cli(dir, args("5", "4"));
  ASSERT_EQ(made.exitCode, 0) << made.out << made.err;
  const std::vector<ControlWindow> first = loadProject(out).controllers.at(0).windows;
  ASSERT_EQ(first.size(), 3u);  // windows end at about 0.1, 0.2 and 0.29 s

  const ProcessResult redo = cli(dir, with(args("6", "6"), {"--redo-from", "0.2", "--stats-json", dir.file("r.json")}));
  ASSERT_EQ(redo.exitCode, 0) << redo.out << redo.err;
  EXPECT_NE(redo.out.find("redoing 'seg' from window 3/3"), std::string::npos) << redo.out;
  const json stats = json::parse(test::readBytes(dir.file("r.json")));
  EXPECT_EQ(stats["windows_resumed"], 2);
  EXPECT_EQ(stats["samples_evaluated"], 6) << "only the last window is searched";
  EXPECT_EQ(stats["redone_from"], 0.2);
  EXPECT_EQ(stats["replay"]["matches_search"], true);
  const ControllerObject second = loadProject(out).controllers.at(0);
  ASSERT_EQ(second.windows.size(), 3u);
  EXPECT_TRUE(second.windows[0] == first[0] && second.windows[1] == first[1]) << "the windows before are kept";
  EXPECT_FALSE(second.windows[2] == first[2]) << "the last window is searched anew";
  json settings = json::parse(second.settings);
  EXPECT_EQ(settings["seed"], 6);
  EXPECT_EQ(settings["samples"], 6);
  ASSERT_EQ(settings["earlier"].size(), 1u) << settings;
  EXPECT_EQ(settings["earlier"][0]["windows"], 2);
  EXPECT_EQ(settings["earlier"][0]["seed"], 5);
  EXPECT_EQ(settings["earlier"][0]["samples"], 4);

  // Redone again from before, under other cost weights: its record is cut
  // there, and the window kept replays under the weights it was ranked with.
  const ProcessResult again = cli(dir, with(args("7", "4"), {"--redo-from", "0.15", "--weights", "velocity=2"}));
  ASSERT_EQ(again.exitCode, 0) << again.out << again.err;
  const ControllerObject third = loadProject(out).controllers.at(0);
  EXPECT_TRUE(third.windows[0] == first[0]);
  settings = json::parse(third.settings);
  ASSERT_EQ(settings["earlier"].size(), 1u) << settings;
  EXPECT_EQ(settings["earlier"][0]["windows"], 1);
  EXPECT_EQ(settings["earlier"][0]["seed"], 5);
  EXPECT_EQ(settings["earlier"][0]["weights"]["velocity"], 0.2);
  EXPECT_EQ(settings["weights"]["velocity"], 2.0);

  // What cannot be redone, named; the saved controller is left as it was.
  const ProcessResult early = cli(dir, with(args("7", "4"), {"--redo-from", "0.05"}));
  EXPECT_EQ(early.exitCode, 2);
  EXPECT_NE(early.err.find("no window of controller 'seg' ends by 0.05 s"), std::string::npos) << early.err;
  const ProcessResult outside = cli(dir, with(args("7", "4"), {"--redo-from", "0.5"}));
  EXPECT_EQ(outside.exitCode, 2);
  EXPECT_NE(outside.err.find("must be inside the segment"), std::string::npos) << outside.err;
  const ProcessResult other = cli(dir, with(args("7", "4"), {"--redo-from", "0.2", "--pd-frequency", "6"}));
  EXPECT_EQ(other.exitCode, 2);
  EXPECT_NE(other.err.find("searched with other settings (pdFrequency: saved 5.0, now 6.0)"), std::string::npos) << other.err;
  std::vector<std::string> renamed = with(args("7", "4"), {"--redo-from", "0.2"});
  *std::find(renamed.begin(), renamed.end(), "seg") = "none";
  const ProcessResult missing = cli(dir, renamed);
  EXPECT_EQ(missing.exitCode, 2);
  EXPECT_NE(missing.err.find("has no controller 'none' to redo"), std::string::npos) << missing.err;
  EXPECT_NE(cli(dir, with(args("7", "4"), {"--redo-from", "0.2", "--resume"})).exitCode, 0);
  EXPECT_TRUE(loadProject(out).controllers.at(0) == third);
  // Its windows replay under their own weights when it is redone once more.
  const ProcessResult last = cli(dir, with(args("8", "4"), {"--redo-from", "0.25", "--weights", "velocity=2"}));
  ASSERT_EQ(last.exitCode, 0) << last.out << last.err;
  EXPECT_NE(last.out.find("redoing 'seg' from window 3/3"), std::string::npos) << last.out;
  settings = json::parse(loadProject(out).controllers.at(0).settings);
  ASSERT_EQ(settings["earlier"].size(), 2u) << settings;
  EXPECT_EQ(settings["earlier"][1]["windows"], 2);
  EXPECT_EQ(settings["earlier"][1]["seed"], 7);

  // Redone from 0.15 s with every sample also scored shoved and its twin's
  // growth scored, then from 0.25 s without: the window searched so replays
  // under its shove and tangent weight.
  const ProcessResult shoved = cli(dir, with(args("9", "4"), {"--redo-from", "0.15", "--weights", "velocity=2",
                                                             "--score-shove", "0.2", "--tangent-weight", "0.05",
                                                             "--stats-json", dir.file("s.json")}));
  ASSERT_EQ(shoved.exitCode, 0) << shoved.out << shoved.err;
  EXPECT_NE(shoved.out.find("shoved run's cost"), std::string::npos) << shoved.out;
  EXPECT_NE(shoved.out.find("twin grew"), std::string::npos) << shoved.out;
  const json shovedStats = json::parse(test::readBytes(dir.file("s.json")));
  ASSERT_EQ(shovedStats["windows"].size(), 2u);
  EXPECT_GT(shovedStats["windows"][0]["shoved_cost"].get<double>(), 0.0);
  EXPECT_EQ(shovedStats["replay"]["matches_search"], true);
  EXPECT_EQ(json::parse(loadProject(out).controllers.at(0).settings)["scoreShove"], 0.2);
  EXPECT_EQ(json::parse(loadProject(out).controllers.at(0).settings)["tangentWeight"], 0.05);
  const ProcessResult plain = cli(dir, with(args("10", "4"), {"--redo-from", "0.25", "--weights", "velocity=2"}));
  ASSERT_EQ(plain.exitCode, 0) << plain.out << plain.err;
  EXPECT_EQ(plain.out.find("shoved run's cost"), std::string::npos) << plain.out;
  settings = json::parse(loadProject(out).controllers.at(0).settings);
  ASSERT_EQ(settings["earlier"].size(), 2u) << settings;
  EXPECT_EQ(settings["earlier"][1]["windows"], 2);
  EXPECT_EQ(settings["earlier"][1]["scoreShove"], 0.2);
  EXPECT_EQ(settings["earlier"][1]["tangentWeight"], 0.05);
  EXPECT_FALSE(settings.contains("scoreShove"));
  EXPECT_FALSE(settings.contains("tangentWeight"));
}

// A segment the character cannot perform (here: samples spread so wide,
// 1.5 rad, that every one of a window falls): the search stops there, says
// where and why, keeps the windows done in the output, and exits 2.
TEST(CliOptimize, ASegmentItCannotPerformSaysWhereItFell) {
  const TempDir dir;
  const std::string out = dir.file("o.sinew"), stats = dir.file("s.json");
  const ProcessResult r = cli(dir, {"optimize", kProject, "--clip", kClip, "--start", "8", "--end", "9.5", "--noise",
                                    "1.5", "--samples", "4", "--keep", "2", "--seed", "3", "--threads", "2", "-o", out,
                                    "--stats-json", stats});
  EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("fell at t = 8."), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("every sample fell; the best: "), std::string::npos) << r.err;
  EXPECT_TRUE(r.err.find("sank below 40%") != std::string::npos || r.err.find("tilted past 60") != std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cost terms: pose"), std::string::npos) << r.err;
  const json j = json::parse(test::readBytes(stats));
  const int done = j["windows_done"].get<int>();
  EXPECT_GT(done, 0);
  EXPECT_LT(done, j["windows_total"].get<int>());
  const Project p = loadProject(out);
  ASSERT_EQ(p.controllers.size(), 1u) << "the windows done are kept";
  EXPECT_EQ(int(p.controllers[0].windows.size()), done);
  // With a backtrack: the windows before the one every sample fell in are
  // searched again with fresh samples; here that gets past it, and the search
  // falls one window later, out of backtracks.
  const ProcessResult back = cli(dir, {"optimize", kProject, "--clip", kClip, "--start", "8", "--end", "9.5", "--noise",
                                       "1.5", "--samples", "4", "--keep", "2", "--seed", "3", "--threads", "2",
                                       "--backtracks", "1", "--backtrack-windows", "2", "-o", dir.file("back.sinew"),
                                       "--stats-json", dir.file("back.json")});
  EXPECT_EQ(back.exitCode, 2) << back.out << back.err;
  EXPECT_NE(back.out.find("every sample fell: back to window " + std::to_string(done - 1) + ", searching windows " +
                          std::to_string(done - 1) + "-" + std::to_string(done + 1) + " again"),
            std::string::npos)
      << back.out;
  const json b = json::parse(test::readBytes(dir.file("back.json")));
  EXPECT_EQ(b["backtracks"], 1);
  EXPECT_GT(b["windows_done"].get<int>(), done) << "the fresh samples got past where the first search fell";
  EXPECT_EQ(b["replay"]["matches_search"], true);
  // Servos so stiff (40 Hz) that every sample of a window blows up: the
  // windows before it are kept and replay (no internal error), exit 2.
  const ProcessResult stiff = cli(dir, {"optimize", kProject, "--clip", kClip, "--start", "1", "--end", "2.7", "--pd-frequency",
                                        "40", "--samples", "1", "--noise", "0", "--time-scaling", "off", "--threads", "1",
                                        "-o", dir.file("stiff.sinew")});
  EXPECT_EQ(stiff.exitCode, 2) << stiff.out << stiff.err;
  EXPECT_NE(stiff.err.find("the simulation became unstable"), std::string::npos) << stiff.err;
  EXPECT_NE(stiff.out.find("replay matches the search"), std::string::npos) << stiff.out;
  // Servos too weak to hold even the first pose (0.1 Hz): the flesh blows up
  // while settling; that is the segment's problem, said as such (exit 2).
  const ProcessResult weak = cli(dir, {"optimize", kProject, "--clip", kClip, "--start", "8", "--end", "9", "--pd-frequency",
                                       "0.1", "--samples", "4", "-o", dir.file("w.sinew")});
  EXPECT_EQ(weak.exitCode, 2) << weak.err;
  EXPECT_NE(weak.err.find("could not settle into the segment's first pose"), std::string::npos) << weak.err;
  EXPECT_EQ(weak.err.find("internal error"), std::string::npos) << weak.err;
}

TEST(CliOptimize, BadInputIsNamed) {
  const TempDir dir;
  auto expectError = [&](std::vector<std::string> args, const std::string& fragment) {
    const ProcessResult r = cli(dir, args);
    EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
    EXPECT_EQ(test::lines(r.err).size(), 1u) << r.err;
    EXPECT_NE(r.err.find(fragment), std::string::npos) << "'" << fragment << "' not in: " << r.err;
  };
  const std::string out = dir.file("o.sinew");
  expectError({"optimize", kProject, "--clip", "Dance", "-o", out}, "Kick");  // lists the clips
  expectError({"optimize", kProject, "--clip", kClip, "--start", "1", "--end", "1.02", "-o", out},
              "shorter than one control window");
  expectError({"optimize", std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid.sinew", "--clip", kClip, "-o", out},
              "volumetric mesh");
  expectError({"optimize", kProject, "--clip", kClip, "--feedback", "off", "--fit-feedback", "3", "-o", out}, "--fit-feedback");
  // The search's table (control/SearchParams.h) checks its flags, by name.
  expectError({"optimize", kProject, "--clip", kClip, "--samples", "2.5", "-o", out}, "--samples: must be a whole number");
  expectError({"optimize", kProject, "--clip", kClip, "--pd-frequency", "200", "-o", out},
              "--pd-frequency: 200 is out of range [0.1, 99] Hz");
  expectError({"optimize", kProject, "--clip", kClip, "--keep", "0", "-o", out}, "--keep: 0 is out of range");
  expectError({"optimize", kProject, "--clip", kClip, "--score-shove", "-1", "-o", out}, "--score-shove: -1 is out of range");
  expectError({"optimize", kProject, "--clip", kClip, "--tangent-weight", "2", "-o", out}, "--tangent-weight: 2 is out of range [0, 1]");
  expectError({"optimize", kProject, "--clip", kClip, "--step", "0.01", "-o", out}, "--step: 0.01 is out of range");
  expectError({"optimize", kProject, "--clip", kClip, "--time-scale-range", "0.9", "-o", out},
              "--time-scale-range: 0.9 is out of range [0, 0.85]");
  expectError({"optimize", kProject, "--clip", kClip, "--time-scale-weight", "-1", "-o", out},
              "--time-scale-weight: -1 is out of range");
  expectError({"optimize", kProject, "--clip", kClip, "--step", "0.00001", "-o", out},
              "--step: must be 0 (the project's step) or at least 0.0001");
  const ProcessResult nanStep = cli(dir, {"optimize", kProject, "--clip", kClip, "--step", "nan", "-o", out});
  EXPECT_NE(nanStep.exitCode, 0);
  EXPECT_NE(nanStep.err.find("--step: 'nan' is not a finite number"), std::string::npos) << nanStep.err;
  // A clip whose legs map to nothing: the joints are named.
  test::writeBytes(dir.file("odd.bvh"),
                   "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
                   " JOINT Tail\n {\n  OFFSET 0 -10 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n  End Site\n  {\n   OFFSET 0 -10 0\n  }\n }\n}\n"
                   "MOTION\nFrames: 30\nFrame Time: 0.0333333\n" +
                       [] {
                         std::string f;
                         for (int i = 0; i < 30; ++i) f += "0 90 0 0 0 0 0 0 0\n";
                         return f;
                       }());
  expectError({"optimize", kProject, "--clip", dir.file("odd.bvh"), "-o", out}, "LeftUpLeg");
  EXPECT_FALSE(std::filesystem::exists(out)) << "nothing written on bad input";
  // simulate --controller with an unknown name lists what there is.
  const ProcessResult s = cli(dir, {"simulate", kProject, "--controller", "nope"});
  EXPECT_EQ(s.exitCode, 2);
  EXPECT_NE(s.err.find("no controller called 'nope'"), std::string::npos) << s.err;
  const ProcessResult f = cli(dir, {"fit-feedback", kProject, "--controller", "nope", "-o", out});
  EXPECT_EQ(f.exitCode, 2);
  EXPECT_NE(f.err.find("no controller called 'nope'"), std::string::npos) << f.err;
  EXPECT_FALSE(std::filesystem::exists(out)) << "nothing written on bad input";
  // replan names what is wrong before it simulates anything.
  const std::string jump = std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-jump.sinew";
  expectError({"replan", kProject, "--controller", "nope"}, "no controller called 'nope'");
  expectError({"replan", jump, "--controller", "01_01 0-4 s", "--samples", "2", "--keep", "3"}, "samples >= keep");
  expectError({"replan", jump, "--controller", "01_01 0-4 s", "-o", out}, "--name");
  expectError({"replan", jump, "--controller", "01_01 0-4 s", "-o", out, "--name", "01_01 0-4 s"},
              "would replace the controller being re-planned");
  expectError({"replan", jump, "--controller", "01_01 0-4 s", "--push", "60,1,0,0"}, "after the controller's last window");
  expectError({"replan", jump, "--controller", "01_01 0-4 s", "--push", "-1,1,0,0"}, "its time must be 0 s or later");
  // A switch that is neither on nor off is a usage error (exit code 1, as for every option).
  const ProcessResult carry = cli(dir, {"replan", jump, "--controller", "01_01 0-4 s", "--carry", "maybe"});
  EXPECT_EQ(carry.exitCode, 1) << carry.err;
  EXPECT_NE(carry.err.find("--carry: maybe not in {on,off}"), std::string::npos) << carry.err;
  // A re-anchoring fraction outside 0-1 (or not a number) is one too, named with its value.
  for (const char* f : {"1.5", "-0.2", "nan", "half"}) {
    const ProcessResult r = cli(dir, {"replan", jump, "--controller", "01_01 0-4 s", "--reanchor", f});
    EXPECT_EQ(r.exitCode, 1) << f << ": " << r.err;
    EXPECT_NE(r.err.find(std::string("must be on, off or a fraction from 0 to 1, not '") + f + "'"), std::string::npos)
        << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(out)) << "nothing written on bad input";
}

}  // namespace
}  // namespace sinew
