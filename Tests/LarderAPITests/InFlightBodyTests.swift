import CacheCore
import Foundation
import HTTPCore
import Storage
import Synchronization
import TestSupport
import Testing

@testable import LarderAPI

/// A transfer that records what the body asked of it, driven by hand in place of libcurl.
private final class RecordingTransfer: InFlightTransfer {
    private let state = Mutex((paused: false, pauses: 0, resumes: 0))
    var isPaused: Bool { state.withLock { $0.paused } }
    var pauses: Int { state.withLock { $0.pauses } }
    var resumes: Int { state.withLock { $0.resumes } }
    func pause() {
        state.withLock {
            $0.paused = true; $0.pauses += 1
        }
    }
    func resume() {
        state.withLock {
            $0.paused = false; $0.resumes += 1
        }
    }
}

/// Bytes that differ from offset to offset, so a piece delivered twice or skipped shows.
private func pattern(_ count: Int, seed: UInt8 = 7) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9 &+ Int(seed)) }
}

/// The next chunk a reader gets, waiting for it when it is read back from the store.
private func next(_ body: InFlightBody, _ reader: Int, maxBytes: Int = 64 << 10) async -> HTTPBodyChunk {
    await withCheckedContinuation { continuation in
        body.read(reader: reader, maxBytes: maxBytes) { continuation.resume(returning: $0) }
    }
}

/// A chunk a reader gets at once (the bytes are in memory), or `nil` when it had to wait.
private func nextNow(_ body: InFlightBody, _ reader: Int, maxBytes: Int = 64 << 10) -> HTTPBodyChunk? {
    let got = Mutex<HTTPBodyChunk?>(nil)
    body.read(reader: reader, maxBytes: maxBytes) { chunk in got.withLock { $0 = chunk } }
    return got.withLock { $0 }
}

struct InFlightPiecesTests {
    @Test func aReadOfOneWholePieceIsThatPieceAndOtherReadsGatherAcrossPieces() {
        var pieces = InFlightPieces()
        pieces.append([1, 2, 3])
        pieces.append([4, 5])
        pieces.append([6, 7, 8, 9])
        #expect(pieces.read(from: 0, maxBytes: 3) == [1, 2, 3])
        #expect(pieces.read(from: 1, maxBytes: 100) == [2, 3, 4, 5, 6, 7, 8, 9])
        #expect(pieces.read(from: 4, maxBytes: 3) == [5, 6, 7])
        #expect(pieces.read(from: 8, maxBytes: 3) == [9])
        #expect(pieces.whole == [1, 2, 3, 4, 5, 6, 7, 8, 9])
    }

    @Test func releaseLetsGoOfWholePiecesOnlyAndKeepsOffsets() {
        var pieces = InFlightPieces()
        for start in stride(from: 0, to: 1000, by: 10) { pieces.append((start..<start + 10).map { UInt8($0 % 251) }) }
        // 15 is inside the second piece: only the first goes.
        #expect(pieces.release(upTo: 15) == 10)
        #expect(pieces.base == 10)
        #expect(pieces.whole == nil)
        #expect(pieces.release(upTo: 995) == 980)
        #expect(pieces.base == 990)
        #expect(pieces.count == 10)
        #expect(pieces.read(from: 992, maxBytes: 4) == (992..<996).map { UInt8($0 % 251) })
        #expect(pieces.release(upTo: 1000) == 10)
        #expect(pieces.count == 0)
    }
}

@Suite struct InFlightBodyTests {
    let executor = StorageExecutor(width: 1)

    /// A SQLite store with small chunks, for a body written (and read back) as it arrives.
    private func makeStore(_ directory: StorageTestDirectory) throws -> SQLiteCacheStore {
        try SQLiteCacheStore(configuration: .init(path: directory.file(), chunkSize: 16 << 10))
    }

    @Test func aSlowReaderPausesTheOriginAndMemoryStaysWithinTheFetchShare() {
        let budget = InFlightBudget(limit: 4 << 20)
        let body = InFlightBody(budget: budget, executor: executor) {}
        let transfer = RecordingTransfer()
        body.attach(transfer)
        let reader = body.addReader()!
        let expected = pattern(16 << 20)
        let piece = 16 << 10
        var produced = 0
        var received: [UInt8] = []
        var mostHeld = 0
        // The origin sends while it is not paused; the reader reads only when it must (the slowest
        // possible caller that still finishes).
        while received.count < expected.count {
            if !transfer.isPaused && produced < expected.count {
                _ = body.append(Array(expected[produced..<produced + piece]))
                produced += piece
                if produced == expected.count { body.finish(.success(())) }
            } else {
                guard case .bytes(let bytes) = nextNow(body, reader) else {
                    Issue.record("no bytes for the reader although the origin is paused")
                    return
                }
                received += bytes
            }
            mostHeld = max(mostHeld, body.held)
        }
        #expect(sameBytes(received, expected))
        #expect(mostHeld <= budget.perFetch + piece)
        #expect(transfer.pauses > 10)
        #expect(transfer.resumes >= transfer.pauses - 1)
        #expect(budget.bytes == body.held)
    }

