// The real binaries, end to end: `sinew --screenshot` renders the example
// project (checked on the pixels), bad arguments and files fail cleanly, and
// a killed session's autosave is recovered by the next start.
#include "TestPaths.h"
#include "GuiTestUtil.h"

#include <gtest/gtest.h>

#include <QFile>
#include <QProcess>
#include <QThread>

#include <csignal>

using namespace sinew::test;

namespace {

struct ProcessRun {
  int exitCode = -1;
  QString out, err;
};

ProcessRun runSinew(const QStringList& args, const QStringList& env = {}, int timeoutMs = 120000) {
  QProcess p;
  QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
  for (const QString& kv : env) e.insert(kv.section('=', 0, 0), kv.section('=', 1));
  p.setProcessEnvironment(e);
  p.start(QString(SINEW_BIN_DIR) + "/sinew", args);
  ProcessRun r;
  if (!p.waitForFinished(timeoutMs)) {
    p.kill();
    p.waitForFinished();
    r.err = "timed out";
    return r;
  }
  r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  r.out = QString::fromLocal8Bit(p.readAllStandardOutput());
  r.err = QString::fromLocal8Bit(p.readAllStandardError());
  return r;
}

}  // namespace

TEST(Screenshot, ShowsTheExampleCharacter) {
  const QString dir = tempDir("screenshot");
  const QString png = dir + "/shot.png";
  const ProcessRun r = runSinew({"--project", examplePath(), "--screenshot", png, "--frames", "3", "--size", "1280x720",
                          "--recovery", "ignore"});
  ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
  const QImage img(png);
  ASSERT_FALSE(img.isNull());
  EXPECT_EQ(img.size(), QSize(1280, 720));
  const ImageStats s = imageStats(img);
  EXPECT_GT(s.lumaStdDev, 20.0) << "blank or uniform screenshot";
  EXPECT_GT(s.distinctColors, 200);
  // The character (light grey) fills part of the window's middle.
  const QRect middle(img.width() / 3, img.height() / 4, img.width() / 3, img.height() / 2);
  EXPECT_GT(imageStats(img, middle).brightFraction, 0.1);
}

TEST(Screenshot, StartsWithNoArgumentsOnTheExample) {
  const QString png = tempDir("default") + "/shot.png";
  const ProcessRun r = runSinew({"--screenshot", png, "--recovery", "ignore"});
  ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
  EXPECT_TRUE(r.err.contains("Opened humanoid.sinew")) << r.err.toStdString();
}

TEST(Screenshot, BadArgumentsAndFiles) {
  const QString dir = tempDir("bad");
  ProcessRun r = runSinew({"--screenshot", dir + "/x.png", "--size", "huge"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_TRUE(r.err.contains("--size"));
  r = runSinew({"--project", dir + "/missing.sinew", "--screenshot", dir + "/x.png"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(r.err.contains("missing.sinew: no such file")) << r.err.toStdString();
  QFile f(dir + "/broken.sinew");
  ASSERT_TRUE(f.open(QIODevice::WriteOnly));
  f.write("{\"format\": \"sinew-project\", \"vers");
  f.close();
  r = runSinew({"--project", dir + "/broken.sinew", "--screenshot", dir + "/x.png"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(r.err.contains("broken.sinew")) << r.err.toStdString();
  EXPECT_FALSE(QFile::exists(dir + "/x.png"));
}

TEST(Screenshot, RecoversAfterTheProcessIsKilled) {
  const QString data = tempDir("crash-data");
  const QStringList env{"SINEW_DATA_DIR=" + data, "SINEW_AUTOSAVE_SECONDS=1"};
  // Start Sinew importing a file (an unsaved change), let it autosave, kill it.
  QProcess p;
  QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
  for (const QString& kv : env) e.insert(kv.section('=', 0, 0), kv.section('=', 1));
  p.setProcessEnvironment(e);
  p.start(QString(SINEW_BIN_DIR) + "/sinew",
          {"--recovery", "ignore", examplePath(), "/usr/share/assimp/models/OBJ/box.obj"});
  ASSERT_TRUE(p.waitForStarted());
  const QString notes = data + "/recovery";
  ASSERT_TRUE(waitUntil([&] { return !QDir(notes).entryList({"session-*.json"}).isEmpty(); }, 60000))
      << "no autosave appeared";
  QThread::msleep(300);
  ::kill(pid_t(p.processId()), SIGKILL);
  p.waitForFinished();
  // The next start recovers the import.
  const ProcessRun r = runSinew({"--recovery", "recover", "--screenshot", tempDir("crash-shot") + "/s.png"}, env);
  ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
  EXPECT_TRUE(r.err.contains("Recovered unsaved work")) << r.err.toStdString();
  EXPECT_TRUE(QDir(notes).entryList({"session-*.json"}).isEmpty()) << "recovery copies are cleaned up";
}
