#!/usr/bin/env bash
# Builds and runs one libFuzzer target for a limited time.
#
#   Fuzz/run.sh <target> <seconds> [libFuzzer flags...]
#
# A target is a folder Fuzz/<target>/ holding the entry point (*.swift with
# @_cdecl("LLVMFuzzerTestOneInput")), a file `sources` listing the source folders compiled into
# the same module (one per line, relative to the package root), and a committed seed corpus in
# seeds/. The binary and the growing corpus live in .build/fuzz/<target>/; crash and timeout
# inputs are written there too (crash-*, timeout-*). Exit status is libFuzzer's: non-zero on a
# finding.
set -euo pipefail

if [ $# -lt 2 ]; then
    echo "usage: $0 <target> <seconds> [libFuzzer flags...]" >&2
    exit 2
fi
target=$1
seconds=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/Fuzz/$target"
out="$root/.build/fuzz/$target"
[ -d "$dir" ] || { echo "no fuzz target $dir" >&2; exit 2; }
mkdir -p "$out/corpus"

sources=()
while IFS= read -r folder; do
    [ -n "$folder" ] || continue
    while IFS= read -r file; do sources+=("$file"); done < <(find "$root/$folder" -name '*.swift' | sort)
done < "$dir/sources"

swiftc -sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6 \
    -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault \
    -enable-upcoming-feature MemberImportVisibility \
    -module-name "${target}Fuzz" "${sources[@]}" "$dir"/*.swift -o "$out/fuzzer"

cd "$out"
exec ./fuzzer corpus "$dir/seeds" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 "$@"
