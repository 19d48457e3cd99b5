#include "rig/QuadraticProgram.h"

#include <Eigen/SparseCholesky>

#include <algorithm>
#include <cmath>

namespace sinew {

SparseMatrix submatrix(const SparseMatrix& A, const std::vector<int32_t>& rows, const std::vector<int32_t>& cols) {
  std::vector<int32_t> rowMap(size_t(A.rows()), -1);
  for (size_t i = 0; i < rows.size(); ++i) rowMap[size_t(rows[i])] = int32_t(i);
  SparseMatrix S(Eigen::Index(rows.size()), Eigen::Index(cols.size()));
  Eigen::Index nnz = 0;
  for (int32_t c : cols)
    for (SparseMatrix::InnerIterator it(A, c); it; ++it) nnz += rowMap[size_t(it.row())] >= 0;
  S.reserve(nnz);
  // Sequential fill, column by column: rows of a compressed column are
  // ascending and rowMap is monotone, so each column stays sorted.
  for (size_t j = 0; j < cols.size(); ++j) {
    S.startVec(Eigen::Index(j));
    for (SparseMatrix::InnerIterator it(A, cols[j]); it; ++it) {
      const int32_t r = rowMap[size_t(it.row())];
      if (r >= 0) S.insertBack(r, Eigen::Index(j)) = it.value();
    }
  }
  S.finalize();
  S.makeCompressed();
  return S;
}

SparseMatrix principalSubmatrix(const SparseMatrix& A, const std::vector<int32_t>& keep) {
  return submatrix(A, keep, keep);
}

// ---------------------------------------------------------------------------

struct SpdFactor::Impl {
  Eigen::SimplicialLDLT<SparseMatrix, Eigen::Lower, Eigen::AMDOrdering<int>> ldlt;
  bool ok = false;
};

SpdFactor::SpdFactor(const SparseMatrix& A) : impl_(std::make_unique<Impl>()) {
  impl_->ldlt.compute(A);
  impl_->ok = impl_->ldlt.info() == Eigen::Success && (impl_->ldlt.vectorD().array() > 0).all();
}
SpdFactor::~SpdFactor() = default;
SpdFactor::SpdFactor(SpdFactor&&) noexcept = default;
SpdFactor& SpdFactor::operator=(SpdFactor&&) noexcept = default;
bool SpdFactor::ok() const { return impl_->ok; }
Eigen::MatrixXd SpdFactor::solve(const Eigen::MatrixXd& rhs) const { return impl_->ldlt.solve(rhs); }

// ---------------------------------------------------------------------------

namespace {

struct Box {
  const Eigen::VectorXd& lo;
  const Eigen::VectorXd& hi;
  double clamp(Eigen::Index i, double v) const { return std::min(std::max(v, lo[i]), hi[i]); }
};

// |x - P(x - D^-1 g)|_inf.
double scaledProjectedGradient(const Box& box, const Eigen::VectorXd& x, const Eigen::VectorXd& g,
                               const Eigen::VectorXd& diag) {
  double r = 0;
  for (Eigen::Index i = 0; i < x.size(); ++i) r = std::max(r, std::abs(x[i] - box.clamp(i, x[i] - g[i] / diag[i])));
  return r;
}

Eigen::VectorXd positiveDiagonal(const SparseMatrix& A) {
  Eigen::VectorXd d = A.diagonal();
  for (Eigen::Index i = 0; i < d.size(); ++i)
    if (!(d[i] > 0)) d[i] = 1.0;
  return d;
}

}  // namespace

double boxQpResidual(const SparseMatrix& A, const Eigen::VectorXd& b, const Eigen::VectorXd& lower,
                     const Eigen::VectorXd& upper, const Eigen::VectorXd& x) {
  const Eigen::VectorXd g = A * x + b;
  return scaledProjectedGradient(Box{lower, upper}, x, g, positiveDiagonal(A));
}

BoxQpResult solveBoxQp(const SparseMatrix& A, const Eigen::VectorXd& b, const Eigen::VectorXd& lower,
                       const Eigen::VectorXd& upper, Eigen::VectorXd& x, const BoxQpOptions& options,
                       const Progress& progress) {
  const Eigen::Index n = A.rows();
  assert(A.cols() == n && b.size() == n && lower.size() == n && upper.size() == n && x.size() == n);
  const Box box{lower, upper};
  const Eigen::VectorXd diag = positiveDiagonal(A);
  BoxQpResult result;
  for (Eigen::Index i = 0; i < n; ++i) x[i] = box.clamp(i, x[i]);

  Eigen::VectorXd g = A * x + b, d(n), xa(n), step(n), As(n);
  // Armijo rule along the projection arc x(a) = P(x + a d), a = 1, 1/2, ...:
  //   f(x(a)) - f(x) <= sigma g.(x(a) - x) < 0,
  // with f(x(a)) - f(x) = g.s + 1/2 s.A s (s = x(a) - x) evaluated exactly,
  // free of the cancellation in a difference of two objective values.
  auto projectedSearch = [&](const Eigen::VectorXd& dir, int maxHalvings) {
    double a = 1.0;
    for (int halvings = 0; halvings <= maxHalvings; ++halvings, a *= 0.5) {
      for (Eigen::Index i = 0; i < n; ++i) {
        xa[i] = box.clamp(i, x[i] + a * dir[i]);
        step[i] = xa[i] - x[i];
      }
      const double gs = g.dot(step);
      if (gs < 0) {
        As = A * step;
        if (gs + 0.5 * step.dot(As) <= options.armijo * gs) {
          x = xa;
          g += As;
          return true;
        }
      }
      ++result.lineSearchSteps;
    }
    return false;
  };

  std::vector<int32_t> freeSet;
  std::vector<uint8_t> fixed(size_t(n), 0);
  for (;;) {
    result.residual = scaledProjectedGradient(box, x, g, diag);
    if (result.residual <= options.tolerance) {
      result.converged = true;
      break;
    }
    if (result.iterations >= options.maxIterations) break;
    if (progress.cancelled()) throw Cancelled();
    ++result.iterations;

    // The binding set B: bounds the gradient pushes against that a scaled
    // gradient step (or eps) would reach. They go exactly onto the bound.
    const double eps = std::min(options.epsilon, result.residual);
    for (Eigen::Index i = 0; i < n; ++i) {
      const double reach = std::max(eps, std::abs(g[i]) / diag[i]);
      fixed[size_t(i)] = (g[i] > 0 && x[i] <= lower[i] + reach) || (g[i] < 0 && x[i] >= upper[i] - reach);
      // Aimed a hair past the bound, so that the clamp of a full step puts
      // the variable exactly on it (x + (bound - x) can miss by an ulp).
      d[i] = !fixed[size_t(i)] ? 0.0 : ((g[i] > 0 ? lower[i] : upper[i]) - x[i]) * (1.0 + 1e-12);
    }
    // Newton on the rest, with B on its bounds: the minimiser over that face,
    // A_FF d_F = -(g_F + A_FB d_B). (Re-solving with the variables that d_F
    // pushes out of the box pinned to their bounds was tried: three times
    // the factorisations for a few percent fewer iterations. The projection
    // clips them, and the next binding set catches them.)
    freeSet.clear();
    for (Eigen::Index i = 0; i < n; ++i)
      if (!fixed[size_t(i)]) freeSet.push_back(int32_t(i));
    if (!freeSet.empty()) {
      const Eigen::VectorXd coupling = A * d;  // A_{:,B} d_B (d_F = 0 here)
      Eigen::MatrixXd rhs(Eigen::Index(freeSet.size()), 1);
      for (size_t k = 0; k < freeSet.size(); ++k) rhs(Eigen::Index(k), 0) = -(g[freeSet[k]] + coupling[freeSet[k]]);
      const SpdFactor factor(principalSubmatrix(A, freeSet));
      ++result.factorizations;
      if (factor.ok()) {
        const Eigen::MatrixXd dF = factor.solve(rhs);
        for (size_t k = 0; k < freeSet.size(); ++k) d[freeSet[k]] = dF(Eigen::Index(k), 0);
      } else {
        // Not positive definite on this subset: the scaled gradient there.
        for (int32_t i : freeSet) d[i] = -g[i] / diag[i];
      }
    }

    // The Newton step along the projection arc; should it fail to decrease f
    // enough within 20 halvings, a projected (scaled) gradient step, which
    // always can: the gradient steps make the method globally convergent,
    // the Newton steps make it finish.
    if (!projectedSearch(d, 20)) {
      for (Eigen::Index i = 0; i < n; ++i) d[i] = -g[i] / diag[i];
      ++result.gradientSteps;
      if (!projectedSearch(d, 60)) break;  // no decrease at rounding level: as good as it gets
    }
    // Recompute the gradient from scratch now and then against drift.
    if (result.iterations % 8 == 0) g = A * x + b;
  }
  g = A * x + b;
  result.residual = scaledProjectedGradient(box, x, g, diag);
  result.converged = result.residual <= options.tolerance;
  for (Eigen::Index i = 0; i < n; ++i) {
    if (x[i] <= lower[i]) ++result.atLower;
    else if (x[i] >= upper[i]) ++result.atUpper;
  }
  return result;
}

}  // namespace sinew
