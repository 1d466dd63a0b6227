import CacheCore
import Foundation
import HTTPServer
import LarderAPI
import Storage
import TestSupport
import Testing
import Upstream

extension FaultSuites {
    /// Callers that misbehave: one that leaves mid-response, one that reads a byte a second, thousands
    /// that connect and say nothing. Each is dealt with and nobody else notices.
    @Suite struct FaultClientTests {
        @Test func callerLeavingMidResponseDoesNotStopTheFetchWhichIsStoredForOthers() async throws {
            try await withFaultHarness { harness in
                let body = faultBytes(count: 400_000, seed: 5)
                harness.origin.respond(
                    to: "/slow",
                    with: .ok(bytes: body).header("Cache-Control", "max-age=3600").trickled(
                        chunkSize: 16_384, every: .milliseconds(20)))
                let leaver = try harness.open(harness.fetchPath("/slow"))
                let first = try leaver.readSome(upTo: 4096)
                #expect(String(decoding: first, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
                leaver.close(reset: true)
                // The fetch is shared and owned by the service, not by the caller that started it.
                #expect(await harness.settle())
                #expect(try harness.storedBody("/slow") == body)
                let hit = try harness.fetch("/slow")
                #expect(hit.header("X-Cache") == "HIT")
                #expect(sameBytes(hit.body, body))
                #expect(harness.origin.requestCount(for: "/slow") == 1)
                // No leak: every connection, ours and the origin's, is gone.
                #expect(await waitUntil(timeout: .seconds(5)) { harness.server.connectionCount == 0 })
                // The origin connection may stay in the client's keep-alive pool, but only that one.
                #expect(harness.origin.openConnectionCount <= 1)
                #expect(harness.isHealthy())
            }
        }

        @Test(.enabled(if: FaultSuites.heavy))
        func callerReadingAByteASecondIsDroppedByTheWriteTimeoutWhileOthersAreServed() async throws {
            let server = HTTPServerConfiguration(
                host: "127.0.0.1", port: 0, headerReadTimeout: 5, idleTimeout: 5, writeTimeout: 1, eventLoops: 2)
            try await withFaultHarness(server: server) { harness in
                let body = faultBytes(count: 8 << 20, seed: 6)
                harness.origin.respond(to: "/big", with: .ok(bytes: body).header("Cache-Control", "max-age=3600"))
                #expect(try harness.fetch("/big").body.count == body.count)
                #expect(await harness.settle())

                let slow = try harness.open(harness.fetchPath("/big"), receiveBufferSize: 4096)
                defer { slow.close() }
                let started = ContinuousClock.now
                var received = 0
                var freed = false
                // A byte a second for at most 20 s; the write timeout (1 s without progress) must free the
                // connection on the server's side long before the body is through.
                while ContinuousClock.now - started < .seconds(20) {
                    if let byte = try? slow.readSome(upTo: 1), !byte.isEmpty { received += 1 }
                    if received == 2 {
                        // Others are unaffected while the slow reader holds its connection.
                        let hit = try harness.fetch("/big")
                        #expect(hit.header("X-Cache") == "HIT")
                        #expect(sameBytes(hit.body, body))
                        #expect(harness.isHealthy())
                    } else if received > 2 && harness.server.connectionCount == 0 {
                        freed = true
                        break
                    }
                    try await Task.sleep(for: .seconds(1))
                }
                #expect(freed, "the server dropped the slow reader")
                #expect(received < body.count)
                #expect(harness.isHealthy())
            }
        }
    }
}
