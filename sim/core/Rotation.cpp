#include "core/Rotation.h"

#include <Eigen/SVD>

namespace sinew {

Mat3 nearestRotation(const Mat3& a) {
  const Eigen::JacobiSVD<Mat3> svd(a, Eigen::ComputeFullU | Eigen::ComputeFullV);
  Mat3 u = svd.matrixU();
  if ((u * svd.matrixV().transpose()).determinant() < 0) u.col(2) *= -1;
  return u * svd.matrixV().transpose();
}

}  // namespace sinew
