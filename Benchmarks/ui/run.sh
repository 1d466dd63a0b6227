#!/usr/bin/env bash
# Does an open operator page cost /fetch anything? 1 KiB hits with the page closed (A) and open (B).
#
# larder (release, --event-loops 1, an admin token) is pinned to CPU 0; wrk -t1 -c64 on CPU 1 asks for
# one stored 1 KiB body (random bytes, so the memory tier answers, as it does for a hot 1 KiB image); the
# nginx origin also sits on CPU 1 and must see no request while wrk runs (every measured answer a hit).
# Rounds are interleaved, A B in odd rounds and B A in even ones (so a drift of the machine during a round
# does not always fall on the same side); medians of requests/s and p99, and the ratio B/A.
#
# B is the page open and refreshing itself every 2 s, in one of two forms (PAGE):
#   chromium  headless Chromium (Debian's package, driven by Benchmarks/ui/page.py through Playwright),
#             logged in through the form, on the in-flight view: each refresh is GET /metrics and
#             GET /fetches with the session cookie. Chromium runs on CPU 1, beside wrk.
#   loop      the same two requests every 2 s from curl with a session cookie from POST /ui/login: no
#             browser on the machine, nothing but the page's load on larder.
# Both count the refreshes made during the round; a B round with fewer than DURATION/2 - 1 fails.
#
#   Benchmarks/ui/run.sh                        # 5 rounds of 10 s, PAGE=chromium
#   PAGE=loop ROUNDS=5 DURATION=10s Benchmarks/ui/run.sh
#   ROUNDS=1 DURATION=3s Benchmarks/ui/run.sh   # a quick look
#
# The machine this runs on is shared: the load average is printed beside each run (loadavg's first field
# as the run starts), and the CPU time the hypervisor stole during it.
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/lib.sh

ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-10s}
PAGE=${PAGE:-chromium}
LARDER_PORT=${LARDER_PORT:-18290}
ORIGIN_PORT=${ORIGIN_PORT:-18292}
TOKEN=bench-ui-token-0123456789
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS must be a whole number of 1 or more, not '$ROUNDS'" >&2; exit 2; }
[[ $DURATION =~ ^[1-9][0-9]*s$ ]] || { echo "DURATION is seconds, like 10s, not '$DURATION'" >&2; exit 2; }
[[ $PAGE =~ ^(chromium|loop)$ ]] || { echo "PAGE is chromium or loop, not '$PAGE'" >&2; exit 2; }

need_tools wrk nginx taskset curl python3
if [ "$PAGE" = chromium ]; then
    need_tools chromium
    python3 -c 'import playwright' 2>/dev/null ||
        { echo "PAGE=chromium needs Playwright for Python (scripts/check-ui.sh installs it)" >&2; exit 1; }
fi
build_larder

