// The only home of static inline wrappers for SQLite macros that Swift cannot import.
#ifndef LARDER_CSQLITE_SHIM_H
#define LARDER_CSQLITE_SHIM_H
#include <sqlite3.h>

/// Binds a blob that SQLite copies before returning (SQLITE_TRANSIENT cannot be imported).
static inline int csqlite_bind_blob_transient(sqlite3_stmt *stmt, int index, const void *bytes, int count) {
    return sqlite3_bind_blob(stmt, index, bytes, count, SQLITE_TRANSIENT);
}

/// Binds UTF-8 text that SQLite copies before returning.
static inline int csqlite_bind_text_transient(sqlite3_stmt *stmt, int index, const char *text, int count) {
    return sqlite3_bind_text(stmt, index, text, count, SQLITE_TRANSIENT);
}

/// Sets whether SQLite keeps memory statistics (https://sqlite.org/c3ref/c_config_covering_index_scan.html,
/// SQLITE_CONFIG_MEMSTATUS). With them on, every allocation and free SQLite makes takes one process-wide
/// mutex to count itself. Must run before the library initializes (the first open); SQLITE_MISUSE after.
static inline int csqlite_config_memory_statistics(int on) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on);
}

#endif
