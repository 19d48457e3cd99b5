// sinew-cli replan: play a saved controller re-planning every window from
// the live state (control/Replan.h), optionally shoved, and report whether
// the character stayed up and how often the plan changed.
#include "Commands.h"
#include "Subcommands.h"

#include "control/Cost.h"
#include "control/Replan.h"
#include "io/FileUtil.h"
#include "io/ProjectFile.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

namespace sinew::cli {

namespace fs = std::filesystem;

namespace {

struct ReplanArgs {
  std::string project, controller;
  control::ReplanOptions options;
  double fromTime = 0;
  std::vector<double> push;
  std::string statsJson;
  std::string reanchor = "off", carry = "on";
  std::string output, name;  // the controller as played, saved (empty: not saved)
  bool overwrite = false;
};

int replan(const ReplanArgs& args) {
  return guarded([&]() -> int {
    checkOutputPath(args.output, {args.project}, args.project);
    checkOutputPath(args.statsJson, {args.project, args.output});
    if (!args.output.empty() && args.output != args.project && fs::exists(args.output) && !args.overwrite)
      throw InputError(args.output, "exists (pass --overwrite to replace it)");
    if (!args.output.empty() && args.name.empty()) throw InputError("--name", "is needed to save the played controller (-o)");
    Project project = loadProject(args.project);
    if (!args.name.empty() && args.name == args.controller)
      throw InputError("--name", "'" + args.name + "' would replace the controller being re-planned; give another name");
    const ControllerObject& controller = project.controllers[controllerIndex(project, args.project, args.controller)];
    control::ReplanOptions o = args.options;
    auto windowAt = [&](double t) { return control::windowStartingAt(controller, t); };
    if (!args.push.empty()) {
      if (args.push.size() != 4) throw InputError("--push", "needs four finite numbers T,VX,VY,VZ");
      if (!(args.push[0] >= 0)) throw InputError("--push", "its time must be 0 s or later");
      o.shoveWindow = windowAt(args.push[0]);
      if (o.shoveWindow >= int(controller.windows.size()))
        throw InputError("--push", "its time lies after the controller's last window starts");
      o.shove = Vec3(args.push[1], args.push[2], args.push[3]);
    }
    o.from = windowAt(args.fromTime);
    o.reanchor = args.reanchor == "on" ? 1.0 : args.reanchor == "off" ? 0.0 : std::stod(args.reanchor);
    o.carry = args.carry == "on";
    if (o.from < int(controller.windows.size()))
      std::printf("re-planning '%s' from window %d of %zu", controller.name.c_str(), o.from, controller.windows.size());
    else
      std::printf("playing '%s' as saved, re-planning only the hold's windows from window %d", controller.name.c_str(),
                  o.from);
    std::printf(": %d samples, %d kept, %d window(s) ahead", o.samples, o.keep, o.horizon);
    if (o.reanchor > 0) std::printf(", re-anchored %g of the way", o.reanchor);
    if (o.shoveWindow >= 0)
      std::printf("; shoved (%g, %g, %g) m/s before window %d", o.shove.x(), o.shove.y(), o.shove.z(), o.shoveWindow);
    std::printf("\n");
    const auto t0 = std::chrono::steady_clock::now();
    int replanned = 0, carriedOn = 0;
    nlohmann::json windows = nlohmann::json::array();
    const size_t own = controller.windows.size();
    auto onWindow = [&](const control::ReplanWindow& w) {
      replanned += w.replanned;
      carriedOn += w.carried && !w.replanned;
      const char* kind = size_t(w.window) >= own ? " (hold)" : "";
      if (w.window < o.from)
        std::printf("window %3d%s: played as saved, tilt %.1f deg, %.3g m off\n", w.window, kind, w.tiltDegrees, w.placeMetres);
      else if (!w.searched)
        std::printf("window %3d%s: own %.4g (saved %.4g): on its path, tilt %.1f deg, %.3g m off (%.1f s)\n", w.window,
                    kind, w.nominalCost, w.savedCost, w.tiltDegrees, w.placeMetres, w.wallSeconds);
      else {
        std::printf("window %3d%s: own %.4g (saved %.4g", w.window, kind, w.nominalCost, w.savedCost);
        if (o.reanchor > 0) std::printf("; %.4g where it is", w.anchoredCost);
        if (w.carriedCost < 1e30) std::printf("; carried %.4g%s", w.carriedCost, w.carried ? ", searched around" : "");
        std::printf("), searched %.4g: %s, tilt %.1f deg, %.3g m off (%.1f s)\n", w.searchedCost,
                    w.replanned ? "re-planned" : w.carried ? "carried" : "own", w.tiltDegrees, w.placeMetres, w.wallSeconds);
      }
      std::fflush(stdout);
      windows.push_back({{"window", w.window}, {"own_cost", w.nominalCost}, {"own_cost_where_it_is", w.anchoredCost},
                         {"carried_cost", w.carriedCost < 1e30 ? nlohmann::json(w.carriedCost) : nlohmann::json(nullptr)},
                         {"carried", w.carried},
                         {"saved_cost", w.savedCost},
                         {"searched", w.searched}, {"searched_cost", w.searchedCost},
                         {"replanned", w.replanned}, {"end_time", w.endTime}, {"tilt_degrees", w.tiltDegrees},
                         {"place_metres", std::isfinite(w.placeMetres) ? nlohmann::json(w.placeMetres) : nlohmann::json(nullptr)},
                         {"wall_seconds", w.wallSeconds}});
    };
    const control::ReplanResult r = control::replanPlayback(project, controller, o, Progress::none(), onWindow);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r.stayedUp)
      std::printf("the character stayed up (max tilt %.1f deg under %.0f)", r.maxTiltDegrees, control::kUprightTiltDegrees);
    else
      std::printf("the character fell at %.2f s (tilt over %.0f deg)", r.fellAt, control::kUprightTiltDegrees);
    if (!r.reports.empty() && std::isfinite(r.reports.back().placeMetres))
      std::printf(", %.3g m from the reference's place", r.reports.back().placeMetres);
    std::printf("; %d of %zu windows re-planned", replanned, r.reports.size());
    if (o.carry) std::printf(", %d played on from a carried path", carriedOn);
    std::printf(", %lld sample windows in %.0f s\n", static_cast<long long>(r.samples), seconds);
    if (!r.played.shove.empty()) std::printf("shoved at %.6g s (simulated)\n", r.played.shove.time);
    if (!args.output.empty()) {
      ControllerObject played = r.played;
      played.name = args.name;
      putController(project, std::move(played));
      saveProject(project, args.output);
      std::printf("saved the controller as played as '%s' in %s", args.name.c_str(), args.output.c_str());
      if (!r.played.shove.empty())
        std::printf(" with its shove (replay it: simulate --controller '%s', which shoves it as here)", args.name.c_str());
      std::printf("\n");
    }
    if (!args.statsJson.empty())
      writeFileAtomic(args.statsJson, nlohmann::json{{"stayed_up", r.stayedUp},
                                                     {"fell_at", r.stayedUp ? nlohmann::json(nullptr) : nlohmann::json(r.fellAt)},
                                                     {"max_tilt_degrees", r.maxTiltDegrees},
                                                     {"replanned_windows", replanned},
                                                     {"sample_windows", r.samples},
                                                     {"shove", r.played.shove.empty() ? nlohmann::json(nullptr)
                                                                                      : nlohmann::json{{"time", r.played.shove.time},
                                                                                                       {"velocity", {o.shove.x(), o.shove.y(), o.shove.z()}}}},
                                                     {"wall_seconds", seconds},
                                                     {"windows", windows}}
                                              .dump() + "\n");
    return r.stayedUp ? int(kOk) : int(kBadInput);
  });
}

}  // namespace

