#!/usr/bin/env bash
# Two larder binaries against each other on the same origin: A (the baseline) and B, interleaved round by
# round, each with a database of its own. For a change that moves a figure by a few per cent, which a run
# against nginx cannot show through the machine's own drift.
#
# Each round measures, for A then B: hits of each file in HITS (`wrk -t1 -c64`; from the store, the memory
# tier being off, unless HOT_BYTES sizes it), then a flood of misses on MISS_FILE (a new URL per request,
# `wrk -t1 -c32`, Benchmarks/fetch/unique.lua).
# Both servers run pinned to CPU 0 with one event loop; wrk and the origin (Debian's nginx, the same files
# and configuration as run.sh) on CPU 1. "CPU µs" is the server's user and system time over the answered
# requests: the figure the machine's other load disturbs least. Prints every round, then the medians and
# B / A for each, with wrk's p99.
#
#   Benchmarks/fetch/ab.sh /tmp/larder-before .build/release/larder
#   ROUNDS=3 HITS="text1k.txt" MISS_FILE="" Benchmarks/fetch/ab.sh A B   # hits only
#   HITS="" Benchmarks/fetch/ab.sh A B                                    # misses only
#   MAX_SIZE=32M HITS="" Benchmarks/fetch/ab.sh A B                       # misses in a full cache: each side
#                                                                         # is filled first (FILL_DURATION of
#                                                                         # misses, 10s), then every stored miss
#                                                                         # evicts (the default is no bound)
#   COLD=200 HITS="" MISS_FILE="" Benchmarks/fetch/ab.sh A B               # 200 sequential cold misses of
#                                                                         # text1k.txt a round (curl, one at a
#                                                                         # time): the p99 columns hold the
#                                                                         # median time of one, in ms
#   HOT_BYTES=64M HITS="text1k.txt" MISS_FILE="" Benchmarks/fetch/ab.sh A B  # hits from the memory tier
#                                                                         # (the default, 0, turns it off)
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/lib.sh

