// Building the immutable model of a Liu 2013 soft character from a project.
#include "liu2013/Liu2013.h"

#include "core/Error.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <limits>
#include <numeric>

namespace sinew::liu2013 {

namespace {

const VolumeObject* findCage(const Project& project) {
  for (const VolumeObject& v : project.volumes)
    if (v.kind == VolumeKind::Cage) return &v;
  return nullptr;
}

void lame(const Material& m, double& mu, double& lambda) {
  mu = m.youngsModulus / (2 * (1 + m.poissonRatio));
  lambda = m.youngsModulus * m.poissonRatio / ((1 + m.poissonRatio) * (1 - 2 * m.poissonRatio));
}

void checkMaterial(const Material& m, const std::string& where) {
  auto bad = [&](const std::string& what) { throw InputError(where, what); };
  if (!(m.youngsModulus > 0) || !std::isfinite(m.youngsModulus)) bad("Young's modulus must be positive");
  if (!(m.poissonRatio >= 0 && m.poissonRatio < 0.495)) bad("Poisson ratio must lie in [0, 0.495)");
  if (!(m.density > 0) || !std::isfinite(m.density)) bad("density must be positive");
  if (!(m.damping >= 0) || !std::isfinite(m.damping)) bad("damping must be zero or positive");
}

}  // namespace

std::shared_ptr<const Liu2013Model> buildLiu2013Model(const Project& project, const ModelOptions& options) {
  const std::string ctx = project.name;
  if (!project.skeleton || project.skeleton->skeleton.empty())
    throw InputError(ctx, "the project has no skeleton: place joints or import a skeleton first");
  const VolumeObject* cage = findCage(project);
  if (!cage) throw InputError(ctx, "the project has no volumetric mesh: build the volumetric mesh first (Rig > Build rig, or sinew-cli rig)");
  if (cage->mesh.tets.empty()) throw InputError(cage->name, "the volumetric mesh has no tetrahedra");
  if (!cage->weights) throw InputError(cage->name, "the volumetric mesh has no skinning weights: compute weights first (Rig > Build rig)");
  const MeshObject* surface = project.findMesh(cage->surface);
  if (!surface || cage->embedding.vertexCount() != surface->mesh.positions.size())
    throw InputError(cage->name, "the volumetric mesh embeds no surface (or an outdated one): rebuild the rig");
  checkMaterial(options.material, "material");
  for (const auto& [name, m] : options.regions) checkMaterial(m, "material of " + name);
  if (!(options.pdFrequency > 0) || !(options.pdDampingRatio >= 0)) throw InputError("PD gains", "frequency must be positive and damping ratio non-negative");

  const Skeleton& skel = project.skeleton->skeleton;
  auto model = std::make_shared<Liu2013Model>();
  Liu2013Model& m = *model;
  m.volume = cage->id;
  m.surfaceId = surface->id;
  m.restNodes = cage->mesh.nodes;
  m.tets = cage->mesh.tets;
  const size_t nNodes = m.restNodes.size(), nTets = m.tets.size(), nLinks = skel.size();
  m.linkRest = skel.worldRest();
  for (const Joint& j : skel.joints) m.jointNames.push_back(j.name);

  // Bones of the volume -> links.
  std::vector<int32_t> linkOfBone(cage->bones.size(), -1);
  for (size_t b = 0; b < cage->bones.size(); ++b) linkOfBone[b] = skel.find(cage->bones[b]);

  // Node skinning influences (top maxInfluences, renormalised).
  const SkinWeights& w = *cage->weights;
  w.validate(cage->name, nNodes);
  std::vector<int32_t> linkOfWeightBone(w.bones.size());
  for (size_t b = 0; b < w.bones.size(); ++b) linkOfWeightBone[b] = skel.find(w.bones[b]);

  m.nodeLink.assign(nNodes, -1);
  for (size_t i = 0; i < nNodes; ++i) {
    const int32_t b = i < cage->fixedBone.size() ? cage->fixedBone[i] : -1;
    if (b >= 0 && b < static_cast<int32_t>(linkOfBone.size())) m.nodeLink[i] = linkOfBone[b];
  }
  m.influenceOffsets.assign(nNodes + 1, 0);
  for (size_t i = 0; i < nNodes; ++i) {
    std::vector<Influence> row;
    if (m.nodeLink[i] >= 0) {
      row.push_back({m.nodeLink[i], 1.0});
    } else {
      for (int32_t k = w.offsets[i]; k < w.offsets[i + 1]; ++k) {
        const int32_t link = linkOfWeightBone[w.bone[k]];
        if (link >= 0 && w.weight[k] > 0) row.push_back({link, w.weight[k]});
      }
      std::stable_sort(row.begin(), row.end(), [](const Influence& a, const Influence& b) { return a.weight > b.weight; });
      if (static_cast<int>(row.size()) > options.maxInfluences) row.resize(options.maxInfluences);
      double sum = 0;
      for (const Influence& f : row) sum += f.weight;
      if (row.empty() || !(sum > 0))
        throw InputError(cage->name, "node " + std::to_string(i) + " has no skinning weight on any bone of the skeleton: recompute the weights");
      for (Influence& f : row) f.weight /= sum;
    }
    m.influences.insert(m.influences.end(), row.begin(), row.end());
    m.influenceOffsets[i + 1] = static_cast<int32_t>(m.influences.size());
  }
  auto dominantLink = [&](size_t node) { return m.influences[m.influenceOffsets[node]].link; };

  // Element region: the link most influential over its four nodes.
  m.tetRegion.resize(nTets);
  for (size_t t = 0; t < nTets; ++t) {
    std::map<int32_t, double> votes;
    for (int k = 0; k < 4; ++k) {
      const int32_t n = m.tets[t][k];
      for (int32_t a = m.influenceOffsets[n]; a < m.influenceOffsets[n + 1]; ++a) votes[m.influences[a].link] += m.influences[a].weight;
    }
    m.tetRegion[t] = std::max_element(votes.begin(), votes.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
  }

  // Per-link materials.
  std::vector<Material> linkMaterial(nLinks, options.material);
  // Soles carry the body's weight on little flesh: the bones nearest the
  // ground at rest (feet) get a stiffer material unless the user set one.
  Aabb restBox;
  for (const Vec3& x : m.restNodes) restBox.add(x);
  const double lowest = restBox.min.y(), height = restBox.size().y();
  std::vector<int32_t> footLinks;  // bones with fixed nodes near the ground at rest
  {
    std::vector<double> linkLowest(nLinks, std::numeric_limits<double>::infinity());
    for (size_t i = 0; i < nNodes; ++i)
      if (m.nodeLink[i] >= 0) linkLowest[m.nodeLink[i]] = std::min(linkLowest[m.nodeLink[i]], m.restNodes[i].y());
    for (size_t l = 0; l < nLinks; ++l)
      if (linkLowest[l] < lowest + 0.08 * height) footLinks.push_back(int32_t(l));
  }
  // Feet are rigid down to a sole pad: a foot's flesh nodes (dominant
  // weight on a foot link) higher than the pad above the lowest rest node are
  // fixed to the foot's bone. (On soft feet the soles' rotational stiffness
  // was below M g h: a character held rigidly in a standing pose tipped over
  // its heels in 1.5 s.)
  if (options.solePad > 0) {
    const double pad = lowest + options.solePad * height;
    for (size_t i = 0; i < nNodes; ++i) {
      if (m.nodeLink[i] >= 0 || m.restNodes[i].y() <= pad) continue;
      const Influence f = m.influences[size_t(m.influenceOffsets[i])];
      if (f.weight < 0.5 || std::find(footLinks.begin(), footLinks.end(), f.link) == footLinks.end()) continue;
      m.nodeLink[i] = f.link;
      for (int32_t a = m.influenceOffsets[i]; a < m.influenceOffsets[i + 1]; ++a)
        m.influences[size_t(a)] = {f.link, a == m.influenceOffsets[i] ? 1.0 : 0.0};
    }
  }
  if (options.soleStiffening > 1)
    for (int32_t l : footLinks) linkMaterial[size_t(l)].youngsModulus *= options.soleStiffening;
  for (const auto& [name, mat] : options.regions) {
    const int32_t link = skel.find(name);
    if (link < 0) throw InputError("material", "no joint called '" + name + "' in the skeleton");
    linkMaterial[link] = mat;
  }

  // Elements: Bm^-1, volume, Lame parameters, lumped mass.
  m.restShapeInverse.resize(nTets);
  m.restVolume.resize(nTets);
  m.mu.resize(nTets);
  m.lambda.resize(nTets);
  m.nodeMass.assign(nNodes, 0.0);
  std::vector<double> nodeDampingMass(nNodes, 0.0);
  for (size_t t = 0; t < nTets; ++t) {
    const Tet& tet = m.tets[t];
    Mat3 bm;
    for (int k = 0; k < 3; ++k) bm.col(k) = m.restNodes[tet[k + 1]] - m.restNodes[tet[0]];
    const double vol = bm.determinant() / 6.0;
    if (!(vol > 1e-15))
      throw InputError(cage->name, "tetrahedron " + std::to_string(t) + " is degenerate or inverted at rest (volume " +
                                       std::to_string(vol) + " m^3): rebuild the volumetric mesh");
    m.restShapeInverse[t] = bm.inverse();
    m.restVolume[t] = vol;
    const Material& mat = linkMaterial[m.tetRegion[t]];
    lame(mat, m.mu[t], m.lambda[t]);
    const double quarter = mat.density * vol / 4.0;
    for (int k = 0; k < 4; ++k) {
      m.nodeMass[tet[k]] += quarter;
      nodeDampingMass[tet[k]] += quarter * mat.damping;
    }
  }
  // The cage encloses the surface loosely; scale the lumped masses so the
  // character weighs what its (closed) fine surface holds.
  {
    double surfaceVolume = 0;
    const auto& P = surface->mesh.positions;
    for (const Tri& t : surface->mesh.triangles) surfaceVolume += P[t[0]].dot(P[t[1]].cross(P[t[2]])) / 6.0;
    double cageMass = 0, cageVolume = 0;
    for (size_t i = 0; i < nNodes; ++i) cageMass += m.nodeMass[i];
    for (double v : m.restVolume) cageVolume += v;
    if (surfaceVolume > 0.2 * cageVolume && surfaceVolume < cageVolume) {
      m.massScale = surfaceVolume / cageVolume;
      for (double& mass : m.nodeMass) mass *= m.massScale;
      for (double& dm : nodeDampingMass) dm *= m.massScale;
    }
  }
  // Mass scaling, as explicit FEM codes do: nodes of tiny elements get at
  // least `minNodeMassFraction` of the mean node mass (total kept), which
  // lifts the explicit step limit set by a few small cage elements.
  if (options.minNodeMassFraction > 0) {
    double total = 0;
    for (double mass : m.nodeMass) total += mass;
    const double floorMass = options.minNodeMassFraction * total / nNodes;
    double raised = 0;
    for (size_t i = 0; i < nNodes; ++i)
      if (m.nodeMass[i] < floorMass) {
        nodeDampingMass[i] *= floorMass / m.nodeMass[i];
        m.nodeMass[i] = floorMass;
      }
    for (double mass : m.nodeMass) raised += mass;
    for (size_t i = 0; i < nNodes; ++i) {
      m.nodeMass[i] *= total / raised;
      nodeDampingMass[i] *= total / raised;
    }
  }
  // Stability by construction (see ModelOptions::stableStep): the stiffness
  // a node feels is bounded by the sum over its elements of
  // (lambda + 2 mu) V |grad N_i|^2; explicit stepping needs h^2 k / m <= 4.
  {
    std::vector<double> nodeStiffness(nNodes, 0.0);
    for (size_t t = 0; t < nTets; ++t) {
      const Mat3& bi = m.restShapeInverse[t];
      const double kt = (m.lambda[t] + 2 * m.mu[t]) * m.restVolume[t];
      const Vec3 g0 = -(bi.row(0) + bi.row(1) + bi.row(2)).transpose();
      nodeStiffness[m.tets[t][0]] += kt * g0.squaredNorm();
      for (int k = 1; k < 4; ++k) nodeStiffness[m.tets[t][k]] += kt * bi.row(k - 1).squaredNorm();
    }
    // The fine surface's contact area carried by each node (through the embedding).
    std::vector<double> contactArea(nNodes, 0.0);
    {
      const auto& P = surface->mesh.positions;
      std::vector<double> vertexArea(P.size(), 0.0);
      for (const Tri& t : surface->mesh.triangles) {
        const double a = 0.5 * (P[t[1]] - P[t[0]]).cross(P[t[2]] - P[t[0]]).norm();
        for (int32_t v : t) vertexArea[size_t(v)] += a / 3.0;
      }
      const Embedding& e = cage->embedding;
      for (size_t v = 0; v < e.vertexCount() && v < P.size(); ++v) {
        const int32_t t = e.tet[v];
        if (t < 0 || size_t(t) >= nTets) continue;
        for (int k = 0; k < 4; ++k) contactArea[size_t(m.tets[size_t(t)][k])] += std::abs(e.weights[v][k]) * vertexArea[v];
      }
    }
    m.nodeStableStep.assign(nNodes, std::numeric_limits<double>::infinity());
    m.nodeImplicitDrag.assign(nNodes, 0);
    const double h = options.stableStep;
    for (size_t i = 0; i < nNodes; ++i) {
      // Along the ground's normal: elastic and contact stiffness, contact
      // damping; across it: elastic stiffness and sticking friction (its
      // spring and damper).
      const double ke = nodeStiffness[i], a = contactArea[i];
      const double kn = ke + options.contactStiffness * a, cn = options.contactDamping * a;
      const double ct = kStickingDampingFactor * options.contactDamping * a;
      if (!(kn > 0)) continue;
      // Where the sticking drag would make the explicit step unstable, the
      // solver integrates it implicitly (unconditionally stable) instead of
      // the node being made heavier; elsewhere it stays explicit, as in the
      // paper.
      const double kt = ke + kStickingStiffnessFactor * options.contactStiffness * a;  // across: with the sticking spring
      const bool implicitDrag = h > 0 && ct > 0 && m.nodeMass[i] < 0.9 * (h * h * kt + 2 * h * ct) / 4.0;
      m.nodeImplicitDrag[i] = implicitDrag ? 1 : 0;
      const double dragBudget = implicitDrag ? 0.0 : 2 * h * ct;
      const double needed = h > 0 ? std::max(h * h * kn + 2 * h * cn, h * h * kt + dragBudget) / 4.0 : 0.0;
      // Gershgorin sums over-estimate the largest eigenvalue: act on nodes
      // more than 5 % past the bound (0.9 of the mass it asks for).
      if (m.nodeMass[i] > 0 && m.nodeMass[i] < 0.9 * needed) {
        // 10 % beyond the bound: a stretched, turning element adds geometric stiffness.
        const double mass = 1.1 * needed;
        nodeDampingMass[i] *= mass / m.nodeMass[i];
        m.addedMass += mass - m.nodeMass[i];
        m.nodeMass[i] = mass;
        ++m.massScaledNodes;
      }
      // The largest h with h^2 k + 2 h c <= 4 m, in both directions.
      const auto largest = [&](double k, double c) {
        return k > 0 ? (-c + std::sqrt(c * c + 4 * k * m.nodeMass[i])) / k : 2 * m.nodeMass[i] / std::max(c, 1e-300);
      };
      if (m.nodeMass[i] > 0) m.nodeStableStep[i] = std::min(largest(kn, cn), largest(ke, implicitDrag ? 0.0 : ct));
    }
  }
  m.poseDamping.resize(nNodes);
  for (size_t i = 0; i < nNodes; ++i) {
    if (!(m.nodeMass[i] > 0)) throw InputError(cage->name, "node " + std::to_string(i) + " belongs to no tetrahedron");
    m.poseDamping[i] = nodeDampingMass[i] / m.nodeMass[i];
  }
  m.totalMass = std::accumulate(m.nodeMass.begin(), m.nodeMass.end(), 0.0);

  // Node -> element corner incidences.
  m.cornerOffsets.assign(nNodes + 1, 0);
  for (const Tet& tet : m.tets)
    for (int32_t n : tet) ++m.cornerOffsets[n + 1];
  for (size_t i = 0; i < nNodes; ++i) m.cornerOffsets[i + 1] += m.cornerOffsets[i];
  m.corners.resize(nTets * 4);
  {
    std::vector<int32_t> fill(m.cornerOffsets.begin(), m.cornerOffsets.end() - 1);
    for (size_t t = 0; t < nTets; ++t)
      for (int k = 0; k < 4; ++k) m.corners[fill[m.tets[t][k]]++] = static_cast<int32_t>(t * 4 + k);
  }

  // Fixed nodes in their link frames; link mass properties from them.
  m.nodeLocal.assign(nNodes, Vec3::Zero());
  std::vector<double> linkMass(nLinks, 0.0);
  std::vector<Vec3> linkMoment(nLinks, Vec3::Zero());
  std::vector<int32_t> linkFixedCount(nLinks, 0);
  for (size_t i = 0; i < nNodes; ++i) {
    const int32_t link = m.nodeLink[i];
    if (link < 0) {
      m.freeNodes.push_back(static_cast<int32_t>(i));
      continue;
    }
    m.nodeLocal[i] = m.linkRest[link].inverse().apply(m.restNodes[i]);
    linkMass[link] += m.nodeMass[i];
    linkMoment[link] += m.nodeMass[i] * m.nodeLocal[i];
    ++linkFixedCount[link];
  }
  for (size_t b = 0; b < linkOfBone.size(); ++b) {
    const int32_t link = linkOfBone[b];
    if (link >= 0 && linkFixedCount[link] < 4)
      throw InputError(cage->name, "bone '" + cage->bones[b] + "' has " + std::to_string(linkFixedCount[link]) +
                                       " fixed nodes (it needs at least 4): rebuild the cage");
  }
  {
    std::string roots;
    size_t count = 0;
    for (const Joint& joint : skel.joints)
      if (joint.parent < 0) roots += std::string(count++ ? ", '" : "'") + joint.name + "'";
    if (count > 1)
      throw InputError(project.skeleton->name, "has " + std::to_string(count) + " root joints (" + roots +
                                             "); the simulation needs one: parent them under one joint");
  }
  m.skeleton.links.resize(nLinks);
  for (size_t j = 0; j < nLinks; ++j) {
    const Joint& joint = skel.joints[j];
    dyn::Link& link = m.skeleton.links[j];
    link.name = joint.name;
    link.parent = joint.parent;
    link.kind = joint.parent < 0 ? dyn::JointKind::Free
                : !joint.simulated || joint.type == JointType::Fixed ? dyn::JointKind::Fixed
                : joint.type == JointType::Hinge ? dyn::JointKind::Hinge
                                                 : dyn::JointKind::Ball;
    link.parentFromJoint = joint.restLocal;
    link.hingeAxis = joint.hingeAxis.normalized();
    link.lower = joint.limits.lower;
    link.upper = joint.limits.upper;
    dyn::Inertia& in = link.inertia;
    if (linkFixedCount[j] > 0) {
      in.mass = linkMass[j];
      in.com = linkMoment[j] / linkMass[j];
      for (size_t i = 0; i < nNodes; ++i) {
        if (m.nodeLink[i] != static_cast<int32_t>(j)) continue;
        const Vec3 r = m.nodeLocal[i] - in.com;
        in.inertia += m.nodeMass[i] * (r.squaredNorm() * Mat3::Identity() - r * r.transpose());
      }
    } else {
      // A joint with no bone (an end joint): a small ball so the dynamics stay well posed;
      // one that only follows its parent (welded) adds next to nothing to it.
      in.mass = (joint.simulated ? 1e-3 : 1e-6) * std::max(m.totalMass, 1.0);
      const double r = 0.02;
      in.inertia = Mat3::Identity() * (0.4 * in.mass * r * r);
    }
    // Keep every link's inertia comfortably positive definite (coplanar fixed nodes).
    const double floor = 1e-4 * in.mass * 0.05 * 0.05;
    in.inertia += Mat3::Identity() * floor;
  }

  // PD gains from the inertia of everything a joint moves (by dominant influence), about the joint.
  std::vector<double> subtreeInertia(nLinks, 0.0);
  for (size_t i = 0; i < nNodes; ++i) {
    for (int32_t link = dominantLink(i); link >= 0; link = skel.joints[link].parent) {
      const Vec3 pivot = m.linkRest[link].translation;
      subtreeInertia[link] += m.nodeMass[i] * (m.restNodes[i] - pivot).squaredNorm();
    }
  }
  const double omega = 2 * M_PI * options.pdFrequency;
  // The legs: every joint on a path from the root to a foot (the bones nearest the ground at rest).
  std::vector<bool> leg(nLinks, false);
  Vec3 restCom = Vec3::Zero();
  for (size_t i = 0; i < nNodes; ++i) restCom += m.nodeMass[i] * m.restNodes[i];
  restCom /= m.totalMass;
  if (options.stanceAngle > 0)
    for (int32_t foot : footLinks)
      for (int32_t link = foot; link > 0; link = skel.joints[link].parent) leg[size_t(link)] = true;
  for (size_t j = 0; j < nLinks; ++j) {
    dyn::Link& link = m.skeleton.links[j];
    double inertia = std::max(subtreeInertia[j], link.inertia.inertia.trace() / 2 + 1e-6);
    if (link.kind == dyn::JointKind::Free) continue;
    if (leg[j]) {
      const double d = (m.linkRest[j].translation - restCom).norm();
      const double stance = m.totalMass * 9.81 * d / options.stanceAngle;
      const double cap = inertia * std::pow(2 * M_PI * options.maxPdFrequency, 2);
      inertia = std::max(inertia, std::min(stance, cap) / (omega * omega));  // the load the servo carries, as an inertia
    }
    link.kp = inertia * omega * omega;
    link.kd = 2 * options.pdDampingRatio * inertia * omega;
  }

  // Fine surface and contact areas.
  m.surfaceTriangles = surface->mesh.triangles;
  m.surfaceRest = surface->mesh.positions;
  m.embedding = cage->embedding;
  m.vertexArea.assign(m.surfaceRest.size(), 0.0);
  for (const Tri& t : m.surfaceTriangles) {
    const Vec3& a = m.surfaceRest[t[0]];
    const Vec3& b = m.surfaceRest[t[1]];
    const Vec3& c = m.surfaceRest[t[2]];
    const double area = 0.5 * (b - a).cross(c - a).norm();
    for (int32_t v : t) m.vertexArea[v] += area / 3.0;
  }
  Aabb box;
  for (const Vec3& p : m.restNodes) box.add(p);
  m.characterHeight = box.size().y();
  double minStep = std::numeric_limits<double>::infinity();
  m.elementStableStep.resize(nTets);
  for (size_t t = 0; t < nTets; ++t) {
    double minEdge = std::numeric_limits<double>::infinity();
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b) minEdge = std::min(minEdge, (m.restNodes[m.tets[t][a]] - m.restNodes[m.tets[t][b]]).norm());
    // Per element: stiffness ~ (lambda + 2 mu) V / l^2 against its lightest node.
    double lightest = std::numeric_limits<double>::infinity();
    for (int k = 0; k < 4; ++k) lightest = std::min(lightest, m.nodeMass[m.tets[t][k]]);
    const double stiffness = (m.lambda[t] + 2 * m.mu[t]) * m.restVolume[t] / (minEdge * minEdge);
    m.elementStableStep[t] = 2.0 * std::sqrt(lightest / (4.0 * stiffness));
    minStep = std::min(minStep, m.elementStableStep[t]);
  }
  m.stableStepEstimate = minStep;
  for (size_t v = 0; v < m.embedding.vertexCount(); ++v) {
    const int32_t t = m.embedding.tet[v];
    if (t < 0 || t >= static_cast<int32_t>(nTets))
      throw InputError(cage->name, "surface vertex " + std::to_string(v) + " is embedded in a tetrahedron that does not exist: rebuild the rig");
  }
  // A surface vertex's sticking drag reaches its tetrahedron's four nodes: implicit if it is for any of them.
  m.vertexImplicitDrag.assign(m.embedding.vertexCount(), 0);
  for (size_t v = 0; v < m.embedding.vertexCount(); ++v)
    for (int32_t n : m.tets[size_t(m.embedding.tet[v])]) m.vertexImplicitDrag[v] |= m.nodeImplicitDrag[size_t(n)];
  m.elements = makeElementBlocks(m.tets, m.restShapeInverse, m.mu, m.lambda, m.restVolume);
  return model;
}

Material toMaterial(const FleshMaterial& m) {
  Material out;
  out.youngsModulus = m.youngsModulus;
  out.poissonRatio = m.poissonRatio;
  out.density = m.density;
  out.damping = m.damping;
  return out;
}

FleshMaterial toFleshMaterial(const Material& m) { return {m.youngsModulus, m.poissonRatio, m.density, m.damping}; }

ModelOptions modelOptionsFor(const SimulationSetup& setup) {
  ModelOptions o;
  if (const auto dt = setup.solverParam("liu2013", "dt")) o.stableStep = *dt;
  if (setup.flesh) o.material = toMaterial(*setup.flesh);
  for (const RegionMaterial& r : setup.regions) o.regions.emplace_back(r.bone, toMaterial(r.material));
  return o;
}

void applyScene(const SimulationSetup& setup, Settings& settings) {
  const Settings defaults;
  settings.groundHeight = setup.groundHeight.value_or(defaults.groundHeight);
  settings.friction = setup.groundFriction.value_or(defaults.friction);
  settings.colliders = setup.colliders;
  settings.dt = setup.solverParam("liu2013", "dt").value_or(defaults.dt);
}

StepChoice chooseStableStep(const Project& project, const StepProbe& probe, const Progress& progress) {
  StepChoice choice;
  Settings settings;
  applyScene(project.simulation, settings);
  settings.dt = Settings{}.dt;
  settings.threads = 1;  // deterministic, and the probe is short
  for (int attempt = 0; attempt <= probe.halvings; ++attempt) {
    const Progress part = progress.sub(double(attempt) / (probe.halvings + 1), double(attempt + 1) / (probe.halvings + 1));
    ModelOptions options = modelOptionsFor(project.simulation);
    options.stableStep = settings.dt;
    const std::shared_ptr<const Liu2013Model> model = buildLiu2013Model(project, options);
    // Mass scaling that would change the character's weight noticeably: a smaller step instead.
    const double bodyMass = model->totalMass - model->addedMass;
    if (model->addedMass > probe.maxAddedMassFraction * bodyMass && attempt < probe.halvings) {
      choice.failures.push_back("at " + std::to_string(settings.dt * 1000) + " ms, " +
                                std::to_string(model->massScaledNodes) + " cage nodes would need " +
                                std::to_string(model->addedMass) + " kg added to the body's " +
                                std::to_string(bodyMass) + " kg to be stable");
      settings.dt *= 0.5;
      continue;
    }
    Liu2013Solver solver(model, settings);
    const auto steps = int64_t(std::ceil(probe.seconds / settings.dt - 1e-9));
    try {
      for (int64_t k = 0; k < steps; ++k) {
        solver.step();
        if (k % 256 == 0) part.update(double(k) / double(steps), "trying a " + std::to_string(settings.dt * 1000) + " ms step");
      }
      choice.dt = settings.dt;
      return choice;
    } catch (const SimulationError& e) {
      choice.failures.push_back(e.what());
      settings.dt *= 0.5;
    }
  }
  throw InputError(project.name, "no stable time step found down to " + std::to_string(2 * settings.dt * 1000) +
                                     " ms: " + choice.failures.back());
}

}  // namespace sinew::liu2013
