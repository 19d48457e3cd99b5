#include "control/Optimize.h"
#include "control/SearchParams.h"

#include "core/Text.h"

#include "control/InverseDynamics.h"
#include "core/Error.h"
#include "io/AnimationExport.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <mutex>
#include <random>
#include <thread>

namespace sinew::control {

using json = nlohmann::json;

namespace {

json weightsJson(const CostWeights& w) {
  return {{"pose", w.pose}, {"root", w.root}, {"position", w.position}, {"endEffector", w.endEffector},
          {"balance", w.balance}, {"velocity", w.velocity}};
}

void weightsFromJson(const json& w, CostWeights& c) {
  for (auto [key, value] : {std::pair{"pose", &c.pose}, {"root", &c.root}, {"position", &c.position},
                            {"endEffector", &c.endEffector}, {"balance", &c.balance}, {"velocity", &c.velocity}})
    if (w.contains(key)) *value = w.at(key).get<double>();
}

// Backtracking's settings (SamconOptions, EarlierSampling).
json backtrackJson(int times, double above, int windows, double samples) {
  return {{"times", times}, {"above", above}, {"windows", windows}, {"samples", samples}};
}

void readBacktrack(const json& b, int& times, double& above, int& windows, double& samples) {
  times = b.at("times").get<int>();
  above = b.at("above").get<double>();
  windows = b.at("windows").get<int>();
  samples = b.at("samples").get<double>();
}

}  // namespace

std::string specToJson(const OptimizeSpec& s) {
  const SamconOptions& o = s.samcon;
  json j{{"clip", s.clip},
         {"start", s.start},
         {"end", s.end},
         {"frameRate", s.frameRate},
         {"pdFrequency", s.pdFrequency},
         {"stanceAngle", s.stanceAngle},
         {"window", o.window},
         {"samples", o.samples},
         {"keep", o.keep},
         {"seed", o.seed},
         {"timeScaling", o.timeScaling},
         {"timeScaleRange", o.timeScaleRange},
         {"timeScaleWeight", o.timeScaleWeight},
         {"idInit", o.idInit},
         {"noise", o.noise},
         {"rounds", o.rounds},
         {"refineShrink", o.refineShrink},
         {"feedback", o.feedback},
         {"feedbackPeriod", o.feedbackPeriod},
         {"balanceGains",
          {o.balance.ankleTilt, o.balance.ankleBalance, o.balance.ankleVelocity, o.balance.hipTilt, o.balance.hipBalance,
           o.balance.hipVelocity, o.balance.swingHipBalance, o.balance.swingHipVelocity}},
         {"weights", weightsJson(o.weights)}};
  if (!s.jointMap.empty()) j["jointMap"] = s.jointMap;
  if (s.step > 0) j["step"] = s.step;  // absent: the project's (as before it could be chosen)
  if (s.settle > 0) j["settle"] = s.settle;  // absent: no standing tail (as before there was one)
  // Backtracking, absent when off (as before there was any).
  if (o.backtracks > 0)
    j["backtrack"] = backtrackJson(o.backtracks, o.backtrackAbove, o.backtrackWindows, o.backtrackSamples);
  if (o.scoreShove > 0) j["scoreShove"] = o.scoreShove;  // absent when off (as before there was any)
  if (o.tangentWeight > 0) j["tangentWeight"] = o.tangentWeight;  // likewise
  for (const EarlierSampling& e : s.earlier) {
    json r{{"windows", e.windows}, {"seed", e.seed},   {"samples", e.samples},           {"keep", e.keep},
           {"rounds", e.rounds},   {"noise", e.noise}, {"refineShrink", e.refineShrink}, {"weights", weightsJson(e.weights)}};
    if (e.backtracks > 0)
      r["backtrack"] = backtrackJson(e.backtracks, e.backtrackAbove, e.backtrackWindows, e.backtrackSamples);
    if (e.scoreShove > 0) r["scoreShove"] = e.scoreShove;
    if (e.tangentWeight > 0) r["tangentWeight"] = e.tangentWeight;
    j[kEarlierSamplingKey].push_back(r);
  }
  return j.dump();
}

OptimizeSpec specFromJson(const std::string& text, const std::string& context) {
  OptimizeSpec s;
  checkJsonNesting(text, context);
  try {
    const json j = json::parse(text);
    auto get = [&](const char* key, auto& value) {
      if (j.contains(key)) value = j.at(key).get<std::decay_t<decltype(value)>>();
    };
    get("clip", s.clip);
    get("start", s.start);
    get("end", s.end);
    get("frameRate", s.frameRate);
    get("pdFrequency", s.pdFrequency);
    get("stanceAngle", s.stanceAngle);
    get("step", s.step);
    get("settle", s.settle);
    get("jointMap", s.jointMap);
    SamconOptions& o = s.samcon;
    get("window", o.window);
    get("samples", o.samples);
    get("keep", o.keep);
    get("seed", o.seed);
    get("timeScaling", o.timeScaling);
    get("timeScaleRange", o.timeScaleRange);
    get("timeScaleWeight", o.timeScaleWeight);
    get("idInit", o.idInit);
    get("noise", o.noise);
    get("rounds", o.rounds);
    get("refineShrink", o.refineShrink);
    get("feedback", o.feedback);
    get("feedbackPeriod", o.feedbackPeriod);
    get("scoreShove", o.scoreShove);
    get("tangentWeight", o.tangentWeight);
    if (j.contains("balanceGains")) {
      const auto g = j.at("balanceGains").get<std::vector<double>>();
      if (g.size() != 6 && g.size() != 8) throw InputError(context, "balanceGains needs 6 or 8 numbers");
      o.balance = {g[0], g[1], g[2], g[3], g[4], g[5], g.size() > 6 ? g[6] : 0.0, g.size() > 6 ? g[7] : 0.0};
    }
    if (j.contains(kEarlierSamplingKey))
      for (const json& e : j.at(kEarlierSamplingKey)) {
        EarlierSampling r;
        r.windows = e.at("windows").get<int32_t>();
        r.seed = e.at("seed").get<uint64_t>();
        r.samples = e.at("samples").get<int>();
        r.keep = e.at("keep").get<int>();
        r.rounds = e.at("rounds").get<int>();
        r.noise = e.at("noise").get<double>();
        r.refineShrink = e.at("refineShrink").get<double>();
        weightsFromJson(e.at("weights"), r.weights);
        if (e.contains("backtrack"))
          readBacktrack(e.at("backtrack"), r.backtracks, r.backtrackAbove, r.backtrackWindows, r.backtrackSamples);
        if (e.contains("scoreShove")) r.scoreShove = e.at("scoreShove").get<double>();
        if (!(r.scoreShove >= 0 && r.scoreShove <= 10))
          throw InputError(context, "a record of earlier sampling has a scoreShove outside 0 to 10 m/s");
        if (e.contains("tangentWeight")) r.tangentWeight = e.at("tangentWeight").get<double>();
        if (!(r.tangentWeight >= 0 && r.tangentWeight <= 1))
          throw InputError(context, "a record of earlier sampling has a tangentWeight outside 0 to 1");
        if (r.windows <= (s.earlier.empty() ? 0 : s.earlier.back().windows))
          throw InputError(context, "the record of earlier sampling is out of order");
        s.earlier.push_back(r);
      }
    if (j.contains("weights")) weightsFromJson(j.at("weights"), o.weights);
    if (j.contains("backtrack"))
      readBacktrack(j.at("backtrack"), o.backtracks, o.backtrackAbove, o.backtrackWindows, o.backtrackSamples);
  } catch (const json::exception& e) {
    throw InputError(context, std::string("malformed optimiser settings: ") + e.what());
  }
  return s;
}

liu2013::ModelOptions controllerModelOptions(const Project& project, double pdFrequency, double stanceAngle,
                                             double step) {
  liu2013::ModelOptions o = liu2013::modelOptionsFor(project.simulation);
  if (pdFrequency > 0) o.pdFrequency = pdFrequency;
  if (step > 0) o.stableStep = step;
  o.stanceAngle = stanceAngle;  // legs that can carry the body (see ModelOptions); 0: inertia alone
  return o;
}

namespace {

liu2013::Settings searchSettings(const Project& project) {
  liu2013::Settings s;
  liu2013::applyScene(project.simulation, s);
  return s;
}

// The lowest point of the fine surface skinned to a pose (world joint
// transforms): linear blend skinning of the cage nodes, then the embedding.
double lowestSkinnedPoint(const liu2013::Liu2013Model& m, const std::vector<Transform>& pose) {
  std::vector<Mat3> rotation(pose.size());
  std::vector<Vec3> translation(pose.size());
  for (size_t l = 0; l < pose.size(); ++l) {
    const Transform s = pose[l] * m.linkRest[l].inverse();
    rotation[l] = s.rotation.toRotationMatrix();
    translation[l] = s.translation;
  }
  std::vector<double> nodeY(m.nodeCount());
  for (size_t i = 0; i < m.nodeCount(); ++i) {
    double y = 0;
    for (int32_t a = m.influenceOffsets[i]; a < m.influenceOffsets[i + 1]; ++a) {
      const liu2013::Influence& f = m.influences[size_t(a)];
      y += f.weight * (rotation[size_t(f.link)].row(1).dot(m.restNodes[i]) + translation[size_t(f.link)].y());
    }
    nodeY[i] = y;
  }
  double lowest = std::numeric_limits<double>::infinity();
  for (size_t v = 0; v < m.embedding.vertexCount(); ++v) {
    const Tet& tet = m.tets[size_t(m.embedding.tet[v])];
    double y = 0;
    for (int k = 0; k < 4; ++k) y += m.embedding.weights[v][k] * nodeY[size_t(tet[k])];
    lowest = std::min(lowest, y);
  }
  return lowest;
}

// The skeleton's centre of mass in a pose (world transforms of the joints,
// which are the links' frames).
Vec3 modelCenterOfMass(const liu2013::Liu2013Model& m, const std::vector<Transform>& pose) {
  Vec3 sum = Vec3::Zero();
  double mass = 0;
  for (size_t l = 0; l < pose.size() && l < m.skeleton.links.size(); ++l) {
    const dyn::Inertia& in = m.skeleton.links[l].inertia;
    sum += in.mass * pose[l].apply(in.com);
    mass += in.mass;
  }
  return mass > 0 ? Vec3(sum / mass) : sum;
}

double lowestRestNode(const liu2013::Liu2013Model& m) {
  double y = std::numeric_limits<double>::infinity();
  for (const Vec3& x : m.restNodes) y = std::min(y, x.y());
  return y;
}

}  // namespace

liu2013::Liu2013State settledStart(std::shared_ptr<const liu2013::Liu2013Model> model, const liu2013::Settings& settings,
                                   const Skeleton& skeleton, const ReferenceMotion& reference) {
  // Rest pose -> the reference's first pose over kBlend s, held for kHold s,
  // the skeleton moved kinematically and the flesh simulated.
  constexpr double kBlend = 0.5, kHold = 0.3, kFrame = 0.05;
  const dyn::ArticulatedState rest = dyn::restState(model->skeleton);
  const dyn::ArticulatedState first = reference.pose(0.0);
  std::vector<Vec3> roots;
  std::vector<std::vector<Quat>> rotations;
  const int blendFrames = int(std::lround(kBlend / kFrame)), frames = int(std::lround((kBlend + kHold) / kFrame)) + 1;
  for (int f = 0; f < frames; ++f) {
    const double u = std::min(1.0, double(f) / blendFrames);
    const double w = u * u * (3 - 2 * u);  // eased
    roots.push_back((1 - w) * rest.rootPosition + w * first.rootPosition);
    std::vector<Quat> r(first.rotation.size());
    for (size_t l = 0; l < r.size(); ++l) r[l] = rest.rotation[l].slerp(w, first.rotation[l]).normalized();
    rotations.push_back(std::move(r));
  }
  liu2013::Settings s = settings;
  // Posing pulls the flesh hard (stretched shoulders, folded elbows): at no
  // more than the paper's step, whatever step the controller runs at.
  s.dt = std::min(settings.dt, liu2013::Settings{}.dt);
  s.drive = DriveMode::Kinematic;
  s.clip = skeletonAnimationClip(skeleton, roots, rotations, kFrame);
  s.loopClip = false;
  liu2013::Liu2013Solver solver(std::move(model), s);
  // An instability here is the segment's (too weak servos, a pose the flesh
  // cannot take): bad input, said as such.
  auto step = [&](const char* phase) {
    try {
      solver.step();
    } catch (const SimulationError& e) {
      throw InputError(reference.clip().name, std::string("the character could not settle into the segment's first pose (") +
                                                  phase + "): " + e.what());
    }
  };
  const int steps = int(std::lround((kBlend + kHold) / s.dt));
  for (int i = 0; i < steps; ++i) step("posed kinematically");
  // Then the skeleton let go, its servos holding the first pose, for kDrop s:
  // the character sinks onto its soles (a kinematic skeleton leaves them
  // unloaded, and a character released from there drops several centimetres
  // and bounces). Then at rest: velocities zero.
  constexpr double kDrop = 0.25;
  liu2013::Settings hold = s;
  hold.drive = DriveMode::Hold;
  hold.clip.reset();
  solver.setSettings(hold);
  solver.setTargets(dyn::PdTargets{first.rotation, {}});
  for (int i = 0, n = int(std::lround(kDrop / s.dt)); i < n; ++i) step("released onto its servos");
  liu2013::Liu2013State out = solver.state();
  out.skeleton.velocity.setZero();
  for (Vec3& v : out.v) v.setZero();
  out.time = 0;
  out.steps = 0;
  return out;
}

PreparedOptimization prepareOptimization(const Project& project, const OptimizeSpec& spec, const Progress& progress) {
  const SamconOptions& o = spec.samcon;
  checkSearchParams(spec);  // the table's (control/SearchParams.h)
  if (o.rounds > o.samples)
    throw InputError("--rounds", "refinement rounds must be at least 1 and at most the samples per window (" +
                                     std::to_string(o.samples) + ")");
  if (!(o.refineShrink > 0 && o.refineShrink <= 1)) throw InputError("--rounds", "the refinement shrink must lie in (0, 1]");
  if (o.feedback && !(o.feedbackPeriod > 0 && o.feedbackPeriod <= o.window))
    throw InputError("--feedback-period", "must lie in (0, window] s");
  const ClipObject* source = nullptr;
  for (const ClipObject& c : project.clips)
    if (c.clip.name == spec.clip) source = &c;
  if (!source) {
    std::string names;
    for (const ClipObject& c : project.clips) names += (names.empty() ? "" : ", ") + c.clip.name;
    throw InputError(spec.clip.empty() ? std::string("--clip") : spec.clip,
                     "no clip of that name in the project (clips: " + (names.empty() ? std::string("none") : names) + ")");
  }
  if (!project.skeleton) throw InputError(project.name, "the project has no skeleton");
  const Skeleton& skel = project.skeleton->skeleton;
  progress.update(0.0, "model");
  PreparedOptimization out;
  SamconProblem& p = out.problem;
  p.options = o;
  p.model = liu2013::buildLiu2013Model(project, controllerModelOptions(project, spec.pdFrequency, spec.stanceAngle, spec.step));
  p.settings = searchSettings(project);
  if (spec.step > 0) p.settings.dt = spec.step;

  progress.update(0.2, "retargeting");
  JointMap map;
  if (spec.jointMap.empty()) map = autoJointMap(skel, source->clip);
  else map.clipJoint = spec.jointMap;
  RetargetOptions ro;
  ro.start = spec.start;
  ro.end = spec.end;
  ro.frameRate = spec.frameRate;
  ro.groundHeight = p.settings.groundHeight;
  ro.restGround = lowestRestNode(*p.model);
  ro.lowestPoint = [&m = *p.model](const std::vector<Transform>& pose) { return lowestSkinnedPoint(m, pose); };
  ro.standingTail = spec.settle;
  ro.centerOfMass = [&m = *p.model](const std::vector<Transform>& pose) { return modelCenterOfMass(m, pose); };
  out.retarget = retargetClip(source->clip, skel, map, ro);
  // Legs that follow nothing cannot stand or step: name them.
  std::string legs;
  for (int32_t foot : findFeet(skel))
    for (int32_t j = foot; j > 0; j = skel.joints[size_t(j)].parent)
      if (map.clipJoint[size_t(j)].empty() && legs.find("'" + skel.joints[size_t(j)].name + "'") == std::string::npos)
        legs += (legs.empty() ? "'" : ", '") + skel.joints[size_t(j)].name + "'";
  if (!legs.empty())
    throw InputError(spec.clip, "no clip joint maps to the character's leg joints " + legs +
                                    " (map them in the Controller panel's joint table)");
  for (size_t j = 0; j < skel.size(); ++j)
    if (map.clipJoint[j].empty()) out.notes.push_back("joint '" + skel.joints[j].name + "' follows no clip joint (keeps its rest rotation)");

  auto reference = std::make_shared<ReferenceMotion>(*p.model, out.retarget.clip);
  p.reference = reference;
  const double length = reference->duration();  // the segment and its standing tail
  if (out.retarget.segment() < 0.5 * o.window)
    throw InputError(spec.clip, "the segment lasts " + std::to_string(out.retarget.segment()) +
                                    " s, shorter than one control window (" +
                                    std::to_string(o.window) + " s)");
  const int n = std::max(1, int(std::lround(length / o.window)));

  progress.update(0.4, o.idInit ? "inverse dynamics" : "windows");
  InverseDynamicsOptions ido;
  ido.dt = p.settings.dt;
  ido.friction = p.settings.friction;
  ido.groundHeight = p.settings.groundHeight;
  for (int k = 0; k < n; ++k) {
    ControlWindow w;
    w.referenceStart = length * k / n;
    w.referenceDuration = length * (k + 1) / n - w.referenceStart;
    w.duration = w.referenceDuration;
    const double endTime = w.referenceStart + w.referenceDuration;
    w.targets = o.idInit ? inverseDynamicsWindowTarget(*reference, p.model->skeleton, w.referenceStart, endTime, ido)
                         : reference->pose(endTime).rotation;
    p.windows.push_back(std::move(w));
    progress.update(0.4 + 0.5 * (k + 1) / n);
  }

  if (o.feedback) p.feedback = uniformPolicy(o.balance, *reference, p.windows.size(), o.feedbackPeriod);

  progress.update(0.9, "settling");
  p.start = settledStart(p.model, p.settings, skel, *reference);
  progress.update(1.0);
  return out;
}

ControllerObject makeControllerObject(const Project& project, const OptimizeSpec& spec,
                                      const PreparedOptimization& prepared, const SamconSearch& search,
                                      const std::string& name) {
  ControllerObject c;
  c.name = name;
  c.sourceClip = spec.clip;
  c.start = spec.start;
  c.end = spec.end < 0 ? spec.start + prepared.retarget.segment() : spec.end;
  c.jointMap = prepared.retarget.map.clipJoint;
  c.reference = prepared.retarget.clip;
  c.pdFrequency = spec.pdFrequency;
  c.stanceAngle = spec.stanceAngle;
  c.step = prepared.problem.settings.dt;  // plays at the step it was made at, whatever the project's becomes
  c.windows = search.best();
  c.feedback = search.problem().feedback;
  // A stopped search keeps the windows done, and their gains.
  if (!c.feedback.empty()) c.feedback.gains.resize(c.windows.size());
  if (!c.feedback.swingGains.empty()) c.feedback.swingGains.resize(c.windows.size());
  c.settings = specToJson(spec);
  if (!search.finished()) {  // what --resume goes on from
    c.searchKept = search.keptPaths();
    c.searchBacktrack = search.backtrackRecord();
  }
  (void)project;
  return c;
}

const std::vector<std::string>& samplingSettingKeys() {
  static const std::vector<std::string> keys{"seed",         "samples", "keep",      "rounds",
                                             "noise",        "refineShrink", "weights", "backtrack",
                                             "scoreShove",   "tangentWeight", kEarlierSamplingKey};
  return keys;
}

std::vector<EarlierSampling> earlierSampling(const OptimizeSpec& saved, int32_t windows) {
  std::vector<EarlierSampling> earlier;
  int32_t made = 0;
  for (EarlierSampling e : saved.earlier) {
    if (made >= windows) break;
    e.windows = made = std::min(windows, e.windows);
    earlier.push_back(e);
  }
  if (made < windows) {
    const SamconOptions& o = saved.samcon;
    earlier.push_back({windows, o.seed, o.samples, o.keep, o.rounds, o.noise, o.refineShrink, o.weights, o.backtracks,
                       o.backtrackAbove, o.backtrackSamples, o.backtrackWindows, o.scoreShove, o.tangentWeight});
  }
  return earlier;
}

std::vector<WindowScoring> windowScoring(const OptimizeSpec& spec, int32_t windows) {
  std::vector<WindowScoring> w;
  size_t e = 0;
  for (int32_t k = 0; k < windows; ++k) {
    while (e < spec.earlier.size() && k >= spec.earlier[e].windows) ++e;
    w.push_back(e < spec.earlier.size()
                    ? WindowScoring{spec.earlier[e].weights, spec.earlier[e].scoreShove, spec.earlier[e].tangentWeight}
                    : WindowScoring{spec.samcon.weights, spec.samcon.scoreShove, spec.samcon.tangentWeight});
  }
  return w;
}

std::vector<std::vector<ControlWindow>> pathsBefore(const ControllerObject& saved, double time) {
  size_t cut = 0;  // windows that end by `time` (a hair of rounding allowed)
  while (cut < saved.windows.size() &&
         saved.windows[cut].referenceStart + saved.windows[cut].referenceDuration <= time + 1e-9)
    ++cut;
  std::vector<std::vector<ControlWindow>> paths;
  if (cut == 0) return paths;
  const std::vector<std::vector<ControlWindow>> kept =
      saved.searchKept.empty() ? std::vector<std::vector<ControlWindow>>{saved.windows} : saved.searchKept;
  for (const auto& path : kept) {
    if (path.size() < cut) continue;
    std::vector<ControlWindow> head(path.begin(), path.begin() + std::ptrdiff_t(cut));
    if (std::find(paths.begin(), paths.end(), head) == paths.end()) paths.push_back(std::move(head));
  }
  std::stable_sort(paths.begin(), paths.end(),
                   [](const auto& a, const auto& b) { return a.back().cost < b.back().cost; });
  return paths;
}

// ---------------------------------------------------------------------------
// Playing a controller

ControllerPolicy::ControllerPolicy(ControllerObject controller, std::shared_ptr<const ReferenceMotion> reference,
                                   bool feedback, double dt)
    : controller_(std::move(controller)), reference_(std::move(reference)),
      feedback_(feedback && !controller_.feedback.empty()), dt_(dt) {
  if (!(dt > 0)) throw std::invalid_argument("ControllerPolicy: dt must be positive");
  period_ = feedbackPeriodSteps(controller_.feedback, dt);
  double t = 0;
  for (const ControlWindow& w : controller_.windows) {
    windowStart_.push_back(t);
    t += w.duration;
  }
  if (controller_.windows.empty()) throw InputError(controller_.name, "the controller has no windows");
  if (controller_.windows.size() >= size_t(std::numeric_limits<int32_t>::max() / kCorrectionsPerWindow))
    throw InputError(controller_.name, "the controller has too many windows to play (" +
                                           std::to_string(controller_.windows.size()) + ")");
}

int32_t ControllerPolicy::windowAt(double t) const {
  const int32_t windows = int32_t(controller_.windows.size());
  if (t >= end()) {
    // The hold: one code per correction after the end.
    const double j = std::floor((t - end()) / kHoldPeriod);
    return windows * kCorrectionsPerWindow + int32_t(std::min<double>(j, kCorrectionsPerWindow - 1));
  }
  const auto it = std::upper_bound(windowStart_.begin(), windowStart_.end(), t);
  const int32_t k = int32_t(std::max<ptrdiff_t>(0, (it - windowStart_.begin()) - 1));
  if (!feedback_) return k;
  // With feedback, the targets change every period: one code per (window, correction).
  const int32_t j = int32_t(std::floor((t - windowStart_[size_t(k)]) / (period_ * dt_)));
  return k * kCorrectionsPerWindow + std::clamp(j, 0, kCorrectionsPerWindow - 1);
}

double ControllerPolicy::referenceTime(double t) const {
  const auto it = std::upper_bound(windowStart_.begin(), windowStart_.end(), t);
  const size_t k = size_t(std::max<ptrdiff_t>(0, (it - windowStart_.begin()) - 1));
  const ControlWindow& w = controller_.windows[size_t(k)];
  const double u = std::clamp((t - windowStart_[size_t(k)]) / w.duration, 0.0, 1.0);
  return w.referenceStart + u * w.referenceDuration;
}

dyn::PdTargets ControllerPolicy::targets(int32_t code, const liu2013::Liu2013Solver& sim) const {
  if (code >= int32_t(controller_.windows.size()) * kCorrectionsPerWindow) {
    const ControlWindow& last = controller_.windows.back();
    return {holdTargets(*reference_, sim.model().skeleton, last.referenceStart + last.referenceDuration,
                        sim.state().skeleton),
            {}};
  }
  if (!feedback_) return {controller_.windows[size_t(code)].targets, {}};
  const int32_t k = code / kCorrectionsPerWindow, j = code % kCorrectionsPerWindow;
  const ControlWindow& w = controller_.windows[size_t(k)];
  const int32_t steps = int32_t(std::lround(w.duration / dt_));
  return {correctedTargets(*reference_, sim.model().skeleton, controller_.feedback, w, size_t(k), w.targets,
                           std::min(j * period_, steps), steps, sim.state().skeleton),
          {}};
}

ControllerRun prepareControllerRun(const Project& project, const ControllerObject& controller, liu2013::Settings settings,
                                   bool feedback) {
  if (!project.skeleton) throw InputError(project.name, "the project has no skeleton");
  controller.validate(project.name, project.skeleton->skeleton.size());
  ControllerRun run;
  run.model = liu2013::buildLiu2013Model(
      project, controllerModelOptions(project, controller.pdFrequency, controller.stanceAngle, controller.step));
  if (controller.step > 0) settings.dt = controller.step;
  run.reference = std::make_shared<ReferenceMotion>(*run.model, controller.reference);
  run.policy = std::make_shared<ControllerPolicy>(controller, run.reference, feedback, settings.dt);
  settings.drive = DriveMode::Hold;  // the policy replaces the drive
  settings.clip.reset();
  run.solver = std::make_unique<liu2013::Liu2013Solver>(run.model, settings);
  run.solver->setState(settledStart(run.model, settings, project.skeleton->skeleton, *run.reference));
  run.solver->setPolicy(run.policy);
  return run;
}

// ---------------------------------------------------------------------------
// Fitting the feedback from pushed rollouts

namespace {

// What every rollout of one controller shares: its model, reference, physics
// (one thread per rollout) and settled start.
struct RolloutBench {
  std::shared_ptr<const liu2013::Liu2013Model> model;
  std::shared_ptr<const ReferenceMotion> reference;
  liu2013::Settings settings;
  liu2013::Liu2013State start;
  int steps = 0;  // the controller's duration in steps
};

RolloutBench makeRolloutBench(const Project& project, const ControllerObject& controller) {
  if (!project.skeleton) throw InputError(project.name, "the project has no skeleton");
  controller.validate(project.name, project.skeleton->skeleton.size());
  RolloutBench b;
  b.model = liu2013::buildLiu2013Model(
      project, controllerModelOptions(project, controller.pdFrequency, controller.stanceAngle, controller.step));
  b.reference = std::make_shared<ReferenceMotion>(*b.model, controller.reference);
  liu2013::applyScene(project.simulation, b.settings);
  if (controller.step > 0) b.settings.dt = controller.step;
  b.settings.threads = 1;
  b.start = settledStart(b.model, b.settings, project.skeleton->skeleton, *b.reference);
  b.steps = int(std::lround(controller.duration() / b.settings.dt));
  return b;
}

// A shove: at step `step` the whole body gains `velocity`.
struct Push {
  int step = -1;
  Vec3 velocity = Vec3::Zero();
};

// Index 0 unpushed, then `count` horizontal pushes of `speed` in directions
// and at times (15-60% of `steps`) drawn from the seed.
std::vector<Push> seededPushes(int count, double speed, uint64_t seed, int steps) {
  std::vector<Push> pushes(size_t(count) + 1);
  for (int r = 1; r <= count; ++r) {
    std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ull + uint64_t(r));
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const double angle = 2 * M_PI * u(rng);
    pushes[size_t(r)].step = int((0.15 + 0.45 * u(rng)) * steps);
    pushes[size_t(r)].velocity = speed * Vec3(std::sin(angle), 0, std::cos(angle));
  }
  return pushes;
}

void applyPush(const liu2013::Liu2013Model& model, liu2013::Liu2013Solver& sim, const Push& push) {
  liu2013::Liu2013State s = sim.state();
  liu2013::addRigidVelocity(model, s, push.velocity, Vec3::Zero(), Vec3::Zero());
  sim.setState(s);
}

// Runs f(i) for i < n on `threads` threads (each i on one thread).
template <class F>
void parallelFor(size_t n, int threads, F f) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next++) < n;) f(i);
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads && size_t(t) < n; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
}

