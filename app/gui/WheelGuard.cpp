// Spin boxes, combo boxes and sliders take the mouse wheel only with keyboard focus (WheelGuard.h).
#include "WheelGuard.h"

#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QEvent>
#include <QScrollBar>

namespace sinew::app {

namespace {

bool guarded(QObject* o) {
  return qobject_cast<QAbstractSpinBox*>(o) || qobject_cast<QComboBox*>(o) ||
         (qobject_cast<QAbstractSlider*>(o) && !qobject_cast<QScrollBar*>(o));
}

}  // namespace

void WheelGuard::install(QObject* owner) { qApp->installEventFilter(new WheelGuard(owner)); }

bool WheelGuard::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::Polish && guarded(watched)) {
    // Focus by click or Tab, not by the wheel passing over.
    auto* w = static_cast<QWidget*>(watched);
    if (w->focusPolicy() & Qt::WheelFocus) w->setFocusPolicy(Qt::StrongFocus);
  } else if (event->type() == QEvent::Wheel && guarded(watched)) {
    auto* w = static_cast<QWidget*>(watched);
    if (!w->hasFocus()) {
      // To the parent: the scroll area around the panel scrolls.
      if (QWidget* parent = w->parentWidget()) QCoreApplication::sendEvent(parent, event);
      return true;
    }
  }
  return QObject::eventFilter(watched, event);
}

}  // namespace sinew::app
