#!/usr/bin/env bash
# Coverage-guided fuzzing of Sinew's readers of untrusted bytes with libFuzzer
# (clang): the BVH parser, the project reader and the blob reader
# (tests/fuzz/FuzzTargets.h). Usage: scripts/fuzz.sh [SECONDS_PER_TARGET] (default 60).
# Each target starts from its seed corpus (build-fuzz/corpus/<target>, written
# from real files on the first run) and keeps what it finds there; a crash
# leaves crash-* files in build-fuzz/findings/<target>: make each one a
# regression test (tests/app/cli/HostileInputTest.cpp) and fix it.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSINEW_BUILD_APP=OFF \
  -DSINEW_BUILD_BENCHMARKS=OFF -DSINEW_SANITIZE=address,undefined -DSINEW_FUZZ=ON
cmake --build build-fuzz --target fuzz_bvh fuzz_project fuzz_blob fuzz_seeds
status=0
for target in bvh project blob; do
  corpus=build-fuzz/corpus/$target findings=build-fuzz/findings/$target
  mkdir -p "$corpus" "$findings"
  if [ -z "$(ls -A "$corpus")" ]; then
    build-fuzz/bin/fuzz_seeds "$target" "$corpus"
  fi
  echo "fuzz.sh: $target for $seconds s"
  (cd "$findings" && ASAN_OPTIONS=detect_leaks=0 ../../bin/fuzz_$target -max_total_time="$seconds" -timeout=10 \
     -rss_limit_mb=4096 -max_len=1048576 "../../corpus/$target") || status=1
done
exit $status
