// sinew-cli's subcommands as a table (main.cpp): each command's file
// registers its options on the parser next to the code that runs it, and
// returns how to run it once parsed.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace sinew::cli {

struct Subcommand {
  CLI::App* parser = nullptr;  // true (*parser) when the command line chose it
  std::function<int()> run;
};

// Commands.cpp
Subcommand addInfo(CLI::App& app);
Subcommand addImport(CLI::App& app);
Subcommand addProjectInfo(CLI::App& app);
Subcommand addExample(CLI::App& app);
Subcommand addExport(CLI::App& app);
Subcommand addRig(CLI::App& app);
Subcommand addExportTets(CLI::App& app);
Subcommand addViperize(CLI::App& app);
Subcommand addAddMuscle(CLI::App& app);
// Simulate.cpp
Subcommand addSimulate(CLI::App& app);
// Optimize.cpp
Subcommand addOptimize(CLI::App& app);
Subcommand addFitFeedback(CLI::App& app);
// Replan.cpp
Subcommand addReplan(CLI::App& app);

}  // namespace sinew::cli
