// sinew: the desktop application.
//
//   sinew [PROJECT]                      open PROJECT (default: the example humanoid)
//   sinew --project P --screenshot OUT.png [--frames N] [--size WxH]
//                                        render N frames, save a screenshot of the window, exit
//   sinew --bench-viewport [--frames N] [--size WxH] [--project P]
//                                        render N frames of the viewport alone, print timing JSON
#include "MainWindow.h"
#include "examples/Humanoid.h"
#include "io/ProjectFile.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QScreen>
#include <QSurfaceFormat>
#include <QTimer>

#include <cstdio>
#include <iostream>

using namespace sinew;
using namespace sinew::app;

namespace {

// The default example project: next to the executable's source tree
// (build/bin/../../projects), or installed beside the binary.
QString defaultProjectPath() {
  const QDir bin(QCoreApplication::applicationDirPath());
  for (const QString& rel : {QStringLiteral("../../projects/humanoid/humanoid.sinew"),
                             QStringLiteral("../projects/humanoid/humanoid.sinew"),
                             QStringLiteral("../share/sinew/projects/humanoid/humanoid.sinew")}) {
    const QString p = QDir::cleanPath(bin.filePath(rel));
    if (QFileInfo::exists(p)) return p;
  }
#ifdef SINEW_SOURCE_DIR
  const QString src = QString(SINEW_SOURCE_DIR) + "/projects/humanoid/humanoid.sinew";
  if (QFileInfo::exists(src)) return src;
#endif
  return {};
}

bool parseSize(const QString& s, QSize* out) {
  const QStringList parts = s.toLower().split('x');
  if (parts.size() != 2) return false;
  bool a = false, b = false;
  const int w = parts[0].toInt(&a), h = parts[1].toInt(&b);
  if (!a || !b || w < 64 || h < 64 || w > 16384 || h > 16384) return false;
  *out = QSize(w, h);
  return true;
}

int fail(const QString& message, int code) {
  std::fprintf(stderr, "sinew: %s\n", message.toLocal8Bit().constData());
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  // OpenGL 3.3 core for every context, set before the application exists.
  QSurfaceFormat format;
  format.setVersion(3, 3);
  format.setProfile(QSurfaceFormat::CoreProfile);
  format.setDepthBufferSize(24);
  format.setStencilBufferSize(8);
  format.setSamples(qEnvironmentVariableIntValue("SINEW_MSAA"));
  QSurfaceFormat::setDefaultFormat(format);
  QApplication::setAttribute(Qt::AA_ShareOpenGLContexts);

  QApplication app(argc, argv);
  QApplication::setApplicationName("Sinew");
  QApplication::setOrganizationName("Sinew");
  QApplication::setApplicationVersion("0.1.0");

  QCommandLineParser cli;
  cli.setApplicationDescription("Sinew: author and simulate soft-bodied characters");
  cli.addHelpOption();
  cli.addVersionOption();
  cli.addPositionalArgument("project", "Project to open (.sinew) or files to import");
  const QCommandLineOption projectOpt("project", "Project to open.", "file");
  const QCommandLineOption screenshotOpt("screenshot", "Render, save a screenshot of the main window and exit.", "png");
  const QCommandLineOption framesOpt("frames", "Frames to render before the screenshot or benchmark ends.", "n", "3");
  const QCommandLineOption sizeOpt("size", "Window (or benchmark viewport) size, WxH.", "WxH", "1280x800");
  const QCommandLineOption benchOpt("bench-viewport", "Render frames of the viewport alone and print timing JSON.");
  const QCommandLineOption recoveryOpt("recovery", "Crash recovery: ask, recover, discard or ignore.", "policy", "ask");
  const QCommandLineOption modeOpt("shading", "Viewport display mode: shaded, wireframe or xray.", "mode", "shaded");
  cli.addOptions({projectOpt, screenshotOpt, framesOpt, sizeOpt, benchOpt, recoveryOpt, modeOpt});
  cli.process(app);

  QSize size;
  if (!parseSize(cli.value(sizeOpt), &size)) return fail("invalid --size '" + cli.value(sizeOpt) + "' (expected WxH)", 1);
  bool framesOk = false;
  const int frames = cli.value(framesOpt).toInt(&framesOk);
  if (!framesOk || frames < 1) return fail("invalid --frames '" + cli.value(framesOpt) + "'", 1);
  const QString policyName = cli.value(recoveryOpt);
  MainWindow::RecoveryPolicy policy = MainWindow::RecoveryPolicy::Ask;
  if (policyName == "recover") policy = MainWindow::RecoveryPolicy::Recover;
  else if (policyName == "discard") policy = MainWindow::RecoveryPolicy::Discard;
  else if (policyName == "ignore") policy = MainWindow::RecoveryPolicy::Ignore;
  else if (policyName != "ask") return fail("invalid --recovery '" + policyName + "'", 1);
  render::DisplayMode mode = render::DisplayMode::Shaded;
  if (cli.value(modeOpt) == "wireframe") mode = render::DisplayMode::Wireframe;
  else if (cli.value(modeOpt) == "xray") mode = render::DisplayMode::XRay;
  else if (cli.value(modeOpt) != "shaded") return fail("invalid --shading '" + cli.value(modeOpt) + "'", 1);

  QString projectPath = cli.value(projectOpt);
  QStringList imports;
  for (const QString& arg : cli.positionalArguments()) {
    if (arg.endsWith(kProjectExtension) && projectPath.isEmpty()) projectPath = arg;
    else imports << arg;
  }
  const bool automated = cli.isSet(screenshotOpt) || cli.isSet(benchOpt);

  // Load the project synchronously here so that a bad file gives a clear
  // message and exit code in automated runs (the GUI's File > Open is async).
  Project project;
  QString openedPath;
  if (projectPath.isEmpty() && imports.isEmpty()) projectPath = defaultProjectPath();
  if (!projectPath.isEmpty()) {
    try {
      project = loadProject(projectPath.toStdString());
      openedPath = projectPath;
    } catch (const std::exception& e) {
      if (automated) return fail(QString::fromStdString(e.what()), 2);
      std::fprintf(stderr, "sinew: %s\n", e.what());
    }
  } else if (imports.isEmpty()) {
    project = makeHumanoidProject();  // no example on disk: generate it
  }

  if (cli.isSet(benchOpt)) {
    // The viewport alone at exactly the requested size, rendering flat out.
    Document doc;
    doc.reset(std::move(project), openedPath);
    ViewportWidget view(&doc);
    view.setFixedSize(size);
    render::ViewSettings s = view.settings();
    s.mode = mode;
    view.setSettings(s);
    view.show();
    view.frameAll();
    QElapsedTimer clock;
    int startFrame = -1;
    QObject::connect(&view, &QOpenGLWidget::frameSwapped, &view, [&] {
      if (startFrame < 0 && view.framesRendered() >= 5) {  // warm-up frames excluded
        startFrame = view.framesRendered();
        clock.start();
      }
      if (startFrame >= 0 && view.framesRendered() - startFrame >= frames) {
        const double seconds = clock.nsecsElapsed() * 1e-9;
        const int n = view.framesRendered() - startFrame;
        QJsonObject out{{"frames", n},
                        {"seconds", seconds},
                        {"fps", n / seconds},
                        {"msPerFrame", 1000.0 * seconds / n},
                        {"width", size.width()},
                        {"height", size.height()},
                        {"triangles", qint64(view.lastTriangles())},
                        {"renderer", view.glInfo()},
                        {"shading", cli.value(modeOpt)}};
        std::cout << QJsonDocument(out).toJson(QJsonDocument::Compact).constData() << std::endl;
        view.setContinuous(false);
        QTimer::singleShot(0, &app, &QApplication::quit);
      }
      view.camera().orbit(0.01, 0.0);  // a moving camera, as when navigating
    });
    view.setContinuous(true);
    return app.exec();
  }

  MainWindow window(policy);
  if (automated) window.setInteractive(false);
  if (!openedPath.isEmpty() || !project.meshes.empty() || project.skeleton) window.openProjectData(std::move(project), openedPath);
  render::ViewSettings s = window.viewport()->settings();
  s.mode = mode;
  window.viewport()->setSettings(s);
  window.resize(size);
  window.show();
  window.viewport()->frameAll();
  if (!imports.isEmpty()) window.importFiles(imports);

  if (cli.isSet(screenshotOpt)) {
    // An explicit recovery policy applies to automated runs too (used by the crash-recovery test).
    if (policy != MainWindow::RecoveryPolicy::Ask) window.checkRecovery();
    const QString out = cli.value(screenshotOpt);
    int exitCode = 0;
    QObject::connect(window.viewport(), &QOpenGLWidget::frameSwapped, &window, [&] {
      if (window.viewport()->framesRendered() < frames || window.tasks()->busy()) {
        window.viewport()->update();
        return;
      }
      QObject::disconnect(window.viewport(), &QOpenGLWidget::frameSwapped, &window, nullptr);
      QTimer::singleShot(0, &window, [&] {
        const QImage image = window.grab().toImage();
        if (image.isNull() || !image.save(out)) {
          std::fprintf(stderr, "sinew: %s: cannot write screenshot\n", out.toLocal8Bit().constData());
          exitCode = 2;
        } else {
          std::printf("wrote %s (%dx%d)\n", out.toLocal8Bit().constData(), image.width(), image.height());
        }
        window.close();
        app.exit(exitCode);
      });
    });
    window.viewport()->update();
    return app.exec();
  }

  QTimer::singleShot(0, &window, [&window] { window.checkRecovery(); });
  return app.exec();
}
