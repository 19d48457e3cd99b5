// sinew-cli's shorter subcommands (info, import, project-info, example, viperize,
// add-muscle, export, rig, export-tets) and their registration with the command-line
// parser (the table is in main.cpp); optimize and fit-feedback live in Optimize.cpp,
// simulate in Simulate.cpp.
// Contract and exit codes: Commands.h.
#include "Commands.h"
#include "Subcommands.h"

#include "core/Error.h"
#include "examples/Bars.h"
#include "examples/Humanoid.h"
#include "examples/ViperScenes.h"
#include "viper/Viperize.h"
#include "examples/ShethScenes.h"
#include "io/AssimpImport.h"
#include "io/FileUtil.h"
#include "io/ProjectFile.h"
#include "io/TetFiles.h"
#include "liu2013/Liu2013.h"
#include "rig/AutoJoints.h"
#include "rig/RigBuild.h"

#include <memory>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <set>

namespace sinew::cli {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

json toJson(const AssimpStats& s) {
  return {{"nodes", s.nodes},       {"maxDepth", s.maxDepth}, {"meshes", s.meshes},       {"animations", s.animations},
          {"textures", s.textures}, {"materials", s.materials}, {"cameras", s.cameras},  {"lights", s.lights},
          {"vertices", s.vertices}, {"faces", s.faces},       {"bones", s.bones},         {"animationChannels", s.animationChannels}};
}

json toJson(const MeshReport& r) {
  return {{"closed", r.closed()},
          {"manifold", r.manifold()},
          {"watertight", r.watertight()},
          {"components", r.componentCount},
          {"boundaryEdges", r.boundaryEdgeCount},
          {"nonManifoldEdges", r.nonManifoldEdgeCount},
          {"nonManifoldVertices", r.nonManifoldVertexCount},
          {"degenerateFaces", r.degenerateCount},
          {"misorientedEdges", r.misorientedEdgeCount},
          {"selfIntersections", r.selfIntersectionsChecked || r.selfIntersectionsGaveUp ? json(r.selfIntersectionCount) : json(nullptr)},
          {"unreferencedVertices", r.unreferencedVertices}};
}

json toJson(const MotionClip& c) {
  return {{"name", c.name},           {"joints", c.joints.size()},  {"channels", c.channelCount()},
          {"frames", c.frameCount},   {"frameTime", c.frameTime},   {"frameRate", c.frameRate()},
          {"duration", c.duration()}, {"units", c.units},           {"unitScale", c.unitScale}};
}

json toJson(const Skeleton& s) {
  json names = json::array();
  for (const Joint& j : s.joints) names.push_back(j.name);
  return {{"joints", s.size()}, {"names", names}};
}

json toJson(const Diagnostics& d) {
  json a = json::array();
  for (const Diagnostic& x : d) a.push_back({{"severity", severityName(x.severity)}, {"message", x.message}});
  return a;
}

void printDiagnostics(const Diagnostics& d, std::ostream& out) {
  for (const Diagnostic& x : d) out << "  " << severityName(x.severity) << ": " << x.message << "\n";
}

void saveChecked(const Project& p, const std::string& path) { saveProject(p, path); }

// The skeleton of a BVH or armature file, fitted to the joints placed in `surface`.
Skeleton fitSkeletonFile(const std::string& file, const TriMesh& surface, AutoJointReport* placed,
                         const std::string& name) {
  ImportOptions o;
  o.validate = false;
  ImportResult r = importFile(file, o);
  Skeleton s;
  if (r.skeleton) s = std::move(*r.skeleton);
  else if (!r.clips.empty()) s = r.clips.front().skeleton();
  else throw InputError(file, "has no skeleton (no armature, no BVH hierarchy)");
  return fitSkeletonToJoints(std::move(s), autoPlaceJoints(surface, {}, placed, Progress::none(), name), surface);
}

}  // namespace

size_t controllerIndex(const Project& project, const std::string& file, const std::string& name) {
  std::string names;
  for (size_t i = 0; i < project.controllers.size(); ++i) {
    if (project.controllers[i].name == name) return i;
    names += (names.empty() ? "" : ", ") + project.controllers[i].name;
  }
  throw InputError(file, "has no controller called '" + name + "' (controllers: " + (names.empty() ? "none" : names) + ")");
}

