// sinew-cli simulate: run a solver on a project and write the stats JSON
// (and optionally the animation).
#include "Commands.h"
#include "Subcommands.h"

#include "control/Flight.h"
#include "control/Optimize.h"
#include "core/Error.h"
#include "io/AnimationExport.h"
#include "io/Bvh.h"
#include "io/FileUtil.h"
#include "io/ProjectFile.h"
#include "liu2013/Liu2013.h"
#include "solver/SimRun.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <optional>
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

// The flags outside the registry's table that the chosen solver does not
// take, or takes only together with another, refused by name.
void checkFlagsFit(SolverKind kind, const SimulateArgs& args) {
  const std::string solver = solverKindName(kind);
  const bool liu = kind == SolverKind::Liu2013;
  if (!liu && !args.controller.empty())
    throw InputError("--controller", "controllers drive the Liu 2013 solver (leave out --solver " + solver + ")");
  if (!liu && !args.push.empty()) throw InputError("--push", "is available with the liu2013 solver only, not " + solver);
  if (!liu && args.driveGiven && args.drive != "kinematic")
    throw InputError("--drive", "the " + solver + " solver moves bones kinematically only (--drive kinematic, or leave it out)");
  if (kind != SolverKind::Li2019 && !args.pinBox.empty())
    throw InputError("--pin-box", "is for --solver li2019 (the other solvers' bodies carry their own pins)");
  if (kind != SolverKind::Viper && args.activation >= 0) throw InputError("--activation", "is for --solver viper");
  if ((liu || kind == SolverKind::Viper) && !args.drivenBones.empty())
    throw InputError("--driven-bones", "is for --solver li2019 or sheth2015");
  if (kind == SolverKind::Viper && !args.colliders.empty())
    throw InputError("--collider", "the viper solver collides with the ground and the skeleton's capsule bones only");
  if (!args.drivenBones.empty() && args.motion.empty()) throw InputError("--driven-bones", "needs --motion CLIP");
  if (kind == SolverKind::Sheth2015 && !args.motion.empty() && args.drivenBones.empty())
    throw InputError("--motion", "name the bones that follow the clip with --driven-bones (the others are simulated)");
  if (!args.controller.empty() && !args.motion.empty())
    throw InputError("--controller", "plays its own motion: leave out --motion");
  if (liu && args.motion.empty() && args.drive != "pd" && args.drive != "hold")
    throw InputError("--drive", "the " + args.drive + " drive needs --motion CLIP");
}

// The project as this run sees it: the command line's ground, friction,
// colliders and flesh over the saved scene (the flesh starts from the
// project's, else the solver's default).
Project runProject(Project project, SolverKind kind, const SimulateArgs& args) {
  SimulationSetup& s = project.simulation;
  if (args.groundHeight) s.groundHeight = *args.groundHeight;
  if (args.friction) s.groundFriction = *args.friction;
  for (size_t i = 0; i < args.colliders.size(); ++i) s.colliders.push_back(parseCollider(args.colliders[i], i));
  if (args.youngsModulus > 0 || args.poissonRatio >= 0 || args.density > 0 || args.poseDamping >= 0) {
    FleshMaterial f = s.flesh.value_or(defaultFlesh(kind));
    if (args.youngsModulus > 0) f.youngsModulus = args.youngsModulus;
    if (args.poissonRatio >= 0) f.poissonRatio = args.poissonRatio;
    if (args.density > 0) f.density = args.density;
    if (args.poseDamping >= 0) f.damping = args.poseDamping;
    s.flesh = f;
  }
  return project;
}

SimToggles togglesOf(const SimulateArgs& args) {
  SimToggles t;
  t.gravity = onOff(args.gravity);
  t.contact = onOff(args.contact);
  t.plasticity = onOff(args.plasticity);
  t.damping = args.damping == "pose" ? DampingMode::Pose : args.damping == "rayleigh" ? DampingMode::Rayleigh : DampingMode::None;
  return t;
}

