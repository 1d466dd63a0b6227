// Batched WAL writes.
//
// SQLite writes every WAL frame with two pwrite calls, its 24-byte header then its page
// (https://sqlite.org/fileformat2.html#walformat), so a transaction of N pages costs 2N system calls, each
// taking the file's locks and updating its times: under a flood of stored misses (four or five pages a
// miss) the WAL's writes were about 7 % of the process's CPU time. This VFS wraps the default one. A
// database, its journal and shared-memory files are the default VFS's own objects, untouched. A WAL file
// keeps a buffer: a frame header and the page right after it are copied in, and the buffer is written
// with one pwrite when the frame whose header marks a commit (a non-zero database size, bytes 4-7) has
// its page in.
//
// Why that is safe: a transaction is visible to other connections only once the writer has published a
// new WAL-index header, which SQLite does after writing the commit frame (and any padding frames, each a
// commit frame too); every frame of the transaction is in the file before the xWrite of the commit
// frame's page returns, and a failure to write them is that xWrite's error, so the transaction fails as
// it would have. Frames of a transaction not yet committed are read only by the connection that wrote
// them, through this same file object, and xRead, xSync, xTruncate, xFileSize, xFileControl and xClose
// write the buffer first. Anything that is not a header followed by its page (the WAL header, a write
// elsewhere in the file, a size SQLite might use one day) writes the buffer first and then goes straight
// to the file, so the file's contents after each xWrite that returns are those the default VFS would
// have left whenever they can be read.
#include "batched_wal.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

enum {
    FRAME_HEADER_BYTES = 24,
    // A whole transaction of a busy commit group fits; a bigger one is written a buffer at a time.
    BUFFER_BYTES = 1 << 20,
    // The most the unix VFS writes in one call: it masks a write's size to 17 bits (seekAndWriteFd in
    // os_unix.c), so 128 KiB or more would come back short, as SQLITE_FULL. 30 pages of 4 KiB.
    PIECE_BYTES = 30 * 4096,
};

// What the next write must be for the buffer to take it.
enum Expecting { EXPECT_HEADER, EXPECT_PAGE };

typedef struct BatchedFile {
    sqlite3_file base;                   // pMethods: batched_methods
    sqlite3_file *inner;                 // the default VFS's file, in the same allocation, after this struct
    unsigned char *buffer;               // BUFFER_BYTES, allocated at the first frame; NULL before
    sqlite3_int64 start;                 // file offset of buffer[0]
    int length;                          // bytes in the buffer
    enum Expecting expecting;
    sqlite3_int64 pageOffset;            // where the page of the buffered header goes
    int commits;                         // whether the buffered header marks a commit
} BatchedFile;

static sqlite3_vfs batched_vfs;
static sqlite3_vfs *inner_vfs;
static atomic_llong requested_writes;
static atomic_llong performed_writes;

static size_t inner_offset(void) {
    // The inner file must be aligned for any of its fields.
    return (sizeof(BatchedFile) + 15) & ~(size_t)15;
}

// Writes the buffer to the file, in pieces of at most PIECE_BYTES; the buffer is empty afterwards whatever
// the outcome.
static int flush(BatchedFile *file) {
    file->expecting = EXPECT_HEADER;
    int length = file->length;
    file->length = 0;
    for (int done = 0; done < length;) {
        int piece = length - done < PIECE_BYTES ? length - done : PIECE_BYTES;
        atomic_fetch_add_explicit(&performed_writes, 1, memory_order_relaxed);
        int rc = file->inner->pMethods->xWrite(file->inner, file->buffer + done, piece, file->start + done);
        if (rc != SQLITE_OK) return rc;
        done += piece;
    }
    return SQLITE_OK;
}

static int write_through(BatchedFile *file, const void *bytes, int amount, sqlite3_int64 offset) {
    int rc = flush(file);
    if (rc != SQLITE_OK) return rc;
    atomic_fetch_add_explicit(&performed_writes, 1, memory_order_relaxed);
    return file->inner->pMethods->xWrite(file->inner, bytes, amount, offset);
}

static int is_page_size(int amount) {
    return amount >= 512 && amount <= 65536 && (amount & (amount - 1)) == 0;
}

static void append(BatchedFile *file, const void *bytes, int amount, sqlite3_int64 offset) {
    if (file->length == 0) file->start = offset;
    memcpy(file->buffer + file->length, bytes, (size_t)amount);
    file->length += amount;
}

