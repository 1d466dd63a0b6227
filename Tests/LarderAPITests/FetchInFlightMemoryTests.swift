import CachePolicy
import Foundation
import HTTPServer
import LarderAPI
import TestSupport
import Testing

/// Bodies in flight stay within `--in-flight-bytes` whatever their size, over real sockets from a
/// real origin: the store writer and the callers are the consumers, and the origin waits for them.
/// (The process-level check with 100 MB bodies and RSS is `scripts/check-in-flight-memory.sh`.)
@Suite(.serialized) struct FetchInFlightMemoryTests {
    /// Different bytes per body and offset, so that a piece of one body in another shows.
    private static func body(_ count: Int, seed: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ ($0 >> 11) &+ seed &* 17) }
    }

    @Test func tenConcurrentLargeMissesStayWithinTheBoundAndAreStoredExactly() async throws {
        let bound = 4 << 20
        try await withFetchHarness(configuration: FetchConfiguration(inFlightBytes: bound)) { harness in
            let size = 4 << 20
            let bodies = (0..<10).map { Self.body(size, seed: $0) }
            for (index, body) in bodies.enumerated() {
                var response = StubOriginResponse.ok(bytes: body)
                response.headers.append(("Cache-Control", "max-age=3600"))
                harness.origin.respond(to: "/large/\(index)", with: response)
            }
            let received = try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
                for index in bodies.indices {
                    group.addTask { (index, try await offPool { try harness.fetch("/large/\(index)").body }) }
                }
                var received: [Int: [UInt8]] = [:]
                for try await (index, body) in group { received[index] = body }
                return received
            }
            for (index, body) in bodies.enumerated() {
                #expect(sameBytes(received[index] ?? [], body), "miss \(index)")
            }
            // Ten bodies of 4 MiB went through at once; memory held at most the bound, plus the one piece
            // each fetch takes in before it pauses.
            #expect(harness.service.inFlightPeakBytes <= bound + 10 * (64 << 10))
            #expect(harness.service.inFlightPeakBytes > 0)
            #expect(await harness.settle())
            #expect(harness.service.inFlightBytes == 0)
            for (index, body) in bodies.enumerated() {
                let hit = try harness.fetch("/large/\(index)")
                #expect(hit.header("X-Cache") == "HIT", "hit \(index)")
                #expect(sameBytes(hit.body, body), "hit \(index)")
            }
        }
    }

    @Test func aBodyNotStoredWaitsForItsSlowerCaller() async throws {
        let bound = 4 << 20
        // Storable (RFC 9111 §3), so both callers may share it (§4), but over the filter's byte bound: not stored.
        let bounded = FilterDecision(filterName: "small", maxBytes: 1 << 20)
        try await withFetchHarness(decision: bounded, configuration: FetchConfiguration(inFlightBytes: bound)) {
            harness in
            let body = Self.body(16 << 20, seed: 99)
            var response = StubOriginResponse.ok(bytes: body)
            response.headers.append(("Cache-Control", "max-age=600"))
            // Both callers join before the head comes: the origin answers once both wait (not after a
            // delay, which a busy machine outlasted in one CI run: the slow caller came late and got a
            // fetch of its own).
            let gate = OriginGate()
            harness.origin.respond(to: "/private") { [response] _ in
                gate.pass()
                return response
            }
            let port = harness.server.port
            let request = "GET \(harness.fetchPath("/private")) HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n"
            async let fast = offPool { try harness.fetch("/private").body }
            let (joined, raw) = try await offPool {
                let slow = try RawSocketClient(port: port, timeout: 30, receiveBufferSize: 16 << 10)
                try slow.send(request)
                // Up to 20 s for both callers to be listed on the one fetch, then the origin answers.
                var joined = false
                for _ in 0..<2000 where !joined {
                    joined = (try? harness.waiters()) == [2]
                    if !joined { usleep(10_000) }
                }
                gate.open()
                var raw: [UInt8] = []
                while true {
                    guard let piece = try? slow.readSome(upTo: 16 << 10), !piece.isEmpty else { break }
                    raw += piece
                    usleep(2000)
                }
                return (joined, raw)
            }
            #expect(joined)
            let fastBody = try await fast
            let headEnd = try #require(raw.firstRange(of: Array("\r\n\r\n".utf8)))
            #expect(sameBytes(fastBody, body))
            #expect(sameBytes(raw[headEnd.upperBound...], body))
            #expect(harness.origin.requestCount(for: "/private") == 1)
            // Without the pause, the fast caller's progress would have kept most of the 16 MiB in
            // memory for the slow one; with it, the fetch held about its share.
            #expect(harness.service.inFlightPeakBytes <= bound / 4 + (1 << 20))
            #expect(await harness.settle())
            #expect(harness.service.inFlightBytes == 0)
        }
    }

    @Test func anImageTooLargeToHoldForValidationIsRelayedWholeAndNotStored() async throws {
        let bound = 4 << 20
        let images = FilterDecision(filterName: "images", validateImage: true)
        try await withFetchHarness(decision: images, configuration: FetchConfiguration(inFlightBytes: bound)) {
            harness in
            // A PNG signature and then more than a fetch's share (a quarter of the bound) of bytes: it
            // cannot be validated whole in memory, so it is relayed and not stored, never half-stored.
            let body = ImageSamples.png1x1 + Self.body(2 << 20, seed: 4)
            var response = StubOriginResponse.ok(bytes: body, contentType: "image/png")
            response.headers.append(("Cache-Control", "max-age=3600"))
            harness.origin.respond(to: "/huge.png", with: response)
            let miss = try await offPool { try harness.fetch("/huge.png") }
            #expect(miss.status == 200)
            #expect(sameBytes(miss.body, body))
            #expect(miss.header("Cache-Status")?.contains("not validated in memory") == true)
            #expect(await harness.settle())
            let again = try await offPool { try harness.fetch("/huge.png") }
            #expect(again.header("X-Cache") != "HIT")
            #expect(harness.origin.requestCount(for: "/huge.png") == 2)
        }
    }
}
