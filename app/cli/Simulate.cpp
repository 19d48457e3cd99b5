// sinew-cli simulate: run a solver on a project and write the stats JSON
// (and optionally the animation).
#include "Commands.h"
#include "Subcommands.h"

#include "control/Optimize.h"
#include "core/Error.h"
#include "io/AnimationExport.h"
#include "io/Bvh.h"
#include "io/FileUtil.h"
#include "io/ProjectFile.h"
#include "liu2013/Liu2013.h"
#include "li2019/Li2019Simulation.h"
#include "solver/SimRun.h"
#include "sheth2015/Sheth2015Simulation.h"
#include "viper/ViperSimulation.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>
#include <map>
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

// The frames a run records: --seconds at --fps (at most one per step), with
// surfaces and skeleton when they are to be exported.
RunOptions runOptionsFor(const SimulateArgs& args, const Simulation& sim) {
  RunOptions run;
  run.seconds = args.seconds;
  run.frameRate = std::min(args.fps, 1.0 / sim.dt());
  run.recordSurface = run.recordSkeleton = !args.exportDir.empty();
  return run;
}

// A run that stopped early (instability) is bad input: say where, exit 2.
// The solver parameters given on the command line, checked by the registry
// against the solver chosen (a flag another solver has is refused too).
SolverParams checkedParams(const SimulateArgs& args, SolverKind kind) {
  try {
    validateParams(kind, args.params);
  } catch (const InputError& e) {
    throw InputError("--" + e.file(), e.problem());
  }
  return args.params;
}

// The project's values of the solver's table (Project::simulation.solverParams), then the flags'.
SolverParams projectParams(const Project& project, SolverKind kind, const SolverParams& flags) {
  SolverParams params;
  if (const auto it = project.simulation.solverParams.find(solverKindName(kind)); it != project.simulation.solverParams.end())
    params = it->second;
  for (const auto& [name, value] : flags) params[name] = value;
  return params;
}

// A count parameter's value (given or default), e.g. "threads" or "iterations".
int countParam(SolverKind kind, const SolverParams& p, const char* name) { return int(paramValue(kind, p, name)); }

// Threads actually used: the parameter, or all cores for 0.
int threadsUsed(int threads) { return threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency()); }

int runExitCode(const SimulateArgs& args, const RunRecord& rec) {
  if (!rec.stopped.empty()) {
    std::cerr << "sinew-cli: " << args.project << ": the run stopped at t = " << rec.simulatedSeconds << " s: " << rec.stopped << "\n";
    return int(kBadInput);
  }
  if (!args.statsJson.empty()) std::cout << "wrote " << args.statsJson << "\n";
  return int(kOk);
}

}  // namespace

