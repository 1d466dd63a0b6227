import CacheCore
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Storage

/// Bodies that finish while a commit is under way are committed together in one transaction; when a job
/// fails in it (its statement, or the whole transaction rolled back by SQLite) the group is committed
/// again one job at a time, so only that job fails, and either way no pending chunk is left behind. The writer connection is held by the test while the commits are
/// handed in, behind a first commit that the group's queue has taken and waits with: so the items all
/// queue up behind it and form one group (or one group with the first, if the queue was slow to take
/// it: every assertion holds either way).
@Suite struct SQLiteCommitGroupTests {
    /// Twelve bodies of one, three and five chunks (4 KiB chunks), each for its own URL.
    static let bodies: [(url: String, body: [UInt8])] = (0..<12).map { index in
        let length = [900, 3 * StorageTestHarness.chunkSize + 5, 5 * StorageTestHarness.chunkSize][index % 3]
        return ("https://example.com/\(index)", CacheCoreFixtures.randomBody(length: length, seed: UInt64(index + 1)))
    }

    @Test func bodiesThatFinishTogetherCommitInOneTransaction() throws {
        let harness = try StorageTestHarness()
        let results = try Self.commitWhileTheWriterIsHeld(harness, Self.bodies)
        #expect(results.count == Self.bodies.count)
        for (item, result) in zip(Self.bodies, results) {
            let stored = try result.get()
            #expect(try sameBytes(harness.read(stored), item.body))
            #expect(try harness.store.entry(for: stored.key)?.url == item.url)
        }
        // The first commit and the items: two groups, or one.
        #expect(harness.store.commits.bodies.load(ordering: .relaxed) == Self.bodies.count + 1)
        #expect(harness.store.commits.groups.load(ordering: .relaxed) <= 2)
        #expect(try harness.count("SELECT count(*) FROM pending_body") == 0)
        #expect(try harness.store.stats().entryCount == Self.bodies.count + 1)
        try Self.expectCountersAgreeWithTheRows(harness)
    }

    /// More bodies queued than one group takes (`SQLiteCommitGroup.maxGroup`, 64): they commit in groups of at
    /// most that many, oldest first (each entry's `seq` follows the order the bodies were handed in), and
    /// every one is stored.
    @Test func aLongQueueCommitsInBoundedGroupsInTheOrderItCameIn() throws {
        let harness = try StorageTestHarness()
        let items = (0..<(2 * SQLiteCommitGroup.maxGroup + 5)).map { index in
            ("https://example.com/queued/\(index)", CacheCoreFixtures.randomBody(length: 300, seed: UInt64(index + 1)))
        }
        let results = try Self.commitWhileTheWriterIsHeld(harness, items)
        var seqs: [Int] = []
        for (item, result) in zip(items, results) {
            let stored = try result.get()
            #expect(try sameBytes(harness.read(stored), item.1))
            seqs.append(try harness.count("SELECT seq FROM entry WHERE url = '\(item.0)'"))
        }
        #expect(seqs == seqs.sorted() && Set(seqs).count == items.count)
        // The first commit alone, then 133 bodies in groups of at most 64: four groups (three when the queue
        // was slow to take the first, which then leads the first group of 64). Unbounded, two or one.
        let groups = harness.store.commits.groups.load(ordering: .relaxed)
        #expect(groups == 4 || groups == 3, "\(groups) groups")
        #expect(harness.store.commits.bodies.load(ordering: .relaxed) == items.count + 1)
        try Self.expectCountersAgreeWithTheRows(harness)
    }

