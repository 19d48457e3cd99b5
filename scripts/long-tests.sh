#!/usr/bin/env bash
# The long checks that scripts/test.sh leaves out (CTest label "long"): the
# paper-sized 60 s walk, the ControllerQuality searches, the foreign characters
# through every solver, whole-clip playbacks in the GUI and the longest CLI and
# GUI searches. Minutes each: over 5,000 test-seconds on the Zen 3 VM of 2026-11-30
# (docs/PERFORMANCE.md, "Long checks"), so not part of the test command.
# Release build; GUI tests under Xvfb. Extra arguments go to ctest (-R, -j...).
set -euo pipefail
cd "$(dirname "$0")/.."
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
scripts/setup-debian.sh
scripts/build.sh
(cd build && xvfb-run -a -s "-screen 0 1920x1080x24 -noreset" ctest -j2 -L long --output-on-failure "$@")
echo "long-tests.sh: all long tests passed"
