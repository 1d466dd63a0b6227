import CacheCore
import Synchronization
import Zlib

/// Reads one stored body chunk by chunk, checking each: the CRC-32 of the stored bytes, the strict
/// inflate of `ChunkInflater`, the recorded lengths, and for a whole identity read the body's CRC-32
/// before its last piece is handed out. A failed check deletes the entry and throws
/// `.corruptEntryDeleted`. Each `next` borrows a reader connection only for the chunk it reads, so a
/// slow consumer holds no database resource. The first chunk is loaded when the reader is made, on the
/// thread that looked the entry up: a body that is gone shows as `notFound` before a caller is promised
/// any byte, without a query of its own to ask.
final class SQLiteBodyReader: CacheBodyReader {
    private struct State {
        var sequence: Int
        /// The first chunk, loaded (and CRC-checked) by `init`.
        var loaded: Chunk?
        var crc = CRC32()
        var inflater: ChunkInflater?
        var done = false
    }

    private let store: SQLiteCacheStore
    private let entry: StoredEntry
    private let form: CacheBodyForm
    private let lastSequence: Int
    private let state: Mutex<State>
    let length: Int

    init(store: SQLiteCacheStore, entry: StoredEntry, form: CacheBodyForm) throws {
        self.store = store
        self.entry = entry
        self.form = form
        let chunkSize = max(entry.chunkSize, 1)
        let chunkCount = (entry.originalSize + chunkSize - 1) / chunkSize
        var first = 0
        switch form {
        case .identity:
            lastSequence = chunkCount - 1
            length = entry.originalSize
        case .gzip:
            lastSequence = chunkCount - 1
            length = GzipFraming.header.count + entry.storedSize + 8
        case .range(let range):
            first = range.lowerBound / chunkSize
            lastSequence = range.isEmpty ? first - 1 : (range.upperBound - 1) / chunkSize
            length = range.count
        }
        let inflater = entry.codec == .deflateChunked && form != .gzip ? try ChunkInflater() : nil
        state = Mutex(State(sequence: first, inflater: inflater))
        if first <= lastSequence {
            let chunk = try loadChunk(first)
            state.withLock { $0.loaded = chunk }
        } else if try !store.entryStillHolds(entry) {
            throw CacheStoreError.notFound(entry.key)
        }
    }

    /// The whole body, for a reader that has handed out nothing yet, in identity form of a body stored as
    /// it came or in gzip form: one buffer of `length` bytes, each chunk copied into it once, straight
    /// from SQLite's row after its CRC-32 passed; a 256 KiB body is read with one copy instead of three.
    /// Other cases (inflated chunks, ranges, one chunk, a reader already in use) gather `next()`'s pieces.
    func readAll() throws -> [UInt8] {
        let direct = state.withLock { $0.inflater == nil && !$0.done && $0.sequence == 0 && $0.loaded != nil }
        // A one-chunk identity body is its loaded chunk as it is: gathering hands that array out uncopied.
        guard direct, form == .gzip || (form == .identity && lastSequence > 0) else { return try gatherPieces() }
        return try state.withLock { state in
            var body: [UInt8] = []
            body.reserveCapacity(length)
            if form == .gzip { body += GzipFraming.header }
            var crc = CRC32()
            for sequence in 0...lastSequence {
                let count: Int
                let chunkCRC: UInt32
                if sequence == 0, let loaded = state.loaded {
                    body += loaded.data
                    (count, chunkCRC) = (loaded.data.count, loaded.crc)
                    state.loaded = nil
                } else {
                    let before = body.count
                    // The copy is the closure's only work: the count is read back from the buffer after.
                    (_, chunkCRC) = try withChunk(sequence) { bytes in body.append(contentsOf: bytes) }
                    count = body.count - before
                }
                state.sequence = sequence + 1
                guard form == .identity else { continue }
                let expected = min(entry.chunkSize, entry.originalSize - sequence * entry.chunkSize)
                guard count == expected else {
                    throw corrupt("chunk \(sequence) holds \(count) bytes, \(expected) recorded")
                }
                crc.append(checksum: chunkCRC, length: count)
            }
            state.done = true
            if form == .gzip {
                body += GzipFraming.trailer(crc32: entry.crc32, length: entry.originalSize)
            } else if crc.value != entry.crc32 {
                throw corrupt("body CRC-32 \(crc.value) does not match the recorded \(entry.crc32)")
            }
            return body
        }
    }

