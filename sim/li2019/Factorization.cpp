#include "li2019/Factorization.h"

#include "core/Error.h"

#include <Eigen/CholmodSupport>

namespace sinew::li2019 {

struct Factorization::Impl {
  Eigen::CholmodSupernodalLLT<Eigen::SparseMatrix<double>> llt;
};

Factorization::Factorization() : impl(std::make_unique<Impl>()) {}
Factorization::~Factorization() = default;

void Factorization::solve(const Eigen::MatrixXd& rhs, Eigen::MatrixXd& out) const {
  std::lock_guard lock(mutex);
  out = impl->llt.solve(rhs);
}

std::shared_ptr<const Factorization> factorize(const Li2019Model& m) {
  using Triplet = Eigen::Triplet<double>;
  const size_t n = m.nodeCount(), T = m.tetCount();
  const int32_t r = m.reducedSize;
  const double h = m.options.dt;
  auto f = std::make_shared<Factorization>();

  // B: a flesh node is its own row of xhat; a bone node is [X - c0, 1] times
  // its bone's four rows.
  std::vector<Triplet> b;
  b.reserve(n * 4);
  for (size_t i = 0; i < n; ++i) {
    const int32_t k = m.exact() ? m.nodeBone[i] : -1;
    const int32_t row = m.reducedIndex[i];
    if (k < 0) {
      b.emplace_back(int(i), row, 1.0);
    } else {
      const Vec3 rel = m.restNodes[i] - m.bones[size_t(k)].restCentroid;
      for (int a = 0; a < 3; ++a) b.emplace_back(int(i), row + a, rel[a]);
      b.emplace_back(int(i), row + 3, 1.0);
    }
  }
  Eigen::SparseMatrix<double> B{Eigen::Index(n), Eigen::Index(r)};
  B.setFromTriplets(b.begin(), b.end());
  f->B = B;
  f->Bt = B.transpose();

  // M / h^2 and L = sum w G G^T (scalar, shared by x, y and z).
  std::vector<Triplet> a;
  a.reserve(n + T * 16);
  for (size_t i = 0; i < n; ++i) a.emplace_back(int(i), int(i), m.nodeMass[i] / (h * h));
  for (size_t k = 0; k < m.pinWeight.size(); ++k)
    a.emplace_back(m.options.pinnedNodes[k], m.options.pinnedNodes[k], m.pinWeight[k]);  // attachments
  for (size_t t = 0; t < T; ++t) {
    const Eigen::Matrix<double, 4, 3>& G = m.tetGradient[t];
    const double w = m.tetWeight[t];
    const Eigen::Matrix4d GGt = w * G * G.transpose();
    for (int p = 0; p < 4; ++p) {
      for (int q = 0; q < 4; ++q) a.emplace_back(m.tets[t][p], m.tets[t][q], GGt(p, q));
    }
  }
  const long rows = long(n);
  Eigen::SparseMatrix<double> A(rows, rows);
  A.setFromTriplets(a.begin(), a.end());
  Eigen::SparseMatrix<double> Mh(rows, rows);
  {
    std::vector<Triplet> d;
    for (size_t i = 0; i < n; ++i) d.emplace_back(int(i), int(i), m.nodeMass[i] / (h * h));
    Mh.setFromTriplets(d.begin(), d.end());
  }
  f->BtMh = f->Bt * Mh;
  const Eigen::SparseMatrix<double> K = f->Bt * A * B;
  f->impl->llt.compute(K);
  if (f->impl->llt.info() != Eigen::Success)
    throw InputError("li2019", "the reduced system B^T (M/h^2 + L) B is not positive definite (is a part of the mesh "
                               "without mass?)");
  return f;
}

}  // namespace sinew::li2019
