#include "io/AssimpImport.h"

#include "core/Error.h"
#include "core/Rotation.h"
#include "core/Text.h"
#include "io/Bvh.h"
#include "io/FileUtil.h"
#include "io/FormatCheck.h"
#include "io/TetFiles.h"

#include <assimp/Exporter.hpp>

#include "io/AssimpWrite.h"
#include <assimp/Importer.hpp>
#include <assimp/ProgressHandler.hpp>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include <csignal>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace sinew {

namespace {

// A skinned mesh at least this share of the character's size (box diagonals)
// is a body part (MeshGrouping::BodyParts): a head is about a sixth, an eye a
// hundredth.
constexpr double kBodyPartShare = 0.1;

// Forwards Assimp's progress to ours; returning false makes Assimp abort.
class ProgressBridge : public Assimp::ProgressHandler {
 public:
  explicit ProgressBridge(const Progress& p) : progress_(p) {}
  bool Update(float percentage) override { return progress_.tryUpdate(percentage < 0 ? 0.0 : percentage); }

 private:
  Progress progress_;
};

unsigned depthOf(const aiNode* n) {
  unsigned d = 0;
  for (unsigned i = 0; i < n->mNumChildren; ++i) d = std::max(d, depthOf(n->mChildren[i]));
  return d + 1;
}
unsigned countNodes(const aiNode* n) {
  unsigned c = 1;
  for (unsigned i = 0; i < n->mNumChildren; ++i) c += countNodes(n->mChildren[i]);
  return c;
}

AssimpStats statsOf(const aiScene* s) {
  AssimpStats st;
  if (s->mRootNode) {
    st.nodes = countNodes(s->mRootNode);
    st.maxDepth = depthOf(s->mRootNode);
  }
  st.meshes = s->mNumMeshes;
  st.animations = s->mNumAnimations;
  st.textures = s->mNumTextures;
  st.materials = s->mNumMaterials;
  st.cameras = s->mNumCameras;
  st.lights = s->mNumLights;
  for (unsigned i = 0; i < s->mNumMeshes; ++i) {
    st.vertices += s->mMeshes[i]->mNumVertices;
    st.faces += s->mMeshes[i]->mNumFaces;
    st.bones += s->mMeshes[i]->mNumBones;
  }
  for (unsigned i = 0; i < s->mNumAnimations; ++i) st.animationChannels += s->mAnimations[i]->mNumChannels;
  return st;
}

// The node whose (sanitised) name is `name`, depth first.
const aiNode* findNodeByName(const aiNode* n, const std::string& name) {
  if (!n) return nullptr;
  if (sanitizeName(n->mName.C_Str()) == name) return n;
  for (unsigned i = 0; i < n->mNumChildren; ++i)
    if (const aiNode* f = findNodeByName(n->mChildren[i], name)) return f;
  return nullptr;
}

Mat4 toMat4(const aiMatrix4x4& m) {
  Mat4 r;
  r << m.a1, m.a2, m.a3, m.a4, m.b1, m.b2, m.b3, m.b4, m.c1, m.c2, m.c3, m.c4, m.d1, m.d2, m.d3, m.d4;
  return r;
}

Vec3 toVec3(const aiVector3D& v) { return {v.x, v.y, v.z}; }

Mat4 globalMatrix(const aiNode* n) {
  Mat4 m = Mat4::Identity();
  for (; n; n = n->mParent) m = toMat4(n->mTransformation) * m;
  return m;
}

// Rigid part of an affine matrix (scale and shear removed), translation scaled to metres.
Transform rigidPart(const Mat4& m, double scale) {
  Mat3 a = m.topLeftCorner<3, 3>();
  return {Quat(nearestRotation(a)).normalized(), m.topRightCorner<3, 1>() * scale};
}

// A number for a message: 6 significant digits.
std::string formatNumber(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

std::string nodeName(const aiNode* n) { return n ? sanitizeName(n->mName.C_Str()) : std::string(); }

// ---------------------------------------------------------------------------
// The bind pose. Assimp's skinning convention (glTF's too): a vertex v of a
// skinned mesh goes to sum_b w_b G_b O_b v, with G_b the global matrix of
// bone b's node and O_b its offset (inverse bind) matrix; the mesh node's own
// transform is not used. So a skinned mesh is placed where skinning at the
// bind pose puts it, and the skeleton's rest pose is the bind pose: when the
// node hierarchy is stored in another pose (G_b O_b differ between bones),
// the bind-pose global of bone b is C O_b^-1, C = G_r O_r of the mesh's
// root-most bone r (so that bone stays where the hierarchy has it).

// Units and up axis the file declares (FBX global settings), as a matrix
// applied on the left of every node's global matrix; scale stays separate.
struct SceneFrame {
  Mat4 up = Mat4::Identity();  // rotation taking the file's up axis to +Y
  std::string upAxis = "Y";    // as declared ("Y" when nothing is declared)
};

SceneFrame sceneFrame(const aiScene* s) {
  SceneFrame f;
  if (!s->mMetaData) return f;
  int32_t axis = 1, sign = 1;
  if (!s->mMetaData->Get("UpAxis", axis)) return f;
  s->mMetaData->Get("UpAxisSign", sign);
  if (axis == 1 && sign >= 0) return f;
  Vec3 from = Vec3::Zero();
  from[std::clamp(axis, 0, 2)] = sign >= 0 ? 1.0 : -1.0;
  f.up.topLeftCorner<3, 3>() = Quat::FromTwoVectors(from, Vec3::UnitY()).toRotationMatrix();
  if (axis == 1 && sign < 0)  // upside down: half a turn about X
    f.up.topLeftCorner<3, 3>() = Eigen::AngleAxisd(M_PI, Vec3::UnitX()).toRotationMatrix();
  f.upAxis = std::string(sign < 0 ? "-" : "") + "XYZ"[std::clamp(axis, 0, 2)];
  return f;
}

struct BindPose {
  Mat4 frame = Mat4::Identity();                    // SceneFrame::up
  std::map<const aiMesh*, Mat4> meshToWorld;        // per skinned mesh: mesh space -> world at the bind pose
  std::map<const aiNode*, Mat4> boneWorld;          // bind-pose global of skin bones stored in another pose
  std::set<std::string> posedBones;                 // bones whose node is not at the bind pose
  // Global matrix at the bind pose (file units, frame applied).
  Mat4 global(const aiNode* n) const {
    if (!n) return frame;
    if (auto it = boneWorld.find(n); it != boneWorld.end()) return it->second;
    return global(n->mParent) * toMat4(n->mTransformation);
  }
};

unsigned nodeDepth(const aiNode* n) {
  unsigned d = 0;
  for (; n && n->mParent; n = n->mParent) ++d;
  return d;
}

BindPose bindPoseOf(const aiScene* scene, const SceneFrame& frame) {
  BindPose bp;
  bp.frame = frame.up;
  if (!scene->mRootNode) return bp;
  auto current = [&](const aiNode* n) -> Mat4 { return frame.up * globalMatrix(n); };
  for (unsigned mi = 0; mi < scene->mNumMeshes; ++mi) {
    const aiMesh* m = scene->mMeshes[mi];
    if (!m->mNumBones) continue;
    // Extent of the mesh in its own space: the tolerance for "the same placement".
    Aabb box;
    for (unsigned v = 0; v < m->mNumVertices; ++v) box.add(toVec3(m->mVertices[v]));
    const double extent = std::max(box.empty() ? 0.0 : box.size().norm(), 1e-9);
    struct BoneSkinning {
      const aiNode* node;
      Mat4 c;  // G_b O_b
      unsigned bone;
    };
    std::vector<BoneSkinning> skinning;
    const aiNode* rootBone = nullptr;
    Mat4 c = Mat4::Identity();
    for (unsigned b = 0; b < m->mNumBones; ++b) {
      const aiNode* n = scene->mRootNode->FindNode(m->mBones[b]->mName);
      if (!n) continue;
      const Mat4 cb = current(n) * toMat4(m->mBones[b]->mOffsetMatrix);
      skinning.push_back({n, cb, b});
      if (!rootBone || nodeDepth(n) < nodeDepth(rootBone)) {
        rootBone = n;
        c = cb;
      }
    }
    if (!rootBone) continue;
    bp.meshToWorld[m] = c;
    const double linear = std::max(c.topLeftCorner<3, 3>().norm(), 1e-12);
    for (const auto& [n, cb, b] : skinning) {
      const Mat4 d = cb - c;
      const bool same = d.topLeftCorner<3, 3>().cwiseAbs().maxCoeff() <= 1e-4 * linear &&
                        d.topRightCorner<3, 1>().norm() <= 1e-4 * extent * linear;
      if (same || bp.boneWorld.count(n)) continue;
      bp.posedBones.insert(sanitizeName(n->mName.C_Str()));
      // Bind-pose global: C O_b^-1 (the first mesh naming the bone decides).
      bp.boneWorld[n] = c * toMat4(m->mBones[b]->mOffsetMatrix).inverse();
    }
  }
  return bp;
}

// Each node's path from the scene root, and how many leading nodes every
// path shares: the lowest common ancestor is paths[0][common - 1].
struct RootPaths {
  std::vector<std::vector<const aiNode*>> paths;
  size_t common = 0;
  // The nodes of every path from index `first` on.
  std::set<const aiNode*> from(size_t first) const {
    std::set<const aiNode*> nodes;
    for (const auto& p : paths)
      for (size_t k = first; k < p.size(); ++k) nodes.insert(p[k]);
    return nodes;
  }
  const aiNode* ancestor() const { return paths[0][common - 1]; }
};

template <class Nodes>
RootPaths rootPaths(const Nodes& nodes) {
  RootPaths r;
  for (const aiNode* node : nodes) {
    std::vector<const aiNode*> p;
    for (const aiNode* n = node; n; n = n->mParent) p.push_back(n);
    std::reverse(p.begin(), p.end());
    r.paths.push_back(std::move(p));
  }
  r.common = r.paths[0].size();
  for (const auto& p : r.paths) {
    size_t k = 0;
    while (k < std::min(r.common, p.size()) && p[k] == r.paths[0][k]) ++k;
    r.common = k;
  }
  return r;
}

// The skeleton of a skinned scene: every node named by a bone, and the nodes
// between those and their lowest common ancestor (which is included only if
// it is itself a bone); its rest pose is the bind pose.
std::optional<Skeleton> extractSkeleton(const aiScene* scene, const BindPose& bind, double scale, Diagnostics& diag,
                                        const std::string& path) {
  std::set<std::string> boneNames;
  for (unsigned m = 0; m < scene->mNumMeshes; ++m)
    for (unsigned b = 0; b < scene->mMeshes[m]->mNumBones; ++b)
      boneNames.insert(sanitizeName(scene->mMeshes[m]->mBones[b]->mName.C_Str()));
  if (boneNames.empty() || !scene->mRootNode) return std::nullopt;

  std::set<const aiNode*> bones;
  for (const std::string& name : boneNames) {
    const aiNode* n = findNodeByName(scene->mRootNode, name);
    if (n) bones.insert(n);
    else diag.push_back({Severity::Warning, path + ": bone '" + name + "' has no node in the hierarchy"});
  }
  if (bones.empty()) return std::nullopt;
  const RootPaths paths = rootPaths(bones);
  std::set<const aiNode*> included = paths.from(paths.common);
  const aiNode* lca = paths.ancestor();
  // The lowest common ancestor joins the skeleton when it is a bone, or when
  // without it the bones would hang from several roots (two chains under an
  // armature node): the simulation needs one root.
  size_t childrenUsed = 0;
  for (unsigned c = 0; c < lca->mNumChildren; ++c) childrenUsed += included.count(lca->mChildren[c]);
  if (bones.count(lca) || childrenUsed > 1) included.insert(lca);

  Skeleton sk;
  std::map<const aiNode*, int32_t> index;
  std::map<const aiNode*, Transform> world;
  // Depth-first from the LCA so parents precede children.
  std::vector<const aiNode*> stack{lca};
  while (!stack.empty()) {
    const aiNode* n = stack.back();
    stack.pop_back();
    if (included.count(n)) {
      // Parent joint: the nearest included ancestor (non-joint nodes in between are folded in).
      const aiNode* parentNode = n->mParent;
      while (parentNode && !index.count(parentNode)) parentNode = parentNode->mParent;
      const Transform w = rigidPart(bind.global(n), scale);
      world[n] = w;
      Joint j;
      j.name = nodeName(n);
      j.parent = parentNode ? index[parentNode] : -1;
      j.restLocal = parentNode ? world[parentNode].inverse() * w : w;
      index[n] = static_cast<int32_t>(sk.joints.size());
      sk.joints.push_back(j);
    }
    for (unsigned c = n->mNumChildren; c-- > 0;) stack.push_back(n->mChildren[c]);
  }
  // Names must be unique for the skeleton to be usable by name.
  std::set<std::string> seen;
  for (Joint& j : sk.joints) {
    if (j.name.empty()) j.name = "joint";
    std::string base = j.name;
    for (int k = 2; !seen.insert(j.name).second; ++k) j.name = base + "." + std::to_string(k);
  }
  if (!bind.posedBones.empty())
    diag.push_back({Severity::Info, path + ": the node hierarchy is stored in another pose than the bind pose (" +
                                        std::to_string(bind.posedBones.size()) +
                                        " bone(s)); the skeleton's rest pose is the bind pose"});
  return sk;
}

struct MeshInstance {
  const aiMesh* mesh;
  Mat4 transform;  // where the mesh's vertices go: the node's global matrix, or the bind-pose skinning placement
  std::string name;
};

void collectInstances(const aiScene* scene, const aiNode* node, const BindPose& bind, std::vector<MeshInstance>& out) {
  const Mat4 g = bind.frame * globalMatrix(node);
  for (unsigned i = 0; i < node->mNumMeshes; ++i) {
    const unsigned mi = node->mMeshes[i];
    if (mi >= scene->mNumMeshes) continue;
    const aiMesh* m = scene->mMeshes[mi];
    std::string name = m->mName.length ? sanitizeName(m->mName.C_Str()) : nodeName(node);
    if (name == "defaultobject") name.clear();  // Assimp's placeholder for unnamed OBJ groups
    const auto skinned = bind.meshToWorld.find(m);
    out.push_back({m, skinned != bind.meshToWorld.end() ? skinned->second : g, name});
  }
  for (unsigned c = 0; c < node->mNumChildren; ++c) collectInstances(scene, node->mChildren[c], bind, out);
}

// How far skinning the imported rest skeleton (rigid joints, with the uniform
// scale of a unit conversion) with the file's offset matrices lands from where
// the mesh was placed, in metres: zero unless the file's bones carry
// non-uniform scale or shear that joints cannot hold.
double bindResidual(const aiScene* scene, const std::vector<MeshInstance>& parts, const BindPose& bind, double scale) {
  double worst = 0;
  for (const MeshInstance& inst : parts) {
    const aiMesh* m = inst.mesh;
    if (!m->mNumBones || !bind.meshToWorld.count(m)) continue;
    std::vector<Mat4> skin(m->mNumBones, Mat4::Zero());
    for (unsigned b = 0; b < m->mNumBones; ++b)
      if (const aiNode* n = scene->mRootNode->FindNode(m->mBones[b]->mName)) {
        // The joint as Sinew keeps it: rotation and position, plus the one
        // uniform scale a unit conversion in the hierarchy gives.
        const Mat4 a = bind.global(n);
        const Mat3 linear = a.topLeftCorner<3, 3>();
        Mat4 joint = Mat4::Identity();
        joint.topLeftCorner<3, 3>() = std::cbrt(std::abs(linear.determinant())) * nearestRotation(linear);
        joint.topRightCorner<3, 1>() = a.topRightCorner<3, 1>();
        skin[b] = joint * toMat4(m->mBones[b]->mOffsetMatrix);
      }
    std::vector<Eigen::Vector4d> sum(m->mNumVertices, Eigen::Vector4d::Zero());
    std::vector<double> total(m->mNumVertices, 0.0);
    for (unsigned b = 0; b < m->mNumBones; ++b) {
      const aiBone* bone = m->mBones[b];
      for (unsigned w = 0; w < bone->mNumWeights; ++w) {
        const aiVertexWeight& vw = bone->mWeights[w];
        if (vw.mVertexId >= m->mNumVertices || !(vw.mWeight > 0)) continue;
        const aiVector3D& p = m->mVertices[vw.mVertexId];
        sum[vw.mVertexId] += vw.mWeight * (skin[b] * Eigen::Vector4d(p.x, p.y, p.z, 1.0));
        total[vw.mVertexId] += vw.mWeight;
      }
    }
    for (unsigned v = 0; v < m->mNumVertices; ++v) {
      if (!(total[v] > 0)) continue;
      const aiVector3D& p = m->mVertices[v];
      const Vec3 placed = (inst.transform * Eigen::Vector4d(p.x, p.y, p.z, 1.0)).head<3>();
      worst = std::max(worst, (sum[v].head<3>() / total[v] - placed).norm() * scale);
    }
  }
  return worst;
}

// The box of an instance's placed vertices (file units).
Aabb instanceBounds(const MeshInstance& inst) {
  Aabb box;
  for (unsigned v = 0; v < inst.mesh->mNumVertices; ++v) {
    const aiVector3D& p = inst.mesh->mVertices[v];
    box.add((inst.transform * Eigen::Vector4d(p.x, p.y, p.z, 1.0)).head<3>());
  }
  return box;
}

// The project meshes a file's mesh instances become, named (see MeshGrouping).
std::vector<std::pair<std::string, std::vector<MeshInstance>>> groupInstances(const std::vector<MeshInstance>& instances,
                                                                              MeshGrouping grouping,
                                                                              const std::string& stem,
                                                                              Diagnostics& diag,
                                                                              const std::string& path) {
  std::vector<std::pair<std::string, std::vector<MeshInstance>>> groups;
  if (instances.empty()) return groups;
  if (grouping == MeshGrouping::All) {
    groups.push_back({stem, instances});
    return groups;
  }
  std::vector<bool> body(instances.size(), false);
  if (grouping == MeshGrouping::BodyParts) {
    Aabb all;
    std::vector<Aabb> boxes;
    for (const MeshInstance& inst : instances) {
      boxes.push_back(instanceBounds(inst));
      if (!boxes.back().empty()) all.add(boxes.back());
    }
    const double size = all.empty() ? 0.0 : all.size().norm();
    for (size_t i = 0; i < instances.size(); ++i)
      body[i] = instances[i].mesh->mNumBones > 0 && !boxes[i].empty() && boxes[i].size().norm() >= kBodyPartShare * size;
    if (std::count(body.begin(), body.end(), true) < 2) body.assign(instances.size(), false);
  }
  std::vector<MeshInstance> parts;
  std::string partNames;
  for (size_t i = 0; i < instances.size(); ++i)
    if (body[i]) {
      parts.push_back(instances[i]);
      partNames += (partNames.empty() ? "'" : ", '") + (instances[i].name.empty() ? stem : instances[i].name) + "'";
    }
  if (!parts.empty()) {
    groups.push_back({stem, parts});
    diag.push_back({Severity::Info, path + ": body parts " + partNames + " joined as one mesh '" + stem +
                                        "'; the other meshes follow the skeleton"});
  }
  std::map<std::string, int> used{{stem, parts.empty() ? 0 : 1}};
  for (size_t i = 0; i < instances.size(); ++i) {
    if (body[i]) continue;
    std::string name = instances[i].name.empty() ? stem : instances[i].name;
    if (used[name]++) name += "." + std::to_string(used[name]);
    groups.push_back({name, {instances[i]}});
  }
  return groups;
}

// Builds one triangle mesh (and its skin, if any) from mesh instances.
ImportedMesh buildMesh(const std::vector<MeshInstance>& parts, const std::string& name, const ImportOptions& opt,
                       const std::string& path, Diagnostics& diag) {
  std::vector<Vec3> positions;
  std::vector<Tri> tris;
  std::vector<std::vector<std::pair<int32_t, double>>> influences;  // per source vertex
  std::vector<std::string> boneNames;
  std::map<std::string, int32_t> boneIndex;
  size_t skippedFaces = 0;
  for (const MeshInstance& inst : parts) {
    const aiMesh* m = inst.mesh;
    const auto base = static_cast<int32_t>(positions.size());
    for (unsigned v = 0; v < m->mNumVertices; ++v) {
      const Eigen::Vector4d p(m->mVertices[v].x, m->mVertices[v].y, m->mVertices[v].z, 1.0);
      positions.push_back((inst.transform * p).head<3>() * opt.scale);
    }
    for (unsigned f = 0; f < m->mNumFaces; ++f) {
      const aiFace& face = m->mFaces[f];
      if (face.mNumIndices != 3) {
        ++skippedFaces;
        continue;
      }
      tris.push_back({base + int32_t(face.mIndices[0]), base + int32_t(face.mIndices[1]),
                      base + int32_t(face.mIndices[2])});
    }
    influences.resize(positions.size());
    for (unsigned b = 0; b < m->mNumBones; ++b) {
      const aiBone* bone = m->mBones[b];
      const std::string bn = sanitizeName(bone->mName.C_Str());
      auto [it, added] = boneIndex.emplace(bn, static_cast<int32_t>(boneNames.size()));
      if (added) boneNames.push_back(bn);
      for (unsigned w = 0; w < bone->mNumWeights; ++w) {
        const aiVertexWeight& vw = bone->mWeights[w];
        if (vw.mVertexId < m->mNumVertices && vw.mWeight > 0)
          influences[base + vw.mVertexId].push_back({it->second, vw.mWeight});
      }
    }
  }
  if (skippedFaces)
    diag.push_back({Severity::Warning, path + ": mesh '" + name + "': skipped " + std::to_string(skippedFaces) +
                                           " point/line primitive(s)"});
  for (const Vec3& p : positions)
    if (!p.allFinite()) throw InputError(path, "mesh '" + name + "' has non-finite vertex coordinates");

  ImportedMesh out;
  out.name = name;
  out.sourceVertices = positions.size();
  std::vector<int32_t> remap(positions.size());
  if (opt.weld) {
    Aabb box;
    for (const Vec3& p : positions) box.add(p);
    WeldResult w = weldVertices(positions, tris, defaultWeldTolerance(box));
    out.mesh = std::move(w.mesh);
    remap = std::move(w.remap);
    out.weldedVertices = w.mergedCount;
  } else {
    for (size_t i = 0; i < remap.size(); ++i) remap[i] = static_cast<int32_t>(i);
    out.mesh = TriMesh{std::move(positions), std::move(tris)};
  }
  if (!boneNames.empty()) {
    // Merge influences of welded vertices (sum per bone, then normalise).
    std::vector<std::map<int32_t, double>> merged(out.mesh.vertexCount());
    for (size_t v = 0; v < influences.size(); ++v)
      for (const auto& [b, w] : influences[v]) merged[remap[v]][b] += w;
    SkinWeights sw;
    sw.bones = boneNames;
    sw.offsets.push_back(0);
    for (const auto& row : merged) {
      for (const auto& [b, w] : row) {
        sw.bone.push_back(b);
        sw.weight.push_back(w);
      }
      sw.offsets.push_back(static_cast<int32_t>(sw.bone.size()));
    }
    sw.normalize();
    out.skin = std::move(sw);
  }
  return out;
}

// Structural consistency of a scene as a loader produced it.
constexpr unsigned kMaxFaceCorners = 4096;

void checkRawScene(const aiScene* s, const std::string& path) {
  if (s->mNumMeshes && !s->mMeshes) throw InputError(path, "damaged file: mesh table missing");
  for (unsigned m = 0; m < s->mNumMeshes; ++m) {
    const aiMesh* mesh = s->mMeshes[m];
    const std::string which = "mesh " + std::to_string(m);
    if (!mesh) throw InputError(path, "damaged file: " + which + " missing");
    if (mesh->mNumVertices && !mesh->mVertices) throw InputError(path, "damaged file: " + which + " has no vertex data");
    if (mesh->mNumFaces && !mesh->mFaces) throw InputError(path, "damaged file: " + which + " has no face data");
    for (unsigned f = 0; f < mesh->mNumFaces; ++f) {
      const aiFace& face = mesh->mFaces[f];
      if (face.mNumIndices == 0 || !face.mIndices)
        throw InputError(path, "damaged file: " + which + " face " + std::to_string(f) + " has no vertices (truncated?)");
      // Triangulating an n-gon costs O(n^2): a 100,000-corner face took a minute.
      if (face.mNumIndices > kMaxFaceCorners)
        throw InputError(path, which + " face " + std::to_string(f) + " has " + std::to_string(face.mNumIndices) +
                                   " corners; Sinew reads polygons of up to " + std::to_string(kMaxFaceCorners));
      for (unsigned i = 0; i < face.mNumIndices; ++i)
        if (face.mIndices[i] >= mesh->mNumVertices)
          throw InputError(path, "damaged file: " + which + " face " + std::to_string(f) + " refers to vertex " +
                                     std::to_string(face.mIndices[i]) + " of " + std::to_string(mesh->mNumVertices));
    }
    for (unsigned b = 0; b < mesh->mNumBones; ++b)
      if (!mesh->mBones || !mesh->mBones[b] || (mesh->mBones[b]->mNumWeights && !mesh->mBones[b]->mWeights))
        throw InputError(path, "damaged file: " + which + " bone " + std::to_string(b) + " is incomplete");
  }
}

// An importer's message made fit for one line of a log: control characters
// become spaces, long messages (some quote the file) are cut.
std::string oneLine(std::string m, size_t limit = 240) {
  for (char& c : m)
    if (static_cast<unsigned char>(c) < 32) c = ' ';
  if (m.size() > limit) m = m.substr(0, limit) + "...";
  return m;
}

// Reads `path` with Assimp: without post-processing first (the statistics
// `assimp info FILE -r` prints go to *outStats), then, unless `statsOnly`,
// checked and triangulated. Reads from the path, not from memory: many formats
// refer to side files next to the main one (.mtl for OBJ, .bin for glTF).
const aiScene* readScene(Assimp::Importer& importer, const std::string& path, bool statsOnly,
                         const Progress& progress, AssimpStats* outStats) {
  importer.SetProgressHandler(new ProgressBridge(progress.sub(0.0, 0.8)));  // importer owns it
  importer.SetPropertyInteger(AI_CONFIG_PP_SBP_REMOVE, aiPrimitiveType_POINT | aiPrimitiveType_LINE);
  const aiScene* raw = nullptr;
  try {
    raw = importer.ReadFile(path, 0);
  } catch (const std::exception& e) {
    throw InputError(path, "cannot be read: " + oneLine(e.what()));
  }
  progress.update(0.8, "processing");  // throws Cancelled if the user cancelled mid-read
  if (!raw) {
    std::string err = importer.GetErrorString();
    if (err.empty()) err = "unknown error";
    throw InputError(path, "cannot be read: " + oneLine(err));
  }
  if (outStats) *outStats = statsOf(raw);
  if (statsOnly) return raw;
  // Loaders can leave inconsistent data behind on damaged files (faces with
  // no indices, indices past the vertex array), on which Assimp's own
  // post-processing asserts or crashes: check the raw scene first.
  checkRawScene(raw, path);
  const aiScene* scene = importer.ApplyPostProcessing(aiProcess_Triangulate | aiProcess_SortByPType | aiProcess_LimitBoneWeights);
  if (!scene) throw InputError(path, "cannot be processed: " + oneLine(importer.GetErrorString()));
  if (scene->mFlags & AI_SCENE_FLAGS_INCOMPLETE && scene->mNumMeshes == 0 && scene->mNumAnimations == 0)
    throw InputError(path, "contains no meshes or animations");
  progress.update(1.0, "processing");
  return scene;
}

// Runs readScene() in a forked child. Returns if it succeeded; throws the
// child's InputError if it failed cleanly, an InputError saying so if it
// crashed or ran out of time, or Cancelled (after killing it).
void readInChildProcess(const std::string& path, uint64_t fileSize, bool statsOnly, double timeoutSeconds,
                        const Progress& progress) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw InputError(path, "cannot start the importer process (pipe failed)");
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw InputError(path, "cannot start the importer process (fork failed)");
  }
  if (pid == 0) {
    // Child: read, report the error message (if any) through the pipe, leave
    // without running the parent's exit handlers. Its stdout and stderr go
    // nowhere: a crash report there would garble the parent's one-line errors.
    ::close(fds[0]);
    if (const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC); null >= 0) {
      ::dup2(null, 1);
      ::dup2(null, 2);
    }
#if !defined(__SANITIZE_ADDRESS__)
    // A hostile file may not take the machine down: 1 GiB plus 100 bytes per
    // byte of file (real loaders need far less), at most 16 GiB.
    const uint64_t bytes = std::min<uint64_t>((uint64_t(1) << 30) + 100 * fileSize, uint64_t(16) << 30);
    const rlimit memory{rlim_t(bytes), rlim_t(bytes)};
    ::setrlimit(RLIMIT_AS, &memory);
#endif
    int code = 0;
    std::string message;
    try {
      Assimp::Importer importer;
      readScene(importer, path, statsOnly, Progress::none(), nullptr);
    } catch (const InputError& e) {
      message = e.problem();
      code = 2;
    } catch (const std::bad_alloc&) {
      message = "out of memory while reading";
      code = 2;
    } catch (...) {
      message = "the importer failed";
      code = 3;
    }
    message = oneLine(message);  // short: well below the pipe's buffer, the parent reads it after exit
    if (!message.empty()) (void)!::write(fds[1], message.data(), message.size());
    ::_exit(code);
  }
  ::close(fds[1]);
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  std::string message;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (progress.cancelled() || elapsed > timeoutSeconds) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      ::close(fds[0]);
      if (progress.cancelled()) throw Cancelled();
      throw InputError(path, "the importer did not finish within " + std::to_string(int(timeoutSeconds)) +
                                 " s (damaged file?); it was stopped");
    }
    progress.tryUpdate(std::min(0.9, elapsed / std::max(timeoutSeconds, 1.0)), "reading");
    ::usleep(2000);
  }
  char buf[512];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) message.append(buf, size_t(n));
  ::close(fds[0]);
  if (WIFSIGNALED(status))
    throw InputError(path, "the importer crashed reading this file (signal " + std::to_string(WTERMSIG(status)) +
                               "): it is damaged or uses a feature Assimp cannot read");
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
    throw InputError(path, message.empty() ? "cannot be read" : message);
}

