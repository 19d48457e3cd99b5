#include "core/Error.h"
#include "li2019/Factorization.h"
#include "li2019/Li2019.h"
#include "li2019/LocalKernel.h"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <limits>

namespace sinew::li2019 {

std::shared_ptr<const Li2019Model> buildLi2019Model(const Input& in, const ModelOptions& o) {
  const TetMesh& mesh = in.mesh;
  if (mesh.nodes.empty() || mesh.tets.empty()) throw InputError("li2019", "the tet mesh is empty");
  if (!(o.youngsModulus > 0) || !(o.poissonRatio >= 0 && o.poissonRatio < 0.5) || !(o.density > 0) ||
      !(o.boneDensity > 0) || !(o.dt > 0) || !(o.boneStiffnessRatio > 0))
    throw InputError("li2019", "material and time step must be positive (Poisson ratio in [0, 0.5))");
  if (!mesh.region.empty() && mesh.region.size() != mesh.tets.size())
    throw InputError("li2019", "the tet mesh has " + std::to_string(mesh.region.size()) + " region labels for " +
                                   std::to_string(mesh.tets.size()) + " tets");
  auto m = std::make_shared<Li2019Model>();
  m->options = o;
  m->restNodes = mesh.nodes;
  m->tets = mesh.tets;
  const size_t n = mesh.nodes.size(), T = mesh.tets.size();
  m->tetRegion = mesh.region.empty() ? std::vector<int32_t>(T, -1) : mesh.region;
  const int32_t boneCount = int32_t(in.bones.size());
  for (size_t t = 0; t < T; ++t) {
    const int32_t k = m->tetRegion[t];
    if (k < -1 || k >= boneCount)
      throw InputError("li2019", "tet " + std::to_string(t) + " belongs to region " + std::to_string(k) +
                                     ", but there are " + std::to_string(boneCount) + " bones");
    for (int c = 0; c < 4; ++c)
      if (mesh.tets[t][c] < 0 || size_t(mesh.tets[t][c]) >= n)
        throw InputError("li2019", "tet " + std::to_string(t) + " refers to node " + std::to_string(mesh.tets[t][c]) +
                                       " of " + std::to_string(n));
  }

  // Nodes of each bone; a node in two bones means the bones touch.
  m->nodeBone.assign(n, -1);
  for (size_t t = 0; t < T; ++t) {
    const int32_t k = m->tetRegion[t];
    if (k < 0) continue;
    for (int c = 0; c < 4; ++c) {
      int32_t& b = m->nodeBone[size_t(mesh.tets[t][c])];
      if (b >= 0 && b != k)
        throw InputError("li2019", "bones '" + in.bones[size_t(b)] + "' and '" + in.bones[size_t(k)] + "' share node " +
                                       std::to_string(mesh.tets[t][c]) +
                                       ": bone regions must be separated by flesh (a conforming mesh)");
      b = k;
    }
  }

  // Tets: gradient operator, weight; lumped masses.
  const double mu = o.youngsModulus / (2 * (1 + o.poissonRatio));
  m->nodeMass.assign(n, 0.0);
  m->tetWeight.resize(T);
  m->tetGradient.resize(T);
  std::vector<Mat3> restShapeInverse(T);
  for (size_t t = 0; t < T; ++t) {
    const Tet& tet = mesh.tets[t];
    Mat3 Dm;
    for (int c = 0; c < 3; ++c) Dm.col(c) = mesh.nodes[size_t(tet[c + 1])] - mesh.nodes[size_t(tet[0])];
    const double volume = Dm.determinant() / 6;
    if (!(volume > 0))
      throw InputError("li2019", "tet " + std::to_string(t) + " is inverted or flat (volume " + std::to_string(volume) +
                                     " m^3)");
    const Mat3 inv = Dm.inverse();
    Eigen::Matrix<double, 4, 3> G;
    G.row(0) = -inv.colwise().sum();
    G.bottomRows<3>() = inv;
    m->tetGradient[t] = G;
    restShapeInverse[t] = inv;
    const bool bone = m->tetRegion[t] >= 0;
    m->tetWeight[t] = 2 * mu * volume * (bone && o.rigid == RigidMode::Stiffness ? o.boneStiffnessRatio : 1.0);
    const double mass = (bone ? o.boneDensity : o.density) * volume;
    for (int c = 0; c < 4; ++c) m->nodeMass[size_t(tet[c])] += mass / 4;
  }
  m->tetBlocks = std::make_shared<const TetBlocks>(makeTetBlocks(mesh.tets, restShapeInverse, m->tetWeight));
  m->cornerOffsets.assign(n + 1, 0);
  for (const Tet& tet : mesh.tets)
    for (int c = 0; c < 4; ++c) ++m->cornerOffsets[size_t(tet[c]) + 1];
  for (size_t i = 0; i < n; ++i) m->cornerOffsets[i + 1] += m->cornerOffsets[i];
  m->corners.resize(T * 4);
  {
    std::vector<int32_t> fill(m->cornerOffsets.begin(), m->cornerOffsets.end() - 1);
    for (size_t t = 0; t < T; ++t)
      for (int c = 0; c < 4; ++c) m->corners[size_t(fill[size_t(mesh.tets[t][c])]++)] = int32_t(t * 4) + c;
  }
  for (size_t i = 0; i < n; ++i) {
    if (!(m->nodeMass[i] > 0)) throw InputError("li2019", "node " + std::to_string(i) + " belongs to no tet");
    m->totalMass += m->nodeMass[i];
  }
  for (int32_t i : o.pinnedNodes) {
    if (i < 0 || size_t(i) >= n)
      throw InputError("li2019", "pinned node " + std::to_string(i) + " is not a node of the mesh (" + std::to_string(n) +
                                     " nodes)");
    if (!(o.pinStiffness > 0) || !std::isfinite(o.pinStiffness))
      throw InputError("li2019", "the pin stiffness must be positive");
    m->pinWeight.push_back(o.pinStiffness * m->nodeMass[size_t(i)] / (o.dt * o.dt));
  }
  {
    std::vector<int32_t> sorted = o.pinnedNodes;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
      throw InputError("li2019", "node " + std::to_string(*std::adjacent_find(sorted.begin(), sorted.end())) +
                                     " is pinned twice");
  }
  Aabb all;
  for (const Vec3& p : mesh.nodes) all.add(p);
  m->size = all.diagonal();

  // Bones.
  m->bones.resize(size_t(boneCount));
  for (int32_t k = 0; k < boneCount; ++k) m->bones[size_t(k)].name = in.bones[size_t(k)];
  for (size_t i = 0; i < n; ++i)
    if (m->nodeBone[i] >= 0) m->bones[size_t(m->nodeBone[i])].nodes.push_back(int32_t(i));
  for (Bone& b : m->bones) {
    if (b.nodes.size() < 4)
      throw InputError("li2019", "bone '" + b.name + "' has " + std::to_string(b.nodes.size()) +
                                     " nodes; a rigid bone needs at least 4 that are not coplanar");
    Aabb box;
    for (int32_t i : b.nodes) {
      b.mass += m->nodeMass[size_t(i)];
      b.restCentroid += m->nodeMass[size_t(i)] * mesh.nodes[size_t(i)];
      box.add(mesh.nodes[size_t(i)]);
    }
    b.restCentroid /= b.mass;
    b.size = box.diagonal();
    for (int32_t i : b.nodes) {
      const Vec3 r = mesh.nodes[size_t(i)] - b.restCentroid;
      b.secondMoment += m->nodeMass[size_t(i)] * r * r.transpose();
    }
    b.inertia = b.secondMoment.trace() * Mat3::Identity() - b.secondMoment;
    // Coplanar nodes leave the second moment singular: the affine map is not determined.
    const Eigen::SelfAdjointEigenSolver<Mat3> eig(b.secondMoment);
    if (!(eig.eigenvalues()[0] > 1e-12 * std::max(eig.eigenvalues()[2], 1e-300)))
      throw InputError("li2019", "bone '" + b.name + "': its " + std::to_string(b.nodes.size()) +
                                     " nodes are coplanar; a rigid bone needs 4 that are not");
  }

  // Joints.
  for (const RegionJoint& j : in.joints) {
    const std::string label = "joint '" + j.name + "'";
    if (j.parentBone < 0 || j.parentBone >= boneCount || j.childBone < 0 || j.childBone >= boneCount)
      throw InputError("li2019", label + " connects bones " + std::to_string(j.parentBone) + " and " +
                                     std::to_string(j.childBone) + ", but there are " + std::to_string(boneCount));
    if (j.parentBone == j.childBone) throw InputError("li2019", label + " connects bone '" + in.bones[size_t(j.parentBone)] + "' to itself");
    // A joint belongs between its bones: within reach of each, measured by
    // the larger of the two (a short root bone of 2 cm hangs its 7 cm-away
    // pelvis joint on a lever, which a rigid body holds exactly).
    const double reach = std::max(m->bones[size_t(j.parentBone)].size, m->bones[size_t(j.childBone)].size);
    for (int32_t k : {j.parentBone, j.childBone}) {
      const Bone& b = m->bones[size_t(k)];
      double nearest = std::numeric_limits<double>::infinity();
      for (int32_t i : b.nodes) nearest = std::min(nearest, (mesh.nodes[size_t(i)] - j.position).norm());
      if (nearest > reach)
        throw InputError("li2019", label + " does not touch bone '" + b.name + "': it lies " + std::to_string(nearest) +
                                       " m from the bone's nearest node (bone sizes up to " + std::to_string(reach) + " m)");
    }
    Joint joint;
    joint.name = j.name;
    joint.boneA = j.parentBone;
    joint.boneB = j.childBone;
    joint.localA = j.position - m->bones[size_t(j.parentBone)].restCentroid;
    joint.localB = j.position - m->bones[size_t(j.childBone)].restCentroid;
    if (j.hingeAxis) {
      if (!j.hingeAxis->allFinite() || !(j.hingeAxis->norm() > 1e-9))
        throw InputError("li2019", label + ": the hinge axis is not a direction");
      joint.hinge = true;
      joint.axis = j.hingeAxis->normalized();
      joint.normal1 = joint.axis.unitOrthogonal();
      joint.normal2 = joint.axis.cross(joint.normal1);
    }
    m->joints.push_back(joint);
  }

  // Reduction: flesh nodes first, then four rows per bone.
  m->reducedIndex.assign(n, -1);
  int32_t row = 0;
  for (size_t i = 0; i < n; ++i)
    if (!m->exact() || m->nodeBone[i] < 0) m->reducedIndex[i] = row++;
  if (m->exact()) {
    std::vector<int32_t> first(static_cast<size_t>(boneCount));
    for (int32_t k = 0; k < boneCount; ++k) first[size_t(k)] = row, row += 4;
    for (size_t i = 0; i < n; ++i)
      if (m->nodeBone[i] >= 0) m->reducedIndex[i] = first[size_t(m->nodeBone[i])];
  }
  m->reducedSize = row;
  m->factor = factorize(*m);
  return m;
}

Li2019State restState(const Li2019Model& m) {
  Li2019State s;
  s.x = m.restNodes;
  s.v.assign(m.nodeCount(), Vec3::Zero());
  s.a.assign(m.nodeCount(), Vec3::Zero());
  s.tetRotation.assign(m.tetCount(), Mat3::Identity());
  s.bones.resize(m.bones.size());
  for (size_t k = 0; k < m.bones.size(); ++k) s.bones[k].centroid = m.bones[k].restCentroid;
  s.contactNormal.assign(m.nodeCount(), 0.0);
  s.contactTangent.assign(m.nodeCount(), Vec3::Zero());
  return s;
}

}  // namespace sinew::li2019
