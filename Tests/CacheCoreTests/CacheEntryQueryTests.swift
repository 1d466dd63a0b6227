import CacheCore
import Testing

@Suite struct CacheEntryQueryTests {
    @Test(arguments: [
        ("https://Example.COM/a", "example.com"),
        ("http://user:pw@example.com:8080/x?y", "example.com"),
        ("http://[::1]:80/", "[::1]"),
        ("https://example.com", "example.com"),
        ("https://example.com?q#f", "example.com"),
        ("not a url", ""),
        ("HTTP://EXAMPLE.com:8080", "example.com"), ("https://[2001:DB8::1]/a", "[2001:db8::1]"),
        ("https://a@b@c.example/", "c.example"), ("http://", ""), ("https://host#f", "host"),
    ])
    func hostIsExtracted(url: String, host: String) {
        #expect(CacheEntryQuery.host(of: url) == host)
    }

    @Test(arguments: [
        ("image/png", "image/*", true), ("image/png", "image/png", true), ("image/png", "image/jpeg", false),
        ("imagex/png", "image/*", false), ("text/html", "TEXT/HTML", true), ("text/html", "*/*", true),
        ("text/html", "*", true),
    ])
    func mediaTypeFilterMatches(type: String, filter: String, expected: Bool) {
        #expect(CacheEntryQuery.mediaType(type, matches: filter) == expected)
    }

    @Test func cursorsRoundTripAndGarbageIsRejected() throws {
        #expect(try CacheEntryQuery.position(of: CacheEntryQuery.cursor(after: 42)) == 42)
        #expect(throws: CacheStoreError.invalidCursor("42")) { try CacheEntryQuery.position(of: "42") }
        #expect(throws: CacheStoreError.invalidCursor("c-1")) { try CacheEntryQuery.position(of: "c-1") }
    }

    @Test func queryFiltersEntries() {
        let entry = CacheCoreFixturesShim.entry(url: "https://a.example/img/1.png", contentType: "image/png")
        #expect(CacheEntryQuery(host: "A.example").matches(entry))
        #expect(!CacheEntryQuery(host: "b.example").matches(entry))
        #expect(CacheEntryQuery(urlPrefix: "https://a.example/img/").matches(entry))
        #expect(!CacheEntryQuery(urlPrefix: "https://a.example/css/").matches(entry))
        #expect(CacheEntryQuery(contentType: "image/*").matches(entry))
        #expect(!CacheEntryQuery(contentType: "text/*").matches(entry))
    }
}
