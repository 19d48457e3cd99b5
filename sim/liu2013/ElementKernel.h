// The element loop of the Liu 2013 step (eq. 7-16 with pose-based plasticity),
// eight elements at a time. Elements are stored in blocks of kLanes with
// structure-of-arrays fields, so that every arithmetic operation of the kernel
// acts on a whole block at once (SIMD registers: one AVX-512, two AVX2 or four
// SSE2 operations; the kernel is compiled for each and picked at run time).
//
// Each lane computes exactly what a scalar implementation of the same
// formulas would: lanes never mix, converged lanes of the polar iteration are
// frozen, and no floating-point contraction is allowed, so an element's result
// does not depend on the block it sits in, the instruction set, or the thread
// count. Rare cases (an inverted or flat element's polar decomposition, a
// collapsed plastic reference) leave the vector path for a scalar one.
#pragma once

#include "core/Types.h"
#include "volume/TetMesh.h"

#include <array>
#include <cstdint>
#include <vector>

namespace sinew::liu2013 {

inline constexpr int kLanes = 8;  // = lanes::kLanes (core/Lanes.h, checked in the kernel)

// The elements' immutable data, in blocks of kLanes. Lanes past the last
// element repeat it and are never written back.
struct ElementBlocks {
  size_t count = 0;                  // elements
  size_t blocks = 0;                 // ceil(count / kLanes)
  std::vector<int32_t> node;         // [block][corner 0..3][lane]
  std::vector<double> restShapeInverse;  // Bm^-1 [block][col-major entry 0..8][lane]
  std::vector<double> mu, lambda, restVolume;  // [block][lane]
  bool operator==(const ElementBlocks&) const = default;
};

ElementBlocks makeElementBlocks(const std::vector<Tet>& tets, const std::vector<Mat3>& restShapeInverse,
                                const std::vector<double>& mu, const std::vector<double>& lambda,
                                const std::vector<double>& restVolume);

struct ElementInput {
  const Vec3* x = nullptr;           // node positions
  const Vec3* v = nullptr;           // node velocities (Rayleigh damping)
  const Vec3* reference = nullptr;   // skinned reference positions x~ (plasticity)
  const double* limiterStiffness = nullptr;  // per element
  // Per element: the most the limiter's stiffness k |dJ/dx|^2 (summed over
  // the corners) may reach, so that the explicit step stays stable while the
  // element is deformed (null: no cap; the solver sets 3 m / (h^2 V), m the
  // element's lightest node).
  const double* limiterBudget = nullptr;
  bool plasticity = true;
  bool rayleigh = false;
  double rayleighStiffness = 0;      // beta
  double minPlasticStretch = 0.3;
  double maxPlasticStretch = 2.0;
  double compressionLimit = 0.3;
};

struct ElementOutput {
  Mat3* rotation = nullptr;          // R of F (read: warm start; written)
  Mat3* plasticRotation = nullptr;   // R* of F_p F^T (read and written)
  Vec3* cornerForce = nullptr;       // [element * 4 + corner]
  double* energy = nullptr;          // elastic energy per element
  uint8_t* inverted = nullptr;       // det F <= 0 per element
};

// Elements of blocks [firstBlock, lastBlock).
void computeElements(const ElementBlocks& e, size_t firstBlock, size_t lastBlock, const ElementInput& in,
                     const ElementOutput& out);

// The scalar parts, also used on their own.
// Polar rotation R of A = R S, warm-started at (and written to) r.
void polarRotation(const Mat3& a, Mat3& r);
// The plastic reference F_p with its principal stretches kept in [minStretch, maxStretch].
Mat3 clampPlasticStretch(const Mat3& fp, double minStretch, double maxStretch);

}  // namespace sinew::liu2013
