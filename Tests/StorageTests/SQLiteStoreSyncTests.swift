import CacheCore
import Foundation
import TestSupport
import Testing

@testable import Storage

/// `StoreSync`: a store that never syncs marks its file until a clean stop syncs it, and the next start
/// tells a crash of the process (the kernel kept every page: trusted as it is) from a crash of the machine
/// (the file is checked, and moved aside for an empty store when the check fails). Real SQLite files; the
/// machine's boot is the configuration's, so a test can be "another boot".
@Suite struct SQLiteStoreSyncTests {
    static func open(
        _ directory: StorageTestDirectory, sync: StoreSync, boot: String?, clock: Date = CacheCoreFixtures.epoch
    ) throws -> SQLiteCacheStore {
        var configuration = SQLiteCacheStore.Configuration(path: directory.file(), chunkSize: 4096, clock: { clock })
        configuration.sync = sync
        configuration.boot = boot
        return try SQLiteCacheStore(configuration: configuration)
    }

    /// Stores `count` entries of 20 KiB (several chunks, overflow pages) and returns them with their bodies.
    static func fill(_ store: SQLiteCacheStore, count: Int) throws -> [(StoredEntry, [UInt8])] {
        try (0..<count).map { index in
            let body = CacheCoreFixtures.randomBody(length: 20_000, seed: UInt64(index + 1))
            let entry = CacheCoreFixtures.makeEntry(url: "https://example.com/\(index)")
            let writer = try store.beginWrite(hints: CacheBodyHints(headers: entry.headers))
            try writer.append(body)
            return (try writer.commit(entry), body)
        }
    }

    static func read(_ store: SQLiteCacheStore, _ entry: StoredEntry) throws -> [UInt8] {
        let reader = try store.openBody(of: entry, form: .identity)
        var out = [UInt8]()
        while let piece = try reader.next() { out += piece }
        return out
    }

    /// The writer's and the checkpointer's `PRAGMA synchronous`, when they agree; -1 when they do not.
    static func synchronous(_ store: SQLiteCacheStore) throws -> Int {
        let writer = try store.database.write { try $0.queryFirst("PRAGMA synchronous") { $0.int(0) } ?? -1 }
        return try store.database.checkpointer.synchronous() == writer ? writer : -1
    }

    static func marker(_ directory: StorageTestDirectory) -> String? {
        try? String(contentsOfFile: directory.file() + "-unsynced", encoding: .utf8)
    }

