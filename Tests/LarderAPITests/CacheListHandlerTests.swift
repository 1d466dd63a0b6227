import CacheCore
import Foundation
import LarderAPI
import TestSupport
import Testing

struct CacheListHandlerTests {
    /// Six entries on two hosts and two media types, stored oldest first.
    static let urls = [
        ("https://a.example/one.txt", "text/plain"), ("https://a.example/img/1.png", "image/png"),
        ("https://b.example/two.html", "text/html; charset=utf-8"), ("https://a.example/img/2.png", "image/png"),
        ("https://b.example/img/3.gif", "image/gif"), ("https://a.example/three.txt", "text/plain"),
    ]

    static func fill(_ harness: CacheAPIHarness) throws {
        for (index, (url, type)) in urls.enumerated() {
            try harness.put(
                url, CacheCoreFixtures.compressibleBody(length: 100 + index, seed: UInt64(index)), contentType: type)
        }
    }

    static func listedURLs(_ harness: CacheAPIHarness, _ query: String) throws -> (urls: [String], next: String?) {
        let response = try harness.request("GET", "/cache" + query)
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/json")
        let json = try CacheAPIHarness.json(response)
        let entries = json["entries"] as? [[String: Any]] ?? []
        return (entries.compactMap { $0["url"] as? String }, json["nextCursor"] as? String)
    }

    @Test(
        arguments: [
            ("", [5, 4, 3, 2, 1, 0]),
            ("?host=a.example", [5, 3, 1, 0]),
            ("?host=B.EXAMPLE", [4, 2]),
            ("?prefix=https://a.example/img/", [3, 1]),
            ("?type=image/*", [4, 3, 1]),
            ("?type=text/html", [2]),
            ("?host=a.example&type=image/png", [3, 1]),
            ("?host=nobody.example", []),
        ] as [(String, [Int])])
    func listingFiltersAndOrdersNewestFirst(_ query: String, _ expected: [Int]) async throws {
        try await withHarness { harness in
            try Self.fill(harness)
            let (urls, next) = try Self.listedURLs(harness, query)
            #expect(urls == expected.map { Self.urls[$0].0 })
            #expect(next == nil)
        }
    }

    @Test func theCursorWalksEveryEntryOnceAcrossPages() async throws {
        try await withHarness { harness in
            try Self.fill(harness)
            var seen: [String] = []
            var cursor: String?
            var pages = 0
            repeat {
                let query =
                    "?limit=4"
                    + (cursor.map { "&cursor=\($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)" }
                        ?? "")
                let (urls, next) = try Self.listedURLs(harness, query)
                #expect(urls.count <= 4)
                seen += urls
                cursor = next
                pages += 1
            } while cursor != nil && pages < 10
            #expect(pages == 2)
            #expect(seen == Self.urls.reversed().map(\.0))
        }
    }

    @Test func aSummaryCarriesTheDocumentedFields() async throws {
        try await withHarness { harness in
            let entry = try harness.put("https://a.example/x.txt", CacheCoreFixtures.compressibleBody(length: 20_000))
            let json = try CacheAPIHarness.json(try harness.request("GET", "/cache"))
            let first = try #require((json["entries"] as? [[String: Any]])?.first)
            #expect(first["key"] as? String == entry.key.hex)
            #expect(first["status"] as? Int == 200)
            #expect(first["contentType"] as? String == "text/plain; charset=utf-8")
            #expect(first["originalBytes"] as? Int == 20_000)
            #expect(first["storedBytes"] as? Int == entry.storedSize)
            #expect(first["codec"] as? String == "deflate-chunked")
            #expect(first["created"] as? String == "2027-01-15T08:00:00Z")
        }
    }

    @Test(arguments: [
        "?limit=0", "?limit=1001", "?limit=ten", "?limit=", "?cursor=bogus", "?type=png", "?type=*/*", "?hosts=a",
        "?host=a&host=b",
    ])
    func aBadQueryIs400(_ query: String) async throws {
        try await withHarness { harness in
            let response = try harness.request("GET", "/cache" + query)
            #expect(response.status == 400)
            #expect(response.text.contains(ProblemType.badQuery.uri))
        }
    }
}
