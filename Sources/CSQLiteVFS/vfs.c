// Larder's SQLite VFS: the default one (`unix`) with two of its files wrapped.
//
//  - A WAL file writes each transaction's frames in one system call instead of two a frame
//    (batched_wal.c).
//  - A main database file is read through one memory map that the process's connections share and keep
//    across commits, for each connection that asks for it with `PRAGMA mmap_size` (mapped_database.c).
//
// Journals, temporary files and the shared-memory index are the default VFS's own objects, in the memory
// SQLite gives, with no wrapper; so is every operation that is not about one file.
#include "larder_vfs.h"
#include "vfs_files.h"

#include <pthread.h>
#include <sqlite3.h>
#include <string.h>

static sqlite3_vfs larder_vfs;
static sqlite3_vfs *inner_vfs;

// Where a wrapper's inner file starts: after the larger wrapper, aligned for any of its fields.
static size_t inner_offset(void) {
    size_t wrapper = batched_wal_bytes > mapped_database_bytes ? batched_wal_bytes : mapped_database_bytes;
    return (wrapper + 15) & ~(size_t)15;
}

static int vfs_open(sqlite3_vfs *self, const char *name, sqlite3_file *handle, int flags, int *out_flags) {
    (void)self;
    int wal = (flags & SQLITE_OPEN_WAL) != 0;
    int database = (flags & SQLITE_OPEN_MAIN_DB) != 0 && name != NULL;
    if (!wal && !database) return inner_vfs->xOpen(inner_vfs, name, handle, flags, out_flags);
    // The inner file's memory too: its pMethods must read NULL if its xOpen fails before setting it.
    memset(handle, 0, (size_t)larder_vfs.szOsFile);
    // Both wrappers start with the sqlite3_file SQLite sees, then the pointer to the inner file.
    WrappedFile *file = (WrappedFile *)handle;
    file->inner = (sqlite3_file *)((unsigned char *)handle + inner_offset());
    int rc = inner_vfs->xOpen(inner_vfs, name, file->inner, flags, out_flags);
    if (rc != SQLITE_OK) {
        // SQLite calls xClose only on a file whose pMethods is set: the wrapper's stays NULL.
        if (file->inner->pMethods != NULL) file->inner->pMethods->xClose(file->inner);
        return rc;
    }
    if (wal) {
        batched_wal_wrap(handle);
    } else {
        mapped_database_wrap(inner_vfs, name, handle);
    }
    return SQLITE_OK;
}

// The file methods both wrappers pass to the inner file as they are.
int wrapped_sync(sqlite3_file *handle, int flags) {
    sqlite3_file *inner = ((WrappedFile *)handle)->inner;
    return inner->pMethods->xSync(inner, flags);
}

int wrapped_file_size(sqlite3_file *handle, sqlite3_int64 *size) {
    sqlite3_file *inner = ((WrappedFile *)handle)->inner;
    return inner->pMethods->xFileSize(inner, size);
}

int wrapped_lock(sqlite3_file *handle, int level) {
    sqlite3_file *inner = ((WrappedFile *)handle)->inner;
    return inner->pMethods->xLock(inner, level);
}

int wrapped_unlock(sqlite3_file *handle, int level) {
    sqlite3_file *inner = ((WrappedFile *)handle)->inner;
    return inner->pMethods->xUnlock(inner, level);
}

int wrapped_check_reserved_lock(sqlite3_file *handle, int *result) {
    sqlite3_file *inner = ((WrappedFile *)handle)->inner;
    return inner->pMethods->xCheckReservedLock(inner, result);
}

int wrapped_sector_size(sqlite3_file *handle) {
    sqlite3_file *inner = ((WrappedFile *)handle)->inner;
    return inner->pMethods->xSectorSize(inner);
}

int wrapped_device_characteristics(sqlite3_file *handle) {
    sqlite3_file *inner = ((WrappedFile *)handle)->inner;
    return inner->pMethods->xDeviceCharacteristics(inner);
}

int wrapped_shm_map(sqlite3_file *handle, int region, int size, int extend, void volatile **pointer) {
    sqlite3_file *inner = ((WrappedFile *)handle)->inner;
    return inner->pMethods->xShmMap(inner, region, size, extend, pointer);
}