int threadCount(int requested) {
  return requested > 0 ? requested : std::max(1, int(std::thread::hardware_concurrency()));
}

// The mean over `pushes` of each rollout's mean tracking cost (every 20
// steps; a fall costs kFallenCost for the rest of the rollout) of
// `controller` played with its feedback.
double pushedRolloutScore(const RolloutBench& b, const ControllerObject& controller, const std::vector<Push>& pushes,
                          int threads) {
  const auto policy = std::make_shared<ControllerPolicy>(controller, b.reference, true, b.settings.dt);
  std::vector<double> costs(pushes.size(), 0.0);
  parallelFor(pushes.size(), threads, [&](size_t r) {
    liu2013::Liu2013Solver sim(b.model, b.settings);
    sim.setState(b.start);
    sim.setPolicy(policy);
    double sum = 0;
    int n = 0;
    bool fell = false;
    for (int i = 0; i < b.steps; ++i) {
      if (i == pushes[r].step) applyPush(*b.model, sim, pushes[r]);
      if (!fell) {
        try {
          sim.step();
        } catch (const SimulationError&) {
          fell = true;
        }
      }
      if (i % 20 == 19) {
        const CostTerms t = fell ? CostTerms{} : trackingCost(b.reference->features(sim.state().skeleton),
                                                               b.reference->features(policy->referenceTime(sim.time())), {});
        sum += fell || t.fallen ? kFallenCost : t.total;
        fell = fell || t.fallen;  // a fall costs the rest of the rollout too
        ++n;
      }
    }
    costs[r] = n > 0 ? sum / n : 0.0;
  });
  double mean = 0;
  for (double c : costs) mean += c;
  return mean / double(costs.size());
}

