// Larder's SQLite VFS over the default one: each transaction's WAL frames reach the file in one system call
// instead of two a frame (batched_wal.c), and a database file is read through one memory map that the
// process's connections share and keep across commits (mapped_database.c). vfs.c says what is wrapped.
#ifndef LARDER_VFS_H
#define LARDER_VFS_H

/// The name to open a database with (sqlite3_open_v2's last argument).
#define CSQLITEVFS_NAME "larder"

/// Registers the VFS over the default one (not as the default); safe to call more than once and from
/// several threads. Returns SQLITE_OK, or SQLite's error when the default VFS is missing or registration
/// fails.
int larder_vfs_register(void);

/// A file control of the VFS's WAL files, for tests: sent to the WAL (`SQLITE_FCNTL_JOURNAL_POINTER` finds
/// it), it sets a `long long[2]` to the writes SQLite asked of that file since it was opened and the writes
/// that reached it (flushed batches and written-through writes).
#define CSQLITEVFS_FCNTL_WAL_WRITES 0x4c57

/// A file control of the VFS's database files, for tests: `sqlite3_file_control(db, "main",
/// CSQLITEVFS_FCNTL_MAP, &pointer)` sets a `void *` to the start of the map the connection reads its database
/// file through, or to NULL when it reads without one. (SQLite keeps opcodes below 100 for its own.)
#define CSQLITEVFS_FCNTL_MAP 0x4c4d

#endif
