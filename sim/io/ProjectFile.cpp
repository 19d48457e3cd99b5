#include "io/ProjectFile.h"
#include "solver/Solvers.h"

#include "core/Hash.h"
#include "core/Text.h"

#include <nlohmann/json.hpp>

#include <cstring>
#include <filesystem>
#include <map>
#include <set>

namespace sinew {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::string projectDataDir(const std::string& path) { return path + ".data"; }

std::string projectLockFile(const std::string& path) {
  const fs::path p(path);
  return (p.parent_path() / hiddenName(path, ".lock")).string();
}

namespace {

// ---------------------------------------------------------------------------
// Blobs: typed arrays stored as files named "<fnv1a64 hex>.bin".

// True for "<16 lower-case hex digits>.bin".
bool isBlobName(const std::string& name) {
  if (name.size() != 20 || name.compare(16, 4, ".bin") != 0) return false;
  for (size_t i = 0; i < 16; ++i)
    if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f'))) return false;
  return true;
}

template <class T>
struct BlobType;
template <>
struct BlobType<double> {
  static constexpr const char* name = "f64";
};
template <>
struct BlobType<int32_t> {
  static constexpr const char* name = "i32";
};

class BlobWriter {
 public:
  template <class T>
  json add(const T* data, size_t count, std::vector<size_t> shape) {
    const size_t bytes = count * sizeof(T);
    std::string b = bytes ? std::string(reinterpret_cast<const char*>(data), bytes) : std::string();
    const std::string name = toHex64(fnv1a64(b.data(), b.size())) + ".bin";
    blobs_.emplace(name, std::move(b));
    return json{{"blob", name}, {"type", BlobType<T>::name}, {"shape", shape}};
  }
  const std::map<std::string, std::string>& blobs() const { return blobs_; }

 private:
  std::map<std::string, std::string> blobs_;  // name -> bytes
};

class BlobReader {
 public:
  BlobReader(std::string projectPath) : path_(std::move(projectPath)), dir_(projectDataDir(path_)) {}

  // Reads an array given either inline (JSON array of numbers or of rows) or as a blob reference.
  template <class T>
  std::vector<T> read(const json& j, size_t columns, const std::string& what) {
    std::vector<T> out;
    if (j.is_array()) {
      for (const json& row : j) {
        if (row.is_array()) {
          if (row.size() != columns) fail(what + ": inline row has " + std::to_string(row.size()) + " values, expected " + std::to_string(columns));
          for (const json& x : row) out.push_back(number<T>(x, what));
        } else {
          out.push_back(number<T>(row, what));
        }
      }
      if (columns > 1 && out.size() % columns) fail(what + ": inline array length is not a multiple of " + std::to_string(columns));
      return out;
    }
    if (!j.is_object() || !j.contains("blob")) fail(what + ": expected an array or a blob reference");
    const std::string name = j.at("blob").get<std::string>();
    if (!isBlobName(name)) fail(what + ": invalid blob name '" + name.substr(0, 40) + "'");
    if (j.value("type", "") != BlobType<T>::name)
      fail(what + ": blob type '" + j.value("type", "") + "', expected '" + BlobType<T>::name + "'");
    // The shape must be non-negative integers whose product (without
    // overflow) is a whole number of rows: the caller copies rows of `columns`.
    const json& shape = j.contains("shape") ? j.at("shape") : json();
    if (!shape.is_array() || shape.empty()) fail(what + ": blob shape must be a non-empty array of sizes");
    size_t count = 1;
    for (const json& d : shape) {
      if (!d.is_number_unsigned()) fail(what + ": blob shape has an invalid size " + d.dump().substr(0, 40));
      if (__builtin_mul_overflow(count, d.get<size_t>(), &count) || count > kMaxReadBytes / sizeof(T))
        fail(what + ": blob shape " + shape.dump().substr(0, 80) + " is too large");
    }
    if (shape.size() > 1 && shape.back().get<size_t>() != columns)
      fail(what + ": blob has " + std::to_string(shape.back().get<size_t>()) + " columns, expected " + std::to_string(columns));
    if (count % columns)
      fail(what + ": blob holds " + std::to_string(count) + " values, not a whole number of rows of " +
           std::to_string(columns));
    const std::string file = (fs::path(dir_) / name).string();
    std::error_code ec;
    if (!fs::exists(file, ec)) fail(what + ": missing data file " + file);
    const uint64_t size = fs::file_size(file, ec);
    if (ec || size != count * sizeof(T))
      fail(what + ": data file " + file + " has " + std::to_string(size) + " bytes, expected " +
           std::to_string(count * sizeof(T)));
    const std::string bytes = count ? readFileChecked(file) : std::string();
    if (toHex64(fnv1a64(bytes.data(), bytes.size())) + ".bin" != name)
      fail(what + ": data file " + file + " is corrupted (content does not match its hash)");
    out.resize(count);
    if (count) std::memcpy(out.data(), bytes.data(), bytes.size());
    return out;
  }

  [[noreturn]] void fail(const std::string& msg) const { throw InputError(path_, msg); }