// The controller's policy with a constant offset on the feedback joints: a
// world rotation vector per joint in the heading frame `heading` (the
// feedback's own layout: applyFeedback with the offsets as the gains' first
// column and s = e0).
class OffsetPolicy final : public liu2013::TargetPolicy {
 public:
  OffsetPolicy(std::shared_ptr<const ControllerPolicy> base, std::vector<int32_t> joints,
               const std::vector<double>& offset, const Quat& heading)
      : base_(std::move(base)), joints_(std::move(joints)), gains_(offset.size() * kFeedbackStateSize, 0.0),
        heading_(heading) {
    for (size_t i = 0; i < offset.size(); ++i) gains_[i * kFeedbackStateSize] = offset[i];
  }
  int32_t windowAt(double t) const override { return base_->windowAt(t); }
  dyn::PdTargets targets(int32_t window, const liu2013::Liu2013Solver& sim) const override {
    dyn::PdTargets t = base_->targets(window, sim);
    std::array<double, kFeedbackStateSize> e0{};
    e0[0] = 1;
    t.rotation = applyFeedback(sim.model().skeleton, sim.state().skeleton, std::move(t.rotation), joints_, gains_, e0,
                              heading_);
    return t;
  }

 private:
  std::shared_ptr<const ControllerPolicy> base_;
  std::vector<int32_t> joints_;
  std::vector<double> gains_;
  Quat heading_;
};

}  // namespace

