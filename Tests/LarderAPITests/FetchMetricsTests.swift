import CacheCore
import CachePolicy
import Foundation
import HTTPCore
import ImageSniffing
import LarderAPI
import Metrics
import Storage
import TestSupport
import Testing

/// The `/fetch` path moves its metrics at the points that decide them: an origin fetch finishing, a
/// caller joining one, the SSRF guard refusing an address, an image failing validation.
@Suite struct FetchMetricsTests {
    static let images = FilterDecision(filterName: "images", validateImage: true)

    /// The fetch metrics' exposition.
    static func scrape(_ harness: FetchTestHarness) -> String {
        var text = PrometheusText()
        harness.service.metrics.write(to: &text)
        return text.text
    }

    @Test func refusedAddressIsCountedAndNothingElseIs() async throws {
        try await withFetchHarness(allowNetworks: []) { harness in
            harness.origin.respond(to: "/secret", with: .ok("secret"))
            let response = try harness.fetch("/secret")
            #expect(response.status == 403)
            #expect(await harness.settle())
            let metrics = harness.service.metrics
            #expect(metrics.originFetchCount(.addressRefused) == 1)
            #expect(metrics.originFetchCount(.response) == 0)
            let text = Self.scrape(harness)
            #expect(text.contains("\nlarder_origin_refused_addresses_total 1\n"))
            #expect(text.contains("larder_origin_requests_total{outcome=\"address_refused\"} 1\n"))
        }
    }

    @Test func originResponseIsCountedOnceWithItsLatencyAndAHitIsNot() async throws {
        try await withFetchHarness { harness in
            harness.origin.respond(to: "/a", with: .ok("body").header("Cache-Control", "max-age=60"))
            let miss = try harness.fetch("/a")
            #expect(miss.header("X-Cache") == "MISS")
            #expect(await harness.settle())
            #expect(try harness.fetch("/a").header("X-Cache") == "HIT")
            let metrics = harness.service.metrics
            #expect(metrics.originFetchCount(.response) == 1)
            #expect(metrics.originFetchCount(.addressRefused) == 0)
            let text = Self.scrape(harness)
            #expect(text.contains("larder_origin_request_duration_seconds_count 1\n"))
            #expect(text.contains("larder_origin_request_duration_seconds_bucket{le=\"+Inf\"} 1\n"))
            #expect(text.contains("larder_origin_requests_total{outcome=\"response\"} 1\n"))
        }
    }

    @Test func unreachableOriginIsCountedAsConnectFailed() async throws {
        try await withFetchHarness { harness in
            // A port nothing listens on: bind one, note it, close it.
            let closed = try StubOrigin()
            let port = closed.port
            closed.stop()
            let url = "http://127.0.0.1:\(port)/gone"
            let response = try harness.request("GET", "/fetch?url=" + url.percentEncoded())
            #expect(response.status == 502)
            #expect(await harness.settle())
            #expect(harness.service.metrics.originFetchCount(.connectFailed) == 1)
            #expect(harness.service.metrics.originFetchCount(.response) == 0)
        }
    }

    @Test func callersJoiningAFetchUnderWayAreCountedAsCoalesced() async throws {
        try await withFetchHarness { harness in
            let gate = OriginGate()
            harness.origin.respond(to: "/cold") { _ in
                gate.pass()
                return .ok("cold").header("Cache-Control", "max-age=60")
            }
            var clients: [RawSocketClient] = []
            for _ in 0..<3 { clients.append(try harness.open("GET", harness.fetchPath("/cold"))) }
            #expect(await harness.waitForWaiters(3))
            gate.open()
            for client in clients {
                #expect(try client.readResponse().status == 200)
                client.close()
            }
            #expect(await harness.settle())
            #expect(harness.service.metrics.coalescedCount == 2)
            #expect(harness.service.metrics.originFetchCount(.response) == 1)
            #expect(Self.scrape(harness).contains("\nlarder_coalesced_waiters_total 2\n"))
        }
    }

    @Test func imageFailingValidationOnAdmissionIsCountedByItsFormat() async throws {
        try await withFetchHarness(decision: Self.images) { harness in
            let truncated = Array(ImageSamples.png1x1.prefix(30))
            harness.origin.respond(
                to: "/t.png",
                with: .ok(bytes: truncated, contentType: "image/png").header("Cache-Control", "max-age=60"))
            let response = try harness.fetch("/t.png")
            #expect(sameBytes(response.body, truncated))
            #expect(await harness.settle())
            let metrics = harness.service.metrics
            #expect(metrics.imageValidationFailureCount(format: .png, stage: .admission) == 1)
            #expect(metrics.imageValidationFailureCount(format: .png, stage: .read) == 0)
            #expect(metrics.imageValidationFailureCount(format: nil, stage: .admission) == 0)
            #expect(
                Self.scrape(harness).contains(
                    "larder_image_validation_failures_total{format=\"png\",stage=\"admission\"} 1\n"))
        }
    }

    @Test func validImageIsNotCountedAsAFailure() async throws {
        try await withFetchHarness(decision: Self.images) { harness in
            harness.origin.respond(
                to: "/p.png",
                with: .ok(bytes: ImageSamples.png1x1, contentType: "image/png").header("Cache-Control", "max-age=60"))
            let response = try harness.fetch("/p.png")
            #expect(response.status == 200)
            #expect(await harness.settle())
            #expect(harness.service.metrics.imageValidationFailureCount(format: .png, stage: .admission) == 0)
        }
    }

    @Test func storedImageFailingValidationOnReadIsCountedUnderItsSniffedFormat() async throws {
        try await withFetchHarness(decision: Self.images) { harness in
            harness.origin.respond(
                to: "/c.png",
                with: .ok(bytes: ImageSamples.png1x1, contentType: "image/png").header("Cache-Control", "max-age=60"))
            try harness.storeAsPNG("/c.png", Array("not a png at all".utf8))
            #expect(try sameBytes(harness.fetch("/c.png").body, ImageSamples.png1x1))
            #expect(await harness.settle())
            let metrics = harness.service.metrics
            // The stored bytes match no format at all: counted as unknown, on read.
            #expect(metrics.imageValidationFailureCount(format: nil, stage: .read) == 1)
            #expect(metrics.imageValidationFailureCount(format: .png, stage: .admission) == 0)
        }
    }
}
