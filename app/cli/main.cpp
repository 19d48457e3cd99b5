// sinew-cli: the headless front end. The subcommands are a table
// (Subcommands.h): each registers its options in its own file.
#include "Commands.h"
#include "Subcommands.h"

#include <vector>

int main(int argc, char** argv) {
  using namespace sinew::cli;
  CLI::App app{"Sinew command line: inspect and import meshes and motion clips, manage projects"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "sinew-cli 0.1.0");

  const std::vector<Subcommand> commands = {addInfo(app),     addImport(app),      addProjectInfo(app), addExample(app),
                                           addExport(app),   addRig(app),         addExportTets(app),  addViperize(app),
                                           addAddMuscle(app), addSimulate(app),   addOptimize(app),    addFitFeedback(app)};

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
