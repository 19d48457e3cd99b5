// The application log, from any thread to the Log panel and stderr (Log.h).
#include "Log.h"

#include <QMetaObject>
#include <QThread>

#include <cstdio>

namespace sinew::app {

void Log::add(Severity severity, const QString& message) {
  const LogEntry e{QDateTime::currentDateTime(), severity, message};
  if (QThread::currentThread() == thread()) append(e);
  else QMetaObject::invokeMethod(this, [this, e] { append(e); }, Qt::QueuedConnection);
}

void Log::add(const Diagnostics& diagnostics) {
  for (const Diagnostic& d : diagnostics) add(d.severity, QString::fromStdString(d.message));
}

void Log::append(const LogEntry& e) {
  entries_.push_back(e);
  std::fprintf(stderr, "[%s] %s\n", severityName(e.severity), e.message.toLocal8Bit().constData());
  emit added(e);
}

void Log::clear() {
  entries_.clear();
  emit cleared();
}

}  // namespace sinew::app