    @Test func withoutAConsumerBeyondTheFloorNothingIsLetGoButTheOriginPauses() {
        let budget = InFlightBudget(limit: 4 << 20)
        let body = InFlightBody(budget: budget, executor: executor) {}
        let transfer = RecordingTransfer()
        body.attach(transfer)
        let reader = body.addReader()!
        var produced = 0
        while !transfer.isPaused && produced < 64 << 20 {
            _ = body.append(pattern(16 << 10))
            produced += 16 << 10
        }
        #expect(transfer.isPaused)
        #expect(body.held == produced)
        #expect(body.held <= budget.perFetch + (16 << 10))
        body.removeReader(reader)
        // The only reader left: nothing is needed any more, and the origin may go on.
        #expect(body.held == 0)
        #expect(!transfer.isPaused)
    }

    @Test func aBodyBeforeItsVerdictTakesLateCallersUntilItsStartIsLetGo() {
        let budget = InFlightBudget(limit: 4 << 20)
        let sealed = Mutex(0)
        let body = InFlightBody(budget: budget, executor: executor) { sealed.withLock { $0 += 1 } }
        let first = body.addReader()!
        _ = body.append(pattern(100 << 10))
        _ = nextNow(body, first, maxBytes: 100 << 10)
        // Within the floor the start stays, for a caller who joins now.
        #expect(body.held == 100 << 10)
        let second = body.addReader()
        #expect(second != nil)
        body.removeReader(second!)
        for _ in 0..<20 { _ = body.append(pattern(16 << 10)) }
        while case .bytes = nextNow(body, first) ?? .end {}
        // Sealed: what the one reader passed is of no use to anyone.
        #expect(body.held == 0)
        #expect(body.addReader() == nil)
        #expect(sealed.withLock { $0 } == 1)
    }

    @Test func aBodyThatWillNotBeStoredTakesNoNewCallerAndIsSealedAtOnce() throws {
        let sealed = Mutex(0)
        let body = InFlightBody(budget: InFlightBudget(limit: 4 << 20), executor: executor) {
            sealed.withLock { $0 += 1 }
        }
        // Before the head is judged: request collapsing.
        let first = try #require(body.addReader())
        body.storeStopped()
        #expect(sealed.withLock { $0 } == 1)
        _ = body.append(pattern(1000))
        body.finish(.success(()))
        // Whole in memory, yet no one else may have it: it answers the request it was fetched for.
        #expect(body.addReader() == nil)
        guard case .bytes(let bytes)? = nextNow(body, first, maxBytes: 4096) else {
            Issue.record("the caller of a not-stored body gets its bytes")
            return
        }
        #expect(bytes == pattern(1000))
        #expect(!body.isStored)
    }

    @Test func aCommittedBodyTakesNoNewCallerAndTellsThoseWaitingForTheVerdict() async throws {
        let directory = StorageTestDirectory()
        let store = try makeStore(directory)
        let sealed = Mutex(0)
        let told = Mutex(0)
        let body = InFlightBody(budget: InFlightBudget(limit: 4 << 20), executor: executor) {
            sealed.withLock { $0 += 1 }
        }
        body.storeOpening()
        body.whenStoreDecided { told.withLock { $0 += 1 } }
        let writer = try store.beginWrite(hints: CacheBodyHints())
        body.storeOpened(writer)
        let expected = pattern(100 << 10, seed: 9)
        _ = body.append(expected)
        body.finish(.success(()))
        while let bytes = body.takeForStore(maxBytes: 256 << 10) {
            try writer.append(bytes)
            body.stored(readable: (writer as? any ReadableBodyWriter)?.readableBytes ?? 0)
        }
        // Being stored: a late caller still joins, and nobody was told yet.
        let late = try #require(body.addReader())
        #expect(told.withLock { $0 } == 0)
        body.storeCommitted()
        #expect(told.withLock { $0 } == 1)
        #expect(body.isStored)
        #expect(body.addReader() == nil)
        // It keeps its key until it leaves: a caller who finds it is sent to the store, not to the origin.
        #expect(sealed.withLock { $0 } == 0)
        // A caller who asks after the verdict is told at once; a late stop changes nothing.
        body.whenStoreDecided { told.withLock { $0 += 1 } }
        #expect(told.withLock { $0 } == 2)
        body.storeStopped()
        #expect(body.isStored)
        #expect(sealed.withLock { $0 } == 0)
        // The caller who joined while it was stored still reads it whole.
        var received: [UInt8] = []
        while case .bytes(let bytes) = await next(body, late) { received += bytes }
        #expect(sameBytes(received, expected))
        writer.abandon()
    }