int info(const InfoArgs& args) {
  return guarded([&] {
    ImportOptions opt;
    opt.checkSelfIntersections = args.selfIntersections;
    if (args.scale > 0) opt.scale = opt.clipScale = args.scale;
    const ImportResult r = importFile(args.file, opt);
    size_t vertices = 0, faces = 0;
    json meshes = json::array();
    for (const ImportedMesh& m : r.meshes) {
      vertices += m.mesh.vertexCount();
      faces += m.mesh.triangleCount();
      json o{{"name", m.name},
             {"vertices", m.mesh.vertexCount()},
             {"faces", m.mesh.triangleCount()},
             {"sourceVertices", m.sourceVertices},
             {"weldedVertices", m.weldedVertices},
             {"skinBones", m.skin ? m.skin->bones.size() : 0},
             {"bindResidual", m.bindResidual}};
      const Aabb b = m.mesh.bounds();
      o["bounds"] = {{"min", {b.min.x(), b.min.y(), b.min.z()}}, {"max", {b.max.x(), b.max.y(), b.max.z()}}};
      if (m.report) o["validation"] = toJson(*m.report);
      meshes.push_back(o);
    }
    if (args.json) {
      json j{{"file", args.file},
             {"format", r.format},
             {"scale", r.scale},
             {"upAxis", r.upAxis},
             {"assimp", toJson(r.assimp)},
             {"meshes", meshes},
             {"totals", {{"meshes", r.meshes.size()}, {"vertices", vertices}, {"faces", faces}}},
             {"skeleton", r.skeleton ? toJson(*r.skeleton) : json(nullptr)},
             {"clips", json::array()},
             {"diagnostics", toJson(r.diagnostics)}};
      for (const MotionClip& c : r.clips) j["clips"].push_back(toJson(c));
      j["volumes"] = json::array();
      for (const VolumeObject& v : r.volumes)
        j["volumes"].push_back({{"name", v.name}, {"kind", volumeKindName(v.kind)}, {"nodes", v.mesh.nodeCount()},
                                {"tets", v.mesh.tetCount()}, {"bones", v.bones}});
      std::cout << j.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
      return int(kOk);
    }
    std::cout << args.file << " (" << r.format << ", " << r.scale << " m per unit, " << r.upAxis << " up)\n";
    std::cout << "  assimp: " << r.assimp.nodes << " nodes, " << r.assimp.meshes << " meshes, " << r.assimp.vertices
              << " vertices, " << r.assimp.faces << " faces, " << r.assimp.bones << " bones, " << r.assimp.animations
              << " animations, " << r.assimp.animationChannels << " channels\n";
    for (const ImportedMesh& m : r.meshes) {
      std::cout << "  mesh '" << m.name << "': " << m.mesh.vertexCount() << " vertices (" << m.weldedVertices
                << " welded), " << m.mesh.triangleCount() << " faces";
      if (m.skin) std::cout << ", skinned to " << m.skin->bones.size() << " bones (bind-pose residual " << m.bindResidual << " m)";
      std::cout << "\n";
    }
    if (r.skeleton) {
      std::set<std::string> skinBones;
      for (const ImportedMesh& m : r.meshes)
        if (m.skin) skinBones.insert(m.skin->bones.begin(), m.skin->bones.end());
      std::cout << "  skeleton: " << r.skeleton->size() << " joints, " << skinBones.size() << " of them skin bones";
      if (r.skeleton->size() > skinBones.size()) std::cout << " (the others are nodes between bones)";
      std::cout << "\n";
    }
    for (const VolumeObject& v : r.volumes)
      std::cout << "  tet mesh '" << v.name << "': " << v.mesh.nodeCount() << " nodes, " << v.mesh.tetCount() << " tets, "
                << v.bones.size() << " bone regions\n";
    for (const MotionClip& c : r.clips) {
      std::printf("  clip '%s': %zu joints, %d channels, %d frames at %.6g Hz, %.4g s, units %s (%.6g m)\n",
                  c.name.c_str(), c.joints.size(), c.channelCount(), c.frameCount, c.frameRate(), c.duration(),
                  c.units.c_str(), c.unitScale);
      std::fflush(stdout);
    }
    if (!r.diagnostics.empty()) {
      std::cout << "  validation and warnings:\n";
      printDiagnostics(r.diagnostics, std::cout);
    }
    return int(kOk);
  });
}

int importFiles(const ImportArgs& args) {
  return guarded([&] {
    checkOutputPath(args.output, args.files, args.append ? args.output : std::string());
    Project project;
    const bool exists = fs::exists(args.output);
    if (exists && !args.append && !args.overwrite)
      throw InputError(args.output, "already exists (use --append to add to it or --overwrite to replace it)");
    if (exists && args.append) project = loadProject(args.output);
    else project.name = fs::path(args.output).stem().string();
    ImportOptions opt;
    if (args.scale > 0) opt.scale = opt.clipScale = args.scale;
    opt.grouping = args.merge ? MeshGrouping::All : args.separate ? MeshGrouping::Separate : MeshGrouping::BodyParts;
    opt.weld = args.weld;
    Diagnostics diags;
    for (const std::string& f : args.files) {
      ImportResult r = importFile(f, opt);
      diags.insert(diags.end(), r.diagnostics.begin(), r.diagnostics.end());
      const auto ids = addToProject(project, std::move(r), diags);
      std::cout << f << ": imported " << ids.size() << " object(s)\n";
    }
    saveChecked(project, args.output);
    printDiagnostics(diags, std::cerr);
    std::cout << "wrote " << args.output << " (" << project.objectCount() << " objects)\n";
    return int(kOk);
  });
}