// sinew-cli simulate --solver li2019: the passive character on the
// project's conforming mesh, same stats JSON and exports.
int simulateLi2019(const SimulateArgs& args) {
  return guarded([&] {
    if (!args.controller.empty())
      throw InputError("--controller", "controllers drive the Liu 2013 solver (leave out --solver li2019)");
    if (args.driveGiven && args.drive != "kinematic")
      throw InputError("--drive", "the li2019 solver drives bones kinematically only (--drive kinematic, or leave it out)");
    if (!args.drivenBones.empty() && args.motion.empty())
      throw InputError("--driven-bones", "needs --motion CLIP");
    const SolverParams flags = checkedParams(args, SolverKind::Li2019);
    const Project project = loadProject(args.project);
    const SolverParams params = projectParams(project, SolverKind::Li2019, flags);
    li2019::ModelOptions options = li2019::modelOptionsFor(project.simulation);
    if (args.youngsModulus > 0) options.youngsModulus = args.youngsModulus;
    if (args.poissonRatio >= 0) options.poissonRatio = args.poissonRatio;
    if (args.density > 0) options.density = args.density;
    if (params.count("dt")) options.dt = params.at("dt");
    if (!args.pinBox.empty()) {
      const Vec3 lo(args.pinBox[0], args.pinBox[1], args.pinBox[2]), hi(args.pinBox[3], args.pinBox[4], args.pinBox[5]);
      if (!lo.allFinite() || !hi.allFinite() || (lo.array() > hi.array()).any())
        throw InputError("--pin-box", "give x0,y0,z0,x1,y1,z1 with each minimum at most its maximum");
      li2019::Input in;
      try {
        in = li2019::inputFromProject(project);
      } catch (const InputError& e) {
        throw InputError(args.project, e.what());
      }
      for (size_t i = 0; i < in.mesh.nodes.size(); ++i)
        if ((in.mesh.nodes[i].array() >= lo.array()).all() && (in.mesh.nodes[i].array() <= hi.array()).all())
          options.pinnedNodes.push_back(int32_t(i));
      if (options.pinnedNodes.empty())
        throw InputError("--pin-box", "no node of the conforming mesh lies inside the box");
    }
    li2019::Settings settings;
    settings.iterations = countParam(SolverKind::Li2019, params, "iterations");
    settings.threads = countParam(SolverKind::Li2019, params, "threads");
    liu2013::Settings scene;  // the project's ground and colliders, then the command line's
    liu2013::applyScene(project.simulation, scene);
    settings.groundHeight = args.groundHeight ? *args.groundHeight : scene.groundHeight;
    settings.friction = args.friction ? *args.friction : scene.friction;
    settings.colliders = scene.colliders;
    for (size_t i = 0; i < args.colliders.size(); ++i) settings.colliders.push_back(parseCollider(args.colliders[i], i));
    std::unique_ptr<li2019::Li2019Simulation> sim;
    try {
      sim = std::make_unique<li2019::Li2019Simulation>(project, options, settings);
    } catch (const InputError& e) {
      throw InputError(args.project, e.what());
    }
    SimToggles toggles;
    toggles.gravity = onOff(args.gravity);
    toggles.contact = onOff(args.contact);
    sim->setToggles(toggles);
    if (!args.motion.empty()) {
      MotionClip clip = findMotion(project, args.project, args.motion);
      try {
        sim->setMotion(std::move(clip), true, args.drivenBones);
      } catch (const InputError& e) {
        throw InputError(args.drivenBones.empty() ? "--motion" : "--driven-bones", e.what());
      }
    }

    const RunOptions run = runOptionsFor(args, *sim);
    const RunRecord rec = runSimulation(*sim, run);
    const li2019::Li2019Model& m = sim->model();
    const int threads = threadsUsed(settings.threads);
    const nlohmann::json setup = {{"project", args.project},
                                  {"nodes", m.nodeCount()},
                                  {"tets", m.tetCount()},
                                  {"bones", m.bones.size()},
                                  {"joints", m.joints.size()},
                                  {"reduced_rows", m.reducedSize},
                                  {"iterations", settings.iterations},
                                  {"surface_vertices", sim->surfacePositions().size()},
                                  {"mass_kg", m.totalMass},
                                  {"drive", sim->motion() ? "kinematic" : "passive"},
                                  {"motion", sim->motion() ? sim->motion()->name : ""},
                                  {"driven_bones", sim->drivenBones()},
                                  {"pinned_nodes", options.pinnedNodes.size()},
                                  {"gravity", toggles.gravity},
                                  {"contact", toggles.contact},
                                  {"colliders", settings.colliders.size()},
                                  {"ground_height", settings.groundHeight},
                                  {"friction", settings.friction},
                                  {"youngs_modulus", options.youngsModulus},
                                  {"poisson_ratio", options.poissonRatio},
                                  {"density", options.density},
                                  {"bone_density", options.boneDensity}};
    const std::string text = statsJson(rec, sim->solverName(), sim->dt(), threads, setup.dump());
    if (!args.statsJson.empty()) writeFileAtomic(args.statsJson, text + "\n");
    if (!args.exportDir.empty()) {
      SimulatedAnimation anim{sim->surfaceTriangles(), rec.surfaces, rec.joints, 1.0 / run.frameRate};
      exportSimulatedAnimation(args.exportDir, fs::path(args.project).stem().string(), anim, &project.skeleton->skeleton);
    }
    std::cout << "simulated " << rec.simulatedSeconds << " s in " << rec.steps << " steps of " << sim->dt() * 1000
              << " ms with li2019 (" << m.nodeCount() << " nodes, " << m.tetCount() << " tets, " << m.bones.size()
              << " bones, " << m.joints.size() << " joints, " << settings.iterations << " iterations, " << threads
              << " thread(s)): " << rec.msPerStepMedian() << " ms per step (median)" << std::endl;
    return runExitCode(args, rec);
  });
}

