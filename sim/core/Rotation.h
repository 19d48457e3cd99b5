// The rotation nearest to a 3x3 matrix: the proper rotation R maximising
// tr(R^T A), U diag(1, 1, det(U V^T)) V^T from the SVD A = U S V^T (the polar
// factor, with a reflection turned into a rotation by flipping the smallest
// singular direction, as invertible FEM does). Exact; used where the fast
// iterations do not apply (inverted or flat elements, Procrustes fits).
#pragma once

#include "core/Types.h"

namespace sinew {

Mat3 nearestRotation(const Mat3& a);

}  // namespace sinew
