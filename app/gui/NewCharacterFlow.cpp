// File > New Character...: import, joints, build and simulate in one action (NewCharacterFlow.h).
#include "NewCharacterFlow.h"

#include "MainWindow.h"

#include <QDockWidget>
#include <QFileInfo>
#include <QTimer>

namespace sinew::app {

NewCharacterFlow::NewCharacterFlow(MainWindow* window) : QObject(window), window_(window) {
  connect(window_->tasks(), &TaskRunner::finished, this, &NewCharacterFlow::onTaskFinished);
}

QString NewCharacterFlow::stepName(Step s) {
  switch (s) {
    case Step::Idle: return tr("idle");
    case Step::Import: return tr("Import");
    case Step::Joints: return tr("Auto-Place Joints");
    case Step::Rig: return tr("Build Everything Missing");
    case Step::TimeStep: return tr("Stable time step");
    case Step::Simulate: return tr("Simulate");
  }
  return {};
}

bool NewCharacterFlow::start(const QString& file) {
  if (running() || window_->tasks()->busy()) return false;
  file_ = file;
  window_->newProject();
  window_->log()->info(tr("New Character: %1").arg(QFileInfo(file).fileName()));
  step_ = Step::Import;
  if (!window_->importFiles({file})) {
    stop(tr("another task is running"));
    return false;
  }
  return true;
}

void NewCharacterFlow::onTaskFinished(bool ok) {
  if (!running()) return;
  if (!ok) return stop(tr("the step failed or was cancelled (see the Log)"));
  // The step's own completion may queue the next task (the rig queues the
  // time-step search): look once the event loop has run it.
  QTimer::singleShot(0, this, [this] {
    if (!running()) return;
    if (!window_->tasks()->busy()) return advance();
    if (step_ == Step::Rig) step_ = Step::TimeStep;  // the fall test the rig started
  });
}

void NewCharacterFlow::advance() {
  const Project& p = window_->document()->project();
  switch (step_) {
    case Step::Idle:
    case Step::Simulate: return;
    case Step::Import:
      if (p.meshes.empty()) return stop(tr("nothing was imported from %1 (see the Log)").arg(QFileInfo(file_).fileName()));
      window_->rig()->setTargetMesh(p.meshes.front().id);  // the body (small parts follow it)
      if (!p.skeleton) {
        step_ = Step::Joints;
        if (!window_->autoPlaceJoints()) stop(tr("could not start"));
        return;
      }
      [[fallthrough]];
    case Step::Joints:
      step_ = Step::Rig;
      if (!window_->runRigBuild(RigBuildOptions{}, tr("Building the rig"))) stop(tr("could not start"));
      return;
    case Step::Rig:
    case Step::TimeStep: {
      if (p.volumes.empty()) return stop(tr("no volume was built"));
      step_ = Step::Simulate;
      if (auto* dock = window_->findChild<QDockWidget*>("dockSimulate")) dock->raise();
      window_->viewport()->frameAll();
      window_->actSimPlay->trigger();
      step_ = Step::Idle;
      window_->log()->info(tr("New Character: rigged and simulating"));
      emit ended(true, tr("simulating"));
      return;
    }
  }
}

void NewCharacterFlow::stop(const QString& why) {
  const QString message = tr("New Character stopped at %1: %2; what the earlier steps did is kept (Edit > Undo takes it back)")
                              .arg(stepName(step_), why);
  step_ = Step::Idle;
  window_->log()->warning(message);
  emit ended(false, message);
}

}  // namespace sinew::app
