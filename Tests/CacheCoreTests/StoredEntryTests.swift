import CacheCore
import Foundation
import HTTPCore
import Testing

@Suite struct StoredEntryTests {
    @Test func expiryFollowsTheCorrectedInitialAge() {
        // RFC 9111 §4.2.3: Age 100 received, 2 s response delay, Date 10 s before response: age 102.
        let response = Date(timeIntervalSince1970: 1_000)
        let entry = StoredEntry(
            key: CacheKey.make(canonicalURL: "u"), url: "https://e.example/", status: .ok, headers: HTTPHeaders(),
            requestTime: response.addingTimeInterval(-2), responseTime: response,
            date: response.addingTimeInterval(-10), ageReceived: 100, freshnessLifetime: 600, staleAllowance: 60)
        #expect(entry.correctedInitialAge == 102)
        #expect(entry.expires == response.addingTimeInterval(498))
        #expect(entry.sweepAfter == response.addingTimeInterval(558))
        #expect(entry.currentAge(at: response.addingTimeInterval(8)) == 110)
    }

    @Test func headerDerivedFieldsAreRead() {
        let entry = CacheCoreFixturesShim.entry(
            url: "https://Host.example:8443/x", contentType: "Text/HTML ; charset=utf-8",
            extra: [("ETag", "\"v1\""), ("Last-Modified", "Tue, 15 Nov 1994 12:45:26 GMT"), ("Location", "/y")])
        #expect(entry.mediaType == "text/html")
        #expect(entry.contentType == "Text/HTML ; charset=utf-8")
        #expect(entry.etag == "\"v1\"")
        #expect(entry.lastModified == "Tue, 15 Nov 1994 12:45:26 GMT")
        #expect(entry.location == "/y")
        #expect(entry.host == "host.example")
        #expect(entry.primaryKey == CacheKey.make(canonicalURL: "https://Host.example:8443/x"))
    }
}

@Suite struct StoredEntryMediaTypeTests {
    @Test(arguments: [
        ("text/html", "text/html"), ("Text/HTML; charset=UTF-8", "text/html"), ("  image/png \t", "image/png"),
        ("image/png;", "image/png"), ("; charset=utf-8", ""), ("", ""),
    ])
    func mediaTypeIsLowerCasedWithoutParameters(contentType: String, expected: String) {
        #expect(StoredEntry.mediaType(of: contentType) == expected)
    }

    @Test func noContentTypeHasNoMediaType() {
        #expect(StoredEntry.mediaType(of: nil) == nil)
    }
}

/// Thin wrapper so CacheCore tests read the same as Storage tests.
enum CacheCoreFixturesShim {
    static func entry(url: String, contentType: String?, extra: [(String, String)] = []) -> StoredEntry {
        var headers = HTTPHeaders()
        if let contentType { headers.add(name: "Content-Type", value: contentType) }
        for (name, value) in extra { headers.add(name: name, value: value) }
        return StoredEntry(
            key: CacheKey.make(canonicalURL: url), url: url, status: .ok, headers: headers,
            requestTime: Date(timeIntervalSince1970: 0), responseTime: Date(timeIntervalSince1970: 0),
            freshnessLifetime: 60)
    }
}

/// `StoredEntry` keeps its fields in a box its copies share until one changes (copy on write): a change
/// through any field reaches only the value changed, and equality is still field by field.
@Suite struct StoredEntryCopyTests {
    static func entry() -> StoredEntry {
        CacheCoreFixturesShim.entry(url: "https://e.example/a", contentType: "text/plain", extra: [("ETag", "\"1\"")])
    }

    @Test func aChangedCopyLeavesTheOriginalAsItWas() {
        let original = Self.entry()
        var copy = original
        copy.headers.add(name: "X-Added", value: "1")
        copy.tags.append("t")
        copy.url = "https://e.example/b"
        copy.staleSince = Date(timeIntervalSince1970: 5)
        copy.setUsage(hitCount: 7, lastAccess: Date(timeIntervalSince1970: 9), created: Date(timeIntervalSince1970: 1))
        #expect(original.headers["X-Added"] == nil)
        #expect(original.tags.isEmpty)
        #expect(original.url == "https://e.example/a")
        #expect(original.staleSince == nil)
        #expect(original.hitCount == 0)
        #expect(copy.headers["X-Added"] == "1")
        #expect(copy.tags == ["t"])
        #expect(copy.hitCount == 7)
        #expect(original != copy)
        #expect(original == Self.entry())
    }

    @Test func equalityComparesFieldsWhetherOrNotTheBoxIsShared() {
        let one = Self.entry()
        let shared = one
        var apart = Self.entry()
        #expect(one == shared)
        #expect(one == apart)
        apart.freshnessLifetime += 1
        #expect(one != apart)
        apart.freshnessLifetime -= 1
        #expect(one == apart)
    }
}