int wrapped_shm_lock(sqlite3_file *handle, int offset, int count, int flags) {
    sqlite3_file *inner = ((WrappedFile *)handle)->inner;
    return inner->pMethods->xShmLock(inner, offset, count, flags);
}

void wrapped_shm_barrier(sqlite3_file *handle) {
    sqlite3_file *inner = ((WrappedFile *)handle)->inner;
    inner->pMethods->xShmBarrier(inner);
}

int wrapped_shm_unmap(sqlite3_file *handle, int delete_flag) {
    sqlite3_file *inner = ((WrappedFile *)handle)->inner;
    return inner->pMethods->xShmUnmap(inner, delete_flag);
}

// The VFS methods that are not about one file go to the inner VFS.
static int vfs_delete(sqlite3_vfs *self, const char *name, int sync_directory) {
    (void)self;
    return inner_vfs->xDelete(inner_vfs, name, sync_directory);
}

static int vfs_access(sqlite3_vfs *self, const char *name, int flags, int *result) {
    (void)self;
    return inner_vfs->xAccess(inner_vfs, name, flags, result);
}

static int vfs_full_pathname(sqlite3_vfs *self, const char *name, int size, char *out) {
    (void)self;
    return inner_vfs->xFullPathname(inner_vfs, name, size, out);
}

static void *vfs_dl_open(sqlite3_vfs *self, const char *name) {
    (void)self;
    return inner_vfs->xDlOpen(inner_vfs, name);
}

static void vfs_dl_error(sqlite3_vfs *self, int size, char *message) {
    (void)self;
    inner_vfs->xDlError(inner_vfs, size, message);
}

static void (*vfs_dl_sym(sqlite3_vfs *self, void *library, const char *symbol))(void) {
    (void)self;
    return inner_vfs->xDlSym(inner_vfs, library, symbol);
}

static void vfs_dl_close(sqlite3_vfs *self, void *library) {
    (void)self;
    inner_vfs->xDlClose(inner_vfs, library);
}

static int vfs_randomness(sqlite3_vfs *self, int size, char *out) {
    (void)self;
    return inner_vfs->xRandomness(inner_vfs, size, out);
}

static int vfs_sleep(sqlite3_vfs *self, int microseconds) {
    (void)self;
    return inner_vfs->xSleep(inner_vfs, microseconds);
}

static int vfs_current_time(sqlite3_vfs *self, double *now) {
    (void)self;
    return inner_vfs->xCurrentTime(inner_vfs, now);
}

static int vfs_get_last_error(sqlite3_vfs *self, int size, char *message) {
    (void)self;
    return inner_vfs->xGetLastError ? inner_vfs->xGetLastError(inner_vfs, size, message) : 0;
}

static int vfs_current_time_int64(sqlite3_vfs *self, sqlite3_int64 *now) {
    (void)self;
    return inner_vfs->xCurrentTimeInt64(inner_vfs, now);
}

static pthread_once_t registration = PTHREAD_ONCE_INIT;
static int registration_result = SQLITE_ERROR;

static void register_once(void) {
    inner_vfs = sqlite3_vfs_find(NULL);
    if (inner_vfs == NULL || inner_vfs->iVersion < 2) return;
    larder_vfs.iVersion = 2;
    larder_vfs.szOsFile = (int)(inner_offset() + (size_t)inner_vfs->szOsFile);
    larder_vfs.mxPathname = inner_vfs->mxPathname;
    larder_vfs.zName = CSQLITEVFS_NAME;
    larder_vfs.xOpen = vfs_open;
    larder_vfs.xDelete = vfs_delete;
    larder_vfs.xAccess = vfs_access;
    larder_vfs.xFullPathname = vfs_full_pathname;
    larder_vfs.xDlOpen = vfs_dl_open;
    larder_vfs.xDlError = vfs_dl_error;
    larder_vfs.xDlSym = vfs_dl_sym;
    larder_vfs.xDlClose = vfs_dl_close;
    larder_vfs.xRandomness = vfs_randomness;
    larder_vfs.xSleep = vfs_sleep;
    larder_vfs.xCurrentTime = vfs_current_time;
    larder_vfs.xGetLastError = vfs_get_last_error;
    larder_vfs.xCurrentTimeInt64 = vfs_current_time_int64;
    registration_result = sqlite3_vfs_register(&larder_vfs, 0);
}

int larder_vfs_register(void) {
    pthread_once(&registration, register_once);
    return registration_result;
}

