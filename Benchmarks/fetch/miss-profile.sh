#!/usr/bin/env bash
# Where a stored miss's time goes: a flood of new URLs (wrk -c32, Benchmarks/fetch/unique.lua) at a larder
# pinned to CPU 0 (one event loop, the memory tier off, no size bound), the origin and wrk on CPU 1, as in
# ab.sh; during the flood `perf stat` counts the server's context switches and system calls, and prints
# each a miss (and /proc each thread's switches, whether it blocked or was preempted), then `perf record` samples it for the share of CPU time of each thread. The figures behind
# docs/ARCHITECTURE.md, "Where a stored miss's CPU goes"; with strace installed, last, the store's file reads
# and writes a miss by descriptor. Needs perf (linux-perf) and root or kernel.perf_event_paranoid <= 1.
#
#   Benchmarks/fetch/miss-profile.sh                   # builds the release binary, 1 KiB text
#   LARDER_BIN=/tmp/larder-a FILE=jpeg16k.jpg Benchmarks/fetch/miss-profile.sh
#   KEEP=/tmp/miss.perf Benchmarks/fetch/miss-profile.sh   # keep the samples for perf report
#   STORE=/tmp/larder-million/store-1000000.db ...       # start from a copy of that store: misses into a big one
#   LARDER_ARGS="--max-size 1000M" STORE=...              # extra serve flags, after the script's (the last wins):
#                                                         # here a store held at its bound, each miss evicting
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/lib.sh

FILE=${FILE:-text1k.txt}
SECONDS_MEASURED=${SECONDS_MEASURED:-6}
ORIGIN_PORT=${ORIGIN_PORT:-28702}
PORT=${PORT:-28710}
need_tools nginx wrk taskset curl perf
build_larder
start_work

mkdir -p "$WORK/files"
python3 Benchmarks/fetch/make-bodies.py "$WORK/files" text:1024:text1k.txt jpeg:16384:jpeg16k.jpg >/dev/null
start_fetch_origin "$ORIGIN_PORT"
use_store "$WORK/larder.db"
taskset -c 0 "$LARDER_BIN" serve --host 127.0.0.1 --port "$PORT" --db "$WORK/larder.db" --access-log false \
    --log-level warning --event-loops 1 --allow-network 127.0.0.0/8 --max-size 0 --hot-bytes 0 \
    ${LARDER_ARGS:-} >"$WORK/larder.log" 2>&1 &
larder=$!
PIDS+=("$larder")
wait_http "$PORT" /livez

flood() { # query-prefix duration
    PREFIX="/fetch?url=http://127.0.0.1:$ORIGIN_PORT/$FILE?$1=" taskset -c 1 wrk -t1 -c32 -d"$2" \
        -s Benchmarks/fetch/unique.lua "http://127.0.0.1:$PORT" | awk '/requests in/ { print $1 }'
}
# Warm-up: connections to the origin, the store's first pages.
flood w 3s >/dev/null

events=context-switches,syscalls:sys_enter_futex,syscalls:sys_enter_poll,syscalls:sys_enter_epoll_wait
events+=,syscalls:sys_enter_pwrite64,syscalls:sys_enter_pread64,syscalls:sys_enter_sendto
events+=,syscalls:sys_enter_recvfrom,syscalls:sys_enter_sendmsg,syscalls:sys_enter_read,syscalls:sys_enter_write
# Each thread's context switches so far, by thread name (Dispatch's workers share one): "name voluntary
# involuntary" a line; voluntary when it blocked, involuntary when another thread preempted it.
switches() {
    for task in /proc/"$larder"/task/*; do
        printf '%s %s\n' "$(tr ' ' _ <"$task/comm")" \
            "$(awk '/^voluntary_ctxt/ { v = $2 } /^nonvoluntary_ctxt/ { n = $2 } END { print v, n }' "$task/status")"
    done 2>/dev/null
}
switches >"$WORK/switches.before"
perf stat -x, -e "$events" -p "$larder" -o "$WORK/stat.csv" -- sleep "$SECONDS_MEASURED" &
stat=$!
misses=$(flood s "$((SECONDS_MEASURED + 1))s")
wait "$stat"
switches >"$WORK/switches.after"
# The misses answered while perf counted: the flood's rate over the counted seconds.
rate=$(awk -v m="$misses" -v s="$((SECONDS_MEASURED + 1))" 'BEGIN { printf "%.0f", m / s }')
echo "$FILE: $rate misses a second (wrk -c32, larder on one CPU)"
awk -F, -v rate="$rate" -v s="$SECONDS_MEASURED" '
    /^[0-9]/ { sub(/^syscalls:sys_enter_/, "", $3); printf "  %-18s %8.2f a miss\n", $3, $1 / (rate * s) }
' "$WORK/stat.csv"
echo "context switches a miss by thread, voluntary / involuntary (/proc/PID/task/*/status, over the flood):"
awk -v misses="$misses" '
    FNR == 1 { after = (FILENAME ~ /after$/) }
    { sign = after ? 1 : -1; voluntary[$1] += sign * $2; involuntary[$1] += sign * $3 }
    END {
        for (name in voluntary) {
            v = voluntary[name] / misses; n = involuntary[name] / misses
            # A thread that ended meanwhile took its counts with it; below a hundredth is nothing.
            if (v >= 0.005 || n >= 0.005) printf "  %-18s %6.2f / %.2f\n", name, v, n
        }
    }
' "$WORK/switches.before" "$WORK/switches.after" | sort

out=${KEEP:-$WORK/miss.perf}
perf record -g -o "$out" -p "$larder" -- sleep "$SECONDS_MEASURED" 2>/dev/null &
record=$!
flood r "$((SECONDS_MEASURED + 1))s" >/dev/null
wait "$record"
echo "CPU time by thread (perf record, $SECONDS_MEASURED s):"
perf report -i "$out" --no-children --sort pid --stdio -g none 2>/dev/null | awk '/%/ { print "  " $0 }' | head -12
[[ -n ${KEEP:-} ]] && echo "samples kept in $out (perf report -i $out)"

# The store's file reads and writes by descriptor: which file, and which connection (descriptors are numbered
# in the order the connections opened: the writer's first, then the checkpointer's, then the readers').
# strace slows the server, so the rate here is lower; the calls a miss are what to read.
if command -v strace >/dev/null; then
    timeout "$SECONDS_MEASURED" strace -f -p "$larder" -e trace=pread64,pwrite64 -o "$WORK/strace.txt" 2>/dev/null &
    traced=$!
    misses=$(flood t "${SECONDS_MEASURED}s")
    wait "$traced" || true
    echo "store file calls a miss (strace, $misses misses):"
    for fd in $(ls /proc/"$larder"/fd); do
        target=$(readlink /proc/"$larder"/fd/"$fd" || true)
        [[ $target == *larder.db* ]] && echo "$fd ${target##*/}"
    done >"$WORK/fds.txt"
    # Each traced call as "pread64 <fd>" (a call strace split as "unfinished" is counted once, at its start).
    sed -n 's/.*\(pread64\|pwrite64\)(\([0-9]*\),.*/\1 \2/p' "$WORK/strace.txt" >"$WORK/calls.txt"
    awk -v misses="$misses" '
        NR == FNR { file[$1] = $2; next }
        { calls[$1 " " $2]++ }
        END {
            for (key in calls) {
                split(key, part, " ")
                printf "  %-8s fd %-3s %-16s %6.2f\n", part[1], part[2], file[part[2]], calls[key] / misses
            }
        }' "$WORK/fds.txt" "$WORK/calls.txt" | sort -k3,3n -k1,1
fi
true