// ---------------------------------------------------------------------------
// Animations (FBX, glTF, Collada...) as motion clips: each animated node and
// its ancestors become clip joints with six channels (position, then Z Y X
// Euler rotation), sampled at the animation's key rate.

Quat toQuat(const aiQuaternion& q) { return Quat(q.w, q.x, q.y, q.z).normalized(); }

// Linear interpolation of vector keys (positions, scalings) at `t` (ticks),
// clamped to the ends.
Vec3 sampleVector(const aiVectorKey* k, unsigned n, double t, const Vec3& fallback) {
  if (!k || n == 0) return fallback;
  if (t <= k[0].mTime) return toVec3(k[0].mValue);
  if (t >= k[n - 1].mTime) return toVec3(k[n - 1].mValue);
  unsigned i = 0;
  while (i + 1 < n && k[i + 1].mTime < t) ++i;
  const double span = k[i + 1].mTime - k[i].mTime;
  const double a = span > 0 ? (t - k[i].mTime) / span : 0.0;
  return (1 - a) * toVec3(k[i].mValue) + a * toVec3(k[i + 1].mValue);
}

Quat sampleRotation(const aiNodeAnim* ch, double t, const Quat& fallback) {
  if (!ch || ch->mNumRotationKeys == 0) return fallback;
  const aiQuatKey* k = ch->mRotationKeys;
  const unsigned n = ch->mNumRotationKeys;
  if (t <= k[0].mTime) return toQuat(k[0].mValue);
  if (t >= k[n - 1].mTime) return toQuat(k[n - 1].mValue);
  unsigned i = 0;
  while (i + 1 < n && k[i + 1].mTime < t) ++i;
  const double span = k[i + 1].mTime - k[i].mTime;
  const double a = span > 0 ? (t - k[i].mTime) / span : 0.0;
  return toQuat(k[i].mValue).slerp(a, toQuat(k[i + 1].mValue)).normalized();
}

