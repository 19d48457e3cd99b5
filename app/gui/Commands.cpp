// Undoable edits: each command's redo and undo through Document::mutate() (Commands.h).
#include "Commands.h"

#include <algorithm>

namespace sinew::app {

AddObjectsCommand::AddObjectsCommand(Document* doc, Project objects, const QString& text)
    : QUndoCommand(text), doc_(doc), objects_(std::move(objects)) {}

void AddObjectsCommand::redo() {
  doc_->mutate(0, Document::Change::Structure, [&](Project& p) {
    for (const MeshObject& m : objects_.meshes) p.meshes.push_back(m);
    if (objects_.skeleton) {
      replacedSkeleton_ = std::move(p.skeleton);
      p.skeleton = objects_.skeleton;
    }
    for (const ClipObject& c : objects_.clips) p.clips.push_back(c);
    for (const RodBodyObject& b : objects_.rodBodies) p.rodBodies.push_back(b);
    p.nextId = std::max(p.nextId, objects_.nextId);
  });
}

void AddObjectsCommand::undo() {
  doc_->mutate(0, Document::Change::Structure, [&](Project& p) {
    for (const MeshObject& m : objects_.meshes)
      std::erase_if(p.meshes, [&](const MeshObject& x) { return x.id == m.id; });
    if (objects_.skeleton && p.skeleton && p.skeleton->id == objects_.skeleton->id) {
      p.skeleton = std::move(replacedSkeleton_);
      replacedSkeleton_.reset();
    }
    for (const ClipObject& c : objects_.clips)
      std::erase_if(p.clips, [&](const ClipObject& x) { return x.id == c.id; });
    for (const RodBodyObject& b : objects_.rodBodies)
      std::erase_if(p.rodBodies, [&](const RodBodyObject& x) { return x.id == b.id; });
    // nextId never goes back: ids are not reused.
  });
}

RemoveObjectCommand::RemoveObjectCommand(Document* doc, ObjectId id)
    : QUndoCommand(QObject::tr("Delete %1").arg(QString::fromStdString(doc->project().objectName(id)))),
      doc_(doc),
      id_(id) {}

void RemoveObjectCommand::redo() {
  doc_->mutate(id_, Document::Change::Structure, [&](Project& p) {
    for (size_t i = 0; i < p.meshes.size(); ++i)
      if (p.meshes[i].id == id_) {
        index_ = int(i);
        mesh_ = std::move(p.meshes[i]);
        p.meshes.erase(p.meshes.begin() + long(i));
        return;
      }
    for (size_t i = 0; i < p.clips.size(); ++i)
      if (p.clips[i].id == id_) {
        index_ = int(i);
        clip_ = std::move(p.clips[i]);
        p.clips.erase(p.clips.begin() + long(i));
        return;
      }
    for (size_t i = 0; i < p.volumes.size(); ++i)
      if (p.volumes[i].id == id_) {
        index_ = int(i);
        volume_ = std::move(p.volumes[i]);
        p.volumes.erase(p.volumes.begin() + long(i));
        return;
      }
    for (size_t i = 0; i < p.rodBodies.size(); ++i)
      if (p.rodBodies[i].id == id_) {
        index_ = int(i);
        rodBody_ = std::move(p.rodBodies[i]);
        p.rodBodies.erase(p.rodBodies.begin() + long(i));
        return;
      }
    if (p.skeleton && p.skeleton->id == id_) {
      skeleton_ = std::move(p.skeleton);
      p.skeleton.reset();
    }
  });
}

void RemoveObjectCommand::undo() {
  doc_->mutate(id_, Document::Change::Structure, [&](Project& p) {
    if (mesh_) p.meshes.insert(p.meshes.begin() + std::min<long>(index_, long(p.meshes.size())), std::move(*mesh_));
    if (clip_) p.clips.insert(p.clips.begin() + std::min<long>(index_, long(p.clips.size())), std::move(*clip_));
    if (volume_) p.volumes.insert(p.volumes.begin() + std::min<long>(index_, long(p.volumes.size())), std::move(*volume_));
    if (rodBody_)
      p.rodBodies.insert(p.rodBodies.begin() + std::min<long>(index_, long(p.rodBodies.size())), std::move(*rodBody_));
    if (skeleton_) p.skeleton = std::move(skeleton_);
    rodBody_.reset();
    mesh_.reset();
    clip_.reset();
    volume_.reset();
    skeleton_.reset();
  });
}

SetPropertyCommand::SetPropertyCommand(Document* doc, ObjectId id, const QString& property, QVariant oldValue,
                                       QVariant newValue, Setter setter, Document::Change change)
    : QUndoCommand(QObject::tr("Set %1").arg(property)),
      doc_(doc),
      object_(id),
      property_(property),
      old_(std::move(oldValue)),
      new_(std::move(newValue)),
      setter_(std::move(setter)),
      change_(change) {}

void SetPropertyCommand::redo() {
  doc_->mutate(object_, change_, [&](Project& p) { setter_(p, object_, new_); });
}
void SetPropertyCommand::undo() {
  doc_->mutate(object_, change_, [&](Project& p) { setter_(p, object_, old_); });
}

bool SetPropertyCommand::mergeWith(const QUndoCommand* other) {
  const auto* o = dynamic_cast<const SetPropertyCommand*>(other);
  if (!o || o->object_ != object_ || o->property_ != property_) return false;
  new_ = o->new_;
  return true;
}

TransformMeshCommand::TransformMeshCommand(Document* doc, ObjectId id, double scale, const Vec3& pivot,
                                           const Vec3& translation, const QString& text)
    : QUndoCommand(text), doc_(doc), id_(id), scale_(scale), pivot_(pivot), translation_(translation) {}

void TransformMeshCommand::redo() {
  doc_->mutate(id_, Document::Change::Geometry, [&](Project& p) {
    MeshObject* m = p.findMesh(id_);
    if (!m) return;
    before_ = m->mesh.positions;
    for (Vec3& x : m->mesh.positions) x = pivot_ + scale_ * (x - pivot_) + translation_;
  });
}

void TransformMeshCommand::undo() {
  doc_->mutate(id_, Document::Change::Geometry, [&](Project& p) {
    if (MeshObject* m = p.findMesh(id_)) m->mesh.positions = before_;
  });
}

SkeletonEditCommand::SkeletonEditCommand(Document* doc, Skeleton after, const QString& text, int dragSerial)
    : QUndoCommand(text),
      doc_(doc),
      before_(doc->project().skeleton ? doc->project().skeleton->skeleton : Skeleton{}),
      after_(std::move(after)),
      dragSerial_(dragSerial) {}

void SkeletonEditCommand::redo() {
  const ObjectId id = doc_->project().skeleton ? doc_->project().skeleton->id : 0;
  doc_->mutate(id, Document::Change::Geometry, [&](Project& p) {
    if (p.skeleton) p.skeleton->skeleton = after_;
  });
}

void SkeletonEditCommand::undo() {
  const ObjectId id = doc_->project().skeleton ? doc_->project().skeleton->id : 0;
  doc_->mutate(id, Document::Change::Geometry, [&](Project& p) {
    if (p.skeleton) p.skeleton->skeleton = before_;
  });
}

bool SkeletonEditCommand::mergeWith(const QUndoCommand* other) {
  const auto* o = dynamic_cast<const SkeletonEditCommand*>(other);
  if (!o || !dragSerial_ || o->dragSerial_ != dragSerial_) return false;
  after_ = o->after_;
  return true;
}

SetWeightsCommand::SetWeightsCommand(Document* doc, ObjectId mesh, std::optional<SkinWeights> meshWeights,
                                     ObjectId volume, std::optional<SkinWeights> volumeWeights, const QString& text)
    : QUndoCommand(text),
      doc_(doc),
      mesh_(mesh),
      volume_(volume),
      meshWeights_(std::move(meshWeights)),
      volumeWeights_(std::move(volumeWeights)) {}

void SetWeightsCommand::swap() {
  doc_->mutate(mesh_, Document::Change::Object, [&](Project& p) {
    if (MeshObject* m = p.findMesh(mesh_)) std::swap(m->skin, meshWeights_);
    if (VolumeObject* v = p.findVolume(volume_)) std::swap(v->weights, volumeWeights_);
  });
}
void SetWeightsCommand::redo() { swap(); }
void SetWeightsCommand::undo() { swap(); }

SetVolumeCommand::SetVolumeCommand(Document* doc, VolumeObject volume, const QString& text)
    : QUndoCommand(text), doc_(doc), incoming_(std::move(volume)) {}

void SetVolumeCommand::redo() {
  doc_->mutate(incoming_.id, Document::Change::Structure, [&](Project& p) {
    if (VolumeObject* v = p.findVolume(incoming_.id)) {
      previous_ = *v;
      *v = incoming_;
    } else {
      previous_.reset();
      p.volumes.push_back(incoming_);
    }
    p.nextId = std::max(p.nextId, incoming_.id + 1);
  });
}

void SetVolumeCommand::undo() {
  doc_->mutate(incoming_.id, Document::Change::Structure, [&](Project& p) {
    if (previous_) {
      if (VolumeObject* v = p.findVolume(incoming_.id)) *v = *previous_;
    } else {
      std::erase_if(p.volumes, [&](const VolumeObject& v) { return v.id == incoming_.id; });
    }
  });
}

SetSimulationSetupCommand::SetSimulationSetupCommand(Document* doc, SimulationSetup after, const QString& text,
                                                     QString mergeKey)
    : QUndoCommand(text),
      doc_(doc),
      before_(doc->project().simulation),
      after_(std::move(after)),
      mergeKey_(std::move(mergeKey)) {}

void SetSimulationSetupCommand::redo() {
  doc_->mutate(0, Document::Change::Settings, [&](Project& p) { p.simulation = after_; });
}

void SetSimulationSetupCommand::undo() {
  doc_->mutate(0, Document::Change::Settings, [&](Project& p) { p.simulation = before_; });
}

bool SetSimulationSetupCommand::mergeWith(const QUndoCommand* other) {
  const auto* o = dynamic_cast<const SetSimulationSetupCommand*>(other);
  if (!o || o->mergeKey_ != mergeKey_) return false;
  after_ = o->after_;
  return true;
}

SetRodBodyCommand::SetRodBodyCommand(Document* doc, RodBodyObject after, const QString& text)
    : QUndoCommand(text), doc_(doc), after_(std::move(after)) {
  if (const RodBodyObject* b = doc->project().findRodBody(after_.id)) before_ = *b;
}

void SetRodBodyCommand::set(const RodBodyObject& body) {
  // Geometry: the pills' display cache and a built simulation go by the body's revision.
  doc_->mutate(body.id, Document::Change::Geometry, [&](Project& p) {
    if (RodBodyObject* b = p.findRodBody(body.id)) *b = body;
  });
}

void SetRodBodyCommand::redo() { set(after_); }
void SetRodBodyCommand::undo() { set(before_); }

SetControllersCommand::SetControllersCommand(Document* doc, std::vector<ControllerObject> after, ObjectId nextId,
                                             const QString& text)
    : QUndoCommand(text),
      doc_(doc),
      before_(doc->project().controllers),
      after_(std::move(after)),
      nextBefore_(doc->project().nextId),
      nextAfter_(std::max(nextId, doc->project().nextId)) {}

void SetControllersCommand::redo() {
  doc_->mutate(0, Document::Change::Structure, [&](Project& p) {
    p.controllers = after_;
    p.nextId = nextAfter_;
  });
}

void SetControllersCommand::undo() {
  doc_->mutate(0, Document::Change::Structure, [&](Project& p) {
    p.controllers = before_;
    p.nextId = nextBefore_;
  });
}

}  // namespace sinew::app
