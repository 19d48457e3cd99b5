// Undoable edits. Each command stores what it needs to redo and undo itself
// and mutates the project only through Document::mutate().
#pragma once

#include "Document.h"

#include <QUndoCommand>
#include <QVariant>

#include <functional>

namespace sinew::app {

// Adds imported or generated objects (meshes, clips and a skeleton, which
// replaces the project's skeleton if it has one).
class AddObjectsCommand : public QUndoCommand {
 public:
  // `objects` holds the new objects with ids already allocated from the
  // document's project (see Document::project().nextId).
  AddObjectsCommand(Document* doc, Project objects, const QString& text);
  void redo() override;
  void undo() override;

 private:
  Document* doc_;
  Project objects_;  // only meshes, skeleton, clips and nextId are used
  std::optional<SkeletonObject> replacedSkeleton_;
};

// Removes one object (mesh, skeleton or clip), remembering where it was.
class RemoveObjectCommand : public QUndoCommand {
 public:
  RemoveObjectCommand(Document* doc, ObjectId id);
  void redo() override;
  void undo() override;

 private:
  Document* doc_;
  ObjectId id_;
  int index_ = -1;
  std::optional<MeshObject> mesh_;
  std::optional<SkeletonObject> skeleton_;
  std::optional<ClipObject> clip_;
};

// Sets one property of one object through a setter; merges consecutive
// edits of the same property (dragging a spin box is one undo step).
class SetPropertyCommand : public QUndoCommand {
 public:
  using Setter = std::function<void(Project&, ObjectId, const QVariant&)>;
  SetPropertyCommand(Document* doc, ObjectId id, const QString& property, QVariant oldValue, QVariant newValue,
                     Setter setter, Document::Change change);
  void redo() override;
  void undo() override;
  int id() const override { return 1001; }
  bool mergeWith(const QUndoCommand* other) override;

 private:
  Document* doc_;
  ObjectId object_;
  QString property_;
  QVariant old_, new_;
  Setter setter_;
  Document::Change change_;
};

// Applies an affine map to a mesh's vertices (scale about a point, then translate).
class TransformMeshCommand : public QUndoCommand {
 public:
  TransformMeshCommand(Document* doc, ObjectId id, double scale, const Vec3& pivot, const Vec3& translation,
                       const QString& text);
  void redo() override;
  void undo() override;

 private:
  Document* doc_;
  ObjectId id_;
  std::vector<Vec3> before_;
  double scale_;
  Vec3 pivot_, translation_;
};

}  // namespace sinew::app
