#!/usr/bin/env bash
# /fetch benchmark: cache-hit throughput, p99 and resident memory of larder against nginx proxy_cache, both
# caching the same files from one local nginx origin: 1 KiB, 16 KiB, 256 KiB and 4 MiB of random bytes, and
# a 64 KiB JSON document asked for with `Accept-Encoding: gzip` (json64k). The cache under test is pinned to
# CPU 0, wrk to CPU 1; runs are interleaved (larder, nginx, larder, nginx ...) because this machine's
# back-to-back runs vary by about 15%, and medians are printed with the ratio larder / nginx. Since p99 is
# the figure most disturbed by a shared host, each round's pair is also compared on its own ("p99 ratio",
# the median of larder's p99 / nginx's; "p99 <=", the rounds in which larder's was no higher), and the share
# of CPU time the hypervisor stole during the runs is printed: more rounds of shorter runs
# (ROUNDS=9 DURATION=5s) settle a p99 comparison better than three long ones.
#
# Every measured response is a hit: the origin logs each request it gets, and a run during which the origin
# saw any request (or wrk saw a non-2xx answer) fails the script; a curl before the runs checks X-Cache.
# Then the added latency of a miss: sequential cold fetches through each cache (a unique query per request)
# against fetching the origin directly, time to first byte and total; and misses under load: 32 callers
# at once, each request a URL new to the caches (wrk with unique.lua), misses per second.
#
#   Benchmarks/fetch/run.sh                              # 3 rounds of 10 s per size
#   ROUNDS=1 DURATION=5s SIZES="1k json64k" Benchmarks/fetch/run.sh
#   PREFILL=1000000 SIZES=1k Benchmarks/fetch/run.sh     # with a million other entries stored first
#   LARDER_ARGS="--hot-bytes 0" Benchmarks/fetch/run.sh  # extra flags for larder serve
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/lib.sh

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-64}
SIZES=${SIZES:-"1k 16k 256k 4m json64k"}
MISSES=${MISSES:-200}
PREFILL=${PREFILL:-0}
LARDER_PORT=${LARDER_PORT:-18090}
CACHE_PORT=${CACHE_PORT:-18091}
ORIGIN_PORT=${ORIGIN_PORT:-18092}

need_tools wrk nginx taskset curl python3
build_larder

