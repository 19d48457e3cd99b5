#include "io/SkinnedExport.h"

#include "core/Error.h"
#include "io/FileUtil.h"

#include <assimp/Exporter.hpp>

#include "io/AssimpWrite.h"
#include <assimp/scene.h>

#include <map>
#include <memory>

namespace sinew {

namespace {

aiMatrix4x4 toAi(const Mat4& m) {
  return aiMatrix4x4(float(m(0, 0)), float(m(0, 1)), float(m(0, 2)), float(m(0, 3)), float(m(1, 0)), float(m(1, 1)),
                     float(m(1, 2)), float(m(1, 3)), float(m(2, 0)), float(m(2, 1)), float(m(2, 2)), float(m(2, 3)),
                     float(m(3, 0)), float(m(3, 1)), float(m(3, 2)), float(m(3, 3)));
}

// Children are appended one by one; Assimp's nodes own their children.
void addChildren(aiNode* parent, const std::vector<aiNode*>& children) {
  if (children.empty()) return;
  parent->mNumChildren = unsigned(children.size());
  parent->mChildren = new aiNode*[children.size()];
  for (size_t i = 0; i < children.size(); ++i) {
    parent->mChildren[i] = children[i];
    children[i]->mParent = parent;
  }
}

std::string formatIdFor(const std::string& path) {
  const std::string ext = lowerExtension(path);
  Assimp::Exporter ex;
  std::string id;
  for (size_t i = 0; i < ex.GetExportFormatCount(); ++i) {
    const aiExportFormatDesc* d = ex.GetExportFormatDescription(i);
    if (ext != d->fileExtension) continue;
    id = d->id;
    if (id.rfind("gltf2", 0) == 0 || id.rfind("glb2", 0) == 0 || id == "fbxa") break;  // glTF 2, ASCII FBX
  }
  if (id.empty()) throw InputError(path, "cannot export a skinned character to '." + ext + "' files");
  return id;
}

}  // namespace

void exportSkinnedCharacter(const Skeleton& skeleton, const std::vector<SkinnedPart>& parts, const std::string& path,
                            const SkinnedExportOptions& opt) {
  if (skeleton.empty()) throw InputError(path, "the character has no skeleton to export");
  if (parts.empty()) throw InputError(path, "the character has no mesh to export");
  if (!(opt.unitsPerMetre > 0) || !(opt.rootScale > 0)) throw InputError(path, "units and root scale must be positive");
  const std::string formatId = formatIdFor(path);

  // The data frame: p_data = units Q p (Q turns +Y to +Z for Z-up data); the
  // root node turns it back (and scales it by rootScale).
  const Mat3 q = opt.zUp ? Mat3(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitX())) : Mat3::Identity();
  const double units = opt.unitsPerMetre;
  auto toData = [&](const Transform& world) {
    Mat4 m = Mat4::Identity();
    m.topLeftCorner<3, 3>() = q * world.rotation.toRotationMatrix();
    m.topRightCorner<3, 1>() = units * (q * world.translation);
    return m;
  };
  const std::vector<Transform> jointWorld = skeleton.worldRest();
  std::vector<Mat4> jointData(skeleton.size());
  for (size_t j = 0; j < skeleton.size(); ++j) jointData[j] = toData(jointWorld[j]);

  auto scene = std::make_unique<aiScene>();
  scene->mRootNode = new aiNode("Scene");
  scene->mNumMaterials = 1;
  scene->mMaterials = new aiMaterial*[1]{new aiMaterial()};
  aiString materialName("Skin");
  scene->mMaterials[0]->AddProperty(&materialName, AI_MATKEY_NAME);

  // Armature: root node, then a node per joint with its local rest transform.
  auto* armature = new aiNode("Armature");
  Mat4 root = Mat4::Identity();
  root.topLeftCorner<3, 3>() = opt.rootScale * q.transpose();
  armature->mTransformation = toAi(root);
  std::vector<aiNode*> jointNode(skeleton.size());
  for (size_t j = 0; j < skeleton.size(); ++j) {
    jointNode[j] = new aiNode(skeleton.joints[j].name);
    const int32_t p = skeleton.joints[j].parent;
    jointNode[j]->mTransformation = toAi(p < 0 ? jointData[j] : Mat4(jointData[size_t(p)].inverse() * jointData[j]));
  }
  if (!opt.storedPose.empty()) {
    if (opt.storedPose.size() != skeleton.size()) throw InputError(path, "the stored pose has the wrong joint count");
    const std::vector<Transform> posed = skeleton.worldFromLocal(opt.storedPose);
    for (size_t j = 0; j < skeleton.size(); ++j) {
      const int32_t p = skeleton.joints[j].parent;
      const Mat4 world = toData(posed[j]);
      jointNode[j]->mTransformation = toAi(p < 0 ? world : Mat4(toData(posed[size_t(p)]).inverse() * world));
    }
  }
  std::vector<std::vector<aiNode*>> childNodes(skeleton.size());
  std::vector<aiNode*> rootJoints;
  for (size_t j = 0; j < skeleton.size(); ++j) {
    const int32_t p = skeleton.joints[j].parent;
    (p < 0 ? rootJoints : childNodes[size_t(p)]).push_back(jointNode[j]);
  }