// How the skeleton moves: the --motion clip (Liu 2013: --drive pd servos
// or kinematic; the others kinematic), else passive.
Drive driveOf(SolverKind kind, const Project& project, const SimulateArgs& args) {
  Drive d;
  if (args.motion.empty()) return d;
  d.clip = findMotion(project, args.project, args.motion);
  d.mode = kind == SolverKind::Liu2013 && args.drive != "kinematic" ? DriveMode::Pd : DriveMode::Kinematic;
  d.drivenBones = args.drivenBones;
  return d;
}

// Threads actually used: the parameter (0: all cores), 1 for a solver without one.
int threadsUsed(SolverKind kind, const SolverParams& params) {
  for (const ParamSpec& p : solverParams(kind))
    if (p.name == "threads") {
      const int n = int(paramValue(kind, params, "threads"));
      return n > 0 ? n : static_cast<int>(std::thread::hardware_concurrency());
    }
  return 1;
}

// A controller's character against its reference, frame by frame, and
// whether it stayed up.
struct Tracking {
  nlohmann::json frames = {{"time", nlohmann::json::array()}, {"cost", nlohmann::json::array()},
                           {"pose_error", nlohmann::json::array()}, {"root_position_error", nlohmann::json::array()},
                           {"root_height", nlohmann::json::array()}, {"reference_root_height", nlohmann::json::array()},
                           {"tilt_degrees", nlohmann::json::array()}, {"fell", nlohmann::json::array()}};
  bool fell = false;
  double fellAt = -1;   // s: the first frame that fell
  double maxTilt = 0;   // degrees: root orientation away from the reference's
  double maxTiltAt = 0; // s
  // Jumps: flight of the character and of its reference, forward travel.
  std::optional<control::FootClearance> feet;
  control::FlightTracker flight, referenceFlight;
  Vec3 simStart = Vec3::Zero(), refStart = Vec3::Zero();
  double simTravel = 0, refTravel = 0;           // m: horizontal root distance from the first frame
  double rootErrorAtLanding = -1, rootErrorAtEnd = -1;  // m
  // Kicks and steps: each foot's highest sole clearance, and its reference's.
  std::vector<std::string> footNames;
  std::vector<double> footPeak, refFootPeak;  // m above the ground

