// The two files Larder's VFS wraps (vfs.c opens them; each .c file says what its wrapper does).
#ifndef LARDER_VFS_FILES_H
#define LARDER_VFS_FILES_H

#include <sqlite3.h>
#include <stddef.h>

/// How both wrappers begin: the sqlite3_file SQLite sees (pMethods the wrapper's), then the default VFS's
/// file, which vfs.c places in the same allocation after the wrapper and sets here before the open.
typedef struct WrappedFile {
    sqlite3_file base;
    sqlite3_file *inner;
} WrappedFile;

/// The size of each wrapper, for where the inner file goes.
extern const size_t batched_wal_bytes;
extern const size_t mapped_database_bytes;

/// Make `handle`, whose inner file vfs.c has just opened as `name`, the wrapper: its methods and state.
void batched_wal_wrap(sqlite3_file *handle);
void mapped_database_wrap(sqlite3_vfs *inner_vfs, const char *name, sqlite3_file *handle);

/// The file methods that go to the inner file as they are (vfs.c); either wrapper's method table uses them.
int wrapped_sync(sqlite3_file *handle, int flags);
int wrapped_file_size(sqlite3_file *handle, sqlite3_int64 *size);
int wrapped_lock(sqlite3_file *handle, int level);
int wrapped_unlock(sqlite3_file *handle, int level);
int wrapped_check_reserved_lock(sqlite3_file *handle, int *result);
int wrapped_sector_size(sqlite3_file *handle);
int wrapped_device_characteristics(sqlite3_file *handle);
int wrapped_shm_map(sqlite3_file *handle, int region, int size, int extend, void volatile **pointer);
int wrapped_shm_lock(sqlite3_file *handle, int offset, int count, int flags);
void wrapped_shm_barrier(sqlite3_file *handle);
int wrapped_shm_unmap(sqlite3_file *handle, int delete_flag);

#endif