int projectInfo(const ProjectInfoArgs& args) {
  return guarded([&] {
    Diagnostics notes;
    const Project p = loadProject(args.project, &notes);
    const int version = projectFileVersion(args.project);
    if (args.json) {
      json meshes = json::array();
      for (const MeshObject& m : p.meshes)
        meshes.push_back({{"id", m.id},
                          {"name", m.name},
                          {"vertices", m.mesh.vertexCount()},
                          {"faces", m.mesh.triangleCount()},
                          {"skinned", bool(m.skin)},
                          {"source", m.source}});
      json clips = json::array();
      for (const ClipObject& c : p.clips) {
        json o = toJson(c.clip);
        o["id"] = c.id;
        clips.push_back(o);
      }
      json volumes = json::array();
      for (const VolumeObject& v : p.volumes) {
        size_t fixed = 0;
        for (int32_t b : v.fixedBone) fixed += b >= 0;
        volumes.push_back({{"id", v.id},
                           {"name", v.name},
                           {"kind", volumeKindName(v.kind)},
                           {"live", v.live},
                           {"nodes", v.mesh.nodeCount()},
                           {"tets", v.mesh.tetCount()},
                           {"bones", v.bones},
                           {"fixedNodes", fixed},
                           {"embeds", v.surface ? json(p.objectName(v.surface)) : json(nullptr)},
                           {"extrapolatedVertices", v.embedding.extrapolatedCount()},
                           {"hasWeights", bool(v.weights)}});
      }
      json controllers = json::array();
      for (const ControllerObject& c : p.controllers)
        controllers.push_back({{"id", c.id},
                               {"name", c.name},
                               {"clip", c.sourceClip},
                               {"start", c.start},
                               {"end", c.end},
                               {"windows", c.windows.size()},
                               {"duration", c.duration()},
                               {"feedback", !c.feedback.empty()}});
      json j{{"project", args.project},
             {"name", p.name},
             {"formatVersion", version},
             {"meshes", meshes},
             {"volumes", volumes},
             {"controllers", controllers},
             {"skeleton", p.skeleton ? toJson(p.skeleton->skeleton) : json(nullptr)},
             {"clips", clips},
             {"notes", toJson(notes)}};
      std::cout << j.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
      return int(kOk);
    }
    std::cout << args.project << ": project '" << p.name << "' (format version " << version << ")\n";
    for (const MeshObject& m : p.meshes)
      std::cout << "  mesh '" << m.name << "': " << m.mesh.vertexCount() << " vertices, " << m.mesh.triangleCount()
                << " faces" << (m.skin ? ", skinned" : "") << "\n";
    if (p.skeleton)
      std::cout << "  skeleton '" << p.skeleton->name << "': " << p.skeleton->skeleton.size() << " joints\n";
    for (const ClipObject& c : p.clips)
      std::cout << "  clip '" << c.clip.name << "': " << c.clip.frameCount << " frames, " << c.clip.duration()
                << " s\n";
    for (const VolumeObject& v : p.volumes)
      std::cout << "  volume '" << v.name << "' (" << volumeKindName(v.kind) << (v.live ? ", live copy" : "")
                << "): " << v.mesh.nodeCount() << " nodes, "
                << v.mesh.tetCount() << " tets, " << v.bones.size() << " bones" << (v.weights ? ", weights" : "") << "\n";
    for (const ControllerObject& c : p.controllers)
      std::cout << "  controller '" << c.name << "': clip '" << c.sourceClip << "' " << c.start << "-" << c.end << " s, "
                << c.windows.size() << " windows, " << c.duration() << " s simulated"
                << (c.feedback.empty() ? "" : ", feedback") << "\n";
    printDiagnostics(notes, std::cout);
    return int(kOk);
  });
}

