import CacheCore
import Foundation
import LarderAPI
import TestSupport
import Testing

struct CacheKeyHandlerTests {
    @Test func metaShowsEveryStoredFieldAndTheFreshnessLeftAtTheInjectedClock() async throws {
        try await withHarness { harness in
            let body = CacheCoreFixtures.compressibleBody(length: 10_000)
            let entry = try harness.put(
                "https://a.example/meta.txt", body,
                extraHeaders: [("ETag", "\"m1\""), ("Set-Thing", "a"), ("Set-Thing", "b")])
            let response = try harness.request("GET", "/cache/\(entry.key.hex)/meta")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json")
            let json = try CacheAPIHarness.json(response)
            #expect(json["key"] as? String == entry.key.hex)
            #expect(json["url"] as? String == "https://a.example/meta.txt")
            #expect(json["host"] as? String == "a.example")
            #expect(json["status"] as? Int == 200)
            #expect(json["etag"] as? String == "\"m1\"")
            #expect(json["originalBytes"] as? Int == 10_000)
            #expect(json["storedBytes"] as? Int == entry.storedSize)
            #expect(json["codec"] as? String == "deflate-chunked")
            #expect(json["chunkSize"] as? Int == CacheAPIHarness.chunkSize)
            #expect(json["crc32"] as? String == String(format: "%08x", entry.crc32))
            #expect(json["filter"] as? String == "test-filter")
            #expect(json["imageFormat"] is NSNull)
            // Not retyped by sniffing: the served type is the origin's.
            #expect(json["contentType"] as? String == "text/plain; charset=utf-8")
            #expect(json["declaredContentType"] as? String == "text/plain; charset=utf-8")
            #expect(json["hits"] as? Int == 0)
            #expect(json["freshnessLifetime"] as? Int == 3600)
            // Stored at the epoch (0.5 s after the request), read 600 s later by the API's clock.
            #expect(json["currentAge"] as? Double == 600.5)
            #expect(json["freshnessLeft"] as? Double == 2999.5)
            #expect(json["fresh"] as? Bool == true)
            #expect(json["created"] as? String == "2027-01-15T08:00:00Z")
            #expect(json["responseTime"] as? String == "2027-01-15T08:00:00Z")
            let headers = try #require(json["headers"] as? [[String: String]])
            #expect(headers.filter { $0["name"] == "Set-Thing" }.map { $0["value"] } == ["a", "b"])
            #expect(headers.first?["name"] == "Content-Type")
        }
    }
}
