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
            // The lookup on this thread may have read the chunk already (`FirstChunkStash`).
            let kept = first == 0 ? store.firstChunks.take(bodyID: entry.bodyID) : nil
            let chunk = try kept ?? loadChunk(first)
            state.withLock { $0.loaded = chunk }
        } else if try !store.entryStillHolds(entry) {
            throw CacheStoreError.notFound(entry.key)
        }
    }

    /// The whole body, for a reader that has handed out nothing yet, in identity form of a body stored as
    /// it came or in gzip form: one buffer of `length` bytes (`assemble`). Other cases (inflated chunks,
    /// ranges, one chunk, a reader already in use) gather `next()`'s pieces.
    func readAll() throws -> [UInt8] {
        // A one-chunk identity body is its loaded chunk as it is: gathering hands that array out uncopied.
        guard form == .gzip || (form == .identity && lastSequence > 0) else { return try gatherPieces() }
        let assembled = try state.withLock { state -> Assembly? in
            guard state.inflater == nil, !state.done, state.sequence == 0, let first = state.loaded else { return nil }
            state.loaded = nil
            state.sequence = lastSequence + 1
            state.done = true
            return try assemble(first: first)
        }
        switch assembled {
        case nil: return try gatherPieces()
        case .body(let body)?: return body
        case .missing(let sequence)?:
            // A missing chunk is corruption only if the entry still points at this body.
            if try store.entryStillHolds(entry) { throw corrupt("chunk \(sequence) is missing") }
            throw CacheStoreError.notFound(entry.key)
        case .corrupt(let reason)?: throw corrupt(reason)
        }
    }

    /// What `assemble` made of the stored chunks.
    private enum Assembly {
        case body([UInt8])
        case missing(sequence: Int)
        case corrupt(String)
    }

    /// The body in one buffer of `length` bytes: the first chunk (checked by `init`) copied in, and the
    /// others read by one statement (one read transaction), each sized before it is copied and copied in
    /// the pass that checks its CRC-32 (`copyChecked`): a corrupt chunk never overruns the buffer and is
    /// never handed out.
    private func assemble(first: Chunk) throws -> Assembly {
        let trailer = form == .gzip ? GzipFraming.trailer(crc32: entry.crc32, length: entry.originalSize) : []
        let chunkBase = entry.bodyID << StorageSchema.chunkIDShift
        var outcome: Assembly?
        let body = try [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            let start = UnsafeMutableRawPointer(base)
            let contentEnd = length - trailer.count
            var filled = 0
            func put(_ bytes: [UInt8]) {
                bytes.withUnsafeBytes { source in
                    guard let from = source.baseAddress else { return }
                    (start + filled).copyMemory(from: from, byteCount: source.count)
                }
                filled += bytes.count
            }
            // The bytes a chunk must hold: its share of the body in identity form; in gzip form at most what
            // is left of the stored size (the total is checked at the end).
            func fits(_ count: Int, sequence: Int) -> Bool {
                form == .identity
                    ? count == min(entry.chunkSize, entry.originalSize - sequence * entry.chunkSize)
                    : filled + count <= contentEnd
            }
            var bodyCRC = CRC32()
            if form == .gzip { put(GzipFraming.header) }
            guard fits(first.data.count, sequence: 0) else {
                outcome = .corrupt("chunk 0 holds \(first.data.count) bytes, which the entry's sizes do not allow")
                return
            }
            put(first.data)
            bodyCRC.append(checksum: first.crc, length: first.data.count)
            var sequence = 1
            try store.guarded("read chunks") {
                try store.database.read { connection in
                    let range: [SQLiteValue] = [.integer(chunkBase | 1), .integer(chunkBase | Int64(lastSequence))]
                    try connection.forEachRow(Self.chunkRangeQuery, range) { row in
                        guard row.int64(0) == chunkBase | Int64(sequence) else {
                            outcome = .missing(sequence: sequence)
                            return false
                        }
                        let recorded = UInt32(truncatingIfNeeded: row.int64(1))
                        return row.withBlob(2) { data in
                            guard fits(data.count, sequence: sequence) else {
                                outcome = .corrupt(
                                    "chunk \(sequence) holds \(data.count) bytes, which the entry's sizes do not allow")
                                return false
                            }
                            guard Self.copyChecked(data, recorded: recorded, to: start + filled) else {
                                outcome = .corrupt("chunk \(sequence) fails its CRC-32")
                                return false
                            }
                            filled += data.count
                            bodyCRC.append(checksum: recorded, length: data.count)
                            sequence += 1
                            return true
                        }
                    }
                }
            }
            guard outcome == nil else { return }
            if sequence <= lastSequence {
                outcome = .missing(sequence: sequence)
            } else if filled != contentEnd {
                outcome = .corrupt("the chunks hold \(filled) bytes of a \(length)-byte body")
            } else if form == .identity && bodyCRC.value != entry.crc32 {
                outcome = .corrupt("body CRC-32 \(bodyCRC.value) does not match the recorded \(entry.crc32)")
            } else {
                put(trailer)
                initialized = filled
            }
        }
        return outcome ?? .body(body)
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
    struct Chunk {
        let data: [UInt8]
        let crc: UInt32

        /// The bytes of a stored chunk (SQLite's, valid until its row is reset) copied out in the pass
        /// that checks their CRC-32 (`copyChecked`); `nil` when they fail the check, so a corrupt chunk is
        /// never kept.
        init?(checking data: UnsafeRawBufferPointer, recorded: UInt32) {
            var matches = false
            let bytes = [UInt8](unsafeUninitializedCapacity: data.count) { buffer, count in
                matches = SQLiteBodyReader.copyChecked(data, recorded: recorded, to: buffer.baseAddress)
                count = data.count
            }
            guard matches else { return nil }
            self.data = bytes
            crc = recorded
        }
    }

    /// Reads one stored chunk, copied out of SQLite's row in the pass that checks its CRC-32
    /// (`copyChecked`): a chunk that fails the check is never returned.
    private func loadChunk(_ sequence: Int) throws -> Chunk {
        let id = entry.bodyID << StorageSchema.chunkIDShift | Int64(sequence)
        let read = try store.guarded("read chunk") {
            try store.database.read { connection in
                try connection.queryFirst(Self.chunkQuery, [.integer(id)]) { row -> Chunk? in
                    let recorded = UInt32(truncatingIfNeeded: row.int64(0))
                    return row.withBlob(1) { Chunk(checking: $0, recorded: recorded) }
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

    /// Copies a stored chunk's bytes (SQLite's, valid until its row is reset) to `destination` in the pass
    /// that computes their CRC-32 (`CRC32.update(_:copyingTo:)`), and says whether it is the recorded one:
    /// the caller keeps the copy only then. Every chunk read goes through here.
    /// - Parameter destination: `data.count` bytes; `nil` only when there are none.
    static func copyChecked(
        _ data: UnsafeRawBufferPointer, recorded: UInt32, to destination: UnsafeMutableRawPointer?
    ) -> Bool {
        var crc = CRC32()
        if let destination { crc.update(data, copyingTo: destination) }
        return crc.value == recorded
    }

    private static let chunkQuery = SQLiteQuery("SELECT crc32, data FROM chunk WHERE id = ?")
    /// A body's chunks from the second on, in order (the ids are consecutive: `chunkIDShift`).
    private static let chunkRangeQuery = SQLiteQuery(
        "SELECT id, crc32, data FROM chunk WHERE id BETWEEN ? AND ? ORDER BY id")

    private func corrupt(_ reason: String) -> CacheStoreError {
        store.deleteCorrupt(entry)
        return .corruptEntryDeleted(key: entry.key, reason: reason)
    }
}
