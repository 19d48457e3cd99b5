#!/usr/bin/env bash
# Regenerates the paper-figure plots in docs/images/ (SVG) by running the
# figure tests with SINEW_FIGURES_DIR pointing there. Release build; a few minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
SINEW_FIGURES_DIR="$PWD/docs/images" build/bin/sinew_liu2013_figures_tests
SINEW_FIGURES_DIR="$PWD/docs/images" build/bin/sinew_li2019_tests
SINEW_FIGURES_DIR="$PWD/docs/images" build/bin/sinew_viper_tests
SINEW_FIGURES_DIR="$PWD/docs/images" build/bin/sinew_sheth2015_tests
ls -l docs/images/*.svg
