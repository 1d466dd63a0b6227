#!/usr/bin/env bash
# /fetch benchmark: larder against nginx proxy_cache, both caching one local nginx origin set up as an
# ordinary compressing web server (text and JSON gzipped for callers that accept it, `Vary:
# Accept-Encoding` on them; `Cache-Control: public, max-age=3600` on everything), with the bodies and
# callers users have. Benchmarks/fetch/README.md describes the method and what nginx does in each case.
#
# Hits. Each case (CASES) is a body and a caller, <kind><size>[-gz]:
#   text1k      1 KiB of English-like text (the origin sends Vary), identity caller (no Accept-Encoding)
#   jpeg16k     a 16 KiB JPEG (no Vary)
#   bin256k     256 KiB of random bytes (no Vary)
#   bin4m       4 MiB of random bytes (no Vary)
#   json64k     a 64 KiB JSON document (Vary), identity caller
#   json64k-gz  the same document, gzip caller (Accept-Encoding: gzip): answered Content-Encoding: gzip
# Kinds are text, json, jpeg and bin; sizes 1k, 64k, 4m or bytes. larder runs once per memory tier setting
# (TIERS="on off": its defaults, and --hot-bytes 0, every hit read from SQLite), each its own process and
# database; every round runs each tier and nginx in turn (ROUNDS interleaved rounds, medians). The cache
# under test is on CPU 0 (larder with --event-loops 1), wrk and the origin on CPU 1. Every measured
# response is a hit: the origin logs each request, and a run during which it saw one, or in which wrk saw a
# non-2xx answer, fails the script; before the runs, each server's answer is checked to be a HIT with the
# origin's bytes in the caller's encoding. A round during which the hypervisor stole more than STEAL_MAX
# percent of the CPU is run again (STEAL_RETRIES times), then kept but left out of the medians.
#
# Misses. Sequential cold fetches of the first case's body (first byte and total against the origin
# directly; MISSES of them, 0 for none), then floods (MISS_CASES, each case:duration or a case alone for
# MISS_DURATION, 20s; "" for none): MISS_CONNECTIONS callers, every request a new URL (unique.lua),
# MISS_ROUNDS interleaved rounds, larder with the first tier in TIERS, larder first in odd rounds and nginx in
# even ones, each flood after a `sync` (settle_writeback). Answered misses/s and p99 for both;
# and what each stored: for larder, after each flood the script waits until no origin fetch is in flight
# (every body committed or given up) and counts that flood's rows in its SQLite file; for nginx, the cache
# files written. The share stored is of the misses the origin saw. Each server's CPU time (user and system
# apart, from /proc) a stored miss: larder's from the flood's start to its last commit, nginx's to a second
# after its flood; the split says whether a gap is the kernel's work (sockets, files) or the program's.
# Finally up to MISS_SAMPLE of larder's stored entries are read back through /fetch, each of which must be
# a HIT with the origin's bytes. Both caches run unbounded (larder --max-size 0, nginx without max_size)
# so that nothing stored is evicted before it is counted.
#
#   Benchmarks/fetch/run.sh                                   # the published run, about 25 minutes
#   ROUNDS=1 DURATION=2s CASES="text1k json64k-gz" MISS_CASES="text1k:3s" MISS_ROUNDS=1 Benchmarks/fetch/run.sh
#   TIERS=on CASES=bin1k MISS_CASES="" Benchmarks/fetch/run.sh  # the old easy case: random bytes, no Vary
#   PREFILL=1000000 CASES=text1k Benchmarks/fetch/run.sh      # a million other entries stored first
#   LARDER_ARGS="--hot-max-entry 8M" Benchmarks/fetch/run.sh  # extra flags for every larder serve
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/lib.sh

if [ -n "${SIZES:-}" ]; then
    echo "SIZES is now CASES, <kind><size>[-gz] (e.g. CASES=\"text1k bin256k json64k-gz\"): see the top of $0" >&2
    exit 2
fi
ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-5s}
CONNECTIONS=${CONNECTIONS:-64}
CASES=${CASES:-"text1k jpeg16k bin256k bin4m json64k json64k-gz"}
TIERS=${TIERS:-"on off"}
STEAL_MAX=${STEAL_MAX:-2}
STEAL_RETRIES=${STEAL_RETRIES:-2}
MISSES=${MISSES:-200}
# Set but empty (MISS_CASES=""), no floods.
MISS_CASES=${MISS_CASES-"text1k:60s jpeg16k:20s"}
MISS_ROUNDS=${MISS_ROUNDS:-5}
MISS_CONNECTIONS=${MISS_CONNECTIONS:-32}
MISS_SAMPLE=${MISS_SAMPLE:-1000}
PREFILL=${PREFILL:-0}
LARDER_PORT=${LARDER_PORT:-18090}
CACHE_PORT=${CACHE_PORT:-18091}
ORIGIN_PORT=${ORIGIN_PORT:-18092}
# The port of the --hot-bytes 0 larder; not LARDER_*, which names serve's settings (EnvironmentAuditTests).
TIER_OFF_PORT=${TIER_OFF_PORT:-18093}
# Lists with stray spaces (CASES=" text1k") still name their first item first.
CASES=$(xargs <<<"$CASES")
TIERS=$(xargs <<<"$TIERS")

