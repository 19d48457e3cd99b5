#!/usr/bin/env bash
# One command: install dependencies, build, and launch Sinew on the default
# example project (projects/humanoid). Extra arguments go to sinew.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-debian.sh
scripts/build.sh
exec build/bin/sinew "$@"
