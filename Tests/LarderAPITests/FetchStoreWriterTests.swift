import Dispatch
import Foundation
import HTTPCore
import Synchronization
import TestSupport
import Testing

@testable import LarderAPI

#if canImport(Glibc)
    import Glibc
#endif

/// Fetched bodies are written on the service's two store-writer queues, whatever the number of fetches.
/// A serial queue per fetch let Dispatch start a thread for each fetch whose write waited on the disk or
/// on SQLite's one writer: 32 concurrent misses in the benchmark ran 100 threads.
///
/// Serialized: two tests here hold a store write on a semaphore, each blocking a worker thread of the
/// writers' QoS, and on a 2-CPU machine Dispatch runs no more of those at once than there are CPUs. Run
/// side by side they starved every other write of both services (two callers timed out after 30 s).
@Suite(.serialized) struct FetchStoreWriterTests {
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
    /// `storeBacklogBytes` waiting to be written, a new miss waits for room; one that waited
    /// `storeBacklogWait` is sent anyway and relayed but not stored, so a stuck store costs latency, never
    /// the answer, and the memory the backlog holds stays bounded.
    @Test func aMissThatWaitedOutAFullBacklogIsRelayedButNotStored() async throws {
        try await withStuckStore(backlogWait: .milliseconds(200)) { harness, gate in
            for path in ["/first", "/second"] {
                harness.origin.respond(to: path, with: .ok("body of \(path)").header("Cache-Control", "max-age=600"))
            }
            // The first response is answered while its write waits: its bytes are the backlog.
            let first = try harness.fetch("/first")
            #expect(first.status == 200 && first.text == "body of /first")
            #expect(first.header("X-Cache") == "MISS")
            let clock = ContinuousClock()
            let sent = clock.now
            let second = try harness.fetch("/second")
            #expect(clock.now - sent >= .milliseconds(200))
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

    /// A miss that finds the backlog full is sent once the store has written enough to make room, and its
    /// response is stored: a flood of misses is answered at the rate the store keeps them.
    @Test func aMissWaitsForRoomInAFullBacklogAndIsStored() async throws {
        try await withStuckStore(backlogWait: .seconds(60)) { harness, gate in
            for path in ["/first", "/second", "/third"] {
                harness.origin.respond(to: path, with: .ok("body of \(path)").header("Cache-Control", "max-age=600"))
            }
            #expect(try harness.fetch("/first").text == "body of /first")
            let second = BackgroundWork { try harness.fetch("/second") }
            let third = BackgroundWork { try harness.fetch("/third") }
            #expect(await waitUntil(timeout: .seconds(10)) { harness.service.inFlight.backlog.waitingCount == 2 })
            // Neither was sent while the store could not take it.
            #expect(harness.origin.requestCount(for: "/second") == 0)
            #expect(harness.origin.requestCount(for: "/third") == 0)
            for _ in 0..<3 { gate.signal() }
            for (work, path) in [(second, "/second"), (third, "/third")] {
                let answer = try await work.value()
                #expect(answer.text == "body of \(path)")
                #expect(answer.header("Cache-Status")?.contains("stored") == true)
                #expect(answer.header("Cache-Status")?.contains("store backlog") == false)
            }
            #expect(await harness.settle())
            for path in ["/first", "/second", "/third"] {
                #expect(try harness.fetch(path).header("X-Cache") == "HIT")
                #expect(harness.origin.requestCount(for: path) == 1)
            }
            #expect(harness.service.inFlight.backlog.bytes == 0)
        }
    }

    /// Every miss that took a place in the backlog gives it back, however it ends: stored, refused by the
    /// rules, or a revalidation answered 304 (which ends without the origin's end being waited for).
    @Test func everyFetchGivesItsBacklogPlaceBack() async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(to: "/stored", with: .ok("kept").header("Cache-Control", "max-age=600"))
            harness.origin.respond(to: "/refused", with: .ok("not kept").header("Cache-Control", "no-store"))
            harness.origin.respond(to: "/revalidated") { request -> StubOriginResponse in
                if request.headers["If-None-Match"] == "\"v1\"" {
                    return .status(304, headers: [("ETag", "\"v1\""), ("Cache-Control", "max-age=0")])
                }
                return .ok("validated").header("ETag", "\"v1\"").header("Cache-Control", "max-age=0")
            }
            // Revalidations many times: their two ways to end race (the 304 handled, the origin's end).
            for path in ["/stored", "/refused"] + Array(repeating: "/revalidated", count: 40) {
                let answer = try harness.fetch(path)
                #expect(answer.status == 200)
                #expect(await harness.settle())
                #expect(harness.service.inFlight.backlog.bytes == 0, "after \(path)")
            }
            #expect(harness.origin.requests(for: "/revalidated").last?.headers["If-None-Match"] == "\"v1\"")
        }
    }

    /// A harness whose store backlog is full with one fetch (1 byte) and whose store cannot begin a write
    /// until the test signals `gate` (the disk is stuck), once per write.
    private func withStuckStore(
        backlogWait: Duration, _ body: (FetchTestHarness, DispatchSemaphore) async throws -> Void
    ) async throws {
        let gate = DispatchSemaphore(value: 0)
        var configuration = FetchConfiguration()
        configuration.storeBacklogBytes = 1
        configuration.storeBacklogWait = backlogWait
        try await withFetchHarness(
            configuration: configuration,
            wrapStore: { store in
                APIRecordingStore(
                    wrapping: store,
                    onWrite: { call in
                        if call == "beginWrite" { _ = gate.wait(timeout: .now() + 30) }
                    })
            }
        ) { harness in try await body(harness, gate) }
    }
}