    @Test func aLateCallerReadsTheWrittenStartFromTheStoreAndTheRestFromMemory() async throws {
        let directory = StorageTestDirectory()
        let store = try makeStore(directory)
        let budget = InFlightBudget(limit: 4 << 20)
        let body = InFlightBody(budget: budget, executor: executor) {}
        body.storeOpening()
        let writer = try store.beginWrite(hints: CacheBodyHints())
        body.storeOpened(writer)
        let expected = pattern(3 << 20, seed: 3)
        var produced = 0
        while produced < 2 << 20 {
            _ = body.append(Array(expected[produced..<produced + 50_000]))
            produced += 50_000
            while let bytes = body.takeForStore(maxBytes: 256 << 10) {
                try writer.append(bytes)
                body.stored(readable: (writer as? any ReadableBodyWriter)?.readableBytes ?? 0)
            }
        }
        // No caller yet: the store writer alone holds bytes back, less than a chunk of them.
        #expect(body.held < 64 << 10)
        let late = try #require(body.addReader())
        var received: [UInt8] = []
        while received.count < produced {
            guard case .bytes(let bytes) = await next(body, late) else {
                Issue.record("the late caller got no bytes at \(received.count)")
                return
            }
            received += bytes
        }
        _ = body.append(Array(expected[produced...]))
        body.finish(.success(()))
        while case .bytes(let bytes) = await next(body, late) { received += bytes }
        #expect(sameBytes(received, expected))
        writer.abandon()
    }

    @Test func aSlowCallerOfAStoredBodyReadsItBackAndNeverPausesTheOrigin() async throws {
        let directory = StorageTestDirectory()
        let store = try makeStore(directory)
        let budget = InFlightBudget(limit: 4 << 20)
        let body = InFlightBody(budget: budget, executor: executor) {}
        let transfer = RecordingTransfer()
        body.attach(transfer)
        let slow = try #require(body.addReader())
        body.storeOpening()
        let writer = try store.beginWrite(hints: CacheBodyHints())
        body.storeOpened(writer)
        let expected = pattern(6 << 20, seed: 5)
        var mostHeld = 0
        for start in stride(from: 0, to: expected.count, by: 16 << 10) {
            _ = body.append(Array(expected[start..<start + (16 << 10)]))
            while let bytes = body.takeForStore(maxBytes: 256 << 10) {
                try writer.append(bytes)
                body.stored(readable: (writer as? any ReadableBodyWriter)?.readableBytes ?? 0)
            }
            mostHeld = max(mostHeld, body.held)
        }
        body.finish(.success(()))
        #expect(transfer.pauses == 0)
        #expect(mostHeld < 64 << 10)
        var received: [UInt8] = []
        while case .bytes(let bytes) = await next(body, slow) { received += bytes }
        #expect(sameBytes(received, expected))
        writer.abandon()
    }

    @Test func aCallerBehindMemoryFailsOnceStoringStops() async throws {
        let directory = StorageTestDirectory()
        let store = try makeStore(directory)
        let body = InFlightBody(budget: InFlightBudget(limit: 4 << 20), executor: executor) {}
        body.storeOpening()
        let writer = try store.beginWrite(hints: CacheBodyHints())
        body.storeOpened(writer)
        for _ in 0..<64 { _ = body.append(pattern(16 << 10)) }
        while let bytes = body.takeForStore(maxBytes: 256 << 10) {
            try writer.append(bytes)
            body.stored(readable: (writer as? any ReadableBodyWriter)?.readableBytes ?? 0)
        }
        #expect(body.held < 64 << 10)
        let late = try #require(body.addReader())
        writer.abandon()
        body.storeStopped()
        guard case .failure = await next(body, late) else {
            Issue.record("a caller whose first bytes are gone must get a failure, not a short body")
            return
        }
    }

    @Test func anImageHeldWholeKeepsEveryByteUntilReleased() {
        let budget = InFlightBudget(limit: 4 << 20)
        let body = InFlightBody(budget: budget, executor: executor) {}
        let transfer = RecordingTransfer()
        body.attach(transfer)
        body.holdWhole()
        let expected = pattern(budget.perFetch + (32 << 10))
        for start in stride(from: 0, to: expected.count, by: 32 << 10) {
            _ = body.append(Array(expected[start..<min(expected.count, start + (32 << 10))]))
        }
        // Held: not paused (nobody could read to resume it), and too large to hold.
        #expect(!transfer.isPaused)
        #expect(body.outgrewHold)
        #expect(body.whole.map { sameBytes($0, expected) } == true)
        body.releaseWhole()
        // Released with no reader and no store: everything past the floor goes.
        #expect(body.held <= budget.floor)
        #expect(body.whole == nil)
    }
}