// sinew-cli simulate --solver viper: the project's rod bodies (muscles on
// their bones, octopi, bands), same stats JSON and exports.
int simulateViper(const SimulateArgs& args) {
  return guarded([&] {
    if (!args.controller.empty()) throw InputError("--controller", "controllers drive the Liu 2013 solver (leave out --solver viper)");
    if (args.driveGiven && args.drive != "kinematic")
      throw InputError("--drive", "the viper solver moves bones kinematically only (--drive kinematic, or leave it out)");
    if (!args.drivenBones.empty()) throw InputError("--driven-bones", "is for --solver li2019");
    if (!args.pinBox.empty()) throw InputError("--pin-box", "is for --solver li2019 (rod bodies carry their own pins)");
    if (!args.colliders.empty()) throw InputError("--collider", "the viper solver collides with the ground and the skeleton's capsule bones only");
    const SolverParams flags = checkedParams(args, SolverKind::Viper);
    const Project project = loadProject(args.project);
    const SolverParams params = projectParams(project, SolverKind::Viper, flags);
    viper::ViperOptions options;
    options.dt = paramValue(SolverKind::Viper, params, "dt");
    options.iterations = countParam(SolverKind::Viper, params, "iterations");
    options.threads = countParam(SolverKind::Viper, params, "threads");
    options.groundHeight = args.groundHeight ? *args.groundHeight : project.simulation.groundHeight.value_or(0.0);
    if (args.friction) options.friction = *args.friction;
    else if (project.simulation.groundFriction) options.friction = *project.simulation.groundFriction;
    std::unique_ptr<viper::ViperSimulation> sim;
    try {
      sim = std::make_unique<viper::ViperSimulation>(project, options);
    } catch (const InputError& e) {
      throw InputError(args.project, e.what());
    }
    SimToggles toggles;
    toggles.gravity = onOff(args.gravity);
    toggles.contact = onOff(args.contact);
    sim->setToggles(toggles);
    if (args.activation >= 0)
      for (size_t b = 0; b < sim->bodyCount(); ++b) sim->setActivation(b, args.activation);
    if (!args.motion.empty()) {
      try {
        sim->setMotion(findMotion(project, args.project, args.motion), true);
      } catch (const InputError& e) {
        throw InputError("--motion", e.what());
      }
    }
    const RunOptions run = runOptionsFor(args, *sim);
    const RunRecord rec = runSimulation(*sim, run);
    const viper::RodModel& m = sim->model();
    std::vector<double> activations;
    for (size_t b = 0; b < sim->bodyCount(); ++b) activations.push_back(sim->activation(b));
    const nlohmann::json setup = {{"project", args.project},
                                  {"rod_bodies", sim->bodyCount()},
                                  {"rods", m.rodCount() - size_t(sim->input().boneRodCount)},
                                  {"bone_pills", sim->input().boneRodCount},
                                  {"nodes", sim->bodyNodeEnd()},
                                  {"pills", m.segmentCount() - size_t(sim->input().boneRodCount)},
                                  {"bundles", m.bundles.size()},
                                  {"pinned_nodes", sim->input().carried.size()},
                                  {"iterations", options.iterations},
                                  {"surface_vertices", sim->surfacePositions().size()},
                                  {"motion", sim->motion() ? sim->motion()->name : ""},
                                  {"activation", activations},
                                  {"gravity", toggles.gravity},
                                  {"contact", toggles.contact},
                                  {"ground_height", options.groundHeight},
                                  {"friction", options.friction}};
    const int threads = threadsUsed(options.threads);
    const std::string text = statsJson(rec, sim->solverName(), sim->dt(), threads, setup.dump());
    if (!args.statsJson.empty()) writeFileAtomic(args.statsJson, text + "\n");
    if (!args.exportDir.empty()) {
      const MeshObject* mesh = project.findMesh(sim->surfaceMesh());
      if (!mesh) throw InputError(args.project, "no rod body has a surface to export");
      SimulatedAnimation anim{mesh->mesh.triangles, rec.surfaces, rec.joints, 1.0 / run.frameRate};
      exportSimulatedAnimation(args.exportDir, fs::path(args.project).stem().string(), anim,
                               project.skeleton && !rec.joints.empty() && !rec.joints[0].empty() ? &project.skeleton->skeleton : nullptr);
    }
    std::cout << "simulated " << rec.simulatedSeconds << " s in " << rec.steps << " steps of " << sim->dt() * 1000
              << " ms with viper (" << setup["rods"] << " rods, " << setup["pills"] << " pills, " << options.iterations
              << " iterations, " << threads << " thread(s)): " << rec.msPerStepMedian() << " ms per step (median)" << std::endl;
    return runExitCode(args, rec);
  });
}

