import CacheCore
import Foundation
import HTTPCore
import Storage
import TestSupport
import Testing

@testable import LarderAPI

/// How a body is stored decides what each hit pays: a deflated body is inflated on every identity hit
/// and served as stored to gzip callers. The form follows who will read the entry.
@Suite struct FetchStoredFormTests {
    static func storedEntry(_ harness: FetchTestHarness, _ response: RawHTTPResponse) throws -> StoredEntry {
        let key = try #require(response.header("X-Cache-Key").flatMap(CacheKey.init(hex:)))
        return try #require(try harness.store.entry(for: key))
    }

    @Test func theIdentityVariantOfAnAcceptEncodingResponseIsStoredAsItCame() async throws {
        try await withFetchHarness { harness in
            let body = CacheCoreFixtures.compressibleBody(length: 30_000)
            FetchHotTierTests.respondLikeACompressingOrigin(harness, path: "/t", body: body)
            _ = try harness.fetch("/t")
            #expect(await harness.settle())
            let hit = try harness.fetch("/t")
            #expect(hit.header("X-Cache") == "HIT")
            #expect(sameBytes(hit.body, body))
            let entry = try Self.storedEntry(harness, hit)
            #expect(entry.codec == .identity, "only identity callers read this variant: nothing to inflate")
            #expect(entry.storedSize == body.count)
        }
    }

    @Test func anIdentityBodyForGzipCallersIsStillDeflated() async throws {
        try await withFetchHarness { harness in
            // An origin that varies on Accept-Encoding but sent this body uncompressed even to a gzip
            // caller (as nginx does under gzip_min_length): Larder's own gzip form serves that variant.
            let body = CacheCoreFixtures.compressibleBody(length: 30_000)
            harness.origin.respond(
                to: "/u",
                with: .ok(bytes: body, contentType: "text/plain").header("Cache-Control", "max-age=60")
                    .header("Vary", "Accept-Encoding"))
            _ = try harness.fetch("/u", headers: [("Accept-Encoding", "gzip")])
            #expect(await harness.settle())
            let hit = try harness.fetch("/u", headers: [("Accept-Encoding", "gzip")])
            #expect(hit.header("X-Cache") == "HIT")
            #expect(hit.header("Content-Encoding") == "gzip")
            #expect(try sameBytes(gunzip(hit.body), body))
            #expect(try Self.storedEntry(harness, hit).codec == .deflateChunked)
        }
    }

    @Test func aResponseWithoutVaryIsDeflatedForBothKindsOfCaller() async throws {
        try await withFetchHarness { harness in
            let body = CacheCoreFixtures.compressibleBody(length: 30_000)
            harness.origin.respond(
                to: "/n", with: .ok(bytes: body, contentType: "text/plain").header("Cache-Control", "max-age=60"))
            _ = try harness.fetch("/n")
            #expect(await harness.settle())
            let identity = try harness.fetch("/n")
            #expect(identity.header("X-Cache") == "HIT")
            #expect(sameBytes(identity.body, body))
            #expect(try Self.storedEntry(harness, identity).codec == .deflateChunked)
            let gzip = try harness.fetch("/n", headers: [("Accept-Encoding", "gzip")])
            #expect(gzip.header("Content-Encoding") == "gzip")
            #expect(try sameBytes(gunzip(gzip.body), body))
        }
    }
}