// Channel values of a rotation as BVH "Zrotation Yrotation Xrotation" (degrees).
Vec3 zyxDegrees(const Quat& q) {
  const Vec3 e = q.toRotationMatrix().eulerAngles(2, 1, 0);  // R = Rz(e0) Ry(e1) Rx(e2)
  return e * (180.0 / M_PI);
}

std::vector<MotionClip> clipsFromAnimations(const aiScene* scene, const Mat4& frame, double scale, const std::string& path,
                                            Diagnostics& diag) {
  std::vector<MotionClip> clips;
  if (!scene->mRootNode) return clips;
  constexpr size_t kMaxFrames = 1'000'000;
  for (unsigned a = 0; a < scene->mNumAnimations; ++a) {
    const aiAnimation* anim = scene->mAnimations[a];
    if (!anim || anim->mNumChannels == 0 || !anim->mChannels) continue;
    // Animated nodes, and the lowest common ancestor of them all.
    std::map<const aiNode*, const aiNodeAnim*> channelOf;
    for (unsigned c = 0; c < anim->mNumChannels; ++c)
      if (const aiNode* n = anim->mChannels[c] ? scene->mRootNode->FindNode(anim->mChannels[c]->mNodeName) : nullptr)
        channelOf[n] = anim->mChannels[c];
    if (channelOf.empty()) continue;
    std::vector<const aiNode*> animated;
    for (const auto& [node, ch] : channelOf) animated.push_back(node);
    const RootPaths paths = rootPaths(animated);
    const std::set<const aiNode*> included = paths.from(paths.common - 1);
    const aiNode* root = paths.ancestor();
    const Mat4 above = frame * (root->mParent ? globalMatrix(root->mParent) : Mat4::Identity());

    MotionClip clip;
    clip.name = sanitizeName(anim->mName.length ? anim->mName.C_Str() : std::filesystem::path(path).stem().string());
    clip.unitScale = scale;
    clip.units = "file";
    std::vector<const aiNode*> nodes;
    std::map<const aiNode*, int32_t> index;
    std::vector<const aiNode*> stack{root};
    while (!stack.empty()) {  // depth first: parents before children, subtrees contiguous
      const aiNode* n = stack.back();
      stack.pop_back();
      if (!included.count(n)) continue;
      ClipJoint j;
      j.name = nodeName(n);
      j.parent = n == root ? -1 : index.at(n->mParent);
      j.channels = {Channel::Xposition, Channel::Yposition, Channel::Zposition,
                    Channel::Zrotation, Channel::Yrotation, Channel::Xrotation};
      j.firstChannel = 6 * int32_t(nodes.size());
      index[n] = int32_t(nodes.size());
      nodes.push_back(n);
      clip.joints.push_back(std::move(j));
      for (unsigned c = n->mNumChildren; c-- > 0;) stack.push_back(n->mChildren[c]);
    }
    // Per-node rest decomposition (translation, rotation, scale) and channel.
    struct NodeRest {
      Vec3 t, s;
      Quat r;
      const aiNodeAnim* channel;
    };
    std::vector<NodeRest> rest;
    for (const aiNode* n : nodes) {
      aiVector3D sc, pos;
      aiQuaternion rot;
      n->mTransformation.Decompose(sc, rot, pos);
      const auto it = channelOf.find(n);
      rest.push_back({toVec3(pos), toVec3(sc), toQuat(rot), it == channelOf.end() ? nullptr : it->second});
    }
    // The pose at time t (ticks; negative: the rest pose) as rigid local
    // transforms: full affine globals (scales included, as FBX armatures
    // often have them) reduced to rigid world transforms, then made relative
    // to the parent. Joint positions come out exactly right, in file units.
    auto pose = [&](double t) {
      std::vector<Mat4> global(nodes.size());
      std::vector<Transform> world(nodes.size()), local(nodes.size());
      for (size_t j = 0; j < nodes.size(); ++j) {
        const NodeRest& nr = rest[j];
        const aiNodeAnim* ch = t >= 0 ? nr.channel : nullptr;
        const Vec3 sc = ch ? sampleVector(ch->mScalingKeys, ch->mNumScalingKeys, t, nr.s) : nr.s;
        Mat4 l = Mat4::Identity();
        l.topLeftCorner<3, 3>() = sampleRotation(ch, t, nr.r).toRotationMatrix() * sc.asDiagonal();
        l.topRightCorner<3, 1>() = ch ? sampleVector(ch->mPositionKeys, ch->mNumPositionKeys, t, nr.t) : nr.t;
        global[j] = (j == 0 ? above : global[clip.joints[j].parent]) * l;
        world[j] = rigidPart(global[j], 1.0);
        local[j] = j == 0 ? world[j] : world[clip.joints[j].parent].inverse() * world[j];
      }
      return local;
    };
    const std::vector<Transform> restPose = pose(-1.0);
    for (size_t j = 0; j < nodes.size(); ++j) clip.joints[j].offset = restPose[j].translation;

    // Frame rate: the densest channel's key spacing (30 Hz if it cannot be told).
    const double ticksPerSecond = anim->mTicksPerSecond > 0 ? anim->mTicksPerSecond : 25.0;
    const double seconds = anim->mDuration / ticksPerSecond;
    unsigned maxKeys = 0;
    for (const auto& [node, ch] : channelOf) maxKeys = std::max({maxKeys, ch->mNumPositionKeys, ch->mNumRotationKeys});
    double fps = maxKeys > 1 && seconds > 0 ? (maxKeys - 1) / seconds : 30.0;
    fps = std::clamp(fps, 1.0, 240.0);
    if (!std::isfinite(seconds) || seconds < 0 || seconds * fps > double(kMaxFrames)) {
      diag.push_back({Severity::Warning, path + ": animation '" + clip.name + "' has an invalid duration; skipped"});
      continue;
    }
    clip.frameTime = 1.0 / fps;
    clip.frameCount = int32_t(std::floor(seconds * fps + 1e-9)) + 1;
    clip.values.resize(size_t(clip.frameCount) * 6 * nodes.size());
    for (int32_t f = 0; f < clip.frameCount; ++f) {
      const std::vector<Transform> local = pose(std::min(f * clip.frameTime, seconds) * ticksPerSecond);
      for (size_t j = 0; j < nodes.size(); ++j) {
        double* v = clip.values.data() + size_t(f) * 6 * nodes.size() + 6 * j;
        const Vec3 e = zyxDegrees(local[j].rotation);
        v[0] = local[j].translation.x();
        v[1] = local[j].translation.y();
        v[2] = local[j].translation.z();
        v[3] = e[0];
        v[4] = e[1];
        v[5] = e[2];
      }
    }
    clip.validate(path);
    clips.push_back(std::move(clip));
  }
  return clips;
}

