// Scale-invariant shape matching (Angles et al. 2019, Section 7.3, eq.
// 32-36): the similarity transform T* = (s*, R*, c*) that best maps the rest
// frames of a bundle's cross-section (T_i = [s_i R_i, c_i]) onto their
// current ones, after Umeyama 1991; the bundle constraint then sets every
// T_i to T* T_i(rest).
#pragma once

#include "core/Types.h"

#include <vector>

namespace sinew::viper {

struct Similarity {
  double scale = 1;
  Mat3 rotation = Mat3::Identity();
  Vec3 translation = Vec3::Zero();
};

struct RodFrame {  // one rod's node in a cross-section: s R and c
  double scale = 1;
  Mat3 rotation = Mat3::Identity();
  Vec3 center = Vec3::Zero();
};

// Throws std::invalid_argument when the sizes differ or are zero.
Similarity matchSimilarity(const std::vector<RodFrame>& rest, const std::vector<RodFrame>& current);

// T* T_i: the frame the constraint asks for.
RodFrame apply(const Similarity& t, const RodFrame& f);

}  // namespace sinew::viper
