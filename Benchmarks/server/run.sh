#!/usr/bin/env bash
# Transport benchmark: wrk against larder's GET /healthz and against nginx returning the same body,
# each server pinned to CPU 0 and wrk to CPU 1, interleaved (A B A B ...) because this machine's
# back-to-back runs vary by about 15%. Prints each run, then medians and the ratio larder/nginx.
#
#   Benchmarks/server/run.sh                 # 3 rounds of 10 s each
#   ROUNDS=5 DURATION=20s Benchmarks/server/run.sh
#   ACCESS_LOG=true Benchmarks/server/run.sh # larder writes its access line (nginx: access_log off)
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/lib.sh

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-64}
ACCESS_LOG=${ACCESS_LOG:-false}
LARDER_BENCH_PORT=${LARDER_BENCH_PORT:-18080}
NGINX_BENCH_PORT=${NGINX_BENCH_PORT:-18081}

need_tools wrk nginx taskset curl
build_larder

start_work

taskset -c 0 "$LARDER_BIN" serve --host 127.0.0.1 --port "$LARDER_BENCH_PORT" --access-log "$ACCESS_LOG" \
    --log-level warning --event-loops 1 >"$WORK/larder.log" 2>&1 &
PIDS+=($!)
sed -e "s|@PORT@|$NGINX_BENCH_PORT|" -e "s|@DIR@|$WORK|g" Benchmarks/server/nginx.conf >"$WORK/nginx.conf"
taskset -c 0 nginx -p "$WORK" -c "$WORK/nginx.conf" &
PIDS+=($!)

for port in "$LARDER_BENCH_PORT" "$NGINX_BENCH_PORT"; do
    for _ in $(seq 50); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
    curl -fs "http://127.0.0.1:$port/healthz" >/dev/null || { echo "server on $port did not start" >&2; exit 1; }
done
echo "larder response:" && curl -si "http://127.0.0.1:$LARDER_BENCH_PORT/healthz" && echo
echo "nginx response:" && curl -si "http://127.0.0.1:$NGINX_BENCH_PORT/healthz" && echo

: >"$WORK/larder.txt"
: >"$WORK/nginx.txt"
for round in $(seq "$ROUNDS"); do
    read -r rps p99 _ < <(measure "http://127.0.0.1:$LARDER_BENCH_PORT/healthz")
    echo "round $round larder: $rps req/s, p99 $p99 ms"
    echo "$rps $p99" >>"$WORK/larder.txt"
    read -r rps p99 _ < <(measure "http://127.0.0.1:$NGINX_BENCH_PORT/healthz")
    echo "round $round nginx:  $rps req/s, p99 $p99 ms"
    echo "$rps $p99" >>"$WORK/nginx.txt"
done

larder_rps=$(cut -d' ' -f1 "$WORK/larder.txt" | median)
nginx_rps=$(cut -d' ' -f1 "$WORK/nginx.txt" | median)
larder_p99=$(cut -d' ' -f2 "$WORK/larder.txt" | median)
nginx_p99=$(cut -d' ' -f2 "$WORK/nginx.txt" | median)
echo
echo "median larder: $larder_rps req/s, p99 $larder_p99 ms"
echo "median nginx:  $nginx_rps req/s, p99 $nginx_p99 ms"
awk -v a="$larder_rps" -v b="$nginx_rps" 'BEGIN { printf "ratio larder/nginx (req/s): %.2f\n", a / b }'
