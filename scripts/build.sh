#!/usr/bin/env bash
# Configures and builds Sinew (Release) into build/.
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache: paths relative to the checkout, so clones in other folders share the cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build build
