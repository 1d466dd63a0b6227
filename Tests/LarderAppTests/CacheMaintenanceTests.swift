import CacheCore
import Dispatch
import FoundationEssentials
import Glibc
import Logging
import Synchronization
import Testing

@testable import LarderApp

/// The background sweep's timer: it sweeps on its own, and once `cancel()` returns nothing sweeps the store
/// any more, not even a sweep that had started before (shutdown flushes the store right after).
@Suite struct CacheMaintenanceTests {
    @Test func cancelReturnsOnlyAfterARunningSweepFinishedAndNoSweepFollows() {
        let store = HeldSweepStore()
        let maintenance = CacheMaintenance(store: store, interval: 0.01, logger: Logger(label: "test"))
        // The first sweep starts on its own and is held inside `sweep`.
        #expect(store.firstSweepStarted.wait(timeout: .now() + 5) == .success)
        let cancelReturned = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            maintenance.cancel()
            cancelReturned.signal()
        }
        #expect(
            cancelReturned.wait(timeout: .now() + .milliseconds(200)) == .timedOut,
            "cancel() returned while a sweep was still running")
        store.release()
        #expect(cancelReturned.wait(timeout: .now() + 5) == .success)
        let sweepsAtCancel = store.sweeps
        usleep(200_000)
        #expect(store.sweeps == sweepsAtCancel, "a sweep ran after cancel() returned")
    }
}

/// A store whose first sweep waits until `release()`; later sweeps return at once. Counts them.
private final class HeldSweepStore: CacheMaintenanceStore {
    private let held = DispatchSemaphore(value: 0)
    private let count = Atomic<Int>(0)
    /// Signalled when the first sweep begins.
    let firstSweepStarted = DispatchSemaphore(value: 0)

    var sweeps: Int { count.load(ordering: .acquiring) }

    func release() { held.signal() }

    func stats() throws -> CacheStoreStats { CacheStoreStats(entryCount: 0, totalBytes: 0, maxSize: nil) }

    func sweep(now: Date) throws -> Int {
        if count.add(1, ordering: .acquiringAndReleasing).newValue == 1 {
            firstSweepStarted.signal()
            held.wait()
        }
        return 0
    }
}
