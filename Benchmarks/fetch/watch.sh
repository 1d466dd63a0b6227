#!/usr/bin/env bash
# Watches a running larder during a benchmark: twice a second, one line of what the miss path is doing, for a
# flood that stalls or slows to be read afterwards second by second (Benchmarks/fetch/README.md).
#
#   Benchmarks/fetch/watch.sh 18090 /tmp/watch.txt &    # the port of the larder to watch, the output file
#   Benchmarks/fetch/run.sh ...; kill %1
#   Benchmarks/fetch/watch.sh --rates /tmp/watch.txt    # per-interval rates from the file
#
# Each line: the time (seconds since 1970); larder's resident bytes, CPU seconds, misses answered, origin
# fetches in flight, stored entries, commit groups and their entries, write backlog bytes and waiters,
# memory tier bytes and bytes in flight (from /metrics, in that order; METRICS-TIMEOUT when /metrics did
# not answer within 0.4 s); "|", the machine's dirty and writeback kB (/proc/meminfo); "|", each of
# larder's threads that is running or waiting on something other than a futex or epoll, as
# name:state:wait-channel. The process is found again by its port after a restart.
set -euo pipefail

if [ "${1:-}" = --rates ]; then
    # Per interval: CPU used (seconds a second), misses a second, fetches in flight, commit groups a second,
    # mean group, backlog bytes and waiters, dirty kB, then the thread states.
    awk '{
        dt = $1 - t
        if (NR > 1 && dt > 0 && $2 != "METRICS-TIMEOUT")
            printf "%.1f cpu=%.2f misses/s=%d in-flight=%d groups/s=%d entries/group=%.1f backlog=%d waiting=%d dirty=%s %s\n",
                $1, ($3 - cpu) / dt, ($4 - misses) / dt, $5, ($7 - groups) / dt,
                ($7 > groups) ? ($8 - entries) / ($7 - groups) : 0, $9, $10, $14, $17
        t = $1; cpu = $3; misses = $4; groups = $7; entries = $8
    }' "$2"
    exit
fi

port=$1
out=$2
: >"$out"
metrics='^larder_(cache_results_total\{result="miss"|origin_fetches_in_flight|store_entries|store_commit_group'
metrics+='|store_backlog|memory_tier_bytes|in_flight_bytes)|^process_(resident|cpu)'
while true; do
    pid=$(ss -ltnpH "sport = :$port" 2>/dev/null | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2 || true)
    if [ -z "$pid" ]; then
        sleep 0.5
        continue
    fi
    now=$(date +%s.%N | cut -c1-14)
    figures=$(curl -s -m 0.4 "http://127.0.0.1:$port/metrics" | grep -E "$metrics" | awk '{ printf "%s ", $2 }' || true)
    [ -n "$figures" ] || figures="METRICS-TIMEOUT "
    memory=$(awk '/^Dirty:|^Writeback:/ { printf "%s ", $2 }' /proc/meminfo)
    threads=""
    for task in /proc/"$pid"/task/*; do
        state=$(cut -d' ' -f3 "$task/stat" 2>/dev/null || true)
        channel=$(cat "$task/wchan" 2>/dev/null || true)
        if [ "$state" != S ] || { [ "$channel" != futex_wait_queue ] && [ "$channel" != futex_do_wait ] &&
            [ "$channel" != do_epoll_wait ]; }; then
            threads+="$(cat "$task/comm" 2>/dev/null | tr ' ' _):$state:$channel,"
        fi
    done
    echo "$now $figures| $memory| $threads" >>"$out"
    sleep 0.5
done