FeedbackFitResult fitFeedback(const Project& project, ControllerObject& controller, const BalanceGains& initial,
                              const FeedbackFitOptions& o, const Progress& progress) {
  if (o.rollouts < 1 || o.sweeps < 1 || !(o.push >= 0)) throw InputError("feedback fit", "needs at least one rollout and one sweep, and a push >= 0");
  const RolloutBench bench = makeRolloutBench(project, controller);
  const double period = controller.feedback.empty() ? 0.01 : controller.feedback.period;
  const std::vector<Push> pushes = seededPushes(o.rollouts, o.push, o.seed, bench.steps);
  const int threads = threadCount(o.threads);
  FeedbackFitResult result;
  auto score = [&](const BalanceGains& g) {
    ControllerObject c = controller;
    c.feedback = uniformPolicy(g, *bench.reference, c.windows.size(), period);
    result.rollouts += int(pushes.size());
    ++result.candidates;
    return pushedRolloutScore(bench, c, pushes, threads);
  };

  std::array<double, 6> best = {initial.ankleTilt, initial.ankleBalance, initial.ankleVelocity,
                                initial.hipTilt, initial.hipBalance, initial.hipVelocity};
  const std::array<double, 6> step0 = {1.0, 0.5, 0.1, 0.5, 0.5, 0.1};
  // The stance gains are fitted; the swing-hip gains are kept as given.
  auto gains = [&](const std::array<double, 6>& a) {
    return BalanceGains{a[0], a[1], a[2], a[3], a[4], a[5], initial.swingHipBalance, initial.swingHipVelocity};
  };
  result.initial = initial;
  double bestScore = result.initialScore = score(initial);
  const int total = o.sweeps * 12;
  int tried = 0;
  for (int sweep = 0; sweep < o.sweeps; ++sweep) {
    const double scale = std::ldexp(1.0, -sweep);
    for (size_t k = 0; k < best.size(); ++k)
      for (double sign : {1.0, -1.0}) {
        std::array<double, 6> trial = best;
        trial[k] += sign * scale * step0[k];
        const double sc = score(gains(trial));
        ++tried;
        if (!progress.tryUpdate(double(tried) / total, "fitting the feedback")) throw Cancelled();
        if (sc < bestScore) {
          bestScore = sc;
          best = trial;
          break;  // the other direction cannot be better along this gain
        }
      }
  }
  result.fitted = gains(best);
  result.fittedScore = bestScore;
  controller.feedback = uniformPolicy(result.fitted, *bench.reference, controller.windows.size(), period);
  return result;
}

