#!/usr/bin/env bash
# In-flight memory check (CI): large misses do not live in memory (docs/ARCHITECTURE.md, "Memory").
# Runs `larder serve` with --in-flight-bytes 64M against a loopback origin and asserts that
#   1. ten concurrent misses of different 100 MB bodies are relayed SHA-256-exact, stored, and served
#      again as HITs SHA-256-exact, while the process's anonymous and shared RSS (RssAnon + RssShmem,
#      sampled every 50 ms; file-backed pages are printed apart) stays
#      within its value before the flood + the bound + 32 MiB;
#   2. a body that is not stored (storable, but over its filter's maxBytes) to two coalesced callers,
#      one of them reading at 1 MB/s, reaches both exact, with one origin request, and the same peak
#      bound (the origin waits for the slow caller). Not a no-store body: RFC 9111 §5.2.2.5 forbids using
#      one for any request but its own, so collapsed callers of a no-store response each fetch their own.
# SIZE_MB (default 100) sizes the bodies; SLOW_MB (default 24) is what the slow caller reads of the
# unstored body at 1 MB/s (all of it at 100 takes 100 s, past the default --origin-timeout of 60 s).
# Uses .build/release/larder when check-container.sh built it, else the debug binary ($LARDER_BIN wins).
set -euo pipefail
cd "$(dirname "$0")/.."

size_mb=${SIZE_MB:-100}
slow_mb=${SLOW_MB:-24}
bound_mb=64

