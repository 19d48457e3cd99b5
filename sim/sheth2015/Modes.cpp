#include "sheth2015/Modes.h"

#include "core/Error.h"

#include <Spectra/MatOp/SparseSymMatProd.h>
#include <Spectra/MatOp/SymShiftInvert.h>
#include <Spectra/SymGEigsShiftSolver.h>

#include <Eigen/Dense>

#include <algorithm>

namespace sinew::sheth2015 {

Eigen::SparseMatrix<double> linearStiffness(const TetMesh& mesh, double E, double nu) {
  const double lambda = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
  std::vector<Eigen::Triplet<double>> entries;
  entries.reserve(mesh.tetCount() * 144);
  for (const Tet& t : mesh.tets) {
    const Vec3& x0 = mesh.nodes[size_t(t[0])];
    Mat3 Dm;
    for (int k = 0; k < 3; ++k) Dm.col(k) = mesh.nodes[size_t(t[size_t(k + 1)])] - x0;
    const double volume = Dm.determinant() / 6;
    if (!(std::abs(volume) > 0)) continue;
    const Mat3 inv = Dm.inverse();  // row k: gradient of barycentric k+1
    Vec3 grad[4];
    for (int k = 0; k < 3; ++k) grad[k + 1] = inv.row(k).transpose();
    grad[0] = -(grad[1] + grad[2] + grad[3]);
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b) {
        const Mat3 block = std::abs(volume) * (lambda * grad[a] * grad[b].transpose() + mu * grad[b] * grad[a].transpose() +
                                               mu * grad[a].dot(grad[b]) * Mat3::Identity());
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) entries.emplace_back(3 * t[size_t(a)] + i, 3 * t[size_t(b)] + j, block(i, j));
      }
  }
  const Eigen::Index n = Eigen::Index(3 * mesh.nodeCount());
  Eigen::SparseMatrix<double> K(n, n);
  K.setFromTriplets(entries.begin(), entries.end());
  return K;
}

Modes lowestModes(const Eigen::SparseMatrix<double>& K, const std::vector<double>& mass, int count,
                  const std::string& context) {
  const Eigen::Index n = K.rows();
  Eigen::SparseMatrix<double> M(n, n);
  std::vector<Eigen::Triplet<double>> d;
  for (size_t i = 0; i < mass.size(); ++i)
    for (int k = 0; k < 3; ++k) d.emplace_back(Eigen::Index(3 * i + size_t(k)), Eigen::Index(3 * i + size_t(k)), mass[i]);
  M.setFromTriplets(d.begin(), d.end());
  Modes out;
  if (n <= 600 || count + 2 >= n) {  // small bodies: dense
    const Eigen::MatrixXd Kd(K), Md(M);
    Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> dense(Kd, Md);
    if (dense.info() != Eigen::Success) throw InputError(context, "the modal analysis failed");
    out.eigenvalues = dense.eigenvalues().head(std::min<Eigen::Index>(count, n));
    out.vectors = dense.eigenvectors().leftCols(out.eigenvalues.size());
    return out;
  }
  // Shift below zero so that K - sigma M is positive definite (K is singular:
  // the rigid modes).
  const double scale = K.diagonal().maxCoeff() / std::max(1e-300, *std::max_element(mass.begin(), mass.end()));
  const double sigma = -1e-6 * scale;
  using Op = Spectra::SymShiftInvert<double, Eigen::Sparse, Eigen::Sparse>;
  using BOp = Spectra::SparseSymMatProd<double>;
  Op op(K, M);
  BOp bop(M);
  const Eigen::Index ncv = std::min<Eigen::Index>(n, std::max<Eigen::Index>(2 * count + 1, 20));
  Spectra::SymGEigsShiftSolver<Op, BOp, Spectra::GEigsMode::ShiftInvert> eigs(op, bop, count, ncv, sigma);
  eigs.init();
  eigs.compute(Spectra::SortRule::LargestMagn, 1000, 1e-10);
  if (eigs.info() != Spectra::CompInfo::Successful)
    throw InputError(context, "the modal analysis did not converge (Spectra)");
  // Spectra returns them largest first (of 1/(lambda - sigma)): smallest lambda first after reversing.
  const Eigen::VectorXd values = eigs.eigenvalues();
  const Eigen::MatrixXd vectors = eigs.eigenvectors();
  std::vector<Eigen::Index> order(size_t(values.size()));
  for (size_t i = 0; i < order.size(); ++i) order[i] = Eigen::Index(i);
  std::sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) { return values[a] < values[b]; });
  out.eigenvalues.resize(values.size());
  out.vectors.resize(n, values.size());
  for (size_t i = 0; i < order.size(); ++i) {
    out.eigenvalues[Eigen::Index(i)] = values[order[i]];
    out.vectors.col(Eigen::Index(i)) = vectors.col(order[i]);
  }
  return out;
}

}  // namespace sinew::sheth2015