// sinew-cli simulate --solver sheth2015: the character as deformable bones
// (reduced bodies joined by point joints, one skin), same stats JSON and
// exports; --copies for many characters (the Pachinko scene).
int simulateSheth2015(const SimulateArgs& args) {
  return guarded([&] {
    if (!args.controller.empty()) throw InputError("--controller", "controllers drive the Liu 2013 solver (leave out --solver sheth2015)");
    if (args.driveGiven && args.drive != "kinematic")
      throw InputError("--drive", "the sheth2015 solver moves bones kinematically only (--drive kinematic, or leave it out)");
    if (!args.pinBox.empty()) throw InputError("--pin-box", "is for --solver li2019");
    if (!args.motion.empty() && args.drivenBones.empty())
      throw InputError("--motion", "name the bones that follow the clip with --driven-bones (the others are simulated)");
    if (args.motion.empty() && !args.drivenBones.empty()) throw InputError("--driven-bones", "needs --motion CLIP");
    const SolverParams flags = checkedParams(args, SolverKind::Sheth2015);
    const Project project = loadProject(args.project);
    const SolverParams params = projectParams(project, SolverKind::Sheth2015, flags);
    sheth2015::Sheth2015Options options = sheth2015::optionsFor(project);
    if (params.count("dt")) options.dt = params.at("dt");
    if (args.youngsModulus > 0) options.decompose.material.youngsModulus = args.youngsModulus;
    if (args.poissonRatio >= 0) options.decompose.material.poissonRatio = args.poissonRatio;
    if (args.density > 0) options.decompose.material.density = args.density;
    options.decompose.modes = countParam(SolverKind::Sheth2015, params, "modes");
    options.decompose.threshold = args.threshold;
    options.decompose.jointsPerOverlap = args.jointsPerOverlap;
    options.decompose.proxySites = args.proxySites;
    options.copies = args.copies;
    options.excite = args.excite;
    options.sweeps = options.postStabilization = countParam(SolverKind::Sheth2015, params, "sweeps");
    if (args.groundHeight) options.groundHeight = *args.groundHeight;
    if (args.friction) options.friction = *args.friction;
    for (size_t i = 0; i < args.colliders.size(); ++i) options.colliders.push_back(parseCollider(args.colliders[i], i));
    std::unique_ptr<sheth2015::Sheth2015Simulation> sim;
    const auto built = std::chrono::steady_clock::now();
    try {
      sim = std::make_unique<sheth2015::Sheth2015Simulation>(project, options, [](double f) {
        std::cerr << "sheth2015: deformable bones (" << int(std::lround(100 * f)) << "%)" << std::endl;
      });
    } catch (const InputError& e) {
      throw InputError(args.project, e.what());
    }
    const double buildSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - built).count();
    SimToggles toggles;
    toggles.gravity = onOff(args.gravity);
    toggles.contact = onOff(args.contact);
    sim->setToggles(toggles);
    if (!args.motion.empty()) {
      try {
        sim->setMotion(findMotion(project, args.project, args.motion), args.drivenBones);
      } catch (const InputError& e) {
        throw InputError("--driven-bones", e.what());
      }
    }
    const RunOptions run = runOptionsFor(args, *sim);
    const RunRecord rec = runSimulation(*sim, run);
    const sheth2015::DeformableBones& bones = sim->bones();
    std::vector<std::string> bodyNames = bones.bodyNames;
    const nlohmann::json setup = {{"project", args.project},
                                  {"bodies", bones.models.size()},
                                  {"body_names", bodyNames},
                                  {"particles", bones.particleCount()},
                                  {"volume_nodes", bones.skin.siteCount()},
                                  {"joints", bones.joints.size()},
                                  {"proxy_sites", bones.proxyNodes.size()},
                                  {"modes", options.decompose.modes},
                                  {"threshold", options.decompose.threshold},
                                  {"copies", options.copies},
                                  {"excite", options.excite},
                                  {"sweeps", options.sweeps},
                                  {"build_seconds", buildSeconds},
                                  {"surface_vertices", sim->surfacePositions().size()},
                                  {"motion", sim->motion() ? sim->motion()->name : ""},
                                  {"driven_bones", args.drivenBones},
                                  {"gravity", toggles.gravity},
                                  {"contact", toggles.contact},
                                  {"colliders", options.colliders.size()},
                                  {"ground_height", options.groundHeight},
                                  {"friction", options.friction},
                                  {"youngs_modulus", options.decompose.material.youngsModulus},
                                  {"poisson_ratio", options.decompose.material.poissonRatio},
                                  {"density", options.decompose.material.density}};
    const std::string text = statsJson(rec, sim->solverName(), sim->dt(), 1, setup.dump());
    if (!args.statsJson.empty()) writeFileAtomic(args.statsJson, text + "\n");
    if (!args.exportDir.empty()) {
      SimulatedAnimation anim{sim->surfaceTriangles(), rec.surfaces, rec.joints, 1.0 / run.frameRate};
      exportSimulatedAnimation(args.exportDir, fs::path(args.project).stem().string(), anim, &project.skeleton->skeleton);
    }
    std::cout << "simulated " << rec.simulatedSeconds << " s in " << rec.steps << " steps of " << sim->dt() * 1000
              << " ms with sheth2015 (" << options.copies << " x " << bones.models.size() << " deformable bones, "
              << bones.particleCount() << " particles, " << bones.joints.size() << " joints, " << bones.proxyNodes.size()
              << " proxy sites, " << options.decompose.modes << " modes each): " << rec.msPerStepMedian()
              << " ms per step (median)" << std::endl;
    return runExitCode(args, rec);
  });
}

