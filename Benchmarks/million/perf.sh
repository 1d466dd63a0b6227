#!/usr/bin/env bash
# Where a 1 KiB hit from the store spends its CPU at a thousand entries and at a million: each store (the ones
# run.sh uses) is served alone on CPU 0 (`--hot-bytes 0`, as in run.sh), wrk on CPU 1 asks random items for
# WARM (8 s), then `perf record -e cpu-clock -g` samples the server for SECONDS_MEASURED (10 s) while wrk goes
# on. Prints each store's hits a second under perf, its CPU by library, and each library's time a hit in units
# of the thousand's hit (share × the thousand's rate / the store's rate), so that what grows with the store
# shows apart from what a hit always costs; then SQLite's hottest symbols at the million. callgrind.sh counts
# the instructions; this shows the time, which at a million is mostly memory the CPU's caches do not hold.
# Needs perf (linux-perf) and root or kernel.perf_event_paranoid <= 1.
#
#   Benchmarks/million/perf.sh
#   KEEP=/tmp/million-perf Benchmarks/million/perf.sh   # keep the samples for perf report
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/lib.sh

WARM=${WARM:-8s}
SECONDS_MEASURED=${SECONDS_MEASURED:-10}
need_tools wrk taskset curl perf
build_larder
. Benchmarks/million/stores.sh
for n in "$SMALL" "$ENTRIES"; do million_store "$n" >/dev/null; done
start_work
port=28397
trap 'stop_store; stop_work' EXIT

declare -A RATE=()
for n in "$SMALL" "$ENTRIES"; do
    cat "$MILLION_DIR/store-$n.db" >/dev/null
    serve_store "$port" "$MILLION_DIR/store-$n.db" "$n" --hot-bytes 0
    ITEMS=$n taskset -c 1 wrk -t1 -c64 -d"$WARM" -s "$RANDOM_LUA" "http://127.0.0.1:$port/" >/dev/null
    ITEMS=$n taskset -c 1 wrk -t1 -c64 -d"$((SECONDS_MEASURED + 2))s" -s "$RANDOM_LUA" "http://127.0.0.1:$port/" \
        >"$WORK/wrk-$n.txt" &
    load=$!
    sleep 1
    perf record -e cpu-clock -g -o "$WORK/perf-$n.data" -p "$STORE_PID" -- sleep "$SECONDS_MEASURED" 2>/dev/null
    wait "$load"
    stop_store
    RATE[$n]=$(awk '/Requests\/sec/ { printf "%.0f", $2 }' "$WORK/wrk-$n.txt")
    perf report -i "$WORK/perf-$n.data" --no-children --sort dso --stdio -g none 2>/dev/null |
        awk '/%/ { sub(/%/, "", $1); print $1, $2 }' >"$WORK/dso-$n.txt"
done

echo "hits a second under perf: ${RATE[$SMALL]} at $SMALL entries, ${RATE[$ENTRIES]} at $ENTRIES"
echo "library                      share at $SMALL   share at $ENTRIES   time a hit (the $SMALL's hit = 1)"
awk -v rs="${RATE[$SMALL]}" -v rl="${RATE[$ENTRIES]}" '
    FNR == 1 { file++ }
    { share[file, $2] = $1; names[$2] = 1 }
    END {
        for (name in names) {
            s = share[1, name] + 0; l = share[2, name] + 0
            if (s < 0.5 && l < 0.5) continue
            printf "%-28s %8.1f %%     %8.1f %%      %.2f -> %.2f\n", name, s, l, s / 100, l / 100 * rs / rl
        }
    }' "$WORK/dso-$SMALL.txt" "$WORK/dso-$ENTRIES.txt" | sort -k4 -n -r
echo "SQLite's hottest symbols at $ENTRIES entries (share of all samples):"
perf report -i "$WORK/perf-$ENTRIES.data" --no-children --sort sym --stdio -g none --dsos "$(
    awk '/libsqlite3/ { print $2; exit }' "$WORK/dso-$ENTRIES.txt")" 2>/dev/null | awk '/%/ && shown++ < 6 { print "  " $0 }'
if [[ -n ${KEEP:-} ]]; then
    mkdir -p "$KEEP"
    cp "$WORK"/perf-*.data "$KEEP/"
    echo "samples kept in $KEEP"
fi
