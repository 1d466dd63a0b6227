import CacheCore
import CachePolicy
import Foundation
import HTTPCore
import LarderAPI
import Metrics
import TestSupport
import Testing

/// Tags (surrogate keys): read from `Surrogate-Key` and `Cache-Tag` and a filter's `tags`, bounded, kept
/// from callers, shown by meta and listings, and purged by `DELETE /cache?tag=`.
@Suite struct CacheTagTests {
    static let tagged = StubOriginResponse.ok("tagged").header("Cache-Control", "max-age=600")
        .header("Surrogate-Key", "product-42  shelf-7").header("Cache-Tag", "catalog, product-42 ,spring")

    @Test func tagsComeFromBothFieldsAndTheFilterAndDoNotReachCallers() async throws {
        let decider = FixedDecider(decision: FilterDecision(filterName: "shop", tags: ["shop"]))
        try await withInvalidationHarness(decider: decider) { harness in
            harness.origin.respond(to: "/p", with: Self.tagged)
            let miss = try harness.fetch("/p")
            #expect(miss.header("X-Cache") == "MISS")
            #expect(miss.header("Surrogate-Key") == nil)
            #expect(miss.header("Cache-Tag") == nil)
            #expect(await harness.settle())
            let hit = try harness.fetch("/p")
            #expect(hit.header("X-Cache") == "HIT")
            #expect(hit.header("Surrogate-Key") == nil)
            #expect(hit.header("Cache-Tag") == nil)
            let meta = try harness.meta("/p")
            #expect(meta["tags"] as? [String] == ["shop", "product-42", "shelf-7", "catalog", "spring"])
            let stored = (meta["headers"] as? [[String: String]] ?? []).compactMap { $0["name"]?.lowercased() }
            #expect(!stored.contains("surrogate-key") && !stored.contains("cache-tag"))
            let listed = try CacheAPIHarness.json(try harness.request("GET", "/cache?tag=spring&tag=nothing"))
            let entries = listed["entries"] as? [[String: Any]] ?? []
            #expect(entries.count == 1)
            #expect(entries.first?["tags"] as? [String] == ["shop", "product-42", "shelf-7", "catalog", "spring"])
            #expect(
                (try CacheAPIHarness.json(try harness.request("GET", "/cache?tag=nothing"))["entries"] as? [Any])?
                    .isEmpty == true)
        }
    }

    @Test func theSettingPassesTagFieldsOnToCallers() async throws {
        var configuration = FetchConfiguration()
        configuration.forwardTagHeaders = true
        try await withInvalidationHarness(configuration: configuration) { harness in
            harness.origin.respond(to: "/p", with: Self.tagged)
            #expect(try harness.fetch("/p").header("Surrogate-Key") == "product-42  shelf-7")
            #expect(await harness.settle())
            let hit = try harness.fetch("/p")
            #expect(hit.header("X-Cache") == "HIT")
            #expect(hit.header("Cache-Tag") == "catalog, product-42 ,spring")
            #expect((try harness.meta("/p")["tags"] as? [String])?.count == 4)
        }
    }

    @Test func tagsBeyondTheBoundsAreDroppedAndCounted() async throws {
        try await withInvalidationHarness { harness in
            let many = (0..<70).map { "t\($0)" }.joined(separator: " ")
            harness.origin.respond(
                to: "/many",
                with: .ok("x").header("Cache-Control", "max-age=60").header("Surrogate-Key", many)
                    .header("Cache-Tag", String(repeating: "l", count: 257) + ",ok\u{7F}bad,fine"))
            _ = try harness.fetch("/many")
            #expect(await harness.settle())
            let tags = try harness.meta("/many")["tags"] as? [String] ?? []
            #expect(tags == (0..<64).map { "t\($0)" })
            // 6 over the count, one too long, one with DEL, and "fine" (the 65th).
            #expect(harness.service.metrics.tagsDroppedCount == 9)
            var text = PrometheusText()
            harness.service.metrics.write(to: &text)
            #expect(String(decoding: text.bytes, as: UTF8.self).contains("larder_tags_dropped_total 9\n"))
        }
    }

    @Test func aTagPurgeRemovesTheUnionOfItsTagsWithinTheOtherConditions() async throws {
        try await withInvalidationHarness { harness in
            for (path, tags) in [("/a", "red round"), ("/b", "blue round"), ("/c", "green"), ("/d", "red")] {
                harness.origin.respond(
                    to: path, with: .ok(path).header("Cache-Control", "max-age=600").header("Surrogate-Key", tags))
                _ = try harness.fetch(path)
            }
            #expect(await harness.settle())
            // Hot: the next answers come from memory, which the purge must reach too.
            for path in ["/a", "/b", "/c", "/d"] { #expect(try harness.fetch(path).header("X-Cache") == "HIT") }
            let dry = try harness.purge(
                "tag=red&tag=blue&prefix=" + harness.origin.url("/a").percentEncoded() + "&dryRun=true")
            #expect(dry.status == 200)
            #expect(dry.json["count"] as? Int == 1)
            #expect(dry.json["keys"] as? [String] == [CacheKey.make(canonicalURL: harness.origin.url("/a")).hex])
            #expect(try harness.fetch("/a").header("X-Cache") == "HIT")
            let purged = try harness.purge("tag=red&tag=blue")
            #expect(purged.status == 200)
            #expect(purged.json["purged"] as? Int == 3)
            #expect(purged.json["soft"] == nil)
            for path in ["/a", "/b", "/d"] { #expect(try harness.fetch(path).header("X-Cache") == "MISS") }
            #expect(try harness.fetch("/c").header("X-Cache") == "HIT")
            #expect(harness.cache.purgeMetrics.count(kind: .tag, soft: false) == 1)
            var text = PrometheusText()
            harness.cache.purgeMetrics.write(to: &text)
            let exposition = String(decoding: text.bytes, as: UTF8.self)
            #expect(exposition.contains("larder_purges_total{kind=\"tag\",mode=\"delete\"} 1\n"))
            #expect(exposition.contains("larder_purged_entries_total{kind=\"tag\",mode=\"delete\"} 3\n"))
            #expect(exposition.contains("larder_purges_total{kind=\"url\",mode=\"soft\"} 0\n"))
        }
    }

    @Test(arguments: [
        ("soft=yes", "parameter 'soft' must be true or false"), ("tag=", "parameter 'tag' is empty"),
        ("tag=a%20b", "is not a tag"), ("url=ftp%3A%2F%2Fx%2Fy", "url is not one Larder fetches"),
        ("url=http%3A%2F%2Fa%2F&url=http%3A%2F%2Fb%2F", "given more than once"), ("hots=x", "unknown parameter"),
        ("dryRun=1", "must be true or false"),
    ])
    func badPurgeParametersAreRefusedAndPurgeNothing(query: String, detail: String) async throws {
        try await withInvalidationHarness { harness in
            harness.origin.respond(to: "/a", with: .ok("a").header("Cache-Control", "max-age=600"))
            _ = try harness.fetch("/a")
            #expect(await harness.settle())
            let response = try harness.request("DELETE", "/cache?" + query)
            #expect(response.status == 400)
            #expect(response.header("Content-Type") == "application/problem+json")
            #expect(response.text.contains("bad-query"))
            #expect(response.text.contains(detail), "\(response.text)")
            #expect(try harness.fetch("/a").header("X-Cache") == "HIT")
        }
    }

    @Test(arguments: [false, true])
    func tooManyTagParametersAreRefused(repeated: Bool) async throws {
        try await withInvalidationHarness { harness in
            // Counted as given (the contract's maxItems counts repeats): 65 of one tag are too many too.
            let query = (0...64).map { "tag=t\(repeated ? 0 : $0)" }.joined(separator: "&")
            let purge = try harness.request("DELETE", "/cache?" + query)
            let list = try harness.request("GET", "/cache?" + query)
            #expect(purge.status == 400)
            #expect(list.status == 400)
        }
    }
}
