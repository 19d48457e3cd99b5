#include "geometry/Intersect.h"

#include <algorithm>
#include <cmath>

namespace sinew {

std::optional<RayTriangleHit> intersectRayTriangle(const Vec3& origin, const Vec3& dir, const Vec3& a,
                                                   const Vec3& b, const Vec3& c) {
  const Vec3 e1 = b - a, e2 = c - a;
  const Vec3 p = dir.cross(e2);
  const double det = e1.dot(p);
  const double scale = e1.norm() * e2.norm() * dir.norm();
  if (std::abs(det) <= 1e-14 * scale) return std::nullopt;  // parallel or degenerate
  const double inv = 1.0 / det;
  const Vec3 s = origin - a;
  const double u = s.dot(p) * inv;
  if (u < 0.0 || u > 1.0) return std::nullopt;
  const Vec3 q = s.cross(e1);
  const double v = dir.dot(q) * inv;
  if (v < 0.0 || u + v > 1.0) return std::nullopt;
  const double t = e2.dot(q) * inv;
  if (t < 0.0) return std::nullopt;
  return RayTriangleHit{t, u, v};
}

bool segmentCrossesTriangle(const Vec3& p, const Vec3& q, const Vec3& a, const Vec3& b, const Vec3& c,
                            double eps) {
  const auto hit = intersectRayTriangle(p, q - p, a, b, c);
  return hit && hit->t > eps && hit->t < 1.0 - eps;
}

namespace {

// 2D helpers for the coplanar case: project onto the plane's dominant axes.
struct P2 {
  double x, y;
};
double orient2(const P2& a, const P2& b, const P2& c) {
  return (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
}
bool segmentsIntersect2(const P2& a, const P2& b, const P2& c, const P2& d) {
  const double d1 = orient2(c, d, a), d2 = orient2(c, d, b);
  const double d3 = orient2(a, b, c), d4 = orient2(a, b, d);
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) return true;
  auto onSeg = [](const P2& p, const P2& q, const P2& r) {  // r on segment pq, given collinear
    return std::min(p.x, q.x) <= r.x && r.x <= std::max(p.x, q.x) && std::min(p.y, q.y) <= r.y &&
           r.y <= std::max(p.y, q.y);
  };
  if (d1 == 0 && onSeg(c, d, a)) return true;
  if (d2 == 0 && onSeg(c, d, b)) return true;
  if (d3 == 0 && onSeg(a, b, c)) return true;
  if (d4 == 0 && onSeg(a, b, d)) return true;
  return false;
}
bool pointInTriangle2(const P2& p, const P2& a, const P2& b, const P2& c) {
  const double d1 = orient2(a, b, p), d2 = orient2(b, c, p), d3 = orient2(c, a, p);
  const bool neg = d1 < 0 || d2 < 0 || d3 < 0, pos = d1 > 0 || d2 > 0 || d3 > 0;
  return !(neg && pos);
}
bool coplanarTrianglesIntersect(const Vec3& n, const Vec3* A, const Vec3* B) {
  int i0 = 0, i1 = 1;  // keep the two axes where the normal is smallest
  const Vec3 an = n.cwiseAbs();
  if (an.x() >= an.y() && an.x() >= an.z()) {
    i0 = 1;
    i1 = 2;
  } else if (an.y() >= an.z()) {
    i0 = 0;
    i1 = 2;
  }
  P2 a[3], b[3];
  for (int k = 0; k < 3; ++k) {
    a[k] = {A[k][i0], A[k][i1]};
    b[k] = {B[k][i0], B[k][i1]};
  }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      if (segmentsIntersect2(a[i], a[(i + 1) % 3], b[j], b[(j + 1) % 3])) return true;
  return pointInTriangle2(a[0], b[0], b[1], b[2]) || pointInTriangle2(b[0], a[0], a[1], a[2]);
}

// Interval of the triangle's intersection with the other plane, projected on the
// intersection line direction D (Moller 1997). d[] are signed distances.
void lineInterval(const Vec3* V, const double* d, const Vec3& D, double& t0, double& t1) {
  // Find the vertex alone on its side of the plane (Moller's case analysis;
  // the caller has excluded "all on one side" and "all on the plane").
  int lone;
  if (d[0] * d[1] > 0) lone = 2;
  else if (d[0] * d[2] > 0) lone = 1;
  else if (d[1] * d[2] > 0 || d[0] != 0) lone = 0;
  else if (d[1] != 0) lone = 1;
  else lone = 2;
  const int o1 = (lone + 1) % 3, o2 = (lone + 2) % 3;
  const double p0 = D.dot(V[lone]), p1 = D.dot(V[o1]), p2 = D.dot(V[o2]);
  auto cut = [&](double pa, double pb, double da, double db) {
    const double den = da - db;
    return den != 0 ? pa + (pb - pa) * da / den : pa;
  };
  t0 = cut(p0, p1, d[lone], d[o1]);
  t1 = cut(p0, p2, d[lone], d[o2]);
  if (t0 > t1) std::swap(t0, t1);
}

}  // namespace

bool trianglesIntersect(const Vec3& a0, const Vec3& a1, const Vec3& a2, const Vec3& b0, const Vec3& b1,
                        const Vec3& b2, double tol) {
  const Vec3 A[3] = {a0, a1, a2}, B[3] = {b0, b1, b2};
  const Vec3 n2 = (b1 - b0).cross(b2 - b0);
  const Vec3 n1 = (a1 - a0).cross(a2 - a0);
  const double n1len = n1.norm(), n2len = n2.norm();
  if (n1len == 0 || n2len == 0) return false;  // degenerate triangles are reported separately

  // Signed distances of A's vertices to B's plane (and vice versa), snapped to 0 within tol.
  double da[3], db[3];
  for (int k = 0; k < 3; ++k) {
    da[k] = n2.dot(A[k] - b0) / n2len;
    if (std::abs(da[k]) <= tol) da[k] = 0;
    db[k] = n1.dot(B[k] - a0) / n1len;
    if (std::abs(db[k]) <= tol) db[k] = 0;
  }
  if ((da[0] > 0 && da[1] > 0 && da[2] > 0) || (da[0] < 0 && da[1] < 0 && da[2] < 0)) return false;
  if ((db[0] > 0 && db[1] > 0 && db[2] > 0) || (db[0] < 0 && db[1] < 0 && db[2] < 0)) return false;
  if (da[0] == 0 && da[1] == 0 && da[2] == 0) return coplanarTrianglesIntersect(n1 / n1len, A, B);

  const Vec3 D = n1.cross(n2);
  double s0, s1, t0, t1;
  lineInterval(A, da, D, s0, s1);
  lineInterval(B, db, D, t0, t1);
  const double slack = tol * D.norm();
  return !(s1 < t0 - slack || t1 < s0 - slack);
}

std::optional<double> intersectRayAabb(const Vec3& origin, const Vec3& invDir, const Aabb& box, double tMax) {
  double t0 = 0.0, t1 = tMax;
  for (int k = 0; k < 3; ++k) {
    double tn = (box.min[k] - origin[k]) * invDir[k];
    double tf = (box.max[k] - origin[k]) * invDir[k];
    if (std::isnan(tn) || std::isnan(tf)) {  // 0 * inf: origin on the slab plane, direction parallel
      if (origin[k] < box.min[k] || origin[k] > box.max[k]) return std::nullopt;
      continue;
    }
    if (tn > tf) std::swap(tn, tf);
    t0 = std::max(t0, tn);
    t1 = std::min(t1, tf);
    if (t0 > t1) return std::nullopt;
  }
  return t0;
}

}  // namespace sinew
