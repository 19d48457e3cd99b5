// Errors in three tiers (see docs/ARCHITECTURE.md):
//  - programmer mistakes: assert();
//  - trouble inside a computation: a status or diagnostic the caller can act on;
//  - bad files and user input: InputError, naming the file and the problem,
//    caught once at the CLI or GUI boundary.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace sinew {

// A file or user input that Sinew cannot use. what() is one line:
// "<file>: <problem>" (or just the problem when there is no file).
class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::string problem)
      : std::runtime_error(file.empty() ? problem : file + ": " + problem),
        file_(std::move(file)),
        problem_(std::move(problem)) {}
  const std::string& file() const { return file_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string file_;
  std::string problem_;
};

// An InputError about some joints of the skeleton (a rig step that cannot
// build their bones): names them all, so that a front end can select them
// and the log can list them.
class JointsError : public InputError {
 public:
  JointsError(std::string file, std::string problem, std::vector<std::string> joints)
      : InputError(std::move(file), std::move(problem)), joints_(std::move(joints)) {}
  const std::vector<std::string>& joints() const { return joints_; }

 private:
  std::vector<std::string> joints_;
};

// Thrown from a progress checkpoint when the user cancelled a long operation.
class Cancelled : public std::runtime_error {
 public:
  Cancelled() : std::runtime_error("cancelled") {}
};

enum class Severity { Info, Warning, Error };

// A message produced by an operation for the user (import warnings, validation
// findings); the app shows them in its Log panel, the CLI on stderr / in JSON.
struct Diagnostic {
  Severity severity = Severity::Info;
  std::string message;
};
using Diagnostics = std::vector<Diagnostic>;

inline const char* severityName(Severity s) {
  switch (s) {
    case Severity::Info: return "info";
    case Severity::Warning: return "warning";
    case Severity::Error: return "error";
  }
  return "?";
}

}  // namespace sinew
