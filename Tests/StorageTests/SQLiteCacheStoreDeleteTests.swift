import CacheCore
import Foundation
import TestSupport
import Testing

@testable import Storage

/// `delete(_ entry:)`: an entry read, then replaced by another body under its key, is not deleted.
@Suite struct SQLiteCacheStoreDeleteTests {
    @Test func anEntryReplacedMeanwhileIsNotDeleted() throws {
        let harness = try StorageTestHarness()
        let old = try harness.put(CacheCoreFixtures.makeEntry(), CacheCoreFixtures.randomBody(length: 1000))
        let new = try harness.put(CacheCoreFixtures.makeEntry(), CacheCoreFixtures.randomBody(length: 2000))
        #expect(old.key == new.key && old.bodyID != new.bodyID)
        #expect(try harness.store.delete(old) == false)
        #expect(try harness.store.entry(for: new.key)?.bodyID == new.bodyID)
        #expect(try harness.store.delete(new))
        #expect(try harness.store.entry(for: new.key) == nil)
        #expect(try harness.store.delete(new) == false)
        #expect(try harness.count("SELECT count(*) FROM chunk") == 0)
    }
}