    /// A committed group's jobs are let go before the next group of the same queue runs: the write backlog
    /// counts a body free once it is committed, so a job kept to the end of a long queue is memory no bound
    /// covers. Each job's completion holds a token; when the last group's first completion runs, the tokens
    /// of every earlier group are gone (all 133 were kept until the whole queue was done before).
    @Test func aCommittedGroupIsLetGoBeforeTheNextOneRuns() throws {
        let harness = try StorageTestHarness()
        let items = (0..<(2 * SQLiteCommitGroup.maxGroup + 5)).map { index in
            (
                "https://example.com/released/\(index)",
                CacheCoreFixtures.randomBody(length: 300, seed: UInt64(index + 1))
            )
        }
        let released = ReleaseCounter()
        let seenAtLastGroup = Mutex<Int?>(nil)
        let lastGroupStart = 2 * SQLiteCommitGroup.maxGroup
        let results = try Self.commitWhileTheWriterIsHeld(harness, items, tokens: released) { index in
            if index == lastGroupStart { seenAtLastGroup.withLock { $0 = released.count } }
        }
        #expect(results.allSatisfy { (try? $0.get()) != nil })
        // The groups before the one with item 128 hold items 0..<128, or 0..<127 with the first commit when the
        // queue was slow to take it alone: well over 64 tokens are gone by then either way.
        let seen = try #require(seenAtLastGroup.withLock { $0 })
        #expect(seen >= lastGroupStart - SQLiteCommitGroup.maxGroup, "\(seen) tokens let go")
    }

