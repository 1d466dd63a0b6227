import CacheCore
import Foundation
import HTTPCore
import HTTPServer
import LarderAPI
import Storage
import TestSupport
import Testing
import Upstream

extension FaultSuites {
    /// Origins that misbehave, through the real `/fetch` path: each fault ends in a defined answer, stores
    /// nothing it should not, frees the origin connection, and `/healthz` answers throughout.
    @Suite struct FaultOriginTests {
        @Test func silentOriginIs504ProblemStoresNothingAndFreesItsConnection() async throws {
            try await withFaultHarness(limits: OriginLimits(totalTimeout: .milliseconds(800))) { harness in
                harness.origin.respond(
                    to: "/silent", with: StubOriginResponse.silent.header("Cache-Control", "max-age=3600"))
                let caller = try harness.open(harness.fetchPath("/silent"))
                defer { caller.close() }
                #expect(await harness.origin.waitForRequests(1))
                // The fetch hangs on the origin; the service does not.
                #expect(harness.isHealthy())
                let response = try caller.readResponse()
                #expect(response.status == 504)
                #expect(response.header("Content-Type") == "application/problem+json")
                #expect(response.text.contains("https://larder.dev/problems/origin-timeout"))
                #expect(await harness.settle())
                #expect(try harness.store.stats().entryCount == 0)
                // Larder hung up on the origin: the stub sees its connection close.
                #expect(await waitUntil(timeout: .seconds(5)) { harness.origin.openConnectionCount == 0 })
                #expect(await waitUntil(timeout: .seconds(5)) { harness.server.connectionCount == 0 })
                #expect(harness.isHealthy())
            }
        }

        /// Bodies that end early: a reset, a clean close before `Content-Length` is reached, a chunked body
        /// whose last chunk never comes.
        static let truncations: [(String, StubOriginResponse)] = [
            ("reset mid-body", .ok(bytes: faultBytes(count: 40_000, seed: 1)).ending(.resetAfter(bytes: 12_000))),
            (
                "fewer bytes than Content-Length",
                .ok(bytes: faultBytes(count: 40_000, seed: 2)).ending(.closeAfter(bytes: 12_000))
            ),
            (
                "chunked without its last chunk",
                .ok(bytes: faultBytes(count: 40_000, seed: 3)).framed(.chunked).trickled(chunkSize: 4000)
                    .ending(.closeAfter(bytes: 12_000))
            ),
        ]

        @Test(arguments: truncations)
        func truncatedBodyReachesTheCallerAsTruncatedAndIsNotStored(fault: String, response: StubOriginResponse)
            async throws
        {
            try await withFaultHarness { harness in
                harness.origin.respond(
                    to: "/cut", with: response.trickled(chunkSize: 4000).header("Cache-Control", "max-age=3600"))
                let caller = try harness.open(harness.fetchPath("/cut"))
                defer { caller.close() }
                // The head went out before the fault: the caller must be able to tell the body is incomplete,
                // so its framing never completes (no full Content-Length, no last chunk).
                #expect(throws: (any Error).self, "\(fault)") { try caller.readResponse() }
                #expect(await harness.settle())
                #expect(try harness.store.stats().entryCount == 0, "\(fault)")
                #expect(harness.reportedFailures.isEmpty, "an origin fault is not a store failure")
                // Nothing was kept, so the next caller goes to the origin again.
                _ = try? harness.fetch("/cut")
                #expect(harness.origin.requestCount(for: "/cut") == 2)
                #expect(await waitUntil(timeout: .seconds(5)) { harness.origin.openConnectionCount == 0 })
                #expect(harness.isHealthy())
            }
        }