source scripts/lib-processes.sh
bin=$(larder_binary)
fail() {
    echo "check-in-flight-memory: FAIL: $*"
    for log in "$work"/*.log; do echo "--- $log"; tail -n 20 "$log"; done
    exit 1
}

cat >"$work/bodies.py" <<'PY'
import hashlib

BLOCK = 1 << 20

def block(seed, index):
    """1 MiB of the body `seed`: a fixed pseudo-random block, its first bytes made unique per block."""
    base = hashlib.shake_256(b"larder-%d" % seed).digest(BLOCK)
    return (b"%d:%d:" % (seed, index)).ljust(32, b"-") + base[32:]

def digest(seed, size):
    h = hashlib.sha256()
    for index in range(size // BLOCK):
        h.update(block(seed, index))
    return h.hexdigest()
PY

cat >"$work/origin.py" <<'PY'
import http.server, sys, threading, time
sys.path.insert(0, sys.argv[2])
from bodies import block, BLOCK
log = open(sys.argv[1], "a", buffering=1)
class Origin(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        # /<kind>/<seed>/<megabytes>: kind "store" is stored, "private" is over its filter's maxBytes
        _, kind, seed, megabytes = self.path.split("/")
        seed, size = int(seed), int(megabytes) * BLOCK
        log.write(self.path + "\n")
        if kind == "private":
            time.sleep(0.5)  # both callers join the one fetch before its head
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(size))
        self.send_header("Cache-Control", "max-age=3600")
        self.end_headers()
        base = block(seed, 0)[32:]
        try:
            for index in range(size // BLOCK):
                self.wfile.write((b"%d:%d:" % (seed, index)).ljust(32, b"-") + base)
        except (BrokenPipeError, ConnectionResetError):
            pass
    def log_message(self, *args):
        pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Origin)
print(server.server_address[1], flush=True)
server.serve_forever()
PY

python3 "$work/origin.py" "$work/requests.log" "$work" >"$work/origin.port" 2>"$work/origin.log" &
pids+=($!)
for _ in $(seq 100); do [[ -s $work/origin.port ]] && break; sleep 0.1; done
origin_port=$(cat "$work/origin.port")

"$bin" serve --host 127.0.0.1 --port 0 --db "$work/cache.db" --max-size 0 --access-log false \
    --allow-network 127.0.0.0/8 --in-flight-bytes "${bound_mb}M" --origin-timeout 300 \
    >"$work/larder.log" 2>&1 &
larder_pid=$!
pids+=("$larder_pid")
port=$(port_from_log "$work/larder.log" 'listening on 127.0.0.1:[0-9]+') || true
[[ -n $port ]] || fail "larder did not start"

# Responses under /private/ are never stored: a filter in front of the defaults caps them at 1 MB.
curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$port/filters?before=images" \
    -H 'Content-Type: application/json' \
    -d '{"name": "relayed", "match": {"pathPrefix": "/private/"}, "action": "cache", "maxBytes": 1000000}' \
    | grep -q 201 || fail "the relayed filter was not added"

rss_kib() { awk -v field="$1" '$1 == field":" { print $2 }' "/proc/$larder_pid/status"; }
anon_kib() { awk '$1 == "RssAnon:" || $1 == "RssShmem:" { sum += $2 } END { print sum }' "/proc/$larder_pid/status"; }

# Samples anonymous + shared RSS and file-backed RSS every 50 ms into $work/samples until told to stop.
sample() {
    : >"$work/samples"
    while [[ ! -e $work/stop-sampling ]]; do
        echo "$(anon_kib) $(rss_kib RssFile)" >>"$work/samples"
        sleep 0.05
    done
    rm -f "$work/stop-sampling"
}
measure() {
    sample &
    local sampler=$!
    "$@" || { touch "$work/stop-sampling"; wait "$sampler"; return 1; }
    touch "$work/stop-sampling"
    wait "$sampler"
    peak_kib=$(awk '$1 > m { m = $1 } END { print m }' "$work/samples")
    file_kib=$(awk '$2 > m { m = $2 } END { print m }' "$work/samples")
}

cat >"$work/client.py" <<'PY'
import hashlib, http.client, json, sys, threading, time, urllib.parse
sys.path.insert(0, sys.argv[1])
from bodies import digest
port, origin, mode, size_mb, slow_mb = int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6])

def fetch(path, rate=None, limit=None):
    """GET /fetch of an origin path; SHA-256 of the body, X-Cache, and bytes read."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    connection.request("GET", "/fetch?url=" + urllib.parse.quote(origin + path, safe=""))
    response = connection.getresponse()
    h, got, started = hashlib.sha256(), 0, time.monotonic()
    while True:
        piece = response.read(64 << 10)
        if not piece:
            break
        h.update(piece)
        got += len(piece)
        if rate and (limit is None or got < limit):
            # paced: got bytes may have taken no less than got / rate seconds
            delay = got / rate - (time.monotonic() - started)
            if delay > 0:
                time.sleep(delay)
    return {"status": response.status, "sha": h.hexdigest(), "bytes": got, "xcache": response.getheader("X-Cache")}

def run(jobs):
    results = [None] * len(jobs)
    def work(i, job):
        try:
            results[i] = fetch(*job)
        except Exception as error:
            results[i] = {"error": repr(error)}
    threads = [threading.Thread(target=work, args=(i, job)) for i, job in enumerate(jobs)]
    for t in threads: t.start(); time.sleep(0.01)
    for t in threads: t.join()
    return results

size = size_mb << 20
failures = []
if mode == "stored":
    paths = ["/store/%d/%d" % (seed, size_mb) for seed in range(10)]
    for label in ("miss", "hit"):
        for seed, result in enumerate(run([(path,) for path in paths])):
            if result.get("sha") != digest(seed, size) or result.get("bytes") != size:
                failures.append("%s %d: %s" % (label, seed, result))
            elif label == "hit" and result["xcache"] != "HIT":
                failures.append("hit %d answered %s" % (seed, result["xcache"]))
else:
    path = "/private/77/%d" % size_mb
    results = run([(path, None, None), (path, 1 << 20, slow_mb << 20)])
    for result in results:
        if result.get("sha") != digest(77, size) or result.get("bytes") != size:
            failures.append("unstored: %s" % result)
if failures:
    print(json.dumps(failures))
sys.exit(1 if failures else 0)
PY

# Warm up (a few small fetches), then the baseline.
python3 "$work/client.py" "$work" "$port" "http://127.0.0.1:$origin_port" stored 1 0 >/dev/null || fail "warm-up"
base_kib=$(anon_kib)
limit_kib=$((base_kib + (bound_mb + 32) * 1024))
client() { python3 "$work/client.py" "$work" "$port" "http://127.0.0.1:$origin_port" "$@"; }

start=$(date +%s)
measure client stored "$size_mb" 0 || fail "ten ${size_mb} MB misses and hits were not all exact"
echo "check-in-flight-memory: 10 x ${size_mb} MB misses then hits in $(($(date +%s) - start)) s;" \
    "anonymous RSS before $((base_kib / 1024)) MiB, peak $((peak_kib / 1024)) MiB (limit $((limit_kib / 1024)) MiB);" \
    "file-backed peak $((file_kib / 1024)) MiB"
((peak_kib <= limit_kib)) || fail "peak anonymous RSS ${peak_kib} KiB over ${limit_kib} KiB"

start=$(date +%s)
measure client private "$size_mb" "$slow_mb" || fail "the unstored body did not reach both callers exact"
requests=$(grep -c "^/private/77/" "$work/requests.log")
[[ $requests == 1 ]] || fail "the unstored body took $requests origin requests (want 1, coalesced)"
echo "check-in-flight-memory: ${size_mb} MB unstored (over maxBytes) to a fast and a 1 MB/s caller in $(($(date +%s) - start)) s;" \
    "anonymous RSS peak $((peak_kib / 1024)) MiB (limit $((limit_kib / 1024)) MiB)"
((peak_kib <= limit_kib)) || fail "peak anonymous RSS ${peak_kib} KiB over ${limit_kib} KiB"
echo "check-in-flight-memory: OK"