 private:
  template <class T>
  T number(const json& x, const std::string& what) {
    if (!x.is_number()) fail(what + ": expected a number, found " + std::string(x.type_name()));
    return x.get<T>();
  }
  std::string path_, dir_;
};

// ---------------------------------------------------------------------------
// Writing

json vec3(const Vec3& v) { return json::array({v.x(), v.y(), v.z()}); }
json quat(const Quat& q) { return json::array({q.w(), q.x(), q.y(), q.z()}); }

json skinToJson(const SkinWeights& s, BlobWriter& blobs) {
  return {{"bones", s.bones},
          {"offsets", blobs.add(s.offsets.data(), s.offsets.size(), {s.offsets.size()})},
          {"bone", blobs.add(s.bone.data(), s.bone.size(), {s.bone.size()})},
          {"weight", blobs.add(s.weight.data(), s.weight.size(), {s.weight.size()})}};
}

json materialToJson(const FleshMaterial& m) {
  return {{"youngsModulus", m.youngsModulus}, {"poissonRatio", m.poissonRatio}, {"density", m.density},
          {"damping", m.damping}};
}

json clipToJson(const MotionClip& clip, BlobWriter& blobs) {
  json joints = json::array();
  for (const ClipJoint& cj : clip.joints) {
    json o{{"name", cj.name}, {"parent", cj.parent}, {"offset", vec3(cj.offset)}};
    json ch = json::array();
    for (Channel x : cj.channels) ch.push_back(channelName(x));
    o["channels"] = ch;
    if (cj.endSite) o["endSite"] = vec3(*cj.endSite);
    joints.push_back(o);
  }
  return {{"name", clip.name},
          {"frameTime", clip.frameTime},
          {"frameCount", clip.frameCount},
          {"units", clip.units},
          {"unitScale", clip.unitScale},
          {"joints", joints},
          {"values", blobs.add(clip.values.data(), clip.values.size(), {size_t(clip.frameCount), size_t(clip.channelCount())})}};
}

// Control windows: their spans and costs as JSON, their targets in one blob.
json windowsToJson(const std::vector<ControlWindow>& ws, BlobWriter& blobs) {
  json windows = json::array();
  std::vector<double> targets;
  for (const ControlWindow& w : ws) {
    windows.push_back({{"referenceStart", w.referenceStart},
                       {"referenceDuration", w.referenceDuration},
                       {"duration", w.duration},
                       {"cost", w.cost}});
    for (const Quat& q : w.targets) targets.insert(targets.end(), {q.w(), q.x(), q.y(), q.z()});
  }
  const size_t joints = ws.empty() ? 0 : ws.front().targets.size();
  return {{"windows", windows}, {"targets", blobs.add(targets.data(), targets.size(), {ws.size(), joints, 4})}};
}

json controllerToJson(const ControllerObject& c, BlobWriter& blobs) {
  const json windows = windowsToJson(c.windows, blobs);
  json o{{"id", c.id},
         {"name", c.name},
         {"sourceClip", c.sourceClip},
         {"start", c.start},
         {"end", c.end},
         {"jointMap", c.jointMap},
         {"pdFrequency", c.pdFrequency},
         {"stanceAngle", c.stanceAngle},
         {"reference", clipToJson(c.reference, blobs)},
         {"windows", windows["windows"]},
         {"targets", windows["targets"]},
         {"settings", c.settings}};
  if (c.step > 0) o["step"] = c.step;  // optional (added within version 3): absent is the project's step
  if (!c.shove.empty())  // optional (added within version 3): absent is none
    o["shove"] = {{"time", c.shove.time}, {"velocity", {c.shove.velocity.x(), c.shove.velocity.y(), c.shove.velocity.z()}}};
  if (!c.searchKept.empty()) {  // optional (added within version 3)
    json kept = json::array();
    for (const auto& path : c.searchKept) kept.push_back(windowsToJson(path, blobs));
    o["searchKept"] = kept;
  }
  if (!c.searchBacktrack.empty()) {  // optional (added within version 3)
    const SearchBacktrackRecord& r = c.searchBacktrack;
    auto sets = [](const std::vector<SearchBacktrackRecord::KeptSet>& s) {
      json a = json::array();
      for (const auto& k : s) a.push_back({{"window", k.window}, {"leaves", k.leaves}});
      return a;
    };
    json tree = windowsToJson(r.nodes, blobs);
    tree["parents"] = r.parent;
    o["searchBacktrack"] = {{"tree", tree},           {"remembered", sets(r.remembered)},
                            {"pending", sets(r.pending)}, {"attempts", r.attempts},
                            {"used", r.used},           {"lastFrom", r.lastFrom},
                            {"lastTo", r.lastTo}};
    if (!r.furthest.leaves.empty())  // optional: absent when no good kept set was found
      o["searchBacktrack"]["furthest"] = {{"window", r.furthest.window}, {"leaves", r.furthest.leaves}};
  }
  if (!c.feedback.empty()) {
    std::vector<double> gains;
    for (const auto& g : c.feedback.gains) gains.insert(gains.end(), g.begin(), g.end());
    o["feedback"] = {{"joints", c.feedback.joints},
                     {"stateSize", c.feedback.stateSize},
                     {"period", c.feedback.period},
                     {"gains", blobs.add(gains.data(), gains.size(),
                                         {c.feedback.gains.size(), 3 * c.feedback.joints.size(), size_t(c.feedback.stateSize)})}};
    if (!c.feedback.swingGains.empty()) {
      std::vector<double> swing;
      for (const auto& g : c.feedback.swingGains) swing.insert(swing.end(), g.begin(), g.end());
      o["feedback"]["swingGains"] = blobs.add(swing.data(), swing.size(),
                                              {c.feedback.swingGains.size(), 3 * c.feedback.joints.size(), size_t(c.feedback.stateSize)});
    }
  }
  return o;
}

json rodMaterialToJson(const RodMaterial& m) {
  return {{"density", m.density}, {"stretch", m.stretch}, {"shear", m.shear}, {"radial", m.radial}, {"bend", m.bend},
          {"scaleBend", m.scaleBend}, {"volume", m.volume}, {"maxContraction", m.maxContraction}};
}

json rodBodyToJson(const RodBodyObject& b, BlobWriter& blobs) {
  json o{{"id", b.id}, {"name", b.name}, {"surface", b.surface}, {"visible", b.visible},
         {"originBone", b.originBone}, {"insertionBone", b.insertionBone}, {"rodCount", b.rodCount},
         {"sliceCount", b.sliceCount}, {"activation", b.activation}, {"selfCollision", b.selfCollision},
         {"material", rodMaterialToJson(b.material)}};
  if (!b.paint.empty()) {
    std::vector<int32_t> paint;
    for (MusclePaint v : b.paint) paint.push_back(int32_t(v));
    o["paint"] = blobs.add(paint.data(), paint.size(), {paint.size()});
  }
  std::vector<int32_t> first{0};
  std::vector<double> nodes, radii, contractile;
  bool anyContractile = false;
  for (const RodBodyRod& r : b.rods) {
    first.push_back(first.back() + int32_t(r.nodes.size()));
    for (const Vec3& x : r.nodes) nodes.insert(nodes.end(), {x.x(), x.y(), x.z()});
    radii.insert(radii.end(), r.radii.begin(), r.radii.end());
    anyContractile = anyContractile || !r.contractile.empty();
  }
  for (const RodBodyRod& r : b.rods)
    for (size_t i = 0; i + 1 < r.nodes.size(); ++i) contractile.push_back(r.contractile.empty() ? 1.0 : r.contractile[i]);
  o["rodFirst"] = blobs.add(first.data(), first.size(), {first.size()});
  o["nodes"] = blobs.add(nodes.data(), nodes.size(), {nodes.size() / 3, 3});
  o["radii"] = blobs.add(radii.data(), radii.size(), {radii.size()});
  if (anyContractile) o["contractile"] = blobs.add(contractile.data(), contractile.size(), {contractile.size()});
  json bundles = json::array();
  for (const auto& bundle : b.bundles) {
    json members = json::array();
    for (const auto& [rod, node] : bundle) members.push_back(json::array({rod, node}));
    bundles.push_back(members);
  }
  o["bundles"] = bundles;
  json pins = json::array();
  for (const RodPin& p : b.pins) pins.push_back({{"rod", p.rod}, {"node", p.node}, {"bone", p.bone}});
  o["pins"] = pins;
  return o;
}

json projectToJson(const Project& p, BlobWriter& blobs) {
  json j;
  j["format"] = kProjectFormatName;
  j["version"] = kProjectFormatVersion;
  j["name"] = p.name;
  j["nextId"] = p.nextId;
  j["units"] = "m";
  json meshes = json::array();
  for (const MeshObject& m : p.meshes) {
    json o{{"id", m.id}, {"name", m.name}, {"source", m.source}, {"color", vec3(m.color)}, {"visible", m.visible}};
    o["positions"] = blobs.add(m.mesh.positions.empty() ? nullptr : m.mesh.positions[0].data(),
                               3 * m.mesh.positions.size(), {m.mesh.positions.size(), 3});
    o["triangles"] = blobs.add(m.mesh.triangles.empty() ? nullptr : m.mesh.triangles[0].data(),
                               3 * m.mesh.triangles.size(), {m.mesh.triangles.size(), 3});
    if (m.skin) o["skin"] = skinToJson(*m.skin, blobs);
    meshes.push_back(o);
  }
  j["meshes"] = meshes;
  if (p.skeleton) {
    json joints = json::array();
    for (const Joint& jt : p.skeleton->skeleton.joints) {
      json o{{"name", jt.name},
             {"parent", jt.parent},
             {"translation", vec3(jt.restLocal.translation)},
             {"rotation", quat(jt.restLocal.rotation)},
             {"type", jointTypeName(jt.type)},
             {"limits", {{"lower", vec3(jt.limits.lower)}, {"upper", vec3(jt.limits.upper)}}}};
      if (jt.type == JointType::Hinge) o["hingeAxis"] = vec3(jt.hingeAxis);
      if (!jt.simulated) o["simulated"] = false;
      const BoneShape& b = jt.bone;
      if (b.kind == BoneShapeKind::Capsule)
        o["bone"] = {{"shape", "capsule"}, {"start", vec3(b.start)}, {"end", vec3(b.end)}, {"radius", b.radius}};
      else if (b.kind == BoneShapeKind::Box)
        o["bone"] = {{"shape", "box"}, {"center", vec3(b.center)}, {"halfExtents", vec3(b.halfExtents)},
                     {"orientation", quat(b.orientation)}};
      joints.push_back(o);
    }
    j["skeleton"] = {{"id", p.skeleton->id}, {"name", p.skeleton->name}, {"joints", joints}};
  }
  json clips = json::array();
  for (const ClipObject& c : p.clips) {
    json o = clipToJson(c.clip, blobs);
    o["id"] = c.id;
    o["source"] = c.source;
    clips.push_back(o);
  }
  j["clips"] = clips;
  if (!p.controllers.empty()) {  // optional (added within version 3)
    json controllers = json::array();
    for (const ControllerObject& c : p.controllers) controllers.push_back(controllerToJson(c, blobs));
    j["controllers"] = controllers;
  }
  json volumes = json::array();
  for (const VolumeObject& v : p.volumes) {
    json o{{"id", v.id}, {"name", v.name}, {"kind", volumeKindName(v.kind)}, {"bones", v.bones},
           {"visible", v.visible}, {"surface", v.surface}};
    if (v.live) o["live"] = true;  // optional: absent reads as the full mesh
    const TetMesh& m = v.mesh;
    o["nodes"] = blobs.add(m.nodes.empty() ? nullptr : m.nodes[0].data(), 3 * m.nodes.size(), {m.nodes.size(), 3});
    o["tets"] = blobs.add(m.tets.empty() ? nullptr : m.tets[0].data(), 4 * m.tets.size(), {m.tets.size(), 4});
    if (!m.region.empty()) o["region"] = blobs.add(m.region.data(), m.region.size(), {m.region.size()});
    if (!v.fixedBone.empty()) o["fixedBone"] = blobs.add(v.fixedBone.data(), v.fixedBone.size(), {v.fixedBone.size()});
    if (v.surface) {
      const Embedding& e = v.embedding;
      std::vector<int32_t> flags(e.extrapolated.begin(), e.extrapolated.end());
      o["embedding"] = {{"tet", blobs.add(e.tet.data(), e.tet.size(), {e.tet.size()})},
                        {"weights", blobs.add(e.weights.empty() ? nullptr : e.weights[0].data(), 4 * e.weights.size(),
                                              {e.weights.size(), 4})},
                        {"extrapolated", blobs.add(flags.data(), flags.size(), {flags.size()})}};
    }
    if (v.weights) o["weights"] = skinToJson(*v.weights, blobs);
    volumes.push_back(o);
  }
  j["volumes"] = volumes;
  if (!p.rodBodies.empty()) {  // optional (added within version 3)
    json bodies = json::array();
    for (const RodBodyObject& b : p.rodBodies) bodies.push_back(rodBodyToJson(b, blobs));
    j["rodBodies"] = bodies;
  }
  // Written only when the user set something, so projects without it keep their bytes.
  if (!p.simulation.empty()) {
    json sim = json::object();
    if (p.simulation.flesh) sim["flesh"] = materialToJson(*p.simulation.flesh);
    json regions = json::array();
    for (const RegionMaterial& r : p.simulation.regions) {
      json o = materialToJson(r.material);
      o["bone"] = r.bone;
      regions.push_back(o);
    }
    sim["regions"] = regions;
    if (p.simulation.groundHeight) sim["groundHeight"] = *p.simulation.groundHeight;
    if (p.simulation.groundFriction) sim["groundFriction"] = *p.simulation.groundFriction;
    json colliders = json::array();
    for (const Collider& c : p.simulation.colliders)
      colliders.push_back({{"name", c.name}, {"shape", colliderShapeName(c.shape)}, {"center", vec3(c.center)},
                           {"rotationDegrees", vec3(c.rotationDegrees)}, {"size", vec3(c.size)}, {"friction", c.friction}});
    if (!colliders.empty()) sim["colliders"] = colliders;
    if (!p.simulation.solverParams.empty()) sim["solvers"] = p.simulation.solverParams;
    j["simulation"] = sim;
  }
  return j;
}

// ---------------------------------------------------------------------------
// Reading

template <class T>
T field(const json& j, const char* key, const std::string& ctx, const std::string& path) {
  if (!j.is_object() || !j.contains(key)) throw InputError(path, ctx + ": missing '" + key + "'");
  try {
    return j.at(key).get<T>();
  } catch (const json::exception&) {
    throw InputError(path, ctx + ": '" + key + "' has the wrong type");
  }
}

Vec3 readVec3(const json& j, const char* key, const std::string& ctx, const std::string& path) {
  const auto v = field<std::vector<double>>(j, key, ctx, path);
  if (v.size() != 3) throw InputError(path, ctx + ": '" + key + "' must have 3 numbers");
  return {v[0], v[1], v[2]};
}

FleshMaterial readMaterial(const json& j, const std::string& ctx, const std::string& path) {
  FleshMaterial m;
  m.youngsModulus = field<double>(j, "youngsModulus", ctx, path);
  m.poissonRatio = field<double>(j, "poissonRatio", ctx, path);
  m.density = field<double>(j, "density", ctx, path);
  m.damping = field<double>(j, "damping", ctx, path);
  return m;
}

// `what` names the weights in messages ("mesh 'Body' skin").
SkinWeights skinFromJson(const json& s, BlobReader& blobs, const std::string& what, const std::string& path) {
  SkinWeights w;
  w.bones = field<std::vector<std::string>>(s, "bones", what, path);
  w.offsets = blobs.read<int32_t>(field<json>(s, "offsets", what, path), 1, what + " offsets");
  w.bone = blobs.read<int32_t>(field<json>(s, "bone", what, path), 1, what + " bones");
  w.weight = blobs.read<double>(field<json>(s, "weight", what, path), 1, what + " values");
  return w;
}

MotionClip clipFromJson(const json& c, BlobReader& blobs, const std::string& path) {
  MotionClip clip;
  clip.name = field<std::string>(c, "name", "clip", path);
  const std::string ctx = "clip '" + clip.name + "'";
  clip.frameTime = field<double>(c, "frameTime", ctx, path);
  clip.frameCount = field<int32_t>(c, "frameCount", ctx, path);
  clip.units = c.value("units", "m");
  clip.unitScale = c.value("unitScale", 1.0);
  int32_t column = 0;
  for (const json& cj : field<json>(c, "joints", ctx, path)) {
    ClipJoint joint;
    joint.name = field<std::string>(cj, "name", ctx + " joint", path);
    joint.parent = field<int32_t>(cj, "parent", ctx + " joint '" + joint.name + "'", path);
    joint.offset = readVec3(cj, "offset", ctx, path);
    for (const std::string& ch : field<std::vector<std::string>>(cj, "channels", ctx, path)) {
      const auto x = channelFromName(ch);
      if (!x) throw InputError(path, ctx + ": unknown channel '" + ch + "'");
      joint.channels.push_back(*x);
    }
    if (cj.contains("endSite")) joint.endSite = readVec3(cj, "endSite", ctx, path);
    joint.firstChannel = column;
    column += static_cast<int32_t>(joint.channels.size());
    clip.joints.push_back(joint);
  }
  clip.values = blobs.read<double>(field<json>(c, "values", ctx, path), std::max(column, 1), ctx + " values");
  return clip;
}

std::vector<ControlWindow> windowsFromJson(const json& c, BlobReader& blobs, size_t joints, const std::string& ctx,
                                           const std::string& path) {
  const std::vector<double> targets = blobs.read<double>(field<json>(c, "targets", ctx, path), 4, ctx + " targets");
  const json& windows = field<json>(c, "windows", ctx, path);
  if (targets.size() != windows.size() * joints * 4)
    throw InputError(path, ctx + ": the targets do not match the windows and joints");
  std::vector<ControlWindow> out;
  size_t at = 0;
  for (const json& w : windows) {
    ControlWindow cw;
    cw.referenceStart = field<double>(w, "referenceStart", ctx + " window", path);
    cw.referenceDuration = field<double>(w, "referenceDuration", ctx + " window", path);
    cw.duration = field<double>(w, "duration", ctx + " window", path);
    cw.cost = w.value("cost", 0.0);
    for (size_t k = 0; k < joints; ++k, at += 4) cw.targets.push_back(Quat(targets[at], targets[at + 1], targets[at + 2], targets[at + 3]));
    out.push_back(std::move(cw));
  }
  return out;
}

ControllerObject controllerFromJson(const json& c, BlobReader& blobs, const std::string& path) {
  ControllerObject o;
  o.id = field<ObjectId>(c, "id", "controller", path);
  o.name = field<std::string>(c, "name", "controller", path);
  const std::string ctx = "controller '" + o.name + "'";
  o.sourceClip = c.value("sourceClip", "");
  o.start = field<double>(c, "start", ctx, path);
  o.end = field<double>(c, "end", ctx, path);
  o.jointMap = field<std::vector<std::string>>(c, "jointMap", ctx, path);
  o.pdFrequency = c.value("pdFrequency", 0.0);
  o.stanceAngle = c.value("stanceAngle", 0.1);  // files before it was saved: the search's fixed 0.1
  if (c.contains("step")) o.step = field<double>(c, "step", ctx, path);
  if (c.contains("shove")) {
    const json& sh = c.at("shove");
    if (!sh.is_object()) throw InputError(path, ctx + ": shove must be an object with a time and a velocity");
    o.shove.time = field<double>(sh, "time", ctx + " shove", path);
    const std::vector<double> v = field<std::vector<double>>(sh, "velocity", ctx + " shove", path);
    if (v.size() != 3) throw InputError(path, ctx + ": the shove's velocity needs three numbers");
    o.shove.velocity = Vec3(v[0], v[1], v[2]);
    if (!(o.shove.time >= 0)) throw InputError(path, ctx + ": the shove's time must be 0 s or later");
  }
  o.reference = clipFromJson(field<json>(c, "reference", ctx, path), blobs, path);
  o.settings = c.value("settings", "");
  o.windows = windowsFromJson(c, blobs, o.jointMap.size(), ctx, path);
  if (c.contains("searchKept")) {
    if (!c.at("searchKept").is_array()) throw InputError(path, ctx + ": searchKept must be an array of window lists");
    for (const json& kept : c.at("searchKept"))
      o.searchKept.push_back(windowsFromJson(kept, blobs, o.jointMap.size(), ctx + " kept search path", path));
  }
  if (c.contains("searchBacktrack")) {
    const std::string rctx = ctx + " searchBacktrack";
    const json& b = c.at("searchBacktrack");
    if (!b.is_object()) throw InputError(path, rctx + " must be an object");
    SearchBacktrackRecord& r = o.searchBacktrack;
    const json& tree = field<json>(b, "tree", rctx, path);
    r.nodes = windowsFromJson(tree, blobs, o.jointMap.size(), rctx + " tree", path);
    r.parent = field<std::vector<int32_t>>(tree, "parents", rctx + " tree", path);
    auto sets = [&](const char* key) {
      std::vector<SearchBacktrackRecord::KeptSet> out;
      const json& a = field<json>(b, key, rctx, path);
      if (!a.is_array()) throw InputError(path, rctx + ": " + key + " must be an array of kept sets");
      for (const json& k : a)
        out.push_back({field<int32_t>(k, "window", rctx + " " + key, path),
                       field<std::vector<int32_t>>(k, "leaves", rctx + " " + key, path)});
      return out;
    };
    r.remembered = sets("remembered");
    r.pending = sets("pending");
    r.attempts = field<std::vector<int32_t>>(b, "attempts", rctx, path);
    if (r.attempts.empty()) throw InputError(path, rctx + ": attempts has no windows");
    r.used = field<int32_t>(b, "used", rctx, path);
    r.lastFrom = field<int32_t>(b, "lastFrom", rctx, path);
    r.lastTo = field<int32_t>(b, "lastTo", rctx, path);
    if (b.contains("furthest")) {
      const json& f = b.at("furthest");
      r.furthest = {field<int32_t>(f, "window", rctx + " furthest", path),
                    field<std::vector<int32_t>>(f, "leaves", rctx + " furthest", path)};
    }
  }
  if (c.contains("feedback")) {
    const json& f = c.at("feedback");
    o.feedback.joints = field<std::vector<int32_t>>(f, "joints", ctx + " feedback", path);
    o.feedback.stateSize = field<int32_t>(f, "stateSize", ctx + " feedback", path);
    if (f.contains("period")) o.feedback.period = field<double>(f, "period", ctx + " feedback", path);
    const size_t size = 3 * o.feedback.joints.size() * size_t(std::max(o.feedback.stateSize, 0));
    const std::vector<double> gains = blobs.read<double>(field<json>(f, "gains", ctx, path), size_t(std::max(o.feedback.stateSize, 1)), ctx + " feedback gains");
    if (size == 0 || gains.size() != size * o.windows.size()) throw InputError(path, ctx + ": the feedback gains do not match");
    for (size_t k = 0; k < o.windows.size(); ++k)
      o.feedback.gains.emplace_back(gains.begin() + long(k * size), gains.begin() + long((k + 1) * size));
    if (f.contains("swingGains")) {
      const std::vector<double> swing = blobs.read<double>(f.at("swingGains"), size_t(std::max(o.feedback.stateSize, 1)), ctx + " feedback swing gains");
      if (swing.size() != size * o.windows.size()) throw InputError(path, ctx + ": the feedback swing-leg gains do not match");
      for (size_t k = 0; k < o.windows.size(); ++k)
        o.feedback.swingGains.emplace_back(swing.begin() + long(k * size), swing.begin() + long((k + 1) * size));
    }
  }
  return o;
}

RodBodyObject rodBodyFromJson(const json& b, BlobReader& blobs, const std::string& path) {
  RodBodyObject o;
  o.id = field<ObjectId>(b, "id", "rod body", path);
  o.name = field<std::string>(b, "name", "rod body", path);
  const std::string ctx = "rod body '" + o.name + "'";
  o.surface = b.value("surface", ObjectId(0));
  o.visible = b.value("visible", true);
  o.originBone = b.value("originBone", "");
  o.insertionBone = b.value("insertionBone", "");
  o.rodCount = field<int32_t>(b, "rodCount", ctx, path);
  o.sliceCount = field<int32_t>(b, "sliceCount", ctx, path);
  o.activation = field<double>(b, "activation", ctx, path);
  o.selfCollision = b.value("selfCollision", true);
  const json& m = field<json>(b, "material", ctx, path);
  const std::string mctx = ctx + " material";
  o.material.density = field<double>(m, "density", mctx, path);
  o.material.stretch = field<double>(m, "stretch", mctx, path);
  o.material.shear = field<double>(m, "shear", mctx, path);
  o.material.radial = field<double>(m, "radial", mctx, path);
  o.material.bend = field<double>(m, "bend", mctx, path);
  o.material.scaleBend = field<double>(m, "scaleBend", mctx, path);
  o.material.volume = field<double>(m, "volume", mctx, path);
  o.material.maxContraction = field<double>(m, "maxContraction", mctx, path);
  if (b.contains("paint"))
    for (int32_t v : blobs.read<int32_t>(b.at("paint"), 1, ctx + " paint")) {
      if (v < 0 || v > 2) throw InputError(path, ctx + ": unknown paint value " + std::to_string(v));
      o.paint.push_back(MusclePaint(v));
    }
  const auto first = blobs.read<int32_t>(field<json>(b, "rodFirst", ctx, path), 1, ctx + " rod offsets");
  const auto nodes = blobs.read<double>(field<json>(b, "nodes", ctx, path), 3, ctx + " nodes");
  const auto radii = blobs.read<double>(field<json>(b, "radii", ctx, path), 1, ctx + " radii");
  const size_t nNodes = nodes.size() / 3;
  if (first.empty() || first.front() != 0 || size_t(first.back()) != nNodes || radii.size() != nNodes)
    throw InputError(path, ctx + ": rod offsets, nodes and radii do not agree");
  std::vector<double> contractile;
  if (b.contains("contractile")) contractile = blobs.read<double>(b.at("contractile"), 1, ctx + " contractile weights");
  size_t segment = 0;
  for (size_t k = 0; k + 1 < first.size(); ++k) {
    if (first[k + 1] < first[k] + 2) throw InputError(path, ctx + ": rod " + std::to_string(k) + " has fewer than 2 nodes");
    RodBodyRod r;
    for (int32_t i = first[k]; i < first[k + 1]; ++i) {
      r.nodes.emplace_back(nodes[3 * size_t(i)], nodes[3 * size_t(i) + 1], nodes[3 * size_t(i) + 2]);
      r.radii.push_back(radii[size_t(i)]);
    }
    if (!contractile.empty())
      for (int32_t i = first[k]; i + 1 < first[k + 1]; ++i) {
        if (segment >= contractile.size()) throw InputError(path, ctx + ": too few contractile weights");
        r.contractile.push_back(contractile[segment++]);
      }
    o.rods.push_back(std::move(r));
  }
  if (!contractile.empty() && segment != contractile.size()) throw InputError(path, ctx + ": too many contractile weights");
  for (const json& bundle : field<json>(b, "bundles", ctx, path)) {
    std::vector<std::array<int32_t, 2>> members;
    if (!bundle.is_array()) throw InputError(path, ctx + ": a bundle is not a list");
    for (const json& member : bundle) {
      if (!member.is_array() || member.size() != 2 || !member[0].is_number_integer() || !member[1].is_number_integer())
        throw InputError(path, ctx + ": a bundle member is not [rod, node]");
      members.push_back({member[0].get<int32_t>(), member[1].get<int32_t>()});
    }
    o.bundles.push_back(std::move(members));
  }
  for (const json& pin : field<json>(b, "pins", ctx, path))
    o.pins.push_back({field<int32_t>(pin, "rod", ctx + " pin", path), field<int32_t>(pin, "node", ctx + " pin", path),
                      pin.value("bone", "")});
  return o;
}

Project projectFromJson(const json& j, const std::string& path) {
  BlobReader blobs(path);
  Project p;
  p.name = field<std::string>(j, "name", "project", path);
  p.nextId = field<ObjectId>(j, "nextId", "project", path);
  for (const json& m : field<json>(j, "meshes", "project", path)) {
    MeshObject o;
    o.id = field<ObjectId>(m, "id", "mesh", path);
    o.name = field<std::string>(m, "name", "mesh", path);
    const std::string ctx = "mesh '" + o.name + "'";
    o.source = m.value("source", "");
    o.color = m.contains("color") ? readVec3(m, "color", ctx, path) : Vec3(0.8, 0.8, 0.8);
    o.visible = m.value("visible", true);
    const auto pos = blobs.read<double>(field<json>(m, "positions", ctx, path), 3, ctx + " positions");
    const auto tri = blobs.read<int32_t>(field<json>(m, "triangles", ctx, path), 3, ctx + " triangles");
    o.mesh.positions.resize(pos.size() / 3);
    if (!pos.empty()) std::memcpy(static_cast<void*>(o.mesh.positions.data()), pos.data(), pos.size() * sizeof(double));
    o.mesh.triangles.resize(tri.size() / 3);
    if (!tri.empty()) std::memcpy(o.mesh.triangles.data(), tri.data(), tri.size() * sizeof(int32_t));
    if (m.contains("skin")) o.skin = skinFromJson(m.at("skin"), blobs, ctx + " skin", path);
    p.meshes.push_back(std::move(o));
  }
  if (j.contains("skeleton") && !j.at("skeleton").is_null()) {
    const json& s = j.at("skeleton");
    SkeletonObject so;
    so.id = field<ObjectId>(s, "id", "skeleton", path);
    so.name = field<std::string>(s, "name", "skeleton", path);
    for (const json& jt : field<json>(s, "joints", "skeleton", path)) {
      Joint joint;
      joint.name = field<std::string>(jt, "name", "skeleton joint", path);
      const std::string ctx = "joint '" + joint.name + "'";
      joint.parent = field<int32_t>(jt, "parent", ctx, path);
      joint.restLocal.translation = readVec3(jt, "translation", ctx, path);
      const auto q = field<std::vector<double>>(jt, "rotation", ctx, path);
      if (q.size() != 4) throw InputError(path, ctx + ": 'rotation' must be a quaternion [w,x,y,z]");
      joint.restLocal.rotation = Quat(q[0], q[1], q[2], q[3]);
      const std::string type = jt.value("type", "ball");
      if (type == "ball") joint.type = JointType::Ball;
      else if (type == "hinge") joint.type = JointType::Hinge;
      else if (type == "fixed") joint.type = JointType::Fixed;
      else throw InputError(path, ctx + ": unknown joint type '" + type + "'");
      if (jt.contains("hingeAxis")) joint.hingeAxis = readVec3(jt, "hingeAxis", ctx, path);
      if (jt.contains("simulated")) joint.simulated = field<bool>(jt, "simulated", ctx, path);
      if (jt.contains("limits")) {
        joint.limits.lower = readVec3(jt.at("limits"), "lower", ctx + " limits", path);
        joint.limits.upper = readVec3(jt.at("limits"), "upper", ctx + " limits", path);
      }
      if (jt.contains("bone")) {
        const json& b = jt.at("bone");
        const std::string shape = field<std::string>(b, "shape", ctx + " bone", path);
        if (shape == "capsule") {
          joint.bone = BoneShape::capsule(readVec3(b, "start", ctx, path), readVec3(b, "end", ctx, path),
                                          field<double>(b, "radius", ctx + " bone", path));
        } else if (shape == "box") {
          const auto o = field<std::vector<double>>(b, "orientation", ctx + " bone", path);
          if (o.size() != 4) throw InputError(path, ctx + ": bone 'orientation' must be a quaternion [w,x,y,z]");
          joint.bone = BoneShape::box(readVec3(b, "center", ctx, path), readVec3(b, "halfExtents", ctx, path),
                                      Quat(o[0], o[1], o[2], o[3]));
        } else {
          throw InputError(path, ctx + ": unknown bone shape '" + shape + "'");
        }
      }
      so.skeleton.joints.push_back(joint);
    }
    p.skeleton = std::move(so);
  }
  for (const json& c : field<json>(j, "clips", "project", path)) {
    ClipObject o;
    o.id = field<ObjectId>(c, "id", "clip", path);
    o.source = c.value("source", "");
    o.clip = clipFromJson(c, blobs, path);
    p.clips.push_back(std::move(o));
  }
  if (j.contains("controllers"))
    for (const json& c : j.at("controllers")) p.controllers.push_back(controllerFromJson(c, blobs, path));
  if (j.contains("volumes"))
    for (const json& v : j.at("volumes")) {
      VolumeObject o;
      o.id = field<ObjectId>(v, "id", "volume", path);
      o.name = field<std::string>(v, "name", "volume", path);
      const std::string ctx = "volume '" + o.name + "'";
      const std::string kind = field<std::string>(v, "kind", ctx, path);
      if (kind == "cage") o.kind = VolumeKind::Cage;
      else if (kind == "conforming") o.kind = VolumeKind::Conforming;
      else throw InputError(path, ctx + ": unknown kind '" + kind + "'");
      o.bones = field<std::vector<std::string>>(v, "bones", ctx, path);
      o.visible = v.value("visible", true);
      o.live = v.contains("live") && field<bool>(v, "live", ctx, path);
      if (o.live && o.kind != VolumeKind::Conforming)
        throw InputError(path, ctx + ": only a conforming mesh can be a live copy");
      o.surface = v.value("surface", ObjectId(0));
      const auto nodes = blobs.read<double>(field<json>(v, "nodes", ctx, path), 3, ctx + " nodes");
      const auto tets = blobs.read<int32_t>(field<json>(v, "tets", ctx, path), 4, ctx + " tets");
      o.mesh.nodes.resize(nodes.size() / 3);
      if (!nodes.empty()) std::memcpy(static_cast<void*>(o.mesh.nodes.data()), nodes.data(), nodes.size() * sizeof(double));
      o.mesh.tets.resize(tets.size() / 4);
      if (!tets.empty()) std::memcpy(o.mesh.tets.data(), tets.data(), tets.size() * sizeof(int32_t));
      if (v.contains("region")) o.mesh.region = blobs.read<int32_t>(v.at("region"), 1, ctx + " region");
      if (v.contains("fixedBone")) o.fixedBone = blobs.read<int32_t>(v.at("fixedBone"), 1, ctx + " fixed nodes");
      if (v.contains("embedding")) {
        const json& e = v.at("embedding");
        o.embedding.tet = blobs.read<int32_t>(field<json>(e, "tet", ctx, path), 1, ctx + " embedding tets");
        const auto w = blobs.read<double>(field<json>(e, "weights", ctx, path), 4, ctx + " embedding weights");
        o.embedding.weights.resize(w.size() / 4);
        if (!w.empty()) std::memcpy(o.embedding.weights.data(), w.data(), w.size() * sizeof(double));
        for (int32_t f : blobs.read<int32_t>(field<json>(e, "extrapolated", ctx, path), 1, ctx + " embedding flags"))
          o.embedding.extrapolated.push_back(f ? 1 : 0);
      }
      if (v.contains("weights")) o.weights = skinFromJson(v.at("weights"), blobs, ctx + " weight", path);
      p.volumes.push_back(std::move(o));
    }
  if (j.contains("rodBodies"))
    for (const json& b : field<json>(j, "rodBodies", "project", path)) p.rodBodies.push_back(rodBodyFromJson(b, blobs, path));
  // Optional (added within version 3): absent means the solver's defaults.
  if (j.contains("simulation") && !j.at("simulation").is_null()) {
    const json& s = j.at("simulation");
    if (s.contains("flesh")) p.simulation.flesh = readMaterial(s.at("flesh"), "simulation flesh", path);
    if (s.contains("regions"))
      for (const json& r : s.at("regions")) {
        RegionMaterial rm;
        rm.bone = field<std::string>(r, "bone", "simulation region", path);
        rm.material = readMaterial(r, "simulation region '" + rm.bone + "'", path);
        p.simulation.regions.push_back(std::move(rm));
      }
    if (s.contains("groundHeight")) p.simulation.groundHeight = field<double>(s, "groundHeight", "simulation", path);
    if (s.contains("groundFriction")) p.simulation.groundFriction = field<double>(s, "groundFriction", "simulation", path);
    if (s.contains("solvers")) {
      // The registry's parameter tables: every value checked there (name, finite, range, count).
      const json& solvers = s.at("solvers");
      if (!solvers.is_object()) throw InputError(path, "simulation: 'solvers' must be an object of solver names");
      for (const auto& [name, values] : solvers.items()) {
        const std::optional<SolverKind> kind = solverKindFromName(name);
        if (!kind) throw InputError(path, "simulation.solvers: '" + name + "' is not a solver (liu2013, li2019, viper, sheth2015)");
        if (!values.is_object()) throw InputError(path, "simulation.solvers." + name + " must be an object of parameter values");
        SolverParams params;
        for (const auto& [param, value] : values.items()) {
          if (!value.is_number()) throw InputError(path, "simulation.solvers." + name + "." + param + " must be a number");
          params[param] = value.get<double>();
        }
        try {
          validateParams(*kind, params);
        } catch (const InputError& e) {
          throw InputError(path, "simulation.solvers." + name + "." + e.file() + " " + e.problem());
        }
        p.simulation.solverParams[name] = std::move(params);
      }
    }
    // Files before version 0.9 kept Liu 2013's step as "timeStep"; it is the table's liu2013 dt now.
    if (s.contains("timeStep") && !p.simulation.solverParam("liu2013", "dt")) {
      const double dt = field<double>(s, "timeStep", "simulation", path);
      try {
        validateParams(SolverKind::Liu2013, {{"dt", dt}});
      } catch (const InputError& e) {
        throw InputError(path, "simulation.timeStep " + e.problem());
      }
      p.simulation.setSolverParam("liu2013", "dt", dt);
    }
    if (s.contains("colliders"))
      for (const json& c : field<json>(s, "colliders", "simulation", path)) {
        Collider col;
        col.name = field<std::string>(c, "name", "simulation collider", path);
        const std::string ctx = "simulation collider '" + col.name + "'";
        const auto shape = colliderShapeFromName(field<std::string>(c, "shape", ctx, path));
        if (!shape) throw InputError(path, ctx + ": unknown shape (expected sphere, box or capsule)");
        col.shape = *shape;
        col.center = readVec3(c, "center", ctx, path);
        col.rotationDegrees = readVec3(c, "rotationDegrees", ctx, path);
        col.size = readVec3(c, "size", ctx, path);
        col.friction = field<double>(c, "friction", ctx, path);
        p.simulation.colliders.push_back(std::move(col));
      }
  }
  p.validate(path);
  return p;
}

// ---------------------------------------------------------------------------
// Migration: each step takes a document of version N to version N+1.

// Version 1 (Sinew 0.0 development builds) kept every array inline, had no
// object ids, called positions/triangles "vertices"/"faces", stored skeleton
// joints as parent offsets without rotation, and had no motion clips.
void migrate1to2(json& j) {
  uint64_t nextId = 1;
  for (json& m : j["meshes"]) {
    m["id"] = nextId++;
    m["positions"] = m.value("vertices", json::array());
    m["triangles"] = m.value("faces", json::array());
    m.erase("vertices");
    m.erase("faces");
  }
  if (j.contains("skeleton") && !j["skeleton"].is_null()) {
    json& s = j["skeleton"];
    s["id"] = nextId++;
    if (!s.contains("name")) s["name"] = "skeleton";
    for (json& jt : s["joints"]) {
      jt["translation"] = jt.value("offset", json::array({0, 0, 0}));
      jt["rotation"] = json::array({1, 0, 0, 0});
      jt.erase("offset");
    }
  }
  if (!j.contains("clips")) j["clips"] = json::array();
  j["nextId"] = nextId;
  j["version"] = 2;
}

// Version 2 had no joint types, limits, bone shapes or volumes: the defaults
// (ball joints, no limits, no bone shapes, no volumes) are what it meant.
void migrate2to3(json& j) {
  if (!j.contains("volumes")) j["volumes"] = json::array();
  j["version"] = 3;
}

json parseDocument(const std::string& path) {
  const std::string text = readFileChecked(path);
  checkJsonNesting(text, path);  // before any recursion over the document
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw InputError(path, "not valid JSON (byte " + std::to_string(e.byte) + "): the file is truncated or corrupted");
  } catch (const json::exception& e) {  // a number out of range (1e309, 65,536 digits)
    throw InputError(path, std::string("not a readable JSON document: ") + e.what());
  }
  if (!j.is_object() || !j.contains("format") || !j.at("format").is_string() ||
      j.at("format").get<std::string>() != kProjectFormatName)
    throw InputError(path, "not a Sinew project (missing \"format\": \"sinew-project\")");
  if (!j.contains("version") || !j.at("version").is_number_integer())
    throw InputError(path, "project has no format version");
  return j;
}

}  // namespace