static int batched_write(sqlite3_file *handle, const void *bytes, int amount, sqlite3_int64 offset) {
    BatchedFile *file = (BatchedFile *)handle;
    atomic_fetch_add_explicit(&requested_writes, 1, memory_order_relaxed);
    if (file->expecting == EXPECT_PAGE) {
        if (offset != file->pageOffset || !is_page_size(amount)) return write_through(file, bytes, amount, offset);
        append(file, bytes, amount, offset);
        file->expecting = EXPECT_HEADER;
        return file->commits ? flush(file) : SQLITE_OK;
    }
    if (amount != FRAME_HEADER_BYTES) return write_through(file, bytes, amount, offset);
    // A header goes in only where it continues the buffer, with room for the largest page after it.
    int continues = file->length == 0 || offset == file->start + file->length;
    if (!continues || file->length + FRAME_HEADER_BYTES + 65536 > BUFFER_BYTES) {
        int rc = flush(file);
        if (rc != SQLITE_OK) return rc;
    }
    if (file->buffer == NULL) {
        file->buffer = sqlite3_malloc(BUFFER_BYTES);
        if (file->buffer == NULL) return write_through(file, bytes, amount, offset);
    }
    const unsigned char *header = bytes;
    file->commits = (header[4] | header[5] | header[6] | header[7]) != 0;
    append(file, bytes, amount, offset);
    file->pageOffset = offset + FRAME_HEADER_BYTES;
    file->expecting = EXPECT_PAGE;
    return SQLITE_OK;
}

static int batched_close(sqlite3_file *handle) {
    BatchedFile *file = (BatchedFile *)handle;
    int rc = flush(file);
    int closed = file->inner->pMethods->xClose(file->inner);
    sqlite3_free(file->buffer);
    file->buffer = NULL;
    return rc != SQLITE_OK ? rc : closed;
}

static int batched_read(sqlite3_file *handle, void *bytes, int amount, sqlite3_int64 offset) {
    BatchedFile *file = (BatchedFile *)handle;
    int rc = flush(file);
    if (rc != SQLITE_OK) return rc;
    return file->inner->pMethods->xRead(file->inner, bytes, amount, offset);
}

static int batched_truncate(sqlite3_file *handle, sqlite3_int64 size) {
    BatchedFile *file = (BatchedFile *)handle;
    int rc = flush(file);
    if (rc != SQLITE_OK) return rc;
    return file->inner->pMethods->xTruncate(file->inner, size);
}

static int batched_sync(sqlite3_file *handle, int flags) {
    BatchedFile *file = (BatchedFile *)handle;
    int rc = flush(file);
    if (rc != SQLITE_OK) return rc;
    return file->inner->pMethods->xSync(file->inner, flags);
}

static int batched_file_size(sqlite3_file *handle, sqlite3_int64 *size) {
    BatchedFile *file = (BatchedFile *)handle;
    int rc = flush(file);
    if (rc != SQLITE_OK) return rc;
    return file->inner->pMethods->xFileSize(file->inner, size);
}

static int batched_file_control(sqlite3_file *handle, int op, void *argument) {
    BatchedFile *file = (BatchedFile *)handle;
    int rc = flush(file);
    if (rc != SQLITE_OK) return rc;
    return file->inner->pMethods->xFileControl(file->inner, op, argument);
}

// The rest go to the inner file as they are.
static int batched_lock(sqlite3_file *handle, int level) {
    sqlite3_file *inner = ((BatchedFile *)handle)->inner;
    return inner->pMethods->xLock(inner, level);
}

static int batched_unlock(sqlite3_file *handle, int level) {
    sqlite3_file *inner = ((BatchedFile *)handle)->inner;
    return inner->pMethods->xUnlock(inner, level);
}

static int batched_check_reserved_lock(sqlite3_file *handle, int *result) {
    sqlite3_file *inner = ((BatchedFile *)handle)->inner;
    return inner->pMethods->xCheckReservedLock(inner, result);
}

static int batched_sector_size(sqlite3_file *handle) {
    sqlite3_file *inner = ((BatchedFile *)handle)->inner;
    return inner->pMethods->xSectorSize(inner);
}

static int batched_device_characteristics(sqlite3_file *handle) {
    sqlite3_file *inner = ((BatchedFile *)handle)->inner;
    return inner->pMethods->xDeviceCharacteristics(inner);
}

// A WAL file of version 1: SQLite uses shared memory and memory maps on the database file, not on its WAL.
static const sqlite3_io_methods batched_methods = {
    1,
    batched_close,
    batched_read,
    batched_write,
    batched_truncate,
    batched_sync,
    batched_file_size,
    batched_lock,
    batched_unlock,
    batched_check_reserved_lock,
    batched_file_control,
    batched_sector_size,
    batched_device_characteristics,
    NULL, NULL, NULL, NULL, NULL, NULL,
};