# A case's parts: kind (text, json, jpeg, bin), size name (1k), whether the caller accepts gzip.
case_kind() { local base=${1%-gz}; echo "${base%%[0-9]*}"; }
case_size() { local base=${1%-gz}; echo "${base#"$(case_kind "$1")"}"; }
case_file() {
    local base=${1%-gz}
    case $(case_kind "$1") in
        text) echo "$base.txt" ;;
        json) echo "$base.json" ;;
        jpeg) echo "$base.jpg" ;;
        *) echo "$base.bin" ;;
    esac
}
gzip_caller() { [[ $1 == *-gz ]]; }
# The origin compresses (and sends Vary for) text and JSON only, as gzip_types in origin-server.conf says.
compressible() { case $(case_kind "$1") in text | json) return 0 ;; *) return 1 ;; esac; }
# The wrk and curl options of a case's caller, in CALLER.
set_caller() { if gzip_caller "$1"; then CALLER=(-H "Accept-Encoding: gzip"); else CALLER=(); fi; }
# A column title for the tables: "1 KiB text (Vary), identity caller".
case_title() {
    local size kind
    size=$(case_size "$1")
    case $size in *k) size="${size%k} KiB" ;; *m) size="${size%m} MiB" ;; *) size="$size B" ;; esac
    case $(case_kind "$1") in
        text) kind="text (Vary)" ;;
        json) kind="JSON (Vary)" ;;
        jpeg) kind=JPEG ;;
        *) kind=binary ;;
    esac
    if compressible "$1"; then
        if gzip_caller "$1"; then kind="$kind, gzip caller"; else kind="$kind, identity caller"; fi
    elif gzip_caller "$1"; then
        kind="$kind, gzip caller"
    fi
    echo "$size $kind"
}
miss_case() { echo "${1%%:*}"; }
miss_duration() { if [[ $1 == *:* ]]; then echo "${1#*:}"; else echo "${MISS_DURATION:-20s}"; fi; }
seconds_of() { # a wrk duration (5s, 1m)
    case $1 in *s) echo "${1%s}" ;; *m) echo $((${1%m} * 60)) ;; *) echo "$1" ;; esac
}

# Bad settings fail before anything is built or started.
for c in $CASES $(for m in $MISS_CASES; do miss_case "$m"; done); do
    if ! [[ $(case_kind "$c") =~ ^(text|json|jpeg|bin)$ && $(case_size "$c") =~ ^[0-9]+[km]?$ ]]; then
        echo "case '$c' is not <text|json|jpeg|bin><size>[-gz] (e.g. text1k, jpeg16k, json64k-gz)" >&2
        exit 2
    fi
done
for m in $MISS_CASES; do
    [[ $(miss_duration "$m") =~ ^[0-9]+[sm]$ ]] ||
        { echo "miss case '$m' is not case:duration (e.g. text1k:60s)" >&2; exit 2; }
done
for tier in $TIERS; do
    [[ $tier =~ ^(on|off)$ ]] || { echo "TIERS takes on and off, not '$tier'" >&2; exit 2; }
done
[ -n "$TIERS" ] || { echo "TIERS is empty" >&2; exit 2; }
[ "$(tr ' ' '\n' <<<"$TIERS" | grep -c .)" = "$(tr ' ' '\n' <<<"$TIERS" | grep . | sort -u | wc -l)" ] ||
    { echo "TIERS names a tier twice: $TIERS" >&2; exit 2; }
for name in ROUNDS MISS_ROUNDS MISS_CONNECTIONS MISS_SAMPLE; do
    [[ ${!name} =~ ^[1-9][0-9]*$ ]] || { echo "$name must be a whole number of 1 or more, not '${!name}'" >&2; exit 2; }
done
for name in MISSES STEAL_RETRIES PREFILL; do
    [[ ${!name} =~ ^[0-9]+$ ]] || { echo "$name must be a whole number, not '${!name}'" >&2; exit 2; }
