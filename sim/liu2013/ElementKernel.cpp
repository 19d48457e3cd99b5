// The element loop of the Liu 2013 step, kLanes elements per operation (see
// ElementKernel.h). Written with GCC/Clang vector extensions: a `V` is kLanes
// doubles and every operator acts lane by lane.
#include "liu2013/ElementKernel.h"

#include <Eigen/SVD>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace sinew::liu2013 {

// ---------------------------------------------------------------------------
// Scalar parts

namespace {

// Newton's polar iteration halves a tiny singular value's reciprocal per
// step before it converges quadratically: elements flatter than kFlat
// (det relative to size^3) go to the exact SVD fallback instead, and so does
// any lane not converged after kNewtonIterations.
constexpr double kFlat = 1e-4;
constexpr int kNewtonIterations = 20;

// X = r^T A is invertible enough for Newton's polar iteration (relative to its size).
bool invertible(const Mat3& x) {
  const double scale = x.squaredNorm() / 3.0;
  return x.determinant() > kFlat * scale * std::sqrt(scale);
}

// Inverted or flat: the proper rotation maximising tr(R^T A), U diag(1, 1,
// det U V^T) V^T from the SVD (never a reflection; the smallest singular
// direction takes the sign, as in invertible FEM). Exact, and rare enough
// that its cost does not matter.
void polarFallback(const Mat3& a, Mat3& r) {
  Eigen::JacobiSVD<Mat3> svd(a, Eigen::ComputeFullU | Eigen::ComputeFullV);
  Mat3 u = svd.matrixU();
  const Mat3& v = svd.matrixV();
  if ((u * v.transpose()).determinant() < 0) u.col(2) = -u.col(2);
  r = u * v.transpose();
}

}  // namespace

// Newton's iteration X <- (X + X^-T) / 2 on X = r^T A, which is nearly
// symmetric when r is the previous step's rotation: two or three iterations
// reach 1e-10.
void polarRotation(const Mat3& a, Mat3& r) {
  Mat3 x = r.transpose() * a;
  if (!invertible(x)) return polarFallback(a, r);
  for (int it = 0;; ++it) {
    if (it == kNewtonIterations) return polarFallback(a, r);
    const Mat3 next = 0.5 * (x + x.inverse().transpose());
    const double change = (next - x).squaredNorm();
    x = next;
    if (change < 1e-10) break;
  }
  r = r * x;
}

// Linear blend skinning collapses elements at deep creases (groin, armpit)
// and can even invert them; flesh cannot, so the reference is projected back
// to a valid shape (an inverted F_p gets its smallest singular value's sign
// flipped first, as in invertible FEM).
Mat3 clampPlasticStretch(const Mat3& fp, double minStretch, double maxStretch) {
  Eigen::JacobiSVD<Mat3> svd(fp, Eigen::ComputeFullU | Eigen::ComputeFullV);
  Mat3 u = svd.matrixU(), v = svd.matrixV();
  Vec3 sigma = svd.singularValues();
  if (u.determinant() < 0) {
    u.col(2) = -u.col(2);
    sigma[2] = -sigma[2];
  }
  if (v.determinant() < 0) {
    v.col(2) = -v.col(2);
    sigma[2] = -sigma[2];
  }
  for (int k = 0; k < 3; ++k) sigma[k] = std::clamp(sigma[k], minStretch, maxStretch);
  return u * sigma.asDiagonal() * v.transpose();
}

ElementBlocks makeElementBlocks(const std::vector<Tet>& tets, const std::vector<Mat3>& restShapeInverse,
                                const std::vector<double>& mu, const std::vector<double>& lambda,
                                const std::vector<double>& restVolume) {
  ElementBlocks e;
  e.count = tets.size();
  e.blocks = (e.count + kLanes - 1) / kLanes;
  const size_t slots = e.blocks * kLanes;
  e.node.resize(slots * 4);
  e.restShapeInverse.resize(slots * 9);
  e.mu.resize(slots);
  e.lambda.resize(slots);
  e.restVolume.resize(slots);
  for (size_t s = 0; s < slots; ++s) {
    const size_t t = std::min(s, e.count - 1), b = s / kLanes, l = s % kLanes;
    for (int c = 0; c < 4; ++c) e.node[(b * 4 + c) * kLanes + l] = tets[t][c];
    for (int k = 0; k < 9; ++k) e.restShapeInverse[(b * 9 + k) * kLanes + l] = restShapeInverse[t].data()[k];
    e.mu[s] = mu[t];
    e.lambda[s] = lambda[t];
    e.restVolume[s] = restVolume[t];
  }
  return e;
}

