import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Storage

/// The writer's turns: long work written in batches (`writeBatch`) leaves the writer to the writers waiting
/// for it between two batches (`yieldTurn`) for as long as a batch held it, and goes on at once when none
/// wants it. On a real SQLite file, with a real thread committing one row a transaction as commits do.
@Suite struct SQLiteDatabaseTests {
    static func database(_ directory: StorageTestDirectory) throws -> SQLiteDatabase {
        try SQLiteDatabase(path: directory.file()) { connection in
            try connection.execute("CREATE TABLE t (x INTEGER)")
        }
    }

    /// A thread committing one row a transaction until stopped; `count` is the commits so far.
    final class Committer: Sendable {
        let count = Atomic<Int>(0)
        let running = Atomic<Bool>(true)
        let finished = DispatchSemaphore(value: 0)

        init(_ database: SQLiteDatabase) {
            Thread { [self] in
                while running.load(ordering: .relaxed) {
                    _ = try? database.write { connection in try connection.run("INSERT INTO t VALUES (1)") }
                    count.add(1, ordering: .relaxed)
                }
                finished.signal()
            }.start()
        }

        func stop() {
            running.store(false, ordering: .relaxed)
            finished.wait()
        }
    }

    @Test func betweenTwoBatchesWaitingWritersGetTheWriterForTheTurn() throws {
        let directory = StorageTestDirectory()
        let database = try Self.database(directory)
        let committer = Committer(database)
        defer { committer.stop() }
        let clock = ContinuousClock()
        for _ in 0..<3 {
            // A batch holding the writer for 20 ms, as a purge batch does: the committer waits for it.
            let before = try database.writeBatch { _ -> Int in
                usleep(20_000)
                return committer.count.load(ordering: .relaxed)
            }
            let started = clock.now
            database.yieldTurn(.milliseconds(20))
            let took = clock.now - started
            let during = committer.count.load(ordering: .relaxed) - before
            // The turn lasts while commits keep coming (an unfair lock and a short pause let about one in).
            #expect(took >= .milliseconds(19), "the turn ended after \(took)")
            #expect(during >= 10, "\(during) commits in the writers' turn")
        }
    }

    @Test func aTurnNoWriterWantsEndsAtOnce() throws {
        let directory = StorageTestDirectory()
        let database = try Self.database(directory)
        try database.writeBatch { connection in _ = try connection.run("INSERT INTO t VALUES (1)") }
        let clock = ContinuousClock()
        let started = clock.now
        database.yieldTurn(.seconds(2))
        let took = clock.now - started
        #expect(took < .milliseconds(500), "a turn with no writer took \(took)")
    }

    @Test func aTurnEndsSoonAfterTheLastWriterStops() throws {
        let directory = StorageTestDirectory()
        let database = try Self.database(directory)
        let committer = Committer(database)
        let clock = ContinuousClock()
        let started = clock.now
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) { committer.stop() }
        database.yieldTurn(.seconds(3))
        let took = clock.now - started
        #expect(took >= .milliseconds(45), "the turn ended while the writer still wrote: \(took)")
        #expect(took < .seconds(2), "the turn outlasted the writer: \(took)")
    }
}
