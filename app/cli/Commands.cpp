#include "Commands.h"

#include "core/Error.h"
#include "examples/Humanoid.h"
#include "io/AssimpImport.h"
#include "io/ProjectFile.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <iostream>

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

// Runs `body`, mapping errors to exit codes with a one-line message.
template <class F>
int guarded(F&& body) {
  try {
    return body();
  } catch (const InputError& e) {
    std::cerr << "sinew-cli: " << e.what() << "\n";
    return kBadInput;
  } catch (const std::bad_alloc&) {
    std::cerr << "sinew-cli: out of memory\n";
    return kBadInput;
  } catch (const std::exception& e) {
    std::cerr << "sinew-cli: internal error: " << e.what() << "\n";
    return kInternal;
  }
}

void saveChecked(const Project& p, const std::string& path) { saveProject(p, path); }

}  // namespace

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
             {"skinBones", m.skin ? m.skin->bones.size() : 0}};
      const Aabb b = m.mesh.bounds();
      o["bounds"] = {{"min", {b.min.x(), b.min.y(), b.min.z()}}, {"max", {b.max.x(), b.max.y(), b.max.z()}}};
      if (m.report) o["validation"] = toJson(*m.report);
      meshes.push_back(o);
    }
    if (args.json) {
      json j{{"file", args.file},
             {"format", r.format},
             {"assimp", toJson(r.assimp)},
             {"meshes", meshes},
             {"totals", {{"meshes", r.meshes.size()}, {"vertices", vertices}, {"faces", faces}}},
             {"skeleton", r.skeleton ? toJson(*r.skeleton) : json(nullptr)},
             {"clips", json::array()},
             {"diagnostics", toJson(r.diagnostics)}};
      for (const MotionClip& c : r.clips) j["clips"].push_back(toJson(c));
      std::cout << j.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
      return int(kOk);
    }
    std::cout << args.file << " (" << r.format << ")\n";
    std::cout << "  assimp: " << r.assimp.nodes << " nodes, " << r.assimp.meshes << " meshes, " << r.assimp.vertices
              << " vertices, " << r.assimp.faces << " faces, " << r.assimp.bones << " bones, " << r.assimp.animations
              << " animations, " << r.assimp.animationChannels << " channels\n";
    for (const ImportedMesh& m : r.meshes) {
      std::cout << "  mesh '" << m.name << "': " << m.mesh.vertexCount() << " vertices (" << m.weldedVertices
                << " welded), " << m.mesh.triangleCount() << " faces";
      if (m.skin) std::cout << ", skinned to " << m.skin->bones.size() << " bones";
      std::cout << "\n";
    }
    if (r.skeleton) std::cout << "  skeleton: " << r.skeleton->size() << " joints\n";
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
    Project project;
    const bool exists = fs::exists(args.output);
    if (exists && !args.append && !args.overwrite)
      throw InputError(args.output, "already exists (use --append to add to it or --overwrite to replace it)");
    if (exists && args.append) project = loadProject(args.output);
    else project.name = fs::path(args.output).stem().string();
    ImportOptions opt;
    if (args.scale > 0) opt.scale = opt.clipScale = args.scale;
    opt.merge = args.merge;
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
      json j{{"project", args.project},
             {"name", p.name},
             {"formatVersion", version},
             {"meshes", meshes},
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
    printDiagnostics(notes, std::cout);
    return int(kOk);
  });
}

int example(const ExampleArgs& args) {
  return guarded([&] {
    if (args.name != "humanoid") throw InputError("", "unknown example '" + args.name + "' (available: humanoid)");
    if (fs::exists(args.output) && !args.overwrite)
      throw InputError(args.output, "already exists (use --overwrite to replace it)");
    HumanoidOptions options;
    if (args.spacing > 0) options.gridSpacing = args.spacing;
    const Project p = makeHumanoidProject(options);
    if (fs::path(args.output).has_parent_path()) fs::create_directories(fs::path(args.output).parent_path());
    saveChecked(p, args.output);
    std::cout << "wrote " << args.output << ": " << p.meshes[0].mesh.vertexCount() << " vertices, "
              << p.meshes[0].mesh.triangleCount() << " faces, " << p.skeleton->skeleton.size() << " joints\n";
    return int(kOk);
  });
}

int exportMeshes(const ExportArgs& args) {
  return guarded([&] {
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

}  // namespace sinew::cli
