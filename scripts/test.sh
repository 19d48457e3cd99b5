#!/usr/bin/env bash
# One command: install dependencies, build, and run every test.
#  1. Release build of everything; all tests (GUI tests under Xvfb) but the
#     label "long" (paper-sized scenes, whole searches and whole-clip
#     playbacks: scripts/long-tests.sh runs them).
#  2. sim/ and its unit, import and CLI tests built with AddressSanitizer and
#     UndefinedBehaviorSanitizer, and run under them (not the "physics" label:
#     paper figures, long runs and searches, Release only; RELEASE_ONLY in
#     cmake/SinewHelpers.cmake).
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache: paths relative to the checkout, so clones in other folders share the cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
scripts/setup-debian.sh

scripts/build.sh
# -noreset: by default the X server resets when its last client leaves, and a
# GUI test that connects during that reset fails to open the display.
(cd build && xvfb-run -a -s "-screen 0 1920x1080x24 -noreset" ctest -j2 -LE long --output-on-failure)

cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSINEW_BUILD_APP=OFF \
      -DSINEW_BUILD_BENCHMARKS=OFF -DSINEW_SANITIZE=address,undefined
cmake --build build-asan
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
   ctest -j2 -L "unit|import|cli" -LE long --output-on-failure)
echo "test.sh: all tests passed"
