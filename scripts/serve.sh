#!/usr/bin/env bash
# Quick start: installs the system libraries if missing, builds a release binary and starts Larder
# on its embedded default (./larder.db, port 8080). Extra arguments go to `larder serve`.
#
#   scripts/serve.sh [--background] [larder serve flags...]
#
# --background returns once the server is ready (GET /readyz), leaving it running with its log in
# $TMPDIR/larder-serve.log; stop it with the kill command it prints (SIGTERM drains it).
# LARDER_BIN runs that binary instead of building one (the README check uses the debug build).
set -euo pipefail
cd "$(dirname "$0")/.."
background=0
if [[ "${1:-}" == "--background" ]]; then background=1; shift; fi
larder="${LARDER_BIN:-}"
if [[ -z "$larder" ]]; then
    scripts/install-deps.sh
    swift build -c release --product larder
    larder=.build/release/larder
fi
if ((background == 0)); then exec "$larder" serve "$@"; fi

log="${TMPDIR:-/tmp}/larder-serve.log"
"$larder" serve "$@" >"$log" 2>&1 &
pid=$!
for _ in $(seq 300); do
    if address=$(grep -o 'listening on [^ ]*' "$log" | head -1 | cut -d' ' -f3) && [[ -n "$address" ]]; then
        host=${address%:*}
        port=${address##*:}
        [[ "$host" == "0.0.0.0" || "$host" == "::" ]] && host=127.0.0.1
        if curl -sf -o /dev/null "http://$host:$port/readyz"; then
            echo "larder on http://$host:$port (log: $log); stop it with: kill $pid"
            exit 0
        fi
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
echo "serve: larder did not become ready; its log:" >&2
cat "$log" >&2
exit 1