// Metres per file unit. Explicit (options.scale > 0), or detected: what the
// file declares (FBX: UnitScaleFactor, centimetres per unit; Collada's <unit>
// Assimp applies itself; glTF is in metres), then checked against the size a
// character can have: a scene over 25 m tall in metres is taken to be in
// centimetres, one under 5 cm by its declared unit but plausible as it is
// keeps the file's numbers. Each decision is a diagnostic.
double resolveScale(const aiScene* scene, const std::vector<MeshInstance>& instances, const ImportOptions& options,
                    const std::string& path, Diagnostics& diag) {
  if (options.scale > 0) return options.scale;
  Aabb box;
  for (const MeshInstance& inst : instances)
    for (unsigned v = 0; v < inst.mesh->mNumVertices; ++v) {
      const aiVector3D& p = inst.mesh->mVertices[v];
      box.add((inst.transform * Eigen::Vector4d(p.x, p.y, p.z, 1.0)).head<3>());
    }
  const double size = box.empty() ? 0.0 : box.size().maxCoeff();
  double declared = 1.0;
  std::string why;
  if (scene->mMetaData) {
    double factor = 0;
    float factorF = 0;
    if (scene->mMetaData->Get("UnitScaleFactor", factor) || (scene->mMetaData->Get("UnitScaleFactor", factorF) && (factor = factorF, true))) {
      if (std::isfinite(factor) && factor > 0) {
        declared = factor * 0.01;  // FBX: centimetres per file unit
        why = "the file declares " + formatNumber(factor) + " cm per unit";
      }
    }
  }
  constexpr double kTallest = 25.0, kSmallest = 0.05;
  double scale = declared;
  if (size > 0 && size * declared < kSmallest && size >= kSmallest && size <= kTallest) {
    scale = 1.0;
    diag.push_back({Severity::Warning, path + ": " + why + ", which makes it " + formatNumber(size * declared) +
                                           " m; it is read in metres instead (give --scale to choose)"});
    return scale;
  }
  if (size * scale > kTallest && size * scale * 0.01 >= kSmallest) {
    diag.push_back({Severity::Info, path + ": " + formatNumber(size * scale) +
                                        " m across in metres: read as centimetres (give --scale to choose)"});
    return scale * 0.01;
  }
  if (!why.empty() && declared != 1.0)
    diag.push_back({Severity::Info, path + ": " + why + ": " + formatNumber(declared) + " m per unit"});
  return scale;
}

