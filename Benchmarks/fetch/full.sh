#!/usr/bin/env bash
# Misses into full caches: larder with `--max-size BOUND` against nginx proxy_cache with `max_size=BOUND`,
# each filled past its bound by a flood of new URLs first, so that every measured miss is stored into a cache
# that has to make room for it, the state a cache in production lives in. run.sh's floods go into stores
# that start empty and have no bound (issue 16's method); this is the other case (Benchmarks/fetch/README.md).
#
# As in run.sh: both caches on CPU 0 (larder with one event loop and its defaults otherwise; nginx's worker and
# its cache manager, which removes the files over the bound), wrk and the origin on CPU 1, wrk -c32 with every
# request a new URL (unique.lua), each flood after a `sync`, larder first in odd rounds and nginx in even
# ones. nginx's cache manager removes files over the bound at most `manager_files` an iteration (100 by default,
# every 50 ms), fewer than a flood stores: with its defaults (NGINX_MANAGER="") nginx ended three 20 s floods at
# five times its bound, so it runs with NGINX_MANAGER="manager_files=10000 manager_sleep=10ms", which holds it.
# For each flood: misses answered a second, p99, each server's CPU a miss
# (user + system, nginx's cache manager included) and larder's share of the origin's answers stored (its
# commits; nginx's count is not knowable once its manager removes files); at the end each cache's size
# against the bound (larder's `larder_store_bytes`; nginx's files' disk blocks, what its `max_size` counts).
#
# Where both caches keep their files matters: on an ext4 without a journal (this development machine's root), ext4
# will not reuse an inode deleted in the last minute, and nginx's creates, one a miss while its manager deletes
# as many, scan the inode tables for one (Benchmarks/README.md). The script warns on such a file system; put
# its directory on a journaled one with TMPDIR (for example a file made with mkfs.ext4 and mounted -o loop).
#
#   TMPDIR=/mnt/jfs Benchmarks/fetch/full.sh          # 256M, text1k.txt, fills of 60 s, 3 rounds of 20 s
#   BOUND=64M ROUNDS=1 FILL=20s DURATION=5s Benchmarks/fetch/full.sh
#   FILE=jpeg16k.jpg Benchmarks/fetch/full.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/lib.sh

BOUND=${BOUND:-256M}
FILL=${FILL:-60s}
DURATION=${DURATION:-20s}
ROUNDS=${ROUNDS:-3}
FILE=${FILE:-text1k.txt}
# How nginx's cache manager removes files over the bound (proxy_cache_path parameters; "" for its defaults).
NGINX_MANAGER=${NGINX_MANAGER-"manager_files=10000 manager_sleep=10ms"}
ORIGIN_PORT=${ORIGIN_PORT:-28722}
CACHE_PORT=${CACHE_PORT:-28721}
PORT=${PORT:-28720}
need_tools nginx wrk taskset curl
build_larder
start_work

bound_bytes=$(size_bytes "${BOUND,,}")
device=$(basename "$(df --output=source "$WORK" | tail -1)")
if [ "$(cat "/sys/fs/ext4/$device/journal_task" 2>/dev/null)" = "<none>" ]; then
    echo "warning: $WORK is on an ext4 without a journal ($device), which makes nginx's file churn slow;" \
        "set TMPDIR to a directory on a journaled file system (see the top of $0)" >&2
fi
mkdir -p "$WORK/files"
python3 Benchmarks/fetch/make-bodies.py "$WORK/files" text:1024:text1k.txt jpeg:16384:jpeg16k.jpg >/dev/null
start_fetch_origin "$ORIGIN_PORT"

# nginx's cache: Benchmarks/fetch/nginx.conf with a bound and a manager that can keep up with a flood.
sed -e "s|@ROLE@|cache|g" -e "s|@DIR@|$WORK|g" \
    -e "s|use_temp_path=off;|use_temp_path=off max_size=$bound_bytes $NGINX_MANAGER;|" \
    Benchmarks/fetch/nginx.conf >"$WORK/cache.conf"
grep -q "max_size=$bound_bytes" "$WORK/cache.conf" || { echo "nginx.conf's proxy_cache_path changed" >&2; exit 1; }
sed -e "s|@ORIGIN_PORT@|$ORIGIN_PORT|" -e "s|@CACHE_PORT@|$CACHE_PORT|" -e "s|@DIR@|$WORK|g" \
    Benchmarks/fetch/cache-server.conf >"$WORK/cache-server.conf"