std::vector<std::vector<double>> fitLinearMap(const std::vector<FeedbackPair>& pairs, size_t windows, size_t rows,
                                              int pool, double ridge) {
  constexpr int n = kFeedbackStateSize;
  std::vector<std::vector<double>> maps(windows, std::vector<double>(rows * n, 0.0));
  for (size_t k = 0; k < windows; ++k) {
    Eigen::Matrix<double, n, n> sts = Eigen::Matrix<double, n, n>::Zero();
    Eigen::MatrixXd sta = Eigen::MatrixXd::Zero(n, Eigen::Index(rows));
    int used = 0;
    for (const FeedbackPair& p : pairs) {
      if (std::abs(double(p.window) - double(k)) > pool || p.correction.size() != rows) continue;
      const Eigen::Map<const Eigen::Matrix<double, n, 1>> sv(p.state.data());
      const Eigen::Map<const Eigen::RowVectorXd> av(p.correction.data(), Eigen::Index(rows));
      sts += sv * sv.transpose();
      sta += sv * av;
      ++used;
    }
    if (used == 0) continue;
    const double lambda = std::max(ridge * sts.trace() / n, 1e-12);
    const Eigen::Matrix<double, n, n> lhs = sts + lambda * Eigen::Matrix<double, n, n>::Identity();
    const Eigen::MatrixXd mt = lhs.ldlt().solve(sta);  // n x rows: M^T
    for (size_t r = 0; r < rows; ++r)
      for (int c = 0; c < n; ++c) maps[k][r * n + size_t(c)] = mt(c, Eigen::Index(r));
  }
  return maps;
}

