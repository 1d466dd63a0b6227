#!/usr/bin/env bash
# Purge benchmark: builds PurgeBenchmark in release mode and runs it: loads 1 000 000 entries of 1 KiB
# (10 000 tagged `sale`) through SQLiteCacheStore.bulkLoad, then times `purge(.tags(["sale"]))` while one
# thread serves hits (lookup and body read) from the store and another stores misses, and prints the
# rates before, during and after. Exit status 0 when the purge took ≤ 2 s, hits kept ≥ 0.8× their rate
# and misses were stored during it. Extra arguments go to the benchmark (--entries N, --tagged N,
# --window SECONDS, --reuse to keep the loaded file between runs, --db PATH, --load-only to load and stop).
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build -c release -Xswiftc -g --product PurgeBenchmark >/dev/null
exec "$(swift build -c release -Xswiftc -g --show-bin-path)/PurgeBenchmark" "$@"