  void record(const control::ControllerRun& run) {
    const liu2013::Liu2013Solver& solver = *run.solver;
    const double dt = solver.dt();
    const double refTime = run.policy->referenceTime(solver.time() - 0.5 * dt);
    const control::BodyFeatures sim = run.reference->features(solver.state().skeleton);
    const control::BodyFeatures ref = run.reference->features(refTime);
    if (!feet) {
      feet.emplace(run.model, run.reference->feet(), solver.settings().groundHeight);
      for (int32_t leaf : run.reference->feet()) footNames.push_back(run.model->skeleton.links[size_t(leaf)].name);
      footPeak.assign(footNames.size(), -1e30);
      refFootPeak.assign(footNames.size(), -1e30);
      simStart = sim.rootPosition;
      refStart = ref.rootPosition;
    }
    const bool landed = flight.stats().landing >= 0;
    const std::vector<double> simFeet = feet->simulated(solver.state());
    const std::vector<double> refFeet = feet->posed(run.reference->state(refTime));
    flight.add(solver.time(), simFeet, sim.centerOfMass.y());
    referenceFlight.add(solver.time(), refFeet, ref.centerOfMass.y());
    for (size_t i = 0; i < footNames.size(); ++i) {
      footPeak[i] = std::max(footPeak[i], simFeet[i]);
      refFootPeak[i] = std::max(refFootPeak[i], refFeet[i]);
    }
    auto horizontal = [](const Vec3& v) { return std::hypot(v.x(), v.z()); };
    simTravel = horizontal(sim.rootPosition - simStart);
    refTravel = horizontal(ref.rootPosition - refStart);
    const double rootError = (sim.rootPosition - ref.rootPosition).norm();
    if (!landed && flight.stats().landing >= 0) rootErrorAtLanding = rootError;
    if (solver.time() <= run.policy->end() + 0.5 * dt) rootErrorAtEnd = rootError;
    const control::CostTerms c = control::trackingCost(sim, ref, {});
    const double tilt = control::tiltDegrees(sim, ref);
    frames["time"].push_back(solver.time());
    frames["cost"].push_back(c.total);
    frames["pose_error"].push_back(c.pose);
    frames["root_position_error"].push_back(std::sqrt(c.position));
    frames["root_height"].push_back(sim.rootPosition.y());
    frames["reference_root_height"].push_back(ref.rootPosition.y());
    frames["tilt_degrees"].push_back(tilt);
    frames["fell"].push_back(c.fallen);
    if (c.fallen && !fell) fellAt = solver.time();
    fell = fell || c.fallen;
    if (tilt > maxTilt) {
      maxTilt = tilt;
      maxTiltAt = solver.time();
    }
  }
  bool stayedUp() const { return !fell && maxTilt < control::kUprightTiltDegrees; }
  std::string verdict() const {
    std::ostringstream o;
    if (fell) o << "the character fell at t = " << fellAt << " s";
    else if (!stayedUp())
      o << "the character did not stay up: it tilted " << maxTilt << " deg at t = " << maxTiltAt << " s (upright: under "
        << control::kUprightTiltDegrees << " deg)";
    else o << "the character stayed up (max tilt " << maxTilt << " deg, under " << control::kUprightTiltDegrees << ")";
    return o.str();
  }
  double finalCost() const { return frames["cost"].empty() ? 0.0 : frames["cost"].back().get<double>(); }
  static nlohmann::json flightJson(const control::FlightStats& f) {
    auto time = [](double t) { return t >= 0 ? nlohmann::json(t) : nlohmann::json(nullptr); };
    return {{"seconds", f.seconds}, {"take_off", time(f.takeOff)}, {"landing", time(f.landing)},
            {"peak_com_rise", f.peakComRise}};
  }
  nlohmann::json jumpJson() const {
    nlohmann::json j = flightJson(flight.stats());
    j["reference"] = flightJson(referenceFlight.stats());
    j["clearance"] = control::kFlightClearance;
    return {{"flight", j},
            {"forward_travel",
             {{"simulated", simTravel}, {"reference", refTravel},
              {"root_error_at_landing", rootErrorAtLanding >= 0 ? nlohmann::json(rootErrorAtLanding) : nlohmann::json(nullptr)},
              {"root_error_at_controller_end", rootErrorAtEnd}}},
            {"feet", feetJson()}};
  }
  nlohmann::json feetJson() const {
    nlohmann::json j = nlohmann::json::array();
    for (size_t i = 0; i < footNames.size(); ++i)
      j.push_back({{"name", footNames[i]}, {"peak_clearance", footPeak[i]}, {"reference_peak_clearance", refFootPeak[i]}});
    return j;
  }
  // "feet, highest sole above the ground: LeftFoot 0.00704 m (reference 0.00227 m), RightFoot 0.632 m (...)".
  std::string feetText() const {
    std::ostringstream o;
    o << std::setprecision(3) << "feet, highest sole above the ground:";
    for (size_t i = 0; i < footNames.size(); ++i)
      o << (i ? ", " : " ") << footNames[i] << " " << footPeak[i] << " m (reference " << refFootPeak[i] << " m)";
    return footNames.empty() ? "" : o.str();
  }
  // "flight: 0.31 s (reference 0.38 s) ...", when either was airborne.
  std::string jumpText() const {
    const control::FlightStats &f = flight.stats(), &r = referenceFlight.stats();
    if (f.seconds <= 0 && r.seconds <= 0) return "";
    std::ostringstream o;
    o << std::setprecision(3) << "flight: " << f.seconds << " s with every foot above " << control::kFlightClearance * 100
      << " cm (reference " << r.seconds << " s), centre of mass up " << f.peakComRise << " m (reference "
      << r.peakComRise << " m); forward travel " << simTravel << " m (reference " << refTravel << " m), root "
      << rootErrorAtEnd << " m from the reference's at the controller's end";
    if (rootErrorAtLanding >= 0) o << " and " << rootErrorAtLanding << " m at landing";
    return o.str();
  }
};