        @Test func bytesBeyondContentLengthAreNeitherServedNorStored() async throws {
            try await withFaultHarness { harness in
                let body = faultBytes(count: 30_000, seed: 4)
                harness.origin.respond(
                    to: "/long",
                    with: .ok(bytes: body).declaring(contentLength: 20_000).header("Cache-Control", "max-age=3600"))
                // RFC 9112 §6.3: the message ends at Content-Length; what follows is not part of it.
                let miss = try harness.fetch("/long")
                #expect(miss.status == 200)
                #expect(sameBytes(miss.body, Array(body[..<20_000])))
                #expect(await harness.settle())
                #expect(try harness.storedBody("/long") == Array(body[..<20_000]))
                let hit = try harness.fetch("/long")
                #expect(hit.header("X-Cache") == "HIT")
                #expect(sameBytes(hit.body, Array(body[..<20_000])))
                #expect(harness.origin.requestCount(for: "/long") == 1)
                #expect(harness.isHealthy())
            }
        }

        @Test func endlessBodyIsCutAtTheLimitAndNotStored() async throws {
            let limit = 256 * 1024
            try await withFaultHarness(limits: OriginLimits(totalTimeout: .seconds(10), maxBodyBytes: limit)) {
                harness in
                harness.origin.respond(
                    to: "/endless", with: StubOriginResponse.endless().header("Cache-Control", "max-age=3600"))
                let caller = try harness.open(harness.fetchPath("/endless"))
                defer { caller.close() }
                #expect(await harness.origin.waitForRequests(1))
                #expect(harness.isHealthy())
                var received = 0
                var cut = false
                while received <= 4 * limit {
                    guard let piece = try? caller.readSome(upTo: 65_536), !piece.isEmpty else {
                        cut = true
                        break
                    }
                    received += piece.count
                }
                #expect(cut, "the caller's stream ends")
                #expect(received < limit + 16 * 1024, "about the limit reaches the caller, not more")
                #expect(await harness.settle())
                #expect(try harness.store.stats().entryCount == 0)
                #expect(await waitUntil(timeout: .seconds(5)) { harness.origin.openConnectionCount == 0 })
                #expect(harness.isHealthy())
            }
        }

        /// A gzip bomb: 1.6 MB on the wire, 258 MB inflated. Larder never inflates an origin's coding: the
        /// body is stored and served exactly as received (RFC 9110 §8.4: the coding belongs to the
        /// representation), so the body limit bounds the bytes it ever holds, and memory stays flat.
        /// The bomb is large because the peak it is measured by is the whole test process's, and
        /// suites running beside this one move it by tens of megabytes.
        @Test func gzipBombIsStoredAndServedAsReceivedNeverInflated() async throws {
            let (bomb, inflatedSize) = try await offPool { StubOriginGzip.bomb(repeats: 1_000_000) }
            let limit = 2 << 20
            #expect(inflatedSize > 60 * limit)
            try await withFaultHarness(limits: OriginLimits(totalTimeout: .seconds(10), maxBodyBytes: limit)) {
                harness in
                harness.origin.respond(
                    to: "/bomb",
                    with: .ok(bytes: bomb, contentType: "text/plain").header("Content-Encoding", "gzip")
                        .header("Cache-Control", "max-age=3600"))
                let peakBefore = Self.peakResidentBytes()
                let miss = try harness.fetch("/bomb", headers: [("Accept-Encoding", "gzip")])
                #expect(miss.status == 200)
                #expect(miss.header("Content-Encoding") == "gzip")
                #expect(sameBytes(miss.body, bomb))
                #expect(await harness.settle())
                #expect(try harness.storedBody("/bomb") == bomb)
                // A caller that does not accept gzip gets the origin's bytes too: Larder does not decode them.
                let hit = try harness.fetch("/bomb")
                #expect(hit.header("X-Cache") == "HIT")
                #expect(hit.header("Content-Encoding") == "gzip")
                #expect(sameBytes(hit.body, bomb))
                let growth = Self.peakResidentBytes() - peakBefore
                #expect(growth < inflatedSize / 2, "peak RSS grew \(growth) bytes")
                #expect(harness.origin.requestCount(for: "/bomb") == 1)
                #expect(harness.isHealthy())
            }
        }

        /// The process's peak resident set (`VmHWM`), in bytes.
        static func peakResidentBytes() -> Int {
            let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return 0 }
            return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
        }
    }
}
