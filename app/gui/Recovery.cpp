// Autosave and crash recovery of unsaved work (Recovery.h).
#include "Recovery.h"

#include "io/ProjectFile.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>

#include <algorithm>

#include <signal.h>
#include <unistd.h>

namespace sinew::app {

namespace {
bool processAlive(qint64 pid) { return pid > 0 && (::kill(pid_t(pid), 0) == 0 || errno == EPERM); }
}  // namespace

QString Recovery::defaultDirectory() {
  const QByteArray env = qgetenv("SINEW_DATA_DIR");
  const QString base = env.isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)
                                     : QString::fromLocal8Bit(env);
  return QDir(base).filePath("recovery");
}

Recovery::Recovery(const QString& directory) : dir_(directory) {
  QDir().mkpath(dir_);
  sessionBase_ = QDir(dir_).filePath(
      QString("session-%1-%2").arg(QCoreApplication::applicationPid()).arg(QDateTime::currentMSecsSinceEpoch()));
}

void Recovery::autosave(const Project& project, const QString& originalPath) {
  saveProject(project, (sessionBase_ + ".sinew").toStdString());
  QJsonObject note{{"pid", QCoreApplication::applicationPid()},
                   {"originalPath", originalPath},
                   {"projectName", QString::fromStdString(project.name)},
                   {"time", QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs)}};
  writeFileAtomic((sessionBase_ + ".json").toStdString(), QJsonDocument(note).toJson().toStdString());
}

bool Recovery::hasSessionCopy() const { return QFile::exists(sessionBase_ + ".json"); }

void Recovery::discardSession() {
  Entry e;
  e.projectFile = sessionBase_ + ".sinew";
  e.noteFile = sessionBase_ + ".json";
  discard(e);
}

void Recovery::discard(const Entry& e) {
  QFile::remove(e.noteFile);
  QFile::remove(e.projectFile);
  QDir(e.projectFile + ".data").removeRecursively();
}

std::vector<Recovery::Entry> Recovery::orphaned() const {
  std::vector<Entry> out;
  const QDir d(dir_);
  for (const QString& name : d.entryList({"session-*.json"}, QDir::Files)) {
    QFile f(d.filePath(name));
    if (!f.open(QIODevice::ReadOnly)) continue;
    const QJsonObject note = QJsonDocument::fromJson(f.readAll()).object();
    Entry e;
    e.noteFile = d.filePath(name);
    e.projectFile = e.noteFile.left(e.noteFile.size() - 5) + ".sinew";
    e.originalPath = note.value("originalPath").toString();
    e.projectName = note.value("projectName").toString();
    e.time = QDateTime::fromString(note.value("time").toString(), Qt::ISODateWithMs).toLocalTime();
    e.pid = note.value("pid").toInteger();
    if (e.noteFile == sessionBase_ + ".json" || processAlive(e.pid) || !QFile::exists(e.projectFile)) continue;
    out.push_back(e);
  }
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) { return a.time > b.time; });
  return out;
}

}  // namespace sinew::app
