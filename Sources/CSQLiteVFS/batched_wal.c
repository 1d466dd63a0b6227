// Batched WAL writes: the WAL file of Larder's VFS (vfs.c).
//
// SQLite writes every WAL frame with two pwrite calls, its 24-byte header then its page
// (https://sqlite.org/fileformat2.html#walformat), so a transaction of N pages costs 2N system calls, each
// taking the file's locks and updating its times: under a flood of stored misses (four or five pages a
// miss) the WAL's writes were about 7 % of the process's CPU time. Larder's VFS wraps each WAL file of
// the default one in this file, which keeps a buffer: a frame header and the page right after it are
// copied in, and the buffer is written with one pwrite when the frame whose header marks a commit (a
// non-zero database size, bytes 4-7) has its page in.
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
#include "larder_vfs.h"
#include "vfs_files.h"

#include <sqlite3.h>
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
    sqlite3_file *inner;                 // the default VFS's file, set by vfs.c, in the same allocation
    unsigned char *buffer;               // BUFFER_BYTES, allocated at the first frame; NULL before
    sqlite3_int64 start;                 // file offset of buffer[0]
    int length;                          // bytes in the buffer
    enum Expecting expecting;
    sqlite3_int64 pageOffset;            // where the page of the buffered header goes
    int commits;                         // whether the buffered header marks a commit
    long long requested;                 // writes SQLite asked for (CSQLITEVFS_FCNTL_WAL_WRITES)
    long long performed;                 // writes that reached the file
} BatchedFile;

// Writes the buffer to the file, in pieces of at most PIECE_BYTES; the buffer is empty afterwards whatever
// the outcome.
static int flush(BatchedFile *file) {
    file->expecting = EXPECT_HEADER;
    int length = file->length;
    file->length = 0;
    for (int done = 0; done < length;) {
        int piece = length - done < PIECE_BYTES ? length - done : PIECE_BYTES;
        file->performed++;
        int rc = file->inner->pMethods->xWrite(file->inner, file->buffer + done, piece, file->start + done);
        if (rc != SQLITE_OK) return rc;
        done += piece;
    }
    return SQLITE_OK;
}

static int write_through(BatchedFile *file, const void *bytes, int amount, sqlite3_int64 offset) {
    int rc = flush(file);
    if (rc != SQLITE_OK) return rc;
    file->performed++;
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
    file->requested++;
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
    if (op == CSQLITEVFS_FCNTL_WAL_WRITES) {
        // Before the flush below, which would count as a write.
        long long *counts = argument;
        counts[0] = file->requested;
        counts[1] = file->performed;
        return SQLITE_OK;
    }
    int rc = flush(file);
    if (rc != SQLITE_OK) return rc;
    return file->inner->pMethods->xFileControl(file->inner, op, argument);
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
    wrapped_lock,
    wrapped_unlock,
    wrapped_check_reserved_lock,
    batched_file_control,
    wrapped_sector_size,
    wrapped_device_characteristics,
    NULL, NULL, NULL, NULL, NULL, NULL,
};

const size_t batched_wal_bytes = sizeof(BatchedFile);

void batched_wal_wrap(sqlite3_file *handle) { handle->pMethods = &batched_methods; }
