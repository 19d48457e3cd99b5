// sinew-cli subcommands. Each returns the process exit code:
// 0 success, 1 usage error, 2 bad input (with a one-line message on stderr).
#pragma once

#include "solver/Solvers.h"
#include "core/Error.h"

#include <cstdint>
#include <iostream>
#include <map>
#include <new>
#include <optional>
#include <string>
#include <vector>

namespace sinew {
struct Project;
struct ControllerObject;
}

namespace sinew::cli {

// The index of `project`'s controller called `name`; InputError naming `file`
// and listing the controllers there are if it has none of that name.
size_t controllerIndex(const Project& project, const std::string& file, const std::string& name);
// The project with `controller` in it (replacing one of its name, keeping that one's id).
ControllerObject& putController(Project& project, ControllerObject controller);

enum ExitCode { kOk = 0, kUsage = 1, kBadInput = 2, kInternal = 3 };

// Runs `body`, mapping errors to exit codes with a one-line message.
template <class F>
inline int guarded(F&& body) {
  try {
    return body();
  } catch (const InputError& e) {
    std::cerr << "sinew-cli: " << e.what() << "\n";
    return kBadInput;
  } catch (const std::bad_alloc&) {
    std::cerr << "sinew-cli: out of memory\n";
    return kBadInput;
  } catch (const std::exception& e) {
    std::cerr << "sinew-cli: internal error: " << e.what() << "\n";
    return kInternal;
  }
}



struct InfoArgs {
  std::string file;
  bool json = false;
  bool selfIntersections = true;
  double scale = 0.0;  // metres per file unit; 0: meshes as they are, clips detected
};
int info(const InfoArgs& args);

struct ImportArgs {
  std::vector<std::string> files;
  std::string output;
  double scale = 0.0;  // metres per file unit; 0: meshes as they are, clips detected
  bool merge = false;     // every mesh into one (default: body parts join, see MeshGrouping)
  bool separate = false;  // every mesh apart
  bool weld = true;
  bool append = false;     // add to an existing project
  bool overwrite = false;  // replace an existing project
};
int importFiles(const ImportArgs& args);

struct ProjectInfoArgs {
  std::string project;
  bool json = false;
};
int projectInfo(const ProjectInfoArgs& args);

struct ExampleArgs {
  std::string name;  // "humanoid"
  std::string output;
  int count = 1;     // octopus: how many
  size_t cageNodes = 1200;  // pachinko: the humanoid's volume
  bool overwrite = false;
  double spacing = 0;  // surface nets cell size (m); 0: the default
};
int example(const ExampleArgs& args);

struct ExportArgs {
  std::string project;
  std::string output;
  std::vector<std::string> meshes;  // names; empty: all
};
int exportMeshes(const ExportArgs& args);

struct RigArgs {
  std::string project;
  std::string output;
  size_t cageNodes = 1200;
  bool regions = false;
  size_t regionVertices = 2000;  // the conforming mesh's exterior, simplified to this many vertices
  size_t liveVertices = 0;       // > 0: also a live copy of it, simplified to this many
  std::string weights = "bbw";  // bbw | harmonic | none
  bool rebuild = false;
  bool json = false;
  bool overwrite = false;
  bool stabilityCheck = true;  // a new cage: the fall test that picks a stable Liu 2013 step
  std::string skeleton;        // a bare mesh: "auto" (rig/AutoJoints.h) or a file whose skeleton is fitted
};
int rig(const RigArgs& args);

struct SimulateArgs {
  std::string project;
  std::string solver = "liu2013";
  double seconds = 1.0;
  // The solver's parameters the command line gave (--dt, --iterations,
  // --threads, --modes, --copies...), by the registry's names: declared,
  // defaulted and checked once in solver/Solvers.h.
  SolverParams params;
  double fps = 60;
  std::string motion;               // clip name in the project, or a .bvh file
  std::string drive = "pd";         // kinematic | pd | hold
  std::string gravity = "on", contact = "on", plasticity = "on";
  std::string damping = "pose";     // pose | rayleigh | none
  double youngsModulus = 0, poissonRatio = -1, density = 0, poseDamping = -1;  // <= 0 / < 0: defaults
  std::vector<std::string> colliders;  // sphere:x,y,z,r | box:x,y,z,hx,hy,hz | capsule:x,y,z,r,halfLength
  std::optional<double> groundHeight;  // nullopt: the project's (or 0)
  std::optional<double> friction;      // nullopt: the project's (or the solver's default)
  std::string statsJson;
  std::string exportDir;
  std::string controller;              // a controller of the project, played instead of a drive
  std::string feedback = "on";         // with its feedback policy, when it has one
  std::vector<double> push;            // T, VX, VY, VZ: at T s the whole body gains (VX, VY, VZ) m/s (Liu 2013 solver)
  bool secondsGiven = false;           // else a controller plays for its duration + 1 s
  bool noShove = false;                // play a controller without its saved shove
  bool driveGiven = false;             // --drive on the command line
  std::vector<std::string> drivenBones;  // li2019: the bones the clip drives (empty: all)
  std::vector<double> pinBox;          // li2019: x0,y0,z0,x1,y1,z1: nodes inside are pinned at rest
  double activation = -1;              // viper: every rod body's activation (< 0: the project's)
};
int simulate(const SimulateArgs& args);

struct ViperizeArgs {
  std::string project;
  std::string muscle;                // a rod body of the project with a painted surface
  int rods = -1, slices = -1;        // K and M (< 0: the body's)
  uint64_t seed = 1;
  std::string output;                // default: the input
  bool json = false;
};
int viperize(const ViperizeArgs& args);

struct AddMuscleArgs {
  std::string project;
  std::string name;
  std::string origin, insertion;     // skeleton bones
  std::string mesh;                  // a project mesh ("": a generated spindle)
  double belly = 0;                  // m (0: 12% of the length)
  std::vector<double> side;          // x,y,z (default up)
  double paintReach = 0.1;
  int rods = 5, slices = 8;
  bool viperize = false;             // also viperize it
  std::string output;                // default: the input
};
int addMuscle(const AddMuscleArgs& args);

struct OptimizeArgs {
  std::string project;
  std::string clip;                  // a clip name in the project, or a .bvh file (added to the output project)
  std::string storeClip = "on";      // "off": a .bvh clip is not kept in the output (the controller has its segment)
  double start = 0, end = -1;        // s; end < 0: the clip's end
  // The search's tunables given (--samples, --keep, --rounds, --window,
  // --noise, --pd-frequency, --stance-angle), by the table's names
  // (control/SearchParams.h: declared, defaulted and checked there).
  std::map<std::string, double> search;
  int threads = 0;
  uint64_t seed = 1;
  std::string timeScaling = "on", idInit = "on", feedback = "on";
  int fitRollouts = 0;               // > 0: fit the feedback gains from this many pushed rollouts
  double fitPush = 0.6;              // m/s
  std::string weights;               // "pose=1,velocity=0.5,...": cost weights that differ from the defaults
  std::string gains;                 // "ankle_tilt=3,swing_hip_balance=-0.5,...": feedback gains that differ from the defaults
  std::string name;                  // the controller's name (default: clip and segment); replaces one of that name
  std::string output;
  std::string statsJson;
  bool overwrite = false;
  double checkpointSeconds = 30;     // the output is saved with the search so far at most this often (0: every window)
  bool resume = false;               // go on from the output's saved search of the same name and settings
  double redoFrom = -1;              // >= 0: keep the output's saved windows up to this clip time and search the rest anew
};
int optimize(const OptimizeArgs& args);

// sinew-cli fit-feedback: fits a saved controller's feedback by least squares
// on perturbed rollouts (control::regressFeedback, Liu et al. 2012).
struct FitFeedbackArgs {
  std::string project;
  std::string controller;
  int rollouts = 12;
  double push = 0.6;
  int corrections = 12;
  double noise = 0.1;
  double ridge = 0.1;
  int pool = 1;
  int validation = 6;
  uint64_t seed = 1;
  int threads = 0;
  std::string output;
  std::string statsJson;
  bool overwrite = false;
};
int fitFeedback(const FitFeedbackArgs& args);

struct ExportTetsArgs {
  std::string project;
  std::string volume;  // name; empty: the first
  std::string output;  // .mesh (a .joint is written beside it for a conforming mesh)
};
int exportTets(const ExportTetsArgs& args);

}  // namespace sinew::cli
