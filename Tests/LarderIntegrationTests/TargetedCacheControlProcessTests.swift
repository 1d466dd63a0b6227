import Foundation
import TestSupport
import Testing

/// `--targeted-cache-control` reaches the rules of the running server: a listed field governs, and
/// `CDN-Cache-Control` is only a field like any other once the list leaves it out.
@Suite struct TargetedCacheControlProcessTests {
    @Test func theConfiguredListDecidesWhichTargetedFieldGoverns() async throws {
        let origin = try StubOrigin()
        defer { origin.stop() }
        // Larder's own field lets it keep what every other cache is told not to; CDN-Cache-Control says no-store.
        origin.respond(
            to: "/own",
            with: .ok("own").header("Cache-Control", "no-store").header("Larder-Cache-Control", "max-age=600")
                .header("CDN-Cache-Control", "no-store"))
        let larder = try await LarderProcess.start(arguments: [
            "--allow-network", "127.0.0.0/8", "--targeted-cache-control", "Larder-Cache-Control",
        ])
        defer { larder.stop() }
        func xCache() throws -> String? {
            try larder.fetch(origin.url("/own")).headers.first { $0.name == "X-Cache" }?.value
        }
        #expect(try xCache() == "MISS")
        #expect(await waitUntil(timeout: .seconds(10)) { (try? xCache()) == "HIT" })
        #expect(origin.requestCount(for: "/own") == 1)
    }

    @Test func anEmptyListLeavesCacheControlInCharge() async throws {
        let origin = try StubOrigin()
        defer { origin.stop() }
        origin.respond(
            to: "/cc", with: .ok("cc").header("Cache-Control", "no-store").header("CDN-Cache-Control", "max-age=600"))
        let larder = try await LarderProcess.start(arguments: [
            "--allow-network", "127.0.0.0/8", "--targeted-cache-control", "",
        ])
        defer { larder.stop() }
        for _ in 0..<2 {
            let response = try larder.fetch(origin.url("/cc"))
            #expect(response.headers.first { $0.name == "X-Cache" }?.value == "MISS")
        }
        #expect(origin.requestCount(for: "/cc") == 2)
    }
}
