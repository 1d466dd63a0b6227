// Linux interfaces that Glibc's Swift module does not include, for HTTPServer: epoll (one set per event
// loop, watched by one libdispatch source; docs/ARCHITECTURE.md) and memfd_create (in-memory files that
// hot bodies are sent from with sendfile), glibc's malloc arena bound and trim (ProcessMemory); for
// TestSupport's ChildProcess: posix_spawn's close-from action; for Upstream's driver thread: its name; for
// both, the threads' scheduling policy (ThreadScheduling).
#ifndef LARDER_CLINUX_SHIM_H
#define LARDER_CLINUX_SHIM_H
#include <linux/memfd.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

/// memfd_create, through syscall(2): glibc declares it only under _GNU_SOURCE, which would redefine types
/// Swift's Glibc module already has. Returns a close-on-exec descriptor, or -1 with errno set.
static inline int clinux_memfd_create(const char *name) {
    return (int)syscall(SYS_memfd_create, name, MFD_CLOEXEC);
}

/// posix_spawn_file_actions_addclosefrom_np (glibc 2.34): the child closes every descriptor from `from` up,
/// whether or not it is close-on-exec. glibc declares it only under _GNU_SOURCE (see above).
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

/// pthread_setname_np: names a thread (15 bytes and the NUL at most), as `top -H` and debuggers show it.
/// glibc declares it only under _GNU_SOURCE (see above).
extern int pthread_setname_np(pthread_t thread, const char *name);

/// sched_setscheduler(0, ...) for the calling thread alone: SCHED_BATCH when `batch` is nonzero, else
/// SCHED_OTHER, both at priority 0 (an unprivileged process may move between the two). Threads it starts
/// afterwards inherit the policy. SCHED_BATCH is declared only under _GNU_SOURCE (see above); its value is
/// Linux's ABI. Returns 0, or -1 with errno set.
static inline int clinux_set_thread_batch_policy(int batch) {
    struct sched_param parameters = {.sched_priority = 0};
    return sched_setscheduler(0, batch ? 3 /* SCHED_BATCH */ : SCHED_OTHER, &parameters);
}

/// mallopt(M_ARENA_MAX, count): at most `count` malloc arenas, whatever the number of threads.
static inline int clinux_limit_malloc_arenas(int count) { return mallopt(M_ARENA_MAX, count); }

/// mallopt(M_TRIM_THRESHOLD, trim) and mallopt(M_MMAP_THRESHOLD, mmap): an arena gives the free memory
/// at its top back to the kernel only once it exceeds `trim` bytes, and allocations of `mmap` bytes or
/// more get mappings of their own. Returns 1 when glibc took both.
static inline int clinux_hold_freed_heap(int trim, int mmap) {
    return mallopt(M_TRIM_THRESHOLD, trim) && mallopt(M_MMAP_THRESHOLD, mmap);
}

/// malloc_trim(0): gives free pages of every arena back to the kernel; returns 1 when some were.
static inline int clinux_malloc_trim(void) { return malloc_trim(0); }
#endif