int example(const ExampleArgs& args) {
  return guarded([&] {
    if (args.name != "humanoid" && args.name != "humanoid-rigged" && args.name != "bar" && args.name != "chain" &&
        args.name != "octopus" && args.name != "band" && args.name != "arm" && args.name != "free-body" &&
        args.name != "fish" && args.name != "pachinko")
      throw InputError("", "unknown example '" + args.name + "' (available: humanoid, humanoid-rigged, bar, chain, octopus, band, arm, "
                           "free-body, fish, pachinko)");
    if (fs::exists(args.output) && !args.overwrite)
      throw InputError(args.output, "already exists (use --overwrite to replace it)");
    if (args.name == "octopus" || args.name == "band" || args.name == "arm") {
      const Project p = args.name == "octopus" ? examples::makeOctopusProject(args.count)
                        : args.name == "band"  ? examples::makeBandProject()
                                               : examples::makeArmProject();
      if (fs::path(args.output).has_parent_path()) fs::create_directories(fs::path(args.output).parent_path());
      saveChecked(p, args.output);
      size_t rods = 0, segments = 0;
      for (const RodBodyObject& b : p.rodBodies) rods += b.rods.size(), segments += b.segmentCount();
      std::cout << "wrote " << args.output << ": " << p.rodBodies.size() << " rod bod" << (p.rodBodies.size() == 1 ? "y" : "ies")
                << ", " << rods << " rods, " << segments << " pills, surface of " << p.meshes[0].mesh.vertexCount()
                << " vertices (simulate it with --solver viper)\n";
      return int(kOk);
    }
    if (args.name == "free-body" || args.name == "fish" || args.name == "pachinko") {
      const double spacing = args.spacing > 0 ? args.spacing : 0.012;
      const Project p = args.name == "free-body" ? examples::makeFreeBodyProject(spacing)
                        : args.name == "fish"    ? examples::makeFishProject(spacing)
                                                 : examples::makePachinkoProject(args.cageNodes);
      if (fs::path(args.output).has_parent_path()) fs::create_directories(fs::path(args.output).parent_path());
      saveChecked(p, args.output);
      std::cout << "wrote " << args.output << ": surface of " << p.meshes[0].mesh.vertexCount() << " vertices, volume of "
                << p.volumes[0].mesh.nodeCount() << " nodes and " << p.volumes[0].mesh.tetCount() << " tets, "
                << p.skeleton->skeleton.size() << " bone(s), " << p.simulation.colliders.size()
                << " collider(s) (simulate it with --solver sheth2015)\n";
      return int(kOk);
    }
    if (args.name == "bar" || args.name == "chain") {
      // Li et al. 2019's bar (two bones, one joint) and a long creature with a
      // chain of nine bones, 0.5 m above the ground (sim/examples/Bars.h).
      examples::GridBox box;
      int bones = 2;
      if (args.name == "chain") {
        box.size = Vec3(3.0, 0.5, 0.5);
        box.cellsX = 60;
        box.cellsY = box.cellsZ = 10;
        bones = 9;
      }
      const Project p = examples::makeBarProject(examples::chainScene(bones, box), args.name, 0.5);
      if (fs::path(args.output).has_parent_path()) fs::create_directories(fs::path(args.output).parent_path());
      saveChecked(p, args.output);
      std::cout << "wrote " << args.output << ": " << p.volumes[0].mesh.nodeCount() << " nodes, "
                << p.volumes[0].mesh.tetCount() << " tets, " << bones << " bones, "
                << p.skeleton->skeleton.size() - 1 << " joints (simulate it with --solver li2019)\n";
      return int(kOk);
    }
    HumanoidOptions options;
    if (args.spacing > 0) options.gridSpacing = args.spacing;
    const Project p = args.name == "humanoid" ? makeHumanoidProject(options) : makeRiggedHumanoidProject(options);
    if (fs::path(args.output).has_parent_path()) fs::create_directories(fs::path(args.output).parent_path());
    saveChecked(p, args.output);
    std::cout << "wrote " << args.output << ": " << p.meshes[0].mesh.vertexCount() << " vertices, "
              << p.meshes[0].mesh.triangleCount() << " faces, " << p.skeleton->skeleton.size() << " joints\n";
    return int(kOk);
  });
}

int viperize(const ViperizeArgs& args) {
  return guarded([&] {
    checkOutputPath(args.output, {args.project}, args.project);
    Project p = loadProject(args.project);
    RodBodyObject* body = nullptr;
    for (RodBodyObject& b : p.rodBodies)
      if (b.name == args.muscle) body = &b;
    if (body && args.rods > 0) body->rodCount = args.rods;
    if (body && args.slices > 0) body->sliceCount = args.slices;
    viper::ViperizeOptions o;
    o.seed = args.seed;
    std::string lastStage;
    const Progress progress([&](double f, std::string_view stage) {
      if (stage != lastStage) {
        std::cerr << "viperize: " << stage << " (" << int(std::lround(100 * f)) << "%)" << std::endl;
        lastStage = std::string(stage);
      }
    });
    viper::ViperizeResult r;
    try {
      r = viper::viperizeBody(p, args.muscle, o, progress);
    } catch (const InputError& e) {
      throw InputError(args.project, e.what());
    }
    const std::string out = args.output.empty() ? args.project : args.output;
    saveChecked(p, out);
    const int K = int(r.rods.size()), M = int(r.slices.size());
    if (args.json) {
      nlohmann::json j{{"muscle", args.muscle}, {"rods", K}, {"slices", M}, {"tet_nodes", r.mesh.nodeCount()},
                       {"tets", r.mesh.tetCount()}, {"muscle_volume_m3", r.muscleVolume}, {"rod_volume_m3", r.rodVolume},
                       {"inside_fraction", r.insideFraction}, {"seconds", r.seconds}, {"output", out}};
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << "viperized '" << args.muscle << "': " << K << " rods x " << M << " nodes from " << r.mesh.tetCount()
                << " tets in " << r.seconds << " s; " << int(std::lround(100 * r.insideFraction))
                << "% of node spheres inside the surface; rods hold " << int(std::lround(100 * r.rodVolume / r.muscleVolume))
                << "% of the muscle's volume (their density carries all its mass); wrote " << out << "\n";
    }
    return int(kOk);
  });
}

