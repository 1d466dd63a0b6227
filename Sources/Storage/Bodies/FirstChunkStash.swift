import Glibc
import Synchronization

/// The first chunk of a body, read by the lookup that found its entry, in the same statement and so the
/// same read transaction, and kept for the body read that follows on the same thread.
///
/// A hit from the store used to take two read transactions: the entry, then its chunk. Each costs SQLite
/// a shared lock and its release on the WAL index (two `fcntl` calls), and they were about a tenth of the
/// server's CPU time on 1 KiB hits from the store (`perf record`, `--hot-bytes 0`). The lookup now joins
/// the entry's first chunk (`SQLiteCacheStore.lookUpEntry`) and keeps it, CRC-checked, here;
/// `SQLiteBodyReader` takes it instead of reading the chunk again, so a one-chunk body costs one read
/// transaction and a longer one read whole (`readAll`) two. A read that does not start at the first
/// chunk (a range further on), a `HEAD` or a `304` leaves the chunk unused until the thread's next lookup.
///
/// One slot per thread (a POSIX thread-specific value), holding the chunk of the last lookup on that
/// thread, which the next body read on the thread takes (or the next lookup replaces): at most one chunk
/// per thread is held, and none once it is taken. A slot names its store and body: a body id is never
/// given twice by one store, and a body's chunks never change, so a kept chunk is always the body's bytes.
final class FirstChunkStash: Sendable {
    /// What a thread keeps: one chunk, named by its store and body.
    private final class Slot {
        var kept: (store: UInt64, bodyID: Int64, chunk: SQLiteBodyReader.Chunk)?
    }

    /// One key for the process (keys are few), with each store told apart by `identity`.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let result = pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<Slot>.fromOpaque(pointer).release()
        }
        precondition(result == 0, "pthread_key_create failed (\(result))")
        return key
    }()

    private static let nextIdentity = Atomic<UInt64>(1)
    /// This store's name in the slots, never reused in the process (an object's address can be).
    private let identity = FirstChunkStash.nextIdentity.add(1, ordering: .relaxed).oldValue

    /// The slot of the calling thread.
    private static var slot: Slot {
        if let pointer = pthread_getspecific(key) { return Unmanaged<Slot>.fromOpaque(pointer).takeUnretainedValue() }
        let slot = Slot()
        pthread_setspecific(key, Unmanaged.passRetained(slot).toOpaque())
        return slot
    }

    /// Keeps a body's first chunk for this thread's next body read, or with `nil` forgets what was kept.
    func keep(_ chunk: SQLiteBodyReader.Chunk?, bodyID: Int64) {
        Self.slot.kept = chunk.map { (identity, bodyID, $0) }
    }

    /// Takes the chunk kept on this thread for this store's body, if it is the one kept.
    func take(bodyID: Int64) -> SQLiteBodyReader.Chunk? {
        guard let pointer = pthread_getspecific(Self.key) else { return nil }
        let slot = Unmanaged<Slot>.fromOpaque(pointer).takeUnretainedValue()
        guard let kept = slot.kept, kept.store == identity, kept.bodyID == bodyID else { return nil }
        slot.kept = nil
        return kept.chunk
    }
}
