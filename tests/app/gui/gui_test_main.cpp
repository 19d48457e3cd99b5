// GUI tests need a QApplication with the same OpenGL format as the app.
#include <gtest/gtest.h>

#include <QApplication>
#include <QSettings>
#include <QSurfaceFormat>

#include <cstring>

int main(int argc, char** argv) {
  // Listing tests (CMake's test discovery at build time) needs no display.
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--gtest_list_tests") == 0) {
      ::testing::InitGoogleTest(&argc, argv);
      return RUN_ALL_TESTS();
    }
  QSurfaceFormat format;
  format.setVersion(3, 3);
  format.setProfile(QSurfaceFormat::CoreProfile);
  format.setDepthBufferSize(24);
  QSurfaceFormat::setDefaultFormat(format);
  QApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
  QApplication app(argc, argv);
  QApplication::setApplicationName("SinewTest");
  QApplication::setOrganizationName("SinewTest");
  // Tests wait for simulated seconds: as fast as the solvers go (the pacing
  // test turns real time on for itself).
  QSettings().setValue("simulate/realTime", false);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
