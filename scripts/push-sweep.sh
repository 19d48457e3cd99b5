#!/bin/bash
# How robust a controller is: plays it once per shove (--push T,VX,0,VZ of
# sinew-cli simulate) at each of the given times, in each of the four
# horizontal directions, and prints whether the character stayed up.
#
# Usage: scripts/push-sweep.sh PROJECT CONTROLLER SECONDS SPEED TIME...
#   SECONDS: how long each replay is simulated (past the controller's end:
#            it then holds its last pose under balance feedback)
#   SPEED:   the shove, m/s given to the whole body
# e.g. scripts/push-sweep.sh projects/humanoid/humanoid-run.sinew "Run (generated) 0-7 s" 9 0.001 1 3
# Environment: SINEW_CLI (default build/bin/sinew-cli), JOBS (replays run
# side by side, one thread each; default 2).
set -euo pipefail
if [ $# -lt 5 ]; then
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
project=$1 controller=$2 seconds=$3 speed=$4
shift 4
cli=${SINEW_CLI:-build/bin/sinew-cli}
[ -x "$cli" ] || { echo "push-sweep: $cli is not built (scripts/build.sh)" >&2; exit 2; }
[ -f "$project" ] || { echo "push-sweep: no project file $project" >&2; exit 2; }
jobs=()
for t in "$@"; do
  for dir in "+X|$speed|0" "-X|-$speed|0" "+Z|0|$speed" "-Z|0|-$speed"; do
    jobs+=("$t|$dir")
  done
done
one() {
  IFS='|' read -r t name vx vz <<< "$1"
  local out line
  out=$("$cli" simulate "$project" --controller "$controller" --seconds "$seconds" --threads 1 \
          --push "$t,$vx,0,$vz" 2>&1) || true
  line=$(grep -oE "the character (stayed up|fell|did not stay up)[^)]*\)?" <<< "$out" | head -1) || true
  printf '%s m/s %s at %s s: %s\n' "$speed" "$name" "$t" "${line:-simulate failed: $(tail -1 <<< "$out")}"
}
export -f one
export cli project controller seconds speed
results=$(mktemp)
trap 'rm -f "$results"' EXIT
printf '%s\0' "${jobs[@]}" | xargs -0 -P "${JOBS:-2}" -I{} bash -c 'one "$1"' _ {} | sort -k5,5n -k3,3 > "$results"
cat "$results"
echo "stayed up in $(grep -c "stayed up" "$results" || true) of ${#jobs[@]}"
if grep -q "simulate failed" "$results"; then exit 1; fi