Subcommand addReplan(CLI::App& app) {
  auto a = std::make_shared<ReplanArgs>();
  auto* c = app.add_subcommand("replan",
                               "Play a controller re-planning each window from the live state by a small search "
                               "(receding horizon), optionally shoved");
  c->add_option("project", a->project, "Project file")->required()->check(CLI::ExistingFile);
  c->add_option("--controller", a->controller, "The controller (by name)")->required();
  c->add_option("--samples", a->options.samples, "Samples per window searched (default 40)")->check(CLI::Range(1, 100000));
  c->add_option("--keep", a->options.keep, "States kept per window of the horizon (default 4)")->check(CLI::Range(1, 100000));
  c->add_option("--horizon", a->options.horizon, "Windows looked ahead (default 3)")->check(CLI::Range(1, 1000));
  c->add_option("--from-time", a->fromTime, "Re-plan the windows that start at or after this time, s (default 0)")
      ->check(CLI::Range(0.0, 1e5));
  c->add_option("--push", a->push, "T,VX,VY,VZ: a shove before the window that starts at or after T s")->expected(4)->delimiter(',');
  c->add_option("--above", a->options.above,
                "Search only where the own windows end the horizon costing more than this times what their search "
                "found (0: every window; default 0)")
      ->check(CLI::Range(0.0, 1e5));
  c->add_option("--reanchor", a->reanchor,
                "on: search each horizon against the reference moved to where the character is; a fraction 0-1: "
                "moved that part of the way, so the drift fades back to the reference's place (default off)")
      ->check(CLI::Validator(
          [](const std::string& v) -> std::string {
            if (v == "on" || v == "off") return {};
            char* end = nullptr;
            const double f = std::strtod(v.c_str(), &end);
            if (!v.empty() && end && *end == '\0' && f >= 0 && f <= 1) return {};
            return "must be on, off or a fraction from 0 to 1, not '" + v + "'";
          },
          "on|off|FRACTION", "reanchor"));
  c->add_option("--carry", a->carry,
                "on (default): the rest of the path last played from is the plan the next search starts from and "
                "must beat; off: every search starts from the controller's own windows")
      ->check(CLI::IsMember({"on", "off"}));
  c->add_option("--hold", a->options.hold, "s held after the controller's end, re-planned too (default 2)")->check(CLI::Range(0.0, 1e4));
  c->add_option("--seed", a->options.seed, "Random seed (default 1)");
  c->add_option("--threads", a->options.threads, "Sample threads (default: all cores)")->check(CLI::Range(1, 256));
  c->add_option("--stats-json", a->statsJson, "Write the run's figures as JSON");
  c->add_option("-o,--output", a->output, "Save the controller as played (re-planned windows, then the hold's) to this project file");
  c->add_option("--name", a->name, "Name of the saved controller (with -o)");
  c->add_flag("--overwrite", a->overwrite, "Replace an existing output file");
  return {c, [a] { return replan(*a); }};
}

}  // namespace sinew::cli
