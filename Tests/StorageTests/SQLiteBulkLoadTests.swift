import CacheCore
import Foundation
import TestSupport
import Testing

@testable import Storage

/// `bulkLoad` (for benchmarks and tools) writes entries as a commit does: readable bodies, their tags
/// and their `Vary` names, so a loaded store answers lookups as a served one would.
@Suite struct SQLiteBulkLoadTests {
    @Test func loadedEntriesAreFoundWithTheirBodiesTagsAndVaryNames() throws {
        let harness = try StorageTestHarness()
        var plain = CacheCoreFixtures.makeEntry(url: "https://bulk.example/plain")
        plain.tags = ["sale"]
        let varied = CacheCoreFixtures.makeEntry(
            url: "https://bulk.example/varied", varyNames: ["accept-language"],
            key: CacheKey.make(canonicalURL: "https://bulk.example/varied", varyingHeaders: [("accept-language", "de")])
        )
        let bodies = [Array("plain body".utf8), Array("varied body".utf8)]
        try harness.store.bulkLoad([(plain, bodies[0]), (varied, bodies[1])], transactionSize: 1)
        let loaded = try #require(try harness.store.entry(for: plain.key))
        #expect(try harness.read(loaded) == bodies[0])
        #expect(loaded.tags == ["sale"])
        #expect(try harness.count("SELECT count(*) FROM entry_tag WHERE tag = 'sale'") == 1)
        #expect(try harness.store.varyNames(forPrimaryKey: varied.primaryKey) == ["accept-language"])
        let variant = try #require(try harness.store.entry(for: varied.key))
        #expect(try harness.read(variant) == bodies[1])
        // Loaded entries are counted as committed ones are.
        let stats = try harness.store.stats()
        #expect(stats.entryCount == 2)
        #expect(stats.totalBytes == (try harness.count("SELECT sum(footprint) FROM entry")))
    }
}