int addMuscle(const AddMuscleArgs& args) {
  return guarded([&] {
    checkOutputPath(args.output, {args.project, args.mesh}, args.project);
    Project p = loadProject(args.project);
    viper::AddMuscleOptions o;
    o.name = args.name;
    o.originBone = args.origin;
    o.insertionBone = args.insertion;
    o.mesh = args.mesh;
    o.belly = args.belly;
    if (args.side.size() == 3) o.side = Vec3(args.side[0], args.side[1], args.side[2]);
    o.paintReach = args.paintReach;
    o.rods = args.rods;
    o.slices = args.slices;
    try {
      const RodBodyObject& body = viper::addMuscle(p, o);
      size_t sources = 0, sinks = 0;
      for (MusclePaint m : body.paint) sources += m == MusclePaint::Source, sinks += m == MusclePaint::Sink;
      std::cout << "added muscle '" << body.name << "' from " << body.originBone << " to " << body.insertionBone << " ("
                << body.paint.size() << " surface vertices, " << sources << " painted as sources, " << sinks << " as sinks)\n";
      if (args.viperize) {
        const viper::ViperizeResult r = viper::viperizeBody(p, args.name, {});
        std::cout << "viperized: " << r.rods.size() << " rods x " << r.slices.size() << " nodes, "
                  << int(std::lround(100 * r.insideFraction)) << "% of node spheres inside\n";
      }
    } catch (const InputError& e) {
      throw InputError(args.project, e.what());
    }
    const std::string out = args.output.empty() ? args.project : args.output;
    saveChecked(p, out);
    std::cout << "wrote " << out << "\n";
    return int(kOk);
  });
}

int exportMeshes(const ExportArgs& args) {
  return guarded([&] {
    checkOutputPath(args.output, {args.project});
    const Project p = loadProject(args.project);
    std::vector<const MeshObject*> meshes;
    for (const MeshObject& m : p.meshes)
      if (args.meshes.empty() || std::find(args.meshes.begin(), args.meshes.end(), m.name) != args.meshes.end())
        meshes.push_back(&m);
    for (const std::string& name : args.meshes) {
      bool found = false;
      for (const MeshObject& m : p.meshes) found |= m.name == name;
      if (!found) throw InputError(args.project, "has no mesh named '" + name + "'");
    }
    sinew::exportMeshes(meshes, args.output);
    std::cout << "wrote " << args.output << " (" << meshes.size() << " mesh(es))\n";
    return int(kOk);
  });
}

namespace {
json toJson(const TetQuality& q) {
  return {{"nodes", q.nodeCount},          {"tets", q.tetCount},
          {"inverted", q.invertedCount},   {"slivers", q.sliverCount},
          {"volume", q.totalVolume},       {"minDihedralDeg", q.minDihedralDeg},
          {"maxDihedralDeg", q.maxDihedralDeg}, {"maxRadiusEdge", q.maxRadiusEdge},
          {"meanRadiusEdge", q.meanRadiusEdge}, {"worstTets", q.worst}};
}
json perBone(const std::vector<size_t>& counts, const std::vector<std::string>& bones) {
  json o = json::object();
  for (size_t i = 0; i < counts.size() && i < bones.size(); ++i) o[bones[i]] = counts[i];
  return o;
}
}  // namespace

