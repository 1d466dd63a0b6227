#!/usr/bin/env bash
# What the hit log's flushes cost a large store: one larder on the million store (the one run.sh loads) for
# WINDOWS windows of 5 s of random 1 KiB hits from the store (the memory tier off), printing each window's
# requests/s and p99 and the bytes the process has written so far (/proc/PID/io write_bytes: the WAL, and
# the checkpoints copying it back). run.sh's rounds are too short to see a flush: the log (262 144 entries)
# fills in about 10 s at 25 000 random hits a second.
#
#   Benchmarks/million/flush.sh                 # 8 windows (40 s)
#   WINDOWS=12 Benchmarks/million/flush.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/lib.sh

WINDOWS=${WINDOWS:-8}
ENTRIES=${ENTRIES:-1000000}
need_tools wrk taskset curl
build_larder
. Benchmarks/million/stores.sh
dir=$MILLION_DIR
db=$(million_store "$ENTRIES")
# Read from the page cache, as run.sh's rounds are (this machine pages out files nobody touched lately).
cat "$db" "$db-wal" >/dev/null 2>&1 || true

port=28392
taskset -c 0 "$LARDER_BIN" serve --host 127.0.0.1 --port "$port" --db "$db" --max-size 0 --hot-bytes 0 \
    --access-log false --log-level warning >"$dir/flush.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true' EXIT
wait_http "$port" /livez
written() { awk '/^write_bytes/ { print $2 }' "/proc/$pid/io"; }
start=$(written)
echo "window  requests/s   p99 ms  written MiB"
for w in $(seq "$WINDOWS"); do
    read -r rps p99 bad _ < <(DURATION=5s ITEMS=$ENTRIES measure "http://127.0.0.1:$port/" -s "$RANDOM_LUA")
    ((bad == 0)) || { echo "non-2xx answers" >&2; exit 1; }
    printf "%6d  %10s  %7s  %11d\n" "$w" "$rps" "$p99" "$((($(written) - start) / 1048576))"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