done
[[ $STEAL_MAX =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "STEAL_MAX must be a percentage, not '$STEAL_MAX'" >&2; exit 2; }
[ -n "$CASES" ] || { echo "CASES is empty" >&2; exit 2; }

need_tools wrk nginx taskset curl python3 sqlite3 gzip
build_larder

WORK=$(mktemp -d)
PIDS=()
cleanup() {
    if [ -n "${KEEP_LOGS:-}" ]; then cat "$WORK"/*.log >&2; fi
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "$*" >&2; exit 1; }

# nginx workers run as an unprivileged user when started as root: the files and caches must be theirs to use.
chmod 755 "$WORK"
mkdir -p "$WORK/files"
specs=()
first=${CASES%% *}
for c in $CASES $(for m in $MISS_CASES; do miss_case "$m"; done); do
    spec="$(case_kind "$c"):$(size_bytes "$(case_size "$c")"):$(case_file "$c")"
    [[ " ${specs[*]} " == *" $spec "* ]] || specs+=("$spec")
done
python3 Benchmarks/fetch/make-bodies.py "$WORK/files" "${specs[@]}"
chmod 644 "$WORK"/files/*

# Each larder tier is its own process with its own database, so that both are warm and a round can run
# them back to back; the idle one costs nothing measurable.
declare -A TIER_PORT=([on]=$LARDER_PORT [off]=$TIER_OFF_PORT)
declare -A TIER_FLAGS=([on]="" [off]="--hot-bytes 0")
declare -A TIER_TITLE=([on]="larder, memory tier on" [off]="larder, memory tier off (--hot-bytes 0)")
declare -A TIER_PID=()
tier_db() { echo "$WORK/larder-$1.db"; }

if [ "$PREFILL" -gt 0 ]; then
    # The storage benchmark's database of that size, when one was filled (Benchmarks/storage/), is copied:
    # filling a million entries takes about ten minutes.
    filled="${TMPDIR:-/tmp}/larder-storage-bench/size-$PREFILL.db"
    if [ -f "$filled" ]; then
        echo "pre-filling larder's store with $PREFILL entries (a copy of $filled)..." >&2
        python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("PRAGMA wal_checkpoint(TRUNCATE)")' \
            "$filled"
    else
        echo "pre-filling larder's store with $PREFILL entries (StorageBenchmark)..." >&2
        swift build -c release -Xswiftc -g --product StorageBenchmark >&2
        "$(dirname "$LARDER_BIN")/StorageBenchmark" --dir "$WORK" --entries "$PREFILL" --gets 1000 >&2
        filled="$WORK/size-$PREFILL.db"
        rm -f "$filled-wal" "$filled-shm"
    fi
    for tier in $TIERS; do cp "$filled" "$(tier_db "$tier")"; done
fi

start_nginx() { # role cpu
    sed -e "s|@ROLE@|$1|g" -e "s|@DIR@|$WORK|g" Benchmarks/fetch/nginx.conf >"$WORK/$1.conf"
    sed -e "s|@ORIGIN_PORT@|$ORIGIN_PORT|" -e "s|@CACHE_PORT@|$CACHE_PORT|" -e "s|@DIR@|$WORK|g" \
        "Benchmarks/fetch/$1-server.conf" >"$WORK/$1-server.conf"
    mkdir -p "$WORK/$1-cache" && chmod 777 "$WORK/$1-cache"
    taskset -c "$2" nginx -p "$WORK" -c "$WORK/$1.conf" &
    PIDS+=($!)
}
start_nginx origin 1
start_nginx cache 0
NGINX_PID=${PIDS[-1]}
for tier in $TIERS; do
    # --max-size 0 (no bound): the miss floods store hundreds of megabytes, and an eviction during one
    # would make stored entries look lost.
    # shellcheck disable=SC2086
    taskset -c 0 "$LARDER_BIN" serve --host 127.0.0.1 --port "${TIER_PORT[$tier]}" --db "$(tier_db "$tier")" \
        --access-log false --log-level warning --event-loops 1 --allow-network 127.0.0.0/8 --max-size 0 \
        ${TIER_FLAGS[$tier]} ${LARDER_ARGS:-} >"$WORK/larder-$tier.log" 2>&1 &
    TIER_PID[$tier]=$!
    PIDS+=("$!")
done
for port in "$ORIGIN_PORT" "$CACHE_PORT"; do wait_http "$port"; done
for tier in $TIERS; do wait_http "${TIER_PORT[$tier]}"; done

url() { echo "http://127.0.0.1:$1/fetch?url=http://127.0.0.1:$ORIGIN_PORT/$(case_file "$2")"; }

# Fails unless a response is what the case's caller must get: a HIT, the origin's bytes, gzip-encoded for
# a gzip caller of text or JSON and not encoded otherwise, and Vary on what the origin sends it with.
check_answer() { # case code x-cache content-encoding vary body-file what
    local file what=$7
    file="$WORK/files/$(case_file "$1")"
    [ "$2" = 200 ] || fail "$what: status $2, not 200"
    [[ ${3,,} == hit ]] || fail "$what: X-Cache '$3', not HIT"
    if gzip_caller "$1" && compressible "$1"; then
        [[ ${4,,} == gzip ]] || fail "$what: Content-Encoding '$4' for a gzip caller, not gzip"
        gzip -dc <"$6" | cmp -s - "$file" || fail "$what: the body does not gunzip to the origin's file"
    else
        [ -z "$4" ] || fail "$what: Content-Encoding '$4' for a caller that did not ask for it"
        cmp -s "$6" "$file" || fail "$what: the body differs from the origin's file"
    fi
    if compressible "$1"; then
        [[ ${5,,} == *accept-encoding* ]] || fail "$what: no Vary: Accept-Encoding (Vary '$5')"
    fi
}
fetch_once() { # port case: one request as the case's caller; sets ANSWER to "code x-cache encoding vary"
    set_caller "$2"
    ANSWER=$(curl -s -o "$WORK/check" "${CALLER[@]}" \
        -w '%{http_code}|%header{x-cache}|%header{content-encoding}|%header{vary}' "$(url "$1" "$2")")
}
# Stores the case's body in the cache on a port and checks that the cache answers it as a hit.
warm_and_check() { # port case
    local code xcache encoding vary
    # The first request stores the body; a request before the store commits joins that fetch (MISS).
    # Then a few more, so that larder's hot tier holds the form this caller is answered with.
    for _ in $(seq 50); do
        fetch_once "$1" "$2"
        [[ ${ANSWER,,} == *'|hit|'* ]] && break
        sleep 0.1
    done
    for _ in 1 2 3; do fetch_once "$1" "$2"; done
    IFS='|' read -r code xcache encoding vary <<<"$ANSWER" || true
    check_answer "$2" "$code" "$xcache" "$encoding" "$vary" "$WORK/check" "port $1, $2"
}
for c in $CASES; do
    for tier in $TIERS; do warm_and_check "${TIER_PORT[$tier]}" "$c"; done
    warm_and_check "$CACHE_PORT" "$c"
done

# One measured run; fails when the origin saw a request meanwhile (a miss) or wrk saw a non-2xx answer.
# Sets RUN_RPS, RUN_P99 and RUN_CPU, the server's CPU microseconds per answered request (not printed: a
# failure inside $(...) would not stop the script). CPU per request is the figure another process's load
# disturbs least: on a busy machine the servers get less CPU, not more work per request.
checked_run() { # port case server-pid
    local before bad answered ticks
    before=$(origin_requests)
    set_caller "$2"
    ticks=$(process_ticks "$3")
    read -r RUN_RPS RUN_P99 bad answered < <(measure "$(url "$1" "$2")" "${CALLER[@]}")
    RUN_CPU=$(awk -v t="$(($(process_ticks "$3") - ticks))" -v hz="$(getconf CLK_TCK)" -v n="${answered:-0}" \
        'BEGIN { printf "%.1f", (n > 0 ? t * 1000000 / hz / n : 0) }')
    if [ "$(origin_requests)" != "$before" ] || [ "${bad:-x}" != 0 ] || [ "${RUN_RPS:-0}" = 0 ]; then
        fail "port $1, $2: not every response was a hit" \
            "(origin requests $before -> $(origin_requests), non-2xx ${bad:-?})"
    fi
}

# One round of a case: each larder tier, then nginx. Appends "kept steal nginx-rps nginx-p99 [tier-rps
# tier-p99]..." to the case's file, kept 0 when the round was disturbed past STEAL_MAX on every attempt.
hit_round() { # case round
    local attempt ticks steal line kept=0
    for attempt in $(seq 0 "$STEAL_RETRIES"); do
        ticks=$(cpu_ticks)
        line=""
        cpu=""
        for tier in $TIERS; do
            checked_run "${TIER_PORT[$tier]}" "$1" "${TIER_PID[$tier]}"
            line+=" $RUN_RPS $RUN_P99"
            cpu+=" $RUN_CPU"
        done
        checked_run "$CACHE_PORT" "$1" "$NGINX_PID"
        line="$RUN_RPS $RUN_P99$line"
        cpu="$RUN_CPU$cpu"
        steal=$(steal_since "$ticks")
        if awk -v s="$steal" -v m="$STEAL_MAX" 'BEGIN { exit !(s <= m) }'; then
            kept=1
            break
        fi
        echo "  $1 round $2: the hypervisor stole $steal% of the CPU (more than $STEAL_MAX%);" \
            "attempt $((attempt + 1)) of $((STEAL_RETRIES + 1))" >&2
    done
    echo "$kept $steal $line" >>"$WORK/hits-$1.txt"
    echo "$kept $cpu" >>"$WORK/cpu-$1.txt"
    echo "  $1 round $2: nginx $line (req/s p99-ms, then each larder tier: $TIERS), steal $steal%;" \
        "CPU µs a hit: nginx $cpu" >&2
}

# Thousands separated by spaces, as the README's tables have them.
group() {
    awk -v n="$1" 'BEGIN {
        s = sprintf("%.0f", n)
        while (s ~ /[0-9][0-9][0-9][0-9]/) sub(/[0-9][0-9][0-9]($| )/, " &", s)
        print s
    }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }'; }
# One Markdown table row of its arguments.
md_row() {
    local out="|" cell
    for cell in "$@"; do out+=" $cell |"; done
    echo "$out"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); entries pre-filled: $PREFILL"
echo "hits: wrk -t1 -c$CONNECTIONS -d$DURATION, $ROUNDS interleaved round(s) (each larder tier: $TIERS, then nginx);" \
    "caches on CPU 0, wrk and the origin on CPU 1; rounds with more than $STEAL_MAX% stolen are left out of the medians"
ticks_all=$(cpu_ticks)
declare -A RATIO P99RATIO CPURATIO
DETAIL=()
for c in $CASES; do
    : >"$WORK/hits-$c.txt"
    : >"$WORK/cpu-$c.txt"
    for round in $(seq "$ROUNDS"); do hit_round "$c" "$round"; done
    # Medians over the kept rounds; when every round was disturbed, over all of them, marked with "*".
    keep=1 mark=""
    if ! grep -q '^1 ' "$WORK/hits-$c.txt"; then keep=0 mark="*"; fi
    rows() { awk -v k="$keep" -v f="$1" '$1 >= k { print $f }' "$WORK/hits-$c.txt"; }
    kept=$(awk -v k="$keep" '$1 >= k' "$WORK/hits-$c.txt" | wc -l)
    nr=$(rows 3 | median)
    np=$(rows 4 | median)
    cpu_rows() { awk -v k="$keep" -v f="$1" '$1 >= k { print $f }' "$WORK/cpu-$c.txt"; }
    nc=$(cpu_rows 2 | median)
    DETAIL+=("$(md_row "$(case_title "$c")" nginx "$(group "$nr")" "$(printf %.2f "$np") ms" "" "" "" \
        "$(printf %.1f "$nc")" "" "$(rss_mib "$NGINX_PID") MiB" "$kept/$ROUNDS$mark")")
    field=5
    cpu_field=3
    for tier in $TIERS; do
        lr=$(rows "$field" | median)
        lp=$(rows $((field + 1)) | median)
        # p99 is the most disturbed figure on a shared machine, so each round's pair is compared on its
        # own: the median of larder's p99 / nginx's over the rounds, and the rounds larder's was no higher.
        pr=$(awk -v k="$keep" -v f="$field" '$1 >= k { print $(f + 1) / $4 }' "$WORK/hits-$c.txt" | median)
        wins=$(awk -v k="$keep" -v f="$field" '$1 >= k && $(f + 1) <= $4 { n++ } END { print n + 0 }' \
            "$WORK/hits-$c.txt")
        lc=$(cpu_rows "$cpu_field" | median)
        RATIO[$c,$tier]="$(ratio "$lr" "$nr")$mark"
        P99RATIO[$c,$tier]="$(printf %.2f "$pr")$mark"
        CPURATIO[$c,$tier]="$(ratio "$lc" "$nc")$mark"
        DETAIL+=("$(md_row "$(case_title "$c")" "${TIER_TITLE[$tier]}" "$(group "$lr")" "$(printf %.2f "$lp") ms" \
            "${RATIO[$c,$tier]}" "${P99RATIO[$c,$tier]}" "$wins/$kept" "$(printf %.1f "$lc")" "${CPURATIO[$c,$tier]}" \
            "$(rss_mib "${TIER_PID[$tier]}") MiB" "$kept/$ROUNDS$mark")")
        field=$((field + 2))
        cpu_field=$((cpu_field + 1))
    done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg);" \
    "CPU time stolen by the hypervisor meanwhile: $(steal_since "$ticks_all")%"
echo
header="| hits, larder / nginx |"
rule="| --- |"
for c in $CASES; do header+=" $(case_title "$c") |"; rule+=" ---: |"; done
echo "$header"
echo "$rule"
for tier in $TIERS; do
    line="| ${TIER_TITLE[$tier]}: req/s |"
    for c in $CASES; do line+=" ${RATIO[$c,$tier]} |"; done
    echo "$line"
    line="| ${TIER_TITLE[$tier]}: p99 |"
    for c in $CASES; do line+=" ${P99RATIO[$c,$tier]} |"; done
    echo "$line"
    line="| ${TIER_TITLE[$tier]}: CPU a hit (lower is better) |"
    for c in $CASES; do line+=" ${CPURATIO[$c,$tier]} |"; done
    echo "$line"
done
echo
echo "| case | server | req/s | p99 | larder / nginx | p99 ratio | p99 ≤ | CPU µs a hit | CPU ratio | RSS | rounds kept |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
printf '%s\n' "${DETAIL[@]}"
echo "(p99 ratio: the median over the kept rounds of larder's p99 / nginx's; p99 ≤: rounds in which larder's was"
echo "no higher; CPU µs a hit: the server's user and system time over the answered requests, the figure other"
echo "load on the machine disturbs least; * every round was disturbed, medians over all of them.)"

# The tier the miss measurements use: the first one asked for.
MISS_TIER=${TIERS%% *}
MISS_PORT=${TIER_PORT[$MISS_TIER]}

# Median time to first byte and total of sequential single requests, in ms; each URL is new to the caches.
misses() { # url-prefix (ends with the file; a query is appended)
    set_caller "$first"
    for i in $(seq "$MISSES"); do
        curl -s -o /dev/null "${CALLER[@]}" -w '%{time_starttransfer} %{time_total}\n' "$1?miss=$RANDOM$RANDOM$i"
    done >"$WORK/m.txt"
    echo "$(awk '{ print $1 * 1000 }' "$WORK/m.txt" | median) $(awk '{ print $2 * 1000 }' "$WORK/m.txt" | median)"
}
if [ "$MISSES" -gt 0 ]; then
echo
echo "misses: median of $MISSES sequential cold fetches of $(case_title "$first") (curl; first byte / total, ms)"
read -r direct_fb direct < <(misses "http://127.0.0.1:$ORIGIN_PORT/$(case_file "$first")")
read -r larder_fb larder < <(misses "$(url "$MISS_PORT" "$first")")
read -r nginx_fb nginx < <(misses "$(url "$CACHE_PORT" "$first")")
printf "direct origin %.3f / %.3f; larder %.3f / %.3f (+%.3f total); nginx %.3f / %.3f (+%.3f total)\n" \
    "$direct_fb" "$direct" "$larder_fb" "$larder" "$(awk -v a="$larder" -v b="$direct" 'BEGIN{print a-b}')" \
    "$nginx_fb" "$nginx" "$(awk -v a="$nginx" -v b="$direct" 'BEGIN{print a-b}')"
fi

# The stored URL of a flood's request n is <origin file>?u=<tag><salt><n> (unique.lua adds salt and n); every
# larder flood's tag is <case>-r<round>-, so "<case>-r" starts all of a case's.
flood_prefix() { echo "http://127.0.0.1:$ORIGIN_PORT/$(case_file "$1")?u=$2"; }
# larder's committed rows whose URL starts with a prefix: a range of the url index, not a table scan (URLs
# are ASCII, so every one that starts with the prefix sorts below the prefix and DEL). Prints the count, or
# the column asked for.
stored_rows() { # prefix [select]
    sqlite3 "$(tier_db "$MISS_TIER")" "select ${2:-count(*)} from entry where url >= '$1' and url < '$1' || char(127)"
}
nginx_files() { find "$WORK/cache-cache" -type f | wc -l; }

# One flood of new URLs; fails unless every answer was a 2xx that reached the origin.
# Sets FLOOD_RPS FLOOD_P99 FLOOD_ANSWERED, and FLOOD_BEFORE (the origin's request count before it).
flood() { # port case duration tag
    local bad seen
    FLOOD_BEFORE=$(origin_requests)
    set_caller "$2"
    read -r FLOOD_RPS FLOOD_P99 bad FLOOD_ANSWERED < <(
        PREFIX="/fetch?url=$(flood_prefix "$2" "$4")" taskset -c "${WRK_CPU:-1}" wrk -t1 -c"$MISS_CONNECTIONS" \
            -d"$3" --latency -s Benchmarks/fetch/unique.lua "${CALLER[@]}" "http://127.0.0.1:$1" | wrk_figures
    )
    seen=$(($(origin_requests) - FLOOD_BEFORE))
    if [ "${bad:-x}" != 0 ] || [ "${FLOOD_ANSWERED:-0}" = 0 ] || [ "$seen" -lt "$FLOOD_ANSWERED" ]; then
        fail "port $1, $2: not every answer was a 2xx miss" \
            "(${FLOOD_ANSWERED:-?} answers, non-2xx ${bad:-?}, origin saw $seen)"
    fi
}

# Reads up to MISS_SAMPLE of a case's stored flood entries back through larder's /fetch as the flood's
# caller: each must be a HIT with the origin's bytes (one curl, one connection). Prints the count checked.
check_stored_sample() { # case
    local n=0 code xcache encoding vary before
    mkdir -p "$WORK/sample"
    rm -f "$WORK/sample"/*
    stored_rows "$(flood_prefix "$1" "$1-r")" "url" | shuf -n "$MISS_SAMPLE" >"$WORK/sample.txt"
    while read -r stored; do
        n=$((n + 1))
        printf 'url = "http://127.0.0.1:%s/fetch?url=%s"\noutput = "%s/sample/%d"\n' \
            "$MISS_PORT" "$stored" "$WORK" "$n"
    done <"$WORK/sample.txt" >"$WORK/sample.curl"
    [ "$n" -gt 0 ] || fail "larder stored none of the $1 floods' misses"
    before=$(origin_requests)
    set_caller "$1"
    curl -s -K "$WORK/sample.curl" "${CALLER[@]}" \
        -w '%{http_code}|%header{x-cache}|%header{content-encoding}|%header{vary}\n' >"$WORK/sample.out"
    [ "$(origin_requests)" = "$before" ] || fail "reading the stored $1 sample back reached the origin"
    n=0
    while IFS='|' read -r code xcache encoding vary; do
        n=$((n + 1))
        check_answer "$1" "$code" "$xcache" "$encoding" "$vary" "$WORK/sample/$n" \
            "stored $1 miss $(sed -n "${n}p" "$WORK/sample.txt")"
    done <"$WORK/sample.out"
    [ "$n" = "$(wc -l <"$WORK/sample.txt")" ] ||
        fail "curl answered $n of the $(wc -l <"$WORK/sample.txt") sampled $1 entries"
    echo "$n"
}

if [ -n "$MISS_CASES" ]; then
    echo
    echo "misses under load: wrk -t1 -c$MISS_CONNECTIONS, a new URL per request (unique.lua), $MISS_ROUNDS" \
        "interleaved round(s) (larder with its memory tier $MISS_TIER and nginx, each going first in every other" \
        "round, each flood after a sync); the origin on the client's CPU"
fi
# larder's flood of a round, with its drain and what it stored: sets l_* (the case, duration, round).
larder_flood() { # case duration round
    local now
    settle_writeback
    l_settled=$SETTLED
    l_cpu=$(process_cpu "${TIER_PID[$MISS_TIER]}")
    flood "$MISS_PORT" "$1" "$2" "$1-r$3-"
    now=$(find /proc/"${TIER_PID[$MISS_TIER]}"/task -mindepth 1 -maxdepth 1 | wc -l)
    [ "$now" -le "$threads" ] || threads=$now
    l_rps=$FLOOD_RPS l_p99=$FLOOD_P99 l_answered=$FLOOD_ANSWERED
    drain_fetches "$MISS_PORT"
    # The share stored is of the misses fetched: each URL the origin saw is one miss, answered or still
    # under way when wrk stopped (wrk's count leaves those out, and their bodies are stored too).
    l_fetched=$(($(origin_requests) - FLOOD_BEFORE))
    l_stored=$(stored_rows "$(flood_prefix "$1" "$1-r$3-")")
    # larder's CPU from the flood's start to its last commit, a stored miss.
    read -r l_user l_system < <(cpu_per "$l_cpu" "$(process_cpu "${TIER_PID[$MISS_TIER]}")" "$l_stored")
}
# nginx's flood of a round and what it stored: sets n_*.
nginx_flood() { # case duration round
    local files
    settle_writeback
    n_settled=$SETTLED
    files=$(nginx_files)
    n_cpu=$(process_cpu "$NGINX_PID")
    flood "$CACHE_PORT" "$1" "$2" "$1-n$3-"
    n_rps=$FLOOD_RPS n_p99=$FLOOD_P99 n_answered=$FLOOD_ANSWERED
    # nginx renames a cache file into place when its response ends: a second lets the last ones finish.
    sleep 1
    n_fetched=$(($(origin_requests) - FLOOD_BEFORE))
    n_stored=$(($(nginx_files) - files))
    read -r n_user n_system < <(cpu_per "$n_cpu" "$(process_cpu "$NGINX_PID")" "$n_stored")
}
MISS_ROWS=()
threads=0
for m in $MISS_CASES; do
    c=$(miss_case "$m")
    d=$(miss_duration "$m")
    : >"$WORK/misses-$c.txt"
    for round in $(seq "$MISS_ROUNDS"); do
        ticks=$(cpu_ticks)
        # Odd rounds larder first, even rounds nginx first: neither always follows the other's flood.
        if ((round % 2)); then
            larder_flood "$c" "$d" "$round"
            nginx_flood "$c" "$d" "$round"
        else
            nginx_flood "$c" "$d" "$round"
            larder_flood "$c" "$d" "$round"
        fi
        steal=$(steal_since "$ticks")
        kept=$(awk -v s="$steal" -v m="$STEAL_MAX" 'BEGIN { print (s <= m) ? 1 : 0 }')
        # larder's stored/s counts to its last commit (the flood plus the wait for its writes).
        l_rate=$(awk -v n="$l_stored" -v d="$(seconds_of "$d")" -v w="$DRAINED" \
            'BEGIN { printf "%.0f", n / (d + w) }')
        n_rate=$(awk -v n="$n_stored" -v d="$(seconds_of "$d")" 'BEGIN { printf "%.0f", n / d }')
        l_share=$(awk -v s="$l_stored" -v f="$l_fetched" 'BEGIN { print 100 * s / f }')
        n_share=$(awk -v s="$n_stored" -v f="$n_fetched" 'BEGIN { print 100 * s / f }')
        echo "$kept $steal $l_rps $l_p99 $l_rate $l_share $n_rps $n_p99 $n_rate $n_share" \
            "$l_user $l_system $n_user $n_system" >>"$WORK/misses-$c.txt"
        echo "  $c round $round: larder answered $l_answered ($l_rps/s, p99 $l_p99 ms), fetched $l_fetched, stored" \
            "$l_stored ($DRAINED s to drain); nginx answered $n_answered ($n_rps/s, p99 $n_p99 ms)," \
            "fetched $n_fetched, stored $n_stored; steal $steal%; CPU µs a stored miss (user + system): larder" \
            "$l_user + $l_system, nginx $n_user + $n_system; written back before: larder $l_settled, nginx" \
            "$n_settled" >&2
    done
    sampled=$(check_stored_sample "$c")
    keep=1 mark=""
    if ! grep -q '^1 ' "$WORK/misses-$c.txt"; then keep=0 mark="*"; fi
    col() { awk -v k="$keep" -v f="$1" '$1 >= k { print $f }' "$WORK/misses-$c.txt" | median; }
    pr=$(awk -v k="$keep" '$1 >= k { print $4 / $8 }' "$WORK/misses-$c.txt" | median)
    kept=$(awk -v k="$keep" '$1 >= k' "$WORK/misses-$c.txt" | wc -l)
    MISS_ROWS+=("$(md_row "$(case_title "$c"), $d" larder "$(group "$(col 3)")" "$(printf %.2f "$(col 4)") ms" \
        "$(group "$(col 5)")" "$(printf %.1f "$(col 6)")%" "$(ratio "$(col 3)" "$(col 7)")$mark" \
        "$(printf %.2f "$pr")$mark" "$(printf "%.1f + %.1f" "$(col 11)" "$(col 12)")" "$kept/$MISS_ROUNDS$mark" \
        "$sampled HIT, byte-exact")")
    MISS_ROWS+=("$(md_row "$(case_title "$c"), $d" nginx "$(group "$(col 7)")" "$(printf %.2f "$(col 8)") ms" \
        "$(group "$(col 9)")" "$(printf %.1f "$(col 10)")%" "" "" "$(printf "%.1f + %.1f" "$(col 13)" "$(col 14)")" \
        "$kept/$MISS_ROUNDS$mark" "")")
done
if [ ${#MISS_ROWS[@]} -gt 0 ]; then
    echo
    md_row "misses under load" server answered/s p99 stored/s "share stored" "answered, larder / nginx" "p99 ratio" \
        "CPU µs a stored miss, user + system" "rounds kept" "stored sample read back"
    echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
    printf '%s\n' "${MISS_ROWS[@]}"
    echo "(stored: larder's rows committed, counted after its writes drained, per second of flood plus drain;"
    echo "nginx's cache files written during the flood. Share stored: of the misses the origin saw. CPU µs a stored"
    echo "miss: the server's user and system time over its flood (larder's to its last commit) a stored miss. larder"
    echo "threads at most: $threads.)"
fi
