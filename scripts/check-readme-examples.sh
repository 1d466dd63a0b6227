#!/usr/bin/env bash
# Runs README.md's endpoint examples against a real `larder serve` and a loopback origin, and fails
# when one breaks (issue 6: "curl examples that are run by a test, so they cannot rot").
#
# Which blocks run: every ```sh block of the "## Endpoints" section that follows a line
# `<!-- example -->`. They run in order in one bash shell (variables carry from line to line), with
# http://127.0.0.1:8080 replaced by the test server's address and 127.0.0.1:8000 by the test origin's.
# A block marked `<!-- example serve: SETTINGS -->` runs against a server of its own started with those
# settings besides the usual ones (a URL signing key, tokens); `larder` in a block is the binary tested.
# After a command, lines `#> ...` are checked against its last response:
#   #> 200              the status code
#   #> X-Cache: HIT     that header field with that value (a trailing ... means "starts with")
#   #> ~ "purged":      the body (what the command printed) contains the text
# A command with no status line must answer 2xx or 3xx. Every check has a timeout (curl --max-time).
# Each check fails when what it documents is absent (a header line needs the header, `...` a non-empty
# prefix match): the lib's self-test below breaks each kind once before anything runs.
#
# The quick start's try-it block (`<!-- try-it -->`) runs first, exactly as written (ports 8000 and 8080,
# the scripts it names), in network and PID namespaces of its own so that those ports are free and
# whatever it leaves running ends with it; LARDER_BIN stands in for the release build serve.sh would
# make, LARDER_DB and TMPDIR keep its files in the scratch directory. It needs root (CI runs as root);
# without namespaces it is skipped with a warning.
# LARDER_BIN picks the binary (default: the debug build).
set -euo pipefail
cd "$(dirname "$0")/.."
larder="${LARDER_BIN:-$(swift build --show-bin-path)/larder}"
lib="$PWD/scripts/readme-examples-lib.sh"
source scripts/lib-processes.sh

# Self-test of the checks: each kind must fail on a response that lacks what it documents, and pass on
# one that has it.
(
    export EXAMPLE_HEAD="$work/selftest-head" EXAMPLE_OUT="$work/selftest-out" EXAMPLE_COMMAND="self-test"
    source "$lib"
    printf 'HTTP/1.1 200 OK\r\nX-Cache: HIT\r\nAge: 3\r\n\r\n' >"$EXAMPLE_HEAD"
    echo '{"status":"ok"}' >"$EXAMPLE_OUT"
    passes() { (eval "$1") 2>/dev/null || { echo "self-test: '$1' fails on a response that has it" >&2; exit 1; }; }
    fails() { ! (eval "$1") 2>/dev/null || { echo "self-test: '$1' passes on a response without it" >&2; exit 1; }; }
    passes 'expect_status 200'; fails 'expect_status 206'
    passes 'expect_header X-Cache HIT'; fails 'expect_header X-Cache MISS'; fails 'expect_header Via larder'
    passes 'expect_header Age ...'; fails 'expect_header ETag ...'; fails 'expect_header Cache-Status "Larder; hit..."'
    passes "expect_body '\"status\":\"ok\"'"; fails "expect_body 'purged'"; fails "expect_body ''"
    passes 'expect_success'; printf 'HTTP/1.1 503 Busy\r\n\r\n' >"$EXAMPLE_HEAD"; EXAMPLE_COMMAND=curl fails 'expect_success'
)
echo "the README checks fail on a response without what they document (self-test)"

# The try-it block, exactly as the README has it.
python3 scripts/readme-examples.py README.md try-it "$work"
if unshare --net --pid --fork true 2>/dev/null; then
    mkdir -p "$work/try-it-tmp"
    if ! LARDER_BIN="$larder" LARDER_DB="$work/try-it.db" TMPDIR="$work/try-it-tmp" EXAMPLES_LIB="$lib" \
        EXAMPLE_HEAD="$work/head" EXAMPLE_OUT="$work/out" \
        timeout 60 unshare --net --pid --fork --kill-child bash -c 'ip link set lo up && bash "$0"' "$work/try-it.sh"
    then
        echo "check-readme-examples: the try-it block in README.md broke (above); its logs:" >&2
        tail -n 20 "$work"/try-it-tmp/*.log >&2 || true
        exit 1
    fi
    echo "the README's try-it block reached a HIT as documented"
else
    echo "check-readme-examples: WARNING: no network namespace (not root?); the try-it block was not run" >&2
fi

# The origin the README describes: a static-file server for a folder with these files.
mkdir -p "$work/origin/img" "$work/run"
python3 - "$work/origin" <<'PY'
import sys, zlib, struct
root = sys.argv[1]
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
raw = b"".join(b"\x00" + b"\x00\x00\x00" * 4 for _ in range(4))
png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0))
       + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
for name in ("logo.png", "img/a.png"):
    open(f"{root}/{name}", "wb").write(png)
open(f"{root}/data.json", "w").write('{"items": [' + ", ".join(f'{{"id": {i}}}' for i in range(200)) + "]}\n")
open(f"{root}/big.bin", "wb").write(bytes(range(256)) * 64)
PY
# Old files, so that the heuristic freshness (RFC 9111 §4.2.2) keeps them fresh for the examples,
# and a conditional dated after this answers 304.
find "$work/origin" -type f -exec touch -d '2026-01-01 00:00:00 UTC' {} +
# python's static-file server, and a POST answered 204 (the README forwards one through /fetch).
python3 -u - "$work/origin" >"$work/origin.log" 2>&1 <<'PY' &
import sys
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

class Handler(SimpleHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(204)
        self.end_headers()

server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Handler, directory=sys.argv[1]))
print(f"Serving HTTP on 127.0.0.1 port {server.server_address[1]}", flush=True)
server.serve_forever()
PY
pids+=($!)
origin_port=$(port_from_log "$work/origin.log" 'port [0-9]+')
"$larder" serve --host 127.0.0.1 --port 0 --db "$work/cache.db" --allow-network 127.0.0.0/8 \
    --access-log false >"$work/larder.log" 2>&1 &
pids+=($!)
port=$(port_from_log "$work/larder.log" 'listening on 127\.0\.0\.1:[0-9]+')

# Servers for the blocks that name settings of their own, one per distinct set, on the same origin.
python3 scripts/readme-examples.py README.md servers "$work/run"
server_ports=()
while IFS= read -r settings; do
    n=${#server_ports[@]}
    # Word splitting is meant: the settings are flags and values as the README writes them.
    # shellcheck disable=SC2086
    "$larder" serve --host 127.0.0.1 --port 0 --db "$work/cache-$n.db" --allow-network 127.0.0.0/8 \
        --access-log false $settings >"$work/larder-$n.log" 2>&1 &
    pids+=($!)
    server_ports+=("$(port_from_log "$work/larder-$n.log" 'listening on 127\.0\.0\.1:[0-9]+')")
done <"$work/run/servers.txt"

python3 scripts/readme-examples.py README.md example "$work/run" "$port" "$origin_port" "${server_ports[@]}"

# All blocks run in one shell, in README order, as a reader would run them in one terminal: a
# variable set in one block (ORIGIN) holds in the next, and the first broken example stops the run.
if ! (cd "$work/run" && EXAMPLES_LIB="$lib" EXAMPLE_HEAD="$work/head" EXAMPLE_OUT="$work/out" LARDER_BIN="$larder" \
    timeout 60 bash "$work/run/example.sh"); then
    echo "check-readme-examples: an example in README.md broke (above); larder's log:" >&2
    tail -20 "$work/larder.log" >&2
    exit 1
fi
echo "every README endpoint example ran as documented"