// The run's outputs never overwrite its inputs (the project, its data
// folder, a .bvh motion), neither directly nor through the export's files.
void checkSimulateOutputs(const SimulateArgs& args) {
  std::vector<std::string> inputs{args.project};
  if (!args.motion.empty() && fs::exists(args.motion)) inputs.push_back(args.motion);
  checkOutputPath(args.statsJson, inputs);
  if (args.exportDir.empty()) return;
  checkOutputPath(args.exportDir, inputs);
  const std::string stem = fs::path(args.project).stem().string();
  for (const char* ext : {".bvh", ".pc2"}) checkOutputPath((fs::path(args.exportDir) / (stem + ext)).string(), inputs);
}

int simulate(const SimulateArgs& args) {
  if (const int rc = guarded([&] {
        checkSimulateOutputs(args);
        return int(kOk);
      }))
    return rc;
  if (!args.push.empty() && args.solver != "liu2013")
    return guarded([&]() -> int { throw InputError("--push", "is available with the liu2013 solver only, not " + args.solver); });
  if (args.solver == "li2019") return simulateLi2019(args);
  if (args.solver == "sheth2015") return simulateSheth2015(args);
  if (args.solver == "viper") return simulateViper(args);
  return guarded([&] {
    if (args.solver != "liu2013")
      throw InputError("--solver", "solver '" + args.solver + "' is not available (liu2013, li2019, viper, sheth2015)");
    const SolverParams flags = checkedParams(args, SolverKind::Liu2013);
    const Project project = loadProject(args.project);
    const SolverParams params = projectParams(project, SolverKind::Liu2013, flags);
    // The materials saved with the project; the flags below override the flesh.
    liu2013::ModelOptions modelOptions = liu2013::modelOptionsFor(project.simulation);
    // The step: --dt, else the one rigging found this character stable at, else the default.
    const double dt = params.count("dt") ? params.at("dt")
                                         : project.simulation.timeStep.value_or(paramValue(SolverKind::Liu2013, params, "dt"));
    modelOptions.stableStep = dt;  // masses stable for the step this run takes
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
    if (model->massScaledNodes > 0)
      std::printf("stable by construction: %zu cage node(s) given %.4g kg (of %.4g kg) for the %.4g ms step\n",
                  model->massScaledNodes, model->addedMass, model->totalMass, dt * 1000);
    liu2013::Settings settings;
    settings.toggles.gravity = onOff(args.gravity);
    settings.toggles.contact = onOff(args.contact);
    settings.toggles.plasticity = onOff(args.plasticity);
    settings.toggles.damping = args.damping == "pose" ? DampingMode::Pose
                               : args.damping == "rayleigh" ? DampingMode::Rayleigh
                                                            : DampingMode::None;
    settings.threads = countParam(SolverKind::Liu2013, params, "threads");
    // The scene saved with the project, then the command line's changes.
    liu2013::applyScene(project.simulation, settings);
    settings.dt = dt;
    if (args.groundHeight) settings.groundHeight = *args.groundHeight;
    if (args.friction) settings.friction = *args.friction;
    for (size_t i = 0; i < args.colliders.size(); ++i) settings.colliders.push_back(parseCollider(args.colliders[i], i));
    if (!args.controller.empty() && !args.motion.empty())
      throw InputError("--controller", "plays its own motion: leave out --motion");
    if (!args.motion.empty()) {
      settings.clip = findMotion(project, args.project, args.motion);
      settings.drive = args.drive == "kinematic" ? DriveMode::Kinematic : DriveMode::Pd;
    } else if (args.drive != "pd" && args.drive != "hold") {
      throw InputError("--drive", "the " + args.drive + " drive needs --motion CLIP");
    }

    // A controller brings its own model (its PD gains), start and targets.
    control::ControllerRun controlled;
    const ControllerObject* controller = nullptr;
    if (!args.controller.empty()) {
      controller = &project.controllers[controllerIndex(project, args.project, args.controller)];
      const bool feedback = args.feedback == "on" && !controller->feedback.empty();
      if (args.feedback == "on" && controller->feedback.empty())
        std::cout << "note: controller '" << controller->name << "' has no feedback policy: playing it open loop\n";
      try {
        controlled = control::prepareControllerRun(project, *controller, settings, feedback);
      } catch (const InputError& e) {
        throw InputError(args.project, e.what());
      }
      model = controlled.model;
    }
    std::unique_ptr<liu2013::Liu2013Solver> own;
    if (!controller) {
      own = std::make_unique<liu2013::Liu2013Solver>(model, settings);
      own->poseAtClipStart();  // driven by a clip: start in its first pose (the servos on target), as a controller does
    }
    liu2013::Liu2013Solver& solver = controller ? *controlled.solver : *own;

    RunOptions run;
    run.seconds = controller && !args.secondsGiven ? controller->duration() + 1.0 : args.seconds;
    run.frameRate = args.fps;
    run.recordSurface = run.recordSkeleton = !args.exportDir.empty();
    // How closely a controller's character follows its reference, per frame.
    nlohmann::json tracking = {{"time", nlohmann::json::array()}, {"cost", nlohmann::json::array()},
                               {"pose_error", nlohmann::json::array()}, {"root_position_error", nlohmann::json::array()},
                               {"root_height", nlohmann::json::array()}, {"reference_root_height", nlohmann::json::array()},
                               {"tilt_degrees", nlohmann::json::array()}, {"fell", nlohmann::json::array()}};
    bool fell = false;
    double maxTilt = 0;  // degrees: root orientation away from the reference's
    // A shove: the whole body gains a velocity at the first frame at or after T.
    bool pushPending = !args.push.empty();
    double pushedAt = -1;
    if (pushPending) {
      if (args.push.size() != 4 || !std::all_of(args.push.begin(), args.push.end(), [](double x) { return std::isfinite(x); }))
        throw InputError("--push", "needs four finite numbers T,VX,VY,VZ");
      if (!(args.push[0] >= 0 && args.push[0] < run.seconds))
        throw InputError("--push", "its time must lie within the run (0 to " + std::to_string(run.seconds) + " s)");
    }
    auto pushIfDue = [&] {
      if (!pushPending || solver.time() + 0.5 * settings.dt < args.push[0]) return;
      liu2013::Liu2013State s = solver.state();
      liu2013::addRigidVelocity(solver.model(), s, Vec3(args.push[1], args.push[2], args.push[3]), Vec3::Zero(), Vec3::Zero());
      solver.setState(s);
      pushedAt = solver.time();
      pushPending = false;
    };
    auto track = [&] {
      const control::BodyFeatures sim = controlled.reference->features(solver.state().skeleton);
      const control::BodyFeatures ref =
          controlled.reference->features(controlled.policy->referenceTime(solver.time() - 0.5 * settings.dt));
      const control::CostTerms c = control::trackingCost(sim, ref, {});
      const double tilt = control::tiltDegrees(sim, ref);
      tracking["time"].push_back(solver.time());
      tracking["cost"].push_back(c.total);
      tracking["pose_error"].push_back(c.pose);
      tracking["root_position_error"].push_back(std::sqrt(c.position));
      tracking["root_height"].push_back(sim.rootPosition.y());
      tracking["reference_root_height"].push_back(ref.rootPosition.y());
      tracking["tilt_degrees"].push_back(tilt);
      tracking["fell"].push_back(c.fallen);
      fell = fell || c.fallen;
      maxTilt = std::max(maxTilt, tilt);
    };
    run.onFrame = [&] {
      pushIfDue();
      if (controller) track();
    };
    const RunRecord rec = runSimulation(solver, run);

    const int threads = threadsUsed(settings.threads);
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
    if (controller) {
      setup["drive"] = "controller";
      setup["controller"] = controller->name;
      setup["controller_duration"] = controller->duration();
      setup["feedback"] = controlled.policy->feedback();
    }
    if (!args.push.empty())
      setup["push"] = {{"time", pushedAt}, {"velocity", {args.push[1], args.push[2], args.push[3]}}};
    std::string text = statsJson(rec, solver.solverName(), settings.dt, threads, setup.dump());
    if (controller) {
      nlohmann::json stats = nlohmann::json::parse(text);
      stats["tracking"] = tracking;
      stats["summary"]["fell"] = fell;
      stats["summary"]["max_tilt_degrees"] = maxTilt;
      text = stats.dump();
    }
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
    if (controller)
      std::cout << "controller '" << controller->name << "': " << (fell ? "the character fell" : "the character stayed up")
                << ", final tracking cost " << (tracking["cost"].empty() ? 0.0 : tracking["cost"].back().get<double>())
                << ", max tilt " << maxTilt << " deg\n";
    if (pushedAt >= 0) std::cout << "pushed at " << pushedAt << " s\n";
    if (!rec.stopped.empty()) {
      std::cerr << "sinew-cli: " << args.project << ": " << rec.stopped << "\n";
      return int(kBadInput);
    }
    return int(kOk);
  });
}

