# Sourced by run.sh, flush.sh and tier.sh: where the million benchmark's stores live, how one is loaded, and
# how a round serves one.
# shellcheck shell=bash

MILLION_DIR=${MILLION_DIR:-/tmp/larder-million}
# The two stores run.sh, callgrind.sh and perf.sh compare (tier.sh and flush.sh set ENTRIES first).
ENTRIES=${ENTRIES:-1000000}
SMALL=${SMALL:-1000}
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

# Serves a loaded store on CPU 0 (`--max-size 0`, plus the given serve flags) as $STORE_PID, and returns once it
# answers a HIT for its last item and has built its key filter: the store builds the filter from the file when
# it opens (a scan of every entry's id: about 0.3 s of CPU at a million), and a round measures the store
# opened, not its opening. Fails with larder's log when the item is not a hit. `stop_store` stops it.
STORE_PID=""
serve_store() { # port db entries [serve flags...]
    local port=$1 db=$2 entries=$3 check
    shift 3
    taskset -c 0 "$LARDER_BIN" serve --host 127.0.0.1 --port "$port" --db "$db" --max-size 0 "$@" \
        --access-log false --log-level warning >"$MILLION_DIR/larder.log" 2>&1 &
    STORE_PID=$!
    wait_http "$port" /livez
    check=$(curl -s -o /dev/null -w '%header{x-cache}' \
        "http://127.0.0.1:$port/fetch?url=https://bench.example/items/$((entries - 1))")
    [[ $check == HIT ]] || { echo "not a hit from $db: $check" >&2; cat "$MILLION_DIR/larder.log" >&2; exit 1; }
    for _ in $(seq 100); do
        curl -s "http://127.0.0.1:$port/metrics" | grep -q '^larder_store_key_filter_bytes [1-9]' && break
        sleep 0.1
    done
}

stop_store() {
    [[ -n $STORE_PID ]] && kill "$STORE_PID" 2>/dev/null && wait "$STORE_PID" 2>/dev/null || true
    STORE_PID=""
}
