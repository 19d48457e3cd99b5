// The open project as the GUI sees it: the sim::Project (plain data), its
// file path, the undo stack through which every edit goes, the user's
// selection, per-object revision counters (renderer caches) and derived data
// (validation reports). New and Open replace all of it at once (reset): every
// panel that holds state tied to the old project listens to projectReplaced.
#pragma once

#include "Selection.h"
#include "geometry/MeshValidation.h"
#include "model/Project.h"

#include <QObject>
#include <QString>
#include <QUndoStack>

#include <map>
#include <optional>

namespace sinew::app {

class Document : public QObject {
  Q_OBJECT
 public:
  explicit Document(QObject* parent = nullptr);

  const Project& project() const { return project_; }
  QUndoStack* undoStack() { return &undo_; }
  // The one selection every panel shows and edits (cleared by reset; an
  // object or joint that an edit removes leaves it).
  Selection& selection() { return selection_; }
  const Selection& selection() const { return selection_; }
  const QString& path() const { return path_; }
  bool isModified() const { return !undo_.isClean() || forcedDirty_; }
  QString displayName() const;  // file name, or the project name when untitled

  // Replaces everything (New, Open, recovery). Clears the undo stack.
  void reset(Project project, const QString& path, bool modified = false);
  void setPath(const QString& path);
  void markSaved();  // after a successful save

  // Low-level mutation for QUndoCommands only: runs `edit` on the project,
  // then announces what changed. Everything else must push a command.
  // Settings: project-wide settings (Project::simulation), id 0.
  enum class Change { Structure, Object, Geometry, Settings };
  template <class F>
  void mutate(ObjectId id, Change change, F&& edit) {
    edit(project_);
    announce(id, change);
  }

  // Revision of an object's geometry (bumped by Change::Geometry).
  uint64_t revision(ObjectId id) const;

  // Validation of a mesh, when computed for its current geometry.
  const MeshReport* meshReport(ObjectId id) const;
  void setMeshReport(ObjectId id, MeshReport report);

  // Triangles of a mesh to show in red for another reason than validation
  // (e.g. why a conforming mesh could not be built); cleared when the
  // geometry changes.
  const std::vector<int32_t>* highlight(ObjectId id) const;
  void setHighlight(ObjectId id, std::vector<int32_t> triangles);

 signals:
  void projectReplaced();            // New, Open, recovery: everything tied to the old project goes (then structureChanged)
  void structureChanged();           // objects added or removed, or the whole project replaced
  void objectChanged(sinew::ObjectId id);  // name, properties or geometry of one object
  void settingsChanged();            // project-wide settings (the simulation's materials)
  void pathChanged();
  void modifiedChanged(bool modified);

 private:
  void announce(ObjectId id, Change change);
  void dropStaleSelection();  // the selected object or joint no longer exists
  Project project_;
  Selection selection_;
  QString path_;
  QUndoStack undo_;
  bool forcedDirty_ = false;  // recovered work: unsaved although the stack is clean
  std::map<ObjectId, uint64_t> revisions_;
  std::map<ObjectId, MeshReport> reports_;
  std::map<ObjectId, std::vector<int32_t>> highlights_;
  uint64_t nextRevision_ = 1;
};

}  // namespace sinew::app
