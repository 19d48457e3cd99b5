// Helpers the MainWindow*.cpp files share (the window's parts are split by
// topic: MainWindow.cpp actions, menus, docks and selection; MainWindowRig.cpp
// the rig docks and tasks; MainWindowFile.cpp project files; and
// MainWindowPlayback.cpp the clip playback bar).
#pragma once

#include <QKeySequence>
#include <QString>

#include <string>
#include <vector>

class QAction;
class QObject;
class QWidget;

namespace sinew::app::detail {

// The Import Options dialog (units, mesh grouping, welding), remembered in
// QSettings "import/*"; false if the user cancelled.
bool askImportOptions(QWidget* parent);
// A file dialog filter "label (*.a *.b)".
QString filterFor(const std::vector<std::string>& exts, const QString& label);
// An action named "action<name>" (for tests and scripting).
QAction* makeAction(QObject* parent, const QString& name, const QString& text, const QKeySequence& key = {});

}  // namespace sinew::app::detail
