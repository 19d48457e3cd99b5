// Minimum-cost perfect matching on a square cost matrix (the assignment
// problem), by the Hungarian method with potentials (Kuhn 1955, Munkres
// 1957), O(n^3). VIPER's "combing" (Angles et al. 2019, Section 8.1) joins
// the K samples of one muscle slice to the K samples of the next by it.
#pragma once

#include <Eigen/Core>

#include <vector>

namespace sinew::viper {

struct Assignment {
  std::vector<int> columnOfRow;  // row i goes to column columnOfRow[i]
  double cost = 0;               // sum of cost(i, columnOfRow[i])
};

// Throws std::invalid_argument for a non-square or non-finite matrix.
Assignment minCostAssignment(const Eigen::MatrixXd& cost);

}  // namespace sinew::viper
