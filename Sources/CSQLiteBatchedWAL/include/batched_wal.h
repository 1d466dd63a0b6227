// A SQLite VFS that writes each transaction's WAL frames to the file in one system call instead of two a
// frame (batched_wal.c says how, and why it is safe).
#ifndef LARDER_BATCHED_WAL_H
#define LARDER_BATCHED_WAL_H

/// The name to open a database with (sqlite3_open_v2's last argument) to batch its WAL writes.
#define BATCHED_WAL_VFS_NAME "larder-batched-wal"

/// Registers the VFS over the default one (not as the default); safe to call more than once and from
/// several threads. Returns SQLITE_OK, or SQLite's error when the default VFS is missing or registration
/// fails.
int batched_wal_register(void);

/// Counts kept since the process started, for tests and benchmarks: WAL writes SQLite asked for
/// (`requested`), and writes that reached the file (`performed`: flushed batches and written-through
/// writes).
void batched_wal_counts(long long *requested, long long *performed);

#endif
