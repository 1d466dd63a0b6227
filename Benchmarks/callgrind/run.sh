#!/usr/bin/env bash
# Instructions per /fetch hit, counted by valgrind's callgrind: repeatable on a noisy machine, so a change
# to the hit path shows as a number before and after without a quiet machine.
#
# larder (release, with debug info) runs under callgrind in front of a local nginx origin. Each size is
# fetched until it is a HIT; then the counters are zeroed, N hits are sent over one keep-alive connection
# (curl with N URLs), and the counters dumped. The same is done with the server left idle for as long, and
#   instructions per hit = (Ir during the hits - Ir while idle) / N.
#
#   Benchmarks/callgrind/run.sh                    # 1k and 16k, 2000 hits each
#   HITS=500 SIZES="1k" Benchmarks/callgrind/run.sh
#   GZIP=1 SIZES=64k Benchmarks/callgrind/run.sh   # with Accept-Encoding: gzip
#   ENCODE=1 ...                                   # hits with the url parameter percent-encoded, as URL
#                                                  # libraries send it (misses always are)
#   KEEP=1 ...                                     # keep the callgrind files (path printed) for callgrind_annotate
#   MISSES=1000 SIZES=1k Benchmarks/callgrind/run.sh # also instructions per miss (each URL new, each stored)
#   PARALLEL=32 MISSES=3000 ...                      # the misses from 32 connections at once (commit groups
#                                                    # form as under load; a sequential miss is a group of one)
#   SECOND=1 KIND=text MISSES=1000 ...              # then the same URLs from a gzip caller: each the miss of
#                                                    # a URL's second variant, its Vary names already stored
#   LARDER_ARGS="--hot-bytes 0" ...                  # extra serve flags (here: every hit from the store;
#                                                    # "--max-size 2M": misses that evict, once it is full)
#   KIND=text SIZES=1k ...                           # English-like text the origin gzips, with Vary:
#                                                    # Accept-Encoding (Benchmarks/fetch/make-bodies.py);
#                                                    # KIND=bin (default) is random bytes without Vary;
#                                                    # KIND=jpeg a baseline JPEG (validated on admission)
#   STORE=/tmp/larder-million/store-1000000.db HITS=0 MISSES=1000 ...
#                                                    # start from a copy of that store (here the million
#                                                    # entries of Benchmarks/million): misses into a big store
#   REFRESH=2 HITS=20000 SIZES=1k ...                # while the hits run, what an open operator page asks
#                                                    # every 2 s (/metrics, /fetches); then REFRESHES (20)
#                                                    # of them alone: instructions per refresh
#
# Misses: N requests for URLs nobody asked for before (a counter in the origin URL's query), again over one
# connection; the dump waits until the store has committed all N (the store writes behind the answers), so
#   instructions per miss = (Ir from the first miss to the last commit - Ir while idle) / N
# counts the origin fetch, the relay and the store write.
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/lib.sh

HITS=${HITS:-2000}
MISSES=${MISSES:-0}
SIZES=${SIZES:-"1k 16k"}
LARDER_PORT=${LARDER_PORT:-18190}
ORIGIN_PORT=${ORIGIN_PORT:-18192}

need_tools nginx valgrind callgrind_control curl cc sqlite3
build_larder

WORK=$(mktemp -d)
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    if [ -n "${KEEP:-}" ]; then echo "callgrind files kept in $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

chmod 755 "$WORK"
mkdir -p "$WORK/files"
KIND=${KIND:-bin}
case $KIND in text) EXT=txt ;; jpeg) EXT=jpg ;; bin) EXT=bin ;; *) echo "KIND is text, jpeg or bin" >&2; exit 2 ;; esac
for size in $SIZES; do
    if [ "$KIND" != bin ]; then
        python3 Benchmarks/fetch/make-bodies.py "$WORK/files" "$KIND:$(size_bytes "$size"):$size.$EXT" >/dev/null
    else
        head -c "$(size_bytes "$size")" /dev/urandom >"$WORK/files/$size.bin"
    fi