// ---------------------------------------------------------------------------
// The vector kernel

namespace {

// The vector helpers below are always inlined into computeElements' clones,
// so no vector ever crosses a call boundary: GCC's note that passing one
// would change the ABI does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

#define SINEW_LANES_INLINE inline __attribute__((always_inline))

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

// Newton's polar iteration on every lane of X (in place), stopping each lane
// where the scalar polarRotation() would. Returns the lanes it could handle:
// the others (inverted or flat X) are left as they were.
SINEW_LANES_INLINE Mask polarNewton(M& X) {
  M C;
  cofactor(X, C);
  V d = detFrom(X, C);
  const V scale = squaredNorm(X) / 3.0;
  const Mask ok = (d > 0.0) & (d * d > kFlat * kFlat * scale * scale * scale);
  Mask active = ok;
  for (int it = 0; it < kNewtonIterations && any(active); ++it) {
    if (it > 0) {
      cofactor(X, C);
      d = detFrom(X, C);
    }
    M next;
    V change = splat(0.0);
    for (int k = 0; k < 9; ++k) {
      next.a[k] = 0.5 * (X.a[k] + C.a[k] / d);
      const V diff = next.a[k] - X.a[k];
      change += diff * diff;
    }
    for (int k = 0; k < 9; ++k) X.a[k] = select(active, next.a[k], X.a[k]);
    active = active & (change >= 1e-10);
  }
  return ok & ~active;  // lanes still moving did not converge: the fallback takes them
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
// Edge matrix [p1 - p0, p2 - p0, p3 - p0] of per-node points.
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

}  // namespace

__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
void computeElements(const ElementBlocks& e, size_t firstBlock, size_t lastBlock, const ElementInput& in,
                     const ElementOutput& out) {
  for (size_t b = firstBlock; b < lastBlock; ++b) {
    size_t elem[kLanes];
    const int valid = static_cast<int>(std::min<size_t>(kLanes, e.count - b * kLanes));
    for (int l = 0; l < kLanes; ++l) elem[l] = b * kLanes + std::min(l, valid - 1);
    const int32_t* node = &e.node[b * 4 * kLanes];
    M bmInv;
    for (int k = 0; k < 9; ++k) bmInv.a[k] = load(&e.restShapeInverse[(b * 9 + k) * kLanes]);
    const V mu = load(&e.mu[b * kLanes]), lambda = load(&e.lambda[b * kLanes]);
    const V volume = load(&e.restVolume[b * kLanes]);

    M ds, f;
    edges(in.x, node, ds);
    mul(ds, bmInv, f);                                  // eq. 9: F = Ds Bm^-1
    M rot0, rot, x1;
    gather(out.rotation, elem, rot0);
    mulTN(rot0, f, x1);
    M g;                                                // R R_p^T F_p (no plasticity: R)
    V restJ = splat(1.0);                               // det F_p, the volume ratio the reference asks for
    if (in.plasticity) {
      M dp, fp;
      edges(in.reference, node, dp);
      mul(dp, bmInv, fp);                               // F_p = B_p Bm^-1
      M cfp;
      cofactor(fp, cfp);
      restJ = detFrom(fp, cfp);
      // Collapsed (small det) or possibly overstretched (|F_p|^2 bounds the
      // largest stretch squared): those lanes get the exact clamp.
      const Mask collapsed = (restJ < in.minPlasticStretch) | (squaredNorm(fp) > in.maxPlasticStretch * in.maxPlasticStretch);
      if (any(collapsed))
        for (int l = 0; l < kLanes; ++l)
          if (collapsed[l]) {
            const Mat3 clamped = clampPlasticStretch(lane(fp, l), in.minPlasticStretch, in.maxPlasticStretch);
            setLane(fp, l, clamped);
            restJ[l] = clamped.determinant();
          }
      M p, rs0, x2;
      mulNT(fp, f, p);                                  // F_p F^T = R* S*
      gather(out.plasticRotation, elem, rs0);
      mulTN(rs0, p, x2);
      const Mask ok1 = polarNewton(x1), ok2 = polarNewton(x2);
      M rs;
      mul(rot0, x1, rot);
      mul(rs0, x2, rs);
      for (int l = 0; l < kLanes; ++l) {
        if (!ok1[l]) {
          Mat3 r = lane(rot0, l);
          polarFallback(lane(f, l), r);
          setLane(rot, l, r);
        }
        if (!ok2[l]) {
          Mat3 r = lane(rs0, l);
          polarFallback(lane(p, l), r);
          setLane(rs, l, r);
        }
      }
      mulTN(rs, fp, g);                                 // R R_p^T F_p with R_p = R* R
      alignas(64) double buf[9][kLanes];
      for (int k = 0; k < 9; ++k) store(rs.a[k], buf[k]);
      for (int l = 0; l < valid; ++l)
        for (int k = 0; k < 9; ++k) out.plasticRotation[elem[l]].data()[k] = buf[k][l];
    } else {
      const Mask ok = polarNewton(x1);
      mul(rot0, x1, rot);
      for (int l = 0; l < kLanes; ++l)
        if (!ok[l]) {
          Mat3 r = lane(rot0, l);
          polarFallback(lane(f, l), r);
          setLane(rot, l, r);
        }
      g = rot;
    }

    M diff, strain, stress;
    for (int k = 0; k < 9; ++k) diff.a[k] = f.a[k] - g.a[k];
    mulTN(rot, diff, strain);                           // eq. 15: R^T F - R_p^T F_p
    const V tr = strain(0, 0) + strain(1, 1) + strain(2, 2);
    for (int k = 0; k < 9; ++k) stress.a[k] = 2.0 * mu * diff.a[k] + lambda * tr * rot.a[k];  // eq. 16
    V energy = mu * squaredNorm(strain) + 0.5 * lambda * tr * tr;
    // Compression limiter: k/2 (J - limit J_p)^2 below the limit (see Liu2013.h).
    M cf;
    cofactor(f, cf);
    const V j = detFrom(f, cf), jMin = in.compressionLimit * restJ;
    const Mask limited = j < jMin;
    if (any(limited)) {
      V k;
      for (int l = 0; l < kLanes; ++l) k[l] = in.limiterStiffness[elem[l]];
      const V excess = j - jMin;
      for (int c = 0; c < 9; ++c) stress.a[c] = select(limited, stress.a[c] + k * excess * cf.a[c], stress.a[c]);
      energy = select(limited, energy + 0.5 * k * excess * excess, energy);
    }
    energy = volume * energy;
    if (in.rayleigh) {
      M dv, rate, d;
      edges(in.v, node, dv);
      mul(dv, bmInv, rate);
      mulTN(rot, rate, d);
      M sym;
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) sym(r, c) = 0.5 * (d(r, c) + d(c, r));
      const V trs = sym(0, 0) + sym(1, 1) + sym(2, 2);
      M t, rt;
      for (int k = 0; k < 9; ++k) t.a[k] = 2.0 * mu * sym.a[k];
      for (int k = 0; k < 3; ++k) t(k, k) += lambda * trs;
      mul(rot, t, rt);
      for (int k = 0; k < 9; ++k) stress.a[k] += in.rayleighStiffness * rt.a[k];
    }
    M h;
    mulNT(stress, bmInv, h);                            // corner forces -V P Bm^-T
    alignas(64) double hb[9][kLanes], rb[9][kLanes], eb[kLanes], jb[kLanes];
    for (int k = 0; k < 9; ++k) {
      store(-volume * h.a[k], hb[k]);
      store(rot.a[k], rb[k]);
    }
    store(energy, eb);
    store(j, jb);
    for (int l = 0; l < valid; ++l) {
      const size_t t = elem[l];
      for (int k = 0; k < 9; ++k) out.rotation[t].data()[k] = rb[k][l];
      Vec3* corner = out.cornerForce + t * 4;
      for (int c = 0; c < 3; ++c) corner[c + 1] = Vec3(hb[c * 3][l], hb[c * 3 + 1][l], hb[c * 3 + 2][l]);
      corner[0] = -(corner[1] + corner[2] + corner[3]);
      out.energy[t] = eb[l];
      out.inverted[t] = jb[l] <= 0 ? 1 : 0;
    }
  }
}

}  // namespace sinew::liu2013
