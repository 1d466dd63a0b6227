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
        try await withFetchHarness(wrapStore: { store in
            APIRecordingStore(
                wrapping: store,
                onWrite: { _ in
                    threads.withLock { _ = $0.insert(UInt(bitPattern: Int(bitPattern: pthread_self()))) }
                    // A slow disk: every write call holds its thread for a while.
                    usleep(15_000)
                })
        }) { harness in
            let misses = 16
            for index in 0..<misses {
                harness.origin.respond(
                    to: "/written/\(index)", with: .ok("body \(index)").header("Cache-Control", "max-age=600"))
            }
            let outcomes = Mutex<[String?]>(Array(repeating: nil, count: misses))
            let group = DispatchGroup()
            for index in 0..<misses {
                // A serial queue each: Dispatch gives every one its own thread, so all the callers wait at once.
                // (Not Foundation threads: the test process twice crashed inside Foundation's `Process.run()`
                // in another suite on the day this test came, and Foundation's thread start is a suspect.)
                DispatchQueue(label: "caller \(index)").async(group: group) {
                    let response = try? harness.fetch("/written/\(index)")
                    let outcome = response.map { "\($0.status) \($0.header("X-Cache") ?? "-") \($0.text)" }
                    outcomes.withLock { $0[index] = outcome }
                }
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
        }
    }

    /// Callers are answered before the store writes: under a flood of misses the writes fall behind. Past
    /// `storeBacklogBytes` waiting to be written, a response is relayed but not stored, so the memory the
    /// backlog holds stays bounded.
    @Test func aResponseIsNotStoredWhileTheWriteBacklogIsFull() async throws {
        let gate = DispatchSemaphore(value: 0)
        var configuration = FetchConfiguration()
        configuration.storeBacklogBytes = 1
        try await withFetchHarness(
            configuration: configuration,
            wrapStore: { store in
                APIRecordingStore(
                    wrapping: store,
                    onWrite: { call in
                        // The disk is stuck until the test lets it go.
                        if call == "beginWrite" { _ = gate.wait(timeout: .now() + 30) }
                    })
            }
        ) { harness in
            for path in ["/first", "/second"] {
                harness.origin.respond(to: path, with: .ok("body of \(path)").header("Cache-Control", "max-age=600"))
            }
            // The first response is answered while its write waits: its bytes are the backlog.
            let first = try harness.fetch("/first")
            #expect(first.status == 200 && first.text == "body of /first")
            #expect(first.header("X-Cache") == "MISS")
            let second = try harness.fetch("/second")
            #expect(second.status == 200 && second.text == "body of /second")
            #expect(second.header("Cache-Status")?.contains("store backlog") == true)

            gate.signal()
            gate.signal()
            #expect(await harness.settle())
            // The write that waited lands; the refused response was never stored.
            #expect(try harness.fetch("/first").header("X-Cache") == "HIT")
            #expect(try harness.fetch("/second").header("X-Cache") == "MISS")
            #expect(harness.origin.requestCount(for: "/second") == 2)
            // With the backlog written, responses are stored again.
            #expect(await harness.settle())
            #expect(try harness.fetch("/second").header("X-Cache") == "HIT")
        }
    }
}
