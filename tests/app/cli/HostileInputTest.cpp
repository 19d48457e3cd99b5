// Hostile input and shared files (issue 26), one test per finding of the
// robustness run: nesting and number bombs in project files, inconsistent
// projects, outputs that would destroy inputs, special files, concurrent
// saves, numbers that are not numbers, damaged clips and huge faces. Each
// must end in a clear message and a non-zero exit, never a crash, a silent
// wrong answer or a lost project.
#include "TestPaths.h"
#include "CliRun.h"
#include "TestUtil.h"
#include "io/ProjectFile.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <thread>

namespace sinew {
namespace {

using json = nlohmann::json;
using test::ProcessResult;
using test::TempDir;

using test::kCli;

ProcessResult cli(const TempDir& dir, std::vector<std::string> args, double timeout = 120) { return test::runCli(dir, std::move(args), timeout); }

// Exit code `code` and a message on stderr holding every piece of `says`.
void expectRefused(const ProcessResult& r, int code, const std::vector<std::string>& says) {
  EXPECT_EQ(r.exitCode, code) << "stdout:\n" << r.out << "\nstderr:\n" << r.err;
  for (const std::string& s : says) EXPECT_NE(r.err.find(s), std::string::npos) << "stderr lacks '" << s << "':\n" << r.err;
}

std::string source(const std::string& rel) { return std::string(SINEW_SOURCE_DIR) + "/" + rel; }

// A copy of the shipped rigged character in `dir`.
std::string riggedCopy(const TempDir& dir, const std::string& name = "p.sinew") {
  const std::string path = dir.file(name);
  saveProject(loadProject(source("projects/humanoid/humanoid-rigged.sinew")), path);
  return path;
}

// The project file's text with `from` replaced by `to` (the first time).
std::string edited(const std::string& path, const std::string& from, const std::string& to) {
  std::string text = test::readBytes(path);
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.substr(0, at) + to + text.substr(at + from.size());
}

TEST(HostileInput, NestingAndNumberBombsInAProjectAreBadInput) {
  const TempDir dir;
  const std::string p = riggedCopy(dir);
  const std::string bad = dir.file("bad.sinew");
  std::filesystem::copy(p + ".data", bad + ".data", std::filesystem::copy_options::recursive);
  // 60,000 nested objects where a joint's rotation belongs (a stack overflow before).
  std::string bomb;
  for (int i = 0; i < 60000; ++i) bomb += "{\"a\":";
  bomb += "1";
  for (int i = 0; i < 60000; ++i) bomb += "}";
  test::writeBytes(bad, edited(p, "\"nextId\":", "\"bomb\": " + bomb + ",\n  \"nextId\":"));
  expectRefused(cli(dir, {"project-info", bad}), 2, {bad, "nest deeper than"});
  // Numbers out of range and the wrong types: bad input naming the file, not an internal error.
  const std::string nextId = "\"nextId\": " + std::to_string(loadProject(p).nextId);
  test::writeBytes(bad, edited(p, nextId, "\"nextId\": 1e309"));
  expectRefused(cli(dir, {"project-info", bad}), 2, {bad});
  test::writeBytes(bad, edited(p, nextId, "\"nextId\": " + std::string(65536, '9')));
  expectRefused(cli(dir, {"project-info", bad}), 2, {bad});
  test::writeBytes(bad, edited(p, "\"format\": \"sinew-project\"", "\"format\": null"));
  expectRefused(cli(dir, {"project-info", bad}), 2, {bad, "not a Sinew project"});
  test::writeBytes(bad, edited(p, nextId, "\"nextId\": \"many\""));
  expectRefused(cli(dir, {"project-info", bad}), 2, {bad});
}

TEST(HostileInput, InconsistentProjectsAreRefusedOrWarned) {
  const TempDir dir;
  const Project good = loadProject(source("projects/humanoid/humanoid-rigged.sinew"));
  ASSERT_TRUE(good.meshes.at(0).skin && !good.volumes.empty() && good.volumes[0].surface);
  auto saved = [&](const Project& p, const std::string& name) {
    const std::string path = dir.file(name);
    saveProject(p, path);
    return path;
  };
  {
    Project p = good;
    p.volumes[0].embedding.weights[7][2] = std::nan("");
    const std::string path = saved(p, "nan-weight.sinew");
    for (const char* command : {"project-info", "simulate", "export"}) {
      std::vector<std::string> args{command, path};
      if (std::string(command) == "simulate") args.insert(args.end(), {"--seconds", "0.01"});
      if (std::string(command) == "export") args.insert(args.end(), {"-o", dir.file("x.obj")});
      expectRefused(cli(dir, args), 2, {path, "embedding weight of vertex 7"});
    }
  }
  {
    Project p = good;
    p.meshes[0].skin->bones[1] = p.meshes[0].skin->bones[0];
    expectRefused(cli(dir, {"project-info", saved(p, "twice.sinew")}), 2, {"listed twice"});
  }
  {
    Project p = good;
    p.meshes[0].mesh.triangles.clear();
    p.volumes.clear();
    expectRefused(cli(dir, {"project-info", saved(p, "no-triangles.sinew")}), 2, {"has no triangles"});
  }
  {
    // A skin naming a joint the skeleton lost (the GUI can leave one): loaded, with a warning.
    Project p = good;
    p.meshes[0].skin->bones[0] = "NoSuchJoint";
    const ProcessResult r = cli(dir, {"project-info", saved(p, "lost-joint.sinew")});
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE((r.out + r.err).find("'NoSuchJoint', which the skeleton does not have"), std::string::npos) << r.out << r.err;
  }
}

TEST(HostileInput, OutputsNeverOverwriteInputs) {
  const TempDir dir;
  const std::string p = riggedCopy(dir);
  const std::string before = test::readBytes(p);
  const size_t blobs = test::filesIn(p + ".data").size();
  expectRefused(cli(dir, {"simulate", p, "--seconds", "0.01", "--stats-json", p}), 2, {p, "is the input"});
  expectRefused(cli(dir, {"simulate", p, "--seconds", "0.01", "--export", p + ".data"}), 2, {"data folder"});
  expectRefused(cli(dir, {"simulate", p, "--seconds", "0.01", "--stats-json", p + ".data/stats.json"}), 2, {"data folder"});
  // Through a link to the project, too.
  const std::string link = dir.file("link.json");
  std::filesystem::create_symlink(p, link);
  expectRefused(cli(dir, {"simulate", p, "--seconds", "0.01", "--stats-json", link}), 2, {"is the input"});
  expectRefused(cli(dir, {"export", p, "-o", p}), 2, {"is the input"});
  EXPECT_EQ(test::readBytes(p), before) << "the project is untouched";
  EXPECT_EQ(test::filesIn(p + ".data").size(), blobs) << "nothing was written into its data folder";
  // A project saved over itself is fine (rig -o PROJECT).
  EXPECT_EQ(cli(dir, {"rig", p, "--weights", "none", "--no-stability-check", "-o", p}).exitCode, 0);
  // An existing directory as the output project: refused, and no orphan data folder beside it.
  const std::string folder = dir.file("folder");
  std::filesystem::create_directory(folder);
  const ProcessResult r = cli(dir, {"optimize", p, "--clip", "Walk in place", "--end", "0.1", "--samples", "2", "--keep",
                                    "1", "-o", folder, "--overwrite"});
  EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(folder + ".data"));
}

TEST(HostileInput, SpecialFilesAreRefusedAndLinksWrittenThrough) {
  const TempDir dir;
  const std::string p = riggedCopy(dir);
  const std::vector<std::string> run{"simulate", p, "--seconds", "0.01", "--stats-json"};
  auto with = [&](const std::string& out) {
    std::vector<std::string> args = run;
    args.push_back(out);
    return args;
  };
  // A FIFO and a character device are not replaced by a regular file (/dev/full held a root's system device).
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  expectRefused(cli(dir, with(fifo)), 2, {fifo, "not a regular file"});
  EXPECT_TRUE(std::filesystem::is_fifo(fifo));
  expectRefused(cli(dir, with("/dev/full")), 2, {"/dev/full", "not a regular file"});
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/full"));
  // A link: the file it names gets the statistics, the link stays.
  const std::string target = dir.file("target.json"), link = dir.file("stats-link.json");
  test::writeBytes(target, "old");
  std::filesystem::create_symlink(target, link);
  ASSERT_EQ(cli(dir, with(link)).exitCode, 0);
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_FALSE(json::parse(test::readBytes(target), nullptr, false).is_discarded());
  // "-": standard output.
  const ProcessResult out = cli(dir, with("-"));
  ASSERT_EQ(out.exitCode, 0) << out.err;
  EXPECT_NE(out.out.find("\"summary\""), std::string::npos);
  // An export onto a device reports it (it printed "wrote" with a 0-byte file before).
  expectRefused(cli(dir, {"export", p, "-o", "/dev/full"}), 2, {"/dev/full"});
}

// Four processes saving onto one project at once (the GUI's Save and a CLI
// run are the real case): the saves take turns, the result always loads.
TEST(HostileInput, ConcurrentSavesLeaveALoadableProject) {
  const TempDir dir;
  const std::string p = dir.file("shared.sinew");
  const std::vector<std::string> inputs = {test::model("OBJ/box.obj"), test::model("OBJ/spider.obj"),
                                           test::model("PLY/cube.ply"), test::model("OFF/Cube.off")};
  for (int round = 0; round < 6; ++round) {
    std::vector<std::thread> writers;
    std::vector<ProcessResult> results(inputs.size());
    for (size_t w = 0; w < inputs.size(); ++w)
      writers.emplace_back([&, w] {
        results[w] = test::runProcess({kCli, "import", inputs[w], "-o", p, "--overwrite"}, dir.path().string(), 120);
      });
    for (std::thread& t : writers) t.join();
    for (const ProcessResult& r : results) EXPECT_EQ(r.exitCode, 0) << r.err;
    const ProcessResult info = test::runProcess({kCli, "project-info", p}, dir.path().string(), 60);
    ASSERT_EQ(info.exitCode, 0) << "round " << round << ": " << info.err;
  }
}

TEST(HostileInput, NumbersThatAreNotNumbersAreRefused) {
  const TempDir dir;
  const std::string p = riggedCopy(dir);
  for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{
           {"--youngs-modulus", "nan"}, {"--poisson-ratio", "nan"}, {"--density", "inf"}, {"--pose-damping", "nan"},
           {"--seconds", "nan"}, {"--ground-height", "nan"}, {"--friction", "nan"}, {"--fps", "1e999"}}) {
    const ProcessResult r = cli(dir, {"simulate", p, flag, value});
    expectRefused(r, 1, {flag});
    if (value == "nan") {
      EXPECT_NE(r.err.find("is not a finite number"), std::string::npos) << r.err;
    }
  }
  expectRefused(cli(dir, {"import", test::model("OBJ/box.obj"), "--scale", "nan", "-o", dir.file("x.sinew")}), 1,
                {"--scale"});
  expectRefused(cli(dir, {"example", "humanoid", "--spacing", "nan", "-o", dir.file("y.sinew")}), 1, {"--spacing"});
  expectRefused(cli(dir, {"optimize", p, "--clip", "Walk in place", "--fit-push", "nan", "-o", dir.file("z.sinew")}), 1,
                {"--fit-push"});
  expectRefused(cli(dir, {"simulate", p, "--motion", ""}), 1, {"--motion"});
  expectRefused(cli(dir, {"optimize", p, "--clip", "Walk in place", "--weights", "velocity=1e308", "-o", dir.file("w.sinew")}),
                2, {"--weights", "velocity"});
  EXPECT_FALSE(std::filesystem::exists(dir.file("w.sinew"))) << "nothing saved";
}

