#!/usr/bin/env bash
# The suite on a busy machine: clone this checkout's HEAD fresh, run the CI command (npm ci +
# npm test) and then `npm test` N-1 more times, while a busy loop holds one core. Prints one line
# per run (exit code, seconds, load average). Usage: scripts/suite-under-load.sh [N=5] [DIR]
set -u
runs=${1:-5}
dir=${2:-$(mktemp -d /tmp/smg-under-load-XXXXXX)}
src=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$dir" && git clone -q "$src" "$dir" && cd "$dir" || exit 1
node -e 'for(;;){}' & busy=$!
trap 'kill $busy' EXIT
for i in $(seq 1 "$runs"); do
  start=$(date +%s)
  if [ "$i" = 1 ]; then bash .ci/run > "$dir/run-$i.log" 2>&1; else npm test > "$dir/run-$i.log" 2>&1; fi
  rc=$?
  echo "run $i: exit $rc, $(( $(date +%s) - start )) s, load $(cut -d' ' -f1-3 /proc/loadavg), log $dir/run-$i.log"
done
