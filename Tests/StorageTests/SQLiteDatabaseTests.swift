import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Storage

/// The writer's turns: long work written in batches (`writeBatch`) leaves the writer to the writers waiting
/// for it between two batches (`yieldTurn`) while they want it, up to the turn's length, and goes on at
/// once when none does. On a real SQLite file, with real threads; each wait is on what a writer does
/// (waiting for or holding the writer), not on how fast a loaded machine schedules it.
@Suite struct SQLiteDatabaseTests {
    static func database(_ directory: StorageTestDirectory) throws -> SQLiteDatabase {
        try SQLiteDatabase(path: directory.file()) { connection in
            try connection.execute("CREATE TABLE t (x INTEGER)")
        }
    }

    /// Starts a thread that asks for the writer and holds it for `holding`, and returns once that thread
    /// is counted as waiting for it or holding it; `done` is signalled when its write committed.
    static func startWriter(_ database: SQLiteDatabase, holding: Duration, done: DispatchSemaphore) {
        let before = database.writersWaiting.load(ordering: .relaxed)
        Thread {
            _ = try? database.write { connection in
                let clock = ContinuousClock()
                let until = clock.now + holding
                while clock.now < until { usleep(1_000) }
                return try connection.run("INSERT INTO t VALUES (1)")
            }
            done.signal()
        }.start()
        while database.writersWaiting.load(ordering: .relaxed) == before { usleep(100) }
    }

    @Test func aWriterThatWaitedForABatchGetsTheWriterAndTheTurnLastsWhileItHoldsIt() throws {
        let directory = StorageTestDirectory()
        let database = try Self.database(directory)
        let done = DispatchSemaphore(value: 0)
        // A batch holding the writer, as a purge batch does, while a commit comes and waits for it.
        try database.writeBatch { _ in
            Self.startWriter(database, holding: .milliseconds(40), done: done)
        }
        let clock = ContinuousClock()
        let started = clock.now
        database.yieldTurn(.seconds(5))
        let took = clock.now - started
        // The commit held the writer for 40 ms of the turn; the turn ended soon after (no writer left).
        #expect(done.wait(timeout: .now()) == .success, "the turn ended before the waiting write committed")
        #expect(took >= .milliseconds(35), "the turn ended after \(took)")
        #expect(took < .seconds(2), "the turn outlasted its writer: \(took)")
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

    @Test func aTurnEndsAtItsLengthWhateverTheWritersWant() throws {
        let directory = StorageTestDirectory()
        let database = try Self.database(directory)
        let done = DispatchSemaphore(value: 0)
        Self.startWriter(database, holding: .milliseconds(1_500), done: done)
        let clock = ContinuousClock()
        let started = clock.now
        database.yieldTurn(.milliseconds(50))
        let took = clock.now - started
        #expect(took >= .milliseconds(50))
        #expect(took < .milliseconds(1_000), "the turn of 50 ms lasted \(took)")
        #expect(done.wait(timeout: .now() + 10) == .success)
    }
}
