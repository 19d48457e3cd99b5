#include "viper/Hungarian.h"

#include <limits>
#include <stdexcept>

namespace sinew::viper {

// Rows are added one at a time; each addition grows a tree of tight edges
// (reduced cost zero under the row and column potentials u, v) from the new
// row by Dijkstra-like steps until it reaches a free column, then flips the
// path. Potentials keep every reduced cost non-negative, so the final
// matching is optimal (its reduced cost is zero).
Assignment minCostAssignment(const Eigen::MatrixXd& cost) {
  const int n = int(cost.rows());
  if (cost.cols() != n) throw std::invalid_argument("minCostAssignment: the cost matrix is not square");
  if (!cost.allFinite()) throw std::invalid_argument("minCostAssignment: the cost matrix has a non-finite entry");
  constexpr double kInf = std::numeric_limits<double>::infinity();
  // 1-based columns; column 0 is a virtual start holding the row being added.
  std::vector<double> u(size_t(n) + 1, 0.0), v(size_t(n) + 1, 0.0);
  std::vector<int> rowOfColumn(size_t(n) + 1, 0), previous(size_t(n) + 1, 0);
  for (int row = 1; row <= n; ++row) {
    rowOfColumn[0] = row;
    int column = 0;
    std::vector<double> slack(size_t(n) + 1, kInf);
    std::vector<char> used(size_t(n) + 1, 0);
    do {
      used[size_t(column)] = 1;
      const int i = rowOfColumn[size_t(column)];
      double delta = kInf;
      int next = 0;
      for (int j = 1; j <= n; ++j) {
        if (used[size_t(j)]) continue;
        const double reduced = cost(i - 1, j - 1) - u[size_t(i)] - v[size_t(j)];
        if (reduced < slack[size_t(j)]) slack[size_t(j)] = reduced, previous[size_t(j)] = column;
        if (slack[size_t(j)] < delta) delta = slack[size_t(j)], next = j;
      }
      for (int j = 0; j <= n; ++j) {
        if (used[size_t(j)]) {
          u[size_t(rowOfColumn[size_t(j)])] += delta;
          v[size_t(j)] -= delta;
        } else {
          slack[size_t(j)] -= delta;
        }
      }
      column = next;
    } while (rowOfColumn[size_t(column)] != 0);
    // Flip the alternating path back to the start.
    do {
      const int before = previous[size_t(column)];
      rowOfColumn[size_t(column)] = rowOfColumn[size_t(before)];
      column = before;
    } while (column != 0);
  }
  Assignment a;
  a.columnOfRow.assign(size_t(n), -1);
  for (int j = 1; j <= n; ++j) a.columnOfRow[size_t(rowOfColumn[size_t(j)] - 1)] = j - 1;
  for (int i = 0; i < n; ++i) a.cost += cost(i, a.columnOfRow[size_t(i)]);
  return a;
}

}  // namespace sinew::viper
