#include "viper/ShapeMatching.h"

#include "core/Rotation.h"

#include <stdexcept>

namespace sinew::viper {

namespace {

// [s R, c - mu]: the 3 x 4 block of eq. 34.
Eigen::Matrix<double, 3, 4> block(const RodFrame& f, const Vec3& mean) {
  Eigen::Matrix<double, 3, 4> m;
  m.leftCols<3>() = f.scale * f.rotation;
  m.col(3) = f.center - mean;
  return m;
}

}  // namespace

Similarity matchSimilarity(const std::vector<RodFrame>& rest, const std::vector<RodFrame>& current) {
  if (rest.empty() || rest.size() != current.size())
    throw std::invalid_argument("matchSimilarity: one current frame per rest frame, at least one");
  Vec3 mu = Vec3::Zero(), muRest = Vec3::Zero();
  for (size_t i = 0; i < rest.size(); ++i) mu += current[i].center, muRest += rest[i].center;
  mu /= double(rest.size());
  muRest /= double(rest.size());
  // Eq. 34: R* nearest to sum [s R, c - mu] [s R, c - mu](rest)^T.
  Mat3 cross = Mat3::Zero();
  for (size_t i = 0; i < rest.size(); ++i) cross += block(current[i], mu) * block(rest[i], muRest).transpose();
  Similarity t;
  t.rotation = nearestRotation(cross);
  // Eq. 35-36.
  double num = 0, den = 0;
  for (size_t i = 0; i < rest.size(); ++i) {
    const Eigen::Matrix<double, 3, 4> r = block(rest[i], muRest);
    num += (t.rotation * r).cwiseProduct(block(current[i], mu)).sum();
    den += r.cwiseProduct(r).sum();
  }
  t.scale = den > 0 ? num / den : 1.0;
  t.translation = mu - t.scale * t.rotation * muRest;
  return t;
}

RodFrame apply(const Similarity& t, const RodFrame& f) {
  RodFrame out;
  out.scale = t.scale * f.scale;
  out.rotation = t.rotation * f.rotation;
  out.center = t.scale * t.rotation * f.center + t.translation;
  return out;
}

}  // namespace sinew::viper
