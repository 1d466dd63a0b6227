// A database file of Larder's VFS (vfs.c): one lasting memory map of it, shared by the process's
// connections.
//
// SQLite's own memory mapping (https://sqlite.org/mmap.html) is kept per connection, and in WAL mode a
// connection unmaps the whole file at its first read after any other connection committed
// (`pagerBeginReadTransaction`: `pager_reset`, then `sqlite3OsUnfetch(fd, 0, 0)`). A cache commits all
// the time, so each reader mapped the file again, page fault by page fault, after nearly every lookup
// (docs/ARCHITECTURE.md, "Connections share one lasting map of the store"). Here the database file of
// every connection is a thin wrapper over the default VFS's file, and a connection that asks for a map
// reads through one read-only MAP_SHARED mapping of the file, made once per file and process and undone
// when its last connection closes. A connection asks with the SQLITE_FCNTL_MMAP_SIZE file control and a
// positive length (`SQLiteConnection.mapDatabase`; the length of the first request is the map's, since
// `PRAGMA mmap_size` caps what it passes at 2 GB). Then:
//
//  - xRead copies from the map instead of making a pread system call (the pages SQLite keeps in its page
//    cache, and a large row's overflow pages, which it reads with xRead straight into the row's buffer);
//  - if `PRAGMA mmap_size` also turned on SQLite's fetching (readers), xFetch gives SQLite a pointer into
//    the map, where it reads the page in place without a copy; xUnfetch releases nothing, so the map
//    outlives every commit.
//
// Why the bytes read are those a pread would have returned: the mapping is of the file itself, coherent
// with its page cache, so it shows every write as soon as the write returns, and SQLite reads from the
// database file only pages that are not in the WAL, whose contents in the file belong to every open
// snapshot (a checkpoint copies no frame newer than the oldest reader's). What a map adds is the file's
// end: touching a mapped page wholly beyond it raises SIGBUS. So only the bytes below `readable` are read
// through the map, and everything else with the default VFS's read. `readable` starts at the file's size
// and follows what this process does to it: a write through any connection's wrapper raises it to the
// write's end once the write returned, a size hint to the size the file then has; a truncation lowers it
// before the file shrinks (SQLite shrinks a database file only in the checkpoint after a VACUUM or with
// auto-vacuum, neither of which Larder uses). What this map does not guard against is another process
// shrinking the file under it: SQLite's own map reads the file's size again at every read transaction, and
// this one does not, so that a lookup makes no system call. An I/O error while the kernel fills a mapped
// page is also a SIGBUS, where a pread would have failed one read: the trade every memory-mapped store
// makes (docs/ARCHITECTURE.md says when to turn the map off).
#include "larder_vfs.h"
#include "vfs_files.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

// What the process knows of one database file (one inode), shared by every connection to it.
typedef struct SharedFile {
    dev_t device;
    ino_t inode;
    int users;                   // open wrappers of this file; guarded by `files_lock`
    _Atomic(unsigned char *) map;  // the mapping's start, NULL until a connection asks for one
    sqlite3_int64 length;        // the mapping's length; set once with `map`, under `files_lock`
    atomic_llong readable;       // bytes from the start that exist in the file (see the top of the file)
    struct SharedFile *next;
} SharedFile;

typedef struct MappedDatabase {
    sqlite3_file base;           // pMethods: mapped_methods
    sqlite3_file *inner;         // the default VFS's file, set by vfs.c, in the same allocation
    sqlite3_vfs *innerVFS;       // the default VFS, whose file `inner` is
    SharedFile *shared;          // the process's record of the file; NULL if it could not be examined
    int usesMap;                 // whether this connection asked for the map and it exists
} MappedDatabase;

const size_t mapped_database_bytes = sizeof(MappedDatabase);

// Guards `files` and each record's `users`, and the making and undoing of maps.
static pthread_mutex_t files_lock = PTHREAD_MUTEX_INITIALIZER;
static SharedFile *files;

static void raise_readable(SharedFile *shared, sqlite3_int64 size) {
    sqlite3_int64 known = atomic_load_explicit(&shared->readable, memory_order_relaxed);
    while (size > known &&
           !atomic_compare_exchange_weak_explicit(&shared->readable, &known, size, memory_order_release,
                                                  memory_order_relaxed)) {
    }
}

static void lower_readable(SharedFile *shared, sqlite3_int64 size) {
    sqlite3_int64 known = atomic_load_explicit(&shared->readable, memory_order_relaxed);
    while (size < known &&
           !atomic_compare_exchange_weak_explicit(&shared->readable, &known, size, memory_order_seq_cst,
                                                  memory_order_relaxed)) {
    }
}

