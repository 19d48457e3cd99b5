// Properties of project objects, declared once: the Properties panel builds
// its editors from these descriptions and every edit becomes a
// SetPropertyCommand, so the panel, undo and the file never disagree.
#pragma once

#include "Commands.h"
#include "Document.h"

#include <QString>
#include <QVariant>

#include <functional>
#include <vector>

namespace sinew::app {

struct PropertyDesc {
  enum class Kind { Text, Number, Bool, Color, Info };
  QString name;
  Kind kind = Kind::Info;
  std::function<QVariant(const Project&, ObjectId)> get;
  SetPropertyCommand::Setter set;  // empty: read-only
  Document::Change change = Document::Change::Object;
  double minimum = -1e9, maximum = 1e9, step = 0.1;
  int decimals = 3;
  QString tooltip;
};

// The properties of object `id` (empty if there is no such object).
std::vector<PropertyDesc> propertiesOf(const Document& doc, ObjectId id);

// What kind of object `id` is: "Mesh", "Skeleton", "Motion clip" or "".
QString objectKind(const Project& project, ObjectId id);

}  // namespace sinew::app