// ---------------------------------------------------------------------------
// Registration with the command-line parser (the table in main.cpp).

Subcommand addSimulate(CLI::App& app) {
  auto a = std::make_shared<SimulateArgs>();
  auto* sim = app.add_subcommand("simulate", "Simulate a rigged character and write per-frame stats (and the animation)");
  sim->add_option("project", a->project, "Project file (.sinew) with a rig (sinew-cli rig)")->required();
  std::vector<std::string> solverNames;
  for (sinew::SolverKind k : sinew::kSolverKinds) solverNames.push_back(sinew::solverKindName(k));
  sim->add_option("--solver", a->solver, "Solver: liu2013 (default; the cage), li2019 (the conforming mesh of sinew-cli rig --regions; passive, or bones driven kinematically by --motion), viper (the rod bodies) or sheth2015 (deformable bones cut from the cage)")
      ->check(CLI::IsMember(solverNames));
  // The solvers' parameters, from the registry (solver/Solvers.h): one flag
  // per name, its help listing each solver's unit, default and range; the
  // values are checked there, against the solver chosen.
  std::map<std::string, std::string> paramHelp;
  std::map<std::string, bool> paramCount;
  for (sinew::SolverKind k : sinew::kSolverKinds)
    for (const sinew::ParamSpec& p : sinew::solverParams(k)) {
      std::ostringstream h;
      if (paramHelp[p.name].empty()) h << p.help << " (";
      else h << "; ";
      h << sinew::solverKindName(k) << ": default " << p.defaultValue << (p.unit.empty() ? "" : " " + p.unit) << ", " << p.min
        << ".." << p.max;
      paramHelp[p.name] += h.str();
      paramCount[p.name] = p.integer;
    }
  for (auto& [name, help] : paramHelp)
    sim->add_option_function<double>("--" + name, [a, name = name](double v) { a->params[name] = v; }, help + ")")
        ->type_name(paramCount[name] ? "N" : "FLOAT");
  sim->add_option("--activation", a->activation, "viper: activation of every rod body, 0..1 (default: the project's)")->check(CLI::Range(0.0, 1.0));
  sim->add_option("--threshold", a->threshold, "sheth2015: skinning-weight threshold of the decomposition into overlapping bones (default 0.2)")->check(CLI::Range(0.01, 0.99));
  sim->add_option("--joints-per-overlap", a->jointsPerOverlap, "sheth2015: point joints laid out in each overlap (default 3)")->check(CLI::Range(1, 20));
  sim->add_option("--proxy-sites", a->proxySites, "sheth2015: collision proxy size, skin particles (default 1500; 0: every boundary node)")->check(CLI::Range(0, 1000000));
  sim->add_option("--copies", a->copies, "sheth2015: characters dropped side by side (default 1)")->check(CLI::Range(1, 1000));
  sim->add_option("--excite", a->excite, "sheth2015: random initial reduced displacement of every body (Fig. 3), amplitude")->check(CLI::Range(0.0, 10.0));
  sim->add_option("--seconds", a->seconds, "Simulated time, s")->check(CLI::Range(0.0, 36000.0));
  sim->add_option("--fps", a->fps, "Frames recorded per simulated second (default 60)")->check(CLI::Range(1.0, 2000.0));
  sim->add_option("--motion", a->motion, "Motion clip: a clip name in the project or a .bvh file");
  sim->add_option("--drive", a->drive, "How the skeleton follows the clip: kinematic (one-way) or pd (two-way); li2019: kinematic only")
      ->check(CLI::IsMember({"kinematic", "pd", "hold"}));
  sim->add_option("--driven-bones", a->drivenBones,
                  "li2019: the bones the clip drives, comma-separated (default: all; the others stay passive); sheth2015: the bones that follow the clip kinematically (required with --motion)")
      ->delimiter(',');
  sim->add_option("--pin-box", a->pinBox,
                  "li2019: pin the conforming mesh's nodes inside this box (x0,y0,z0,x1,y1,z1, metres) at their rest positions")
      ->delimiter(',')
      ->expected(6);
  sim->add_option("--gravity", a->gravity, "on|off")->check(CLI::IsMember({"on", "off"}));
  sim->add_option("--contact", a->contact, "on|off")->check(CLI::IsMember({"on", "off"}));
  sim->add_option("--plasticity", a->plasticity, "on|off")->check(CLI::IsMember({"on", "off"}));
  sim->add_option("--damping", a->damping, "pose|rayleigh|none")->check(CLI::IsMember({"pose", "rayleigh", "none"}));
  sim->add_option("--youngs-modulus", a->youngsModulus, "Flesh Young's modulus, Pa")->check(CLI::Range(1.0, 1e9));
  sim->add_option("--poisson-ratio", a->poissonRatio, "Flesh Poisson ratio")->check(CLI::Range(0.0, 0.49));
  sim->add_option("--density", a->density, "Flesh density, kg/m^3")->check(CLI::Range(1.0, 1e5));
  sim->add_option("--pose-damping", a->poseDamping, "Pose-based damping coefficient c, 1/s")->check(CLI::Range(0.0, 1e4));
  sim->add_option("--collider", a->colliders,
                  "A static collider (repeatable): sphere:x,y,z,radius | box:x,y,z,hx,hy,hz (half extents) | "
                  "capsule:x,y,z,radius,halfLength (axis along y); metres; added to the project's colliders");
  sim->add_option("--ground-height", a->groundHeight, "Height of the ground plane, m (default: the project's, or 0)")->check(CLI::Range(-1e3, 1e3));
  sim->add_option("--friction", a->friction, "Ground friction coefficient (default: the project's, or 0.9)")->check(CLI::Range(0.0, 10.0));
  sim->add_option("--stats-json", a->statsJson, "Write per-frame stats and a summary as JSON");
  sim->add_option("--export", a->exportDir, "Write the surface as OBJ sequence and .pc2, the skeleton as .bvh, to this folder");

  sim->add_option("--controller", a->controller, "Play a controller of the project (sinew-cli optimize) instead of a drive");
  sim->add_option("--feedback", a->feedback, "With the controller's feedback policy: on|off")->check(CLI::IsMember({"on", "off"}));
  sim->add_option("--push", a->push,
                  "T,VX,VY,VZ: a shove at T s that gives the whole body (VX, VY, VZ) m/s in the world (Liu 2013 solver; "
                  "with a controller, its summary reports how far the character tilted)")
      ->expected(4)
      ->delimiter(',');
  return {sim, [a, sim] {
    a->secondsGiven = sim->count("--seconds") > 0;
    a->driveGiven = sim->count("--drive") > 0;
    return simulate(*a);
  }};
}

}  // namespace sinew::cli
