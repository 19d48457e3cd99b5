// What the user has selected: one object of the project (a mesh, a volume, a
// clip, the skeleton...) or one joint of the skeleton, with the pick detail
// (vertex, face, point) when it came from the viewport. One instance, owned by
// the Document, is shared by the Outliner, the viewport, Properties, the rig
// tools and the Edit menu: each sets it and each redraws from `changed`, so
// Delete acts on what every panel shows. New and Open clear it.
#pragma once

#include "core/Types.h"
#include "Picking.h"

#include <QObject>
#include <QString>

namespace sinew::app {

class Selection : public QObject {
  Q_OBJECT
 public:
  using QObject::QObject;

  // The selected object (the skeleton's id while a joint is selected; 0 none).
  ObjectId object() const { return object_; }
  // The selected joint's name ("" when the selection is not a joint).
  const QString& joint() const { return joint_; }
  // The viewport pick that made the selection (kind None otherwise).
  const render::PickResult& detail() const { return detail_; }
  bool empty() const { return object_ == 0; }

  // Each emits `changed` once, and only when something changed.
  void selectObject(ObjectId id, const render::PickResult& detail = {});
  void selectJoint(ObjectId skeleton, const QString& name, const render::PickResult& detail);
  void clear() { selectObject(0); }

 signals:
  void changed();

 private:
  ObjectId object_ = 0;
  QString joint_;
  render::PickResult detail_;
};

}  // namespace sinew::app
