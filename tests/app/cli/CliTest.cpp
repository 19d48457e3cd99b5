// sinew-cli end to end: runs the real binary and checks exit codes, stdout
// (text and JSON) and the one-line error messages on stderr.
#include "TestPaths.h"
#include "CliRun.h"
#include "TestUtil.h"
#include "io/ProjectFile.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace sinew {
namespace {

using json = nlohmann::json;
using test::model;
using test::ProcessResult;
using test::TempDir;

using test::kCli;
constexpr double kTimeout = 60.0;  // per run; generous, a hang fails the test

ProcessResult cli(const TempDir& dir, std::vector<std::string> args) { return test::runCli(dir, std::move(args), kTimeout); }

json parseJson(const ProcessResult& r) {
  try {
    return json::parse(r.out);
  } catch (const json::exception& e) {
    ADD_FAILURE() << "stdout is not JSON: " << e.what() << "\n" << r.out;
    return json();
  }
}

// Exit code 2 and exactly one line on stderr that names `path`.
void expectBadInput(const ProcessResult& r, const std::string& path) {
  EXPECT_EQ(r.exitCode, 2) << "stdout:\n" << r.out << "\nstderr:\n" << r.err;
  const std::vector<std::string> lines = test::lines(r.err);
  EXPECT_EQ(lines.size(), 1u) << "stderr:\n" << r.err;
  EXPECT_TRUE(!r.err.empty() && r.err.back() == '\n') << "stderr:\n" << r.err;
  EXPECT_NE(r.err.find(path), std::string::npos) << "stderr does not name " << path << ":\n" << r.err;
  EXPECT_EQ(r.err.rfind("sinew-cli: ", 0), 0u) << r.err;
}

TEST(CliInfo, JsonOnObj) {
  const TempDir dir;
  const ProcessResult r = cli(dir, {"info", "--json", model("OBJ/box.obj")});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json j = parseJson(r);
  EXPECT_EQ(j["file"], model("OBJ/box.obj"));
  EXPECT_EQ(j["format"], "obj");
  EXPECT_EQ(j["totals"]["meshes"], 1);
  EXPECT_EQ(j["totals"]["vertices"], 8);
  EXPECT_EQ(j["totals"]["faces"], 12);
  EXPECT_EQ(j["assimp"]["vertices"], 24);
  EXPECT_EQ(j["assimp"]["faces"], 6);
  ASSERT_EQ(j["meshes"].size(), 1u);
  const json& m = j["meshes"][0];
  EXPECT_EQ(m["sourceVertices"], 24);
  EXPECT_EQ(m["weldedVertices"], 16);
  EXPECT_EQ(m["validation"]["closed"], true);
  EXPECT_EQ(m["validation"]["manifold"], true);
  EXPECT_EQ(m["validation"]["watertight"], true);
  EXPECT_EQ(m["validation"]["selfIntersections"], 0);
  EXPECT_TRUE(j["skeleton"].is_null());
  EXPECT_TRUE(j["clips"].empty());
  EXPECT_TRUE(j["diagnostics"].is_array());

  // --no-self-intersections: the check is reported as not done.
  const ProcessResult quick = cli(dir, {"info", "--json", "--no-self-intersections", model("OBJ/box.obj")});
  ASSERT_EQ(quick.exitCode, 0) << quick.err;
  EXPECT_TRUE(parseJson(quick)["meshes"][0]["validation"]["selfIntersections"].is_null());
  // --scale scales the geometry, and must be positive (else a usage error).
  const ProcessResult scaled = cli(dir, {"info", "--json", "--scale", "0.5", model("OBJ/box.obj")});
  ASSERT_EQ(scaled.exitCode, 0) << scaled.err;
  const auto box = parseJson(scaled)["meshes"][0]["bounds"];
  for (int k = 0; k < 3; ++k)
    EXPECT_NEAR(box["max"][k].get<double>() - box["min"][k].get<double>(), 0.5, 1e-9) << "box.obj is a unit cube";
  const ProcessResult badScale = cli(dir, {"info", "--scale", "-2", model("OBJ/box.obj")});
  EXPECT_EQ(badScale.exitCode, 1) << badScale.err;
  EXPECT_NE(badScale.err.find("--scale"), std::string::npos) << badScale.err;
}

TEST(CliInfo, BvhClip) {
  const TempDir dir;
  const ProcessResult r = cli(dir, {"info", model("BVH/01_01.bvh")});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("2752 frames"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("at 120 Hz"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("31 joints"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("units cmu"), std::string::npos) << r.out;
  EXPECT_TRUE(r.err.empty()) << r.err;

  const ProcessResult rj = cli(dir, {"info", "--json", model("BVH/01_01.bvh")});
  ASSERT_EQ(rj.exitCode, 0) << rj.err;
  const json j = parseJson(rj);
  ASSERT_EQ(j["clips"].size(), 1u);
  const json& c = j["clips"][0];
  EXPECT_EQ(c["frames"], 2752);
  EXPECT_EQ(c["joints"], 31);
  EXPECT_EQ(c["channels"], 96);
  EXPECT_NEAR(c["frameRate"].get<double>(), 120.0, 0.01);
  EXPECT_NEAR(c["duration"].get<double>(), 2751 * 0.0083333, 1e-9);
  EXPECT_EQ(c["units"], "cmu");
  EXPECT_EQ(j["assimp"]["animationChannels"], 31);
}

TEST(CliImport, ImportThenProjectInfo) {
  const TempDir dir;
  const std::string p = dir.file("p.sinew");
  const ProcessResult r = cli(dir, {"import", model("OBJ/box.obj"), model("BVH/01_01.bvh"), "-o", p});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("wrote " + p + " (2 objects)"), std::string::npos) << r.out;

  const ProcessResult info = cli(dir, {"project-info", "--json", p});
  ASSERT_EQ(info.exitCode, 0) << info.err;
  const json j = parseJson(info);
  EXPECT_EQ(j["formatVersion"], kProjectFormatVersion);
  EXPECT_EQ(j["name"], "p");
  ASSERT_EQ(j["meshes"].size(), 1u);
  EXPECT_EQ(j["meshes"][0]["vertices"], 8);
  EXPECT_EQ(j["meshes"][0]["faces"], 12);
  EXPECT_EQ(j["meshes"][0]["source"], model("OBJ/box.obj"));
  EXPECT_EQ(j["meshes"][0]["skinned"], false);
  ASSERT_EQ(j["clips"].size(), 1u);
  EXPECT_EQ(j["clips"][0]["frames"], 2752);
  EXPECT_EQ(j["clips"][0]["name"], "01_01");
  EXPECT_NE(j["meshes"][0]["id"], j["clips"][0]["id"]);
  EXPECT_TRUE(j["skeleton"].is_null());

  const ProcessResult text = cli(dir, {"project-info", p});
  ASSERT_EQ(text.exitCode, 0) << text.err;
  EXPECT_NE(text.out.find("(format version " + std::to_string(kProjectFormatVersion) + ")"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("8 vertices, 12 faces"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("clip '01_01': 2752 frames"), std::string::npos) << text.out;
}

TEST(CliImport, SkinnedFbxBringsSkeleton) {
  const TempDir dir;
  const std::string p = dir.file("rig.sinew");
  ASSERT_EQ(cli(dir, {"import", model("FBX/huesitos.fbx"), "-o", p}).exitCode, 0);
  const json j = parseJson(cli(dir, {"project-info", "--json", p}));
  ASSERT_EQ(j["meshes"].size(), 1u);
  EXPECT_EQ(j["meshes"][0]["skinned"], true);
  ASSERT_FALSE(j["skeleton"].is_null());
  EXPECT_EQ(j["skeleton"]["joints"], 9);
}

TEST(CliImport, ExistingOutputNeedsAppendOrOverwrite) {
  const TempDir dir;
  const std::string p = dir.file("p.sinew");
  ASSERT_EQ(cli(dir, {"import", model("OBJ/box.obj"), "-o", p}).exitCode, 0);
  const std::string before = test::readBytes(p);

  expectBadInput(cli(dir, {"import", model("STL/Spider_binary.stl"), "-o", p}), p);
  EXPECT_EQ(test::readBytes(p), before);

  ASSERT_EQ(cli(dir, {"import", "--append", model("STL/Spider_binary.stl"), "-o", p}).exitCode, 0);
  EXPECT_EQ(parseJson(cli(dir, {"project-info", "--json", p}))["meshes"].size(), 2u);

  ASSERT_EQ(cli(dir, {"import", "--overwrite", model("STL/Spider_binary.stl"), "-o", p}).exitCode, 0);
  const json j = parseJson(cli(dir, {"project-info", "--json", p}));
  ASSERT_EQ(j["meshes"].size(), 1u);
  EXPECT_EQ(j["meshes"][0]["source"], model("STL/Spider_binary.stl"));

  // Both at once is a usage error.
  EXPECT_EQ(cli(dir, {"import", "--append", "--overwrite", model("OBJ/box.obj"), "-o", p}).exitCode, 1);
  // A failed import leaves the project as it was.
  const std::string now = test::readBytes(p);
  expectBadInput(cli(dir, {"import", "--append", dir.file("missing.obj"), "-o", p}), dir.file("missing.obj"));
  EXPECT_EQ(test::readBytes(p), now);
}

TEST(CliUsage, UsageErrorsExitWithOne) {
  const TempDir dir;
  const std::vector<std::vector<std::string>> cases = {
      {},                                     // no subcommand
      {"frobnicate"},                         // unknown subcommand
      {"info"},                               // missing file
      {"import", model("OBJ/box.obj")},       // missing -o
      {"import", "-o", dir.file("x.sinew")},  // missing input files
      {"project-info"},                       // missing project
      {"example", "humanoid"},                // missing -o
      {"info", "--bogus-flag", model("OBJ/box.obj")},
      {"info", "--scale", "abc", model("OBJ/box.obj")},
  };
  for (const auto& args : cases) {
    std::string shown;
    for (const std::string& a : args) shown += " " + a;
    const ProcessResult r = cli(dir, args);
    EXPECT_EQ(r.exitCode, 1) << "sinew-cli" << shown << "\nstdout:\n" << r.out << "\nstderr:\n" << r.err;
    EXPECT_FALSE(r.err.empty()) << "sinew-cli" << shown << ": no usage message";
  }
  EXPECT_FALSE(test::fs::exists(dir.file("x.sinew")));
  const ProcessResult help = cli(dir, {"--help"});
  EXPECT_EQ(help.exitCode, 0);
  EXPECT_NE(help.out.find("project-info"), std::string::npos) << help.out;
}

TEST(CliBadInput, MissingEmptyUnknownTruncatedCorrupted) {
  const TempDir dir;
  const std::string missing = dir.file("missing.obj");
  expectBadInput(cli(dir, {"info", missing}), missing);

  const std::string empty = dir.file("empty.obj");
  test::writeBytes(empty, "");
  expectBadInput(cli(dir, {"info", empty}), empty);

  const std::string unknown = dir.file("mesh.unknownext");
  test::writeBytes(unknown, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
  expectBadInput(cli(dir, {"info", unknown}), unknown);

  for (const char* glbFile : {"glTF2/BoxTextured-glTF-Binary/BoxTextured.glb",
                              "glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb"}) {
    const std::string glb = test::readBytes(model(glbFile));
    ASSERT_GT(glb.size(), 100u);
    const std::string half = dir.file("half.glb");
    test::writeBytes(half, glb.substr(0, glb.size() / 2));
    expectBadInput(cli(dir, {"info", half}), half);
  }

  expectBadInput(cli(dir, {"info", dir.path().string()}), dir.path().string());

  // Projects: truncated JSON, corrupted blob, not a project, missing.
  const std::string p = dir.file("p.sinew");
  ASSERT_EQ(cli(dir, {"import", model("OBJ/box.obj"), "-o", p}).exitCode, 0);
  const std::string doc = test::readBytes(p);
  test::writeBytes(p, doc.substr(0, doc.size() / 2));
  expectBadInput(cli(dir, {"project-info", p}), p);
  expectBadInput(cli(dir, {"project-info", "--json", p}), p);
  expectBadInput(cli(dir, {"export", p, "-o", dir.file("out.obj")}), p);
  EXPECT_FALSE(test::fs::exists(dir.file("out.obj")));
  test::writeBytes(p, doc);
  ASSERT_EQ(cli(dir, {"project-info", p}).exitCode, 0);
  for (const std::string& blob : test::filesIn(p + ".data")) {
    std::string bytes = test::readBytes(blob);
    bytes[bytes.size() / 2] ^= 1;
    test::writeBytes(blob, bytes);
  }
  expectBadInput(cli(dir, {"project-info", p}), p);
  expectBadInput(cli(dir, {"project-info", model("OBJ/box.obj")}), model("OBJ/box.obj"));
  expectBadInput(cli(dir, {"project-info", dir.file("nope.sinew")}), dir.file("nope.sinew"));
}

class CliInvalidFiles : public ::testing::TestWithParam<std::string> {};

TEST_P(CliInvalidFiles, ExitTwoWithOneLine) {
  const TempDir dir;
  const ProcessResult r = cli(dir, {"info", GetParam()});
  ASSERT_FALSE(r.timedOut);
  expectBadInput(r, GetParam());
  EXPECT_TRUE(r.out.empty()) << r.out;
  // JSON mode fails the same way (no half-written JSON on stdout).
  const ProcessResult rj = cli(dir, {"info", "--json", GetParam()});
  expectBadInput(rj, GetParam());
  EXPECT_TRUE(rj.out.empty()) << rj.out;
}

INSTANTIATE_TEST_SUITE_P(AssimpInvalidDir, CliInvalidFiles, ::testing::ValuesIn(test::filesIn(model("invalid"))),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = test::fs::path(info.param).filename().string();
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(CliExample, HumanoidExportsAsClosedManifoldMesh) {
  const TempDir dir;
  const std::string p = dir.file("sub/humanoid.sinew"), obj = dir.file("humanoid.obj");
  const ProcessResult ex = cli(dir, {"example", "humanoid", "-o", p});
  ASSERT_EQ(ex.exitCode, 0) << ex.err;
  EXPECT_NE(ex.out.find("19 joints"), std::string::npos) << ex.out;

  const ProcessResult exp = cli(dir, {"export", p, "-o", obj});
  ASSERT_EQ(exp.exitCode, 0) << exp.err;
  EXPECT_NE(exp.out.find("1 mesh(es)"), std::string::npos) << exp.out;

  const ProcessResult info = cli(dir, {"info", "--json", obj});
  ASSERT_EQ(info.exitCode, 0) << info.err;
  const json j = parseJson(info);
  ASSERT_EQ(j["meshes"].size(), 1u);
  const json& v = j["meshes"][0]["validation"];
  EXPECT_EQ(v["closed"], true) << v.dump();
  EXPECT_EQ(v["manifold"], true) << v.dump();
  EXPECT_EQ(v["components"], 1) << v.dump();
  EXPECT_EQ(v["misorientedEdges"], 0) << v.dump();
  EXPECT_EQ(v["watertight"], true) << v.dump();
  const int faces = j["totals"]["faces"].get<int>();
  EXPECT_GE(faces, 5000);
  EXPECT_LE(faces, 10000);
  // The same counts as the project.
  const json pj = parseJson(cli(dir, {"project-info", "--json", p}));
  EXPECT_EQ(pj["meshes"][0]["faces"], faces);
  EXPECT_EQ(pj["meshes"][0]["vertices"], j["totals"]["vertices"]);
  EXPECT_EQ(pj["skeleton"]["joints"], 19);

  // Plain text says the same.
  const ProcessResult text = cli(dir, {"info", obj});
  ASSERT_EQ(text.exitCode, 0);
  EXPECT_NE(text.out.find("closed manifold surface"), std::string::npos) << text.out;

  // Existing output and unknown names are bad input; --overwrite replaces.
  expectBadInput(cli(dir, {"example", "humanoid", "-o", p}), p);
  EXPECT_EQ(cli(dir, {"example", "humanoid", "--overwrite", "-o", p}).exitCode, 0);
  const ProcessResult unknown = cli(dir, {"example", "dragon", "-o", dir.file("d.sinew")});
  EXPECT_EQ(unknown.exitCode, 2);
  EXPECT_EQ(test::lines(unknown.err).size(), 1u) << unknown.err;
  // Export to an unknown format, or of a mesh that does not exist.
  expectBadInput(cli(dir, {"export", p, "-o", dir.file("x.nosuchformat")}), dir.file("x.nosuchformat"));
  expectBadInput(cli(dir, {"export", p, "--mesh", "nobody", "-o", dir.file("y.obj")}), p);
}

}  // namespace
TEST(CliSimulate, RiggedExampleWritesStatsAndAnimation) {
  const TempDir dir;
  const std::string project = std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-rigged.sinew";
  const std::string stats = dir.file("stats.json"), out = dir.file("anim");
  const ProcessResult r = cli(dir, {"simulate", project, "--solver", "liu2013", "--seconds", "0.05", "--motion", "Kick",
                                    "--drive", "pd", "--threads", "1", "--stats-json", stats, "--export", out});
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  const json j = json::parse(test::readBytes(stats));
  for (const char* key : {"time", "linear_momentum", "angular_momentum", "kinetic_energy", "elastic_energy"})
    ASSERT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["time"].size(), 4u);  // frame 0 and three 1/60 s frames
  EXPECT_EQ(j["linear_momentum"][0].size(), 3u);
  const json& s = j["summary"];
  EXPECT_EQ(s["steps"], 100);
  EXPECT_GT(s["ms_per_step_median"].get<double>(), 0.0);
  EXPECT_GT(s["realtime_factor"].get<double>(), 0.0);
  EXPECT_TRUE(s.contains("inverted_tets_max"));
  EXPECT_TRUE(s["stopped"].is_null());
  EXPECT_TRUE(std::filesystem::exists(out + "/humanoid-rigged_0000.obj"));
  EXPECT_TRUE(std::filesystem::exists(out + "/humanoid-rigged_0003.obj"));
  EXPECT_TRUE(std::filesystem::exists(out + "/humanoid-rigged.pc2"));
  EXPECT_TRUE(std::filesystem::exists(out + "/humanoid-rigged.bvh"));
}

// --solver li2019 on the conforming mesh `rig --regions` adds: the same stats
// JSON and exports; a project without that mesh says how to build it.
TEST(CliSimulate, Li2019RunsThePassiveOrDrivenCharacterOnTheConformingMesh) {
  const TempDir dir;
  const std::string rigged = std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-rigged.sinew";
  const ProcessResult missing = cli(dir, {"simulate", rigged, "--solver", "li2019", "--seconds", "0.1"});
  expectBadInput(missing, rigged);
  EXPECT_NE(missing.err.find("--regions"), std::string::npos) << missing.err;

  const std::string regions = dir.file("regions.sinew");
  const ProcessResult rig = cli(dir, {"rig", rigged, "--regions", "--weights", "none", "-o", regions});
  ASSERT_EQ(rig.exitCode, 0) << rig.out << rig.err;
  const std::string stats = dir.file("li.json"), out = dir.file("anim");
  const ProcessResult r = cli(dir, {"simulate", regions, "--solver", "li2019", "--seconds", "0.2", "--iterations", "5",
                                    "--threads", "1", "--stats-json", stats, "--export", out});
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  const json j = json::parse(test::readBytes(stats));
  EXPECT_EQ(j["solver"], "li2019");
  const json& s = j["summary"];
  EXPECT_EQ(s["steps"], 6);  // 0.2 s at 1/30 s
  EXPECT_NEAR(s["dt"].get<double>(), 1.0 / 30, 1e-12);
  EXPECT_EQ(s["setup"]["bones"], 19);
  EXPECT_EQ(s["setup"]["joints"], 18);
  EXPECT_EQ(s["setup"]["iterations"], 5);
  EXPECT_TRUE(s["stopped"].is_null());
  EXPECT_EQ(j["time"].size(), 7u);  // frames at 30 per second: the step rate
  // Gravity pulls the character down; nothing else acts on it but the ground.
  const double vy = j["linear_momentum"].back()[1].get<double>();
  EXPECT_LT(vy, 0.0);
  EXPECT_TRUE(std::filesystem::exists(out + "/regions_0006.obj"));
  EXPECT_TRUE(std::filesystem::exists(out + "/regions.bvh"));
  // The project's solver parameters (set in the GUI's Simulate dock) are the
  // run's; a flag overrides them.
  {
    Project p = loadProject(regions);
    p.simulation.solverParams["li2019"] = {{"iterations", 3}};
    saveProject(p, regions);
    const std::string own = dir.file("own.json");
    ASSERT_EQ(cli(dir, {"simulate", regions, "--solver", "li2019", "--seconds", "0.05", "--stats-json", own}).exitCode, 0);
    EXPECT_EQ(json::parse(test::readBytes(own))["summary"]["setup"]["iterations"], 3);
    ASSERT_EQ(cli(dir, {"simulate", regions, "--solver", "li2019", "--seconds", "0.05", "--iterations", "4",
                        "--stats-json", own}).exitCode, 0);
    EXPECT_EQ(json::parse(test::readBytes(own))["summary"]["setup"]["iterations"], 4);
  }
  // Bones driven kinematically by a clip of the project: the character stands
  // and kicks instead of collapsing (passive: the centre of mass falls to
  // ~0.1 m within a second), its flesh carried by the bones.
  const std::string kickStats = dir.file("kick.json");
  const ProcessResult kick = cli(dir, {"simulate", regions, "--solver", "li2019", "--motion", "Kick", "--seconds", "1",
                                       "--iterations", "5", "--stats-json", kickStats});
  ASSERT_EQ(kick.exitCode, 0) << kick.out << kick.err;
  const json k = json::parse(test::readBytes(kickStats));
  EXPECT_EQ(k["summary"]["setup"]["drive"], "kinematic");
  EXPECT_EQ(k["summary"]["setup"]["motion"], "Kick");
  EXPECT_EQ(k["summary"]["setup"]["driven_bones"], 19);
  double lowest = 10;
  for (const json& c : k["center_of_mass"]) lowest = std::min(lowest, c[1].get<double>());
  EXPECT_GT(lowest, 0.85) << "held up by its driven bones";
  const ProcessResult some = cli(dir, {"simulate", regions, "--solver", "li2019", "--motion", "Kick", "--seconds", "0.1",
                                       "--iterations", "5", "--driven-bones", "Hips,Spine", "--stats-json", kickStats});
  ASSERT_EQ(some.exitCode, 0) << some.out << some.err;
  EXPECT_EQ(json::parse(test::readBytes(kickStats))["summary"]["setup"]["driven_bones"], 2);
  // Bad requests, by name.
  const ProcessResult unknownBone =
      cli(dir, {"simulate", regions, "--solver", "li2019", "--motion", "Kick", "--driven-bones", "Tail"});
  expectBadInput(unknownBone, "--driven-bones");
  EXPECT_NE(unknownBone.err.find("'Tail'"), std::string::npos) << unknownBone.err;
  expectBadInput(cli(dir, {"simulate", regions, "--solver", "li2019", "--motion", "Kick", "--drive", "pd"}), "--drive");
  expectBadInput(cli(dir, {"simulate", regions, "--solver", "li2019", "--driven-bones", "Hips"}), "--driven-bones");
  expectBadInput(cli(dir, {"simulate", regions, "--solver", "li2019", "--motion", "Dance"}), "Kick");

  // The paper's bar as a generated project: it falls 0.5 m, lands and stays on the ground.
  const std::string bar = dir.file("bar.sinew");
  const ProcessResult made = cli(dir, {"example", "bar", "-o", bar});
  ASSERT_EQ(made.exitCode, 0) << made.out << made.err;
  EXPECT_NE(made.out.find("1664 nodes, 7350 tets, 2 bones, 1 joints"), std::string::npos) << made.out;
  const std::string barStats = dir.file("bar.json");
  const ProcessResult fall = cli(dir, {"simulate", bar, "--solver", "li2019", "--seconds", "1.5", "--stats-json", barStats});
  ASSERT_EQ(fall.exitCode, 0) << fall.out << fall.err;
  const json b = json::parse(test::readBytes(barStats));
  const double y0 = b["center_of_mass"].front()[1].get<double>(), y1 = b["center_of_mass"].back()[1].get<double>();
  EXPECT_NEAR(y0, 0.5, 1e-9) << "generated 0.5 m up";
  EXPECT_NEAR(y1, 0.14, 0.03) << "lying on the ground (half its 0.28 m thickness)";
  EXPECT_LT(std::abs(b["linear_momentum"].back()[1].get<double>()), 0.05 * b["summary"]["setup"]["mass_kg"].get<double>())
      << "at rest";
  // Pinned at its left end (x < -0.45 m) it hangs there instead.
  const ProcessResult hang = cli(dir, {"simulate", bar, "--solver", "li2019", "--seconds", "1.5", "--pin-box",
                                       "-1,-1,-1,-0.45,2,1", "--stats-json", barStats});
  ASSERT_EQ(hang.exitCode, 0) << hang.out << hang.err;
  const json p = json::parse(test::readBytes(barStats));
  EXPECT_EQ(p["summary"]["setup"]["pinned_nodes"], 128);
  EXPECT_GT(p["center_of_mass"].back()[1].get<double>(), 0.2) << "held up by its pinned end";
  expectBadInput(cli(dir, {"simulate", bar, "--solver", "li2019", "--pin-box", "5,5,5,6,6,6"}), "--pin-box");
}

// The live setting for Li 2019: `rig --regions --region-vertices N` builds a
// coarser conforming mesh (fewer nodes, so fewer flops per iteration) with the
// whole surface still embedded in it; out-of-range values are refused.
TEST(CliRig, RegionVerticesMakeACoarserConformingMeshThatKeepsTheWholeSurface) {
  const TempDir dir;
  const std::string rigged = std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-rigged.sinew";
  const std::string fine = dir.file("fine.sinew"), coarse = dir.file("coarse.sinew");
  ASSERT_EQ(cli(dir, {"rig", rigged, "--regions", "--weights", "none", "-o", fine}).exitCode, 0);
  const ProcessResult rig =
      cli(dir, {"rig", rigged, "--regions", "--region-vertices", "400", "--weights", "none", "-o", coarse});
  ASSERT_EQ(rig.exitCode, 0) << rig.out << rig.err;
  auto conforming = [](const Project& p) -> const VolumeObject& {
    for (const VolumeObject& v : p.volumes)
      if (v.kind == VolumeKind::Conforming) return v;
    throw std::runtime_error("no conforming mesh");
  };
  const Project f = loadProject(fine), c = loadProject(coarse);
  const size_t fineNodes = conforming(f).mesh.nodes.size(), coarseNodes = conforming(c).mesh.nodes.size();
  std::printf("conforming mesh: %zu nodes by default, %zu with --region-vertices 400\n", fineNodes, coarseNodes);
  EXPECT_LT(double(coarseNodes), 0.7 * double(fineNodes));
  EXPECT_EQ(conforming(c).embedding.vertexCount(), c.meshes[0].mesh.vertexCount()) << "the whole surface is embedded";
  EXPECT_EQ(c.meshes[0].mesh.vertexCount(), f.meshes[0].mesh.vertexCount());
  const ProcessResult r = cli(dir, {"simulate", coarse, "--solver", "li2019", "--seconds", "0.1", "--iterations", "5",
                                    "--threads", "1"});
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  const ProcessResult bad = cli(dir, {"rig", rigged, "--regions", "--region-vertices", "10", "-o", dir.file("x.sinew")});
  EXPECT_NE(bad.exitCode, 0);
  EXPECT_NE(bad.err.find("--region-vertices"), std::string::npos) << bad.err;
}

// The live copy: `rig --live-vertices N` keeps a coarser conforming mesh
// beside the full one. A run takes the full mesh unless `--live 1` asks for
// the copy; both embed the whole surface; asking for a copy the project has
// not got says how to build it.
TEST(CliRig, LiveVerticesKeepACoarseCopyBesideTheFullConformingMesh) {
  const TempDir dir;
  const std::string rigged = std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-rigged.sinew";
  const std::string both = dir.file("both.sinew"), fullOnly = dir.file("full.sinew");
  const ProcessResult rig =
      cli(dir, {"rig", rigged, "--regions", "--live-vertices", "400", "--weights", "none", "-o", both});
  ASSERT_EQ(rig.exitCode, 0) << rig.out << rig.err;
  EXPECT_NE(rig.out.find("live copy: "), std::string::npos) << rig.out;
  const Project p = loadProject(both);
  const VolumeObject *full = nullptr, *live = nullptr;
  for (const VolumeObject& v : p.volumes)
    if (v.kind == VolumeKind::Conforming) (v.live ? live : full) = &v;
  ASSERT_TRUE(full && live);
  EXPECT_LT(double(live->mesh.nodes.size()), 0.7 * double(full->mesh.nodes.size()));
  EXPECT_EQ(live->embedding.vertexCount(), p.meshes[0].mesh.vertexCount()) << "the whole surface rides on the copy";
  EXPECT_FALSE(live->visible) << "the viewport shows the full mesh";
  EXPECT_EQ(live->bones, full->bones);

  auto setupOf = [&](const std::vector<std::string>& extra) {
    const std::string stats = dir.file("s.json");
    std::vector<std::string> args = {"simulate", both, "--solver", "li2019", "--seconds", "0.1", "--iterations", "5",
                                     "--threads", "1", "--stats-json", stats};
    args.insert(args.end(), extra.begin(), extra.end());
    const ProcessResult r = cli(dir, args);
    EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
    return json::parse(test::readBytes(stats))["summary"]["setup"];
  };
  const auto runFull = setupOf({}), runLive = setupOf({"--live", "1"});
  EXPECT_EQ(runFull["nodes"], full->mesh.nodes.size());
  EXPECT_EQ(runFull["volume"], full->name);
  EXPECT_EQ(runLive["nodes"], live->mesh.nodes.size());
  EXPECT_EQ(runLive["volume"], live->name);
  EXPECT_EQ(runLive["surface_vertices"], runFull["surface_vertices"]);

  // Rigging again keeps both as they are; without a copy, --live 1 says how to build one.
  ASSERT_EQ(cli(dir, {"rig", both, "--regions", "--live-vertices", "400", "--weights", "none", "-o", both}).exitCode, 0);
  const Project again = loadProject(both);
  ASSERT_EQ(again.volumes.size(), p.volumes.size());
  for (size_t i = 0; i < p.volumes.size(); ++i) EXPECT_EQ(again.volumes[i].id, p.volumes[i].id);
  // Rebuilding the conforming mesh rebuilds its live copy with it (same ids).
  const ProcessResult rebuilt =
      cli(dir, {"rig", both, "--regions", "--rebuild", "--weights", "none", "--no-stability-check", "-o", both});
  ASSERT_EQ(rebuilt.exitCode, 0) << rebuilt.out << rebuilt.err;
  EXPECT_NE(rebuilt.out.find("live copy: "), std::string::npos) << rebuilt.out;
  const Project third = loadProject(both);
  ASSERT_EQ(third.volumes.size(), p.volumes.size());
  for (size_t i = 0; i < p.volumes.size(); ++i) EXPECT_EQ(third.volumes[i].id, p.volumes[i].id);
  ASSERT_EQ(cli(dir, {"rig", rigged, "--regions", "--weights", "none", "-o", fullOnly}).exitCode, 0);
  const ProcessResult missing =
      cli(dir, {"simulate", fullOnly, "--solver", "li2019", "--live", "1", "--seconds", "0.05"});
  expectBadInput(missing, fullOnly);
  EXPECT_NE(missing.err.find("--live-vertices"), std::string::npos) << missing.err;
  expectBadInput(cli(dir, {"simulate", both, "--solver", "li2019", "--live", "2"}), "--live");
}

TEST(CliSimulate, ProjectWithoutVolumeOrClipSaysWhatIsMissing) {
  const TempDir dir;
  const std::string bare = std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid.sinew";
  const ProcessResult r = cli(dir, {"simulate", bare, "--seconds", "0.01"});
  expectBadInput(r, bare);
  EXPECT_NE(r.err.find("build the volumetric mesh first"), std::string::npos) << r.err;
  const std::string rigged = std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-rigged.sinew";
  const ProcessResult c = cli(dir, {"simulate", rigged, "--seconds", "0.01", "--motion", "Dance"});
  expectBadInput(c, rigged);
  EXPECT_NE(c.err.find("Kick"), std::string::npos) << "lists the clips: " << c.err;
}

// Solver parameters are checked once, by the registry (solver/Solvers.h):
// NaN, out of range, fractional counts and a flag of another solver are
// refused by name, before the project is read.
TEST(CliSimulate, SolverParametersAreCheckedByTheRegistry) {
  const TempDir dir;
  const std::string rigged = std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-rigged.sinew";
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"--dt", "nan"}, "--dt: must be a finite number"},
      {{"--dt", "0.5"}, "--dt: 0.5 is out of range"},
      {{"--threads", "1.5"}, "--threads: must be a whole number"},
      {{"--modes", "4"}, "--modes: is not a parameter of the liu2013 solver"},
      {{"--solver", "li2019", "--dt", "1e-5"}, "--dt: 1e-05 is out of range [0.0001, 0.1] s"},
      {{"--solver", "sheth2015", "--threads", "2"}, "--threads: is not a parameter of the sheth2015 solver"},
      {{"--solver", "sheth2015", "--threshold", "1.5"}, "--threshold: 1.5 is out of range [0.01, 0.99]"},
      {{"--solver", "sheth2015", "--copies", "2.5"}, "--copies: must be a whole number"},
      {{"--copies", "2"}, "--copies: is not a parameter of the liu2013 solver"},
      // Flags outside the table that the chosen solver does not take.
      {{"--activation", "0.5"}, "--activation: is for --solver viper"},
      {{"--driven-bones", "Hips", "--motion", "Kick"}, "--driven-bones: is for --solver li2019 or sheth2015"},
      {{"--solver", "sheth2015", "--pin-box", "0,0,0,1,1,1"}, "--pin-box: is for --solver li2019"},
      {{"--solver", "viper", "--drive", "pd"}, "--drive: the viper solver moves bones kinematically only"}};
  for (const auto& [flags, message] : cases) {
    std::vector<std::string> args = {"simulate", rigged, "--seconds", "0.01"};
    args.insert(args.end(), flags.begin(), flags.end());
    const ProcessResult r = cli(dir, args);
    EXPECT_EQ(r.exitCode, 2) << flags.front() << " " << flags.back();
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  }
}

// A box whose top is where the ground was holds the character exactly as the
// ground does; without it (ground lowered) the character falls freely.
TEST(CliSimulate, ABoxColliderHoldsTheCharacterLikeTheGround) {
  const TempDir dir;
  const std::string project = std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-rigged.sinew";
  auto comHeight = [&](std::vector<std::string> extra) {
    const std::string stats = dir.file("s.json");
    std::vector<std::string> args = {"simulate", project, "--seconds", "0.2", "--threads", "1", "--stats-json", stats};
    args.insert(args.end(), extra.begin(), extra.end());
    const ProcessResult r = cli(dir, args);
    EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
    const json j = json::parse(test::readBytes(stats));
    return std::pair(j["center_of_mass"].front()[1].get<double>(), j["center_of_mass"].back()[1].get<double>());
  };
  const auto [start, onGround] = comHeight({});
  const double onBox = comHeight({"--ground-height", "-2", "--collider", "box:0,-0.5,0,1,0.5,1"}).second;
  const double falling = comHeight({"--ground-height", "-2"}).second;
  EXPECT_NEAR(onBox, onGround, 1e-5) << "(the box's friction is 0.8, the ground's 0.9)";
  EXPECT_GT(onGround, start - 0.1) << "the ground holds the character";
  EXPECT_NEAR(start - falling, 0.5 * 9.81 * 0.2 * 0.2, 1e-3) << "free fall for 0.2 s";
}

// --push T,VX,VY,VZ shoves the whole body: in free fall (no ground within
// reach) its centre of mass then moves sideways at exactly that speed; a push
// outside the run, or with another solver, is refused by name.
TEST(CliSimulate, PushGivesTheWholeBodyAVelocity) {
  const TempDir dir;
  const std::string project = std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-rigged.sinew";
  auto run = [&](std::vector<std::string> extra) {
    const std::string stats = dir.file("s.json");
    std::vector<std::string> args = {"simulate", project, "--seconds", "0.1", "--threads", "1", "--ground-height", "-2",
                                     "--stats-json", stats};
    args.insert(args.end(), extra.begin(), extra.end());
    const ProcessResult r = cli(dir, args);
    EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
    return json::parse(test::readBytes(stats));
  };
  const json still = run({}), pushed = run({"--push", "0.05,0.5,0,0"});
  const json& setup = pushed["summary"]["setup"];
  ASSERT_TRUE(setup.contains("push")) << setup.dump();
  EXPECT_NEAR(setup["push"]["time"].get<double>(), 0.05, 1e-9);
  const double moved = pushed["center_of_mass"].back()[0].get<double>() - still["center_of_mass"].back()[0].get<double>();
  EXPECT_NEAR(moved, 0.5 * 0.05, 1e-4) << "0.5 m/s for the last 0.05 s";
  EXPECT_NEAR(pushed["center_of_mass"][3][0].get<double>(), still["center_of_mass"][3][0].get<double>(), 1e-12)
      << "nothing changes before the push";

  const ProcessResult late = cli(dir, {"simulate", project, "--seconds", "0.1", "--push", "0.5,1,0,0"});
  EXPECT_EQ(late.exitCode, 2);
  EXPECT_NE(late.err.find("--push"), std::string::npos) << late.err;
  const ProcessResult viper = cli(dir, {"simulate", project, "--solver", "viper", "--push", "0,1,0,0"});
  EXPECT_EQ(viper.exitCode, 2);
  EXPECT_NE(viper.err.find("liu2013"), std::string::npos) << viper.err;
}

// The materials saved with the project are the ones simulated; a flag
// overrides the flesh.
TEST(CliSimulate, UsesTheProjectsMaterials) {
  const TempDir dir;
  Project p = loadProject(std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-rigged.sinew");
  p.simulation.flesh = FleshMaterial{2e5, 0.3, 1100, 20};
  p.simulation.regions.push_back({"Head", FleshMaterial{1e6, 0.3, 1100, 20}});
  const std::string project = dir.file("materials.sinew");
  saveProject(p, project);
  const std::string stats = dir.file("s.json");
  ProcessResult r = cli(dir, {"simulate", project, "--seconds", "0.01", "--stats-json", stats});
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  json setup = json::parse(test::readBytes(stats))["summary"]["setup"];
  EXPECT_EQ(setup["youngs_modulus"].get<double>(), 2e5);
  EXPECT_EQ(setup["poisson_ratio"].get<double>(), 0.3);
  EXPECT_EQ(setup["material_regions"].get<int>(), 1);
  r = cli(dir, {"simulate", project, "--seconds", "0.01", "--youngs-modulus", "5e4", "--stats-json", stats});
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  setup = json::parse(test::readBytes(stats))["summary"]["setup"];
  EXPECT_EQ(setup["youngs_modulus"].get<double>(), 5e4);
  EXPECT_EQ(setup["material_regions"].get<int>(), 1);
}

// The ground and colliders saved with the project are simulated: a box in
// the project holds the character like the command line's box does.
TEST(CliSimulate, UsesTheProjectsScene) {
  const TempDir dir;
  const std::string rigged = std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-rigged.sinew";
  Project p = loadProject(rigged);
  p.simulation.groundHeight = -2;
  Collider box;
  box.name = "Floor box";
  box.shape = ColliderShape::Box;
  box.center = Vec3(0, -0.5, 0);
  box.size = Vec3(1, 0.5, 1);
  p.simulation.colliders.push_back(box);
  const std::string project = dir.file("scene.sinew");
  saveProject(p, project);
  auto run = [&](const std::string& path, std::vector<std::string> extra) {
    const std::string stats = dir.file("s.json");
    std::vector<std::string> args = {"simulate", path, "--seconds", "0.2", "--threads", "1", "--stats-json", stats};
    args.insert(args.end(), extra.begin(), extra.end());
    const ProcessResult r = cli(dir, args);
    EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
    return json::parse(test::readBytes(stats));
  };
  const json fromProject = run(project, {});
  const json fromFlags = run(rigged, {"--ground-height", "-2", "--collider", "box:0,-0.5,0,1,0.5,1"});
  EXPECT_EQ(fromProject["summary"]["setup"]["colliders"].get<int>(), 1);
  EXPECT_EQ(fromProject["summary"]["setup"]["ground_height"].get<double>(), -2);
  EXPECT_EQ(fromProject["center_of_mass"].back(), fromFlags["center_of_mass"].back());
  // A flag overrides the project's ground: lowered further, the box still holds.
  const json lowered = run(project, {"--ground-height", "-3"});
  EXPECT_EQ(lowered["summary"]["setup"]["ground_height"].get<double>(), -3);
  EXPECT_EQ(lowered["center_of_mass"].back(), fromProject["center_of_mass"].back());
}

TEST(CliSimulate, MalformedCollidersAreRefusedByName) {
  const TempDir dir;
  const std::string project = std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-rigged.sinew";
  for (const char* bad : {"box:0,0.4", "cone:1,2,3,4", "sphere:0,1,0,-1", "sphere", "capsule:0,1,0,0.1,nan"}) {
    const ProcessResult r = cli(dir, {"simulate", project, "--seconds", "0.01", "--collider", bad});
    EXPECT_NE(r.exitCode, 0) << bad;
    EXPECT_NE(r.err.find(bad), std::string::npos) << "names the collider: " << r.err;
  }
}

// Sheth et al. 2015 from the command line: the generated scenes run with
// --solver sheth2015 (deformable bones), the free body keeps zero angular
// momentum, bad requests are named.
TEST(CliSheth2015, ScenesSimulateAsDeformableBones) {
  const TempDir dir;
  // The fish (four deformable bones) falls and lands.
  const std::string fish = dir.file("fish.sinew");
  ASSERT_EQ(cli(dir, {"example", "fish", "--spacing", "0.03", "-o", fish}).exitCode, 0);
  const std::string stats = dir.file("fish.json");
  const ProcessResult r = cli(dir, {"simulate", fish, "--solver", "sheth2015", "--modes", "6", "--proxy-sites", "300",
                                    "--seconds", "1.5", "--stats-json", stats, "--export", dir.file("fish")});
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  const json j = json::parse(test::readBytes(stats));
  EXPECT_EQ(j["solver"], "sheth2015");
  const json& setup = j["summary"]["setup"];
  EXPECT_EQ(setup["bodies"], 4);
  EXPECT_EQ(setup["joints"], 9);
  EXPECT_EQ(setup["modes"], 6);
  EXPECT_EQ(j["summary"]["steps"], 90);
  const double start = j["center_of_mass"][0][1].get<double>(), end = j["center_of_mass"].back()[1].get<double>();
  EXPECT_GT(start, 0.15);
  EXPECT_LT(end, 0.07) << "landed";
  EXPECT_GT(end, 0.02) << "on the ground, not through it";
  EXPECT_TRUE(std::filesystem::exists(dir.file("fish") + "/fish_0060.obj"));

  // Fig. 3: a free body with a random reduced displacement, no gravity: its
  // angular momentum stays zero.
  const std::string body = dir.file("body.sinew");
  ASSERT_EQ(cli(dir, {"example", "free-body", "--spacing", "0.025", "-o", body}).exitCode, 0);
  const ProcessResult f = cli(dir, {"simulate", body, "--solver", "sheth2015", "--excite", "0.01", "--gravity", "off",
                                    "--seconds", "1", "--stats-json", stats});
  ASSERT_EQ(f.exitCode, 0) << f.out << f.err;
  const json b = json::parse(test::readBytes(stats));
  double worst = 0, energy = 0;
  for (const json& L : b["angular_momentum"]) worst = std::max(worst, std::hypot(L[0].get<double>(), L[1].get<double>(), L[2].get<double>()));
  energy = b["elastic_energy"][0].get<double>();
  EXPECT_GT(energy, 0) << "it was excited";
  EXPECT_LT(worst, 1e-10);

  // Bad requests: a clip without the bones it drives, an unrigged project.
  const ProcessResult noBones = cli(dir, {"simulate", fish, "--solver", "sheth2015", "--motion", "x"});
  EXPECT_NE(noBones.exitCode, 0);
  EXPECT_NE(noBones.err.find("--driven-bones"), std::string::npos) << noBones.err;
  const std::string bare = dir.file("bare.sinew");
  ASSERT_EQ(cli(dir, {"example", "humanoid", "--spacing", "0.05", "-o", bare}).exitCode, 0);
  const ProcessResult unrigged = cli(dir, {"simulate", bare, "--solver", "sheth2015"});
  EXPECT_NE(unrigged.exitCode, 0);
  EXPECT_NE(unrigged.err.find("sinew-cli rig"), std::string::npos) << unrigged.err;
}

// VIPER (Angles et al. 2019) from the command line: generated scenes run
// with --solver viper, a painted muscle is viperized, bad requests are named.
TEST(CliViper, ScenesSimulateAndPaintedMusclesViperize) {
  const TempDir dir;
  // Two octopi dropped from 0.35-0.4 m land and stay above the ground.
  const std::string octopus = dir.file("octopus.sinew");
  ASSERT_EQ(cli(dir, {"example", "octopus", "--count", "2", "-o", octopus}).exitCode, 0);
  const std::string stats = dir.file("octopus.json");
  const ProcessResult r = cli(dir, {"simulate", octopus, "--solver", "viper", "--seconds", "1.5", "--stats-json", stats});
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  const json j = json::parse(test::readBytes(stats));
  EXPECT_EQ(j["solver"], "viper");
  const json& setup = j["summary"]["setup"];
  EXPECT_EQ(setup["rods"], 18);
  EXPECT_EQ(setup["pills"], 74);  // 37 per octopus
  EXPECT_EQ(setup["bundles"], 2);
  EXPECT_EQ(setup["iterations"], 10);
  EXPECT_EQ(j["summary"]["steps"], 90);  // 1.5 s at 60 Hz
  const double start = j["center_of_mass"][0][1].get<double>(), end = j["center_of_mass"].back()[1].get<double>();
  EXPECT_GT(start, 0.45);
  EXPECT_LT(end, 0.2) << "landed";
  EXPECT_GT(end, 0.05) << "on the ground, not through it";
  EXPECT_LT(std::abs(j["linear_momentum"].back()[1].get<double>()), 0.5) << "at rest";

  // The arm: its biceps (viperized by the example) rides the bones through Flex, activated.
  const std::string arm = dir.file("arm.sinew");
  ASSERT_EQ(cli(dir, {"example", "arm", "-o", arm}).exitCode, 0);
  const ProcessResult flex = cli(dir, {"simulate", arm, "--solver", "viper", "--motion", "Flex", "--activation", "1",
                                       "--seconds", "1", "--stats-json", stats, "--export", dir.file("flex")});
  ASSERT_EQ(flex.exitCode, 0) << flex.out << flex.err;
  const json a = json::parse(test::readBytes(stats));
  EXPECT_EQ(a["summary"]["setup"]["motion"], "Flex");
  EXPECT_EQ(a["summary"]["setup"]["bone_pills"], 2);
  EXPECT_EQ(a["summary"]["setup"]["activation"][0].get<double>(), 1.0);
  EXPECT_TRUE(std::filesystem::exists(dir.file("flex") + "/arm_0060.obj"));
  EXPECT_TRUE(std::filesystem::exists(dir.file("flex") + "/arm.bvh"));

  // Viperize again with other K and M.
  const std::string arm2 = dir.file("arm2.sinew");
  const ProcessResult vip = cli(dir, {"viperize", arm, "--muscle", "Biceps", "--rods", "4", "--slices", "6", "-o", arm2, "--json"});
  ASSERT_EQ(vip.exitCode, 0) << vip.out << vip.err;
  const json v = parseJson(vip);
  EXPECT_EQ(v["rods"], 4);
  EXPECT_EQ(v["slices"], 6);
  EXPECT_GE(v["inside_fraction"].get<double>(), 0.95);
  const Project p2 = loadProject(arm2);
  ASSERT_EQ(p2.rodBodies.size(), 1u);
  EXPECT_EQ(p2.rodBodies[0].rods.size(), 4u);
  EXPECT_EQ(p2.rodBodies[0].rods[0].nodes.size(), 6u);
  EXPECT_EQ(p2.rodBodies[0].pins.size(), 8u);  // both ends of every rod, on the two bones

  // Bad requests, by name.
  expectBadInput(cli(dir, {"viperize", arm, "--muscle", "Triceps"}), "Triceps");
  Project unpainted = loadProject(arm);
  unpainted.rodBodies[0].paint.clear();
  unpainted.rodBodies[0].rods.clear();
  unpainted.rodBodies[0].bundles.clear();
  unpainted.rodBodies[0].pins.clear();
  const std::string blank = dir.file("blank.sinew");
  saveProject(unpainted, blank);
  const ProcessResult notPainted = cli(dir, {"viperize", blank, "--muscle", "Biceps"});
  expectBadInput(notPainted, blank);
  EXPECT_NE(notPainted.err.find("not painted"), std::string::npos) << notPainted.err;
  const ProcessResult notViperized = cli(dir, {"simulate", blank, "--solver", "viper", "--seconds", "0.1"});
  expectBadInput(notViperized, blank);
  EXPECT_NE(notViperized.err.find("viperize"), std::string::npos) << notViperized.err;
  Project onlySources = loadProject(arm);
  for (MusclePaint& m : onlySources.rodBodies[0].paint)
    if (m == MusclePaint::Sink) m = MusclePaint::None;
  const std::string sources = dir.file("sources.sinew");
  saveProject(onlySources, sources);
  const ProcessResult noSinks = cli(dir, {"viperize", sources, "--muscle", "Biceps"});
  expectBadInput(noSinks, sources);
  EXPECT_NE(noSinks.err.find("only sources are painted"), std::string::npos) << noSinks.err;
  const std::string rigged = std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid-rigged.sinew";
  const ProcessResult none = cli(dir, {"simulate", rigged, "--solver", "viper", "--seconds", "0.1"});
  expectBadInput(none, rigged);
  EXPECT_NE(none.err.find("no rod bodies"), std::string::npos) << none.err;
  expectBadInput(cli(dir, {"simulate", octopus, "--solver", "viper", "--pin-box", "0,0,0,1,1,1"}), "--pin-box");
  expectBadInput(cli(dir, {"simulate", arm, "--solver", "viper", "--motion", "Dance"}), "--motion");

  // A second muscle added between the two bones (a generated spindle under
  // them), viperized, and both simulated together.
  const std::string two = dir.file("two.sinew");
  const ProcessResult added = cli(dir, {"add-muscle", arm, "--name", "Brachialis", "--origin", "UpperArm", "--insertion",
                                        "Forearm", "--side", "0,-1,0", "--viperize", "-o", two});
  ASSERT_EQ(added.exitCode, 0) << added.out << added.err;
  const Project p3 = loadProject(two);
  ASSERT_EQ(p3.rodBodies.size(), 2u);
  EXPECT_EQ(p3.rodBodies[1].rods.size(), 5u);
  EXPECT_FALSE(p3.rodBodies[1].selfCollision);
  const ProcessResult both = cli(dir, {"simulate", two, "--solver", "viper", "--motion", "Flex", "--seconds", "0.5", "--stats-json", stats});
  ASSERT_EQ(both.exitCode, 0) << both.out << both.err;
  EXPECT_EQ(json::parse(test::readBytes(stats))["summary"]["setup"]["rod_bodies"], 2);
  expectBadInput(cli(dir, {"add-muscle", arm, "--name", "X", "--origin", "UpperArm", "--insertion", "Tail"}), "'Tail'");
  expectBadInput(cli(dir, {"add-muscle", arm, "--name", "Biceps", "--origin", "UpperArm", "--insertion", "Forearm"}),
                 "exists already");
}

namespace {

// Bring your own character: a mesh that is no humanoid is refused by
// `rig --skeleton auto`, and bones are counted as Assimp counts them (the
// journeys from file to simulation are in CliJourneyTest.cpp).
TEST(CliCharacter, NotAHumanoidIsRefusedAndNothingIsWritten) {
  const TempDir dir;
  ASSERT_EQ(cli(dir, {"import", model("OBJ/box.obj"), "-o", dir.file("box.sinew")}).exitCode, 0);
  const ProcessResult r = cli(dir, {"rig", dir.file("box.sinew"), "--skeleton", "auto", "-o", dir.file("out.sinew")});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("cannot find two legs and two arms"), std::string::npos) << r.err;
  EXPECT_EQ(test::lines(r.err).size(), 1u) << r.err;
  EXPECT_FALSE(test::fs::exists(dir.file("out.sinew")));
  // A project that has a skeleton already is not given another.
  const ProcessResult again =
      cli(dir, {"rig", std::string(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid.sinew", "--skeleton", "auto", "-o", dir.file("o.sinew")});
  EXPECT_EQ(again.exitCode, 2);
  EXPECT_NE(again.err.find("already has a skeleton"), std::string::npos) << again.err;
}

TEST(CliCharacter, InfoCountsSkinBonesAsAssimpDoes) {
  const TempDir dir;
  const ProcessResult r = cli(dir, {"info", model("FBX/animation_with_skeleton.fbx"), "--no-self-intersections"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("skinned to 13 bones"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("15 joints, 13 of them skin bones"), std::string::npos) << r.out;
}

}  // namespace

}  // namespace sinew
