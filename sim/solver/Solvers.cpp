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
        threads};
    t[SolverKind::Viper] = {
        {"dt", "s", viper::ViperOptions{}.dt, 1e-4, 0.1, false, "Time step"},
        {"iterations", "", double(viper::ViperOptions{}.iterations), 1, 1000, true, "Jacobi iterations per step"},
        threads};
    t[SolverKind::Sheth2015] = {
        {"dt", "s", sheth2015::Sheth2015Options{}.dt, 1e-4, 0.1, false, "Time step"},
        {"modes", "", double(sheth2015::DecomposeOptions{}.modes), 0, 100, true, "Reduced modes per deformable bone (0: rigid)"},
        {"sweeps", "", double(sheth2015::Sheth2015Options{}.sweeps), 1, 1000, true, "Contact and articulation iterations per step"}};
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
    if (!std::isfinite(value)) throw InputError(name, "must be a finite number, got " + formatNumber(value));
    if (value < spec->min || value > spec->max)
      throw InputError(name, formatNumber(value) + " is out of range [" + formatNumber(spec->min) + ", " +
                                 formatNumber(spec->max) + "]" + (spec->unit.empty() ? "" : " " + spec->unit));
    if (spec->integer && value != std::floor(value)) throw InputError(name, "must be a whole number, got " + formatNumber(value));
  }
}

double paramValue(SolverKind kind, const SolverParams& params, const std::string& name) {
  if (const auto it = params.find(name); it != params.end()) return it->second;
  for (const ParamSpec& s : solverParams(kind))
    if (s.name == name) return s.defaultValue;
  throw InputError(name, std::string("is not a parameter of the ") + solverKindName(kind) + " solver");
}

std::unique_ptr<Simulation> makeSimulation(const Project& project, SolverKind kind, const SolverParams& params,
                                           const std::function<void(double)>& progress) {
  validateParams(kind, params);
  auto value = [&](const char* name) { return paramValue(kind, params, name); };
  liu2013::Settings scene;  // the project's ground, friction and colliders
  liu2013::applyScene(project.simulation, scene);
  switch (kind) {
    case SolverKind::Liu2013: {
      scene.dt = params.count("dt") ? value("dt") : project.simulation.timeStep.value_or(value("dt"));
      scene.threads = int(value("threads"));
      return std::make_unique<liu2013::Liu2013Solver>(
          liu2013::buildLiu2013Model(project, liu2013::modelOptionsFor(project.simulation)), scene);
    }
    case SolverKind::Li2019: {
      li2019::ModelOptions o = li2019::modelOptionsFor(project.simulation);
      o.dt = value("dt");
      li2019::Settings s;
      s.iterations = int(value("iterations"));
      s.threads = int(value("threads"));
      s.groundHeight = scene.groundHeight;
      s.friction = scene.friction;
      s.colliders = scene.colliders;
      return std::make_unique<li2019::Li2019Simulation>(project, o, s);
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
      o.sweeps = o.postStabilization = int(value("sweeps"));  // as the CLI has always run it
      return std::make_unique<sheth2015::Sheth2015Simulation>(project, o, progress);
    }
  }
  throw InputError("solver", "unknown solver");
}

}  // namespace sinew