int rig(const RigArgs& args) {
  return guarded([&] {
    checkOutputPath(args.output, {args.project, args.skeleton == "auto" ? std::string() : args.skeleton}, args.project);
    if (fs::exists(args.output) && !args.overwrite && fs::absolute(args.output) != fs::absolute(args.project))
      throw InputError(args.output, "already exists (use --overwrite to replace it)");
    Project project = loadProject(args.project);
    if (!args.skeleton.empty()) {
      if (project.skeleton)
        throw InputError(args.project, "already has a skeleton; --skeleton places one in a bare mesh");
      if (project.meshes.empty()) throw InputError(args.project, "has no mesh to place joints in");
      const MeshObject& mesh = project.meshes.front();
      AutoJointReport placed;
      SkeletonObject so;
      so.id = project.allocateId();
      so.name = mesh.name + " skeleton";
      so.skeleton = args.skeleton == "auto" ? autoPlaceJoints(mesh.mesh, {}, &placed, Progress::none(), mesh.name)
                                            : fitSkeletonFile(args.skeleton, mesh.mesh, &placed, mesh.name);
      project.skeleton = std::move(so);
      std::printf("%s: placed %zu joints in '%s' (standing along %s, %.2f s)\n", args.project.c_str(),
                  project.skeleton->skeleton.size(), mesh.name.c_str(), placed.upAxis.c_str(), placed.seconds);
    }
    RigBuildOptions opt;
    opt.cageNodes = args.cageNodes;
    opt.regions = args.regions;
    opt.regionVertices = args.regionVertices;
    opt.live = args.liveVertices > 0;
    if (opt.live) opt.liveVertices = args.liveVertices;
    opt.rebuild = args.rebuild;
    if (args.weights == "none") opt.weights = false;
    else if (args.weights == "harmonic") opt.method = WeightMethod::Harmonic;
    else if (args.weights != "bbw") throw InputError("", "--weights must be bbw, harmonic or none");
    const RigBuildResult r = buildRig(project, 0, opt);
    applyRigBuild(project, r);
    // A new cage: the largest step at which the character falls onto the ground and stays stable.
    std::optional<liu2013::StepChoice> step;
    if (args.stabilityCheck && r.report.cage && r.report.weights) {
      step = liu2013::chooseStableStep(project);
      const double standard = liu2013::Settings{}.dt;
      project.simulation.setSolverParam("liu2013", "dt", step->dt < standard ? std::optional<double>(step->dt) : std::nullopt);
    }
    saveProject(project, args.output);
    const RigBuildReport& rep = r.report;
    std::vector<std::string> bones;
    for (const VolumeObject& v : r.volumes) bones = v.bones;
    if (args.json) {
      json j{{"project", args.output}, {"mesh", project.objectName(r.mesh)}, {"boneShapesAssigned", rep.boneShapesAssigned}};
      j["cage"] = nullptr;
      if (rep.cage) {
        const CageReport& c = *rep.cage;
        j["cage"] = {{"nodes", c.nodes},
                     {"tets", c.tets},
                     {"cageSurfaceVertices", c.cageVertices},
                     {"fixedNodes", c.fixedNodes},
                     {"fixedPerBone", perBone(c.fixedPerBone, bones)},
                     {"extrapolatedVertices", c.extrapolatedVertices},
                     {"quality", toJson(c.quality)},
                     {"seconds", {{"hull", c.hullSeconds}, {"simplify", c.simplifySeconds}, {"tetgen", c.tetgenSeconds},
                                  {"embed", c.embedSeconds}, {"total", c.totalSeconds}}}};
      }
      auto regionsJson = [&](const std::optional<RegionMeshReport>& report) {
        if (!report) return json(nullptr);
        const RegionMeshReport& g = *report;
        return json{{"nodes", g.nodes},
                    {"tets", g.tets},
                    {"fleshTets", g.fleshTets},
                    {"tetsPerBone", perBone(g.tetsPerBone, bones)},
                    {"extrapolatedVertices", g.extrapolatedVertices},
                    {"quality", toJson(g.quality)},
                    {"seconds", g.totalSeconds}};
      };
      j["regions"] = regionsJson(rep.regions);
      j["liveRegions"] = regionsJson(rep.liveRegions);
      j["weights"] = nullptr;
      if (rep.weights) {
        const BoneWeightsResult& w = *rep.weights;
        j["weights"] = {{"method", weightMethodName(opt.method)},
                        {"bones", w.weights.cols()},
                        {"nodes", w.weights.rows()},
                        {"iterations", w.totalIterations},
                        {"maxResidual", w.maxResidual},
                        {"partitionDefect", w.partitionDefect},
                        {"seconds", w.seconds},
                        {"surface", {{"vertices", rep.weightedVertices},
                                     {"maxPartitionError", rep.maxPartitionError},
                                     {"minWeight", rep.minWeight},
                                     {"maxWeight", rep.maxWeight}}}};
      }
      j["totalSeconds"] = rep.totalSeconds;
      j["lift"] = r.lift;
      j["timeStep"] = step ? json(step->dt) : json(nullptr);
      j["diagnostics"] = toJson(rep.diagnostics);
      std::cout << j.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
      return int(kOk);
    }
    std::cout << args.output << ": rig of '" << project.objectName(r.mesh) << "'\n";
    if (rep.boneShapesAssigned) std::cout << "  bone shapes: assigned defaults\n";
    if (rep.cage)
      std::printf("  cage: %zu nodes, %zu tets, %zu fixed nodes, dihedral %.1f-%.1f deg, %.2f s\n", rep.cage->nodes,
                  rep.cage->tets, rep.cage->fixedNodes, rep.cage->quality.minDihedralDeg, rep.cage->quality.maxDihedralDeg,
                  rep.cage->totalSeconds);
    for (const auto& [what, report] : {std::pair{"conforming mesh", &rep.regions}, std::pair{"live copy", &rep.liveRegions}})
      if (*report)
        std::printf("  %s: %zu nodes, %zu tets (%zu flesh), dihedral %.1f-%.1f deg, %.2f s\n", what, (*report)->nodes,
                    (*report)->tets, (*report)->fleshTets, (*report)->quality.minDihedralDeg,
                    (*report)->quality.maxDihedralDeg, (*report)->totalSeconds);
    if (rep.weights)
      std::printf("  weights (%s): %lld bones, %d iterations, partition of unity within %.1e, %.2f s\n",
                  weightMethodName(opt.method), (long long)rep.weights->weights.cols(), rep.weights->totalIterations,
                  rep.maxPartitionError, rep.weights->seconds);
    if (step) {
      std::printf("  time step: %.4g ms (a fall onto the ground ran stable)\n", step->dt * 1000);
      for (const std::string& f : step->failures) std::printf("    a larger step failed: %s\n", f.c_str());
    }
    std::fflush(stdout);
    printDiagnostics(rep.diagnostics, std::cout);
    return int(kOk);
  });
}

