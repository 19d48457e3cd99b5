// The panels' number fields, built one way: named (tests and the state
// checks find them by object name), ranged, and committing one edit per typed
// value rather than one per digit.
#pragma once

#include <QDoubleSpinBox>

namespace sinew::app {

inline QDoubleSpinBox* numberBox(QWidget* parent, const QString& name, double lo, double hi, int decimals,
                                 double step, const QString& suffix = {}) {
  auto* s = new QDoubleSpinBox(parent);
  s->setObjectName(name);
  s->setDecimals(decimals);  // first: the range is rounded to the decimals in force
  s->setRange(lo, hi);
  s->setSingleStep(step);
  s->setSuffix(suffix);
  s->setKeyboardTracking(false);
  return s;
}

}  // namespace sinew::app
