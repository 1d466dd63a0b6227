#!/usr/bin/env bash
# Shared by the benchmark scripts (source it after `cd` to the repository root): building the release
# binary, waiting for servers, one wrk run reduced to "requests/s p99-ms", medians and resident memory.

# The release build every benchmark uses. `-g` only adds debug info (same code), so callgrind and perf can
# name functions; one set of flags for every script avoids a full rebuild when switching between them.
# With LARDER_BIN set to a binary, measures that one instead (an earlier build kept for a before/after).
build_larder() {
    if [[ -n ${LARDER_BIN:-} ]]; then
        [[ -x $LARDER_BIN ]] || { echo "LARDER_BIN=$LARDER_BIN is not an executable" >&2; exit 2; }
        return
    fi
    swift build -c release --product larder -Xswiftc -g >&2
    LARDER_BIN=$(swift build -c release -Xswiftc -g --show-bin-path)/larder
}

# A temporary directory for the run ($WORK) and a list of background processes ($PIDS): the processes are
# stopped and the directory removed when the script exits, however it ends. Scripts append each process
# they start: `cmd & PIDS+=($!)`.
start_work() {
    WORK=$(mktemp -d)
    PIDS=()
    trap stop_work EXIT
}
stop_work() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}

# Fails unless the tools are installed; installs nginx and wrk with apt-get when it can.
need_tools() {
    local missing=()
    for tool in "$@"; do command -v "$tool" >/dev/null || missing+=("$tool"); done
    [ ${#missing[@]} -eq 0 ] && return 0
    if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
        local packages=()
        for tool in "${missing[@]}"; do
            case $tool in
                nginx) packages+=(nginx-light) ;;
                callgrind_control | valgrind) packages+=(valgrind) ;;
                taskset) packages+=(util-linux) ;;
                perf) packages+=(linux-perf) ;;
                *) packages+=("$tool") ;;
            esac
        done
        apt-get install -y "${packages[@]}" >&2
    fi
    for tool in "$@"; do
        command -v "$tool" >/dev/null || { echo "missing $tool" >&2; exit 1; }
    done
}

# What valgrind's callgrind needs to run larder, written into a directory: `larder`, a copy of $LARDER_BIN
# without its DWARF (valgrind 3.19 cannot read the DWARF 5 Swift writes, "possibly corrupted debuginfo"; the
# symbol table stays, so callgrind still names every function), and `sigsuspend.so`, to preload: valgrind
# 3.19 crashes in dispatchMain, where libdispatch hands sigsuspend a mask in read-only memory that valgrind
# writes to; the preloaded sigsuspend passes a writable copy.
prepare_callgrind() { # dir
    objcopy --strip-debug "$LARDER_BIN" "$1/larder"
    cat >"$1/sigsuspend.c" <<'C'
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>
int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    return (int)syscall(SYS_rt_sigsuspend, &copy, 8);
}
C
    cc -shared -fPIC -O2 -o "$1/sigsuspend.so" "$1/sigsuspend.c"
}

# Dumps the counters of larder running under callgrind (its files are <dir>/cg.out.N) and prints the
# instructions counted since the last zero (`callgrind_control -z`).
callgrind_dump() { # pid dir
    local before
    before=$(find "$2" -name 'cg.out.*' | wc -l)
    callgrind_control -d "$1" >/dev/null 2>&1
    for _ in $(seq 100); do
        [ "$(find "$2" -name 'cg.out.*' | wc -l)" -gt "$before" ] && break
        sleep 0.1
    done
    # shellcheck disable=SC2012
    awk '/^(summary|totals):/ { print $2; exit }' "$(ls -t "$2"/cg.out.* | head -1)"
}

# Waits up to 10 s for an HTTP answer on a port (any status).
wait_http() { # port [path]
    for _ in $(seq 100); do
        curl -s -o /dev/null "http://127.0.0.1:$1${2:-/}" && return 0
        sleep 0.1
    done
    echo "nothing answers on port $1" >&2
    return 1
}