std::string displayName(const std::string& path) { return std::filesystem::path(path).filename().string(); }

}  // namespace

std::vector<std::string> importExtensions() {
  Assimp::Importer imp;
  std::string list;
  imp.GetExtensionList(list);  // "*.3ds;*.obj;..."
  std::vector<std::string> exts;
  size_t i = 0;
  while (i < list.size()) {
    size_t j = list.find(';', i);
    if (j == std::string::npos) j = list.size();
    std::string e = list.substr(i, j - i);
    if (e.rfind("*.", 0) == 0) e = e.substr(2);
    std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (!e.empty()) exts.push_back(e);
    i = j + 1;
  }
  if (std::find(exts.begin(), exts.end(), "bvh") == exts.end()) exts.push_back("bvh");
  std::sort(exts.begin(), exts.end());
  exts.erase(std::unique(exts.begin(), exts.end()), exts.end());
  return exts;
}

bool isImportable(const std::string& path) {
  const std::string e = lowerExtension(path);
  const auto exts = importExtensions();
  return std::find(exts.begin(), exts.end(), e) != exts.end();
}

ImportResult importFile(const std::string& path, const ImportOptions& options, const Progress& progress) {
  ImportOptions opt = options;
  if (!(opt.scale >= 0) || !std::isfinite(opt.scale))
    throw InputError(path, "import scale must be a positive number (or 0 to detect units)");
  if (!(opt.clipScale >= 0) || !std::isfinite(opt.clipScale))
    throw InputError(path, "clip scale must be a positive number (or 0 to detect units)");
  ImportResult r;
  r.path = path;
  r.format = lowerExtension(path);
  progress.update(0.0, "reading");
  const std::string data = readFileChecked(path);
  // A Medit tet mesh (TetGen's format; Ogre's binary .mesh goes to Assimp).
  if (r.format == "mesh" && data.find("MeshVersionFormatted") != std::string::npos &&
      data.find("MeshVersionFormatted") < 4096) {
    TetMeshFile file = parseMedit(data, path);
    VolumeObject v;
    v.name = sanitizeName(std::filesystem::path(path).stem().string());
    v.mesh = std::move(file.mesh);
    v.kind = v.mesh.region.empty() ? VolumeKind::Cage : VolumeKind::Conforming;
    const std::string jointPath = std::filesystem::path(path).replace_extension(".joint").string();
    int32_t regions = 0;
    for (int32_t k : v.mesh.region) regions = std::max(regions, k + 1);
    if (std::filesystem::exists(jointPath)) {
      const JointFile joints = readJointFile(jointPath);
      v.bones = joints.bones;
      // The joints live in the project as a skeleton (a joint per bone), from
      // which the Li 2019 solver reads them back.
      try {
        r.skeleton = skeletonFromJoints(joints, v.mesh);
      } catch (const InputError& e) {
        throw InputError(jointPath, e.what());
      }
      r.diagnostics.push_back({Severity::Info, path + ": bones and joints from " + jointPath});
    }
    for (int32_t k = int32_t(v.bones.size()); k < regions; ++k) v.bones.push_back("Bone" + std::to_string(k + 1));
    // The nodes of a bone region's tets belong to that bone.
    v.fixedBone.assign(v.mesh.nodeCount(), -1);
    for (size_t t = 0; t < v.mesh.region.size(); ++t)
      if (v.mesh.region[t] >= 0)
        for (int32_t n : v.mesh.tets[t]) v.fixedBone[size_t(n)] = v.mesh.region[t];
    r.volumes.push_back(std::move(v));
    progress.update(1.0, "done");
    return r;
  }
  if (!isImportable(path))
    throw InputError(path, r.format.empty() ? "file has no extension; cannot tell its format"
                                            : "unsupported file format '." + r.format + "'");
  precheckMeshFile(path, data, r.diagnostics);

  // Damaged files can crash or hang Assimp's loaders (seen with fuzzed .ASE
  // and .x files): read the file once in a child process first, so that a
  // crash or a hang there becomes an error message here.
  if (opt.isolate)
    readInChildProcess(path, data.size(), r.format == "bvh", opt.timeoutSeconds, progress.sub(0.0, 0.25));

  Assimp::Importer importer;
  const aiScene* scene = readScene(importer, path, r.format == "bvh", progress.sub(0.25, 0.5), &r.assimp);
  if (r.format == "bvh") {
    // Motion clip: our own reader keeps the exact channels and frame time.
    r.clips.push_back(parseBvh(data, path, opt.clipScale));
    progress.update(1.0, "done");
    return r;
  }

  const SceneFrame frame = sceneFrame(scene);
  const BindPose bind = bindPoseOf(scene, frame);
  std::vector<MeshInstance> instances;
  if (scene->mRootNode) collectInstances(scene, scene->mRootNode, bind, instances);
  opt.scale = resolveScale(scene, instances, options, path, r.diagnostics);
  r.scale = opt.scale;
  r.upAxis = frame.upAxis;
  if (frame.upAxis != "Y")
    r.diagnostics.push_back({Severity::Info, path + ": the file is " + frame.upAxis + "-up; turned to stand along +Y"});
  r.skeleton = extractSkeleton(scene, bind, opt.scale, r.diagnostics, path);
  const std::vector<std::pair<std::string, std::vector<MeshInstance>>> groups =
      groupInstances(instances, opt.grouping, sanitizeName(std::filesystem::path(path).stem().string()), r.diagnostics, path);
  for (size_t g = 0; g < groups.size(); ++g) {
    const Progress p = progress.sub(0.5 + 0.5 * g / groups.size(), 0.5 + 0.5 * (g + 1) / groups.size());
    ImportedMesh m = buildMesh(groups[g].second, groups[g].first, opt, path, r.diagnostics);
    if (m.mesh.triangles.empty()) continue;
    if (m.skin) {
      m.bindResidual = bindResidual(scene, groups[g].second, bind, opt.scale);
      const double height = std::max(m.mesh.bounds().size().maxCoeff(), 1e-12);
      r.diagnostics.push_back({m.bindResidual <= 1e-6 * height ? Severity::Info : Severity::Warning,
                               path + ": mesh '" + m.name + "': skinning the rest skeleton reproduces it to " +
                                   formatNumber(m.bindResidual / height) + " of its size"});
    }
    if (opt.validate) {
      MeshValidationOptions vo;
      vo.checkSelfIntersections = opt.checkSelfIntersections;
      m.report = validateMesh(m.mesh, vo, p);
      for (Diagnostic& d : m.report->diagnostics(displayName(path) + " [" + m.name + "]")) r.diagnostics.push_back(d);
    }
    r.meshes.push_back(std::move(m));
  }
  r.clips = clipsFromAnimations(scene, frame.up, opt.scale, path, r.diagnostics);
  if (r.empty()) throw InputError(path, "contains no triangle meshes, skeleton or animation");
  progress.update(1.0, "done");
  return r;
}