WORK=$(mktemp -d)
PIDS=()
PAGE_PID=
cleanup() {
    [ -n "$PAGE_PID" ] && kill "$PAGE_PID" 2>/dev/null
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

mkdir -p "$WORK/files"
head -c 1024 /dev/urandom >"$WORK/files/1k.bin"
start_fetch_origin "$ORIGIN_PORT"
taskset -c 0 "$LARDER_BIN" serve --host 127.0.0.1 --port "$LARDER_PORT" --db "$WORK/larder.db" --access-log false \
    --log-level warning --event-loops 1 --allow-network 127.0.0.0/8 --admin-token "$TOKEN" >"$WORK/larder.log" 2>&1 &
PIDS+=($!)
wait_http "$LARDER_PORT" /livez

URL="http://127.0.0.1:$LARDER_PORT/fetch?url=http://127.0.0.1:$ORIGIN_PORT/1k.bin"
for _ in $(seq 50); do
    curl -s -o /dev/null -D "$WORK/head" "$URL"
    grep -qi "x-cache: HIT" "$WORK/head" && break
    sleep 0.2
done
grep -qi "x-cache: HIT" "$WORK/head" || { echo "no HIT for $URL" >&2; cat "$WORK/head" >&2; exit 1; }

# Opens the page (B); returns once its first refresh is answered.
page_open() {
    rm -f "$WORK/stop" "$WORK/page.out"
    if [ "$PAGE" = chromium ]; then
        taskset -c 1 python3 Benchmarks/ui/page.py --base "http://127.0.0.1:$LARDER_PORT" --token "$TOKEN" \
            --chromium "$(command -v chromium)" --stop "$WORK/stop" >"$WORK/page.out" 2>&1 &
    else
        curl -s -o /dev/null -c "$WORK/jar" -X POST "http://127.0.0.1:$LARDER_PORT/ui/login" --data "token=$TOKEN"
        taskset -c 1 bash -c '
            refreshes=0 failed=0
            while [ ! -e "$1/stop" ]; do
                for path in /metrics /fetches; do
                    code=$(curl -s -o /dev/null -w "%{http_code}" -b "$1/jar" "http://127.0.0.1:$2$path")
                    [ "$code" = 200 ] || failed=$((failed + 1))
                done
                refreshes=$((refreshes + 1))
                [ "$refreshes" = 1 ] && echo ready
                sleep 2
            done
            echo "refreshes $refreshes fetches $refreshes failed $failed"' loop "$WORK" "$LARDER_PORT" >"$WORK/page.out" &
    fi
    PAGE_PID=$!
    for _ in $(seq 300); do
        grep -q '^ready' "$WORK/page.out" 2>/dev/null && return 0
        kill -0 "$PAGE_PID" 2>/dev/null || break
        sleep 0.1
    done
    echo "the page did not open:" >&2
    cat "$WORK/page.out" >&2
    exit 1
}

# Closes the page; sets REFRESHES and FAILED to what it counted while open (not in a subshell: it waits
# for the page's process).
page_close() {
    touch "$WORK/stop"
    wait "$PAGE_PID" || { echo "the page failed:" >&2; cat "$WORK/page.out" >&2; exit 1; }
    PAGE_PID=
    read -r REFRESHES FAILED < <(awk '/^refreshes/ { print $2, $6 }' "$WORK/page.out")
}

seconds=${DURATION%s}
printf "%-5s %-4s %10s %9s %8s %7s %10s\n" round side "requests/s" "p99 ms" "load" "steal%" refreshes
for round in $(seq "$ROUNDS"); do
    if ((round % 2)); then order="A B"; else order="B A"; fi
    for side in $order; do
        [ "$side" = B ] && page_open
        before=$(origin_requests)
        load=$(cut -d' ' -f1 /proc/loadavg)
        ticks=$(cpu_ticks)
        read -r rps p99 bad answered < <(DURATION=$DURATION measure "$URL")
        steal=$(steal_since "$ticks")
        refreshes=-
        if [ "$side" = B ]; then
            page_close
            refreshes=$REFRESHES
            [ "$FAILED" = 0 ] || { echo "round $round: $FAILED refresh requests failed" >&2; exit 1; }
            ((refreshes >= seconds / 2 - 1)) ||
                { echo "round $round: only $refreshes refreshes in $seconds s" >&2; exit 1; }
        fi
        [ "$bad" = 0 ] || { echo "round $round $side: $bad non-2xx answers of $answered" >&2; exit 1; }
        [ "$(origin_requests)" = "$before" ] ||
            { echo "round $round $side: the origin was asked during the run (not every answer a hit)" >&2; exit 1; }
        printf "%-5s %-4s %10s %9s %8s %7s %10s\n" "$round" "$side" "$rps" "$p99" "$load" "$steal" "$refreshes"
        echo "$side $rps $p99" >>"$WORK/figures"
    done
done

med() { awk -v s="$1" -v f="$2" '$1 == s { print $f }' "$WORK/figures" | median; }
a_rps=$(med A 2)
b_rps=$(med B 2)
echo
echo "medians over $ROUNDS rounds of $DURATION, page as $PAGE:"
printf "  A (no page)    %8.0f requests/s, p99 %s ms\n" "$a_rps" "$(med A 3)"
printf "  B (page open)  %8.0f requests/s, p99 %s ms\n" "$b_rps" "$(med B 3)"
awk -v a="$a_rps" -v b="$b_rps" 'BEGIN { printf "  B/A            %8.3f\n", b / a }'
