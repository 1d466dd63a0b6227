#!/usr/bin/env bash
# CRC-32 benchmark: builds CRCBenchmark in release mode, writes three PNG files with Pillow
# (make-pngs.py) and prints the table of zlib's crc32 against the Swift loops it replaced (buffers of
# 1 KiB, 64 KiB, 4 MiB, and every chunk of each PNG), 15 rotating rounds each, thread CPU time.
#
# With BASELINE set to another CRCBenchmark binary (one built before a change, copied aside), it then
# times PNG validation (`ImageValidator`, which checks every chunk's CRC) with both binaries, PAIRS
# times interleaved (baseline, current, baseline, ...), and prints each file's medians and ratio.
#
#   Benchmarks/crc/run.sh
#   BASELINE=/tmp/CRCBenchmark.before PAIRS=11 Benchmarks/crc/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
PAIRS=${PAIRS:-11}
work="${TMPDIR:-/tmp}/larder-crc-bench"
swift build -c release -Xswiftc -g --product CRCBenchmark >&2
bench="$(swift build -c release -Xswiftc -g --show-bin-path)/CRCBenchmark"
python3 Benchmarks/crc/make-pngs.py "$work"
files=("$work"/icon.png "$work"/screenshot.png "$work"/photo.png)
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$bench" "${files[@]}"
[ -n "${BASELINE:-}" ] || exit 0

results=$(mktemp)
trap 'rm -f "$results"' EXIT
for pair in $(seq 1 "$PAIRS"); do
    "$BASELINE" png "${files[@]}" | sed "s/^/baseline /" >>"$results"
    "$bench" png "${files[@]}" | sed "s/^/current /" >>"$results"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$results" "$PAIRS" <<'PY'
import statistics, sys
times = {}
for line in open(sys.argv[1]):
    which, path, size, micros = line.split()
    times.setdefault((path, int(size)), {}).setdefault(which, []).append(float(micros))
print(f"PNG validation, µs per file (thread CPU), median of {sys.argv[2]} interleaved pairs:")
print("| file | bytes | baseline µs | current µs | current / baseline (median of pairs) | current MB/s |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for (path, size), runs in times.items():
    before, after = runs["baseline"], runs["current"]
    ratio = statistics.median(b / a for a, b in zip(before, after))
    name = path.rsplit("/", 1)[-1]
    print(f"| {name} | {size} | {statistics.median(before):.1f} | {statistics.median(after):.1f} | {ratio:.2f} "
          f"| {size / statistics.median(after):.0f} |")
PY
