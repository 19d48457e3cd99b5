// Autosave and crash recovery. While Sinew runs, unsaved work is written
// every so often to a recovery project in the user's data directory, next to
// a small JSON note (process id, original path, time). A clean exit or a save
// removes it; a note whose process is gone means Sinew crashed or was
// killed, and the next start offers to recover.
#pragma once

#include "model/Project.h"

#include <QDateTime>
#include <QString>

#include <vector>

namespace sinew::app {

class Recovery {
 public:
  explicit Recovery(const QString& directory);  // created if missing

  struct Entry {
    QString projectFile;   // the autosaved project (.sinew)
    QString noteFile;      // its JSON note
    QString originalPath;  // the document's own path ("" if untitled)
    QString projectName;
    QDateTime time;
    qint64 pid = 0;
  };

  // Writes `project` as this session's recovery copy (atomic, like any save).
  void autosave(const Project& project, const QString& originalPath);
  // Removes this session's recovery copy (after a save, or on a clean exit).
  void discardSession();
  bool hasSessionCopy() const;
  const QString& directory() const { return dir_; }

  // Recovery copies left by sessions that are no longer running, newest first.
  std::vector<Entry> orphaned() const;
  static void discard(const Entry& entry);

  // Default directory: $SINEW_DATA_DIR/recovery, else the platform's app data location.
  static QString defaultDirectory();

 private:
  QString dir_;
  QString sessionBase_;  // path without extension for this session
};

}  // namespace sinew::app
