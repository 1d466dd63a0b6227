import Foundation
import HTTPCore
import LarderTesting
import TestSupport
import Testing

/// `--max-image-pixels` (or `LARDER_MAX_IMAGE_PIXELS`) reaches the image validation of `/fetch` through the
/// default `images` filter: `serve`'s wiring in process, live on 127.0.0.1:0 (the origin is real). An
/// extension of the serialized suite, so that its processes start one at a time with the others there.
extension ServeCacheWiringTests {
    /// The 8×8 JPEG sample has 64 pixels: a bound of 63 refuses it, 64 stores it.
    @Test(arguments: [
        (["max-image-pixels": "63"], [String: String](), false),
        ([String: String](), ["LARDER_MAX_IMAGE_PIXELS": "63"], false),
        (["max-image-pixels": "64"], ["LARDER_MAX_IMAGE_PIXELS": "63"], true),
    ])
    func pixelLimitSettingDecidesWhetherAnImageIsStored(
        flags: [String: String], environment: [String: String], stored: Bool
    ) async throws {
        let origin = try StubOrigin()
        defer { origin.stop() }
        origin.respond(
            to: "/j.jpg",
            with: .ok(bytes: ImageSamples.jpeg8x8, contentType: "image/jpeg").header("Cache-Control", "max-age=60"))
        let directory = StorageTestDirectory()
        let app = try LarderTestApp(
            serving: flags.merging(["allow-network": "127.0.0.0/8", "db": directory.file()]) { $1 },
            environment: environment)
        try await app.test(.live) { client in
            func fetch() throws -> RawHTTPResponse {
                try client.request("GET", "/fetch?url=" + origin.url("/j.jpg").percentEncoded())
            }
            let first = try fetch()
            #expect(sameBytes(first.body, ImageSamples.jpeg8x8))
            #expect(first.header("X-Cache") == (stored ? "MISS" : "BYPASS"))
            #expect((first.header("Cache-Status") ?? "").contains("pixel-limit") == !stored)
            // The store commits after the response; wait (bounded) for the hit rather than assume it.
            var second = try fetch()
            let deadline = Date().addingTimeInterval(10)
            while stored, second.header("X-Cache") != "HIT", Date() < deadline {
                try await Task.sleep(for: .milliseconds(50))
                second = try fetch()
            }
            #expect(second.header("X-Cache") == (stored ? "HIT" : "BYPASS"))
        }
    }

    @Test(arguments: ["0", "many"])
    func aBadPixelLimitStopsServeNamingTheFlag(_ value: String) async throws {
        let directory = StorageTestDirectory()
        let result = try await LarderProcess.run([
            "serve", "--host", "127.0.0.1", "--port", "0", "--db", directory.file(), "--max-image-pixels", value,
        ])
        #expect(!result.output.contains("listening on"))
        #expect(result.status != 0)
        #expect(result.output.contains("--max-image-pixels"))
    }
}
