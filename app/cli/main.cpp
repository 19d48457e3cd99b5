// sinew-cli: the headless front end. The subcommands are a table
// (Subcommands.h): each registers its options in its own file.
#include "Commands.h"
#include "Subcommands.h"

#include <cmath>
#include <cstdlib>
#include <set>
#include <vector>

namespace {

// CLI11's range checks are false for NaN, so every number option of every
// subcommand also refuses what is not a finite number (nan, inf, 1e999), and
// every text option an empty value.
void refuseNonFinite(CLI::App& app, const std::set<std::string>& registry) {
  const CLI::Validator finite(
      [](std::string& text) {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (end != text.c_str() && !std::isfinite(v)) return "'" + text + "' is not a finite number";
        return std::string();
      },
      "FINITE");
  // An empty name or path ("--motion ''") would silently mean "none".
  const CLI::Validator nonEmpty([](std::string& text) { return text.empty() ? std::string("is empty") : std::string(); },
                               "NONEMPTY");
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    for (CLI::Option* o : sub->get_options()) {
      // The solver parameters are the registry's to check (solver/Solvers.h: exit 2 naming the flag).
      if (o->get_type_name().find("FLOAT") != std::string::npos && !registry.count(o->get_name())) o->check(finite);
      if (o->get_type_name().find("TEXT") != std::string::npos) o->check(nonEmpty);
    }
    refuseNonFinite(*sub, registry);
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace sinew::cli;
  CLI::App app{"Sinew command line: inspect and import meshes and motion clips, manage projects"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "sinew-cli 0.1.0");

  const std::vector<Subcommand> commands = {addInfo(app),     addImport(app),      addProjectInfo(app), addExample(app),
                                           addExport(app),   addRig(app),         addExportTets(app),  addViperize(app),
                                           addAddMuscle(app), addSimulate(app),   addOptimize(app),    addFitFeedback(app),
                                           addReplan(app)};

  std::set<std::string> registry;
  for (sinew::SolverKind kind : sinew::kSolverKinds)
    for (const sinew::ParamSpec& spec : sinew::solverParams(kind)) registry.insert("--" + spec.name);
  refuseNonFinite(app, registry);
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
  for (const Subcommand& c : commands)
    if (*c.parser) return c.run();
  return kUsage;
}
