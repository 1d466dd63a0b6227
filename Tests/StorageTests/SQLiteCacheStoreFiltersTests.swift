import CacheCore
import TestSupport
import Testing

@testable import Storage

@Suite struct SQLiteCacheStoreFiltersTests {
    @Test func chainStartsEmptyAtVersionZero() throws {
        let harness = try StorageTestHarness()
        #expect(try harness.store.loadFilterChain() == FilterChainRecord(version: 0, filters: []))
    }

    @Test func savedChainSurvivesReopenInOrder() throws {
        let directory = StorageTestDirectory()
        let filters = [
            FilterRecord(name: "z", json: "{\"a\":1}"), FilterRecord(name: "a", json: "{}"),
            FilterRecord(name: "m", json: "[]"),
        ]
        do {
            let store = try SQLiteCacheStore(path: directory.file())
            #expect(try store.saveFilterChain(filters, expectedVersion: nil).version == 1)
            #expect(try store.saveFilterChain(Array(filters.reversed()), expectedVersion: 1).version == 2)
        }
        let store = try SQLiteCacheStore(path: directory.file())
        #expect(try store.loadFilterChain() == FilterChainRecord(version: 2, filters: filters.reversed()))
    }

    @Test func staleVersionOrDuplicateNameChangesNothing() throws {
        let harness = try StorageTestHarness()
        let first = try harness.store.saveFilterChain([FilterRecord(name: "a", json: "{}")], expectedVersion: 0)
        #expect(throws: CacheStoreError.versionConflict(current: 1)) {
            try harness.store.saveFilterChain([], expectedVersion: 0)
        }
        #expect(throws: CacheStoreError.duplicateFilterName("b")) {
            try harness.store.saveFilterChain(
                [FilterRecord(name: "b", json: "1"), FilterRecord(name: "b", json: "2")], expectedVersion: 1)
        }
        #expect(try harness.store.loadFilterChain() == first)
    }
}
