// Eight doubles per operation for the element kernels (Liu 2013's force
// loop, Li 2019's local step). Written with GCC/Clang vector extensions: a
// `V` is kLanes doubles and every operator acts lane by lane; the kernels
// that use these are compiled for several instruction sets (target_clones)
// with -ffp-contract=off, so every lane rounds as the scalar formula would
// and results do not depend on the machine's SIMD width.
//
// Private to the kernels' translation units: the helpers are always inlined,
// so no vector crosses a call boundary.
#pragma once

#include "core/Types.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

// Passing a vector by value would change the ABI between instruction sets;
// none crosses a call (everything here is always inlined).
#pragma GCC diagnostic ignored "-Wpsabi"

#define SINEW_LANES_INLINE inline __attribute__((always_inline))

namespace sinew::lanes {

inline constexpr int kLanes = 8;

using V = double __attribute__((vector_size(kLanes * sizeof(double))));
using Mask = decltype(V{} < V{});

// A 3x3 matrix per lane, column-major like Eigen: a[col * 3 + row].
struct M {
  V a[9];
  V& operator()(int r, int c) { return a[c * 3 + r]; }
  const V& operator()(int r, int c) const { return a[c * 3 + r]; }
};

SINEW_LANES_INLINE V load(const double* p) {
  V v;
  std::memcpy(&v, p, sizeof(V));
  return v;
}
SINEW_LANES_INLINE void store(const V& v, double* p) { std::memcpy(p, &v, sizeof(V)); }
SINEW_LANES_INLINE V splat(double s) { return V{} + s; }
SINEW_LANES_INLINE bool any(const Mask& m) {
  for (int l = 0; l < kLanes; ++l)
    if (m[l]) return true;
  return false;
}
SINEW_LANES_INLINE V select(const Mask& m, const V& a, const V& b) { return m ? a : b; }

// C = A B
SINEW_LANES_INLINE void mul(const M& A, const M& B, M& C) {
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) C(r, c) = A(r, 0) * B(0, c) + A(r, 1) * B(1, c) + A(r, 2) * B(2, c);
}
// C = A^T B
SINEW_LANES_INLINE void mulTN(const M& A, const M& B, M& C) {
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) C(r, c) = A(0, r) * B(0, c) + A(1, r) * B(1, c) + A(2, r) * B(2, c);
}
// C = A B^T
SINEW_LANES_INLINE void mulNT(const M& A, const M& B, M& C) {
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) C(r, c) = A(r, 0) * B(c, 0) + A(r, 1) * B(c, 1) + A(r, 2) * B(c, 2);
}
// Columns x1 x x2, x2 x x0, x0 x x1: det(X) X^-T, the derivative of det X.
SINEW_LANES_INLINE void cofactor(const M& X, M& C) {
  for (int c = 0; c < 3; ++c) {
    const int i = (c + 1) % 3, j = (c + 2) % 3;
    C(0, c) = X(1, i) * X(2, j) - X(2, i) * X(1, j);
    C(1, c) = X(2, i) * X(0, j) - X(0, i) * X(2, j);
    C(2, c) = X(0, i) * X(1, j) - X(1, i) * X(0, j);
  }
}
// det X from its cofactor matrix: the first column's dot product.
SINEW_LANES_INLINE V detFrom(const M& X, const M& C) { return X(0, 0) * C(0, 0) + X(1, 0) * C(1, 0) + X(2, 0) * C(2, 0); }
SINEW_LANES_INLINE V squaredNorm(const M& X) {
  V s = X.a[0] * X.a[0];
  for (int k = 1; k < 9; ++k) s += X.a[k] * X.a[k];
  return s;
}

// a / b, rounded exactly as the division is, from y = 1 / b: two
// residual corrections by fused multiply-adds (the remainder a - b q is exact
// in an FMA, and one correction of a quotient within an ulp gives the
// correctly rounded one: Markstein's theorem). Four FMAs and a product cost
// far less than a division, which lets several quotients by the same b share
// one. Where the machine has no FMA, the division itself.
inline const bool kHasFma = __builtin_cpu_supports("fma");
SINEW_LANES_INLINE V fma(const V& a, const V& b, const V& c) {
  V r;
  for (int l = 0; l < kLanes; ++l) r[l] = __builtin_fma(a[l], b[l], c[l]);
  return r;
}
SINEW_LANES_INLINE V divide(const V& a, const V& b, const V& y) {
  if (!kHasFma) return a / b;
  const V q0 = a * y;
  const V q1 = fma(fma(-b, q0, a), y, q0);  // within an ulp of a / b
  return fma(fma(-b, q1, a), y, q1);        // the rounded a / b
}

