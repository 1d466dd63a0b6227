import HTTPCore
import LarderTesting
import TestSupport
import Testing

/// `--targeted-cache-control` reaches the rules through `serve`'s whole wiring, in process
/// (`LarderTestApp(serving:)`): a listed field governs, `CDN-Cache-Control` is only a field like any other once
/// the list leaves it out, and two apps in one process each obey their own list (the list is a value of the
/// wiring, not of the process).
@Suite struct TargetedCacheControlWiringTests {
    /// An app of `serve`'s wiring with its own database, allowed to fetch from the stub origin.
    static func app(targets: String, in directory: StorageTestDirectory) throws -> LarderTestApp {
        try LarderTestApp(serving: [
            "db": directory.file(), "allow-network": "127.0.0.0/8", "targeted-cache-control": targets,
        ])
    }

    /// `X-Cache` of one `/fetch` of `url`.
    static func xCache(_ client: LarderTestClient, _ url: String) throws -> String? {
        try client.request("GET", "/fetch?url=" + url.percentEncoded()).header("X-Cache")
    }

    @Test func theConfiguredListDecidesWhichTargetedFieldGoverns() async throws {
        let origin = try StubOrigin()
        defer { origin.stop() }
        // Larder's own field lets it keep what every other cache is told not to; CDN-Cache-Control says no-store.
        origin.respond(
            to: "/own",
            with: .ok("own").header("Cache-Control", "no-store").header("Larder-Cache-Control", "max-age=600")
                .header("CDN-Cache-Control", "no-store"))
        let directory = StorageTestDirectory()
        let app = try Self.app(targets: "Larder-Cache-Control", in: directory)
        try await app.test(.router) { client throws in
            #expect(try Self.xCache(client, origin.url("/own")) == "MISS")
            // The store writes behind the answer: a request right after the miss may still join its fetch.
            #expect(await waitUntil(timeout: .seconds(10)) { (try? Self.xCache(client, origin.url("/own"))) == "HIT" })
            #expect(origin.requestCount(for: "/own") == 1)
        }
    }

    @Test func anEmptyListLeavesCacheControlInCharge() async throws {
        let origin = try StubOrigin()
        defer { origin.stop() }
        origin.respond(
            to: "/cc", with: .ok("cc").header("Cache-Control", "no-store").header("CDN-Cache-Control", "max-age=600"))
        let directory = StorageTestDirectory()
        let app = try Self.app(targets: "", in: directory)
        try await app.test(.router) { client throws in
            for _ in 0..<2 {
                #expect(try Self.xCache(client, origin.url("/cc")) == "MISS")
            }
            #expect(origin.requestCount(for: "/cc") == 2)
        }
    }

    @Test func twoAppsInOneProcessEachObeyTheirOwnList() async throws {
        let origin = try StubOrigin()
        defer { origin.stop() }
        // Stored by a cache that obeys Larder-Cache-Control, refused by one that obeys CDN-Cache-Control.
        origin.respond(
            to: "/split",
            with: .ok("split").header("Larder-Cache-Control", "max-age=600").header("CDN-Cache-Control", "no-store"))
        let (larderDirectory, cdnDirectory) = (StorageTestDirectory(), StorageTestDirectory())
        // Both are wired before either serves: a list installed for the process by the second wiring would
        // replace the first's.
        let larder = try Self.app(targets: "Larder-Cache-Control", in: larderDirectory)
        let cdn = try Self.app(targets: "CDN-Cache-Control", in: cdnDirectory)
        try await larder.test(.router) { larderClient throws in
            try await cdn.test(.router) { cdnClient throws in
                #expect(try Self.xCache(larderClient, origin.url("/split")) == "MISS")
                #expect(
                    await waitUntil(timeout: .seconds(10)) {
                        (try? Self.xCache(larderClient, origin.url("/split"))) == "HIT"
                    })
                let larderFetches = origin.requestCount(for: "/split")
                for _ in 0..<2 {
                    #expect(try Self.xCache(cdnClient, origin.url("/split")) == "MISS")
                }
                #expect(origin.requestCount(for: "/split") == larderFetches + 2)
                #expect(try Self.xCache(larderClient, origin.url("/split")) == "HIT")
            }
        }
    }
}
