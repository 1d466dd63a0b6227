# Sourced by run.sh, flush.sh and tier.sh: where the million benchmark's stores live, and how one is loaded.
# shellcheck shell=bash

MILLION_DIR=${MILLION_DIR:-/tmp/larder-million}
RANDOM_LUA="$(dirname "${BASH_SOURCE[0]}")/random.lua"

# Loads the store of n entries through SQLiteCacheStore.bulkLoad (`PurgeBenchmark --load-only`: entries of
# random bytes, 1 KiB unless told, at https://bench.example/items/<i>, fresh for an hour from the fixtures'
# clock, so no origin is asked) unless it is there, and prints its path.
million_store() { # n [body-bytes]
    local bytes=${2:-1024}
    local db="$MILLION_DIR/store-$1.db"
    [[ $bytes == 1024 ]] || db="$MILLION_DIR/store-$1-$bytes.db"
    if [[ ! -f $db ]]; then
        mkdir -p "$MILLION_DIR"
        swift build -c release -Xswiftc -g --product PurgeBenchmark >&2
        echo "loading $1 entries of $bytes bytes into $db" >&2
        "$(swift build -c release -Xswiftc -g --show-bin-path)/PurgeBenchmark" --load-only --entries "$1" \
            --tagged 1 --body-bytes "$bytes" --db "$db" >&2
    fi
    echo "$db"
}
