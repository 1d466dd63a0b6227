#!/usr/bin/env bash
# Builds and runs one libFuzzer target for a limited time.
#
#   Fuzz/run.sh <target> <seconds> [libFuzzer flags...]
#   FUZZ_BUILD_ONLY=1 Fuzz/run.sh <target> 0     # build, do not run
#
# A target is a folder Fuzz/<target>/ holding the entry point (*.swift with
# @_cdecl("LLVMFuzzerTestOneInput")), a file `modules` naming the project modules it imports, in
# dependency order (one per line), and a committed seed corpus in seeds/.
#
# Each project module is compiled on its own with swiftc, instrumented for libFuzzer and address
# sanitizer (`-sanitize=fuzzer,address`, -O, `-enable-testing` so an entry may `@testable import` it),
# into .build/fuzz/modules/<Module>.{o,swiftmodule}, and rebuilt only when one of its sources or an
# earlier module changed; targets share them. C modules (Sources/C*) are found through their module
# maps; a C target with code of its own (Sources/C*/include/module.modulemap beside *.c files) is
# compiled with cc, not instrumented, and linked into every fuzzer. System libraries (zlib, SQLite,
# libcurl, libcrypto for CacheCore's SHA-256) are linked as installed, not instrumented.
#
# The binary and the growing corpus live in .build/fuzz/<target>/; crash, leak and timeout inputs are
# written there too (crash-*, leak-*, timeout-*). Exit status is libFuzzer's: non-zero on a finding.
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
build="$root/.build/fuzz"
out="$build/$target"
[ -f "$dir/modules" ] || { echo "no fuzz target $dir (no modules file)" >&2; exit 2; }
mkdir -p "$out/corpus" "$build/modules"

flags=(-sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6 -package-name Larder
    -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault
    -enable-upcoming-feature MemberImportVisibility -I "$build/modules")
for cmodule in "$root"/Sources/C*/; do flags+=(-I "$cmodule"); done
for cinclude in "$root"/Sources/C*/include/; do flags+=(-I "$cinclude"); done

# Modules are shared between targets: one build at a time.
exec 9>"$build/.lock"
flock 9

modules=()
while IFS= read -r module; do
    module=${module%%#*}
    module=${module//[[:space:]]/}
    [ -n "$module" ] && modules+=("$module")
done <"$dir/modules"

objects=()
links=()
for module in "${modules[@]}"; do
    object="$build/modules/$module.o"
    sources=()
    while IFS= read -r file; do sources+=("$file"); done < <(find "$root/Sources/$module" -name '*.swift' | sort)
    [ ${#sources[@]} -gt 0 ] || { echo "module $module has no Swift sources" >&2; exit 2; }
    # Stale when a source changed, or a project module it imports was rebuilt since.
    stale=0
    [ -f "$object" ] || stale=1
    for file in "${sources[@]}"; do
        if [ "$stale" = 0 ] && [ "$file" -nt "$object" ]; then stale=1; fi
    done
    while IFS= read -r imported; do
        if [ "$stale" = 0 ] && [ -f "$build/modules/$imported.o" ] && [ "$build/modules/$imported.o" -nt "$object" ]; then
            stale=1
        fi
    done < <(sed -n 's/^\(@testable \)\{0,1\}\(public \|package \|internal \)\{0,1\}import \([A-Za-z]*\).*/\3/p' "${sources[@]}" | sort -u)
    if [ "$stale" = 1 ]; then
        echo "== $module"
        swiftc "${flags[@]}" -enable-testing -wmo \
            -module-name "$module" -emit-module -emit-module-path "$build/modules/$module.swiftmodule" \
            -c "${sources[@]}" -o "$object"
    fi
    objects+=("$object")
done

for csource in "$root"/Sources/C*/*.c; do
    [ -f "$csource" ] || continue
    cobject="$build/modules/$(basename "$csource" .c).o"
    if [ ! -f "$cobject" ] || [ "$csource" -nt "$cobject" ]; then
        cc -O2 -g -I "$(dirname "$csource")/include" -c "$csource" -o "$cobject"
    fi
    links+=("$cobject")
done

binary="$out/fuzzer"
stale=0
[ -f "$binary" ] || stale=1
for file in "$dir"/*.swift "${objects[@]}"; do
    if [ "$stale" = 0 ] && [ "$file" -nt "$binary" ]; then stale=1; fi
done
if [ "$stale" = 1 ]; then
    echo "== ${target}Fuzz"
    swiftc "${flags[@]}" -module-name "${target}Fuzz" "$dir"/*.swift \
        "${objects[@]}" ${links[@]+"${links[@]}"} -lz -lsqlite3 -lcurl -lcrypto -o "$binary"
fi
flock -u 9

[ "${FUZZ_BUILD_ONLY:-0}" = 1 ] && exit 0
cd "$out"
# Swift's backtracer reads the crashed thread's stack from a helper thread, which AddressSanitizer
# reports as a stack-buffer-underflow after the real finding; libFuzzer's own report is enough.
export SWIFT_BACKTRACE=enable=no
exec ./fuzzer corpus "$dir/seeds" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 "$@"
