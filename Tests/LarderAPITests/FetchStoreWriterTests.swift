import Dispatch
import Foundation
import LarderAPI
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Fetched bodies are written on the service's two store-writer queues, whatever the number of fetches.
/// A serial queue per fetch let Dispatch start a thread for each fetch whose write waited on the disk or
/// on SQLite's one writer: 32 concurrent misses in the benchmark ran 100 threads.
@Suite struct FetchStoreWriterTests {
    @Test func bodyWritesOfConcurrentMissesRunOnTwoThreadsAtMost() async throws {
        let threads = Mutex<Set<UInt>>([])
        let harness = try FetchTestHarness(wrapStore: { store in
            APIRecordingStore(
                wrapping: store,
                onWrite: { _ in
                    threads.withLock { _ = $0.insert(UInt(bitPattern: Int(bitPattern: pthread_self()))) }
                    // A slow disk: every write call holds its thread for a while.
                    usleep(15_000)
                })
        })
        let misses = 16
        for index in 0..<misses {
            harness.origin.respond(
                to: "/written/\(index)", with: .ok("body \(index)").header("Cache-Control", "max-age=600"))
        }
        let outcomes = Mutex<[String?]>(Array(repeating: nil, count: misses))
        let group = DispatchGroup()
        for index in 0..<misses {
            group.enter()
            Thread {
                let response = try? harness.fetch("/written/\(index)")
                let outcome = response.map { "\($0.status) \($0.header("X-Cache") ?? "-") \($0.text)" }
                outcomes.withLock { $0[index] = outcome }
                group.leave()
            }.start()
        }
        #expect(group.wait(timeout: .now() + 60) == .success)
        #expect(await harness.settle())

        for (index, outcome) in outcomes.withLock({ $0 }).enumerated() {
            #expect(outcome == "200 MISS body \(index)")
        }
        let writers = threads.withLock { $0.count }
        #expect(writers >= 1 && writers <= 2, "body writes ran on \(writers) threads")
        // Nothing was lost by sharing the queues: every body was stored.
        for index in 0..<misses {
            let again = try harness.fetch("/written/\(index)")
            #expect(again.header("X-Cache") == "HIT" && again.text == "body \(index)")
        }
        await harness.stop()
    }
}
