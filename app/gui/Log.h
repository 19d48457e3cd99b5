// Application log: messages from any thread, shown in the Log panel (and
// echoed to stderr so headless runs and tests see them).
#pragma once

#include "core/Error.h"

#include <QDateTime>
#include <QObject>
#include <QString>
#include <QVector>

namespace sinew::app {

struct LogEntry {
  QDateTime time;
  Severity severity;
  QString message;
};

class Log : public QObject {
  Q_OBJECT
 public:
  explicit Log(QObject* parent = nullptr) : QObject(parent) {}
  // Thread-safe: entries from worker threads are queued to the UI thread.
  void add(Severity severity, const QString& message);
  void info(const QString& m) { add(Severity::Info, m); }
  void warning(const QString& m) { add(Severity::Warning, m); }
  void error(const QString& m) { add(Severity::Error, m); }
  void add(const Diagnostics& diagnostics);
  const QVector<LogEntry>& entries() const { return entries_; }
  void clear();

 signals:
  void added(const sinew::app::LogEntry& entry);
  void cleared();

 private:
  void append(const LogEntry& e);
  QVector<LogEntry> entries_;
};

}  // namespace sinew::app
