import CacheCore
import Foundation
import Storage
import Synchronization
import TestSupport
import Testing

@testable import LarderAPI

/// A URL the store has never held is a miss without a store lookup: the store's key filter answers on the
/// connection's queue (`CacheStore.mayHold(primaryKey:)`), and the request goes to the origin from there.
@Suite struct FetchKeyFilterTests {
    /// The store `/fetch` was given, recording every call by name (its probe fails for all of them).
    private final class Recorder: Sendable {
        private let made = Mutex<APIRecordingStore?>(nil)
        var store: APIRecordingStore? { made.withLock { $0 } }

        func wrap(_ store: SQLiteCacheStore) -> any CacheStore {
            let recording = APIRecordingStore(wrapping: store, probe: { false })
            made.withLock { $0 = recording }
            return recording
        }
    }

    /// A fetch harness whose store records its calls, once the key filter is built (when the store opens;
    /// until then every key may be held).
    private func withBuiltFilter(_ body: (FetchTestHarness, APIRecordingStore) async throws -> Void) async throws {
        let recorder = Recorder()
        try await withFetchHarness(wrapStore: recorder.wrap) { harness in
            let store = try #require(recorder.store)
            let probe = CacheKey.make(canonicalURL: harness.origin.url("/probe"))
            #expect(await waitUntil(timeout: .seconds(10)) { !harness.store.mayHold(primaryKey: probe) })
            try await body(harness, store)
        }
    }

    @Test func aURLNeverStoredIsFetchedWithoutALookupAndThenHits() async throws {
        try await withBuiltFilter { harness, store in
            harness.origin.respond(to: "/new", with: .ok("fresh body").header("Cache-Control", "max-age=600"))
            let miss = try harness.fetch("/new")
            #expect(miss.status == 200 && miss.header("X-Cache") == "MISS" && miss.text == "fresh body")
            #expect(await harness.settle())
            // No lookup ran for it: the names and the entry were never asked for.
            #expect(!store.violations.contains("varyNames") && !store.violations.contains("entry"))

            // Stored, so now held: the lookup runs and answers from the store.
            #expect(harness.store.mayHold(primaryKey: CacheKey.make(canonicalURL: harness.origin.url("/new"))))
            let hit = try harness.fetch("/new")
            #expect(hit.header("X-Cache") == "HIT" && hit.text == "fresh body")
            #expect(store.violations.contains("varyNames"))
            #expect(harness.origin.requestCount(for: "/new") == 1)
        }
    }

    @Test func onlyIfCachedForAURLNeverStoredIsA504WithoutALookup() async throws {
        try await withBuiltFilter { harness, store in
            harness.origin.respond(to: "/absent", with: .ok("x").header("Cache-Control", "max-age=600"))
            let response = try harness.fetch("/absent", headers: [("Cache-Control", "only-if-cached")])
            #expect(response.status == 504)
            #expect(response.header("Content-Type") == "application/problem+json")
            #expect(harness.origin.requestCount == 0)
            #expect(!store.violations.contains("varyNames") && !store.violations.contains("entry"))
        }
    }
}
