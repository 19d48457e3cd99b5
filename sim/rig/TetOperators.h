// Linear finite-element operators on a tet mesh (piecewise-linear "hat"
// functions phi_i, one per node): the stiffness matrix (the cotangent
// Laplacian of the volume), the lumped mass matrix and the bilaplacian built
// from them. Used by the skinning weights (BoneWeights.h); the solvers of later
// issues build their elastic operators the same way.
//
// Sign convention: stiffnessMatrix() returns K_ij = sum_t |V_t| grad phi_i .
// grad phi_j, which is symmetric positive semidefinite with rows summing to
// zero; the Laplace-Beltrami operator of the mesh is -M^-1 K.
#pragma once

#include "core/Types.h"
#include "volume/TetMesh.h"

#include <Eigen/SparseCore>

#include <vector>

namespace sinew {

using SparseMatrix = Eigen::SparseMatrix<double>;  // column-major

// Gradients of the four barycentric (hat) functions of tet t, constant over
// the tet, 1/metres; they sum to zero. All zero when the tet is degenerate
// (|volume| below 1e-14 of its longest edge cubed).
std::array<Vec3, 4> tetGradients(const TetMesh& mesh, size_t t);

// FEM stiffness ("cotangent Laplacian") K (nNodes x nNodes), metres. For each
// tet, K_ij += |V| grad phi_i . grad phi_j, which equals the classic
// cotangent formula: K_ij = -1/6 sum over tets on edge ij of l_kl cot(theta_kl)
// with theta_kl the dihedral angle at the opposite edge kl. Degenerate tets
// contribute nothing.
SparseMatrix stiffnessMatrix(const TetMesh& mesh);

// Lumped mass: node i gets a quarter of the volume of each tet around it
// (nNodes), m^3. Sums to the mesh volume.
Eigen::VectorXd lumpedMass(const TetMesh& mesh);

// The bilaplacian K M^-1 K (nNodes x nNodes) of Jacobson et al. 2011 with
// the implicit natural boundary conditions of that paper, 1/metres. `mass`
// entries must be positive where K has a nonzero column.
SparseMatrix bilaplacian(const SparseMatrix& K, const Eigen::VectorXd& mass);

// Connected components of the mesh through its non-degenerate tets: the
// component id of each node (nNodes), ids 0.. in order of the lowest node;
// nodes in no non-degenerate tet are components of their own.
std::vector<int32_t> nodeComponents(const TetMesh& mesh, int32_t* outCount = nullptr);

// Nodes sharing a tet edge with each node, in CSR form (sorted, no self).
struct NodeAdjacency {
  std::vector<int32_t> offsets;    // (nNodes + 1)
  std::vector<int32_t> neighbors;  // (offsets.back())
};
NodeAdjacency nodeAdjacency(const TetMesh& mesh);

}  // namespace sinew