std::vector<ObjectId> addToProject(Project& project, ImportResult result, Diagnostics& outDiagnostics) {
  std::vector<ObjectId> ids;
  static const Vec3 palette[] = {{0.85, 0.72, 0.62}, {0.55, 0.7, 0.85}, {0.6, 0.8, 0.55}, {0.85, 0.6, 0.7}};
  for (ImportedMesh& m : result.meshes) {
    MeshObject o;
    o.id = project.allocateId();
    o.name = m.name;
    o.source = result.path;
    o.mesh = std::move(m.mesh);
    o.skin = std::move(m.skin);
    o.color = palette[project.meshes.size() % 4];
    ids.push_back(o.id);
    project.meshes.push_back(std::move(o));
  }
  if (result.skeleton) {
    if (!project.skeleton) {
      SkeletonObject s;
      s.id = project.allocateId();
      s.name = sanitizeName(std::filesystem::path(result.path).stem().string()) + " skeleton";
      s.skeleton = std::move(*result.skeleton);
      ids.push_back(s.id);
      project.skeleton = std::move(s);
    } else {
      outDiagnostics.push_back({Severity::Warning, result.path + ": the project already has a skeleton; "
                                                                 "the file's skeleton was not imported"});
    }
  }
  for (VolumeObject& v : result.volumes) {
    v.id = project.allocateId();
    ids.push_back(v.id);
    project.volumes.push_back(std::move(v));
  }
  for (MotionClip& c : result.clips) {
    ClipObject o;
    o.id = project.allocateId();
    o.source = result.path;
    o.clip = std::move(c);
    ids.push_back(o.id);
    project.clips.push_back(std::move(o));
  }
  return ids;
}