    /// The counters a group takes once for all its entries (`SQLiteCommitCounters`) are what the rows say:
    /// every entry its own `seq` (1…n here, in commit order), every body its own id with the counter at the
    /// highest, and `stats` the rows' count and footprints.
    static func expectCountersAgreeWithTheRows(_ harness: StorageTestHarness) throws {
        let entries = try harness.count("SELECT count(*) FROM entry")
        #expect(try harness.count("SELECT count(DISTINCT seq) FROM entry") == entries)
        #expect(try harness.count("SELECT max(seq) FROM entry") == entries)
        #expect(try harness.count("SELECT count(DISTINCT body_id) FROM entry") == entries)
        #expect(
            try harness.count("SELECT seq FROM sqlite_sequence WHERE name = 'pending_body'")
                == harness.count("SELECT max(body_id) FROM entry"))
        #expect(try harness.count("SELECT entry_count FROM stats") == entries)
        #expect(try harness.count("SELECT total_bytes FROM stats") == harness.count("SELECT sum(footprint) FROM entry"))
    }

    @Test func aJobThatFailsFailsAloneAndLeavesNoChunks() throws {
        let harness = try StorageTestHarness()
        // The statement fails; the transaction goes on (https://sqlite.org/lang_createtrigger.html#raise).
        try Self.failInsertOfItemFour(harness, raising: "ABORT")
        let results = try Self.commitWhileTheWriterIsHeld(harness, Self.bodies)
        for (index, (item, result)) in zip(Self.bodies, results).enumerated() {
            if index == 4 {
                #expect(throws: CacheStoreError.self) { try result.get() }
            } else {
                let stored = try result.get()
                #expect(try sameBytes(harness.read(stored), item.body))
            }
        }
        #expect(try harness.store.stats().entryCount == Self.bodies.count)
        #expect(try harness.count("SELECT count(*) FROM pending_body") == 0)
        // Only the committed entries' chunks are left: the failed four-chunk body's are gone.
        #expect(try Self.chunksMatchEntries(harness))
    }

    @Test func aTransactionSQLiteRollsBackIsCommittedAgainJobByJob() throws {
        let harness = try StorageTestHarness()
        // RAISE(ROLLBACK) ends the transaction, as a full disk can: the jobs before it are gone too, and
        // are committed again, each on its own.
        try Self.failInsertOfItemFour(harness, raising: "ROLLBACK")
        let results = try Self.commitWhileTheWriterIsHeld(harness, Self.bodies)
        for (index, (item, result)) in zip(Self.bodies, results).enumerated() {
            if index == 4 {
                #expect(throws: CacheStoreError.self) { try result.get() }
            } else {
                #expect(try sameBytes(harness.read(try result.get()), item.body))
            }
        }
        #expect(try harness.store.stats().entryCount == Self.bodies.count)
        #expect(try harness.count("SELECT count(*) FROM pending_body") == 0)
        #expect(try Self.chunksMatchEntries(harness))
        // The store goes on: a later body commits.
        try harness.sql("DROP TRIGGER temp.fail_four")
        let later = try harness.put(CacheCoreFixtures.makeEntry(url: "https://example.com/later"), [1, 2, 3])
        #expect(try harness.read(later) == [1, 2, 3])
    }

    @Test func aLoneCommitDoesNotWaitForCompany() throws {
        let harness = try StorageTestHarness()
        let entry = CacheCoreFixtures.makeEntry(url: "https://example.com/alone")
        let writer = try harness.store.beginWrite(hints: CacheBodyHints(headers: entry.headers))
        try writer.append([9, 8, 7])
        let done = DispatchSemaphore(value: 0)
        writer.commit(entry) { _ in done.signal() }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(try harness.store.entry(for: entry.key) != nil)
    }

    /// Makes the writer connection's insert of item 4's entry fail with `RAISE(mode)`: `ABORT` fails the
    /// statement, `ROLLBACK` the whole transaction.
    static func failInsertOfItemFour(_ harness: StorageTestHarness, raising mode: String) throws {
        try harness.store.database.write { connection in
            try connection.execute(
                """
                CREATE TEMP TRIGGER fail_four BEFORE INSERT ON entry WHEN NEW.url = 'https://example.com/4'
                BEGIN SELECT RAISE(\(mode), 'refused by the test'); END;
                """)
        }
    }

    /// Whether the chunk table holds exactly the chunks of the committed (incompressible) bodies.
    static func chunksMatchEntries(_ harness: StorageTestHarness) throws -> Bool {
        let chunks = try harness.count("SELECT count(*) FROM chunk")
        let expected = try harness.count("SELECT coalesce(sum((original_size + 4095) / 4096), 0) FROM entry")
        return chunks == expected
    }

    /// Writes every body's chunks, holds the writer connection, hands in a first commit and gives the
    /// group's queue time to take it, hands in every item's commit, then lets go and waits for all
    /// completions. Returns the items' results.
    /// - Parameters:
    ///   - tokens: when given, each item's completion holds a token of it until the job that calls it is let go.
    ///   - completed: called with an item's index when its completion runs.
    static func commitWhileTheWriterIsHeld(
        _ harness: StorageTestHarness, _ items: [(url: String, body: [UInt8])], tokens: ReleaseCounter? = nil,
        completed: @escaping @Sendable (Int) -> Void = { _ in }
    ) throws -> [Result<StoredEntry, any Error>] {
        var writers: [(any CacheBodyWriter, StoredEntry)] = []
        for item in items {
            let entry = CacheCoreFixtures.makeEntry(url: item.url)
            let writer = try harness.store.beginWrite(hints: CacheBodyHints(headers: entry.headers))
            try writer.append(item.body)
            writers.append((writer, entry))
        }
        let results = Mutex<[Int: Result<StoredEntry, any Error>]>([:])
        let done = DispatchGroup()
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let store = harness.store
        DispatchQueue.global().async {
            _ = try? store.database.write { _ in
                held.signal()
                release.wait()
            }
        }
        held.wait()
        let firstEntry = CacheCoreFixtures.makeEntry(url: "https://example.com/first")
        let first = try harness.store.beginWrite(hints: CacheBodyHints(headers: firstEntry.headers))
        try first.append([1])
        done.enter()
        first.commit(firstEntry) { _ in done.leave() }
        Thread.sleep(forTimeInterval: 0.05)
        for (index, (writer, entry)) in writers.enumerated() {
            done.enter()
            // Made here and captured only by the completion, so nothing else keeps it.
            let token = tokens?.token()
            writer.commit(entry) { result in
                withExtendedLifetime(token) {}
                results.withLock { $0[index] = result }
                completed(index)
                done.leave()
            }
        }
        release.signal()
        #expect(done.wait(timeout: .now() + 30) == .success)
        return results.withLock { results in items.indices.map { results[$0] ?? .failure(CacheStoreError.writerClosed) }
        }
    }
}

/// Counts the tokens it made that have been deallocated.
final class ReleaseCounter: Sendable {
    final class Token: Sendable {
        private let counter: ReleaseCounter
        init(_ counter: ReleaseCounter) { self.counter = counter }
        deinit { counter.released.add(1, ordering: .relaxed) }
    }

    fileprivate let released = Atomic<Int>(0)

    /// The tokens let go so far.
    var count: Int { released.load(ordering: .relaxed) }

    func token() -> Token { Token(self) }
}
