#!/usr/bin/env bash
# The long checks that scripts/test.sh leaves out (CTest label "long"): the
# paper-sized 60 s walk, the ControllerQuality searches, the foreign characters
# through every solver, whole-clip playbacks in the GUI and the longest CLI and
# GUI searches. Minutes each: about an hour in all on an AVX2-only Zen 3, which
# is why they are not part of the test command (docs/ARCHITECTURE.md, Tests).
# Release build; GUI tests under Xvfb. Extra arguments go to ctest (-R, -j...).
set -euo pipefail
cd "$(dirname "$0")/.."
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
scripts/setup-debian.sh
scripts/build.sh
(cd build && xvfb-run -a -s "-screen 0 1920x1080x24 -noreset" ctest -j2 -L long --output-on-failure "$@")
echo "long-tests.sh: all long tests passed"
