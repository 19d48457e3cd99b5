#include "solver/Solvers.h"

#include "core/Error.h"
#include "li2019/Li2019Simulation.h"
#include "liu2013/Liu2013.h"
#include "sheth2015/Sheth2015Simulation.h"
#include "viper/ViperSimulation.h"

#include <cmath>
#include <sstream>

namespace sinew {

namespace {

std::string formatNumber(double x) {
  std::ostringstream o;
  o << x;
  return o.str();
}

}  // namespace

const char* solverKindName(SolverKind k) {
  switch (k) {
    case SolverKind::Liu2013: return "liu2013";
    case SolverKind::Li2019: return "li2019";
    case SolverKind::Viper: return "viper";
    case SolverKind::Sheth2015: return "sheth2015";
  }
  return "?";
}

std::optional<SolverKind> solverKindFromName(std::string_view name) {
  for (SolverKind k : kSolverKinds)
    if (name == solverKindName(k)) return k;
  return std::nullopt;
}

const std::vector<ParamSpec>& solverParams(SolverKind kind) {
  static const std::map<SolverKind, std::vector<ParamSpec>> table = [] {
    const ParamSpec threads{"threads", "", 0, 0, 256, true, "Threads (0: all cores)"};
    std::map<SolverKind, std::vector<ParamSpec>> t;
    t[SolverKind::Liu2013] = {{"dt", "s", liu2013::Settings{}.dt, 1e-6, 0.01, false, "Time step"}, threads};
    t[SolverKind::Li2019] = {
        {"dt", "s", li2019::ModelOptions{}.dt, 1e-4, 0.1, false, "Time step"},
        {"iterations", "", double(li2019::Settings{}.iterations), 1, 1000, true, "Local/global iterations per step"},
        {"warm-start", "", double(li2019::Settings{}.warmStart), 0, 1, true,
         "Warm start (1: each step's iterations start from the last step's acceleration; 0: from the inertial "
         "prediction, as the paper)"},
        {"live", "", 0, 0, 1, true,
         "Live mesh (1: the coarser copy of the conforming mesh, rig --live-vertices; 0: the full one)"},
        threads};
    t[SolverKind::Viper] = {
        {"dt", "s", viper::ViperOptions{}.dt, 1e-4, 0.1, false, "Time step"},
        {"iterations", "", double(viper::ViperOptions{}.iterations), 1, 1000, true, "Jacobi iterations per step"},
        threads};
    t[SolverKind::Sheth2015] = {
        {"dt", "s", sheth2015::Sheth2015Options{}.dt, 1e-4, 0.1, false, "Time step"},
        {"modes", "", double(sheth2015::DecomposeOptions{}.modes), 0, 100, true, "Reduced modes per deformable bone (0: rigid)"},
        {"sweeps", "", double(sheth2015::Sheth2015Options{}.sweeps), 1, 1000, true, "Contact and articulation iterations per step"},
        {"threshold", "", sheth2015::DecomposeOptions{}.threshold, 0.01, 0.99, false,
         "Skinning-weight threshold of the decomposition into overlapping bones"},
        {"joints-per-overlap", "", double(sheth2015::DecomposeOptions{}.jointsPerOverlap), 1, 20, true,
         "Point joints laid out in each overlap"},
        {"proxy-sites", "", double(sheth2015::DecomposeOptions{}.proxySites), 0, 1e6, true,
         "Collision proxy size, skin particles (0: every boundary node)"},
        {"copies", "", double(sheth2015::Sheth2015Options{}.copies), 1, 1000, true,
         "Characters dropped side by side (the Pachinko scene)"},
        {"excite", "", sheth2015::Sheth2015Options{}.excite, 0, 10, false,
         "Random initial reduced displacement of every body (Fig. 3), amplitude"}};
    return t;
  }();
  return table.at(kind);
}

void validateParams(SolverKind kind, const SolverParams& params) {
  const std::vector<ParamSpec>& specs = solverParams(kind);
  for (const auto& [name, value] : params) {
    const ParamSpec* spec = nullptr;
    for (const ParamSpec& s : specs)
      if (s.name == name) spec = &s;
    if (!spec) throw InputError(name, std::string("is not a parameter of the ") + solverKindName(kind) + " solver");
    checkParam(*spec, value);
  }
}

void checkParam(const ParamSpec& spec, double value) {
  const std::string& name = spec.name;
  if (!std::isfinite(value)) throw InputError(name, "must be a finite number, got " + formatNumber(value));
  if (value < spec.min || value > spec.max)
    throw InputError(name, formatNumber(value) + " is out of range [" + formatNumber(spec.min) + ", " +
                               formatNumber(spec.max) + "]" + (spec.unit.empty() ? "" : " " + spec.unit));
  if (spec.integer && value != std::floor(value)) throw InputError(name, "must be a whole number, got " + formatNumber(value));
}

double paramValue(SolverKind kind, const SolverParams& params, const std::string& name) {
  if (const auto it = params.find(name); it != params.end()) return it->second;
  for (const ParamSpec& s : solverParams(kind))
    if (s.name == name) return s.defaultValue;
  throw InputError(name, std::string("is not a parameter of the ") + solverKindName(kind) + " solver");
}

FleshMaterial defaultFlesh(SolverKind kind) {
  switch (kind) {
    case SolverKind::Li2019: {
      const li2019::ModelOptions o;
      return {o.youngsModulus, o.poissonRatio, o.density, liu2013::Material{}.damping};
    }
    case SolverKind::Sheth2015: {
      const sheth2015::BodyMaterial m;
      return {m.youngsModulus, m.poissonRatio, m.density, liu2013::Material{}.damping};
    }
    case SolverKind::Liu2013:
    case SolverKind::Viper: break;
  }
  return liu2013::toFleshMaterial(liu2013::Material{});
}

namespace {

// The nodes of Li 2019's conforming mesh inside `box`.
std::vector<int32_t> nodesInside(const Project& project, bool live, const Aabb& box) {
  if (!box.min.allFinite() || !box.max.allFinite() || box.empty())
    throw InputError("pin box", "give a box with finite corners, each minimum at most its maximum");
  const li2019::Input in = li2019::inputFromProject(project, live);
  std::vector<int32_t> nodes;
  for (size_t i = 0; i < in.mesh.nodes.size(); ++i)
    if ((in.mesh.nodes[i].array() >= box.min.array()).all() && (in.mesh.nodes[i].array() <= box.max.array()).all())
      nodes.push_back(int32_t(i));
  if (nodes.empty()) throw InputError("pin box", "no node of the conforming mesh lies inside the box");
  return nodes;
}

}  // namespace

std::unique_ptr<Simulation> makeSimulation(const Project& project, SolverKind kind, const SolverParams& given,
                                           const std::function<void(double)>& progress, const std::optional<Aabb>& pinBox) {
  validateParams(kind, given);
  SolverParams params = given;  // over the project's values
  if (const auto it = project.simulation.solverParams.find(solverKindName(kind)); it != project.simulation.solverParams.end())
    for (const auto& [name, value] : it->second) params.emplace(name, value);
  if (pinBox && kind != SolverKind::Li2019)
    throw InputError("pin box", std::string("pins the conforming mesh of li2019, not the ") + solverKindName(kind) + " solver's nodes");
  auto value = [&](const char* name) { return paramValue(kind, params, name); };
  liu2013::Settings scene;  // the project's ground, friction and colliders
  liu2013::applyScene(project.simulation, scene);
  switch (kind) {
    case SolverKind::Liu2013: {
      scene.dt = value("dt");
      scene.threads = int(value("threads"));
      liu2013::ModelOptions o = liu2013::modelOptionsFor(project.simulation);
      o.stableStep = scene.dt;  // masses stable for the step this run takes
      return std::make_unique<liu2013::Liu2013Solver>(liu2013::buildLiu2013Model(project, o), scene);
    }
    case SolverKind::Li2019: {
      li2019::ModelOptions o = li2019::modelOptionsFor(project.simulation);
      o.dt = value("dt");
      const bool live = value("live") != 0;
      if (pinBox) o.pinnedNodes = nodesInside(project, live, *pinBox);
      li2019::Settings s;
      s.iterations = int(value("iterations"));
      s.warmStart = value("warm-start") != 0;
      s.threads = int(value("threads"));
      s.groundHeight = scene.groundHeight;
      s.friction = scene.friction;
      s.colliders = scene.colliders;
      return std::make_unique<li2019::Li2019Simulation>(project, o, s, live);
    }
    case SolverKind::Viper: {
      viper::ViperOptions o;
      o.dt = value("dt");
      o.iterations = int(value("iterations"));
      o.threads = int(value("threads"));
      o.groundHeight = scene.groundHeight;
      if (project.simulation.groundFriction) o.friction = *project.simulation.groundFriction;
      return std::make_unique<viper::ViperSimulation>(project, o);
    }
    case SolverKind::Sheth2015: {
      sheth2015::Sheth2015Options o = sheth2015::optionsFor(project);
      o.dt = value("dt");
      o.decompose.modes = int(value("modes"));
      o.decompose.threshold = value("threshold");
      o.decompose.jointsPerOverlap = int(value("joints-per-overlap"));
      o.decompose.proxySites = int(value("proxy-sites"));
      o.copies = int(value("copies"));
      o.excite = value("excite");
      o.sweeps = o.postStabilization = int(value("sweeps"));  // as the CLI has always run it
      return std::make_unique<sheth2015::Sheth2015Simulation>(project, o, progress);
    }
  }
  throw InputError("solver", "unknown solver");
}

}  // namespace sinew
