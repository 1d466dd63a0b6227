# Shared by the check scripts that run servers (source it after `set -euo pipefail`): a scratch
# directory `$work`, background processes (append their PIDs to `pids`) stopped and the directory
# removed on exit, and port_from_log to learn a server's port from its log.
work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

# Waits (at most 10 s) for a pattern ending in a port in a log file; prints the port.
port_from_log() {
    local log=$1 pattern=$2 port=""
    for _ in $(seq 100); do
        port=$(grep -oE "$pattern" "$log" | grep -oE '[0-9]+$' | head -1 || true)
        [[ -n "$port" ]] && break
        sleep 0.1
    done
    [[ -n "$port" ]] || { echo "$(basename "$0"): no port in $log:" >&2; cat "$log" >&2; return 1; }
    echo "$port"
}

# Prints the larder binary the check scripts run: $LARDER_BIN, else the release build when
# check-container.sh made one, else the debug build (built when missing).
larder_binary() {
    local bin
    if [[ -n "${LARDER_BIN:-}" ]]; then
        bin=$LARDER_BIN
    elif [[ -x .build/release/larder ]]; then
        bin=.build/release/larder
    else
        [[ -x .build/debug/larder ]] || swift build --product larder >&2
        bin=.build/debug/larder
    fi
    realpath "$bin"
}