[ $# -eq 2 ] && [ -x "$1" ] && [ -x "$2" ] || { echo "usage: $0 binary-A binary-B" >&2; exit 2; }
declare -A BIN=([A]="$1" [B]="$2")
ROUNDS=${ROUNDS:-5}
HITS=${HITS-"text1k.txt jpeg16k.jpg bin256k.bin"}
MISS_FILE=${MISS_FILE-"text1k.txt"}
HIT_DURATION=${HIT_DURATION:-5s}
MISS_DURATION=${MISS_DURATION:-8s}
MAX_SIZE=${MAX_SIZE:-0}
FILL_DURATION=${FILL_DURATION:-10s}
HOT_BYTES=${HOT_BYTES:-0}
COLD=${COLD:-0}
ORIGIN_PORT=${ORIGIN_PORT:-28602}
declare -A PORT=([A]=${A_PORT:-28610} [B]=${B_PORT:-28611})
need_tools nginx wrk taskset curl

start_work

mkdir -p "$WORK/files"
python3 Benchmarks/fetch/make-bodies.py "$WORK/files" text:1024:text1k.txt jpeg:16384:jpeg16k.jpg \
    bin:262144:bin256k.bin json:65536:json64k.json
start_fetch_origin "$ORIGIN_PORT"

declare -A PID=()
for side in A B; do
    taskset -c 0 "${BIN[$side]}" serve --host 127.0.0.1 --port "${PORT[$side]}" --db "$WORK/larder-$side.db" \
        --access-log false --log-level warning --event-loops 1 --allow-network 127.0.0.0/8 --max-size "$MAX_SIZE" \
        --hot-bytes "$HOT_BYTES" >"$WORK/larder-$side.log" 2>&1 &
    PID[$side]=$!
    PIDS+=("$!")
    wait_http "${PORT[$side]}" /livez
    # Stored and then answered from the store: the first request fetches, the later ones must hit.
    for file in $HITS; do
        url="http://127.0.0.1:${PORT[$side]}/fetch?url=http://127.0.0.1:$ORIGIN_PORT/$file"
        for _ in $(seq 50); do
            [[ $(curl -s -o /dev/null -w '%header{x-cache}' "$url") == HIT ]] && break
            sleep 0.1
        done
        [[ $(curl -s -o /dev/null -w '%header{x-cache}' "$url") == HIT ]] ||
            { echo "$side: $file is not a hit" >&2; exit 1; }
    done
done

ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# One wrk run against a side: prints "requests/s cpu-µs-a-request non-2xx p99-in-ms".
run() { # side url connections duration [wrk options...]
    local side=$1 url=$2 connections=$3 duration=$4 before after rps p99 bad answered
    shift 4
    before=$(ticks "${PID[$side]}")
    read -r rps p99 bad answered < <(taskset -c 1 wrk -t1 -c"$connections" -d"$duration" --latency "$@" "$url" | wrk_figures)
    after=$(ticks "${PID[$side]}")
    awk -v rps="$rps" -v t=$((after - before)) -v n="$answered" -v bad="$bad" -v p99="$p99" -v hz="$(getconf CLK_TCK)" \
        'BEGIN { printf "%s %.1f %d %s\n", rps, (n > 0) ? t * 1e6 / hz / n : 0, bad + 0, p99 }'
}

# COLD sequential misses of text1k.txt against a side, one curl at a time: prints "misses/s cpu-µs-a-miss 0
# median-ms".
cold() { # side round
    local side=$1 before after start elapsed
    before=$(ticks "${PID[$side]}")
    start=$(date +%s.%N)
    for n in $(seq "$COLD"); do
        curl -s -o /dev/null -w '%{time_total}\n' \
            "http://127.0.0.1:${PORT[$side]}/fetch?url=http://127.0.0.1:$ORIGIN_PORT/text1k.txt%3Fcold$2$side-$n"
    done >"$WORK/cold-$side"
    elapsed=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { print e - s }')
    after=$(ticks "${PID[$side]}")
    awk -v n="$COLD" -v e="$elapsed" -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" \
        -v m="$(awk '{ print $1 * 1000 }' "$WORK/cold-$side" | median)" \
        'BEGIN { printf "%.0f %.1f 0 %.3f\n", n / e, t * 1e6 / hz / n, m }'
}

if [ "$MAX_SIZE" != 0 ] && [ -n "$MISS_FILE" ]; then
    # Up to the bound before the first round, so that every measured miss evicts.
    for side in A B; do
        PREFIX="/fetch?url=http://127.0.0.1:$ORIGIN_PORT/$MISS_FILE%3Ffill$side-" taskset -c 1 wrk -t1 -c32 \
            -d"$FILL_DURATION" -s Benchmarks/fetch/unique.lua "http://127.0.0.1:${PORT[$side]}" >/dev/null
        evicted=$(curl -s "http://127.0.0.1:${PORT[$side]}/metrics" | awk '/^larder_store_evictions_total/ { print $2 }')
        [ "${evicted:-0}" != 0 ] || { echo "$side: $FILL_DURATION of misses did not fill --max-size $MAX_SIZE" >&2; exit 1; }
    done
fi

cases=()
for file in $HITS; do cases+=("hit:$file"); done
[ -n "$MISS_FILE" ] && cases+=("miss:$MISS_FILE")
[ "$COLD" != 0 ] && cases+=("cold:text1k.txt")
echo "A: ${BIN[A]}"
echo "B: ${BIN[B]}"
echo "$ROUNDS interleaved rounds; hits wrk -t1 -c64 -d$HIT_DURATION (--hot-bytes $HOT_BYTES), misses wrk -t1 -c32" \
    "-d$MISS_DURATION with a new URL each; larder on CPU 0, wrk and the origin on CPU 1; --max-size $MAX_SIZE"
for round in $(seq "$ROUNDS"); do
    for c in "${cases[@]}"; do
        kind=${c%%:*} file=${c#*:}
        line="round $round $kind $file:"
        for side in A B; do
            base="http://127.0.0.1:${PORT[$side]}"
            if [ "$kind" = hit ]; then
                read -r rps us bad p99 < <(run "$side" "$base/fetch?url=http://127.0.0.1:$ORIGIN_PORT/$file" 64 "$HIT_DURATION")
            elif [ "$kind" = cold ]; then
                read -r rps us bad p99 < <(cold "$side" "$round")
            else
                export PREFIX="/fetch?url=http://127.0.0.1:$ORIGIN_PORT/$file%3Fab$round$side-"
                read -r rps us bad p99 < <(run "$side" "$base" 32 "$MISS_DURATION" -s Benchmarks/fetch/unique.lua)
            fi
            ((bad == 0)) || { echo "$side: $bad non-2xx answers in $c" >&2; exit 1; }
            echo "$round $c $side $rps $us $p99" >>"$WORK/results"
            line="$line $side $rps/s ${us} µs p99 ${p99} ms"
        done
        echo "$line"
    done
done

echo
printf "%-22s %10s %10s %7s %9s %9s %7s %9s %9s %7s\n" case "A req/s" "B req/s" "B / A" "A CPU µs" "B CPU µs" "B / A" \
    "A p99 ms" "B p99 ms" "B / A"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (a > 0) ? b / a : 0 }'; }
for c in "${cases[@]}"; do
    col() { awk -v c="$c" -v s="$1" -v f="$2" '$2 == c && $3 == s { print $f }' "$WORK/results" | median; }
    ar=$(col A 4) br=$(col B 4) au=$(col A 5) bu=$(col B 5) ap=$(col A 6) bp=$(col B 6)
    printf "%-22s %10s %10s %7s %9s %9s %7s %9s %9s %7s\n" "$c" "$ar" "$br" "$(ratio "$ar" "$br")" "$au" "$bu" \
        "$(ratio "$au" "$bu")" "$ap" "$bp" "$(ratio "$ap" "$bp")"
done
echo "(medians of $ROUNDS rounds; lower CPU µs and p99 are better; for cold:, p99 is the median time of one miss)"