mkdir -p "$WORK/cache-cache" && chmod 777 "$WORK/cache-cache"
taskset -c 0 nginx -p "$WORK" -c "$WORK/cache.conf" &
nginx=$!
PIDS+=("$nginx")
taskset -c 0 "$LARDER_BIN" serve --host 127.0.0.1 --port "$PORT" --db "$WORK/larder.db" --access-log false \
    --log-level warning --event-loops 1 --allow-network 127.0.0.0/8 --max-size "$BOUND" >"$WORK/larder.log" 2>&1 &
larder=$!
PIDS+=("$larder")
wait_http "$CACHE_PORT"
wait_http "$PORT" /livez

metric() { curl -s "http://127.0.0.1:$PORT/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }
nginx_bytes() { find "$WORK/cache-cache" -type f -printf '%b\n' | awk '{ n += $1 } END { print n * 512 }'; }
# One flood: sets RPS, P99 and ANSWERED; the origin's requests meanwhile in FETCHED.
flood() { # port tag duration
    local before bad
    before=$(origin_requests)
    read -r RPS P99 bad ANSWERED < <(
        PREFIX="/fetch?url=http://127.0.0.1:$ORIGIN_PORT/$FILE?$2=" taskset -c 1 wrk -t1 -c32 -d"$3" --latency \
            -s Benchmarks/fetch/unique.lua "http://127.0.0.1:$1" | wrk_figures
    )
    [ "${bad:-x}" = 0 ] || { echo "port $1: ${bad:-?} answers were not 2xx" >&2; exit 1; }
    FETCHED=$(($(origin_requests) - before))
}

echo "filling both caches past $BOUND with $FILE misses ($FILL each)..." >&2
flood "$PORT" fill "$FILL"
drain_fetches "$PORT"
flood "$CACHE_PORT" fill "$FILL"
sleep 1
echo "after the fill: larder $(metric larder_store_bytes) bytes (evicted $(metric larder_store_evictions_total))," \
    "nginx $(nginx_bytes) bytes in its files' blocks; the bound $bound_bytes" >&2
[ "$(metric larder_store_evictions_total)" -gt 0 ] || { echo "larder did not reach its bound: a longer FILL" >&2; exit 1; }

: >"$WORK/rounds"
for round in $(seq "$ROUNDS"); do
    for side in $( ((round % 2)) && echo "larder nginx" || echo "nginx larder"); do
        settle_writeback
        if [ "$side" = larder ]; then
            cpu=$(process_cpu "$larder")
            committed=$(metric larder_store_commit_group_entries_total)
            flood "$PORT" "r$round" "$DURATION"
            drain_fetches "$PORT"
            stored=$(($(metric larder_store_commit_group_entries_total) - committed))
            read -r user system < <(cpu_per "$cpu" "$(process_cpu "$larder")" "$ANSWERED")
            l="$RPS $P99 $user $system $(awk -v s="$stored" -v f="$FETCHED" 'BEGIN { printf "%.1f", 100 * s / f }')"
        else
            cpu=$(process_cpu "$nginx")
            flood "$CACHE_PORT" "r$round" "$DURATION"
            sleep 1
            read -r user system < <(cpu_per "$cpu" "$(process_cpu "$nginx")" "$ANSWERED")
            n="$RPS $P99 $user $system"
        fi
    done
    read -r lr lp lu ls lshare <<<"$l"
    read -r nr np nu ns <<<"$n"
    echo "$lr $lp $nr $np" >>"$WORK/rounds"
    echo "  round $round: larder $lr misses/s (p99 $lp ms, CPU $lu + $ls µs a miss, $lshare % of fetched stored)," \
        "nginx $nr/s (p99 $np ms, CPU $nu + $ns µs)" >&2
done
drain_fetches "$PORT"
sleep 2
echo "after the rounds: larder $(metric larder_store_bytes) bytes, nginx $(nginx_bytes) in its files' blocks;" \
    "the bound $bound_bytes" >&2

median_of() { awk -v c="$1" '{ print $c }' "$WORK/rounds" | median; }
larder_rps=$(median_of 1)
nginx_rps=$(median_of 3)
printf "full caches (%s, %s, wrk -c32, %s rounds of %s): larder %.0f misses/s (p99 %.2f ms), nginx %.0f (p99 %.2f ms)," \
    "$BOUND" "$FILE" "$ROUNDS" "$DURATION" "$larder_rps" "$(median_of 2)" "$nginx_rps" "$(median_of 4)"
printf " larder / nginx %.2f, p99 ratio %.2f (medians)\n" \
    "$(awk -v a="$larder_rps" -v b="$nginx_rps" 'BEGIN { print a / b }')" \
    "$(awk '{ print $2 / $4 }' "$WORK/rounds" | median)"