// Newton's polar iteration X <- (X + X^-T) / 2 on every lane of X (in
// place), each lane stopping once a step changes it by less than 1e-10
// (squared Frobenius norm), as polarRotation() in liu2013 does. Lanes
// flatter than `flat` (det relative to size^3) or inverted are not touched.
// Returns the lanes it handled and converged within `maxIterations`: the
// caller takes the others by an exact fallback.
SINEW_LANES_INLINE Mask polarNewton(M& X, double flat, int maxIterations) {
  M C;
  cofactor(X, C);
  V d = detFrom(X, C);
  const V scale = squaredNorm(X) / 3.0;
  const Mask ok = (d > 0.0) & (d * d > flat * flat * scale * scale * scale);
  Mask active = ok;
  for (int it = 0; it < maxIterations && any(active); ++it) {
    if (it > 0) {
      cofactor(X, C);
      d = detFrom(X, C);
    }
    M next;
    V change = splat(0.0);
    const V inverse = 1.0 / d;
    for (int k = 0; k < 9; ++k) {
      next.a[k] = 0.5 * (X.a[k] + divide(C.a[k], d, inverse));
      const V diff = next.a[k] - X.a[k];
      change += diff * diff;
    }
    for (int k = 0; k < 9; ++k) X.a[k] = select(active, next.a[k], X.a[k]);
    active = active & (change >= 1e-10);
  }
  return ok & ~active;
}

SINEW_LANES_INLINE Mat3 lane(const M& A, int l) {
  Mat3 r;
  for (int k = 0; k < 9; ++k) r.data()[k] = A.a[k][l];
  return r;
}
SINEW_LANES_INLINE void setLane(M& A, int l, const Mat3& r) {
  for (int k = 0; k < 9; ++k) A.a[k][l] = r.data()[k];
}

// Per-element Mat3s of the block's lanes (AoS, Eigen layout) -> M.
SINEW_LANES_INLINE void gather(const Mat3* src, const size_t* elem, M& A) {
  alignas(64) double buf[9][kLanes];
  for (int l = 0; l < kLanes; ++l) {
    const double* p = src[elem[l]].data();
    for (int k = 0; k < 9; ++k) buf[k][l] = p[k];
  }
  for (int k = 0; k < 9; ++k) A.a[k] = load(buf[k]);
}
// M -> per-element Mat3s of the first `valid` lanes.
SINEW_LANES_INLINE void scatter(const M& A, const size_t* elem, int valid, Mat3* dst) {
  alignas(64) double buf[9][kLanes];
  for (int k = 0; k < 9; ++k) store(A.a[k], buf[k]);
  for (int l = 0; l < valid; ++l)
    for (int k = 0; k < 9; ++k) dst[elem[l]].data()[k] = buf[k][l];
}
// Edge matrix [p1 - p0, p2 - p0, p3 - p0] of per-node points; node is
// [corner][lane].
SINEW_LANES_INLINE void edges(const Vec3* p, const int32_t* node, M& A) {
  alignas(64) double buf[9][kLanes];
  for (int l = 0; l < kLanes; ++l) {
    const Vec3& p0 = p[node[l]];
    for (int c = 1; c < 4; ++c) {
      const Vec3& pc = p[node[c * kLanes + l]];
      for (int k = 0; k < 3; ++k) buf[(c - 1) * 3 + k][l] = pc[k] - p0[k];
    }
  }
  for (int k = 0; k < 9; ++k) A.a[k] = load(buf[k]);
}

// Per-element data laid out for the kernels: blocks of kLanes, field-major
// inside a block ([block][field entry][lane]); lanes past the last element
// repeat it (they are computed and never written back).
inline size_t blockCount(size_t elements) { return (elements + kLanes - 1) / kLanes; }
template <class Corners>  // std::array<int32_t, 4> per tet
std::vector<int32_t> blockCorners(const std::vector<Corners>& tets) {
  const size_t slots = blockCount(tets.size()) * kLanes;
  std::vector<int32_t> out(slots * 4);
  for (size_t s = 0; s < slots; ++s)
    for (int c = 0; c < 4; ++c) out[(s / kLanes * 4 + size_t(c)) * kLanes + s % kLanes] = tets[std::min(s, tets.size() - 1)][size_t(c)];
  return out;
}
inline std::vector<double> blockMatrices(const std::vector<Mat3>& m) {
  const size_t slots = blockCount(m.size()) * kLanes;
  std::vector<double> out(slots * 9);
  for (size_t s = 0; s < slots; ++s)
    for (int k = 0; k < 9; ++k) out[(s / kLanes * 9 + size_t(k)) * kLanes + s % kLanes] = m[std::min(s, m.size() - 1)].data()[k];
  return out;
}
inline std::vector<double> blockScalars(const std::vector<double>& v) {
  const size_t slots = blockCount(v.size()) * kLanes;
  std::vector<double> out(slots);
  for (size_t s = 0; s < slots; ++s) out[s] = v[std::min(s, v.size() - 1)];
  return out;
}

}  // namespace sinew::lanes
