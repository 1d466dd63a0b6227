#!/usr/bin/env bash
# Instructions per 1 KiB store hit (the memory tier off) at a million entries and at a thousand, counted by
# valgrind's callgrind: what run.sh's ratio is made of, in a figure the machine's other load does not move.
# At a thousand every memo holds the working set; at a million every request is a URL the memos have not
# seen (its canonical form, primary key, decoded entry and prepared head are all made again) and every
# B-tree page read is a random one.
#
# Each store (the ones run.sh uses, loaded by stores.sh) is served under callgrind (one event loop); wrk
# asks random items for WARM (8 s), the counters are zeroed, wrk asks for DURATION (20 s) with 4
# connections, the counters are dumped, and the server is counted idle for as long:
#   instructions per hit = (Ir during the hits - Ir while idle) / hits.
#
#   Benchmarks/million/callgrind.sh                      # 1 000 and 1 000 000 entries
#   KEEP=/tmp/cg Benchmarks/million/callgrind.sh         # keep the callgrind files for callgrind_annotate
#   LARDER_BIN=/tmp/larder-before Benchmarks/million/callgrind.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/lib.sh

WARM=${WARM:-8s}
DURATION=${DURATION:-20}
need_tools wrk curl valgrind callgrind_control objcopy cc
build_larder
. Benchmarks/million/stores.sh
start_work
prepare_callgrind "$WORK"
port=28396

echo "entries     hits          Ir hits          Ir idle   Ir per hit"
for n in "$SMALL" "$ENTRIES"; do
    db=$(million_store "$n")
    rm -f "$WORK"/cg.out*
    LD_PRELOAD="$WORK/sigsuspend.so" valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" --dump-instr=no \
        --collect-systime=no "$WORK/larder" serve --host 127.0.0.1 --port "$port" --db "$db" --max-size 0 \
        --hot-bytes 0 --event-loops 1 --access-log false --log-level warning >"$WORK/larder.log" 2>&1 &
    pid=$!
    PIDS+=("$pid")
    for _ in $(seq 300); do curl -s -o /dev/null "http://127.0.0.1:$port/livez" && break; sleep 0.2; done
    check=$(curl -s -o /dev/null -w '%header{x-cache}' "http://127.0.0.1:$port/fetch?url=https://bench.example/items/0")
    [[ $check == HIT ]] || { echo "not a hit from $db: $check" >&2; cat "$WORK/larder.log" >&2; exit 1; }
    ITEMS=$n wrk -t1 -c4 -d"$WARM" -s "$RANDOM_LUA" "http://127.0.0.1:$port/" >/dev/null
    callgrind_control -z "$pid" >/dev/null 2>&1
    out=$(ITEMS=$n wrk -t1 -c4 -d"${DURATION}s" -s "$RANDOM_LUA" "http://127.0.0.1:$port/")
    hits_ir=$(callgrind_dump "$pid" "$WORK")
    hits=$(awk '/requests in/ { print $1 }' <<<"$out")
    bad=$(awk '/Non-2xx/ { print $NF }' <<<"$out")
    [[ -z $bad ]] || { echo "$bad answers were not 2xx" >&2; exit 1; }
    callgrind_control -z "$pid" >/dev/null 2>&1
    sleep "$DURATION"
    idle_ir=$(callgrind_dump "$pid" "$WORK")
    printf "%7d %8d %16d %16d %12.0f\n" "$n" "$hits" "$hits_ir" "$idle_ir" \
        "$(awk -v h="$hits_ir" -v i="$idle_ir" -v n="$hits" 'BEGIN { print (h - i) / n }')"
    if [[ -n ${KEEP:-} ]]; then
        mkdir -p "$KEEP/$n"
        cp "$WORK"/cg.out.* "$KEEP/$n/"
    fi
    kill "$pid"
    wait "$pid" 2>/dev/null || true
done
[[ -n ${KEEP:-} ]] && echo "callgrind files kept in $KEEP/<entries>/ (the first dump is the hits)"
true