# The compressing origin of Benchmarks/fetch (origin-server.conf: gzip with `Vary: Accept-Encoding` for text
# and JSON, an hour of freshness) serving $WORK/files, started on CPU 1 as a process of $PIDS; waits until it
# answers. Write the bodies first (Benchmarks/fetch/make-bodies.py). nginx workers run as an unprivileged
# user when started as root: the directory and the files are made theirs to read.
start_fetch_origin() { # port
    chmod 755 "$WORK"
    chmod 644 "$WORK"/files/*
    sed -e "s|@ROLE@|origin|g" -e "s|@DIR@|$WORK|g" Benchmarks/fetch/nginx.conf >"$WORK/origin.conf"
    sed -e "s|@ORIGIN_PORT@|$1|" -e "s|@DIR@|$WORK|g" Benchmarks/fetch/origin-server.conf >"$WORK/origin-server.conf"
    mkdir -p "$WORK/origin-cache" && chmod 777 "$WORK/origin-cache"
    taskset -c 1 nginx -p "$WORK" -c "$WORK/origin.conf" &
    PIDS+=($!)
    wait_http "$1"
}

# Requests the origin of start_fetch_origin has answered so far (it logs each one).
origin_requests() { wc -l <"$WORK/origin-access.log"; }

# STORE=<database file>: copies it to the path given, so that larder starts on a copy of that store (a big
# one, or one at its bound) instead of an empty one; without STORE, nothing.
use_store() { # database path
    [ -n "${STORE:-}" ] || return 0
    [ -f "$STORE" ] || { echo "STORE=$STORE is not a file" >&2; exit 2; }
    cp "$STORE" "$1"
}

# Bytes for a size name: 1k, 16k, 4m, or a plain number.
size_bytes() {
    case $1 in
        *k) echo $((${1%k} * 1024)) ;;
        *m) echo $((${1%m} * 1024 * 1024)) ;;
        *) echo "$1" ;;
    esac
}

# Prints "requests/s p99-in-ms non-2xx" for one wrk run on CPU ${WRK_CPU:-1}; extra arguments go to wrk
# (headers, a script).
measure() { # url [wrk options...]
    local url=$1
    shift
    taskset -c "${WRK_CPU:-1}" wrk -t1 -c"${CONNECTIONS:-64}" -d"${DURATION:-10s}" --latency "$@" "$url" | wrk_figures
}

# Reads wrk's --latency report on stdin; prints "requests/s p99-in-ms non-2xx answered-requests".
wrk_figures() {
    awk '
        function ms(v) {
            if (v ~ /us$/) { sub(/us$/, "", v); return v / 1000 }
            if (v ~ /ms$/) { sub(/ms$/, "", v); return v + 0 }
            if (v ~ /s$/)  { sub(/s$/, "", v);  return v * 1000 }
            return v
        }
        /requests in/ { n = $1 }
        /Requests\/sec:/ { rps = $2 }
        /^ +99%/ { p99 = ms($2) }
        /Non-2xx/ { bad = $NF }
        END { printf "%.0f %.3f %d %d\n", rps, p99, bad, n }'
}

# The machine's CPU time counters summed over every CPU: "steal total" in ticks. Steal is time the hypervisor
# ran something else while this VM had work; runs with much of it are disturbed, most in their p99.
cpu_ticks() { awk '/^cpu / { t = 0; for (i = 2; i <= 9; i++) t += $i; print $9, t }' /proc/stat; }

# Percent of CPU time stolen since a `cpu_ticks` reading.
steal_since() { # "steal total" from cpu_ticks
    read -r s0 t0 <<<"$1"
    read -r s1 t1 < <(cpu_ticks)
    awk -v s="$((s1 - s0))" -v t="$((t1 - t0))" 'BEGIN { printf "%.1f\n", (t > 0) ? 100 * s / t : 0 }'
}

# The median of the numbers on stdin, one per line.
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# Resident memory of a process and its children (nginx master and workers), in MiB.
rss_mib() { # pid
    local pids kib
    pids="$1 $(pgrep -P "$1" | tr '\n' ' ')"
    # shellcheck disable=SC2086
    kib=$(ps -o rss= -p "$(echo $pids | tr " " ",")" 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
    # Plus the in-memory files larder sends large hot bodies from (memfd: shared memory, not in RSS).
    kib=$((kib + $(memfd_kib "$1")))
    awk -v k="$kib" 'BEGIN { printf "%.1f\n", k / 1024 }'
}

memfd_kib() { # pid: KiB held by the process's open memfd files
    local total=0 fd size
    for fd in /proc/"$1"/fd/*; do
        case $(readlink "$fd" 2>/dev/null) in
            /memfd:*) size=$(stat -L -c %s "$fd" 2>/dev/null || echo 0); total=$((total + size)) ;;
        esac
    done
    echo $((total / 1024))
}

# User and system CPU time (clock ticks) a process and its children (nginx's worker) have used: "user system".
process_cpu() { # pid
    local pid u s user=0 system=0
    for pid in "$1" $(ps -o pid= --ppid "$1" 2>/dev/null); do
        read -r u s < <(awk '{ print $14, $15 }' "/proc/$pid/stat" 2>/dev/null || echo 0 0)
        user=$((user + u)) system=$((system + s))
    done
    echo "$user $system"
}

# Their sum.
process_ticks() { # pid
    local user system
    read -r user system < <(process_cpu "$1")
    echo $((user + system))
}

# Microseconds a unit of work of the CPU between two process_cpu readings: "user system".
cpu_per() { # "user system" before, "user system" after, units
    awk -v a="$1" -v b="$2" -v n="$3" -v hz="$(getconf CLK_TCK)" 'BEGIN {
        split(a, x, " "); split(b, y, " ")
        if (n > 0) printf "%.1f %.1f\n", (y[1] - x[1]) * 1000000 / hz / n, (y[2] - x[2]) * 1000000 / hz / n
        else print "0 0"
    }'
}

# Each flood starts with the machine's dirty pages written back (`sync`): a flood leaves up to the kernel's
# background writeback line of them (about 2 GB here: nginx writes a file a miss), and the flood after it
# was throttled by writing them back (one nginx flood fell to 3 659 a second with a p99 of 974 ms behind
# the previous round's pages). Sets SETTLED to "<MiB dirty before> MiB in <seconds> s".
settle_writeback() {
    local dirty start
    dirty=$(awk '/^Dirty:/ { printf "%.0f", $2 / 1024 }' /proc/meminfo)
    start=$(date +%s.%N)
    sync
    SETTLED="$dirty MiB in $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
}

# larder answers a miss before its store commits it: waits until no origin fetch is in flight on the larder at
# the port (a fetch leaves the registry when its commit is told), at most 5 minutes. Sets DRAINED to the
# seconds it took.
drain_fetches() { # port
    local start drained=false
    start=$(date +%s.%N)
    for _ in $(seq 3000); do
        if curl -s "http://127.0.0.1:$1/metrics" | grep -q '^larder_origin_fetches_in_flight 0$'; then
            drained=true
            break
        fi
        sleep 0.1
    done
    # Judged by the loop's own reading: a second scrape could fail on its own and cry wolf.
    $drained || echo "  larder still had origin fetches in flight after 5 minutes; counting what is committed" >&2
    DRAINED=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
}
