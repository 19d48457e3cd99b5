// What the user has selected: one object or joint, with its pick detail (Selection.h).
#include "Selection.h"

namespace sinew::app {

namespace {
bool samePick(const render::PickResult& a, const render::PickResult& b) {
  return a.kind == b.kind && a.object == b.object && a.joint == b.joint && a.vertex == b.vertex && a.face == b.face &&
         a.point == b.point;
}
}  // namespace

void Selection::selectObject(ObjectId id, const render::PickResult& detail) {
  if (object_ == id && joint_.isEmpty() && samePick(detail_, detail)) return;
  object_ = id;
  joint_.clear();
  detail_ = detail;
  emit changed();
}

void Selection::selectJoint(ObjectId skeleton, const QString& name, const render::PickResult& detail) {
  if (name.isEmpty()) return clear();
  if (object_ == skeleton && joint_ == name && samePick(detail_, detail)) return;
  object_ = skeleton;
  joint_ = name;
  detail_ = detail;
  emit changed();
}

}  // namespace sinew::app
