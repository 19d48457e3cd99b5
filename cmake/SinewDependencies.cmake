# Third-party dependencies, all from Debian 12 packages (scripts/setup-debian.sh installs them).
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(TBB REQUIRED)
find_package(assimp 5.2 REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(MPI REQUIRED COMPONENTS CXX)  # sinew-cli optimize under mpirun

# TetGen ships no CMake config: header tetgen.h, library libtet.
find_path(TETGEN_INCLUDE_DIR tetgen.h REQUIRED)
find_library(TETGEN_LIBRARY tet REQUIRED)
add_library(sinew_tetgen INTERFACE)
target_include_directories(sinew_tetgen SYSTEM INTERFACE ${TETGEN_INCLUDE_DIR})
target_link_libraries(sinew_tetgen INTERFACE ${TETGEN_LIBRARY})
target_compile_definitions(sinew_tetgen INTERFACE TETLIBRARY)

# CHOLMOD (SuiteSparse) ships no CMake config either; Eigen's CholmodSupport
# includes <cholmod.h>.
find_path(CHOLMOD_INCLUDE_DIR cholmod.h PATH_SUFFIXES suitesparse REQUIRED)
find_library(CHOLMOD_LIBRARY cholmod REQUIRED)
find_library(SUITESPARSECONFIG_LIBRARY suitesparseconfig REQUIRED)
add_library(sinew_cholmod INTERFACE)
target_include_directories(sinew_cholmod SYSTEM INTERFACE ${CHOLMOD_INCLUDE_DIR})
target_link_libraries(sinew_cholmod INTERFACE ${CHOLMOD_LIBRARY} ${SUITESPARSECONFIG_LIBRARY})

if(SINEW_BUILD_APP)
  find_package(OpenGL REQUIRED COMPONENTS OpenGL EGL)
  pkg_check_modules(IMGUI REQUIRED IMPORTED_TARGET imgui)
  find_package(Qt6 6.4 REQUIRED COMPONENTS Core Gui Widgets OpenGL OpenGLWidgets Concurrent Charts Test)
endif()

if(SINEW_BUILD_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
  pkg_check_modules(ODE IMPORTED_TARGET ode)
  # Bullet's reduced deformable body, the reference that tests/sim/sheth2015/BulletComparisonTest.cpp compares
  # the Sheth 2015 impulse factor with. Its double-precision build, so rounding does not limit the comparison.
  pkg_check_modules(BULLET IMPORTED_TARGET bullet-float64)
  if(NOT BULLET_FOUND)
    message(FATAL_ERROR "Bullet's double-precision build (bullet-float64.pc) was not found: install the "
                        "Debian package libbullet-dev (scripts/setup-debian.sh does), or configure with "
                        "-DSINEW_BUILD_TESTS=OFF")
  endif()
endif()
if(SINEW_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()
