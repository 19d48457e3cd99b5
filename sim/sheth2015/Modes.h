// Linear modal analysis of a tet mesh (the basis of a reduced body): linear
// FEM stiffness K and lumped mass M (3n x 3n), and the lowest vibration modes
// of K phi = lambda M phi. Spectra's shift-invert Lanczos on sparse matrices,
// kept in this translation unit with its heavy templates.
#pragma once

#include "core/Types.h"
#include "volume/TetMesh.h"

#include <Eigen/Core>
#include <Eigen/SparseCore>

#include <string>
#include <vector>

namespace sinew::sheth2015 {

// K (3n x 3n) of linear elasticity (Lame lambda, mu) on the tets.
Eigen::SparseMatrix<double> linearStiffness(const TetMesh& mesh, double youngsModulus, double poissonRatio);

struct Modes {
  Eigen::VectorXd eigenvalues;   // lambda = (2 pi f)^2, ascending, the rigid ones included
  Eigen::MatrixXd vectors;       // 3n x count, M-orthonormal
};

// The `count` lowest generalized eigenpairs of (K, diag(mass) per
// coordinate). Throws InputError(context, ...) when Spectra does not
// converge.
Modes lowestModes(const Eigen::SparseMatrix<double>& K, const std::vector<double>& mass, int count,
                  const std::string& context);

}  // namespace sinew::sheth2015
