#!/usr/bin/env bash
# A million entries: 1 KiB hits from the store (the memory tier off) in a store of 1 000 000 entries
# against the same run in a store of 1 000, interleaved on one machine. The aim (issue 16): the million
# at ≥ 0.9× the thousand.
#
# Both stores are loaded through SQLiteCacheStore.bulkLoad (`PurgeBenchmark --load-only`: 1 KiB entries
# at https://bench.example/items/<i>, fresh for an hour from the fixtures' clock, so no origin is asked);
# larder serves each with `--hot-bytes 0`, pinned to CPU 0, and wrk on CPU 1 asks a random item of the
# store's range on every request (Lua), so the million's requests spread over its whole B-trees and file.
# Every answer must be a HIT. Prints each round and the medians' ratio.
#
#   Benchmarks/million/run.sh                  # 5 rounds of 10 s
#   COLD=1 Benchmarks/million/run.sh           # without reading the stores into the page cache first
#   ROUNDS=3 DURATION=5s ENTRIES=1000000 Benchmarks/million/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/lib.sh

ROUNDS=${ROUNDS:-5}
export DURATION=${DURATION:-10s}
need_tools wrk taskset curl
build_larder
. Benchmarks/million/stores.sh
dir=$MILLION_DIR
for n in "$SMALL" "$ENTRIES"; do million_store "$n" >/dev/null; done

port=28391
trap stop_store EXIT

# The share of a file in the page cache, in per cent (fincore, util-linux).
resident() { # file
    local bytes
    bytes=$(fincore --bytes --noheadings --output RES "$1" 2>/dev/null || echo 0)
    awk -v r="$bytes" -v s="$(stat -c %s "$1")" 'BEGIN { printf "%.0f", (s > 0) ? 100 * r / s : 0 }'
}

# One round against the store of n entries: "requests/s p99-ms non-2xx".
# The comparison is of two stores read from the page cache, as nginx's files are: some machines page out
# file pages nobody touched for a while (this one runs DAMON's `pageout` scheme, which left 95 MB of the
# 1.8 GB store resident a quarter of an hour after a run), and a round would then measure the disk. So the
# store is read into the page cache before each round (COLD=1 skips that), and its residency is printed
# after it.
round() { # n
    [[ ${COLD:-0} == 1 ]] || cat "$dir/store-$1.db" "$dir/store-$1.db-wal" >/dev/null 2>&1 || true
    serve_store "$port" "$dir/store-$1.db" "$1" --hot-bytes 0
    ITEMS=$1 measure "http://127.0.0.1:$port/" -s "$RANDOM_LUA"
    stop_store
}

echo "round  entries     requests/s   p99 ms  non-2xx  resident after"
small=()
large=()
for r in $(seq "$ROUNDS"); do
    read -r rps p99 bad _ < <(round "$SMALL")
    printf "%5d  %9d  %11s  %7s  %7s  %12s\n" "$r" "$SMALL" "$rps" "$p99" "$bad" "$(resident "$dir/store-$SMALL.db")%"
    ((bad == 0)) || { echo "non-2xx answers" >&2; exit 1; }
    small+=("$rps")
    read -r rps p99 bad _ < <(round "$ENTRIES")
    printf "%5d  %9d  %11s  %7s  %7s  %12s\n" "$r" "$ENTRIES" "$rps" "$p99" "$bad" "$(resident "$dir/store-$ENTRIES.db")%"
    ((bad == 0)) || { echo "non-2xx answers" >&2; exit 1; }
    large+=("$rps")
done
ms=$(printf '%s\n' "${small[@]}" | median)
ml=$(printf '%s\n' "${large[@]}" | median)
echo "median requests/s: $SMALL entries $ms, $ENTRIES entries $ml; ratio $(awk -v a="$ml" -v b="$ms" 'BEGIN { printf "%.3f", a / b }') (aim ≥ 0.9)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
