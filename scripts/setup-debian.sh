#!/usr/bin/env bash
# Installs every Debian 12 package Sinew needs to build, run and test.
# Safe to run again: does nothing when everything is already installed.
set -euo pipefail

PACKAGES=(
  # toolchain
  build-essential cmake ninja-build pkg-config ccache git
  # GUI: Qt 6 widgets + OpenGL widget + charts, OpenGL (Mesa), Dear ImGui
  qt6-base-dev libqt6opengl6-dev qt6-charts-dev libgl-dev libegl-dev libgl1-mesa-dri libimgui-dev
  # numerics, meshing, threads
  libeigen3-dev libsuitesparse-dev libspectra-dev libtbb-dev libtet1.5-dev
  # optimised BLAS/LAPACK behind CHOLMOD's supernodal solves (single-threaded, so results are
  # deterministic; Debian's alternatives make it the system libblas.so.3)
  libopenblas0-serial
  # file formats and command line
  libassimp-dev zlib1g-dev nlohmann-json3-dev libcli11-dev
  # cluster runs
  libopenmpi-dev openmpi-bin
  # tests: GoogleTest, Google Benchmark, ODE (reference engine), real sample files, assimp's own CLI
  libgtest-dev libbenchmark-dev libode-dev assimp-testmodels assimp-utils
  # tests: Bullet (its reduced deformable body, the reference for the Sheth 2015 impulse factor)
  libbullet-dev
  # headless GUI tests and screenshots
  xvfb xauth imagemagick x11-apps xdotool
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-debian: all ${#PACKAGES[@]} packages are installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup-debian: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
