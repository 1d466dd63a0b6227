#!/usr/bin/env bash
# Scale-out check (CI): three `larder serve` replicas on loopback behind Debian's nginx running
# docker/nginx.conf (addresses rewritten for loopback), and a loopback origin that counts requests.
# Asserts that
#   1. one URL always lands on one replica (its key is stored on exactly one replica, repeats are HITs),
#      and the hash spreads URLs over more than one replica;
#   2. coalescing holds across the front: N concurrent requests for a slow URL reach the origin once;
#   3. `larder fanout ... DELETE /cache` empties every replica (and fails without the admin token).
# Uses .build/release/larder when check-container.sh built it, else the debug binary ($LARDER_BIN wins).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

bin=$(source scripts/lib-processes.sh && larder_binary)
command -v nginx >/dev/null || { echo "check-scale-out: nginx is missing (apt-get install nginx-light)"; exit 1; }

work=$(mktemp -d /tmp/larder-scale-out.XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    [[ -f $work/nginx.pid ]] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
fail() {
    echo "check-scale-out: FAIL: $*"
    for log in "$work"/*.log; do echo "--- $log"; tail -n 20 "$log"; done
    exit 1
}
token=scale-out-token

# waits (10 s at most) for "listening on 127.0.0.1:PORT" in a log and prints PORT
port_from_log() {
    for _ in $(seq 100); do
        if port=$(grep -o 'listening on 127.0.0.1:[0-9]*' "$1" 2>/dev/null | head -n1 | cut -d: -f2) && [[ -n $port ]]; then
            echo "$port"
            return 0
        fi
        sleep 0.1
    done
    return 1
}

# The origin: every path answers a cacheable body after an optional ?delay=seconds, and appends the
# path to requests.log, which is the count the assertions read.
cat >"$work/origin.py" <<'PY'
import http.server, sys, time, urllib.parse, threading
log = open(sys.argv[1], "a", buffering=1)
lock = threading.Lock()
class Origin(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        with lock:
            log.write(url.path + "\n")
        delay = float(urllib.parse.parse_qs(url.query).get("delay", ["0"])[0])
        time.sleep(delay)
        body = ("body of " + url.path + "\n").encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Cache-Control", "max-age=600")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Origin)
print("listening on 127.0.0.1:%d" % server.server_address[1], flush=True)
server.serve_forever()
PY
python3 "$work/origin.py" "$work/requests.log" >"$work/origin.log" 2>&1 &
pids+=($!)
origin_port=$(port_from_log "$work/origin.log") || fail "origin did not start"
touch "$work/requests.log"

replica_ports=()
for n in 1 2 3; do
    "$bin" serve --host 127.0.0.1 --port 0 --db "$work/replica-$n.db" --allow-network 127.0.0.0/8 \
        --admin-token "$token" --via-name "larder-$n" --access-log false >"$work/replica-$n.log" 2>&1 &
    pids+=($!)
done
for n in 1 2 3; do
    replica_ports+=("$(port_from_log "$work/replica-$n.log")") || fail "replica $n did not start"
done
peers="http://127.0.0.1:${replica_ports[0]},http://127.0.0.1:${replica_ports[1]},http://127.0.0.1:${replica_ports[2]}"

# The front: docker/nginx.conf with the compose service names and paths rewritten for loopback.
front_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
sed -e "s|server larder-1:8080;|server 127.0.0.1:${replica_ports[0]};|" \
    -e "s|server larder-2:8080;|server 127.0.0.1:${replica_ports[1]};|" \
    -e "s|server larder-3:8080;|server 127.0.0.1:${replica_ports[2]};|" \
    -e "s|listen 8080;|listen 127.0.0.1:$front_port;|" \
    -e "s|/tmp/|$work/|g" \
    docker/nginx.conf >"$work/nginx.conf"
grep -q "hash \$arg_url consistent;" "$work/nginx.conf" || fail "nginx.conf lost its consistent hash"
grep -q "larder-[123]:8080" "$work/nginx.conf" && fail "nginx.conf has a server line the rewrite missed"
nginx -t -q -c "$work/nginx.conf" -p "$work" -g "error_log $work/nginx-error.log;" || fail "nginx -t"
nginx -c "$work/nginx.conf" -p "$work" -g "error_log $work/nginx-error.log; daemon on;"
for _ in $(seq 50); do curl -fs -o /dev/null "http://127.0.0.1:$front_port/healthz" && break; sleep 0.1; done
curl -fs -o /dev/null "http://127.0.0.1:$front_port/healthz" || fail "nginx front does not answer"

front="http://127.0.0.1:$front_port"
origin="http://127.0.0.1:$origin_port"

# 1. One URL, one replica.
declare -A owners=()
for i in $(seq 1 24); do
    url="$origin/item/$i"
    key=""
    for attempt in 1 2 3; do
        headers=$(curl -fsS -D - -o /dev/null -G "$front/fetch" --data-urlencode "url=$url") || fail "fetch $url"
        this_key=$(tr -d '\r' <<<"$headers" | awk -F': ' 'tolower($1)=="x-cache-key"{print $2}')
        cache=$(tr -d '\r' <<<"$headers" | awk -F': ' 'tolower($1)=="x-cache"{print $2}')
        [[ -n $this_key ]] || fail "no X-Cache-Key for $url"
        [[ -z $key || $key == "$this_key" ]] || fail "$url changed key"
        key=$this_key
        if ((attempt > 1)) && [[ $cache != HIT ]]; then fail "$url attempt $attempt was $cache, not HIT"; fi
        # The entry is committed just after the response is sent: wait (5 s at most) until a replica has it.
        for _ in $(seq 50); do
            holders=()
            for n in 0 1 2; do
                status=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" \
                    "http://127.0.0.1:${replica_ports[$n]}/cache/$key/meta")
                [[ $status == 200 ]] && holders+=("$n")
            done
            ((${#holders[@]} > 0)) && break
            sleep 0.1
        done
    done
    ((${#holders[@]} == 1)) || fail "$url is stored on ${#holders[@]} replicas (${holders[*]:-none})"
    owners[${holders[0]}]=1
    [[ $(grep -cx "/item/$i" "$work/requests.log") == 1 ]] || fail "$url reached the origin more than once"
done
((${#owners[@]} >= 2)) || fail "24 URLs all hashed to one replica"
echo "check-scale-out: 24 URLs x 3 requests: each stored on exactly one replica (${#owners[@]} replicas used)"

# 2. Coalescing across the front.
concurrent=12
slow="$origin/slow/one?delay=1.5"
curls=()
for i in $(seq "$concurrent"); do
    curl -fsS -o "$work/slow.$i" -G "$front/fetch" --data-urlencode "url=$slow" &
    curls+=($!)
done
wait_failed=0
for pid in "${curls[@]}"; do wait "$pid" || wait_failed=1; done
((wait_failed == 0)) || fail "a concurrent fetch failed"
origin_hits=$(grep -cx "/slow/one" "$work/requests.log" || true)
((origin_hits == 1)) || fail "$concurrent concurrent requests reached the origin $origin_hits times"
bodies=$(cat "$work"/slow.* | sort -u)
[[ $bodies == "body of /slow/one" ]] || fail "the coalesced waiters got different bodies"
echo "check-scale-out: $concurrent concurrent requests through nginx, origin saw 1"

# 3. A fanned-out purge empties every replica.
listed() {
    curl -fsS -H "Authorization: Bearer $token" "http://127.0.0.1:$1/cache?limit=100" |
        python3 -c 'import json,sys; print(len(json.load(sys.stdin)["entries"]))'
}
for _ in $(seq 50); do
    stored=0
    for port in "${replica_ports[@]}"; do stored=$((stored + $(listed "$port"))); done
    ((stored == 25)) && break
    sleep 0.1
done
((stored == 25)) || fail "the replicas hold $stored entries before the purge, expected 25"
if "$bin" fanout --peers "$peers" DELETE /cache >"$work/fanout-denied.out" 2>&1; then
    fail "fanout without the token succeeded: $(cat "$work/fanout-denied.out")"
fi
grep -q " 401 " "$work/fanout-denied.out" || fail "fanout without the token: $(cat "$work/fanout-denied.out")"
LARDER_ADMIN_TOKEN=$token "$bin" fanout --peers "$peers" DELETE /cache | tee "$work/fanout.out" ||
    fail "fanout DELETE /cache failed"
[[ $(grep -c '"purged"' "$work/fanout.out") == 3 ]] || fail "not every replica answered the purge"
total=0
for n in 0 1 2; do
    count=$(listed "${replica_ports[$n]}")
    ((count == 0)) || fail "replica $((n + 1)) still lists $count entries after the purge"
    purged=$(grep "127.0.0.1:${replica_ports[$n]} " "$work/fanout.out" | grep -o '"purged": *[0-9]*' | grep -o '[0-9]*$')
    total=$((total + purged))
done
((total == 25)) || fail "the purges removed $total entries, expected 25"
echo "check-scale-out: fanout DELETE /cache purged $total entries; every replica is empty"
echo "check-scale-out: OK"