    func next() throws -> [UInt8]? {
        try state.withLock { state in
            if state.done { return nil }
            if state.sequence > lastSequence {
                state.done = true
                // An empty body in gzip form is still a whole gzip member; identity and ranges end here.
                if form == .gzip && lastSequence < 0 {
                    return GzipFraming.header + [0x03, 0x00] + GzipFraming.trailer(crc32: 0, length: 0)
                }
                return nil
            }
            let sequence = state.sequence
            state.sequence += 1
            let chunk: Chunk
            if let loaded = state.loaded {
                chunk = loaded
                state.loaded = nil
            } else {
                chunk = try loadChunk(sequence)
            }
            let stored = chunk.data
            if case .gzip = form {
                var piece = sequence == 0 ? GzipFraming.header + stored : stored
                if sequence == lastSequence {
                    piece += GzipFraming.trailer(crc32: entry.crc32, length: entry.originalSize)
                    state.done = true
                }
                return piece
            }
            let expected = min(entry.chunkSize, entry.originalSize - sequence * entry.chunkSize)
            let isLastChunk = (sequence + 1) * entry.chunkSize >= entry.originalSize
            let plain: [UInt8]
            if let inflater = state.inflater {
                do {
                    plain = try inflater.inflateChunk(stored, expectedLength: expected, isLast: isLastChunk)
                } catch {
                    throw corrupt("chunk \(sequence): \(error)")
                }
            } else {
                guard stored.count == expected else {
                    throw corrupt("chunk \(sequence) holds \(stored.count) bytes, \(expected) recorded")
                }
                plain = stored
            }
            switch form {
            case .range(let range):
                let chunkStart = sequence * entry.chunkSize
                let from = max(range.lowerBound - chunkStart, 0)
                let to = min(range.upperBound - chunkStart, plain.count)
                return Array(plain[from..<to])
            default:
                if state.inflater == nil {
                    // Stored as it came: the chunk's checksum, just verified, is the checksum of these
                    // bytes, so the body's is combined from it rather than computed over them again.
                    state.crc.append(checksum: chunk.crc, length: plain.count)
                } else {
                    state.crc.update(plain)
                }
                if isLastChunk && state.crc.value != entry.crc32 {
                    throw corrupt("body CRC-32 \(state.crc.value) does not match the recorded \(entry.crc32)")
                }
                return plain
            }
        }
    }

    /// A stored chunk's bytes and their verified CRC-32.
    private struct Chunk {
        let data: [UInt8]
        let crc: UInt32
    }

    /// Reads one stored chunk and checks its CRC-32 before copying it out of SQLite.
    private func loadChunk(_ sequence: Int) throws -> Chunk {
        let (data, crc) = try withChunk(sequence) { Array($0) }
        return Chunk(data: data, crc: crc)
    }

    /// Reads one stored chunk, checks its CRC-32 on SQLite's own copy of the row and only then hands
    /// those bytes to `take` (which must copy what it keeps: they are SQLite's until the row is reset).
    /// - Returns: what `take` returned and the verified CRC-32.
    private func withChunk<T: Sendable>(
        _ sequence: Int, _ take: (UnsafeRawBufferPointer) -> T
    ) throws -> (T, crc: UInt32) {
        let id = entry.bodyID << StorageSchema.chunkIDShift | Int64(sequence)
        let read = try store.guarded("read chunk") {
            try store.database.read { connection in
                try connection.queryFirst(Self.chunkQuery, [.integer(id)]) { row -> (T, crc: UInt32)? in
                    let recorded = UInt32(truncatingIfNeeded: row.int64(0))
                    return row.withBlob(1) { data in
                        CRC32.checksum(data) == recorded ? (take(data), recorded) : nil
                    }
                }
            }
        }
        guard let read else {
            // A missing chunk is corruption only if the entry still points at this body.
            if try store.entryStillHolds(entry) { throw corrupt("chunk \(sequence) is missing") }
            throw CacheStoreError.notFound(entry.key)
        }
        guard let chunk = read else { throw corrupt("chunk \(sequence) fails its CRC-32") }
        return chunk
    }

    private static let chunkQuery = SQLiteQuery("SELECT crc32, data FROM chunk WHERE id = ?")

    private func corrupt(_ reason: String) -> CacheStoreError {
        store.deleteCorrupt(entry)
        return .corruptEntryDeleted(key: entry.key, reason: reason)
    }
}
