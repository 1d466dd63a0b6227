import CacheCore
import Foundation
import HTTPServer
import LarderAPI
import Storage
import TestSupport
import Testing

extension FaultSuites {
    /// The database refusing writes while Larder runs: misses are served uncached, hits keep working, the
    /// failure is reported (logged by `larder serve`) and counted, and storing resumes once the disk does.
    @Suite struct FaultStoreTests {
        /// Ways to make the writer fail as a real disk does, and how to undo them. Running as root, a file
        /// mode cannot make an open database read-only, so `query_only` stands in for the read-only file.
        static let refusals: [(name: String, refuse: String, restore: String, error: String)] = [
            ("disk full", "PRAGMA max_page_count = 1", "PRAGMA max_page_count = 1073741823", "full"),
            ("read-only", "PRAGMA query_only = 1", "PRAGMA query_only = 0", "readonly"),
        ]

        @Test(arguments: refusals)
        func refusedWritesServeMissesUncachedKeepHitsAndAreCounted(
            refusal: (name: String, refuse: String, restore: String, error: String)
        ) async throws {
            try await withFaultHarness { harness in
                let kept = faultBytes(count: 100_000, seed: 7)
                let fresh = faultBytes(count: 300_000, seed: 8)
                harness.origin.respond(to: "/kept", with: .ok(bytes: kept).header("Cache-Control", "max-age=600"))
                harness.origin.respond(to: "/new", with: .ok(bytes: fresh).header("Cache-Control", "max-age=600"))
                #expect(try sameBytes(harness.fetch("/kept").body, kept))
                #expect(await harness.settle())

                // max_page_count below the current size pins the file at that size (SQLITE_FULL on growth).
                try harness.onWriter(refusal.refuse)
                let miss = try harness.fetch("/new")
                #expect(miss.status == 200)
                #expect(miss.header("X-Cache") == "MISS")
                #expect(sameBytes(miss.body, fresh))
                #expect(await harness.settle())
                #expect(try harness.storedBody("/new") == nil, "\(refusal.name): nothing half-written is kept")
                #expect(harness.service.metrics.storeWriteFailureCount >= 1)
                let reported = harness.reportedFailures
                #expect(reported.first?.contains(harness.origin.url("/new")) == true)
                #expect(reported.first?.lowercased().contains(refusal.error) == true, "\(reported)")

                let hit = try harness.fetch("/kept")
                #expect(hit.header("X-Cache") == "HIT")
                #expect(sameBytes(hit.body, kept))
                let again = try harness.fetch("/new")
                #expect(again.header("X-Cache") == "MISS")
                #expect(sameBytes(again.body, fresh))
                #expect(harness.isHealthy())

                // The disk is back: the next miss is stored, and the store is sound.
                try harness.onWriter(refusal.restore)
                _ = try harness.fetch("/new")
                #expect(await harness.settle())
                #expect(try harness.storedBody("/new") == fresh)
                #expect(try harness.store.stats().entryCount == 2)
                #expect(try harness.integrityCheck() == ["ok"])
            }
        }

        @Test func databaseFileDeletedWhileRunningKeepsServingCorrectBytes() async throws {
            try await withFaultHarness { harness in
                let kept = faultBytes(count: 100_000, seed: 9)
                let fresh = faultBytes(count: 100_000, seed: 10)
                harness.origin.respond(to: "/kept", with: .ok(bytes: kept).header("Cache-Control", "max-age=600"))
                harness.origin.respond(to: "/new", with: .ok(bytes: fresh).header("Cache-Control", "max-age=600"))
                #expect(try sameBytes(harness.fetch("/kept").body, kept))
                #expect(await harness.settle())

                for suffix in ["", "-wal", "-shm"] { unlink(harness.databasePath + suffix) }
                // The open connections keep the unlinked file: whatever is served is the right bytes.
                for _ in 0..<3 {
                    let hit = try harness.fetch("/kept")
                    #expect(hit.status == 200)
                    #expect(sameBytes(hit.body, kept))
                    let miss = try harness.fetch("/new")
                    #expect(miss.status == 200)
                    #expect(sameBytes(miss.body, fresh))
                    #expect(await harness.settle())
                }
                #expect(harness.isHealthy())
            }
        }
    }
}
