#!/usr/bin/env bash
# /fetch benchmark: cache-hit throughput and p99 of larder against nginx proxy_cache, both caching the same
# origin files (1 KiB, 16 KiB, 256 KiB, 4 MiB) from one nginx origin. The server under test is pinned to
# CPU 0, wrk to CPU 1, and runs are interleaved (larder, nginx, larder, nginx ...) because this machine's
# back-to-back runs vary by about 15%. Then the added latency of a miss: sequential cold fetches through
# each cache (a unique query per request) against fetching the origin directly.
#
#   Benchmarks/fetch/run.sh                       # 3 rounds of 10 s per size
#   ROUNDS=1 DURATION=5s SIZES="1k 16k" Benchmarks/fetch/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-64}
SIZES=${SIZES:-"1k 16k 256k 4m"}
MISSES=${MISSES:-200}
LARDER_PORT=${LARDER_PORT:-18090}
CACHE_PORT=${CACHE_PORT:-18091}
ORIGIN_PORT=${ORIGIN_PORT:-18092}

for tool in wrk nginx taskset curl; do
    command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install -y wrk nginx util-linux curl)" >&2; exit 1; }
done

swift build -c release --product larder >&2
LARDER_BIN=$(swift build -c release --show-bin-path)/larder

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
for size in $SIZES; do
    case $size in
        *k) bytes=$(( ${size%k} * 1024 )) ;;
        *m) bytes=$(( ${size%m} * 1024 * 1024 )) ;;
        *) bytes=$size ;;
    esac
    # Random bytes: neither cache gets to shrink the body by compressing it.
    head -c "$bytes" /dev/urandom >"$WORK/files/$size.bin"
    chmod 644 "$WORK/files/$size.bin"
done

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
taskset -c 0 "$LARDER_BIN" serve --host 127.0.0.1 --port "$LARDER_PORT" --db "$WORK/larder.db" --access-log false \
    --log-level warning --event-loops 1 --allow-network 127.0.0.0/8 >"$WORK/larder.log" 2>&1 &
PIDS+=($!)

for port in "$ORIGIN_PORT" "$LARDER_PORT" "$CACHE_PORT"; do
    for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
done

url() { echo "http://127.0.0.1:$1/fetch?url=http://127.0.0.1:$ORIGIN_PORT/$2"; }

for size in $SIZES; do
    for port in "$LARDER_PORT" "$CACHE_PORT"; do
        # The first request stores the body; a request before the store commits joins that fetch (MISS).
        for _ in $(seq 50); do
            curl -fs -o "$WORK/check" -D "$WORK/head" "$(url "$port" "$size.bin")"
            grep -qi "x-cache: HIT" "$WORK/head" && break
            sleep 0.1
        done
        cmp -s "$WORK/check" "$WORK/files/$size.bin" || { echo "wrong body from $port for $size" >&2; exit 1; }
        grep -qiE "x-cache: (HIT)" "$WORK/head" || { echo "no hit from $port for $size:" >&2; cat "$WORK/head" >&2; exit 1; }
    done
done

# Prints "requests/s p99-in-ms" for one wrk run.
measure() {
    taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d"$DURATION" --latency "$1" | awk '
        function ms(v) {
            if (v ~ /us$/) { sub(/us$/, "", v); return v / 1000 }
            if (v ~ /ms$/) { sub(/ms$/, "", v); return v + 0 }
            if (v ~ /s$/)  { sub(/s$/, "", v);  return v * 1000 }
            return v
        }
        /Requests\/sec:/ { rps = $2 }
        /^ +99%/ { p99 = ms($2) }
        END { printf "%.0f %.3f\n", rps, p99 }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "hits: wrk -t1 -c$CONNECTIONS -d$DURATION, $ROUNDS interleaved rounds; servers on CPU 0, wrk on CPU 1"
printf "%-6s %14s %14s %8s %12s %12s\n" size "larder req/s" "nginx req/s" ratio "larder p99" "nginx p99"
for size in $SIZES; do
    : >"$WORK/l.txt"
    : >"$WORK/n.txt"
    for _ in $(seq "$ROUNDS"); do
        measure "$(url "$LARDER_PORT" "$size.bin")" >>"$WORK/l.txt"
        measure "$(url "$CACHE_PORT" "$size.bin")" >>"$WORK/n.txt"
    done
    lr=$(cut -d' ' -f1 "$WORK/l.txt" | median)
    nr=$(cut -d' ' -f1 "$WORK/n.txt" | median)
    lp=$(cut -d' ' -f2 "$WORK/l.txt" | median)
    np=$(cut -d' ' -f2 "$WORK/n.txt" | median)
    printf "%-6s %14.0f %14.0f %8.2f %10.2fms %10.2fms\n" "$size" "$lr" "$nr" "$(awk -v a="$lr" -v b="$nr" 'BEGIN{print a/b}')" "$lp" "$np"
done

# Median time_total of sequential single requests, in ms; each URL is new to the caches (unique query).
misses() { # label url-prefix
    for i in $(seq "$MISSES"); do
        curl -s -o /dev/null -w '%{time_total}\n' "$2?miss=$RANDOM$RANDOM$i"
    done | awk '{ print $1 * 1000 }' | median
}
first=${SIZES%% *}
echo
echo "misses: median of $MISSES sequential cold fetches of $first.bin (curl time_total)"
direct=$(misses direct "http://127.0.0.1:$ORIGIN_PORT/$first.bin")
larder=$(misses larder "$(url "$LARDER_PORT" "$first.bin")")
nginx=$(misses nginx "$(url "$CACHE_PORT" "$first.bin")")
printf "direct origin %.3f ms, larder miss %.3f ms (+%.3f), nginx miss %.3f ms (+%.3f)\n" "$direct" "$larder" \
    "$(awk -v a="$larder" -v b="$direct" 'BEGIN{print a-b}')" "$nginx" "$(awk -v a="$nginx" -v b="$direct" 'BEGIN{print a-b}')"
