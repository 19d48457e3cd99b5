// The open project as the GUI sees it: project, path, undo stack, selection, revisions (Document.h).
#include "Document.h"

#include <QFileInfo>

namespace sinew::app {

Document::Document(QObject* parent) : QObject(parent) {
  connect(&undo_, &QUndoStack::cleanChanged, this, [this](bool) { emit modifiedChanged(isModified()); });
  connect(&undo_, &QUndoStack::indexChanged, this, [this](int) { emit modifiedChanged(isModified()); });
}

QString Document::displayName() const {
  if (!path_.isEmpty()) return QFileInfo(path_).fileName();
  return QString::fromStdString(project_.name);
}

void Document::reset(Project project, const QString& path, bool modified) {
  project_ = std::move(project);
  undo_.clear();
  reports_.clear();
  highlights_.clear();
  for (const MeshObject& m : project_.meshes) revisions_[m.id] = nextRevision_++;
  for (const VolumeObject& v : project_.volumes) revisions_[v.id] = nextRevision_++;
  for (const RodBodyObject& b : project_.rodBodies) revisions_[b.id] = nextRevision_++;
  path_ = path;
  forcedDirty_ = modified;
  selection_.clear();
  emit projectReplaced();
  emit structureChanged();
  emit pathChanged();
  emit modifiedChanged(isModified());
}

void Document::setPath(const QString& path) {
  path_ = path;
  emit pathChanged();
}

void Document::markSaved() {
  undo_.setClean();
  forcedDirty_ = false;
  emit modifiedChanged(false);
}

uint64_t Document::revision(ObjectId id) const {
  const auto it = revisions_.find(id);
  return it == revisions_.end() ? 0 : it->second;
}

const MeshReport* Document::meshReport(ObjectId id) const {
  const auto it = reports_.find(id);
  return it == reports_.end() ? nullptr : &it->second;
}

void Document::setMeshReport(ObjectId id, MeshReport report) {
  reports_[id] = std::move(report);
  emit objectChanged(id);
}

const std::vector<int32_t>* Document::highlight(ObjectId id) const {
  const auto it = highlights_.find(id);
  return it == highlights_.end() ? nullptr : &it->second;
}

void Document::setHighlight(ObjectId id, std::vector<int32_t> triangles) {
  if (triangles.empty()) highlights_.erase(id);
  else highlights_[id] = std::move(triangles);
  emit objectChanged(id);
}

void Document::announce(ObjectId id, Change change) {
  // Revisions tell caches (GPU buffers, picking trees, volume geometry) that
  // an object's data changed: on a geometry change, and on a structural one
  // for the object named (a volume replaced in place) and for new objects.
  if (change == Change::Geometry || (change == Change::Structure && id != 0)) {
    revisions_[id] = nextRevision_++;
    reports_.erase(id);
    highlights_.erase(id);
  }
  if (change == Change::Structure) {
    for (const MeshObject& m : project_.meshes)
      if (!revisions_.count(m.id)) revisions_[m.id] = nextRevision_++;
    for (const VolumeObject& v : project_.volumes)
      if (!revisions_.count(v.id)) revisions_[v.id] = nextRevision_++;
    for (const RodBodyObject& b : project_.rodBodies)
      if (!revisions_.count(b.id)) revisions_[b.id] = nextRevision_++;
    dropStaleSelection();
    emit structureChanged();
  } else if (change == Change::Settings) {
    emit settingsChanged();
  } else {
    if (project_.skeleton && id == project_.skeleton->id) dropStaleSelection();  // a joint deleted or renamed
    emit objectChanged(id);
  }
}

void Document::dropStaleSelection() {
  const ObjectId id = selection_.object();
  if (!id) return;
  const Project& p = project_;
  const bool skeleton = p.skeleton && p.skeleton->id == id;
  const bool exists = skeleton || p.findMesh(id) || p.findVolume(id) || p.findClip(id) || p.findRodBody(id) ||
                      p.findController(id);
  if (!exists) return selection_.clear();
  const QString& joint = selection_.joint();
  if (!joint.isEmpty() && (!skeleton || p.skeleton->skeleton.find(joint.toStdString()) < 0)) selection_.clear();
}

}  // namespace sinew::app