std::vector<std::string> exportExtensions() {
  Assimp::Exporter ex;
  std::vector<std::string> exts;
  for (size_t i = 0; i < ex.GetExportFormatCount(); ++i) exts.push_back(ex.GetExportFormatDescription(i)->fileExtension);
  std::sort(exts.begin(), exts.end());
  exts.erase(std::unique(exts.begin(), exts.end()), exts.end());
  return exts;
}

void exportMeshes(const std::vector<const MeshObject*>& meshes, const std::string& path) {
  if (meshes.empty()) throw InputError(path, "nothing to export");
  const std::string ext = lowerExtension(path);
  Assimp::Exporter ex;
  std::string formatId;
  for (size_t i = 0; i < ex.GetExportFormatCount(); ++i) {
    const aiExportFormatDesc* d = ex.GetExportFormatDescription(i);
    if (ext == d->fileExtension) {
      formatId = d->id;
      // Prefer glTF 2 over glTF 1 for .gltf/.glb.
      if (formatId.rfind("gltf2", 0) == 0 || formatId.rfind("glb2", 0) == 0) break;
    }
  }
  if (formatId.empty()) throw InputError(path, "cannot export to '." + ext + "' files");

  // Build a minimal scene: one node per mesh under the root, one material.
  auto scene = std::make_unique<aiScene>();
  scene->mRootNode = new aiNode("root");
  scene->mNumMaterials = 1;
  scene->mMaterials = new aiMaterial*[1]{new aiMaterial()};
  scene->mNumMeshes = static_cast<unsigned>(meshes.size());
  scene->mMeshes = new aiMesh*[meshes.size()];
  scene->mRootNode->mNumChildren = scene->mNumMeshes;
  scene->mRootNode->mChildren = new aiNode*[meshes.size()];
  for (size_t i = 0; i < meshes.size(); ++i) {
    const TriMesh& tm = meshes[i]->mesh;
    auto* m = new aiMesh();
    m->mName = meshes[i]->name;
    m->mPrimitiveTypes = aiPrimitiveType_TRIANGLE;
    m->mMaterialIndex = 0;
    m->mNumVertices = static_cast<unsigned>(tm.vertexCount());
    m->mVertices = new aiVector3D[tm.vertexCount()];
    m->mNormals = new aiVector3D[tm.vertexCount()];
    const std::vector<Vec3> normals = vertexNormals(tm);
    for (size_t v = 0; v < tm.vertexCount(); ++v) {
      m->mVertices[v] = aiVector3D(float(tm.positions[v].x()), float(tm.positions[v].y()), float(tm.positions[v].z()));
      m->mNormals[v] = aiVector3D(float(normals[v].x()), float(normals[v].y()), float(normals[v].z()));
    }
    m->mNumFaces = static_cast<unsigned>(tm.triangleCount());
    m->mFaces = new aiFace[tm.triangleCount()];
    for (size_t f = 0; f < tm.triangleCount(); ++f) {
      m->mFaces[f].mNumIndices = 3;
      m->mFaces[f].mIndices = new unsigned[3]{unsigned(tm.triangles[f][0]), unsigned(tm.triangles[f][1]),
                                               unsigned(tm.triangles[f][2])};
    }
    scene->mMeshes[i] = m;
    auto* node = new aiNode(meshes[i]->name);
    node->mParent = scene->mRootNode;
    node->mNumMeshes = 1;
    node->mMeshes = new unsigned[1]{static_cast<unsigned>(i)};
    scene->mRootNode->mChildren[i] = node;
  }
  // Assimp writes the file (and side files such as .mtl or .bin) itself.
  exportSceneChecked(*scene, formatId, path);
}

}  // namespace sinew