done
chmod 644 "$WORK"/files/*
sed -e "s|@ROLE@|origin|g" -e "s|@DIR@|$WORK|g" Benchmarks/fetch/nginx.conf >"$WORK/origin.conf"
sed -e "s|@ORIGIN_PORT@|$ORIGIN_PORT|" -e "s|@DIR@|$WORK|g" Benchmarks/fetch/origin-server.conf >"$WORK/origin-server.conf"
nginx -p "$WORK" -c "$WORK/origin.conf" &
PIDS+=($!)

prepare_callgrind "$WORK"
use_store "$WORK/larder.db"
LD_PRELOAD="$WORK/sigsuspend.so" valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" --dump-instr=no \
    --collect-systime=no "$WORK/larder" serve --host 127.0.0.1 --port "$LARDER_PORT" --db "$WORK/larder.db" --access-log false \
    --log-level warning --event-loops 1 --allow-network 127.0.0.0/8 ${LARDER_ARGS:-} >"$WORK/larder.log" 2>&1 &
LARDER_PID=$!
PIDS+=("$LARDER_PID")
wait_http "$ORIGIN_PORT"
for _ in $(seq 300); do curl -s -o /dev/null "http://127.0.0.1:$LARDER_PORT/healthz" && break; sleep 0.2; done
if [ -n "${STORE:-}" ]; then
    # The store builds its key filter from every stored key in the background at start: a one-off that would
    # otherwise land in the first measured requests. Built, it is more than an empty store's 16 KiB.
    for _ in $(seq 600); do
        filter=$(curl -s "http://127.0.0.1:$LARDER_PORT/metrics" | awk '/^larder_store_key_filter_bytes/ { print $2 }')
        [ "${filter:-0}" -gt 16384 ] && break
        sleep 0.2
    done
fi

# Zeroes or dumps the running counters; a dump prints the instructions counted since the last zero.
zero() { callgrind_control -z "$LARDER_PID" >/dev/null 2>&1; }
dump() { callgrind_dump "$LARDER_PID" "$WORK"; }

# Seconds since a `date +%s.%N` stamp.
since() { awk -v s="$1" -v e="$(date +%s.%N)" 'BEGIN { print e - s }'; }
# Fails unless every line of $WORK/codes is "200 <status>": expect_all <size> <count> <HIT|MISS>.
expect_all() {
    local answered
    answered=$(grep -c "^200 $3" "$WORK/codes" || true)
    [ "$answered" = "$2" ] || { echo "$1: only $answered of $2 answers were 200 $3" >&2; sort "$WORK/codes" | uniq -c >&2; exit 1; }
}
# Counts the server idle for as long as the measured requests took, then prints the row:
# report <size> <count> <Ir measured> <seconds measured>.
report() {
    local idle_ir
    zero
    sleep "$4"
    idle_ir=$(dump)
    printf "%-6s %8d %16d %16d %14.0f\n" "$1" "$2" "$3" "$idle_ir" \
        "$(awk -v h="$3" -v i="$idle_ir" -v n="$2" 'BEGIN { print (h - i) / n }')"
}

# The requests one refresh of an open operator page makes (its in-flight view: /metrics and /fetches).
page_refresh() {
    curl -s -o /dev/null "http://127.0.0.1:$LARDER_PORT/metrics"
    curl -s -o /dev/null "http://127.0.0.1:$LARDER_PORT/fetches"
}
# A refresh every REFRESH seconds in the background until refresh_stop; one line per refresh in $WORK/refreshes.
refresh_loop() {
    rm -f "$WORK/refresh-stop"
    : >"$WORK/refreshes"
    (while [ ! -e "$WORK/refresh-stop" ]; do
        page_refresh
        echo >>"$WORK/refreshes"
        sleep "$REFRESH"
    done) &
    REFRESH_PID=$!
}
refresh_stop() {
    touch "$WORK/refresh-stop"
    wait "$REFRESH_PID"
}

header=()
[ -n "${GZIP:-}" ] && header=(-H "Accept-Encoding: gzip")
[ "$HITS" -gt 0 ] && printf "%-6s %8s %16s %16s %14s\n" size hits "Ir hits" "Ir idle" "Ir per hit"
for size in $([ "$HITS" -gt 0 ] && echo "$SIZES"); do
    url="http://127.0.0.1:$LARDER_PORT/fetch?url=http://127.0.0.1:$ORIGIN_PORT/$size.$EXT"
    [ -n "${ENCODE:-}" ] && url="http://127.0.0.1:$LARDER_PORT/fetch?url=http%3A%2F%2F127.0.0.1%3A$ORIGIN_PORT%2F$size.$EXT"
    for _ in $(seq 50); do
        curl -s -o /dev/null -D "$WORK/head" "${header[@]}" "$url"
        grep -qi "x-cache: HIT" "$WORK/head" && break
        sleep 0.2
    done
    grep -qi "x-cache: HIT" "$WORK/head" || { echo "no hit for $size" >&2; cat "$WORK/head" >&2; exit 1; }
    # A few more hits so that lazily built state (memos, the hot tier, the Date line) is in place.
    for _ in 1 2 3; do curl -s -o /dev/null "${header[@]}" "$url"; done
    : >"$WORK/urls"
    for _ in $(seq "$HITS"); do printf 'url = "%s"\noutput = "/dev/null"\n' "$url" >>"$WORK/urls"; done
    zero
    start=$(date +%s.%N)
    if [ -n "${REFRESH:-}" ]; then refresh_loop; fi
    curl -s "${header[@]}" -w '%{http_code} %header{x-cache}\n' -K "$WORK/urls" >"$WORK/codes"
    if [ -n "${REFRESH:-}" ]; then refresh_stop; fi
    elapsed=$(since "$start")
    hits_ir=$(dump)
    expect_all "$size" "$HITS" HIT
    report "$size" "$HITS" "$hits_ir" "$elapsed"
    if [ -n "${REFRESH:-}" ]; then
        echo "($(wc -l <"$WORK/refreshes") page refreshes of /metrics and /fetches during the hits)"
    fi
done

if [ -n "${REFRESH:-}" ]; then
    # What one refresh costs alone: REFRESHES of them back to back.
    REFRESHES=${REFRESHES:-20}
    zero
    start=$(date +%s.%N)
    for _ in $(seq "$REFRESHES"); do page_refresh; done
    elapsed=$(since "$start")
    report refresh "$REFRESHES" "$(dump)" "$elapsed"
fi

# Entries the store has committed (the database is read while larder runs; WAL lets it).
# Entries committed so far: the newest `seq` (one more per committed entry), which eviction in a bounded
# store (LARDER_ARGS="--max-size 2M") does not take back, since it takes the oldest first.
entries() { sqlite3 "$WORK/larder.db" "SELECT coalesce(max(seq), 0) FROM entry" 2>/dev/null || echo 0; }
# Waits until the entry count holds still for half a second (at most a minute).
settle() {
    local previous=-1 now
    for _ in $(seq 120); do
        now=$(entries)
        [ "$now" = "$previous" ] && return
        previous=$now
        sleep 0.5
    done
}

# PARALLEL=n: the misses from n connections at once, so that the store commits them in groups as under load.
parallel=()
[ -n "${PARALLEL:-}" ] && parallel=(--parallel --parallel-immediate --parallel-max "$PARALLEL" --no-progress-meter)
# One pass of the misses in $WORK/urls: counted until the store has committed every one of them.
# miss_pass <label> [curl arguments...]
miss_pass() {
    local label=$1 stored_before start elapsed misses_ir stored
    shift
    settle
    stored_before=$(entries)
    zero
    start=$(date +%s.%N)
    curl -s "${parallel[@]}" "$@" -w '%{http_code} %header{x-cache}\n' -K "$WORK/urls" >"$WORK/codes"
    for _ in $(seq 600); do [ "$(entries)" -ge "$((stored_before + MISSES))" ] && break; sleep 0.1; done
    elapsed=$(since "$start")
    misses_ir=$(dump)
    expect_all "$label" "$MISSES" MISS
    stored=$(($(entries) - stored_before))
    [ "$stored" = "$MISSES" ] || { echo "$label: only $stored of $MISSES misses were stored" >&2; exit 1; }
    report "$label" "$MISSES" "$misses_ir" "$elapsed"
}
[ "$MISSES" -gt 0 ] && printf "%-6s %8s %16s %16s %14s\n" size misses "Ir misses" "Ir idle" "Ir per miss"
for size in $([ "$MISSES" -gt 0 ] && echo "$SIZES"); do
    base="http://127.0.0.1:$LARDER_PORT/fetch?url=http%3A%2F%2F127.0.0.1%3A$ORIGIN_PORT%2F$size.$EXT%3F"
    # A few misses first, so that the origin connection, the statement cache and the queues are warm.
    initial=$(entries)
    for n in $(seq 20); do curl -s -o /dev/null "${base}warm-$size-$n"; done
    # Their commits are not the measured ones (a big STORE's first commits can outlast settle's half second).
    for _ in $(seq 600); do [ "$(entries)" -ge "$((initial + 20))" ] && break; sleep 0.1; done
    : >"$WORK/urls"
    for n in $(seq "$MISSES"); do printf 'url = "%smiss-%s-%d"\noutput = "/dev/null"\n' "$base" "$size" "$n" >>"$WORK/urls"; done
    miss_pass "$size"
    # SECOND=1: the same URLs from a gzip caller, each the miss of a second variant.
    [ -z "${SECOND:-}" ] || miss_pass "$size-gz" -H "Accept-Encoding: gzip"
done
