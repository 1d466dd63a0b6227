#!/usr/bin/env bash
# The SQLite part of a 1 KiB hit from the store, without the server: lookup.c runs Larder's lookup statement
# (the entry and its first chunk) for random entries of the thousand and the million stores run.sh uses, on
# CPU 0, rounds alternated, and prints each round's microseconds a lookup and the medians. Also the million
# with a larger reader page cache (BIG_CACHE KiB; Larder's readers have 2 048), and, when INLINE=1, a copy of
# the million whose entries hold their one chunk in the row (made once, about 15 s and 1.4 GB), read with
# the statement such a schema would use. STRACE=1 adds the `pread`s a lookup of the stores as Larder writes
# them (strace -c, less the scan of the entry table that picks the keys). MAP=1 adds each store read through
# a memory map of the whole file, as Larder reads it (`--store-map`). Every store is read into the page
# cache first.
#
#   Benchmarks/million/lookup.sh                     # 5 rounds of 200 000 lookups
#   INLINE=1 STRACE=1 ROUNDS=3 Benchmarks/million/lookup.sh
#   MAP=1 INLINE=1 Benchmarks/million/lookup.sh      # also each store read through a map, as Larder does
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/lib.sh

ROUNDS=${ROUNDS:-5}
LOOKUPS=${LOOKUPS:-200000}
BIG_CACHE=${BIG_CACHE:-32768}
need_tools cc taskset sqlite3
. Benchmarks/million/stores.sh
small=$(million_store 1000)
large=$(million_store 1000000)
start_work
cc -O2 -o "$WORK/lookup" Benchmarks/million/lookup.c -lsqlite3

variants=("thousand|$small|join|2048" "million|$large|join|2048" "million, ${BIG_CACHE} KiB cache|$large|join|$BIG_CACHE")
if [[ ${INLINE:-0} == 1 ]]; then
    inline="$MILLION_DIR/inline-1000000.db"
    if [[ ! -f $inline ]]; then
        echo "copying the million with each entry's chunk in its row into $inline" >&2
        columns=$(sqlite3 "$large" "SELECT group_concat('e.' || name, ', ') FROM pragma_table_info('entry')")
        sqlite3 "$inline" >/dev/null <<SQL
ATTACH '$large' AS old;
PRAGMA journal_mode = OFF;
$(sqlite3 "$large" "SELECT sql FROM sqlite_master WHERE name = 'entry'");
ALTER TABLE entry ADD COLUMN inline_crc32 INTEGER;
ALTER TABLE entry ADD COLUMN inline_data BLOB;
CREATE TABLE chunk (id INTEGER PRIMARY KEY, crc32 INTEGER NOT NULL, data BLOB NOT NULL);
INSERT INTO entry SELECT $columns, c.crc32, c.data FROM old.entry e LEFT JOIN old.chunk c ON c.id = e.body_id << 24 ORDER BY e.id;
SQL
    fi
    variants+=("million, chunk in the row|$inline|inline|2048")
fi
if [[ ${MAP:-0} == 1 ]]; then
    # The whole file mapped (the fifth field: bytes of map), as Larder reads it.
    variants+=("thousand, mapped|$small|join|2048|4000000000" "million, mapped|$large|join|2048|4000000000")
    [[ ${INLINE:-0} == 1 ]] && variants+=("million, chunk in the row, mapped|$inline|inline|2048|4000000000")
fi

for variant in "${variants[@]}"; do
    IFS='|' read -r _ db _ _ <<<"$variant"
    cat "$db" >/dev/null
done

declare -A times
for round in $(seq "$ROUNDS"); do
    line="round $round:"
    for variant in "${variants[@]}"; do
        IFS='|' read -r name db mode cache map <<<"$variant"
        t=$(taskset -c 0 "$WORK/lookup" "$db" "$mode" "$LOOKUPS" "$cache" ${map:+"$map"})
        times[$name]+="$t "
        line+=" $name $t µs;"
    done
    echo "$line"
done
for variant in "${variants[@]}"; do
    IFS='|' read -r name _ _ _ <<<"$variant"
    # shellcheck disable=SC2086
    printf "median %-32s %s µs a lookup\n" "$name" "$(printf '%s\n' ${times[$name]} | median)"
done

if [[ ${STRACE:-0} == 1 ]]; then
    need_tools strace
    for variant in "${variants[@]}"; do
        IFS='|' read -r name db mode cache map <<<"$variant"
        # The inline copy's scan under strace took minutes; its reads are not the question it answers. A
        # mapped store makes none.
        [[ $mode == join && -z $map ]] || continue
        scanned=$(sqlite3 "$db" "SELECT count(*) FROM dbstat WHERE name = 'entry'")
        strace -f -c -e trace=pread64 -o "$WORK/strace" "$WORK/lookup" "$db" "$mode" "$LOOKUPS" "$cache" >/dev/null
        reads=$(awk '$NF == "pread64" { print $4 }' "$WORK/strace")
        awk -v r="${reads:-0}" -v s="$scanned" -v n="$LOOKUPS" -v name="$name" \
            'BEGIN { printf "preads a lookup, %-24s %.2f\n", name, (r - s) / n }'
    done
fi
