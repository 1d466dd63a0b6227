import CacheCore
import Dispatch
import HTTPCore
import LarderAPI
import Synchronization
import Testing

/// A reader that hands out fixed pieces, then fails or ends.
final class ScriptedReader: CacheBodyReader {
    private let pieces: Mutex<[[UInt8]]>
    private let failAtEnd: Bool
    let length: Int
    let reads = Atomic<Int>(0)

    init(_ pieces: [[UInt8]], failAtEnd: Bool = false) {
        self.pieces = Mutex(pieces)
        self.failAtEnd = failAtEnd
        self.length = pieces.reduce(0) { $0 + $1.count }
    }

    func next() throws -> [UInt8]? {
        reads.add(1, ordering: .relaxed)
        if let piece = pieces.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { return piece }
        if failAtEnd {
            throw CacheStoreError.corruptEntryDeleted(key: CacheKey.make(canonicalURL: "x"), reason: "test")
        }
        return nil
    }
}

struct CacheBodySourceTests {
    /// Pulls one piece, waiting at most two seconds.
    static func pull(_ source: CacheBodySource, max: Int) -> HTTPBodyChunk? {
        let box = Mutex<HTTPBodyChunk?>(nil)
        let done = DispatchSemaphore(value: 0)
        source.next(maxBytes: max) { chunk in
            box.withLock { $0 = chunk }
            done.signal()
        }
        guard done.wait(timeout: .now() + 2) == .success else { return nil }
        return box.withLock { $0 }
    }

    @Test func piecesLargerThanAskedAreSlicedAndNothingIsReadAhead() throws {
        let reader = ScriptedReader([Array(0..<10), Array(10..<13)])
        let source = CacheBodySource(reader: reader, executor: StorageExecutor(width: 1))
        #expect(source.length == 13)
        var received: [UInt8] = []
        var pulls = 0
        loop: while pulls < 20 {
            pulls += 1
            switch Self.pull(source, max: 4) {
            case .bytes(let bytes)?:
                #expect(bytes.count <= 4)
                received += bytes
                // Slices of the first piece come from memory: the reader was asked once so far.
                if received.count <= 10 { #expect(reader.reads.load(ordering: .relaxed) == 1) }
            case .end?: break loop
            default: Issue.record("unexpected answer"); break loop
            }
        }
        #expect(received == Array(0..<13))
    }

    @Test func prefetchReadsTheFirstPieceSoTheFirstPullNeedsNoRead() throws {
        let reader = ScriptedReader([[1, 2, 3], [4]])
        let source = CacheBodySource(reader: reader, executor: StorageExecutor(width: 1))
        try source.prefetch()
        #expect(reader.reads.load(ordering: .relaxed) == 1)
        guard case .bytes([1, 2, 3])? = Self.pull(source, max: 100) else { Issue.record("first piece"); return }
        #expect(reader.reads.load(ordering: .relaxed) == 1)
        guard case .bytes([4])? = Self.pull(source, max: 100) else { Issue.record("second piece"); return }
        guard case .end? = Self.pull(source, max: 100) else { Issue.record("no end"); return }
    }

    @Test func aPrefetchErrorIsThrownAndReleasesTheReader() {
        let reader = ScriptedReader([], failAtEnd: true)
        let source = CacheBodySource(reader: reader, executor: StorageExecutor(width: 1))
        #expect(throws: CacheStoreError.self) { try source.prefetch() }
        guard case .end? = Self.pull(source, max: 100) else { Issue.record("a failed source produced bytes"); return }
        #expect(reader.reads.load(ordering: .relaxed) == 1)
    }

    @Test func aReadErrorIsAFailureAndReleasesTheReader() {
        let reader = ScriptedReader([[1, 2, 3]], failAtEnd: true)
        let failures = Atomic<Int>(0)
        let source = CacheBodySource(
            reader: reader, executor: StorageExecutor(width: 1), onFailure: { _ in failures.add(1, ordering: .relaxed) }
        )
        guard case .bytes([1, 2, 3])? = Self.pull(source, max: 100) else { Issue.record("first piece"); return }
        guard case .failure(let error)? = Self.pull(source, max: 100) else { Issue.record("no failure"); return }
        #expect(error is CacheStoreError)
        #expect(failures.load(ordering: .relaxed) == 1)
        // Released: a later pull does not touch the reader again.
        let readsBefore = reader.reads.load(ordering: .relaxed)
        _ = Self.pull(source, max: 100)
        #expect(reader.reads.load(ordering: .relaxed) == readsBefore)
    }

    @Test func cancelReleasesTheReaderAndTheHeldBytes() {
        let reader = ScriptedReader([Array(repeating: 7, count: 100), [8]])
        let source = CacheBodySource(reader: reader, executor: StorageExecutor(width: 1))
        guard case .bytes(let first)? = Self.pull(source, max: 10) else { Issue.record("first piece"); return }
        #expect(first.count == 10)
        source.cancel()
        let reads = reader.reads.load(ordering: .relaxed)
        guard case .end? = Self.pull(source, max: 10) else {
            Issue.record("a cancelled source still produced bytes"); return
        }
        #expect(reader.reads.load(ordering: .relaxed) == reads)
    }
}