static int batched_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *handle, int flags, int *out_flags) {
    (void)vfs;
    if (!(flags & SQLITE_OPEN_WAL)) {
        // Everything but a WAL is the inner VFS's own file, in the memory SQLite gave: no wrapper at all.
        return inner_vfs->xOpen(inner_vfs, name, handle, flags, out_flags);
    }
    BatchedFile *file = (BatchedFile *)handle;
    // The inner file's memory too: its pMethods must read NULL if its xOpen fails before setting it.
    memset(handle, 0, (size_t)batched_vfs.szOsFile);
    file->inner = (sqlite3_file *)((unsigned char *)handle + inner_offset());
    int rc = inner_vfs->xOpen(inner_vfs, name, file->inner, flags, out_flags);
    if (rc != SQLITE_OK) {
        // SQLite calls xClose only on a file whose pMethods is set.
        if (file->inner->pMethods != NULL) file->inner->pMethods->xClose(file->inner);
        file->base.pMethods = NULL;
        return rc;
    }
    file->base.pMethods = &batched_methods;
    return SQLITE_OK;
}

// The VFS methods that are not about one file go to the inner VFS.
static int batched_delete(sqlite3_vfs *vfs, const char *name, int sync_directory) {
    (void)vfs;
    return inner_vfs->xDelete(inner_vfs, name, sync_directory);
}

static int batched_access(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    (void)vfs;
    return inner_vfs->xAccess(inner_vfs, name, flags, result);
}

static int batched_full_pathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    return inner_vfs->xFullPathname(inner_vfs, name, size, out);
}

static void *batched_dl_open(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return inner_vfs->xDlOpen(inner_vfs, name);
}

static void batched_dl_error(sqlite3_vfs *vfs, int size, char *message) {
    (void)vfs;
    inner_vfs->xDlError(inner_vfs, size, message);
}

static void (*batched_dl_sym(sqlite3_vfs *vfs, void *library, const char *symbol))(void) {
    (void)vfs;
    return inner_vfs->xDlSym(inner_vfs, library, symbol);
}

static void batched_dl_close(sqlite3_vfs *vfs, void *library) {
    (void)vfs;
    inner_vfs->xDlClose(inner_vfs, library);
}

static int batched_randomness(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return inner_vfs->xRandomness(inner_vfs, size, out);
}

static int batched_sleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    return inner_vfs->xSleep(inner_vfs, microseconds);
}

static int batched_current_time(sqlite3_vfs *vfs, double *now) {
    (void)vfs;
    return inner_vfs->xCurrentTime(inner_vfs, now);
}

static int batched_get_last_error(sqlite3_vfs *vfs, int size, char *message) {
    (void)vfs;
    return inner_vfs->xGetLastError ? inner_vfs->xGetLastError(inner_vfs, size, message) : 0;
}

static int batched_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *now) {
    (void)vfs;
    return inner_vfs->xCurrentTimeInt64(inner_vfs, now);
}

static pthread_once_t registration = PTHREAD_ONCE_INIT;
static int registration_result = SQLITE_ERROR;

static void register_once(void) {
    inner_vfs = sqlite3_vfs_find(NULL);
    if (inner_vfs == NULL || inner_vfs->iVersion < 2) return;
    batched_vfs.iVersion = 2;
    batched_vfs.szOsFile = (int)(inner_offset() + (size_t)inner_vfs->szOsFile);
    batched_vfs.mxPathname = inner_vfs->mxPathname;
    batched_vfs.zName = BATCHED_WAL_VFS_NAME;
    batched_vfs.xOpen = batched_open;
    batched_vfs.xDelete = batched_delete;
    batched_vfs.xAccess = batched_access;
    batched_vfs.xFullPathname = batched_full_pathname;
    batched_vfs.xDlOpen = batched_dl_open;
    batched_vfs.xDlError = batched_dl_error;
    batched_vfs.xDlSym = batched_dl_sym;
    batched_vfs.xDlClose = batched_dl_close;
    batched_vfs.xRandomness = batched_randomness;
    batched_vfs.xSleep = batched_sleep;
    batched_vfs.xCurrentTime = batched_current_time;
    batched_vfs.xGetLastError = batched_get_last_error;
    batched_vfs.xCurrentTimeInt64 = batched_current_time_int64;
    registration_result = sqlite3_vfs_register(&batched_vfs, 0);
}

int batched_wal_register(void) {
    pthread_once(&registration, register_once);
    return registration_result;
}

void batched_wal_counts(long long *requested, long long *performed) {
    *requested = atomic_load_explicit(&requested_writes, memory_order_relaxed);
    *performed = atomic_load_explicit(&performed_writes, memory_order_relaxed);
}
