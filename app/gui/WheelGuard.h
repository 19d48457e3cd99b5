// Spin boxes, combo boxes and sliders take the mouse wheel only when they
// have the keyboard focus (clicked or tabbed into): scrolling a dock over
// them scrolls the dock instead of silently changing a value.
#pragma once

#include <QObject>

namespace sinew::app {

class WheelGuard : public QObject {
  Q_OBJECT
 public:
  using QObject::QObject;
  // For the whole application (qApp); `owner` deletes it.
  static void install(QObject* owner);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;
};

}  // namespace sinew::app