    static func siblings(_ directory: StorageTestDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    /// What a machine that wrote some pages and not others might leave.
    enum Damage: CaseIterable {
        /// Every page but the first (the schema) overwritten with bytes no b-tree page can hold.
        case garbled
        /// The file cut to half its pages, while its header still counts them all.
        case cutShort
    }

    /// Damages the file (whose pages must all be in it, not in the WAL) and drops the WAL.
    static func damage(_ directory: StorageTestDirectory, _ damage: Damage = .garbled) throws {
        let path = directory.file()
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        #expect(bytes.count > 4 * pageSize, "the file is too small to damage (\(bytes.count) bytes)")
        switch damage {
        case .garbled:
            for index in pageSize..<bytes.count { bytes[index] = UInt8(truncatingIfNeeded: index * 7 + 0x5B) }
        case .cutShort:
            bytes.removeLast(bytes.count / pageSize / 2 * pageSize)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    @Test func anUnsyncedStoreSyncsNothingAndMarksItsFileUntilItStops() throws {
        let directory = StorageTestDirectory()
        let store = try Self.open(directory, sync: .off, boot: "boot-a")
        #expect(Self.marker(directory) == "boot-a\n")
        #expect(try Self.synchronous(store) == 0)
        let stored = try Self.fill(store, count: 3)
        // The key filter's build, started by the open, reads the store; `shutDown` checkpoints without
        // waiting for readers, so a build still reading (a loaded machine) would leave the WAL whole.
        store.keyFilterBuilds.sync {}

        try store.shutDown()
        #expect(Self.marker(directory) == nil)
        // A write after the stop is synced at checkpoints, as no marker speaks for it any more.
        #expect(try Self.synchronous(store) == 1)
        let walSize = try FileManager.default.attributesOfItem(atPath: directory.file() + "-wal")[.size] as? Int
        #expect(walSize == 0)
        for (entry, body) in stored { #expect(try Self.read(store, entry) == body) }
    }

    @Test func aSyncedStoreSyncsAtCheckpointsAndLeavesNoMarker() throws {
        let directory = StorageTestDirectory()
        let store = try Self.open(directory, sync: .checkpoint, boot: "boot-a")
        #expect(try Self.synchronous(store) == 1)
        #expect(Self.marker(directory) == nil)
        _ = try Self.fill(store, count: 1)
        try store.shutDown()
        #expect(Self.marker(directory) == nil)
    }

    /// A process that died without its final sync, in this boot: the kernel holds its pages, so the file
    /// is trusted without a check. A store that syncs syncs those pages before it removes the marker.
    @Test func aMarkerOfThisBootIsTrustedAndASyncedStoreClearsIt() throws {
        let directory = StorageTestDirectory()
        var stored: [(StoredEntry, [UInt8])] = []
        do {
            let store = try Self.open(directory, sync: .off, boot: "boot-a")
            stored = try Self.fill(store, count: 3)
        }
        #expect(Self.marker(directory) == "boot-a\n")

        let again = try Self.open(directory, sync: .off, boot: "boot-a")
        #expect(again.startFinding == nil)
        #expect(Self.marker(directory) == "boot-a\n")
        for (entry, body) in stored { #expect(try Self.read(again, entry) == body) }

        let synced = try Self.open(directory, sync: .checkpoint, boot: "boot-a")
        #expect(synced.startFinding == nil)
        #expect(Self.marker(directory) == nil)
        for (entry, body) in stored { #expect(try Self.read(synced, entry) == body) }
    }

    /// The machine went down with the store open unsynced (a marker from another boot, or from any boot when
    /// this one is not known): a sound file is checked and kept.
    @Test(arguments: ["boot-b", nil] as [String?])
    func aSoundFileLeftByAnotherBootIsCheckedAndKept(currentBoot: String?) throws {
        let directory = StorageTestDirectory()
        var stored: [(StoredEntry, [UInt8])] = []
        do {
            let store = try Self.open(directory, sync: .off, boot: "boot-a")
            stored = try Self.fill(store, count: 3)
        }

        let after = try Self.open(directory, sync: .off, boot: currentBoot)
        guard case .checkedAfterCrash(let seconds)? = after.startFinding else {
            Issue.record("expected a check, found \(String(describing: after.startFinding))")
            return
        }
        #expect(seconds >= 0)
        #expect(Self.marker(directory) == (currentBoot ?? "unknown") + "\n")
        #expect(try after.stats().entryCount == 3)
        for (entry, body) in stored { #expect(try Self.read(after, entry) == body) }
        #expect(try Self.siblings(directory).allSatisfy { !$0.contains(".corrupt-") })
    }

    @Test(arguments: [StoreSync.off, .checkpoint], Damage.allCases)
    func aDamagedFileLeftByAnotherBootIsMovedAsideAndTheStoreStartsEmpty(sync: StoreSync, damage: Damage) throws {
        let directory = StorageTestDirectory()
        do {
            let store = try Self.open(directory, sync: .off, boot: "boot-a")
            _ = try Self.fill(store, count: 40)
            // Every page in the file, and the marker left: the process "died" after a checkpoint.
            try store.checkpoint()
        }
        try Self.damage(directory, damage)
        let damaged = try Data(contentsOf: URL(fileURLWithPath: directory.file()))

        let when = Date(timeIntervalSince1970: 1_800_000_000)
        let after = try Self.open(directory, sync: sync, boot: "boot-b", clock: when)
        let moved = directory.file() + ".corrupt-1800000000"
        guard case .discardedAfterCrash(let movedTo, let reason)? = after.startFinding else {
            Issue.record("expected the file discarded, found \(String(describing: after.startFinding))")
            return
        }
        #expect(movedTo == moved)
        #expect(!reason.isEmpty)
        // The damaged file is kept as it was, for whoever wants to look.
        #expect(try Data(contentsOf: URL(fileURLWithPath: moved)) == damaged)
        #expect(Self.marker(directory) == (sync == .off ? "boot-b\n" : nil))
        #expect(try after.stats().entryCount == 0)
        let fresh = try Self.fill(after, count: 2)
        for (entry, body) in fresh { #expect(try Self.read(after, entry) == body) }
    }

    @Test func aFileThatIsNotADatabaseLeftByAnotherBootIsMovedAside() throws {
        let directory = StorageTestDirectory()
        do {
            let store = try Self.open(directory, sync: .off, boot: "boot-a")
            // The key filter's build, started by the open, holds the store while it runs: were it still
            // running when the file is overwritten below, the store's close after it (the last connection's
            // checkpoint) could write the old pages back into the file, and the next open would find a sound
            // database (CI, once, on a loaded machine).
            store.keyFilterBuilds.sync {}
        }
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: directory.file()))
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: directory.file() + suffix) }

        let after = try Self.open(directory, sync: .off, boot: "boot-b")
        guard case .discardedAfterCrash(_, let reason)? = after.startFinding else {
            Issue.record("expected the file discarded, found \(String(describing: after.startFinding))")
            return
        }
        #expect(reason.contains("not a database"))
        #expect(try after.stats().entryCount == 0)
    }

    /// Without a marker the file was synced when it was last written: whatever it holds is not a crash's
    /// doing, so nothing is moved (the open fails as it always did, and the file stays where it is).
    @Test func aDamagedFileWithoutAMarkerIsNeitherCheckedNorMoved() throws {
        let directory = StorageTestDirectory()
        do {
            let store = try Self.open(directory, sync: .off, boot: "boot-a")
            _ = try Self.fill(store, count: 40)
            try store.shutDown()
        }
        try Self.damage(directory)
        let before = try Self.siblings(directory)

        #expect(throws: CacheStoreError.self) {
            let store = try Self.open(directory, sync: .off, boot: "boot-b")
            // The schema page is intact: if the open got through, the damage shows at the first full read.
            _ = try store.stats()
            for index in 0..<40 {
                _ = try store.entry(for: CacheKey.make(canonicalURL: "https://example.com/\(index)"))
            }
        }
        #expect(try Self.siblings(directory).allSatisfy { !$0.contains(".corrupt-") })
        #expect(before.contains("cache.db"))
    }
}
