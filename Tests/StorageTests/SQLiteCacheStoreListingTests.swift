import CacheCore
import Foundation
import TestSupport
import Testing

@testable import Storage

/// Listing and purges, checked against the in-memory store's answers on the same data set.
@Suite struct SQLiteCacheStoreListingTests {
    static let urls: [(String, String)] = (0..<30).map { index in
        let host = ["a.example", "B.example", "c.example"][index % 3]
        let type = ["text/html; charset=utf-8", "image/png", "application/json", "image/jpeg"][index % 4]
        return ("https://\(host)/\(index % 2 == 0 ? "img" : "doc")/\(index)", type)
    }

    func fill(_ store: any CacheStore) throws {
        for (url, type) in Self.urls {
            let writer = try store.beginWrite(hints: CacheBodyHints(contentType: type))
            try writer.append(Array(url.utf8))
            try writer.commit(CacheCoreFixtures.makeEntry(url: url, contentType: type))
        }
    }

    func listAll(_ store: any CacheStore, _ query: CacheEntryQuery) throws -> [String] {
        var query = query
        var urls = [String]()
        while true {
            let page = try store.list(query)
            #expect(page.entries.count <= query.limit)
            urls += page.entries.map(\.url)
            guard let next = page.nextCursor else { return urls }
            query.cursor = next
        }
    }

    static let queries: [CacheEntryQuery] = [
        CacheEntryQuery(limit: 7), CacheEntryQuery(host: "b.example", limit: 3),
        CacheEntryQuery(urlPrefix: "https://a.example/img/", limit: 2),
        CacheEntryQuery(contentType: "image/*", limit: 4),
        CacheEntryQuery(host: "c.example", contentType: "application/json"), CacheEntryQuery(host: "none.example"),
    ]

    @Test(arguments: queries)
    func listingIsNewestFirstAndMatchesTheReference(query: CacheEntryQuery) throws {
        let harness = try StorageTestHarness()
        try fill(harness.store)
        let listed = try listAll(harness.store, query)
        let expected = Self.urls.reversed().map(\.0).filter { url in
            query.matches(CacheCoreFixtures.makeEntry(url: url, contentType: Self.urls.first { $0.0 == url }!.1))
        }
        #expect(listed == expected)
        let reference = InMemoryCacheStore()
        try fill(reference)
        #expect(try listAll(reference, query) == expected)
    }

    @Test func garbageCursorIsRejected() throws {
        let harness = try StorageTestHarness()
        #expect(throws: CacheStoreError.invalidCursor("zzz")) { try harness.store.list(CacheEntryQuery(cursor: "zzz")) }
    }

    @Test(arguments: [
        CachePurgeScope.all, .host("B.EXAMPLE"), .urlPrefix("https://a.example/img/"), .urlPrefix("https://nope/"),
    ])
    func purgeDeletesExactlyTheSelectedSet(scope: CachePurgeScope) throws {
        let harness = try StorageTestHarness()
        try fill(harness.store)
        let before = try listAll(harness.store, CacheEntryQuery(limit: 1000))
        let doomed = before.filter { scope.matches(CacheCoreFixtures.makeEntry(url: $0)) }
        #expect(try harness.store.purge(scope) == doomed.count)
        #expect(try listAll(harness.store, CacheEntryQuery(limit: 1000)) == before.filter { !doomed.contains($0) })
        #expect(try harness.store.stats().entryCount == before.count - doomed.count)
        // The bodies go once the purged entries are reclaimed.
        try harness.store.reclaimPurged()
        #expect(try harness.count("SELECT count(*) FROM chunk") == before.count - doomed.count)
        let reference = InMemoryCacheStore()
        try fill(reference)
        #expect(try reference.purge(scope) == doomed.count)
    }
}