TEST(HostileInput, ClipsWithAbsurdFrameTimesAndHugeFacesAreRefused) {
  const TempDir dir;
  const std::string bvh = test::readBytes(test::model("BVH/01_01.bvh"));
  const size_t at = bvh.find("Frame Time:");
  ASSERT_NE(at, std::string::npos);
  const size_t end = bvh.find('\n', at);
  for (const char* t : {"1e308", "1e-320", "0"}) {
    const std::string file = dir.file(std::string("ft-") + t + ".bvh");
    test::writeBytes(file, bvh.substr(0, at) + "Frame Time: " + t + bvh.substr(end));
    expectRefused(cli(dir, {"info", file}), 2, {file, "frame time"});
  }
  // One face of 100,000 corners: refused at once (triangulating it took a minute).
  std::string obj;
  for (int i = 0; i < 100000; ++i) obj += "v " + std::to_string(std::cos(i * 6.2831853 / 100000)) + " " +
                                          std::to_string(std::sin(i * 6.2831853 / 100000)) + " 0\n";
  obj += "f";
  for (int i = 1; i <= 100000; ++i) {
    obj += ' ';
    obj += std::to_string(i);
  }
  obj += "\n";
  const std::string huge = dir.file("huge-face.obj");
  test::writeBytes(huge, obj);
  expectRefused(cli(dir, {"info", huge}, 30), 2, {huge, "100000 corners"});
}

// The message of an unstable run and its statistics name the same last state.
TEST(HostileInput, AnUnstableRunsStatsEndAtTheStateItKept) {
  const TempDir dir;
  const std::string p = riggedCopy(dir);
  const std::string stats = dir.file("stats.json");
  // A shove of 500 m/s: nodes faster than the solver's bound (an instability by its own test).
  const ProcessResult r =
      cli(dir, {"simulate", p, "--seconds", "0.3", "--push", "0.12,0,500,0", "--threads", "1", "--stats-json", stats});
  ASSERT_EQ(r.exitCode, 2) << r.out << r.err;
  const size_t at = r.err.find("Kept the last good state (t = ");
  ASSERT_NE(at, std::string::npos) << r.err;
  const double kept = std::stod(r.err.substr(at + 30));
  const json j = json::parse(test::readBytes(stats));
  EXPECT_NEAR(j["time"].back().get<double>(), kept, 1e-9) << "the stats end where the solver went back to";
}

}  // namespace
}  // namespace sinew
