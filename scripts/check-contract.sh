#!/usr/bin/env bash
# The API contract against the running server (issue 6): validates openapi.yaml, then runs
# schemathesis with all its checks against a live `larder serve` (temp database, admin token set)
# whose origin is a stub `python3 -m http.server` on loopback. Fails on any failure.
#
# Everything runs in a network namespace holding only loopback: schemathesis invents URLs for
# /fetch?url=, and none of them may reach a real network (or even a DNS server). Bounded in time:
# CONTRACT_MAX_EXAMPLES cases per operation (default 30), the whole run killed after
# CONTRACT_TIMEOUT seconds (default 400). CONTRACT_SEED (default 1) makes a run repeatable; set it to
# another number to explore other cases. LARDER_BIN picks the binary (default: the debug build).
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ -z "${LARDER_CONTRACT_NETNS:-}" ]]; then
    if ! unshare --net true 2>/dev/null; then
        echo "check-contract: cannot create a network namespace (run as root); refusing to fuzz /fetch" \
            "with a network in reach" >&2
        exit 1
    fi
    # Resolve the binary before leaving the network: swift build may need to fetch nothing, but
    # asking it inside a namespace is pointless.
    export LARDER_BIN="${LARDER_BIN:-$(swift build --show-bin-path)/larder}"
    if [[ ! -x "$LARDER_BIN" ]]; then
        swift build --product larder
    fi
    exec env LARDER_CONTRACT_NETNS=1 unshare --net bash -c 'ip link set lo up && exec "$0" "$@"' "$0" "$@"
fi

max_examples="${CONTRACT_MAX_EXAMPLES:-30}"
time_limit="${CONTRACT_TIMEOUT:-400}"
seed="${CONTRACT_SEED:-1}"
token="contract-$RANDOM$RANDOM"
source scripts/lib-processes.sh

echo "== openapi-spec-validator"
openapi-spec-validator openapi.yaml

mkdir -p "$work/origin"
printf 'hello from the stub origin\n' >"$work/origin/hello.txt"
printf '{"ok":true}\n' >"$work/origin/data.json"
python3 -u -m http.server --bind 127.0.0.1 --directory "$work/origin" 0 >"$work/origin.log" 2>&1 &
pids+=($!)
origin_port=$(port_from_log "$work/origin.log" 'port [0-9]+')

"$LARDER_BIN" serve --host 127.0.0.1 --port 0 --db "$work/cache.db" --admin-token "$token" \
    --allow-network 127.0.0.0/8 --connect-timeout 2 --origin-timeout 5 --access-log false \
    >"$work/larder.log" 2>&1 &
pids+=($!)
port=$(port_from_log "$work/larder.log" 'listening on 127\.0\.0\.1:[0-9]+')
base="http://127.0.0.1:$port"
echo "larder on $base, stub origin on 127.0.0.1:$origin_port"

# A few entries, so that /cache and /cache/{key} have something to answer about. Their keys and the
# origin's URLs are offered to schemathesis (a third of the time) next to what it invents, so that
# cache hits, stored bodies, ranges and metadata are checked against the schema too.
urls=() keys=()
for file in hello.txt data.json; do
    url="http://localhost:$origin_port/$file"
    key=$(curl -sf -o /dev/null -w '%header{x-cache-key}' "$base/fetch?url=$url")
    [[ "$key" =~ ^[0-9a-f]{64}$ ]] || { echo "check-contract: priming $url failed" >&2; exit 1; }
    urls+=("\"$url\"") keys+=("\"$key\"")
done
config="$work/schemathesis.toml"
cp scripts/schemathesis.toml "$config"
cat >>"$config" <<TOML

[dictionaries.origin-urls]
values = [$(IFS=,; echo "${urls[*]}")]

[dictionaries.cache-keys]
values = [$(IFS=,; echo "${keys[*]}")]

[parameters]
"query.url" = { dictionary = "origin-urls", probability = 0.3 }
"path.key" = { dictionary = "cache-keys", probability = 0.3 }
TOML

exclusions=()
# /metrics is in the contract, but its issue may not be merged into this build yet; test it once it is.
if [[ "$(curl -s -o /dev/null -w '%{http_code}' "$base/metrics")" == 404 ]]; then
    echo "note: this build has no /metrics yet; its operation is left out of this run" >&2
    exclusions+=(--exclude-path /metrics)
fi

echo "== schemathesis (all checks, $max_examples examples per operation, seed $seed)"
# Every check runs. Where the tool and the HTTP RFCs disagree (a stale If-Match is 412, an unreachable
# origin is 502) or the rule is one OpenAPI cannot state, scripts/schemathesis.toml widens the
# expected statuses of that check, for those operations only, with the reason written there; $config
# is that file plus the dictionaries above.
status=0
timeout --kill-after=10 "$time_limit" \
    schemathesis --config-file "$config" run openapi.yaml --url "$base" \
    --checks all \
    -H "Authorization: Bearer $token" \
    --max-examples "$max_examples" --seed "$seed" --workers 1 \
    --request-timeout 15 --no-color \
    "${exclusions[@]}" || status=$?
if [[ $status -ne 0 ]]; then
    echo "check-contract: schemathesis failed (exit $status); larder's log:" >&2
    tail -50 "$work/larder.log" >&2
    exit "$status"
fi
echo "contract holds: openapi.yaml is valid and schemathesis found nothing"
