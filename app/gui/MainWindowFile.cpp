// Project files: New, Open, Save, Import, Export, the unsaved-changes
// question, autosave and crash recovery.
#include "MainWindow.h"
#include "MainWindowParts.h"

#include "Commands.h"
#include "io/AnimationExport.h"
#include "io/AssimpImport.h"
#include "io/Bvh.h"
#include "io/ProjectFile.h"
#include "io/TetFiles.h"
#include "liu2013/Liu2013.h"
#include "rig/AutoJoints.h"
#include "rig/BoneShapes.h"
#include "rig/SkeletonEdit.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QListWidget>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QToolButton>
#include <QComboBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QRegularExpression>
#include <QSettings>
#include <QSlider>
#include <QStatusBar>
#include <QStyle>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include <cmath>
namespace sinew::app {

using namespace detail;

void MainWindow::newProject() {
  Project p;
  p.name = "Untitled";
  doc_.reset(std::move(p), QString());
  recovery_->discardSession();
  log_.info(tr("New project"));
  viewport_->frameAll();
}

bool MainWindow::openProject(const QString& path) {
  auto result = std::make_shared<Project>();
  auto notes = std::make_shared<Diagnostics>();
  const std::string file = path.toStdString();
  return tasks_->run(
      tr("Opening %1").arg(QFileInfo(path).fileName()),
      [result, notes, file](const Progress& progress) {
        progress.update(0.1, "reading");
        *result = loadProject(file, notes.get());
        progress.update(1.0, "done");
      },
      [this, result, notes, path] {
        log_.add(*notes);
        openProjectData(std::move(*result), path);
        addRecent(path);
      },
      [this, path](const QString& message, bool cancelled) {
        if (cancelled) return log_.info(tr("Opening %1 cancelled").arg(path));
        log_.error(message);
        showError(tr("Cannot open project"), message);
      });
}

void MainWindow::openProjectData(Project project, const QString& path) {
  doc_.reset(std::move(project), path);
  log_.info(tr("Opened %1: %2 object(s)").arg(doc_.displayName()).arg(doc_.project().objectCount()));
  viewport_->frameAll();
}

bool MainWindow::saveProjectTo(const QString& path) {
  try {
    SaveOptions options;
    options.lockWaitSeconds = 2;  // another process saving it: say so rather than freeze the window
    saveProject(doc_.project(), path.toStdString(), options);
  } catch (const std::exception& e) {
    const QString msg = QString::fromStdString(e.what());
    log_.error(msg);
    showError(tr("Save failed"), tr("%1\n\nYour work is still open and unchanged.").arg(msg));
    return false;
  }
  doc_.setPath(path);
  doc_.markSaved();
  recovery_->discardSession();
  autosavedIndex_ = doc_.undoStack()->index();
  addRecent(path);
  log_.info(tr("Saved %1").arg(path));
  statusBar()->showMessage(tr("Saved %1").arg(QFileInfo(path).fileName()), 3000);
  return true;
}

bool MainWindow::save() {
  if (doc_.path().isEmpty()) {
    QString path = QFileDialog::getSaveFileName(this, tr("Save Project"),
                                                QString::fromStdString(doc_.project().name) + kProjectExtension,
                                                tr("Sinew projects (*.sinew)"));
    if (path.isEmpty()) return false;
    if (!path.endsWith(kProjectExtension)) path += kProjectExtension;
    return saveProjectTo(path);
  }
  return saveProjectTo(doc_.path());
}

bool MainWindow::importFiles(const QStringList& files) {
  struct Result {
    Project objects;  // new objects, ids allocated above the document's
    Diagnostics diagnostics;
    std::vector<std::pair<ObjectId, MeshReport>> reports;
    QStringList failures;
  };
  auto result = std::make_shared<Result>();
  const ObjectId firstId = doc_.project().nextId;
  QSettings settings;
  ImportOptions opt;
  opt.scale = settings.value("import/scale", 0.0).toDouble();  // 0: detected
  opt.grouping = MeshGrouping(std::clamp(settings.value("import/grouping", 0).toInt(), 0, 2));
  opt.weld = settings.value("import/weld", true).toBool();
  std::vector<std::string> paths;
  for (const QString& f : files) paths.push_back(f.toStdString());
  const QString title = files.size() == 1 ? tr("Importing %1").arg(QFileInfo(files.front()).fileName())
                                          : tr("Importing %1 files").arg(files.size());
  return tasks_->run(
      title,
      [result, paths, opt, firstId](const Progress& progress) {
        // Objects are staged in a project of their own, with ids above the document's.
        result->objects.nextId = firstId;
        for (size_t i = 0; i < paths.size(); ++i) {
          const Progress p = progress.sub(double(i) / paths.size(), double(i + 1) / paths.size());
          try {
            ImportResult r = importFile(paths[i], opt, p);
            std::vector<MeshReport> reports;
            for (ImportedMesh& m : r.meshes) reports.push_back(m.report.value_or(MeshReport{}));
            result->diagnostics.insert(result->diagnostics.end(), r.diagnostics.begin(), r.diagnostics.end());
            const size_t meshBase = result->objects.meshes.size();
            addToProject(result->objects, std::move(r), result->diagnostics);
            for (size_t k = 0; k < reports.size(); ++k)
              result->reports.push_back({result->objects.meshes[meshBase + k].id, std::move(reports[k])});
            result->diagnostics.push_back({Severity::Info, "imported " + paths[i]});
          } catch (const InputError& e) {
            result->failures << QString::fromStdString(e.what());
          }
        }
      },
      [this, result, files] {
        log_.add(result->diagnostics);
        for (const QString& f : result->failures) log_.error(f);
        // One skeleton per project: an imported one replaces the current one only if the user agrees.
        if (result->objects.skeleton && doc_.project().skeleton) {
          const QString current = QString::fromStdString(doc_.project().skeleton->name);
          const QString incoming = QString::fromStdString(result->objects.skeleton->name);
          const bool replace =
              interactive_ &&
              QMessageBox::question(this, tr("Replace skeleton?"),
                                    tr("The project already has the skeleton '%1'. Replace it with '%2' from the "
                                       "imported file?").arg(current, incoming)) == QMessageBox::Yes;
          if (!replace) {
            log_.warning(tr("Kept skeleton '%1'; the imported skeleton '%2' was not added").arg(current, incoming));
            result->objects.skeleton.reset();
          }
        }
        if (result->objects.objectCount() > 0) {
          const size_t n = result->objects.objectCount();
          doc_.undoStack()->push(new AddObjectsCommand(
              &doc_, std::move(result->objects),
              files.size() == 1 ? tr("Import %1").arg(QFileInfo(files.front()).fileName())
                                : tr("Import %1 files").arg(files.size())));
          for (auto& [id, report] : result->reports) doc_.setMeshReport(id, std::move(report));
          statusBar()->showMessage(tr("Imported %1 object(s)").arg(n), 4000);
          viewport_->frameAll();
        }
        if (!result->failures.isEmpty())
          showError(tr("Import failed"), result->failures.join("\n"));
      },
      [this](const QString& message, bool cancelled) {
        if (cancelled) {
          log_.info(tr("Import cancelled; nothing was added"));
          return;
        }
        log_.error(message);
        showError(tr("Import failed"), message);
      });
}

void MainWindow::exportSelection() {
  const Project& p = doc_.project();
  if (const ClipObject* c = p.findClip(selectedObject())) {
    QString path = QFileDialog::getSaveFileName(this, tr("Export Motion Clip"),
                                                QString::fromStdString(c->clip.name) + ".bvh", tr("BVH (*.bvh)"));
    if (path.isEmpty()) return;
    try {
      writeBvh(c->clip, path.toStdString());
      log_.info(tr("Exported %1").arg(path));
    } catch (const std::exception& e) {
      log_.error(QString::fromStdString(e.what()));
      showError(tr("Export failed"), QString::fromStdString(e.what()));
    }
    return;
  }
  std::vector<const MeshObject*> meshes;
  if (const MeshObject* m = p.findMesh(selectedObject())) meshes.push_back(m);
  else
    for (const MeshObject& m : p.meshes) meshes.push_back(&m);
  if (meshes.empty()) return showError(tr("Export"), tr("There are no meshes to export."));
  const QString path = QFileDialog::getSaveFileName(this, tr("Export Meshes"), QString(),
                                                    filterFor(exportExtensions(), tr("Mesh files")));
  if (path.isEmpty()) return;
  try {
    exportMeshes(meshes, path.toStdString());
    log_.info(tr("Exported %1 mesh(es) to %2").arg(meshes.size()).arg(path));
  } catch (const std::exception& e) {
    log_.error(QString::fromStdString(e.what()));
    showError(tr("Export failed"), QString::fromStdString(e.what()));
  }
}

bool MainWindow::maybeSave() {
  if (!doc_.isModified()) return true;
  if (!interactive_) return true;
  const auto answer = QMessageBox::warning(this, tr("Unsaved changes"),
                                           tr("%1 has unsaved changes. Save them?").arg(doc_.displayName()),
                                           QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel,
                                           QMessageBox::Save);
  if (answer == QMessageBox::Cancel) return false;
  if (answer == QMessageBox::Save) return save();
  return true;
}

void MainWindow::autosaveNow() {
  if (!doc_.isModified() || doc_.undoStack()->index() == autosavedIndex_) return;
  try {
    recovery_->autosave(doc_.project(), doc_.path());
    autosavedIndex_ = doc_.undoStack()->index();
    statusBar()->showMessage(tr("Autosaved"), 2000);
  } catch (const std::exception& e) {
    log_.warning(tr("Autosave failed: %1").arg(QString::fromStdString(e.what())));
  }
}

void MainWindow::checkRecovery() {
  if (recoveryPolicy_ == RecoveryPolicy::Ignore) return;
  const auto entries = recovery_->orphaned();
  if (entries.empty()) return;
  const Recovery::Entry& e = entries.front();
  const QString what = e.originalPath.isEmpty() ? e.projectName : QFileInfo(e.originalPath).fileName();
  bool recover = recoveryPolicy_ == RecoveryPolicy::Recover;
  if (recoveryPolicy_ == RecoveryPolicy::Ask) {
    const auto answer = QMessageBox::question(
        this, tr("Recover unsaved work?"),
        tr("Sinew did not shut down cleanly. Unsaved changes to <b>%1</b> were autosaved at %2.<br><br>"
           "Recover them?")
            .arg(what.toHtmlEscaped(), e.time.toString("yyyy-MM-dd HH:mm:ss")),
        QMessageBox::Yes | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Yes);
    if (answer == QMessageBox::Cancel) return;  // keep it for next time
    recover = answer == QMessageBox::Yes;
  }
  if (recover) {
    try {
      Project p = loadProject(e.projectFile.toStdString());
      doc_.reset(std::move(p), e.originalPath, /*modified=*/true);
      log_.warning(tr("Recovered unsaved work on %1 from %2; save it to keep it")
                       .arg(what, e.time.toString("yyyy-MM-dd HH:mm:ss")));
      viewport_->frameAll();
    } catch (const std::exception& ex) {
      log_.error(tr("Recovery failed: %1").arg(QString::fromStdString(ex.what())));
      showError(tr("Recovery failed"), QString::fromStdString(ex.what()));
      return;  // keep the files: the user may try again
    }
  }
  for (const Recovery::Entry& old : entries) Recovery::discard(old);
  if (recover) autosaveNow();  // protect the recovered work in this session
}

}  // namespace sinew::app
