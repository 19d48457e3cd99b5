// Dock panels: the Outliner (project objects by category), the Properties
// editor (built from Properties.h declarations) and the Log.
#pragma once

#include "Document.h"
#include "Log.h"
#include "Properties.h"

#include <QPlainTextEdit>
#include <QTreeWidget>
#include <QWidget>

#include <functional>

class QFormLayout;
class QLabel;

namespace sinew::app {

class OutlinerPanel : public QTreeWidget {
  Q_OBJECT
 public:
  OutlinerPanel(Document* doc, QWidget* parent = nullptr);
  void rebuild();
  // Items under a category ("Meshes", "Skeleton", ...), for tests.
  QStringList itemsUnder(const QString& category) const;

 signals:
  void renameRequested(sinew::ObjectId id);
  void deleteRequested(sinew::ObjectId id);
  void frameRequested(sinew::ObjectId id);

 private:
  void refreshNames(ObjectId id);
  void showSelection();  // the Document's selection, without setting it back
  QTreeWidgetItem* category(const QString& name);
  Document* doc_;
  bool updating_ = false;
};

class PropertiesPanel : public QWidget {
  Q_OBJECT
 public:
  PropertiesPanel(Document* doc, QWidget* parent = nullptr);
  void setObject(ObjectId id);
  // Shows the properties of a joint of the project's skeleton.
  void setJoint(const QString& name);
  ObjectId object() const { return object_; }
  const QString& joint() const { return joint_; }
  // Extra read-only rows (e.g. the picked vertex or joint), shown below.
  void setDetails(const QString& title, const QStringList& rows);

 private:
  void rebuild();
  void refreshValues();
  std::vector<PropertyDesc> currentProperties() const;
  QStringList rowNames() const;
  Document* doc_;
  ObjectId object_ = 0;
  QString joint_;           // non-empty: showing this joint
  QStringList shownRows_;   // names of the rows on show
  QLabel* header_;
  QWidget* form_;
  QFormLayout* layout_;
  QLabel* details_;
  std::vector<std::function<void()>> refreshers_;
};

class LogPanel : public QPlainTextEdit {
  Q_OBJECT
 public:
  LogPanel(Log* log, QWidget* parent = nullptr);

 private:
  void append(const LogEntry& e);
};

}  // namespace sinew::app
