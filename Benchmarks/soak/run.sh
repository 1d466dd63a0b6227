#!/usr/bin/env bash
# Soak test (issue 7, "Load and soak"): drives a release `larder serve` with wrk at C concurrent
# keep-alive connections for N minutes with a mix of hits, misses and coalesced misses (mix.lua)
# against a loopback nginx origin (origin.conf), samples larder's resident memory and open file
# descriptors every 10 s into a CSV, and prints requests, errors, p50/p99 latency, and RSS/fds at the
# end of warm-up against the end. Loopback only; bounded by N minutes plus start-up.
#
#   Benchmarks/soak/run.sh                           # 10 minutes, 1000 connections
#   Benchmarks/soak/run.sh --minutes 1 --connections 200
#   KEEP=dir Benchmarks/soak/run.sh                  # keep the CSV, wrk output and logs in dir
#   MIX=flood Benchmarks/soak/run.sh                 # 80% hits on 50 URLs, 20% new URLs, no slow ones
#   IDLE=60 Benchmarks/soak/run.sh                   # keep sampling 60 s after the load stops
#   LARDER_ARGS="--hot-bytes 0" Benchmarks/soak/run.sh
#
# Memory is sampled from /proc/PID/status in its three parts: anonymous (the heap, thread stacks),
# shared memory (the hot tier's in-memory files) and file-backed (the memory-mapped SQLite file, which
# the kernel can drop at will). "Flat" means anonymous + shared at minute 10 within 5% of minute 3; as the
# write backlog swings by tens of MiB under a flood, the medians and the peaks of minutes 2-4 and 8-10 are
# printed beside it (whether the level, and the top of the swing, moved). The
# run fails (exit 1) when the memory beyond every bounded part passes CONSTANT_MIB (64) or the thread
# count passes THREAD_CEILING (64): the bounds docs/ARCHITECTURE.md states.
set -euo pipefail
cd "$(dirname "$0")/../.."

MINUTES=10
CONNECTIONS=1000
while [ $# -gt 0 ]; do
    case $1 in
        --minutes) MINUTES=$2; shift 2 ;;
        --connections) CONNECTIONS=$2; shift 2 ;;
        -h | --help) sed -n '2,10p' "$0"; exit 0 ;;
        *) echo "unknown argument $1 (--minutes N, --connections C)" >&2; exit 2 ;;
    esac
done
LARDER_PORT=${LARDER_PORT:-18290}
ORIGIN_PORT=${ORIGIN_PORT:-18292}
THREADS=${THREADS:-2}
MIX=${MIX:-default}
IDLE=${IDLE:-30}
case $MIX in
    default) HIT_PERCENT=85 HIT_URLS=100 SLOW_PERCENT=2 ;;
    flood) HIT_PERCENT=80 HIT_URLS=50 SLOW_PERCENT=0 ;;
    *) echo "MIX is default or flood" >&2; exit 2 ;;
esac
SECONDS_TOTAL=$(awk -v m="$MINUTES" 'BEGIN { printf "%d", m * 60 }')
# Warm-up: the first fifth of the run, at most a minute; RSS and fds after it must stay level.
WARMUP=$(( SECONDS_TOTAL / 5 < 60 ? SECONDS_TOTAL / 5 : 60 ))

for tool in wrk nginx curl; do
    command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install -y wrk nginx-light curl)" >&2; exit 1; }
done
# 1000 client sockets in wrk, as many in larder, plus its origin connections.
ulimit -n "$(ulimit -Hn)"
if [ "$(ulimit -n)" -lt $(( CONNECTIONS * 2 + 1000 )) ]; then
    echo "open files limit $(ulimit -n) is too low for $CONNECTIONS connections" >&2
    exit 1
fi

. Benchmarks/lib.sh
build_larder