int exportTets(const ExportTetsArgs& args) {
  return guarded([&] {
    checkOutputPath(args.output, {args.project});
    checkOutputPath(fs::path(args.output).replace_extension(".joint").string(), {args.project});
    const Project p = loadProject(args.project);
    const VolumeObject* v = nullptr;
    for (const VolumeObject& x : p.volumes)
      if (args.volume.empty() || x.name == args.volume) {
        v = &x;
        break;
      }
    if (!v) throw InputError(args.project, args.volume.empty() ? "has no volume" : "has no volume named '" + args.volume + "'");
    writeMedit(args.output, v->mesh);
    std::cout << "wrote " << args.output << " (" << v->mesh.nodeCount() << " nodes, " << v->mesh.tetCount() << " tets)\n";
    if (v->kind == VolumeKind::Conforming && p.skeleton) {
      JointFile jf;
      jf.bones = v->bones;
      jf.joints = regionJoints(p.skeleton->skeleton, v->bones);
      const std::string jointPath = (fs::path(args.output).replace_extension(".joint")).string();
      writeJointFile(jointPath, jf);
      std::cout << "wrote " << jointPath << " (" << jf.bones.size() << " bones, " << jf.joints.size() << " joints)\n";
    }
    return int(kOk);
  });
}

// ---------------------------------------------------------------------------
// Registration with the command-line parser (the table in main.cpp).

Subcommand addInfo(CLI::App& app) {
  auto a = std::make_shared<InfoArgs>();
  auto* info = app.add_subcommand("info", "Show meshes, skeleton, animations and validation of a mesh or BVH file");
  info->add_option("file", a->file, "Mesh or motion file")->required();
  info->add_flag("--json", a->json, "Print JSON");
  info->add_flag("!--no-self-intersections", a->selfIntersections, "Skip the self-intersection check");
  info->add_option("--scale", a->scale, "Metres per file unit (default: meshes as they are, BVH units detected)")
      ->check(CLI::PositiveNumber);
  return {info, [a] { return sinew::cli::info(*a); }};
}

Subcommand addImport(CLI::App& app) {
  auto a = std::make_shared<ImportArgs>();
  auto* imp = app.add_subcommand("import", "Import files into a project");
  imp->add_option("files", a->files, "Mesh or BVH files")->required();
  imp->add_option("-o,--output", a->output, "Project file to write (.sinew)")->required();
  imp->add_option("--scale", a->scale, "Metres per file unit (default: meshes as they are, BVH units detected)")
      ->check(CLI::PositiveNumber);
  auto* mergeAll = imp->add_flag("--merge", a->merge, "Merge all meshes of a file into one object");
  imp->add_flag("--separate", a->separate,
                "Keep every mesh of a file apart (default: skinned body parts join into one body, small parts follow)")
      ->excludes(mergeAll);
  imp->add_flag("!--no-weld", a->weld, "Keep duplicate vertices");
  auto* append = imp->add_flag("--append", a->append, "Add to an existing project");
  imp->add_flag("--overwrite", a->overwrite, "Replace an existing project")->excludes(append);
  return {imp, [a] { return importFiles(*a); }};
}

Subcommand addProjectInfo(CLI::App& app) {
  auto a = std::make_shared<ProjectInfoArgs>();
  auto* pinfo = app.add_subcommand("project-info", "Summarise a project file");
  pinfo->add_option("project", a->project, "Project file (.sinew)")->required();
  pinfo->add_flag("--json", a->json, "Print JSON");
  return {pinfo, [a] { return projectInfo(*a); }};
}

Subcommand addExample(CLI::App& app) {
  auto a = std::make_shared<ExampleArgs>();
  auto* ex = app.add_subcommand("example", "Generate an example project");
  ex->add_option("name", a->name, "Example name: humanoid, humanoid-rigged (cage, weights and motion clips: ready to simulate), bar or chain (Li et al. 2019 scenes: simulate with --solver li2019), octopus, band or arm (VIPER scenes: simulate with --solver viper), free-body, fish or pachinko (Sheth et al. 2015 scenes: simulate with --solver sheth2015)")->required();
  ex->add_option("-o,--output", a->output, "Project file to write")->required();
  ex->add_flag("--overwrite", a->overwrite, "Replace an existing file");
  ex->add_option("--count", a->count, "octopus: how many octopi (default 1)")->check(CLI::Range(1, 10000));
  ex->add_option("--cage-nodes", a->cageNodes, "pachinko: the character's volume resolution (default 1200)")->check(CLI::Range(100, 200000));
  ex->add_option("--spacing", a->spacing, "Surface resolution: grid cell size in metres (humanoid: default 0.028; free-body, fish: 0.012)")
      ->check(CLI::Range(0.004, 0.2));
  return {ex, [a] { return example(*a); }};
}

Subcommand addExport(CLI::App& app) {
  auto a = std::make_shared<ExportArgs>();
  auto* exp = app.add_subcommand("export", "Export a project's meshes (format from the extension)");
  exp->add_option("project", a->project, "Project file (.sinew)")->required();
  exp->add_option("-o,--output", a->output, "Output file (.obj, .stl, .ply, .glb, .gltf, .dae, ...)")->required();
  exp->add_option("--mesh", a->meshes, "Mesh name(s) to export (default: all)");
  return {exp, [a] { return exportMeshes(*a); }};
}

