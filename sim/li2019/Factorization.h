// The reduced global step of Li et al. 2019 (eq. 12), private to li2019/:
// the constant sparse operators and the prefactored matrix. The CHOLMOD
// templates live in Factorization.cpp alone.
#pragma once

#include "li2019/Li2019.h"

#include <Eigen/SparseCore>

#include <memory>
#include <mutex>

namespace sinew::li2019 {

struct Factorization {
  Eigen::SparseMatrix<double, Eigen::RowMajor> B;  // n x r: x = B xhat
  Eigen::SparseMatrix<double> BtMh;                // r x n: B^T M / h^2
  Eigen::SparseMatrix<double> Bt;                  // r x n
  // Solves (B^T (M/h^2 + L) B) out = rhs for the three columns.
  void solve(const Eigen::MatrixXd& rhs, Eigen::MatrixXd& out) const;
  struct Impl;
  std::unique_ptr<Impl> impl;
  mutable std::mutex mutex;  // CHOLMOD's workspace is not shared between threads
  Factorization();
  ~Factorization();
};

// Assembles B, L, J and the reduced matrix, and factors it. Throws
// InputError when the matrix is not positive definite.
std::shared_ptr<const Factorization> factorize(const Li2019Model& model);

}  // namespace sinew::li2019
