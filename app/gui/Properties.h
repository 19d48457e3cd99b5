// Properties of project objects, declared once: the Properties panel builds
// its editors from these descriptions and every edit becomes a
// SetPropertyCommand, so the panel, undo and the file never disagree.
#pragma once

#include "Commands.h"
#include "Document.h"

#include <QString>
#include <QStringList>
#include <QUndoCommand>
#include <QVariant>

#include <functional>
#include <vector>

namespace sinew::app {

struct PropertyDesc {
  enum class Kind { Text, Number, Bool, Color, Choice, Vector3, Info };
  QString name;
  Kind kind = Kind::Info;
  std::function<QVariant(const Project&, ObjectId)> get;
  SetPropertyCommand::Setter set;  // empty: read-only
  Document::Change change = Document::Change::Object;
  double minimum = -1e9, maximum = 1e9, step = 0.1;
  int decimals = 3;
  QString tooltip;
  QStringList choices;  // Kind::Choice: the options (the value is the chosen text)
  // Instead of a SetPropertyCommand, build this command for a new value
  // (edits that change more than one field, e.g. of a joint in the skeleton).
  std::function<QUndoCommand*(Document&, const QVariant&)> command;
};

// The properties of object `id` (empty if there is no such object).
std::vector<PropertyDesc> propertiesOf(const Document& doc, ObjectId id);

// The properties of one joint of the project's skeleton (empty if there is none).
std::vector<PropertyDesc> jointPropertiesOf(const Document& doc, const QString& jointName);

// What kind of object `id` is: "Mesh", "Skeleton", "Motion clip", "Volume", "Rod body" or "".
QString objectKind(const Project& project, ObjectId id);

}  // namespace sinew::app