Subcommand addRig(CLI::App& app) {
  auto a = std::make_shared<RigArgs>();
  auto* rigCmd = app.add_subcommand("rig", "Build what a project's rig is missing: bone shapes, cage, regions, weights");
  rigCmd->add_option("project", a->project, "Project file (.sinew)")->required();
  rigCmd->add_option("-o,--output", a->output, "Project file to write (may be the input)")->required();
  rigCmd->add_option("--cage-nodes", a->cageNodes, "Target number of cage nodes")->check(CLI::Range(50, 200000));
  rigCmd->add_flag("--regions", a->regions, "Also build the conforming mesh with bone regions (Li 2019)");
  rigCmd->add_option("--region-vertices", a->regionVertices,
                     "The conforming mesh's resolution: its exterior simplified to about this many vertices (default "
                     "2000; e.g. 400, with --iterations 5, for a mesh Li 2019 steps in real time; the full surface stays "
                     "embedded)")
      ->check(CLI::Range(100, 1000000));
  rigCmd->add_option("--live-vertices", a->liveVertices,
                     "Also build a live copy of the conforming mesh, its exterior simplified to about this many "
                     "vertices (e.g. 400), kept beside the full one: simulate --solver li2019 --live 1 runs it, "
                     "the default run and export keep the full mesh")
      ->check(CLI::Range(100, 1000000));
  rigCmd->add_option("--weights", a->weights, "Weights: bbw (bounded biharmonic), harmonic or none")
      ->check(CLI::IsMember({"bbw", "harmonic", "none"}));
  rigCmd->add_flag("--rebuild", a->rebuild, "Rebuild the parts even if present");
  rigCmd->add_flag("--json", a->json, "Print JSON");
  rigCmd->add_flag("--overwrite", a->overwrite, "Replace an existing output file");
  rigCmd->add_option("--skeleton", a->skeleton,
                     "For a mesh without a skeleton: 'auto' places a 19-joint CMU-named skeleton in the mesh (T- or "
                     "A-pose humanoid), or a BVH/armature file whose skeleton is fitted to those joints");
  rigCmd->add_flag("!--no-stability-check", a->stabilityCheck,
                   "Skip the fall test that finds the Liu 2013 time step a new cage is stable at");
  return {rigCmd, [a] { return rig(*a); }};
}

Subcommand addExportTets(CLI::App& app) {
  auto a = std::make_shared<ExportTetsArgs>();
  auto* tets = app.add_subcommand("export-tets", "Write a project's volume as a Medit .mesh (+ .joint for bone regions)");
  tets->add_option("project", a->project, "Project file (.sinew)")->required();
  tets->add_option("-o,--output", a->output, "Output .mesh file")->required();
  tets->add_option("--volume", a->volume, "Volume name (default: the first)");
  return {tets, [a] { return exportTets(*a); }};
}

Subcommand addViperize(CLI::App& app) {
  auto a = std::make_shared<ViperizeArgs>();
  auto* vip = app.add_subcommand("viperize", "Turn a painted muscle into VIPER rods (Angles et al. 2019, Section 8.1)");
  vip->add_option("project", a->project, "Project file (.sinew)")->required();
  vip->add_option("--muscle", a->muscle, "The muscle: a rod body of the project with a painted surface")->required();
  vip->add_option("--rods", a->rods, "K: rods (default: the muscle's, 5 when new)")->check(CLI::Range(1, 64));
  vip->add_option("--slices", a->slices, "M: slices, i.e. nodes per rod (default: the muscle's, 8 when new)")->check(CLI::Range(2, 200));
  vip->add_option("--seed", a->seed, "Seed of the slice sampling (default 1)");
  vip->add_option("-o,--output", a->output, "Project file to write (default: the input)");
  vip->add_flag("--json", a->json, "Print a JSON summary");
  return {vip, [a] { return viperize(*a); }};
}

Subcommand addAddMuscle(CLI::App& app) {
  auto a = std::make_shared<AddMuscleArgs>();
  auto* am = app.add_subcommand("add-muscle", "Add a muscle between two bones (a generated spindle, or a mesh of the project), painted at its ends");
  am->add_option("project", a->project, "Project file (.sinew) with a skeleton")->required();
  am->add_option("--name", a->name, "The muscle's name")->required();
  am->add_option("--origin", a->origin, "The bone its origin (sources) attaches to")->required();
  am->add_option("--insertion", a->insertion, "The bone its insertion (sinks) attaches to")->required();
  am->add_option("--mesh", a->mesh, "Use this mesh of the project as its surface (default: generate a spindle)");
  am->add_option("--belly", a->belly, "Spindle belly radius, m (default: 12% of its length)")->check(CLI::Range(0.0, 10.0));
  am->add_option("--side", a->side, "x,y,z: the side of the bones the spindle lies on (default 0,1,0)")->delimiter(',')->expected(3);
  am->add_option("--paint-ends", a->paintReach, "Paint sources and sinks this fraction of its length from each end (default 0.1)")->check(CLI::Range(0.01, 0.44));
  am->add_option("--rods", a->rods, "K for viperize (default 5)")->check(CLI::Range(1, 64));
  am->add_option("--slices", a->slices, "M for viperize (default 8)")->check(CLI::Range(2, 200));
  am->add_flag("--viperize", a->viperize, "Viperize it right away");
  am->add_option("-o,--output", a->output, "Project file to write (default: the input)");
  return {am, [a] { return addMuscle(*a); }};
}

}  // namespace sinew::cli
