#!/usr/bin/env bash
# A working set larger than the memory tier (issue 16): hits of 16 KiB bodies from a store of 16 384 entries
# (256 MiB of bodies, four times the default 64 MiB tier), with the tier at its default against the tier off
# (`--hot-bytes 0`), interleaved round by round on one machine. Uniform random requests are the tier's worst
# case: a quarter of the working set fits, so three reads in four come from the store and the tier admits
# each of them, evicting another; with HOT=80 (the second case) 80 % of the requests go to a fifth of the
# items, which fits. The aim: with the tier never below the store figure (on / off ≥ 1 within the noise).
#
# The store is loaded as Benchmarks/million's are (`PurgeBenchmark --load-only --body-bytes`), larder runs
# pinned to CPU 0 and wrk (random.lua) to CPU 1; each server gets 3 s of the same requests before the
# measured run, so that the tier is as full as it gets. Every answer must be a 2xx.
#
#   Benchmarks/million/tier.sh                        # 5 rounds of 10 s, uniform and 80/20
#   ROUNDS=3 DURATION=5s ENTRIES=16384 BYTES=16384 Benchmarks/million/tier.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/lib.sh

ROUNDS=${ROUNDS:-5}
ENTRIES=${ENTRIES:-16384}
BYTES=${BYTES:-16384}
export DURATION=${DURATION:-10s}
need_tools wrk taskset curl
build_larder
. Benchmarks/million/stores.sh
db=$(million_store "$ENTRIES" "$BYTES")

port=28395
trap stop_store EXIT

# One round: "requests/s p99-ms non-2xx" for the tier setting ("on" or "off") and the hot share (0: uniform).
round() { # on|off hot
    cat "$db" "$db-wal" >/dev/null 2>&1 || true
    local tier=()
    [[ $1 == off ]] && tier=(--hot-bytes 0)
    serve_store "$port" "$db" "$ENTRIES" "${tier[@]}"
    ITEMS=$ENTRIES HOT=$2 DURATION=3s measure "http://127.0.0.1:$port/" -s "$RANDOM_LUA" >/dev/null
    ITEMS=$ENTRIES HOT=$2 measure "http://127.0.0.1:$port/" -s "$RANDOM_LUA"
    stop_store
}

echo "$ENTRIES entries of $BYTES bytes ($((ENTRIES * BYTES >> 20)) MiB of bodies), the memory tier 64 MiB or off"
echo "round  requests    tier   requests/s   p99 ms  non-2xx"
declare -A rates
for r in $(seq "$ROUNDS"); do
    for hot in 0 80; do
        for tier in off on; do
            read -r rps p99 bad _ < <(round "$tier" "$hot")
            label=$([[ $hot == 0 ]] && echo uniform || echo "$hot/20")
            printf "%5d  %-8s  %4s  %11s  %7s  %7s\n" "$r" "$label" "$tier" "$rps" "$p99" "$bad"
            ((bad == 0)) || { echo "non-2xx answers" >&2; exit 1; }
            rates[$hot.$tier]+="$rps "
        done
    done
done
for hot in 0 80; do
    off=$(printf '%s\n' ${rates[$hot.off]} | median)
    on=$(printf '%s\n' ${rates[$hot.on]} | median)
    label=$([[ $hot == 0 ]] && echo uniform || echo "$hot/20")
    echo "median requests/s, $label: tier off $off, tier on $on; on / off $(awk -v a="$on" -v b="$off" 'BEGIN { printf "%.3f", a / b }') (aim ≥ 1)"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
