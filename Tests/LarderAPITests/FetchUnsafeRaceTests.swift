import CacheCore
import Foundation
import HTTPCore
import LarderAPI
import Synchronization
import TestSupport
import Testing

/// An invalidating POST racing a coalesced GET miss: the GET's request left before the POST's
/// answer, so what it brings back may predate the change. The origin holds the GET's answer until the test
/// opens its gate, so the order never depends on timing. The purge-racing-a-miss rule commits it stale,
/// and callers arriving after the POST do not join it.
@Suite struct FetchUnsafeRaceTests {
    @Test func anInvalidatingPostRacingACoalescedMissLeavesNoFreshEntryBehind() async throws {
        // The callers wait on the gated fetch as long as the test needs, however busy the machine.
        try await withInvalidationHarness(configuration: FetchConfiguration(waiterTimeout: .seconds(120))) { harness in
            let gets = Atomic<Int>(0)
            let gate = OriginGate()
            harness.origin.respond(to: "/race") { request in
                guard request.method == "GET" else { return .status(204) }
                if gets.add(1, ordering: .relaxed).newValue == 1 {
                    // The first GET's answer was made before the POST; it arrives once the test opens the gate.
                    gate.pass()
                    return .ok("old").header("ETag", "\"v1\"").header("Cache-Control", "max-age=600")
                }
                return .ok("new").header("ETag", "\"v2\"").header("Cache-Control", "max-age=600")
            }
            let first = BackgroundWork { try harness.fetch("/race").text }
            #expect(await waitUntil(timeout: .seconds(20)) { harness.origin.requestCount(for: "/race") == 1 })
            let second = BackgroundWork { try harness.fetch("/race") }
            #expect(await harness.waitForWaiters(2))

            let post = try harness.send("POST", "/race", body: "change")
            #expect(post.status == 204)
            #expect(post.header("X-Cache") == "BYPASS")

            // Asked after the POST was answered: its own request, not the one that left before.
            let third = try harness.fetch("/race")
            #expect(third.text == "new")
            gate.open()
            #expect(try await first.value() == "old")
            let coalesced = try await second.value()
            #expect(coalesced.text == "old")
            #expect(coalesced.header("Cache-Status")?.contains("collapsed") == true)
            #expect(await harness.settle())

            // Whichever commit came last, nothing fresh says "old": the next GET asks the origin.
            let before = harness.origin.requestCount(for: "/race")
            let committedOld = try harness.meta("/race")["etag"] as? String == "\"v1\""
            if committedOld { #expect(try harness.meta("/race")["staleSince"] as? String != nil) }
            let next = try harness.fetch("/race")
            #expect(next.text == "new")
            if committedOld { #expect(harness.origin.requestCount(for: "/race") == before + 1) }
        }
    }

    @Test func aPostRacingAMissOfAnotherURLLeavesItFresh() async throws {
        try await withInvalidationHarness { (harness) async throws in
            harness.origin.respond(
                to: "/slow", with: .ok("slow").header("Cache-Control", "max-age=600").delayed(.milliseconds(1500)))
            harness.origin.respond(to: "/elsewhere", with: .status(204))
            let fetch = BackgroundWork { try harness.fetch("/slow").text }
            #expect(await waitUntil(timeout: .seconds(20)) { harness.origin.requestCount(for: "/slow") == 1 })
            #expect(try harness.send("POST", "/elsewhere", body: "x").status == 204)
            #expect(try await fetch.value() == "slow")
            #expect(await harness.settle())
            #expect(try harness.fetch("/slow").header("X-Cache") == "HIT")
            #expect(harness.origin.requestCount(for: "/slow") == 1)
        }
    }
}

extension InvalidationHarness {
    /// Waits until the one fetch under way has `count` callers, as `GET /fetches` reports them.
    func waitForWaiters(_ count: Int) async -> Bool {
        await waitUntil(timeout: .seconds(20)) {
            guard let listing = try? request("GET", "/fetches"),
                let json = try? JSONSerialization.jsonObject(with: Data(listing.body)) as? [String: Any]
            else { return false }
            return (json["fetches"] as? [[String: Any]] ?? []).compactMap { $0["waiters"] as? Int } == [count]
        }
    }
}