// The mapped bytes [offset, offset + amount), or NULL when any of them is not both mapped and readable.
static const unsigned char *mapped_bytes(const MappedDatabase *file, sqlite3_int64 offset, int amount) {
    SharedFile *shared = file->shared;
    if (shared == NULL || !file->usesMap || offset < 0) return NULL;
    unsigned char *map = atomic_load_explicit(&shared->map, memory_order_acquire);
    if (map == NULL) return NULL;
    sqlite3_int64 end = offset + amount;
    if (end > shared->length || end > atomic_load_explicit(&shared->readable, memory_order_acquire)) return NULL;
    return map + offset;
}

static int mapped_read(sqlite3_file *handle, void *bytes, int amount, sqlite3_int64 offset) {
    MappedDatabase *file = (MappedDatabase *)handle;
    const unsigned char *source = mapped_bytes(file, offset, amount);
    if (source == NULL) return file->inner->pMethods->xRead(file->inner, bytes, amount, offset);
    memcpy(bytes, source, (size_t)amount);
    return SQLITE_OK;
}

static int mapped_write(sqlite3_file *handle, const void *bytes, int amount, sqlite3_int64 offset) {
    MappedDatabase *file = (MappedDatabase *)handle;
    int rc = file->inner->pMethods->xWrite(file->inner, bytes, amount, offset);
    if (rc == SQLITE_OK && file->shared != NULL) raise_readable(file->shared, offset + amount);
    return rc;
}

static int mapped_truncate(sqlite3_file *handle, sqlite3_int64 size) {
    MappedDatabase *file = (MappedDatabase *)handle;
    if (file->shared != NULL) lower_readable(file->shared, size);
    return file->inner->pMethods->xTruncate(file->inner, size);
}

// The descriptor of the default VFS's file, for mmap, or -1. Larder never opens a descriptor of its own on
// the database: closing any descriptor of a file drops every POSIX lock the process holds on it, SQLite's
// included, and with them gone another process may take the file for itself (a first version did so, and
// a `sqlite3` shell that read the store during a benchmark removed the WAL under the running server). The
// unix VFS keeps its descriptor in the fourth field of its file (os_unix.c, `struct unixFile`: pMethod,
// pVfs, pInode, h, a layout older than WAL mode); it is taken only when the second field is that VFS and
// the descriptor is the file `shared` records, and otherwise the connection reads without a map.
typedef struct UnixFileHead {
    const sqlite3_io_methods *methods;
    sqlite3_vfs *vfs;
    void *inode;
    int descriptor;
} UnixFileHead;

static int inner_descriptor(const MappedDatabase *file) {
    if (strcmp(file->innerVFS->zName, "unix") != 0) return -1;
    const UnixFileHead *head = (const UnixFileHead *)file->inner;
    if (head->vfs != file->innerVFS || head->descriptor < 0) return -1;
    struct stat status;
    if (fstat(head->descriptor, &status) != 0) return -1;
    if (status.st_dev != file->shared->device || status.st_ino != file->shared->inode) return -1;
    return head->descriptor;
}

// Makes the file's mapping if no connection has yet; false when it cannot be made (the connection then
// reads as the default VFS does).
static int map_shared_file(MappedDatabase *file, sqlite3_int64 length) {
    SharedFile *shared = file->shared;
    pthread_mutex_lock(&files_lock);
    if (atomic_load_explicit(&shared->map, memory_order_relaxed) == NULL) {
        int descriptor = inner_descriptor(file);
        void *map = descriptor < 0 ? MAP_FAILED : mmap(NULL, (size_t)length, PROT_READ, MAP_SHARED, descriptor, 0);
        if (map != MAP_FAILED) {
            shared->length = length;
            atomic_store_explicit(&shared->map, map, memory_order_release);
        }
    }
    int mapped = atomic_load_explicit(&shared->map, memory_order_relaxed) != NULL;
    pthread_mutex_unlock(&files_lock);
    return mapped;
}