int projectFileVersion(const std::string& path) { return parseDocument(path).at("version").get<int>(); }

Project loadProject(const std::string& path, Diagnostics* outNotes) {
  // A save by another process finishes first (its clean-up would remove blobs the old document names).
  const FileLock lock(projectLockFile(path), false);
  json j = parseDocument(path);
  const int version = j.at("version").get<int>();
  if (version > kProjectFormatVersion)
    throw InputError(path, "was written by a newer Sinew (project format version " + std::to_string(version) +
                               "; this build reads versions up to " + std::to_string(kProjectFormatVersion) +
                               "). Update Sinew to open it; the file was not changed.");
  if (version < 1) throw InputError(path, "invalid project format version " + std::to_string(version));
  try {
    if (version < 2) {
      if (!j.contains("meshes")) j["meshes"] = json::array();
      migrate1to2(j);
      if (outNotes) outNotes->push_back({Severity::Info, path + ": migrated project format 1 -> 2"});
    }
    if (j.at("version").get<int>() < 3) {
      migrate2to3(j);
      if (outNotes) outNotes->push_back({Severity::Info, path + ": migrated project format 2 -> 3"});
    }
    Project p = projectFromJson(j, path);
    // Skins naming joints the skeleton no longer has (deleted or renamed
    // since the skin was made): loaded, with a warning; those weights move nothing.
    if (outNotes && p.skeleton)
      for (const MeshObject& m : p.meshes)
        if (m.skin)
          for (const std::string& bone : m.skin->bones)
            if (p.skeleton->skeleton.find(bone) < 0)
              outNotes->push_back({Severity::Warning, path + ": mesh '" + m.name + "': skin weights name bone '" + bone +
                                                          "', which the skeleton does not have (its weights move nothing; "
                                                          "bind the skin again to use them)"});
    return p;
  } catch (const json::exception& e) {
    throw InputError(path, std::string("malformed project document: ") + e.what());
  }
}

