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
  void selectObject(ObjectId id);  // without emitting objectSelected
  // Items under a category ("Meshes", "Skeleton", ...), for tests.
  QStringList itemsUnder(const QString& category) const;

 signals:
  void objectSelected(sinew::ObjectId id);  // 0: none
  void renameRequested(sinew::ObjectId id);
  void deleteRequested(sinew::ObjectId id);
  void frameRequested(sinew::ObjectId id);

 private:
  void refreshNames(ObjectId id);
  QTreeWidgetItem* category(const QString& name);
  Document* doc_;
  bool updating_ = false;
};

class PropertiesPanel : public QWidget {
  Q_OBJECT
 public:
  PropertiesPanel(Document* doc, QWidget* parent = nullptr);
  void setObject(ObjectId id);
  ObjectId object() const { return object_; }
  // Extra read-only rows (e.g. the picked vertex or joint), shown below.
  void setDetails(const QString& title, const QStringList& rows);

 private:
  void rebuild();
  void refreshValues();
  Document* doc_;
  ObjectId object_ = 0;
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
