// sinew-cli simulate: run a solver on a project and write the stats JSON
// (and optionally the animation).
#include "Commands.h"

#include "core/Error.h"
#include "io/AnimationExport.h"
#include "io/Bvh.h"
#include "io/FileUtil.h"
#include "io/ProjectFile.h"
#include "liu2013/Liu2013.h"
#include "solver/SimRun.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <thread>

namespace sinew::cli {

namespace fs = std::filesystem;

namespace {

bool onOff(const std::string& v) { return v == "on"; }

// "sphere:x,y,z,r", "box:x,y,z,hx,hy,hz" or "capsule:x,y,z,r,halfLength".
Collider parseCollider(const std::string& text, size_t index) {
  const auto bad = [&](const std::string& why) {
    return InputError("--collider " + text, why + " (expected sphere:x,y,z,radius, box:x,y,z,hx,hy,hz or capsule:x,y,z,radius,halfLength)");
  };
  const size_t colon = text.find(':');
  if (colon == std::string::npos) throw bad("no shape name");
  const std::string shape = text.substr(0, colon);
  std::vector<double> v;
  std::string rest = text.substr(colon + 1);
  size_t start = 0;
  while (start <= rest.size()) {
    const size_t comma = std::min(rest.find(',', start), rest.size());
    const std::string item = rest.substr(start, comma - start);
    char* end = nullptr;
    const double x = std::strtod(item.c_str(), &end);
    if (item.empty() || end != item.c_str() + item.size() || !std::isfinite(x)) throw bad("'" + item + "' is not a number");
    v.push_back(x);
    start = comma + 1;
  }
  Collider c;
  const std::optional<ColliderShape> kind = colliderShapeFromName(shape);
  if (!kind) throw bad("unknown shape '" + shape + "'");
  c.shape = *kind;
  c.name = "--collider " + std::to_string(index + 1);
  const size_t expected = shape == "sphere" ? 4 : shape == "box" ? 6 : 5;
  if (v.size() != expected) throw bad(shape + " takes " + std::to_string(expected) + " numbers, got " + std::to_string(v.size()));
  c.center = Vec3(v[0], v[1], v[2]);
  if (shape == "sphere") c.size = Vec3(v[3], 0, 0);
  else if (shape == "box") c.size = Vec3(v[3], v[4], v[5]);
  else c.size = Vec3(v[3], v[4], 0);
  const int sizes = shape == "box" ? 3 : shape == "capsule" ? 2 : 1;
  for (int k = 0; k < sizes; ++k)
    if (!(c.size[k] > 0)) throw bad("sizes must be positive");
  return c;
}

MotionClip findMotion(const Project& p, const std::string& projectPath, const std::string& motion) {
  for (const ClipObject& c : p.clips)
    if (c.clip.name == motion) return c.clip;
  if (fs::exists(motion)) return readBvh(motion);
  std::string names;
  for (const ClipObject& c : p.clips) names += (names.empty() ? "" : ", ") + c.clip.name;
  throw InputError(projectPath, "has no motion clip called '" + motion + "' and no such BVH file exists (clips: " +
                                    (names.empty() ? "none" : names) + ")");
}

}  // namespace

int simulate(const SimulateArgs& args) {
  return guarded([&] {
    if (args.solver != "liu2013")
      throw InputError("--solver", "solver '" + args.solver + "' is not available yet (available: liu2013)");
    const Project project = loadProject(args.project);
    // The materials saved with the project; the flags below override the flesh.
    liu2013::ModelOptions modelOptions = liu2013::modelOptionsFor(project.simulation);
    if (args.youngsModulus > 0) modelOptions.material.youngsModulus = args.youngsModulus;
    if (args.poissonRatio >= 0) modelOptions.material.poissonRatio = args.poissonRatio;
    if (args.density > 0) modelOptions.material.density = args.density;
    if (args.poseDamping >= 0) modelOptions.material.damping = args.poseDamping;
    std::shared_ptr<const liu2013::Liu2013Model> model;
    try {
      model = liu2013::buildLiu2013Model(project, modelOptions);
    } catch (const InputError& e) {
      throw InputError(args.project, e.what());
    }
    liu2013::Settings settings;
    settings.dt = args.dt;
    settings.toggles.gravity = onOff(args.gravity);
    settings.toggles.contact = onOff(args.contact);
    settings.toggles.plasticity = onOff(args.plasticity);
    settings.toggles.damping = args.damping == "pose" ? DampingMode::Pose
                               : args.damping == "rayleigh" ? DampingMode::Rayleigh
                                                            : DampingMode::None;
    settings.threads = args.threads;
    // The scene saved with the project, then the command line's changes.
    liu2013::applyScene(project.simulation, settings);
    if (args.groundHeight) settings.groundHeight = *args.groundHeight;
    if (args.friction) settings.friction = *args.friction;
    for (size_t i = 0; i < args.colliders.size(); ++i) settings.colliders.push_back(parseCollider(args.colliders[i], i));
    if (!args.motion.empty()) {
      settings.clip = findMotion(project, args.project, args.motion);
      settings.drive = args.drive == "kinematic" ? DriveMode::Kinematic : DriveMode::Pd;
    } else if (args.drive != "pd" && args.drive != "hold") {
      throw InputError("--drive", "the " + args.drive + " drive needs --motion CLIP");
    }
    liu2013::Liu2013Solver solver(model, settings);

    RunOptions run;
    run.seconds = args.seconds;
    run.frameRate = args.fps;
    run.recordSurface = run.recordSkeleton = !args.exportDir.empty();
    const RunRecord rec = runSimulation(solver, run);

    const int threads = args.threads > 0 ? args.threads : static_cast<int>(std::thread::hardware_concurrency());
    nlohmann::json setup = {{"project", args.project},
                            {"nodes", model->nodeCount()},
                            {"tets", model->tetCount()},
                            {"fixed_nodes", model->nodeCount() - model->freeNodes.size()},
                            {"joints", model->skeleton.links.size()},
                            {"surface_vertices", model->surfaceRest.size()},
                            {"mass_kg", model->totalMass},
                            {"drive", driveModeName(settings.drive)},
                            {"motion", settings.clip ? settings.clip->name : ""},
                            {"gravity", settings.toggles.gravity},
                            {"contact", settings.toggles.contact},
                            {"plasticity", settings.toggles.plasticity},
                            {"damping", dampingModeName(settings.toggles.damping)},
                            {"colliders", settings.colliders.size()},
                            {"ground_height", settings.groundHeight},
                            {"youngs_modulus", modelOptions.material.youngsModulus},
                            {"poisson_ratio", modelOptions.material.poissonRatio},
                            {"material_regions", modelOptions.regions.size()},
                            {"density", modelOptions.material.density}};
    const std::string text = statsJson(rec, solver.solverName(), settings.dt, threads, setup.dump());
    if (!args.statsJson.empty()) writeFileAtomic(args.statsJson, text + "\n");

    if (!args.exportDir.empty()) {
      SimulatedAnimation anim{model->surfaceTriangles, rec.surfaces, rec.joints, 1.0 / args.fps};
      exportSimulatedAnimation(args.exportDir, fs::path(args.project).stem().string(), anim, &project.skeleton->skeleton);
    }

    std::cout << "simulated " << rec.simulatedSeconds << " s in " << rec.steps << " steps of " << settings.dt * 1000
              << " ms (" << model->nodeCount() << " nodes, " << model->tetCount() << " tets, "
              << model->skeleton.links.size() << " joints, " << threads << " thread(s)): " << rec.msPerStepMedian()
              << " ms/step median, real-time factor " << rec.realtimeFactor() << ", inverted tets max "
              << rec.invertedTetsMax() << "\n";
    if (!args.statsJson.empty()) std::cout << "wrote " << args.statsJson << "\n";
    if (!args.exportDir.empty()) std::cout << "wrote " << rec.surfaces.size() << " frames to " << args.exportDir << "\n";
    if (!rec.stopped.empty()) {
      std::cerr << "sinew-cli: " << args.project << ": " << rec.stopped << "\n";
      return int(kBadInput);
    }
    return int(kOk);
  });
}

}  // namespace sinew::cli