  // Meshes.
  scene->mNumMeshes = unsigned(parts.size());
  scene->mMeshes = new aiMesh*[parts.size()]();
  std::vector<aiNode*> sceneChildren{armature}, armatureMeshes;
  for (size_t i = 0; i < parts.size(); ++i) {
    const SkinnedPart& part = parts[i];
    const TriMesh& tm = part.mesh;
    if (part.skin) part.skin->validate(part.name, tm.vertexCount());
    auto* m = new aiMesh();
    scene->mMeshes[i] = m;
    m->mName = part.name;
    m->mPrimitiveTypes = aiPrimitiveType_TRIANGLE;
    m->mMaterialIndex = 0;
    // Rigid parts are stored in their joint's frame, skinned ones in the data frame.
    const bool rigid = !part.skin && part.parentJoint >= 0 && size_t(part.parentJoint) < skeleton.size();
    const Mat4 toLocal = rigid ? Mat4(jointData[size_t(part.parentJoint)].inverse()) : Mat4::Identity();
    const std::vector<Vec3> normals = vertexNormals(tm);
    m->mNumVertices = unsigned(tm.vertexCount());
    m->mVertices = new aiVector3D[tm.vertexCount()];
    m->mNormals = new aiVector3D[tm.vertexCount()];
    for (size_t v = 0; v < tm.vertexCount(); ++v) {
      const Vec3 data = units * (q * tm.positions[v]);
      const Vec3 d = (toLocal * Eigen::Vector4d(data.x(), data.y(), data.z(), 1.0)).head<3>();
      const Vec3 n = toLocal.topLeftCorner<3, 3>() * (q * normals[v]);
      m->mVertices[v] = aiVector3D(float(d.x()), float(d.y()), float(d.z()));
      m->mNormals[v] = aiVector3D(float(n.x()), float(n.y()), float(n.z()));
    }
    m->mNumFaces = unsigned(tm.triangleCount());
    m->mFaces = new aiFace[tm.triangleCount()];
    for (size_t f = 0; f < tm.triangleCount(); ++f) {
      m->mFaces[f].mNumIndices = 3;
      m->mFaces[f].mIndices = new unsigned[3]{unsigned(tm.triangles[f][0]), unsigned(tm.triangles[f][1]),
                                               unsigned(tm.triangles[f][2])};
    }
    auto* node = new aiNode(part.name);
    node->mNumMeshes = 1;
    node->mMeshes = new unsigned[1]{unsigned(i)};
    if (rigid) {
      childNodes[size_t(part.parentJoint)].push_back(node);
      continue;
    }
    if (!part.skin) {
      sceneChildren.push_back(node);
      continue;
    }
    // A skinned mesh sits under the armature's root, so that its node's
    // global matrix is the bind placement G_b O_b (FBX keeps that in each
    // cluster); skinnedMeshNode moves it off that, which glTF says to ignore.
    armatureMeshes.push_back(node);
    node->mTransformation = toAi(opt.skinnedMeshNode.matrix());
    // Bones: weights per joint name; offset = inverse of the joint's data-frame bind matrix.
    const SkinWeights& sw = *part.skin;
    std::map<int32_t, std::vector<aiVertexWeight>> perBone;
    for (size_t v = 0; v < sw.vertexCount(); ++v)
      for (int32_t k = sw.offsets[v]; k < sw.offsets[v + 1]; ++k)
        if (sw.weight[size_t(k)] > 0)
          perBone[sw.bone[size_t(k)]].push_back(aiVertexWeight(unsigned(v), float(sw.weight[size_t(k)])));
    std::vector<aiBone*> bones;
    for (auto& [b, weights] : perBone) {
      const int32_t j = skeleton.find(sw.bones[size_t(b)]);
      if (j < 0) throw InputError(path, "mesh '" + part.name + "' is skinned to '" + sw.bones[size_t(b)] +
                                            "', which is not a joint of the skeleton");
      auto* bone = new aiBone();
      bone->mName = sw.bones[size_t(b)];
      bone->mOffsetMatrix = toAi(jointData[size_t(j)].inverse());
      bone->mNumWeights = unsigned(weights.size());
      bone->mWeights = new aiVertexWeight[weights.size()];
      std::copy(weights.begin(), weights.end(), bone->mWeights);
      bones.push_back(bone);
    }
    m->mNumBones = unsigned(bones.size());
    m->mBones = new aiBone*[bones.size()];
    std::copy(bones.begin(), bones.end(), m->mBones);
  }
  for (size_t j = 0; j < skeleton.size(); ++j) addChildren(jointNode[j], childNodes[j]);
  rootJoints.insert(rootJoints.end(), armatureMeshes.begin(), armatureMeshes.end());
  addChildren(armature, rootJoints);
  addChildren(scene->mRootNode, sceneChildren);

  exportSceneChecked(*scene, formatId, path);
}

}  // namespace sinew
