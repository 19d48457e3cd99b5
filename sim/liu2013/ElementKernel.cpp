// The element loop of the Liu 2013 step, kLanes elements per operation (see
// ElementKernel.h). Written with GCC/Clang vector extensions: a `V` is kLanes
// doubles and every operator acts lane by lane.
#include "liu2013/ElementKernel.h"

#include "core/Lanes.h"
#include "core/Rotation.h"

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
void polarFallback(const Mat3& a, Mat3& r) { r = nearestRotation(a); }

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
  e.blocks = lanes::blockCount(e.count);
  e.node = lanes::blockCorners(tets);
  e.restShapeInverse = lanes::blockMatrices(restShapeInverse);
  e.mu = lanes::blockScalars(mu);
  e.lambda = lanes::blockScalars(lambda);
  e.restVolume = lanes::blockScalars(restVolume);
  return e;
}

// ---------------------------------------------------------------------------
// The vector kernel (helpers in core/Lanes.h)

using namespace lanes;
static_assert(liu2013::kLanes == lanes::kLanes);

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
      const Mask ok1 = polarNewton(x1, kFlat, kNewtonIterations), ok2 = polarNewton(x2, kFlat, kNewtonIterations);
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
      const Mask ok = polarNewton(x1, kFlat, kNewtonIterations);
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
      if (in.limiterBudget) {
        // Along x the limiter is as stiff as k |dJ/dx|^2 (its Gauss-Newton
        // part), with dJ/dx = cof(F) Bm^-T per corner. A squashed element that
        // is also stretched across has a large cofactor, and a k that fits the
        // explicit step at rest then no longer does: k is capped to the budget.
        M grad;
        mulNT(cf, bmInv, grad);                         // dJ/dx of corners 1..3 (columns)
        V curvature = squaredNorm(grad);
        for (int r = 0; r < 3; ++r) {
          const V corner0 = grad(r, 0) + grad(r, 1) + grad(r, 2);
          curvature += corner0 * corner0;
        }
        V budget;
        for (int l = 0; l < kLanes; ++l) budget[l] = in.limiterBudget[elem[l]];
        k = select(k * curvature > budget, budget / curvature, k);
      }
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
      // Corner 0 from registers, not read back from the corners just
      // written (that read waits on the stores: 12 % of the kernel).
      const Vec3 c1(hb[0][l], hb[1][l], hb[2][l]), c2(hb[3][l], hb[4][l], hb[5][l]), c3(hb[6][l], hb[7][l], hb[8][l]);
      Vec3* corner = out.cornerForce + t * 4;
      corner[0] = -(c1 + c2 + c3);
      corner[1] = c1, corner[2] = c2, corner[3] = c3;
      out.energy[t] = eb[l];
      out.inverted[t] = jb[l] <= 0 ? 1 : 0;
    }
  }
}

}  // namespace sinew::liu2013
