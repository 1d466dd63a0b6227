#!/usr/bin/env bash
# A demo origin for trying Larder: serves a PNG, a JSON document and a 1 MiB binary on loopback with the
# caching headers of an ordinary static-file server (Cache-Control: public, max-age=3600, Last-Modified),
# so that Larder's second fetch of a file is a HIT; a POST to any path is 204.
#
#   scripts/demo-origin.sh [--background] [port]     (port 8000 by default)
#
# The files are written to $TMPDIR/larder-demo-origin (a fresh copy each time). --background returns once
# the origin answers, leaving it running (its log: $TMPDIR/larder-demo-origin.log); stop it with the kill
# command it prints.
set -euo pipefail
background=0
if [[ "${1:-}" == "--background" ]]; then background=1; shift; fi
port="${1:-8000}"
root="${TMPDIR:-/tmp}/larder-demo-origin"
log="${TMPDIR:-/tmp}/larder-demo-origin.log"
rm -rf "$root"
mkdir -p "$root/img"

python3 - "$root" <<'PY'
import json, os, struct, sys, zlib
root = sys.argv[1]
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
def png(width, height):
    raw = b"".join(b"\x00" + b"".join(bytes((x * 255 // width, y * 255 // height, 160)) for x in range(width))
                   for y in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
open(f"{root}/logo.png", "wb").write(png(64, 64))
open(f"{root}/img/a.png", "wb").write(png(16, 16))
items = [{"id": i, "name": f"item {i}", "tags": ["demo", "larder"]} for i in range(200)]
open(f"{root}/data.json", "w").write(json.dumps({"items": items}) + "\n")
open(f"{root}/big.bin", "wb").write(os.urandom(1 << 20))
PY

serve() {
    exec python3 -u - "$root" "$port" <<'PY'
import sys
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

class CachingHandler(SimpleHTTPRequestHandler):
    """A static-file server as commonly configured: files may be cached for an hour."""
    def end_headers(self):
        self.send_header("Cache-Control", "public, max-age=3600")
        super().end_headers()

    def do_POST(self):
        """A form endpoint on every path: the body is read and forgotten, 204 (what /fetch forwards)."""
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(204)
        self.end_headers()

root, port = sys.argv[1], int(sys.argv[2])
server = ThreadingHTTPServer(("127.0.0.1", port), partial(CachingHandler, directory=root))
print(f"demo origin on http://127.0.0.1:{port}/ (logo.png, img/a.png, data.json, big.bin; max-age=3600)", flush=True)
server.serve_forever()
PY
}

if ((background == 0)); then serve; fi
serve >"$log" 2>&1 &
pid=$!
for _ in $(seq 100); do
    if curl -sf -o /dev/null "http://127.0.0.1:$port/data.json"; then
        echo "demo origin on http://127.0.0.1:$port/ (logo.png, img/a.png, data.json, big.bin); stop it with: kill $pid"
        exit 0
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
echo "demo-origin: the origin did not start; its log:" >&2
cat "$log" >&2
exit 1
