// Helpers shared by the GUI tests.
#pragma once

#include "TestPaths.h"
#include <QColor>
#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QImage>
#include <QString>

#include <functional>

namespace sinew::test {

inline QString sourcePath(const QString& rel) { return QString(SINEW_SOURCE_DIR) + "/" + rel; }
inline QString examplePath() { return sourcePath("projects/humanoid/humanoid.sinew"); }

// A fresh, empty directory under the build tree for one test.
inline QString tempDir(const QString& name) {
  QDir d(QString(SINEW_BINARY_DIR) + "/test-tmp/gui/" + name);
  d.removeRecursively();
  QDir().mkpath(d.path());
  return d.path();
}

// Processes events until `done()` or the timeout; returns done().
inline bool waitUntil(const std::function<bool()>& done, int timeoutMs = 10000) {
  QDeadlineTimer deadline(timeoutMs);
  while (!done() && !deadline.hasExpired()) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
  return done();
}

// Statistics that tell a rendered character from a blank or uniform image.
struct ImageStats {
  double lumaStdDev = 0;      // over all pixels
  double brightFraction = 0;  // pixels lighter than the background can be (the white character)
  int distinctColors = 0;     // quantised to 5 bits per channel
};

inline ImageStats imageStats(const QImage& src, QRect region = {}) {
  const QImage img = src.convertToFormat(QImage::Format_RGB32);
  if (region.isNull()) region = img.rect();
  double sum = 0, sum2 = 0;
  long n = 0, bright = 0;
  std::vector<bool> seen(1 << 15, false);
  int distinct = 0;
  for (int y = region.top(); y <= region.bottom(); ++y)
    for (int x = region.left(); x <= region.right(); ++x) {
      const QRgb c = img.pixel(x, y);
      const double l = 0.299 * qRed(c) + 0.587 * qGreen(c) + 0.114 * qBlue(c);
      sum += l;
      sum2 += l * l;
      ++n;
      if (l > 150) ++bright;
      const int key = ((qRed(c) >> 3) << 10) | ((qGreen(c) >> 3) << 5) | (qBlue(c) >> 3);
      if (!seen[key]) {
        seen[key] = true;
        ++distinct;
      }
    }
  ImageStats s;
  const double mean = n ? sum / n : 0;
  s.lumaStdDev = n ? std::sqrt(std::max(0.0, sum2 / n - mean * mean)) : 0;
  s.brightFraction = n ? double(bright) / n : 0;
  s.distinctColors = distinct;
  return s;
}

// Mean absolute difference of two images' luma over `region` (0..255).
inline double meanAbsDifference(const QImage& a, const QImage& b, QRect region) {
  const QImage x = a.convertToFormat(QImage::Format_RGB32), y = b.convertToFormat(QImage::Format_RGB32);
  double sum = 0;
  long n = 0;
  for (int j = region.top(); j <= region.bottom(); ++j)
    for (int i = region.left(); i <= region.right(); ++i) {
      sum += std::abs(qGray(x.pixel(i, j)) - qGray(y.pixel(i, j)));
      ++n;
    }
  return n ? sum / n : 0;
}

}  // namespace sinew::test
