import CacheCore
import Foundation
import HTTPCore
import LarderAPI
import TestSupport
import Testing

/// `GET /fetches` while a body is arriving: every figure is read from the fetch under way, none is a
/// constant (the coalescing test holds the origin before it sends a byte, so it cannot tell).
@Suite struct FetchesProgressTests {
    /// The one fetch under way, as `/fetches` shows it, or `nil` when there is none.
    static func current(_ harness: FetchTestHarness) throws -> [String: Any]? {
        let listing = try harness.request("GET", "/fetches")
        let json = try JSONSerialization.jsonObject(with: Data(listing.body)) as? [String: Any]
        let fetches = try #require(json?["fetches"] as? [[String: Any]])
        return fetches.first
    }

    @Test func aTrickledBodyShowsGrowingBytesItsLengthItsWaitersAndItsAge() async throws {
        try await withFetchHarness { harness in
            let length = 128 * 1024
            let body = CacheCoreFixtures.randomBody(length: length)
            // Held until both callers have joined, then 4 KiB every 250 ms: about 8 s, with Content-Length
            // announced, so that two readings fall inside the transfer even on a busy machine.
            let gate = OriginGate()
            harness.origin.respond(to: "/slow") { _ in
                gate.pass()
                return .ok(bytes: body).header("Cache-Control", "max-age=60").trickled(
                    chunkSize: 4096, every: .milliseconds(250))
            }
            let first = try harness.open("GET", harness.fetchPath("/slow"))
            let second = try harness.open("GET", harness.fetchPath("/slow"))
            defer {
                first.close()
                second.close()
            }
            #expect(await harness.waitForWaiters(2))
            gate.open()

            // A first reading with some bytes in; the manual clock has not moved, so the age is 0.
            var early: [String: Any]?
            #expect(
                await waitUntil(timeout: .seconds(20)) {
                    early = try? Self.current(harness)
                    return (early?["bytesReceived"] as? Int ?? 0) > 0
                })
            let earlyBytes = try #require(early?["bytesReceived"] as? Int)
            #expect(earlyBytes < length, "the whole body was in before the first reading; slow the origin down")
            #expect(early?["bytesExpected"] as? Int == length)
            #expect(early?["waiters"] as? Int == 2)
            #expect(early?["status"] as? Int == 200)
            #expect(early?["ageSeconds"] as? Double == 0)
            #expect(early?["url"] as? String == harness.origin.url("/slow"))

            // A later reading: more bytes, the same length and waiters, and the age the clock moved by.
            harness.clock.advance(by: 7.5)
            var later: [String: Any]?
            #expect(
                await waitUntil(timeout: .seconds(20)) {
                    later = try? Self.current(harness)
                    return (later?["bytesReceived"] as? Int ?? 0) > earlyBytes
                })
            let laterBytes = try #require(later?["bytesReceived"] as? Int)
            #expect(laterBytes > earlyBytes && laterBytes <= length)
            #expect(later?["bytesExpected"] as? Int == length)
            #expect(later?["waiters"] as? Int == 2)
            #expect(later?["ageSeconds"] as? Double == 7.5)
            #expect(later?["id"] as? Int == early?["id"] as? Int)

            #expect(try first.readResponse().body == body)
            #expect(try second.readResponse().body == body)
            // Gone once complete (and stored): the listing is empty, and a new request is a hit.
            #expect(await harness.settle())
            #expect(try Self.current(harness) == nil)
            #expect(try harness.fetch("/slow").header("X-Cache") == "HIT")
        }
    }
}
