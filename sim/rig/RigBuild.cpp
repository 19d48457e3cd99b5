#include "rig/RigBuild.h"

#include "rig/BoneShapes.h"
#include "volume/Embed.h"
#include "rig/SimulationSkeleton.h"
#include "rig/SkeletonEdit.h"

#include <chrono>

namespace sinew {

const VolumeObject* findVolume(const Project& p, ObjectId mesh, VolumeKind kind, bool live) {
  for (const VolumeObject& v : p.volumes)
    if (v.surface == mesh && v.kind == kind && v.live == live) return &v;
  return nullptr;
}

namespace {

// The conforming mesh of `surface` with its exterior simplified to about
// `vertices`. An open, multi-piece or self-intersecting surface gets a
// closed hull around it (the cage's, inside/outside by winding number),
// meshed, with the surface embedded in it.
RegionMeshResult buildConforming(const TriMesh& surface, const Skeleton& skeleton, const std::string& name,
                                 size_t vertices, const Progress& progress) {
  RegionMeshOptions ro;
  ro.name = name;
  ro.exteriorTargetVertices = vertices;
  try {
    return buildRegionMesh(surface, skeleton, ro, progress);
  } catch (const RegionMeshError& e) {
    const auto& problems = e.check().problems;
    if (problems.empty() || problems.front().kind != RegionProblem::Kind::ExteriorNotWatertight) throw;
  }
  CageOptions hullOptions;
  hullOptions.targetNodes = 3000;
  hullOptions.embedSurface = false;
  hullOptions.name = ro.name;
  const CageResult hull = buildCage(surface, skeleton, hullOptions, progress.sub(0.0, 0.4));
  ro.embedSurface = false;
  RegionMeshResult built = buildRegionMesh(hull.cageSurface, skeleton, ro, progress.sub(0.4, 0.9));
  built.volume.embedding = embedPoints(surface.positions, built.volume.mesh, {}, progress.sub(0.9, 1.0));
  built.report.extrapolatedVertices = built.volume.embedding.extrapolatedCount();
  built.report.diagnostics.push_back(
      {Severity::Info, ro.name + ": the surface is not watertight; meshed a closed hull around it (" +
                           std::to_string(hull.cageSurface.vertexCount()) + " vertices) and embedded the surface"});
  return built;
}

}  // namespace

RigBuildResult buildRig(const Project& p, ObjectId meshId, const RigBuildOptions& opt, const Progress& progress) {
  const auto start = std::chrono::steady_clock::now();
  const MeshObject* mesh = meshId ? p.findMesh(meshId) : (p.meshes.empty() ? nullptr : &p.meshes.front());
  if (!mesh) throw InputError(p.name, meshId ? "no mesh with id " + std::to_string(meshId) : "the project has no mesh");
  if (!p.skeleton || p.skeleton->skeleton.empty())
    throw InputError(p.name, "the project has no skeleton: place joints or import a skeleton first");
  RigBuildResult r;
  r.mesh = mesh->id;
  ObjectId nextId = p.nextId;

  // 0. Standing on the ground (only when nothing was built around the mesh yet).
  Skeleton skeleton = p.skeleton->skeleton;
  TriMesh lifted;
  const TriMesh* surface = &mesh->mesh;
  const bool fresh = !findVolume(p, mesh->id, VolumeKind::Cage) && !findVolume(p, mesh->id, VolumeKind::Conforming) &&
                     !findVolume(p, mesh->id, VolumeKind::Conforming, true);
  if (opt.standOnGround && fresh && !mesh->mesh.positions.empty()) {
    const Aabb box = mesh->mesh.bounds();
    const double ground = p.simulation.groundHeight.value_or(0.0);
    const double dy = ground - box.min.y();
    if (std::abs(dy) > 1e-3 * std::max(box.size().y(), 1e-9)) {
      r.lift = dy;
      lifted = mesh->mesh;
      for (Vec3& x : lifted.positions) x.y() += dy;
      surface = &lifted;
      for (Joint& j : skeleton.joints)
        if (j.parent < 0) j.restLocal.translation.y() += dy;
      r.skeleton = skeleton;
      r.report.diagnostics.push_back({Severity::Info, mesh->name + ": moved " + std::to_string(dy) +
                                                          " m along +Y to stand on the ground (y = " +
                                                          std::to_string(ground) + ")"});
    }
  }

  // 1. Bone shapes say which nodes are bone: defaults when there are none.
  if (skeleton.bones().empty()) {
    // A production armature (fingers, toes, face, end bones): the joints
    // that carry volume are simulated, the rest follow them.
    if (opt.chooseSimulated && skeleton.size() > 1) {
      const SimulationSkeletonChoice choice = chooseSimulatedJoints(skeleton, *surface);
      applySimulatedJoints(skeleton, choice.simulated);
      if (choice.count() < skeleton.size())
        r.report.diagnostics.push_back(
            {Severity::Info, "simulation skeleton: " + std::to_string(choice.count()) + " of " +
                                 std::to_string(skeleton.size()) +
                                 " joints carry volume and are simulated; the others follow them"});
    }
    assignDefaultBoneShapes(skeleton, *surface);
    r.skeleton = skeleton;
    r.report.boneShapesAssigned = true;
    r.report.diagnostics.push_back({Severity::Info, "assigned default bone shapes to " +
                                                        std::to_string(skeleton.bones().size()) + " joints"});
  }

  // Joints outside the surface make for odd bones: say which.
  if (const std::vector<int32_t> outside = jointsOutside(skeleton, TriangleTree(*surface)); !outside.empty()) {
    std::string names;
    for (size_t i = 0; i < outside.size() && i < 8; ++i) names += (i ? ", " : "") + skeleton.joints[size_t(outside[i])].name;
    r.report.diagnostics.push_back({Severity::Warning, mesh->name + ": " + std::to_string(outside.size()) +
                                                           " joint(s) lie outside the surface: " + names +
                                                           (outside.size() > 8 ? ", ..." : "")});
  }

  // 2. The cage.
  const VolumeObject* existingCage = findVolume(p, mesh->id, VolumeKind::Cage);
  std::optional<VolumeObject> cage;
  if (opt.cage && (!existingCage || opt.rebuild)) {
    CageOptions co;
    co.targetNodes = opt.cageNodes;
    co.name = mesh->name + " cage";
    CageResult c = buildCage(*surface, skeleton, co, progress.sub(0.0, 0.45));
    c.volume.id = existingCage ? existingCage->id : nextId++;
    c.volume.surface = mesh->id;
    r.report.cage = c.report;
    r.report.diagnostics.insert(r.report.diagnostics.end(), c.report.diagnostics.begin(), c.report.diagnostics.end());
    cage = std::move(c.volume);
  } else if (existingCage) {
    cage = *existingCage;
  }

  // 3. The conforming mesh with bone regions (and its live copy).
  const VolumeObject* existingRegions = findVolume(p, mesh->id, VolumeKind::Conforming);
  std::optional<VolumeObject> regions;
  if (opt.regions && (!existingRegions || opt.rebuild)) {
    RegionMeshResult m = buildConforming(*surface, skeleton, mesh->name + " regions", opt.regionVertices,
                                         progress.sub(0.45, opt.live ? 0.6 : 0.7));
    m.volume.id = existingRegions ? existingRegions->id : nextId++;
    m.volume.surface = mesh->id;
    r.report.regions = m.report;
    r.report.diagnostics.insert(r.report.diagnostics.end(), m.report.diagnostics.begin(), m.report.diagnostics.end());
    regions = std::move(m.volume);
  } else if (existingRegions) {
    regions = *existingRegions;
  }
  const VolumeObject* existingLive = findVolume(p, mesh->id, VolumeKind::Conforming, true);
  std::optional<VolumeObject> live;
  // A rebuilt conforming mesh takes its live copy along, so the two agree.
  const bool liveWanted = opt.live || (existingLive && r.report.regions && opt.rebuild);
  if (liveWanted && (!existingLive || opt.rebuild)) {
    RegionMeshResult m = buildConforming(*surface, skeleton, mesh->name + " regions (live)", opt.liveVertices,
                                         progress.sub(0.6, 0.7));
    m.volume.id = existingLive ? existingLive->id : nextId++;
    m.volume.surface = mesh->id;
    m.volume.live = true;
    m.volume.visible = false;  // the full mesh is the one to look at
    r.report.liveRegions = m.report;
    r.report.diagnostics.insert(r.report.diagnostics.end(), m.report.diagnostics.begin(), m.report.diagnostics.end());
    live = std::move(m.volume);
  }

  // 4. Weights on the cage's nodes (or the conforming mesh's when there is
  //    no cage), transferred to the surface through the embedding.
  bool cageChanged = bool(r.report.cage), regionsChanged = bool(r.report.regions);
  VolumeObject* target = cage ? &*cage : regions ? &*regions : nullptr;
  if (opt.weights && target && (!target->weights || opt.rebuild || r.report.cage || r.report.regions)) {
    ((cage && target == &*cage) ? cageChanged : regionsChanged) = true;
    if (target->embedding.vertexCount() != surface->vertexCount())
      throw InputError(mesh->name, "the volume does not embed the mesh (rebuild it)");
    BoneWeightOptions wo;
    wo.method = opt.method;
    BoneWeightsResult w = computeBoneWeights(target->mesh, target->fixedBone, int32_t(target->bones.size()), wo,
                                             progress.sub(0.7, 0.97));
    target->weights = toSkinWeights(w.weights, target->bones);
    WeightMatrix surface = surfaceWeightsFromNodes(target->mesh, target->embedding, w.weights);
    SparsifyOptions so;
    so.maxInfluences = opt.maxInfluences;
    r.surfaceWeights = toSkinWeights(surface, target->bones, so);
    r.report.diagnostics.insert(r.report.diagnostics.end(), w.diagnostics.begin(), w.diagnostics.end());
    // Statistics of what the surface gets.
    const SkinWeights& s = *r.surfaceWeights;
    r.report.weightedVertices = s.vertexCount();
    r.report.minWeight = 1.0;
    r.report.maxWeight = 0.0;
    for (size_t v = 0; v + 1 < s.offsets.size(); ++v) {
      double sum = 0;
      for (int32_t i = s.offsets[v]; i < s.offsets[v + 1]; ++i) {
        sum += s.weight[size_t(i)];
        r.report.minWeight = std::min(r.report.minWeight, s.weight[size_t(i)]);
        r.report.maxWeight = std::max(r.report.maxWeight, s.weight[size_t(i)]);
      }
      r.report.maxPartitionError = std::max(r.report.maxPartitionError, std::abs(sum - 1.0));
    }
    r.report.weights = std::move(w);
    r.report.method = opt.method;
  }
  if (cageChanged) r.volumes.push_back(*cage);
  if (regionsChanged) r.volumes.push_back(*regions);
  if (live) r.volumes.push_back(std::move(*live));
  progress.update(1.0, "done");
  r.report.totalSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

void applyRigBuild(Project& p, const RigBuildResult& r) {
  if (r.lift != 0) {
    for (MeshObject& m : p.meshes)
      for (Vec3& x : m.mesh.positions) x.y() += r.lift;
    for (VolumeObject& v : p.volumes)
      for (Vec3& x : v.mesh.nodes) x.y() += r.lift;
  }
  if (r.skeleton && p.skeleton) p.skeleton->skeleton = *r.skeleton;
  for (const VolumeObject& v : r.volumes) {
    if (VolumeObject* existing = p.findVolume(v.id)) *existing = v;
    else p.volumes.push_back(v);
    p.nextId = std::max(p.nextId, v.id + 1);
  }
  if (r.surfaceWeights)
    if (MeshObject* m = p.findMesh(r.mesh)) m->skin = r.surfaceWeights;
}

}  // namespace sinew