WORK=$(mktemp -d)
PIDS=()
cleanup() {
    if [ -n "${KEEP_LOGS:-}" ]; then cat "$WORK"/*.log >&2; fi
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

# nginx workers run as an unprivileged user when started as root: the files and caches must be theirs to use.
chmod 755 "$WORK"
mkdir -p "$WORK/files"
file_of() { case $1 in json*) echo "$1.json" ;; *) echo "$1.bin" ;; esac; }
for size in $SIZES; do
    case $size in
        json*)
            # A JSON document like an API answer, as compressible as real ones.
            python3 - "$WORK/files/$size.json" "$(size_bytes "${size#json}")" <<'PY'
import json, random, sys
random.seed(7)
words = "alpha beta gamma delta cache larder image entry origin stale fresh chunk stream".split()
items, text = [], ""
while len(text) < int(sys.argv[2]):
    i = len(items)
    items.append({"id": i, "name": " ".join(random.choice(words) for _ in range(3)),
                  "url": f"https://cdn.example.com/images/{i:06d}.jpg", "width": random.randint(100, 4000),
                  "price": round(random.uniform(1, 500), 2), "available": random.random() > 0.3})
    text = json.dumps({"items": items})
open(sys.argv[1], "w").write(text)
PY
            ;;
        # Random bytes: neither cache gets to shrink the body by compressing it.
        *) head -c "$(size_bytes "$size")" /dev/urandom >"$WORK/files/$size.bin" ;;
    esac
done
chmod 644 "$WORK"/files/*

if [ "$PREFILL" -gt 0 ]; then
    # The storage benchmark's database of that size, when one was filled (Benchmarks/storage/), is copied:
    # filling a million entries takes about ten minutes.
    filled="${TMPDIR:-/tmp}/larder-storage-bench/size-$PREFILL.db"
    if [ -f "$filled" ]; then
        echo "pre-filling larder's store with $PREFILL entries (a copy of $filled)..." >&2
        python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("PRAGMA wal_checkpoint(TRUNCATE)")' "$filled"
        cp "$filled" "$WORK/larder.db"
    else
        echo "pre-filling larder's store with $PREFILL entries (StorageBenchmark)..." >&2
        swift build -c release -Xswiftc -g --product StorageBenchmark >&2
        "$(dirname "$LARDER_BIN")/StorageBenchmark" --dir "$WORK" --entries "$PREFILL" --gets 1000 >&2
        mv "$WORK/size-$PREFILL.db" "$WORK/larder.db"
        rm -f "$WORK/size-$PREFILL.db-wal" "$WORK/size-$PREFILL.db-shm"
    fi
fi

start_nginx() { # role cpu
    sed -e "s|@ROLE@|$1|g" -e "s|@DIR@|$WORK|g" Benchmarks/fetch/nginx.conf >"$WORK/$1.conf"
    sed -e "s|@ORIGIN_PORT@|$ORIGIN_PORT|" -e "s|@CACHE_PORT@|$CACHE_PORT|" -e "s|@DIR@|$WORK|g" \
        "Benchmarks/fetch/$1-server.conf" >"$WORK/$1-server.conf"
    mkdir -p "$WORK/$1-cache" && chmod 777 "$WORK/$1-cache"
    taskset -c "$2" nginx -p "$WORK" -c "$WORK/$1.conf" &
    PIDS+=($!)
}
start_nginx origin 1
start_nginx cache 0
NGINX_PID=${PIDS[-1]}
# shellcheck disable=SC2086
taskset -c 0 "$LARDER_BIN" serve --host 127.0.0.1 --port "$LARDER_PORT" --db "$WORK/larder.db" --access-log false \
    --log-level warning --event-loops 1 --allow-network 127.0.0.0/8 ${LARDER_ARGS:-} >"$WORK/larder.log" 2>&1 &
LARDER_PID=$!
PIDS+=("$LARDER_PID")
for port in "$ORIGIN_PORT" "$LARDER_PORT" "$CACHE_PORT"; do wait_http "$port"; done

url() { echo "http://127.0.0.1:$1/fetch?url=http://127.0.0.1:$ORIGIN_PORT/$(file_of "$2")"; }
headers_for() { case $1 in json*) echo "Accept-Encoding: gzip" ;; *) echo "X-Bench: 1" ;; esac; }

for size in $SIZES; do
    for port in "$LARDER_PORT" "$CACHE_PORT"; do
        # The first request stores the body; a request before the store commits joins that fetch (MISS).
        # Then a few more, so that larder's hot tier holds the form this size is measured with.
        for _ in $(seq 50); do
            curl -fs -o "$WORK/check" -D "$WORK/head" -H "$(headers_for "$size")" "$(url "$port" "$size")"
            grep -qi "x-cache: HIT" "$WORK/head" && break
            sleep 0.1
        done
        for _ in 1 2 3; do curl -fs -o "$WORK/check" -D "$WORK/head" -H "$(headers_for "$size")" "$(url "$port" "$size")"; done
        grep -qi "x-cache: HIT" "$WORK/head" || { echo "no hit from $port for $size:" >&2; cat "$WORK/head" >&2; exit 1; }
        case $size in
            json*)
                grep -qi "content-encoding: gzip" "$WORK/head" || { echo "no gzip from $port for $size" >&2; exit 1; }
                gzip -dc <"$WORK/check" | cmp -s - "$WORK/files/$(file_of "$size")" || { echo "wrong body from $port for $size" >&2; exit 1; }
                ;;
            *) cmp -s "$WORK/check" "$WORK/files/$(file_of "$size")" || { echo "wrong body from $port for $size" >&2; exit 1; } ;;
        esac
    done
done

origin_requests() { wc -l <"$WORK/origin-access.log"; }
# One measured run; fails when the origin saw a request meanwhile (a miss) or wrk saw a non-2xx answer.
checked_run() { # port size
    local before rps p99 bad
    before=$(origin_requests)
    read -r rps p99 bad < <(measure "$(url "$1" "$2")" -H "$(headers_for "$2")")
    if [ "$(origin_requests)" != "$before" ] || [ "${bad:-0}" != 0 ]; then
        echo "port $1, $2: not every response was a hit (origin requests $before -> $(origin_requests), non-2xx $bad)" >&2
        exit 1
    fi
    echo "$rps $p99"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); entries pre-filled: $PREFILL"
ticks=$(cpu_ticks)
echo "hits: wrk -t1 -c$CONNECTIONS -d$DURATION, $ROUNDS interleaved rounds; servers on CPU 0, wrk on CPU 1"
printf "%-8s %12s %12s %7s %11s %11s %9s %8s %10s %10s\n" size "larder req/s" "nginx req/s" ratio "larder p99" \
    "nginx p99" "p99 ratio" "p99 <=" "larder RSS" "nginx RSS"
for size in $SIZES; do
    : >"$WORK/l.txt"
    : >"$WORK/n.txt"
    for _ in $(seq "$ROUNDS"); do
        checked_run "$LARDER_PORT" "$size" >>"$WORK/l.txt"
        checked_run "$CACHE_PORT" "$size" >>"$WORK/n.txt"
    done
    lr=$(cut -d' ' -f1 "$WORK/l.txt" | median)
    nr=$(cut -d' ' -f1 "$WORK/n.txt" | median)
    lp=$(cut -d' ' -f2 "$WORK/l.txt" | median)
    np=$(cut -d' ' -f2 "$WORK/n.txt" | median)
    # p99 is the most disturbed figure on a shared machine, so each round's pair is also compared on its
    # own: the median of larder's p99 / nginx's p99 over the rounds, and in how many rounds larder's was
    # no higher.
    paste -d' ' "$WORK/l.txt" "$WORK/n.txt" >"$WORK/pairs.txt"
    pr=$(awk '{ print $2 / $4 }' "$WORK/pairs.txt" | median)
    wins=$(awk '$2 <= $4 { n++ } END { print n + 0 }' "$WORK/pairs.txt")
    printf "%-8s %12.0f %12.0f %7.2f %9.2fms %9.2fms %9.2f %8s %8sMiB %8sMiB\n" "$size" "$lr" "$nr" \
        "$(awk -v a="$lr" -v b="$nr" 'BEGIN{print a/b}')" "$lp" "$np" "$pr" "$wins/$ROUNDS" \
        "$(rss_mib "$LARDER_PID")" "$(rss_mib "$NGINX_PID")"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg); CPU time stolen by the hypervisor meanwhile: $(steal_since "$ticks")%"

# Median time to first byte and total of sequential single requests, in ms; each URL is new to the caches.
misses() { # url-prefix
    for i in $(seq "$MISSES"); do
        curl -s -o /dev/null -w '%{time_starttransfer} %{time_total}\n' "$1?miss=$RANDOM$RANDOM$i"
    done >"$WORK/m.txt"
    echo "$(awk '{ print $1 * 1000 }' "$WORK/m.txt" | median) $(awk '{ print $2 * 1000 }' "$WORK/m.txt" | median)"
}
first=${SIZES%% *}
echo
echo "misses: median of $MISSES sequential cold fetches of $(file_of "$first") (curl; first byte / total, ms)"
read -r direct_fb direct < <(misses "http://127.0.0.1:$ORIGIN_PORT/$(file_of "$first")")
read -r larder_fb larder < <(misses "$(url "$LARDER_PORT" "$first")")
read -r nginx_fb nginx < <(misses "$(url "$CACHE_PORT" "$first")")
printf "direct origin %.3f / %.3f; larder %.3f / %.3f (+%.3f total); nginx %.3f / %.3f (+%.3f total)\n" \
    "$direct_fb" "$direct" "$larder_fb" "$larder" "$(awk -v a="$larder" -v b="$direct" 'BEGIN{print a-b}')" \
    "$nginx_fb" "$nginx" "$(awk -v a="$nginx" -v b="$direct" 'BEGIN{print a-b}')"

# Misses under load: CONNECTIONS_MISS callers at once, each request a URL new to the caches (unique.lua),
# for MISS_DURATION, interleaved rounds. Every answer must be a 2xx from a request that reached the origin.
MISS_CONNECTIONS=${MISS_CONNECTIONS:-32}
MISS_DURATION=${MISS_DURATION:-5s}
miss_run() { # port: prints "misses/s answered-requests"
    local before out done_requests bad
    before=$(origin_requests)
    out=$(PREFIX="/fetch?url=http://127.0.0.1:$ORIGIN_PORT/$(file_of "$first")?u=" taskset -c "${WRK_CPU:-1}" \
        wrk -t1 -c"$MISS_CONNECTIONS" -d"$MISS_DURATION" -s Benchmarks/fetch/unique.lua "http://127.0.0.1:$1")
    done_requests=$(awk '/requests in/ { print $1 }' <<<"$out")
    bad=$(awk '/Non-2xx/ { print $NF }' <<<"$out")
    if [ "${bad:-0}" != 0 ] || [ $(($(origin_requests) - before)) -lt "$done_requests" ]; then
        echo "port $1: not every answer was a 2xx miss ($done_requests answers, origin saw $(($(origin_requests) - before)))" >&2
        exit 1
    fi
    echo "$(awk '/Requests\/sec:/ { printf "%.0f", $2 }' <<<"$out") $done_requests"
}
# Larder answers a miss before its store writes it: seconds until every fetch of a run is written (the
# in-flight gauge reaches 0), so that the next run does not share the CPU with them.
drain_seconds() {
    local start=$SECONDS
    for _ in $(seq 600); do
        curl -s "http://127.0.0.1:$LARDER_PORT/metrics" | grep -q '^larder_origin_fetches_in_flight 0$' && break
        sleep 0.1
    done
    echo $((SECONDS - start))
}
seconds_of() { # a wrk duration (5s, 1m)
    case $1 in *s) echo "${1%s}" ;; *m) echo $((${1%m} * 60)) ;; *) echo "$1" ;; esac
}
: >"$WORK/ml.txt"
: >"$WORK/mn.txt"
: >"$WORK/mw.txt"
threads=0
for _ in $(seq "$ROUNDS"); do
    read -r rate answered < <(miss_run "$LARDER_PORT")
    now=$(ls /proc/"$LARDER_PID"/task | wc -l)
    [ "$now" -gt "$threads" ] && threads=$now
    drained=$(drain_seconds)
    echo "$rate" >>"$WORK/ml.txt"
    # Misses per second counted to the end of their writes (drain measured in whole seconds).
    awk -v n="$answered" -v d="$(seconds_of "$MISS_DURATION")" -v w="$drained" 'BEGIN { printf "%.0f\n", n / (d + w) }' \
        >>"$WORK/mw.txt"
    miss_run "$CACHE_PORT" | cut -d' ' -f1 >>"$WORK/mn.txt"
done
ml=$(median <"$WORK/ml.txt")
mw=$(median <"$WORK/mw.txt")
mn=$(median <"$WORK/mn.txt")
echo
echo "misses under load: wrk -c$MISS_CONNECTIONS -d$MISS_DURATION, a new URL per request, $ROUNDS interleaved rounds (misses/s)"
printf "larder answered %.0f, written %.0f (to the last commit); nginx %.0f; ratios %.2f / %.2f; larder threads: %s\n" \
    "$ml" "$mw" "$mn" "$(awk -v a="$ml" -v b="$mn" 'BEGIN{print a/b}')" "$(awk -v a="$mw" -v b="$mn" 'BEGIN{print a/b}')" \
    "$threads"