WORK=$(mktemp -d)
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp "$WORK"/*.csv "$WORK"/*.txt "$WORK"/*.log "$KEEP"/ 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

# nginx workers run as an unprivileged user when started as root: the files must be theirs to read.
chmod 755 "$WORK"
mkdir -p "$WORK/files/hit" "$WORK/files/miss" "$WORK/files/slow"
head -c 4096 /dev/urandom >"$WORK/files/hit/4k.bin"
head -c 4096 /dev/urandom >"$WORK/files/miss/4k.bin"
head -c 8192 /dev/urandom >"$WORK/files/slow/8k.bin"
chmod -R a+rX "$WORK/files"
sed -e "s|@DIR@|$WORK|g" -e "s|@ORIGIN_PORT@|$ORIGIN_PORT|g" Benchmarks/soak/origin.conf >"$WORK/origin.conf"
nginx -p "$WORK" -c "$WORK/origin.conf" &
PIDS+=($!)
# A size bound well below what the misses write in the run, so eviction runs throughout.
"$LARDER_BIN" serve --host 127.0.0.1 --port "$LARDER_PORT" --db "$WORK/larder.db" --max-size 64M \
    --access-log false --log-level warning --allow-network 127.0.0.0/8 ${LARDER_ARGS:-} >"$WORK/larder.log" 2>&1 &
LARDER_PID=$!
PIDS+=("$LARDER_PID")

for port in "$ORIGIN_PORT" "$LARDER_PORT"; do
    for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
done
# The hit set is stored before the clock starts; each must come back with the origin's bytes.
for h in $(seq 0 $((HIT_URLS - 1))); do
    curl -fs -o "$WORK/check" "http://127.0.0.1:$LARDER_PORT/fetch?url=http://127.0.0.1:$ORIGIN_PORT/hit/4k.bin%3Fh%3D$h"
    cmp -s "$WORK/check" "$WORK/files/hit/4k.bin" || { echo "wrong body for hit $h" >&2; exit 1; }
done

sample() { # elapsed-seconds
    local memory fds bounded
    memory=$(awk '/^(VmRSS|RssAnon|RssShmem|RssFile|Threads):/ { v[$1] = $2 }
        END { printf "%d,%d,%d,%d,%d", v["VmRSS:"], v["RssAnon:"], v["RssShmem:"], v["RssFile:"], v["Threads:"] }' \
        "/proc/$LARDER_PID/status")
    fds=$(find "/proc/$LARDER_PID/fd" -mindepth 1 -maxdepth 1 | wc -l)
    # What the settings bound, as larder counts it: the memory tier, the store's write backlog and the
    # bodies in flight.
    bounded=$(curl -s -m 5 "http://127.0.0.1:$LARDER_PORT/metrics" | awk '
        /^larder_memory_tier_bytes / { tier = $2 } /^larder_store_backlog_bytes / { backlog = $2 }
        /^larder_in_flight_bytes / { flight = $2 }
        END { printf "%d,%d,%d", tier / 1024, backlog / 1024, flight / 1024 }')
    echo "$1,${memory%,*},$fds,${memory##*,},$bounded" >>"$WORK/samples.csv"
}
echo "elapsed_s,rss_kib,anon_kib,shmem_kib,file_kib,open_fds,threads,tier_kib,backlog_kib,in_flight_kib" >"$WORK/samples.csv"
(
    start=$(date +%s)
    while kill -0 "$LARDER_PID" 2>/dev/null; do
        sample $(( $(date +%s) - start ))
        sleep 10
    done
) &
PIDS+=($!)

echo "soak: wrk -t$THREADS -c$CONNECTIONS -d${SECONDS_TOTAL}s, mix $MIX: $HIT_PERCENT% hits on $HIT_URLS URLs," \
    "$SLOW_PERCENT% coalesced slow misses, the rest new URLs; load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
SOAK_ORIGIN="http://127.0.0.1:$ORIGIN_PORT" SOAK_HIT_PERCENT=$HIT_PERCENT SOAK_HIT_URLS=$HIT_URLS \
    SOAK_SLOW_PERCENT=$SLOW_PERCENT wrk -t"$THREADS" -c"$CONNECTIONS" -d"${SECONDS_TOTAL}s" --timeout 10s \
    --latency -s Benchmarks/soak/mix.lua "http://127.0.0.1:$LARDER_PORT" >"$WORK/wrk.txt"
LOAD_END=$(awk -F, 'END { print $1 }' "$WORK/samples.csv")
# The sampler keeps going while the service idles: what the load left behind shows there.
sleep "$IDLE"
kill -0 "$LARDER_PID" 2>/dev/null || { echo "larder died during the soak:" >&2; tail -20 "$WORK/larder.log" >&2; exit 1; }
# The store must still be sound and serving after the run.
curl -fs -o "$WORK/check" "http://127.0.0.1:$LARDER_PORT/fetch?url=http://127.0.0.1:$ORIGIN_PORT/hit/4k.bin%3Fh%3D7"
cmp -s "$WORK/check" "$WORK/files/hit/4k.bin" || { echo "wrong body after the soak" >&2; exit 1; }

cat "$WORK/wrk.txt" >&2
# The bounds docs/ARCHITECTURE.md states ("Memory bounded by settings"): the run fails past either.
CONSTANT_MIB=${CONSTANT_MIB:-64}
THREAD_CEILING=${THREAD_CEILING:-64}
status=0
awk -v constantmib="$CONSTANT_MIB" -v threadceiling="$THREAD_CEILING" -v warmup="$WARMUP" -v total="$SECONDS_TOTAL" -v loadend="$LOAD_END" -v idle="$IDLE" -v load="$(cut -d' ' -f1-3 /proc/loadavg)" -v csv="$WORK/samples.csv" '
    function median(values, n,    i, j, t) {
        for (i = 2; i <= n; i++) for (j = i; j > 1 && values[j - 1] > values[j]; j--) {
            t = values[j]; values[j] = values[j - 1]; values[j - 1] = t
        }
        return n % 2 ? values[(n + 1) / 2] : (values[n / 2] + values[n / 2 + 1]) / 2
    }
    function ms(v) {
        if (v ~ /us$/) { sub(/us$/, "", v); return v / 1000 }
        if (v ~ /ms$/) { sub(/ms$/, "", v); return v + 0 }
        if (v ~ /s$/)  { sub(/s$/, "", v);  return v * 1000 }
        return v
    }
    /requests in/ { requests = $1 }
    /Socket errors:/ { gsub(",", ""); socket = $4 + $6 + $8 + $10 }
    /Non-2xx or 3xx responses:/ { non2xx = $5 }
    /Requests\/sec:/ { rps = $2 }
    /^ +50%/ { p50 = ms($2) }
    /^ +99%/ { p99 = ms($2) }
    END {
        FS = ","
        while ((getline line < csv) > 0) {
            split(line, f, ",")
            if (f[1] == "elapsed_s") continue
            held = f[3] + f[4]
            if (f[1] + 0 <= warmup) { wr = held; wf = f[6] }
            if (f[1] + 0 <= 180) m3 = held
            if (f[1] + 0 <= 600) m10 = held
            # The write backlog swings by tens of MiB under a flood, so one sample says where in its swing
            # it was; the medians of minutes 2-4 and 8-10 say whether the level moved.
            if (f[1] + 0 > 120 && f[1] + 0 <= 240) { early[++nearly] = held; if (held > earlypeak) earlypeak = held }
            if (f[1] + 0 > 480 && f[1] + 0 <= 600) { late[++nlate] = held; if (held > latepeak) latepeak = held }
            if (f[1] + 0 <= loadend) { er = held; ef = f[6]; et = f[7]; efile = f[5] }
            if (f[7] > maxthreads) maxthreads = f[7]
            # Held beyond what --hot-bytes and the write backlog bound: the constant ARCHITECTURE.md states.
            rest = held - f[8] - f[9]
            if (f[1] + 0 > warmup && f[1] + 0 <= loadend && rest > maxrest) { maxrest = rest; maxtier = f[8]; maxbacklog = f[9] }
            # The whole bound ARCHITECTURE.md states also allows the bodies in flight (--in-flight-bytes).
            constant = rest - f[10]
            if (f[1] + 0 > warmup && f[1] + 0 <= loadend && constant > maxconstant) { maxconstant = constant; maxflight = f[10] }
            last = held; lastfile = f[5]; lastthreads = f[7]; samples++
        }
        printf "requests %d (%.0f/s), socket errors %d, non-2xx %d, p50 %.2f ms, p99 %.2f ms\n", \
            requests, rps, socket, non2xx, p50, p99
        printf "larder anonymous + shared RSS %.1f MiB at warm-up end (%d s) -> %.1f MiB at the end of the load;" \
            " %.1f MiB after %d s idle\n", wr / 1024, warmup, er / 1024, last / 1024, idle
        printf "file-backed RSS (the program, its libraries and the pages of the store read through its map) %.1f MiB at the end of the load, %.1f MiB idle\n", \
            efile / 1024, lastfile / 1024
        printf "threads %d at the end of the load (most %d), %d idle; open fds %d -> %d; %d samples\n", \
            et, maxthreads, lastthreads, wf, ef, samples
        printf "beyond the bounded parts (anonymous + shared - memory tier - write backlog): at most %.1f MiB" \
            " under load (memory tier %.1f MiB, backlog %.1f MiB then)\n", maxrest / 1024, maxtier / 1024, \
            maxbacklog / 1024
        printf "beyond every bound (also - bodies in flight): at most %.1f MiB, the stated constant is %d MiB" \
            " (bodies in flight %.1f MiB then)\n", maxconstant / 1024, constantmib, maxflight / 1024
        if (total >= 600) {
            printf "flat: minute 10 / minute 3 = %.3f (%.1f / %.1f MiB; flat is at most 1.05)\n", \
                m10 / m3, m10 / 1024, m3 / 1024
            printf "level: median of minutes 8-10 / median of minutes 2-4 = %.3f (%.1f / %.1f MiB)\n", \
                median(late, nlate) / median(early, nearly), median(late, nlate) / 1024, median(early, nearly) / 1024
            # The top of the swing: whether what the heap reaches under the same load grows over the run.
            printf "peak: highest of minutes 8-10 / highest of minutes 2-4 = %.3f (%.1f / %.1f MiB)\n", \
                latepeak / earlypeak, latepeak / 1024, earlypeak / 1024
        }
        printf "load average after: %s\n", load
        failed = 0
        if (maxconstant > constantmib * 1024) {
            printf "FAIL: %.1f MiB beyond every bound, past the stated %d MiB\n", maxconstant / 1024, constantmib
            failed = 1
        }
        if (maxthreads > threadceiling) {
            printf "FAIL: %d threads, past the stated ceiling of %d\n", maxthreads, threadceiling
            failed = 1
        }
        if (!failed) printf "within the stated bounds: at most %d MiB beyond every bound, at most %d threads\n", constantmib, threadceiling
        exit failed
    }' "$WORK/wrk.txt" || status=$?
echo "samples:"
cat "$WORK/samples.csv"
exit "$status"
