#!/usr/bin/env bash
# Runs every fuzz target (each folder of Fuzz/ with a `modules` file) for a set time, one after the
# other, and prints one summary line per target: executions, coverage (cov = edges, ft = features) and
# corpus size at the end of the run.
#
#   Fuzz/run-all.sh <seconds per target> [libFuzzer flags...]
#
# Each target's output is kept in .build/fuzz/<target>/run.log. Exit status is non-zero when any target
# failed to build or reported a finding (crash, leak, timeout, sanitizer report); every target still runs.
set -uo pipefail

if [ $# -lt 1 ]; then
    echo "usage: $0 <seconds per target> [libFuzzer flags...]" >&2
    exit 2
fi
seconds=$1
shift
root=$(cd "$(dirname "$0")/.." && pwd)
status=0
summary=()
for modules in "$root"/Fuzz/*/modules; do
    target=$(basename "$(dirname "$modules")")
    log="$root/.build/fuzz/$target/run.log"
    mkdir -p "$(dirname "$log")"
    started=$(date +%s)
    echo "== $target ($seconds s)"
    if "$root/Fuzz/run.sh" "$target" "$seconds" "$@" >"$log" 2>&1; then
        verdict=ok
    else
        verdict="FINDING or build failure (see $log)"
        status=1
    fi
    final=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -1)
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    coverage=$(sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\) corp: \([0-9]*\/[0-9A-Za-z]*\).*/cov \1, ft \2, corpus \3/p' <<<"$final")
    line="$target: $verdict; ${executions:-0} executions, ${coverage:-no coverage line}; $(($(date +%s) - started)) s with build"
    echo "$line"
    summary+=("$line")
done
echo "== summary"
printf '%s\n' "${summary[@]}"
exit $status
