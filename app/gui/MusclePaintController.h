// Muscle painting in the viewport (Angles et al. 2019, Section 8.1): the
// user marks a rod body's surface vertices as sources (the origin end, green)
// and sinks (the insertion end, red), which viperization turns into the ends
// of the muscle's rods (unpainted vertices show grey while the tool is on).
// A brush on the surface under the cursor; the left
// button paints the chosen mark (or erases); one undo step per stroke
// (SetRodBodyCommand). Modelled on PaintController, without its weights.
#pragma once

#include "Document.h"
#include "SurfaceBrush.h"
#include "ViewportWidget.h"

#include <QObject>

#include <memory>
#include <optional>

namespace sinew::app {

class MusclePaintController : public QObject, public ViewportInteraction {
  Q_OBJECT
 public:
  enum class Mode { Source, Sink, Erase };
  static const char* modeName(Mode m);
  static MusclePaint markOf(Mode m);  // what the mode paints (Erase: None)

  MusclePaintController(Document* doc, ViewportWidget* view, QObject* parent = nullptr);

  // The rod body whose surface is painted (0: none); (re)loads its marks.
  void setBody(ObjectId body);
  ObjectId body() const { return body_; }
  ObjectId surface() const { return surface_; }

  Mode mode = Mode::Source;
  double radius = 0.012;  // brush radius, m
  bool active = false;    // the tool is on: show the marks and the brush

  // The marks being painted (one per surface vertex), for tests.
  const std::vector<MusclePaint>& marks() const { return marks_; }
  // Where a stroke sample would land for a viewport position (nullopt: off the surface).
  std::optional<Vec3> surfacePoint(const QPoint& p) const;
  static render::Vec3f markColor(MusclePaint m, const render::Vec3f& unpainted);

  bool mousePress(QMouseEvent* e) override;
  bool mouseMove(QMouseEvent* e, bool dragging) override;
  bool mouseRelease(QMouseEvent* e) override;
  void decorate(render::FrameScene& scene) override;

 signals:
  void bodyChanged();

 private:
  void reload();
  bool sample(const Vec3& at);
  void updateColors();

  Document* doc_;
  ViewportWidget* view_;
  ObjectId body_ = 0, surface_ = 0;
  SurfaceBrush surfaceBrush_;
  std::vector<MusclePaint> marks_;
  std::vector<render::Vec3f> colors_;
  uint64_t colorRevision_ = 1;
};

}  // namespace sinew::app
