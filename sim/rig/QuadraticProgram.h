// Sparse quadratic minimisation: a factorised SPD matrix, quadratics with
// fixed (Dirichlet) variables, and convex quadratic programs with box bounds
// (the constrained solve behind bounded biharmonic weights, BoneWeights.h).
// This is the only translation unit of sim/rig that instantiates Eigen's
// sparse factorisations.
#pragma once

#include "core/Progress.h"
#include "rig/TetOperators.h"

#include <Eigen/Core>

#include <memory>
#include <vector>

namespace sinew {

// The rows and columns `keep` (ascending indices into A) of a sparse matrix:
// A(keep, keep), (keep.size() x keep.size()).
SparseMatrix principalSubmatrix(const SparseMatrix& A, const std::vector<int32_t>& keep);

// A(rows, cols) for ascending index lists.
SparseMatrix submatrix(const SparseMatrix& A, const std::vector<int32_t>& rows, const std::vector<int32_t>& cols);

// A sparse symmetric positive definite matrix factorised once (LDL^T with
// an approximate-minimum-degree ordering), solved against many right-hand
// sides.
class SpdFactor {
 public:
  explicit SpdFactor(const SparseMatrix& A);
  ~SpdFactor();
  SpdFactor(SpdFactor&&) noexcept;
  SpdFactor& operator=(SpdFactor&&) noexcept;
  // False when A was not positive definite (a zero or negative pivot).
  bool ok() const;
  Eigen::MatrixXd solve(const Eigen::MatrixXd& rhs) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Minimises 1/2 x^T A x + b^T x over box bounds lower <= x <= upper, A sparse
// symmetric positive definite (n x n): a projected Newton method that
// combines the binding set of Bertsekas (1982) "Projected Newton methods for
// optimization problems with simple constraints" with the step of the
// primal-dual active set / semismooth Newton method (Hintermueller, Ito and
// Kunisch 2002), globalised by a search along the projection arc with a
// projected-gradient fallback (More and Toraldo 1991):
//
//   g = A x + b;  D = diag(A);  P = clamp to the box
//   r = x - P(x - D^-1 g)              scaled projected gradient: r = 0 exactly at
//                                      the KKT point, |r| is in units of x
//   stop when |r|_inf <= tolerance
//   B = {i : g_i > 0, x_i - lower_i <= max(eps, g_i / D_ii)} u (the same at upper)
//                                      the bounds the gradient pushes against and a
//                                      scaled gradient step would reach, eps = min(epsilon, |r|_inf)
//   d_B = bound - x_B                  onto those bounds
//   A_FF d_F = -(g_F + A_FB d_B)       F = the rest: the exact minimiser over the face
//                                      of the box where B lies on its bounds (one sparse LDL^T)
//   x <- P(x + a d), the first a in 1, 1/2, ..., 2^-20 with f(x(a)) - f(x) <= sigma g.(x(a) - x) < 0
//   if there is none: the same search along d = -D^-1 g (which always succeeds)
//
// Why this method: every iteration adds and drops many bounds at once. A
// classical active-set method changes one bound per iteration and needs
// hundreds of iterations on skinning problems, where a bone's weight is zero
// over most of the mesh; ADMM and projected gradients converge linearly and
// take thousands of iterations to reach 1e-6 on the ill-conditioned
// bilaplacian; an interior-point method never puts a weight exactly on 0 or 1.
// Here, once B is the optimal active set, the full step lands on the exact
// minimiser, so the method stops after a few iterations (about 7 per bone
// for skinning weights, at most 14 on the benchmark cage) with a residual at
// rounding level. The gradient
// fallback makes it converge from any start.
struct BoxQpOptions {
  double tolerance = 1e-10;   // on |r|_inf, units of x
  double epsilon = 1e-3;      // width of the binding band, units of x
  int maxIterations = 100;
  double armijo = 1e-4;       // sufficient-decrease fraction sigma
};

struct BoxQpResult {
  bool converged = false;
  int iterations = 0;         // outer iterations
  int factorizations = 0;     // sparse LDL^T factorisations (one per iteration)
  int gradientSteps = 0;      // iterations whose Newton step failed the line search
  int lineSearchSteps = 0;    // step halvings over all iterations
  double residual = 0;        // final |r|_inf (scaled projected gradient: the KKT residual)
  int atLower = 0, atUpper = 0;  // variables on their bounds at the end
};

// `ioX` is the starting point (projected onto the box first) and the result.
// Throws Cancelled (checked once per iteration, without reporting progress,
// so it may run on a worker thread) when `progress` is cancelled.
BoxQpResult solveBoxQp(const SparseMatrix& A, const Eigen::VectorXd& b, const Eigen::VectorXd& lower,
                       const Eigen::VectorXd& upper, Eigen::VectorXd& ioX, const BoxQpOptions& options = {},
                       const Progress& progress = Progress::none());

// The KKT residual of x for the box QP above (the |r|_inf that solveBoxQp
// stops on), for tests and reports.
double boxQpResidual(const SparseMatrix& A, const Eigen::VectorXd& b, const Eigen::VectorXd& lower,
                     const Eigen::VectorXd& upper, const Eigen::VectorXd& x);

}  // namespace sinew