static int mapped_file_control(sqlite3_file *handle, int op, void *argument) {
    MappedDatabase *file = (MappedDatabase *)handle;
    if (op == SQLITE_FCNTL_MMAP_SIZE && file->shared != NULL) {
        // Never passed on: the default VFS's own per-connection map is what this one replaces.
        sqlite3_int64 *size = argument;
        if (*size > 0 && !file->usesMap) file->usesMap = map_shared_file(file, *size);
        *size = file->usesMap ? file->shared->length : 0;
        return SQLITE_OK;
    }
    if (op == CSQLITEVFS_FCNTL_MAP) {
        *(void **)argument = file->usesMap ? atomic_load_explicit(&file->shared->map, memory_order_acquire) : NULL;
        return SQLITE_OK;
    }
    int rc = file->inner->pMethods->xFileControl(file->inner, op, argument);
    if (op == SQLITE_FCNTL_SIZE_HINT && rc == SQLITE_OK && file->shared != NULL) {
        // The default VFS may have grown the file to the hinted size: its size now is what may be read.
        sqlite3_int64 size;
        if (file->inner->pMethods->xFileSize(file->inner, &size) == SQLITE_OK) raise_readable(file->shared, size);
    }
    return rc;
}

static int mapped_fetch(sqlite3_file *handle, sqlite3_int64 offset, int amount, void **pointer) {
    MappedDatabase *file = (MappedDatabase *)handle;
    if (file->shared == NULL) return file->inner->pMethods->xFetch(file->inner, offset, amount, pointer);
    *pointer = (void *)mapped_bytes(file, offset, amount);
    return SQLITE_OK;
}

static int mapped_unfetch(sqlite3_file *handle, sqlite3_int64 offset, void *pointer) {
    MappedDatabase *file = (MappedDatabase *)handle;
    if (file->shared == NULL) return file->inner->pMethods->xUnfetch(file->inner, offset, pointer);
    // Nothing to release: the map lasts as long as the file has a connection.
    return SQLITE_OK;
}

static void release_shared_file(SharedFile *shared) {
    pthread_mutex_lock(&files_lock);
    if (--shared->users == 0) {
        for (SharedFile **link = &files; *link != NULL; link = &(*link)->next) {
            if (*link == shared) {
                *link = shared->next;
                break;
            }
        }
        unsigned char *map = atomic_load_explicit(&shared->map, memory_order_relaxed);
        if (map != NULL) munmap(map, (size_t)shared->length);
        sqlite3_free(shared);
    }
    pthread_mutex_unlock(&files_lock);
}

static int mapped_close(sqlite3_file *handle) {
    MappedDatabase *file = (MappedDatabase *)handle;
    int rc = file->inner->pMethods->xClose(file->inner);
    if (file->shared != NULL) release_shared_file(file->shared);
    file->shared = NULL;
    return rc;
}

static const sqlite3_io_methods mapped_methods = {
    3,
    mapped_close,
    mapped_read,
    mapped_write,
    mapped_truncate,
    wrapped_sync,
    wrapped_file_size,
    wrapped_lock,
    wrapped_unlock,
    wrapped_check_reserved_lock,
    mapped_file_control,
    wrapped_sector_size,
    wrapped_device_characteristics,
    wrapped_shm_map,
    wrapped_shm_lock,
    wrapped_shm_barrier,
    wrapped_shm_unmap,
    mapped_fetch,
    mapped_unfetch,
};

// The process's record of the file `path` names, found or made; NULL when the file cannot be examined.
// `stat`, not a descriptor (see `inner_descriptor`).
static SharedFile *acquire_shared_file(const char *path) {
    struct stat status;
    if (stat(path, &status) != 0) return NULL;
    pthread_mutex_lock(&files_lock);
    SharedFile *shared = files;
    while (shared != NULL && !(shared->device == status.st_dev && shared->inode == status.st_ino)) {
        shared = shared->next;
    }
    if (shared == NULL) {
        shared = sqlite3_malloc(sizeof *shared);
        if (shared != NULL) {
            memset(shared, 0, sizeof *shared);
            shared->device = status.st_dev;
            shared->inode = status.st_ino;
            atomic_init(&shared->map, NULL);
            atomic_init(&shared->readable, (sqlite3_int64)status.st_size);
            shared->next = files;
            files = shared;
        }
    }
    if (shared != NULL) shared->users++;
    pthread_mutex_unlock(&files_lock);
    return shared;
}

void mapped_database_wrap(sqlite3_vfs *inner_vfs, const char *name, sqlite3_file *handle) {
    MappedDatabase *file = (MappedDatabase *)handle;
    file->innerVFS = inner_vfs;
    // Opened (and created) by the default VFS first, so the file exists to be examined.
    file->shared = acquire_shared_file(name);
    file->base.pMethods = &mapped_methods;
}