FeedbackRegressionResult regressFeedback(const Project& project, ControllerObject& controller,
                                         const FeedbackRegressionOptions& o, const Progress& progress) {
  if (o.rollouts < 0 || o.corrections < 1 || o.validation < 0 || o.pool < 0 || !(o.push >= 0) || !(o.noise >= 0) ||
      !(o.ridge >= 0))
    throw InputError("feedback regression",
                     "needs rollouts >= 0, corrections >= 1, validation >= 0, pool >= 0 and push, noise, ridge >= 0");
  if (controller.feedback.empty() || controller.feedback.joints.empty())
    throw InputError(controller.name, "the controller has no feedback policy to fit (optimize it with --feedback on)");
  const RolloutBench bench = makeRolloutBench(project, controller);
  const double dt = bench.settings.dt;
  const size_t windows = controller.windows.size();
  const std::vector<int32_t>& joints = controller.feedback.joints;
  const size_t rows = 3 * joints.size();
  std::vector<int> windowStep(windows + 1, 0);  // the step each window starts at
  for (size_t k = 0; k < windows; ++k)
    windowStep[k + 1] = windowStep[k] + int(std::lround(controller.windows[k].duration / dt));
  const std::vector<Push> pushes = seededPushes(o.rollouts, o.push, o.seed, bench.steps);
  const int threads = threadCount(o.threads);
  const auto policy = std::make_shared<ControllerPolicy>(controller, bench.reference, true, dt);

  // The rollouts, each recording its pairs.
  std::vector<std::vector<FeedbackPair>> recorded(pushes.size());
  std::vector<int> simulated(pushes.size(), 0);
  // Progress per window done (0-90%; the held-out scores the rest), reported
  // by one thread at a time; a cancel is seen at the next window.
  std::atomic<int> done{0};
  std::atomic<bool> cancelled{false};
  std::mutex reporting;
  const double total = double(pushes.size() * windows);
  auto windowDone = [&] {
    const int d = ++done;
    const std::lock_guard<std::mutex> lock(reporting);
    if (!progress.tryUpdate(0.9 * d / total, "fitting the feedback by least squares")) cancelled = true;
  };
  parallelFor(pushes.size(), threads, [&](size_t r) {
    std::mt19937_64 rng((o.seed + 0x5bd1e995ull) * 0x9e3779b97f4a7c15ull + uint64_t(r));
    std::normal_distribution<double> noise(0.0, 1.0);
    liu2013::Liu2013Solver sim(bench.model, bench.settings);
    sim.setState(bench.start);
    sim.setPolicy(policy);
    auto run = [&](int from, int to, const Push& push) {  // steps [from, to); false when the solver gave up
      try {
        for (int i = from; i < to; ++i) {
          if (i == push.step) applyPush(*bench.model, sim, push);
          sim.step();
        }
      } catch (const SimulationError&) {
        return false;
      }
      return true;
    };
    for (size_t k = 0; k < windows && !cancelled; ++k) {
      const ControlWindow& w = controller.windows[k];
      const bool perturbed = r == 0 || pushes[r].step < windowStep[k];
      if (!perturbed) {  // up to the push: the plain controller
        if (!run(windowStep[k], windowStep[k + 1], pushes[r])) break;
        windowDone();
        continue;
      }
      liu2013::Liu2013State snapshot = sim.state();
      snapshot.policyWindow = -1;  // the targets are recomputed with the offset at the first step
      FeedbackPair pair;
      pair.window = k;
      pair.state = feedbackState(*bench.reference, snapshot.skeleton, w.referenceStart);
      const Quat heading = referenceHeading(*bench.reference, w.referenceStart);
      double bestCost = std::numeric_limits<double>::infinity();
      liu2013::Liu2013State bestState;
      for (int m = 0; m < o.corrections; ++m) {
        std::vector<double> offset(rows, 0.0);
        if (m > 0)
          for (double& a : offset) a = o.noise * noise(rng);
        sim.setState(snapshot);
        sim.setPolicy(std::make_shared<OffsetPolicy>(policy, joints, offset, heading));
        const bool up = run(windowStep[k], windowStep[k + 1], Push{});
        ++simulated[r];
        // (A fallen state's total includes kFallenCost; a solver failure costs that.)
        const double cost = up ? trackingCost(bench.reference->features(sim.state().skeleton),
                                              bench.reference->features(w.referenceStart + w.referenceDuration), {})
                                     .total
                               : kFallenCost;
        if (cost < bestCost) {
          bestCost = cost;
          pair.correction = offset;
          bestState = sim.state();
        }
      }
      if (bestCost >= kFallenCost) break;  // no correction recovered: the rollout ends
      recorded[r].push_back(std::move(pair));
      bestState.policyWindow = -1;  // back to the plain controller's targets
      sim.setState(bestState);
      sim.setPolicy(policy);
      windowDone();
    }
  });
  if (cancelled) throw Cancelled();

  FeedbackRegressionResult result;
  std::vector<FeedbackPair> pairs;
  for (size_t r = 0; r < pushes.size(); ++r) {
    result.simulations += simulated[r];
    for (FeedbackPair& p : recorded[r]) pairs.push_back(std::move(p));
  }
  result.pairs = int(pairs.size());
  for (const FeedbackPair& p : pairs)
    for (size_t j = 0; j < joints.size(); ++j)
      result.meanCorrection += Vec3(p.correction[3 * j], p.correction[3 * j + 1], p.correction[3 * j + 2]).norm() /
                               double(joints.size() * pairs.size());

  // The map, added to the stance and the swing gains of each window.
  const std::vector<std::vector<double>> maps = fitLinearMap(pairs, windows, rows, o.pool, o.ridge);
  ControllerObject fitted = controller;
  for (size_t k = 0; k < windows; ++k)
    for (std::vector<std::vector<double>>* set : {&fitted.feedback.gains, &fitted.feedback.swingGains}) {
      if (k >= set->size() || (*set)[k].size() != maps[k].size()) continue;
      for (size_t i = 0; i < maps[k].size(); ++i) (*set)[k][i] += maps[k][i];
    }
  // Held out: other pushes (another seed).
  const std::vector<Push> held = seededPushes(o.validation, o.push, o.seed + 7919, bench.steps);
  progress.update(0.9, "scoring the feedback on held-out pushes");
  result.initialScore = pushedRolloutScore(bench, controller, held, threads);
  progress.update(0.95, "scoring the fitted feedback on held-out pushes");
  result.fittedScore = pushedRolloutScore(bench, fitted, held, threads);
  progress.update(1.0, "fitted");
  result.kept = result.fittedScore < result.initialScore;
  if (result.kept) controller.feedback = std::move(fitted.feedback);
  return result;
}

}  // namespace sinew::control