namespace {

void writeProjectFiles(const std::string& path, const std::string& dir, const json& doc, const BlobWriter& blobs,
                       const SaveOptions& options) {
  std::error_code ec;

  // 1. Blobs (content-addressed: an existing file with the right size is already this content).
  for (const auto& [name, bytes] : blobs.blobs()) {
    const std::string file = (fs::path(dir) / name).string();
    if (fs::exists(file, ec) && fs::file_size(file, ec) == bytes.size()) continue;
    writeFileAtomic(file, bytes, options.hook);
  }
  // 2. The document, atomically replacing the previous one.
  // Invalid UTF-8 (a file path from a foreign file system) is stored as U+FFFD rather than failing the save.
  writeFileAtomic(path, doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n", options.hook);
  // 3. Remove blobs no longer referenced (only files that look like our blobs),
  //    and temporaries left by saves that were killed mid-write.
  removeStaleTemporaries(dir);
  const fs::path target(path);
  removeStaleTemporaries(target.has_parent_path() ? target.parent_path().string() : ".",
                         hiddenName(path, ".tmp-"));
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (isBlobName(name) && !blobs.blobs().count(name)) fs::remove(entry.path(), ec);
  }
}

}  // namespace

void saveProject(const Project& project, const std::string& path, const SaveOptions& options) {
  // Refuse to overwrite a project written by a newer Sinew.
  std::error_code ec;
  if (fs::exists(path, ec)) {
    int existing = 0;
    try {
      existing = projectFileVersion(path);
    } catch (const InputError&) {
      existing = 0;  // not a readable project: it is replaced like any other file
    }
    if (existing > kProjectFormatVersion)
      throw InputError(path, "holds a project from a newer Sinew (format version " + std::to_string(existing) +
                                 "); refusing to overwrite it. Save under another name.");
  }
  (void)writableTarget(path);  // a directory or a device: refused before anything is written
  BlobWriter blobs;
  const json doc = projectToJson(project, blobs);
  const std::string dir = projectDataDir(path);
  const bool newDir = !fs::exists(dir, ec);
  fs::create_directories(dir, ec);
  if (ec) throw InputError(path, "cannot create data directory " + dir + ": " + ec.message());
  // One save at a time per project: another process's clean-up would remove this one's blobs.
  const FileLock lock(projectLockFile(path), true, options.lockWaitSeconds);
  try {
    writeProjectFiles(path, dir, doc, blobs, options);
  } catch (...) {
    if (newDir) fs::remove_all(dir, ec);  // no orphan data folder beside a project that was never written
    throw;
  }
}

}  // namespace sinew
