// The store's lookup statement alone, without the server: random lookups of a loaded store's entries,
// each stepped and every column read by its type, as `SQLiteCacheStore.lookUpEntry` is. For telling what the
// SQLite part of a hit costs at a million entries against a thousand, and what a change of the statement, the
// row or the reader's page cache would do to it. Built and run by lookup.sh.
//
//   lookup <db> <join|inline> <lookups> <cache KiB> [map bytes]
//
// join:   the lookup as Larder makes it, the entry and its first chunk in one statement (less its clause for
//         purged entries, which Larder passes over with `?3 = 0` while no purge is pending).
// inline: a copy of the store whose entries hold their one chunk in the row (`inline_crc32`, `inline_data`,
//         made by lookup.sh), read with a `CASE` that leaves the chunk table alone for such rows.
//
// map bytes: read the file through SQLite's memory map of that many bytes (`PRAGMA mmap_size`, which Debian's
// build caps at 2 GB: enough for these stores). Nothing commits here, so SQLite's map, one a connection, is
// never undone, and it reads as Larder's shared map does (Sources/CSQLiteVFS/mapped_database.c).
//
// Prints the mean microseconds a lookup over all of them.
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ENTRY_COLUMNS                                                                                          \
    "entry.id, key, url, status, reason, headers, vary, request_time, response_time, date, age_received, "      \
    "freshness, stale_allowance, filter_name, image_format, original_size, stored_size, codec, entry.crc32, "   \
    "chunk_size, 0, NULL, created, body_id, seq, declared_content_type, stale_since, tags"

static const char *joinQuery =
    "SELECT " ENTRY_COLUMNS ", chunk.crc32, chunk.data FROM entry LEFT JOIN chunk ON chunk.id = entry.body_id << 24 "
    "WHERE entry.id = ?1 AND entry.key = ?2";

static const char *inlineQuery =
    "SELECT " ENTRY_COLUMNS ", coalesce(entry.inline_crc32, chunk.crc32), coalesce(entry.inline_data, chunk.data) "
    "FROM entry LEFT JOIN chunk ON chunk.id = CASE WHEN entry.inline_data IS NULL THEN entry.body_id << 24 END "
    "WHERE entry.id = ?1 AND entry.key = ?2";

static double seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static void fail(sqlite3 *db, const char *what) {
    fprintf(stderr, "lookup: %s: %s\n", what, sqlite3_errmsg(db));
    exit(1);
}

int main(int argc, char **argv) {
    if (argc != 5 && argc != 6) {
        fprintf(stderr, "usage: %s <db> <join|inline> <lookups> <cache KiB> [map bytes]\n", argv[0]);
        return 2;
    }
    const char *mode = argv[2];
    long lookups = atol(argv[3]);
    sqlite3 *db;
    if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) fail(db, "open");
    char pragma[64];
    snprintf(pragma, sizeof pragma, "PRAGMA cache_size = -%ld", atol(argv[4]));
    if (sqlite3_exec(db, pragma, NULL, NULL, NULL) != SQLITE_OK) fail(db, "cache_size");
    if (argc == 6) {
        snprintf(pragma, sizeof pragma, "PRAGMA mmap_size = %lld", atoll(argv[5]));
        if (sqlite3_exec(db, pragma, NULL, NULL, NULL) != SQLITE_OK) fail(db, "mmap_size");
    }

    // Every entry's rowid and key, to ask for at random.
    sqlite3_stmt *scan;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM entry", -1, &scan, NULL) != SQLITE_OK) fail(db, "count");
    sqlite3_step(scan);
    long entries = sqlite3_column_int64(scan, 0);
    sqlite3_finalize(scan);
    sqlite3_int64 *ids = malloc(sizeof *ids * (size_t)entries);
    unsigned char(*keys)[32] = malloc(32 * (size_t)entries);
    long loaded = 0;
    if (sqlite3_prepare_v2(db, "SELECT id, key FROM entry", -1, &scan, NULL) != SQLITE_OK) fail(db, "scan");
    while (loaded < entries && sqlite3_step(scan) == SQLITE_ROW) {
        if (sqlite3_column_bytes(scan, 1) != 32) continue;
        ids[loaded] = sqlite3_column_int64(scan, 0);
        memcpy(keys[loaded], sqlite3_column_blob(scan, 1), 32);
        loaded++;
    }
    sqlite3_finalize(scan);
    if (loaded == 0) {
        fprintf(stderr, "lookup: no entries in %s\n", argv[1]);
        return 1;
    }

    sqlite3_stmt *lookup;
    const char *query = strcmp(mode, "inline") == 0 ? inlineQuery : joinQuery;
    if (sqlite3_prepare_v2(db, query, -1, &lookup, NULL) != SQLITE_OK) fail(db, "prepare");
    srand(1);
    long found = 0, bytes = 0;
    double start = seconds();
    for (long i = 0; i < lookups; i++) {
        long pick = rand() % loaded;
        sqlite3_bind_int64(lookup, 1, ids[pick]);
        sqlite3_bind_blob(lookup, 2, keys[pick], 32, SQLITE_STATIC);
        while (sqlite3_step(lookup) == SQLITE_ROW) {
            found++;
            for (int column = 0; column < sqlite3_column_count(lookup); column++) {
                switch (sqlite3_column_type(lookup, column)) {
                case SQLITE_INTEGER: bytes += sqlite3_column_int64(lookup, column) & 1; break;
                case SQLITE_FLOAT: bytes += sqlite3_column_double(lookup, column) > 0; break;
                case SQLITE_TEXT:
                case SQLITE_BLOB:
                    bytes += sqlite3_column_bytes(lookup, column);
                    bytes += sqlite3_column_blob(lookup, column) != NULL;
                    break;
                default: break;
                }
            }
        }
        sqlite3_reset(lookup);
    }
    double elapsed = seconds() - start;
    if (found != lookups) {
        fprintf(stderr, "lookup: %ld of %ld lookups found their entry\n", found, lookups);
        return 1;
    }
    printf("%.2f\n", elapsed / (double)lookups * 1e6);
    sqlite3_finalize(lookup);
    sqlite3_close(db);
    return bytes == -1;
}
