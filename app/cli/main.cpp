// sinew-cli: the headless front end (inspection, import, project files).
#include "Commands.h"

#include <CLI/CLI.hpp>

#include <map>
#include <sstream>

#include <iostream>

int main(int argc, char** argv) {
  using namespace sinew::cli;
  CLI::App app{"Sinew command line: inspect and import meshes and motion clips, manage projects"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "sinew-cli 0.1.0");

  InfoArgs infoArgs;
  auto* info = app.add_subcommand("info", "Show meshes, skeleton, animations and validation of a mesh or BVH file");
  info->add_option("file", infoArgs.file, "Mesh or motion file")->required();
  info->add_flag("--json", infoArgs.json, "Print JSON");
  info->add_flag("!--no-self-intersections", infoArgs.selfIntersections, "Skip the self-intersection check");
  info->add_option("--scale", infoArgs.scale, "Metres per file unit (default: meshes as they are, BVH units detected)")
      ->check(CLI::PositiveNumber);

  ImportArgs importArgs;
  auto* imp = app.add_subcommand("import", "Import files into a project");
  imp->add_option("files", importArgs.files, "Mesh or BVH files")->required();
  imp->add_option("-o,--output", importArgs.output, "Project file to write (.sinew)")->required();
  imp->add_option("--scale", importArgs.scale, "Metres per file unit (default: meshes as they are, BVH units detected)")
      ->check(CLI::PositiveNumber);
  auto* mergeAll = imp->add_flag("--merge", importArgs.merge, "Merge all meshes of a file into one object");
  imp->add_flag("--separate", importArgs.separate,
                "Keep every mesh of a file apart (default: skinned body parts join into one body, small parts follow)")
      ->excludes(mergeAll);
  imp->add_flag("!--no-weld", importArgs.weld, "Keep duplicate vertices");
  auto* append = imp->add_flag("--append", importArgs.append, "Add to an existing project");
  imp->add_flag("--overwrite", importArgs.overwrite, "Replace an existing project")->excludes(append);

  ProjectInfoArgs projArgs;
  auto* pinfo = app.add_subcommand("project-info", "Summarise a project file");
  pinfo->add_option("project", projArgs.project, "Project file (.sinew)")->required();
  pinfo->add_flag("--json", projArgs.json, "Print JSON");

  ExampleArgs exArgs;
  auto* ex = app.add_subcommand("example", "Generate an example project");
  ex->add_option("name", exArgs.name, "Example name: humanoid, humanoid-rigged (cage, weights and motion clips: ready to simulate), bar or chain (Li et al. 2019 scenes: simulate with --solver li2019), octopus, band or arm (VIPER scenes: simulate with --solver viper), free-body, fish or pachinko (Sheth et al. 2015 scenes: simulate with --solver sheth2015)")->required();
  ex->add_option("-o,--output", exArgs.output, "Project file to write")->required();
  ex->add_flag("--overwrite", exArgs.overwrite, "Replace an existing file");
  ex->add_option("--count", exArgs.count, "octopus: how many octopi (default 1)")->check(CLI::Range(1, 10000));
  ex->add_option("--cage-nodes", exArgs.cageNodes, "pachinko: the character's volume resolution (default 1200)")->check(CLI::Range(100, 200000));
  ex->add_option("--spacing", exArgs.spacing, "Surface resolution: grid cell size in metres (humanoid: default 0.028; free-body, fish: 0.012)")
      ->check(CLI::Range(0.004, 0.2));

  ExportArgs expArgs;
  auto* exp = app.add_subcommand("export", "Export a project's meshes (format from the extension)");
  exp->add_option("project", expArgs.project, "Project file (.sinew)")->required();
  exp->add_option("-o,--output", expArgs.output, "Output file (.obj, .stl, .ply, .glb, .gltf, .dae, ...)")->required();
  exp->add_option("--mesh", expArgs.meshes, "Mesh name(s) to export (default: all)");

  RigArgs rigArgs;
  auto* rigCmd = app.add_subcommand("rig", "Build what a project's rig is missing: bone shapes, cage, regions, weights");
  rigCmd->add_option("project", rigArgs.project, "Project file (.sinew)")->required();
  rigCmd->add_option("-o,--output", rigArgs.output, "Project file to write (may be the input)")->required();
  rigCmd->add_option("--cage-nodes", rigArgs.cageNodes, "Target number of cage nodes")->check(CLI::Range(50, 200000));
  rigCmd->add_flag("--regions", rigArgs.regions, "Also build the conforming mesh with bone regions (Li 2019)");
  rigCmd->add_option("--weights", rigArgs.weights, "Weights: bbw (bounded biharmonic), harmonic or none")
      ->check(CLI::IsMember({"bbw", "harmonic", "none"}));
  rigCmd->add_flag("--rebuild", rigArgs.rebuild, "Rebuild the parts even if present");
  rigCmd->add_flag("--json", rigArgs.json, "Print JSON");
  rigCmd->add_flag("--overwrite", rigArgs.overwrite, "Replace an existing output file");
  rigCmd->add_option("--skeleton", rigArgs.skeleton,
                     "For a mesh without a skeleton: 'auto' places a 19-joint CMU-named skeleton in the mesh (T- or "
                     "A-pose humanoid), or a BVH/armature file whose skeleton is fitted to those joints");
  rigCmd->add_flag("!--no-stability-check", rigArgs.stabilityCheck,
                   "Skip the fall test that finds the Liu 2013 time step a new cage is stable at");

  ExportTetsArgs tetArgs;
  auto* tets = app.add_subcommand("export-tets", "Write a project's volume as a Medit .mesh (+ .joint for bone regions)");
  tets->add_option("project", tetArgs.project, "Project file (.sinew)")->required();
  tets->add_option("-o,--output", tetArgs.output, "Output .mesh file")->required();
  tets->add_option("--volume", tetArgs.volume, "Volume name (default: the first)");

  ViperizeArgs vipArgs;
  auto* vip = app.add_subcommand("viperize", "Turn a painted muscle into VIPER rods (Angles et al. 2019, Section 8.1)");
  vip->add_option("project", vipArgs.project, "Project file (.sinew)")->required();
  vip->add_option("--muscle", vipArgs.muscle, "The muscle: a rod body of the project with a painted surface")->required();
  vip->add_option("--rods", vipArgs.rods, "K: rods (default: the muscle's, 5 when new)")->check(CLI::Range(1, 64));
  vip->add_option("--slices", vipArgs.slices, "M: slices, i.e. nodes per rod (default: the muscle's, 8 when new)")->check(CLI::Range(2, 200));
  vip->add_option("--seed", vipArgs.seed, "Seed of the slice sampling (default 1)");
  vip->add_option("-o,--output", vipArgs.output, "Project file to write (default: the input)");
  vip->add_flag("--json", vipArgs.json, "Print a JSON summary");

  AddMuscleArgs amArgs;
  auto* am = app.add_subcommand("add-muscle", "Add a muscle between two bones (a generated spindle, or a mesh of the project), painted at its ends");
  am->add_option("project", amArgs.project, "Project file (.sinew) with a skeleton")->required();
  am->add_option("--name", amArgs.name, "The muscle's name")->required();
  am->add_option("--origin", amArgs.origin, "The bone its origin (sources) attaches to")->required();
  am->add_option("--insertion", amArgs.insertion, "The bone its insertion (sinks) attaches to")->required();
  am->add_option("--mesh", amArgs.mesh, "Use this mesh of the project as its surface (default: generate a spindle)");
  am->add_option("--belly", amArgs.belly, "Spindle belly radius, m (default: 12% of its length)")->check(CLI::Range(0.0, 10.0));
  am->add_option("--side", amArgs.side, "x,y,z: the side of the bones the spindle lies on (default 0,1,0)")->delimiter(',')->expected(3);
  am->add_option("--paint-ends", amArgs.paintReach, "Paint sources and sinks this fraction of its length from each end (default 0.1)")->check(CLI::Range(0.01, 0.44));
  am->add_option("--rods", amArgs.rods, "K for viperize (default 5)")->check(CLI::Range(1, 64));
  am->add_option("--slices", amArgs.slices, "M for viperize (default 8)")->check(CLI::Range(2, 200));
  am->add_flag("--viperize", amArgs.viperize, "Viperize it right away");
  am->add_option("-o,--output", amArgs.output, "Project file to write (default: the input)");

  SimulateArgs simArgs;
  auto* sim = app.add_subcommand("simulate", "Simulate a rigged character and write per-frame stats (and the animation)");
  sim->add_option("project", simArgs.project, "Project file (.sinew) with a rig (sinew-cli rig)")->required();
  std::vector<std::string> solverNames;
  for (sinew::SolverKind k : sinew::kSolverKinds) solverNames.push_back(sinew::solverKindName(k));
  sim->add_option("--solver", simArgs.solver, "Solver: liu2013 (default; the cage), li2019 (the conforming mesh of sinew-cli rig --regions; passive, or bones driven kinematically by --motion), viper (the rod bodies) or sheth2015 (deformable bones cut from the cage)")
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
    sim->add_option_function<double>("--" + name, [&simArgs, name = name](double v) { simArgs.params[name] = v; }, help + ")")
        ->type_name(paramCount[name] ? "N" : "FLOAT");
  sim->add_option("--activation", simArgs.activation, "viper: activation of every rod body, 0..1 (default: the project's)")->check(CLI::Range(0.0, 1.0));
  sim->add_option("--threshold", simArgs.threshold, "sheth2015: skinning-weight threshold of the decomposition into overlapping bones (default 0.2)")->check(CLI::Range(0.01, 0.99));
  sim->add_option("--joints-per-overlap", simArgs.jointsPerOverlap, "sheth2015: point joints laid out in each overlap (default 3)")->check(CLI::Range(1, 20));
  sim->add_option("--proxy-sites", simArgs.proxySites, "sheth2015: collision proxy size, skin particles (default 1500; 0: every boundary node)")->check(CLI::Range(0, 1000000));
  sim->add_option("--copies", simArgs.copies, "sheth2015: characters dropped side by side (default 1)")->check(CLI::Range(1, 1000));
  sim->add_option("--excite", simArgs.excite, "sheth2015: random initial reduced displacement of every body (Fig. 3), amplitude")->check(CLI::Range(0.0, 10.0));
  sim->add_option("--seconds", simArgs.seconds, "Simulated time, s")->check(CLI::Range(0.0, 36000.0));
  sim->add_option("--fps", simArgs.fps, "Frames recorded per simulated second (default 60)")->check(CLI::Range(1.0, 2000.0));
  sim->add_option("--motion", simArgs.motion, "Motion clip: a clip name in the project or a .bvh file");
  sim->add_option("--drive", simArgs.drive, "How the skeleton follows the clip: kinematic (one-way) or pd (two-way); li2019: kinematic only")
      ->check(CLI::IsMember({"kinematic", "pd", "hold"}));
  sim->add_option("--driven-bones", simArgs.drivenBones,
                  "li2019: the bones the clip drives, comma-separated (default: all; the others stay passive); sheth2015: the bones that follow the clip kinematically (required with --motion)")
      ->delimiter(',');
  sim->add_option("--pin-box", simArgs.pinBox,
                  "li2019: pin the conforming mesh's nodes inside this box (x0,y0,z0,x1,y1,z1, metres) at their rest positions")
      ->delimiter(',')
      ->expected(6);
  sim->add_option("--gravity", simArgs.gravity, "on|off")->check(CLI::IsMember({"on", "off"}));
  sim->add_option("--contact", simArgs.contact, "on|off")->check(CLI::IsMember({"on", "off"}));
  sim->add_option("--plasticity", simArgs.plasticity, "on|off")->check(CLI::IsMember({"on", "off"}));
  sim->add_option("--damping", simArgs.damping, "pose|rayleigh|none")->check(CLI::IsMember({"pose", "rayleigh", "none"}));
  sim->add_option("--youngs-modulus", simArgs.youngsModulus, "Flesh Young's modulus, Pa")->check(CLI::Range(1.0, 1e9));
  sim->add_option("--poisson-ratio", simArgs.poissonRatio, "Flesh Poisson ratio")->check(CLI::Range(0.0, 0.49));
  sim->add_option("--density", simArgs.density, "Flesh density, kg/m^3")->check(CLI::Range(1.0, 1e5));
  sim->add_option("--pose-damping", simArgs.poseDamping, "Pose-based damping coefficient c, 1/s")->check(CLI::Range(0.0, 1e4));
  sim->add_option("--collider", simArgs.colliders,
                  "A static collider (repeatable): sphere:x,y,z,radius | box:x,y,z,hx,hy,hz (half extents) | "
                  "capsule:x,y,z,radius,halfLength (axis along y); metres; added to the project's colliders");
  sim->add_option("--ground-height", simArgs.groundHeight, "Height of the ground plane, m (default: the project's, or 0)")->check(CLI::Range(-1e3, 1e3));
  sim->add_option("--friction", simArgs.friction, "Ground friction coefficient (default: the project's, or 0.9)")->check(CLI::Range(0.0, 10.0));
  sim->add_option("--stats-json", simArgs.statsJson, "Write per-frame stats and a summary as JSON");
  sim->add_option("--export", simArgs.exportDir, "Write the surface as OBJ sequence and .pc2, the skeleton as .bvh, to this folder");

  OptimizeArgs optArgs;
  auto* opt = app.add_subcommand("optimize", "Build a controller that makes the character perform a motion clip segment (sampling, Liu et al. 2013)");
  opt->add_option("project", optArgs.project, "Project file (.sinew) with a rig (sinew-cli rig)")->required();
  opt->add_option("--clip", optArgs.clip, "Motion clip: a clip name in the project, or a .bvh file (added to the output)")->required();
  opt->add_option("--start", optArgs.start, "Segment start in the clip, s (default 0)")->check(CLI::Range(0.0, 1e5));
  opt->add_option("--end", optArgs.end, "Segment end in the clip, s (default: the clip's end)")->check(CLI::Range(0.0, 1e5));
  opt->add_option("--samples", optArgs.samples, "Samples per control window (default 200)")->check(CLI::Range(1, 1000000));
  opt->add_option("--keep", optArgs.keep, "States kept per window (default 10)")->check(CLI::Range(1, 10000));
  opt->add_option("--rounds", optArgs.rounds,
                  "Refinement rounds per window: the samples are split into R rounds, each later one drawn around "
                  "the best so far with less noise (default 1: a single draw, as in the paper)")
      ->check(CLI::Range(1, 100));
  opt->add_option("--threads", optArgs.threads, "Sample evaluation threads (default: all cores)")->check(CLI::Range(1, 256));
  opt->add_option("--seed", optArgs.seed, "Random seed (default 1)");
  opt->add_option("--store-clip", optArgs.storeClip,
                  "Keep a --clip read from a .bvh file in the output project: on|off (default on; the controller "
                  "carries its retargeted segment either way)")
      ->check(CLI::IsMember({"on", "off"}));
  opt->add_option("--time-scaling", optArgs.timeScaling, "Sample each window's duration: on|off")->check(CLI::IsMember({"on", "off"}));
  opt->add_option("--id-init", optArgs.idInit, "Initial targets by inverse dynamics (else the reference pose): on|off")
      ->check(CLI::IsMember({"on", "off"}));
  opt->add_option("--feedback", optArgs.feedback, "Balance feedback in the loop while sampling, saved with the controller as its feedback policy: on|off (default on)")->check(CLI::IsMember({"on", "off"}));
  opt->add_option("--fit-feedback", optArgs.fitRollouts,
                  "Fit the feedback gains from N pushed rollouts after the search (default 0: keep the default gains)")
      ->check(CLI::Range(0, 1000));
  opt->add_option("--fit-push", optArgs.fitPush, "Push of the fitting rollouts, m/s (default 0.6)")->check(CLI::Range(0.0, 10.0));
  opt->add_option("--window", optArgs.window, "Control window length, s (default 0.1)")->check(CLI::Range(0.02, 1.0));
  opt->add_option("--noise", optArgs.noise, "Target noise per degree of freedom, rad (default 0.1)")->check(CLI::Range(0.0, 3.0));
  opt->add_option("--weights", optArgs.weights,
                  "Cost weights that differ from the defaults, as KEY=VALUE,... with keys pose, root, position, "
                  "endEffector, balance, velocity (defaults 1, 2, 1, 4, 8, 0.2)");
  opt->add_option("--gains", optArgs.gains,
                  "Balance feedback gains that differ from the defaults, as KEY=VALUE,... with keys ankle_tilt, "
                  "ankle_balance, ankle_velocity, hip_tilt, hip_balance, hip_velocity (stance legs), swing_hip_balance, "
                  "swing_hip_velocity (foot placement by a swinging leg's hip; negative puts the foot where the centre "
                  "of mass goes) (defaults 3, 0, 0.2, 0, 0, 0, -0.5, -1)");
  opt->add_option("--pd-frequency", optArgs.pdFrequency, "PD servo natural frequency, Hz (default 5)")->check(CLI::Range(0.1, 99.0));
  opt->add_option("--stance-angle", optArgs.stanceAngle,
                  "leg servos stiff enough to carry the body with about this error, rad (default 0.1; 0: plain inertia gains)")
      ->check(CLI::Range(0.0, 1.0));
  opt->add_option("--name", optArgs.name, "Controller name (default: clip and segment); replaces a controller of that name");
  opt->add_option("-o,--output", optArgs.output, "Project file to write (may be the input)")->required();
  opt->add_option("--stats-json", optArgs.statsJson, "Write per-window costs, tracking errors, samples and wall time as JSON");
  opt->add_flag("--overwrite", optArgs.overwrite, "Replace an existing output file");

  sinew::cli::FitFeedbackArgs fitArgs;
  auto* fit = app.add_subcommand("fit-feedback",
                                 "Fit a saved controller's feedback by least squares on perturbed rollouts (Liu et al. 2012)");
  fit->add_option("project", fitArgs.project, "Project file")->required()->check(CLI::ExistingFile);
  fit->add_option("--controller", fitArgs.controller, "The controller (by name)")->required();
  fit->add_option("--rollouts", fitArgs.rollouts, "Pushed rollouts that record corrections (and one unpushed; default 12)")
      ->check(CLI::Range(0, 1000));
  fit->add_option("--push", fitArgs.push, "Push of the rollouts, m/s (default 0.6)")->check(CLI::Range(0.0, 10.0));
  fit->add_option("--corrections", fitArgs.corrections, "Corrections tried per window of a rollout (default 12)")
      ->check(CLI::Range(1, 1000));
  fit->add_option("--noise", fitArgs.noise, "Spread of the corrections tried, rad (default 0.1)")->check(CLI::Range(0.0, 3.0));
  fit->add_option("--ridge", fitArgs.ridge, "Ridge regularisation, relative (default 0.1)")->check(CLI::Range(0.0, 1e6));
  fit->add_option("--pool", fitArgs.pool, "Windows on either side whose pairs also fit a window's map (default 1)")
      ->check(CLI::Range(0, 1000));
  fit->add_option("--validation", fitArgs.validation, "Held-out pushed rollouts that decide whether the fit is kept (default 6)")
      ->check(CLI::Range(0, 1000));
  fit->add_option("--seed", fitArgs.seed, "Random seed (default 1)");
  fit->add_option("--threads", fitArgs.threads, "Rollout threads (default: all cores)")->check(CLI::Range(1, 256));
  fit->add_option("-o,--output", fitArgs.output, "Project file to write (may be the input)")->required();
  fit->add_option("--stats-json", fitArgs.statsJson, "Write the fit's figures as JSON");
  fit->add_flag("--overwrite", fitArgs.overwrite, "Replace an existing output file");

  sim->add_option("--controller", simArgs.controller, "Play a controller of the project (sinew-cli optimize) instead of a drive");
  sim->add_option("--feedback", simArgs.feedback, "With the controller's feedback policy: on|off")->check(CLI::IsMember({"on", "off"}));
  sim->add_option("--push", simArgs.push,
                  "T,VX,VY,VZ: a shove at T s that gives the whole body (VX, VY, VZ) m/s in the world (Liu 2013 solver; "
                  "with a controller, its summary reports how far the character tilted)")
      ->expected(4)
      ->delimiter(',');

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kUsage;
  }
  if (*info) return sinew::cli::info(infoArgs);
  if (*imp) return importFiles(importArgs);
  if (*pinfo) return projectInfo(projArgs);
  if (*ex) return example(exArgs);
  if (*exp) return exportMeshes(expArgs);
  if (*rigCmd) return rig(rigArgs);
  if (*tets) return exportTets(tetArgs);
  if (*opt) return optimize(optArgs);
  if (*fit) return sinew::cli::fitFeedback(fitArgs);
  if (*vip) return viperize(vipArgs);
  if (*am) return addMuscle(amArgs);
  simArgs.secondsGiven = sim->count("--seconds") > 0;
  simArgs.driveGiven = sim->count("--drive") > 0;
  if (*sim) return simulate(simArgs);
  return kUsage;
}