// "1102 nodes, 4310 tets, 19 joints, " from a solver's setupJson().
std::string modelSummary(const nlohmann::json& facts) {
  static const std::pair<const char*, const char*> counts[] = {
      {"copies", "copies"}, {"bodies", "deformable bones"}, {"rod_bodies", "rod bodies"}, {"rods", "rods"},
      {"pills", "pills"}, {"particles", "particles"}, {"nodes", "nodes"}, {"tets", "tets"}, {"bones", "bones"},
      {"joints", "joints"}, {"proxy_sites", "proxy sites"}, {"modes", "modes each"}, {"iterations", "iterations"}};
  std::ostringstream out;
  for (const auto& [key, words] : counts)
    if (facts.contains(key) && facts[key].is_number()) out << facts[key].dump() << " " << words << ", ";
  return out.str();
}

}  // namespace

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


// sinew-cli simulate: any solver of the registry, built by makeSimulation
// on the project (with the command line's scene over it) and driven through
// the Simulation interface; a controller (Liu 2013) brings its own solver.
int simulate(const SimulateArgs& args) {
  return guarded([&] {
    checkSimulateOutputs(args);
    const std::optional<SolverKind> kind = solverKindFromName(args.solver);
    if (!kind) throw InputError("--solver", "solver '" + args.solver + "' is not available (liu2013, li2019, viper, sheth2015)");
    checkFlagsFit(*kind, args);
    const SolverParams flags = checkedParams(args, *kind);
    std::optional<Aabb> pinBox;
    if (!args.pinBox.empty()) {
      pinBox = Aabb{Vec3(args.pinBox[0], args.pinBox[1], args.pinBox[2]), Vec3(args.pinBox[3], args.pinBox[4], args.pinBox[5])};
      if (!pinBox->min.allFinite() || !pinBox->max.allFinite() || pinBox->empty())
        throw InputError("--pin-box", "give x0,y0,z0,x1,y1,z1 with each minimum at most its maximum");
    }
    const Project project = runProject(loadProject(args.project), *kind, args);
    const SolverParams params = projectParams(project, *kind, flags);
    const Drive drive = [&] {  // reads a --motion .bvh once
      try {
        return driveOf(*kind, project, args);
      } catch (const InputError& e) {
        throw InputError("--motion", e.what());
      }
    }();
    if (!args.push.empty()) {
      if (args.push.size() != 4 || !std::all_of(args.push.begin(), args.push.end(), [](double x) { return std::isfinite(x); }))
        throw InputError("--push", "needs four finite numbers T,VX,VY,VZ");
    }

    // Build: a controller's own Liu 2013 run, else the registry's solver.
    control::ControllerRun controlled;
    const ControllerObject* controller = nullptr;
    std::unique_ptr<Simulation> own;
    double buildSeconds = 0;
    if (!args.controller.empty()) {
      controller = &project.controllers[controllerIndex(project, args.project, args.controller)];
      const bool feedback = args.feedback == "on" && !controller->feedback.empty();
      if (args.feedback == "on" && controller->feedback.empty())
        std::cout << "note: controller '" << controller->name << "' has no feedback policy: playing it open loop\n";
      liu2013::Settings settings;
      liu2013::applyScene(project.simulation, settings);
      settings.dt = paramValue(*kind, params, "dt");
      settings.threads = int(paramValue(*kind, params, "threads"));
      settings.toggles = togglesOf(args);
      try {
        controlled = control::prepareControllerRun(project, *controller, settings, feedback);
      } catch (const InputError& e) {
        throw InputError(args.project, e.what());
      }
    } else {
      const auto built = std::chrono::steady_clock::now();
      try {
        own = makeSimulation(project, *kind, params, [&](double f) {
          std::cerr << args.solver << ": building (" << int(std::lround(100 * f)) << "%)" << std::endl;
        }, pinBox);
      } catch (const InputError& e) {
        throw InputError(e.file() == "pin box" ? "--pin-box" : args.project, e.file() == "pin box" ? e.problem() : e.what());
      }
      buildSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - built).count();
      own->setToggles(togglesOf(args));
      try {
        own->setDrive(drive);
      } catch (const InputError& e) {
        throw InputError(args.drivenBones.empty() ? "--motion" : "--driven-bones", e.what());
      }
      if (args.activation >= 0) own->setMuscleActivation(args.activation);
    }
    Simulation& sim = controller ? static_cast<Simulation&>(*controlled.solver) : *own;
    const nlohmann::json facts = nlohmann::json::parse(sim.setupJson());
    if (facts.value("mass_scaled_nodes", 0) > 0)
      std::printf("stable by construction: %d cage node(s) given %.4g kg (of %.4g kg) for the %.4g ms step\n",
                  facts["mass_scaled_nodes"].get<int>(), facts["added_mass_kg"].get<double>(), facts["mass_kg"].get<double>(),
                  sim.dt() * 1000);

    // Run: record frames, shove when due, follow a controller's tracking.
    RunOptions run;
    run.seconds = controller && !args.secondsGiven ? controller->duration() + 1.0 : args.seconds;
    run.frameRate = std::min(args.fps, 1.0 / sim.dt());
    run.recordSurface = run.recordSkeleton = !args.exportDir.empty();
    if (!args.push.empty() && !(args.push[0] >= 0 && args.push[0] < run.seconds))
      throw InputError("--push", "its time must lie within the run (0 to " + std::to_string(run.seconds) + " s)");
    // The shove: --push, else the controller's own (a re-planned run's), unless --no-shove.
    ControllerShove shove;
    if (!args.push.empty()) shove = {args.push[0], Vec3(args.push[1], args.push[2], args.push[3])};
    else if (controller && !args.noShove) shove = controller->shove;
    const bool ownShove = args.push.empty() && !shove.empty();
    if (ownShove && !(shove.time < run.seconds))
      std::cout << "note: controller '" << controller->name << "' is shoved at " << shove.time
                << " s, after this run's end\n";
    double pushedAt = -1;
    run.beforeStep = [&] {
      if (pushedAt < 0 && shove.dueAt(sim.time(), sim.dt()) && sim.push(shove.velocity)) pushedAt = sim.time();
    };
    Tracking tracking;
    run.onFrame = [&] {
      if (controller) tracking.record(controlled);
    };
    const RunRecord rec = runSimulation(sim, run);

    // Report: the stats JSON, the animation, one line.
    const int threads = threadsUsed(*kind, params);
    nlohmann::json setup = facts;
    setup["project"] = args.project;
    setup["motion"] = drive.clip ? drive.clip->name : "";
    setup["drive"] = args.motion.empty() ? (*kind == SolverKind::Liu2013 ? "hold" : "passive")
                                         : driveModeName(drive.mode);
    if (!setup.contains("driven_bones")) setup["driven_bones"] = args.drivenBones;
    const SimToggles toggles = sim.toggles();
    setup["gravity"] = toggles.gravity;
    setup["contact"] = toggles.contact;
    if (*kind == SolverKind::Liu2013) {
      setup["plasticity"] = toggles.plasticity;
      setup["damping"] = dampingModeName(toggles.damping);
    }
    if (*kind != SolverKind::Viper) {
      const FleshMaterial flesh = project.simulation.flesh.value_or(defaultFlesh(*kind));
      setup["youngs_modulus"] = flesh.youngsModulus;
      setup["poisson_ratio"] = flesh.poissonRatio;
      setup["density"] = flesh.density;
      setup["material_regions"] = project.simulation.regions.size();
    }
    if (controller) {
      setup["drive"] = "controller";
      setup["controller"] = controller->name;
      setup["controller_duration"] = controller->duration();
      setup["feedback"] = controlled.policy->feedback();
    }
    if (*kind == SolverKind::Sheth2015) setup["build_seconds"] = buildSeconds;
    if (!shove.empty())
      setup["push"] = {{"time", pushedAt},
                       {"velocity", {shove.velocity.x(), shove.velocity.y(), shove.velocity.z()}},
                       {"from", ownShove ? "controller" : "--push"}};
    nlohmann::json stats = nlohmann::json::parse(statsJson(rec, sim.solverName(), sim.dt(), threads, setup.dump()));
    if (controller) {
      stats["tracking"] = tracking.frames;
      stats["summary"]["fell"] = tracking.fell;
      stats["summary"]["fell_at"] = tracking.fell ? nlohmann::json(tracking.fellAt) : nlohmann::json(nullptr);
      stats["summary"]["max_tilt_degrees"] = tracking.maxTilt;
      stats["summary"]["upright_tilt_degrees"] = control::kUprightTiltDegrees;
      stats["summary"]["stayed_up"] = tracking.stayedUp();
      stats["summary"]["controller_end"] = controlled.policy->end();
      stats["summary"].update(tracking.jumpJson());
    }
    if (!args.statsJson.empty()) writeFileAtomic(args.statsJson, stats.dump() + "\n");
    if (!args.exportDir.empty()) {
      const MeshObject* mesh = project.findMesh(sim.surfaceMesh());
      if (!mesh) throw InputError(args.project, "the " + args.solver + " solver moved no surface to export");
      SimulatedAnimation anim{sim.surfaceTriangles(), rec.surfaces, rec.joints, 1.0 / run.frameRate};
      const bool skeleton = project.skeleton && !rec.joints.empty() && !rec.joints[0].empty();
      exportSimulatedAnimation(args.exportDir, fs::path(args.project).stem().string(), anim,
                               skeleton ? &project.skeleton->skeleton : nullptr);
    }

    std::cout << "simulated " << rec.simulatedSeconds << " s in " << rec.steps << " steps of " << sim.dt() * 1000
              << " ms with " << args.solver << " (" << modelSummary(facts) << threads << " thread(s)): "
              << rec.msPerStepMedian() << " ms per step (median), real-time factor " << rec.realtimeFactor();
    if (*kind == SolverKind::Liu2013) std::cout << ", inverted tets max " << rec.invertedTetsMax();
    std::cout << "\n";
    if (!args.statsJson.empty()) std::cout << "wrote " << args.statsJson << "\n";
    if (!args.exportDir.empty()) std::cout << "wrote " << rec.surfaces.size() << " frames to " << args.exportDir << "\n";
    if (controller)
      std::cout << "controller '" << controller->name << "' (ends at " << controlled.policy->end()
                << " s, then it holds the reference's last pose under balance feedback): " << tracking.verdict() << ", final tracking cost " << tracking.finalCost()
                << "\n";
    if (controller && !tracking.jumpText().empty()) std::cout << tracking.jumpText() << "\n";
    if (controller && !tracking.feetText().empty()) std::cout << tracking.feetText() << "\n";
    if (pushedAt >= 0)
      std::cout << "pushed at " << pushedAt << " s" << (ownShove ? " (the controller's shove; --no-shove plays it without)" : "")
                << "\n";
    if (!rec.stopped.empty()) {
      std::cerr << "sinew-cli: " << args.project << ": the run stopped at t = " << rec.simulatedSeconds << " s: " << rec.stopped << "\n";
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
  sim->add_flag("--no-shove", a->noShove,
                "Play the controller without the shove it was re-planned against (sinew-cli replan saves it with the "
                "controller, and playing gives it by default; --push replaces it)");
  return {sim, [a, sim] {
    a->secondsGiven = sim->count("--seconds") > 0;
    a->driveGiven = sim->count("--drive") > 0;
    return simulate(*a);
  }};
}

}  // namespace sinew::cli
