// The solver registry: the one place that knows Sinew's four solvers, their
// tunable parameters and how to build each from a project.
//
// Rule for newcomers: a solver parameter is declared once, here, as a
// ParamSpec (name, unit, default, range, help). Its default is the solver's
// own option struct's (read from it, not repeated); checking a value (NaN,
// out of range) happens in validateParams() and nowhere else.
// makeSimulation() builds any solver through the Simulation interface.
#pragma once

#include "solver/Simulation.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sinew {

enum class SolverKind : uint8_t { Liu2013, Li2019, Viper, Sheth2015 };
inline constexpr SolverKind kSolverKinds[] = {SolverKind::Liu2013, SolverKind::Li2019, SolverKind::Viper,
                                              SolverKind::Sheth2015};
const char* solverKindName(SolverKind k);  // "liu2013", "li2019", "viper", "sheth2015"
std::optional<SolverKind> solverKindFromName(std::string_view name);

struct ParamSpec {
  std::string name;   // as on the command line without "--": "dt", "threads", ...
  std::string unit;   // "s", "" (a count)
  double defaultValue = 0;
  double min = 0, max = 0;
  bool integer = false;
  std::string help;
};

// The tunables of a solver, in display order.
const std::vector<ParamSpec>& solverParams(SolverKind kind);

// Values by parameter name; a name left out takes its default.
using SolverParams = std::map<std::string, double>;

// Throws InputError(name, ...) for an unknown name, a NaN or infinite value,
// a value out of range or a fractional count.
void validateParams(SolverKind kind, const SolverParams& params);
// The same checks of one value against its spec (any table's).
void checkParam(const ParamSpec& spec, double value);
// The value of `name` in `params`, or its default.
double paramValue(SolverKind kind, const SolverParams& params, const std::string& name);

// The flesh a solver uses where the project names none: its own default
// (Liu 2013 also reads the pose damping c; VIPER's rods have no flesh).
FleshMaterial defaultFlesh(SolverKind kind);

// The solver `kind` on `project` (its materials, ground and colliders), the
// character passive (Liu 2013: PD servos hold the rest pose). `params`
// override the project's own values (SimulationSetup::solverParams), which
// override the table's defaults. Validates the parameters first; throws
// InputError for what the project lacks.
// `progress` (0..1) follows a long build (Sheth 2015's decomposition and
// modal analysis). `pinBox` (Li 2019 only): the conforming mesh's nodes
// inside it are pinned at rest.
std::unique_ptr<Simulation> makeSimulation(const Project& project, SolverKind kind, const SolverParams& params = {},
                                           const std::function<void(double)>& progress = {},
                                           const std::optional<Aabb>& pinBox = std::nullopt);

}  // namespace sinew
