// Help > Keys and Mouse: every menu command that has a key, read from the
// menus themselves (so the list cannot go stale), and the viewport's mouse
// gestures (navigation in Maya's and Blender's conventions, picking, the
// simulation's Ctrl+drag pull). Not modal: it can stay open beside the work.
#pragma once

#include <QDialog>

class QMenuBar;

namespace sinew::app {

class ControlsDialog : public QDialog {
  Q_OBJECT
 public:
  ControlsDialog(const QMenuBar* menus, QWidget* parent);
};

}  // namespace sinew::app
