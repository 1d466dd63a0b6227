import CacheCore
import Synchronization
import Zlib

/// Reads one stored body chunk by chunk, checking each: the CRC-32 of the stored bytes, the strict
/// inflate of `ChunkInflater`, the recorded lengths, and for a whole identity read the body's CRC-32
/// before its last piece is handed out. A failed check deletes the entry and throws
/// `.corruptEntryDeleted`. Each `next` borrows a reader connection only for the chunk it reads, so a
/// slow consumer holds no database resource.
final class SQLiteBodyReader: CacheBodyReader {
    private struct State {
        var sequence: Int
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
            let stored = try loadChunk(sequence)
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
                state.crc.update(plain)
                if isLastChunk && state.crc.value != entry.crc32 {
                    throw corrupt("body CRC-32 \(state.crc.value) does not match the recorded \(entry.crc32)")
                }
                return plain
            }
        }
    }

    /// Reads one stored chunk and checks its CRC-32.
    private func loadChunk(_ sequence: Int) throws -> [UInt8] {
        let id = entry.bodyID << StorageSchema.chunkIDShift | Int64(sequence)
        let row = try store.guarded("read chunk") {
            try store.database.read { connection in
                try connection.queryFirst("SELECT crc32, data FROM chunk WHERE id = ?", [.integer(id)]) {
                    (crc: UInt32(truncatingIfNeeded: $0.int64(0)), data: $0.blob(1))
                }
            }
        }
        guard let row else {
            // A missing chunk is corruption only if the entry still points at this body.
            let stillThere = try store.guarded("read chunk") {
                try store.database.read {
                    try $0.queryFirst(
                        "SELECT 1 FROM entry WHERE id = ? AND body_id = ?",
                        [.integer(SQLiteCacheStore.rowID(entry.key)), .integer(entry.bodyID)]
                    ) { _ in true }
                }
            }
            if stillThere == true { throw corrupt("chunk \(sequence) is missing") }
            throw CacheStoreError.notFound(entry.key)
        }
        guard CRC32.checksum(row.data) == row.crc else { throw corrupt("chunk \(sequence) fails its CRC-32") }
        return row.data
    }

    private func corrupt(_ reason: String) -> CacheStoreError {
        store.deleteCorrupt(entry)
        return .corruptEntryDeleted(key: entry.key, reason: reason)
    }
}
