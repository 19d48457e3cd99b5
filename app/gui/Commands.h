// Undoable edits. Each command stores what it needs to redo and undo itself
// and mutates the project only through Document::mutate().
#pragma once

#include "Document.h"

#include <QUndoCommand>
#include <QVariant>

#include <functional>

namespace sinew::app {

// Adds imported or generated objects (meshes, clips, rod bodies and a
// skeleton, which replaces the project's skeleton if it has one).
class AddObjectsCommand : public QUndoCommand {
 public:
  // `objects` holds the new objects with ids already allocated from the
  // document's project (see Document::project().nextId).
  AddObjectsCommand(Document* doc, Project objects, const QString& text);
  void redo() override;
  void undo() override;

 private:
  Document* doc_;
  Project objects_;  // only meshes, skeleton, clips, rod bodies and nextId are used
  std::optional<SkeletonObject> replacedSkeleton_;
};

// Removes one object (mesh, skeleton, clip, volume or rod body), remembering where it was.
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
  std::optional<VolumeObject> volume_;
  std::optional<RodBodyObject> rodBody_;
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

// Replaces the skeleton (joints, bone shapes, types) by an edited copy: every
// skeleton authoring tool is one of these. Consecutive edits with the same
// non-zero `dragSerial` merge into one undo step (a joint drag).
class SkeletonEditCommand : public QUndoCommand {
 public:
  SkeletonEditCommand(Document* doc, Skeleton after, const QString& text, int dragSerial = 0);
  void redo() override;
  void undo() override;
  int id() const override { return dragSerial_ ? 1002 : -1; }
  bool mergeWith(const QUndoCommand* other) override;

 private:
  Document* doc_;
  Skeleton before_, after_;
  int dragSerial_;
};

// Replaces a mesh's skinning weights (a paint stroke, a weight solve), and
// optionally the node weights of a volume along with them.
class SetWeightsCommand : public QUndoCommand {
 public:
  SetWeightsCommand(Document* doc, ObjectId mesh, std::optional<SkinWeights> meshWeights, ObjectId volume,
                    std::optional<SkinWeights> volumeWeights, const QString& text);
  void redo() override;
  void undo() override;

 private:
  void swap();
  Document* doc_;
  ObjectId mesh_, volume_;
  std::optional<SkinWeights> meshWeights_, volumeWeights_;
};

// Adds a volume object, or replaces the one with the same id.
class SetVolumeCommand : public QUndoCommand {
 public:
  SetVolumeCommand(Document* doc, VolumeObject volume, const QString& text);
  void redo() override;
  void undo() override;

 private:
  Document* doc_;
  VolumeObject incoming_;
  std::optional<VolumeObject> previous_;  // the replaced volume; empty if the volume was added
};

// Replaces the project's simulation setup (materials per region).
// Consecutive edits with the same non-empty `mergeKey` (one spin box of one
// region) merge into one undo step.
class SetSimulationSetupCommand : public QUndoCommand {
 public:
  SetSimulationSetupCommand(Document* doc, SimulationSetup after, const QString& text, QString mergeKey = {});
  void redo() override;
  void undo() override;
  int id() const override { return mergeKey_.isEmpty() ? -1 : 1003; }
  bool mergeWith(const QUndoCommand* other) override;

 private:
  Document* doc_;
  SimulationSetup before_, after_;
  QString mergeKey_;
};

// Replaces a rod body by an edited copy with the same id (a muscle paint
// stroke, a viperization, new K and M): one undo step, whatever changed.
class SetRodBodyCommand : public QUndoCommand {
 public:
  SetRodBodyCommand(Document* doc, RodBodyObject after, const QString& text);
  void redo() override;
  void undo() override;

 private:
  void set(const RodBodyObject& body);
  Document* doc_;
  RodBodyObject before_, after_;
};

// Replaces the project's controllers (a controller added by the optimiser,
// renamed or deleted); `nextId` is the project's after the change.
class SetControllersCommand : public QUndoCommand {
 public:
  SetControllersCommand(Document* doc, std::vector<ControllerObject> after, ObjectId nextId, const QString& text);
  void redo() override;
  void undo() override;

 private:
  Document* doc_;
  std::vector<ControllerObject> before_, after_;
  ObjectId nextBefore_, nextAfter_;
};

}  // namespace sinew::app
