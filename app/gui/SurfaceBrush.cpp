// The paint tools' brush on a surface: picking, stroke sampling, the circle (SurfaceBrush.h).
#include "SurfaceBrush.h"

#include "geometry/Sdf.h"

#include <cmath>

namespace sinew::app {

bool SurfaceBrush::setSurface(const TriMesh& mesh, ObjectId id, uint64_t revision) {
  if (tree_ && id == id_ && revision == revision_) return false;
  tree_.reset();
  rest_ = mesh;
  tree_ = std::make_unique<TriangleTree>(rest_);
  id_ = id;
  revision_ = revision;
  return true;
}

void SurfaceBrush::clear() {
  tree_.reset();
  rest_ = TriMesh{};
  id_ = 0;
  hover_.reset();
}

std::optional<SurfaceBrush::Hit> SurfaceBrush::hitUnder(const QPointF& p) const {
  if (!tree_) return std::nullopt;
  const render::Ray r = view_->camera().rayThrough(p.x(), p.y(), view_->width(), view_->height());
  const auto hit = tree_->raycast(r.origin, r.direction);
  if (!hit) return std::nullopt;
  return Hit{hit->point, triangleNormal(rest_, size_t(hit->triangle))};
}

std::optional<Vec3> SurfaceBrush::pointUnder(const QPointF& p) const {
  const auto hit = hitUnder(p);
  return hit ? std::optional<Vec3>(hit->point) : std::nullopt;
}

void SurfaceBrush::take(const Vec3& at, const Sample& sample) {
  if (sample(at)) changed_ = true;
  last_ = at;
}

bool SurfaceBrush::press(const QPointF& p, const Sample& sample) {
  const auto at = pointUnder(p);
  if (!at) return false;
  stroking_ = true;
  changed_ = false;
  last_.reset();
  take(*at, sample);
  return true;
}

void SurfaceBrush::move(const QPointF& p, bool dragging, double radius, const Sample& sample) {
  const auto hit = hitUnder(p);
  hover_.reset();
  if (!hit) return;
  hover_ = hit->point;
  hoverNormal_ = hit->normal;
  if (!dragging || !stroking_) return;
  const Vec3 from = last_.value_or(hit->point);
  const int steps = std::max(1, int(std::ceil((hit->point - from).norm() / (0.25 * radius))));
  for (int k = 1; k <= steps; ++k) take(from + (hit->point - from) * (double(k) / steps), sample);
}

bool SurfaceBrush::release() {
  const bool changed = stroking_ && changed_;
  stroking_ = false;
  changed_ = false;
  return changed;
}

void SurfaceBrush::draw(render::FrameScene& scene, double radius, const render::Vec3f& color) const {
  if (!hover_) return;
  const Mat3 f = sdf::frameAlong(hoverNormal_);
  render::LineItem circle;
  circle.onTop = true;
  constexpr int kSegments = 40;
  for (int k = 0; k < kSegments; ++k) {
    const double t0 = 2 * M_PI * k / kSegments, t1 = 2 * M_PI * (k + 1) / kSegments;
    circle.add((*hover_ + radius * (std::cos(t0) * f.col(1) + std::sin(t0) * f.col(2))).cast<float>(),
               (*hover_ + radius * (std::cos(t1) * f.col(1) + std::sin(t1) * f.col(2))).cast<float>(), color);
  }
  circle.add(hover_->cast<float>(), (*hover_ + 0.5 * radius * hoverNormal_).cast<float>(), color);
  scene.lines.push_back(std::move(circle));
}

}  // namespace sinew::app
