import CacheCore
import FoundationEssentials
import Synchronization
import Zlib

/// Streams one body into the store: full chunks are written as they fill, under a pending body id
/// that no entry points at, so a crash or an abandon leaves nothing visible; `commit` writes the last
/// chunk and the entry row in one transaction (`SQLiteCommitGroup`), with other bodies' when they
/// finish together.
///
/// At most one chunk plus the latest appended bytes is held in memory. The codec is decided on the
/// first chunk: deflate is tried unless the hints or the first chunk's byte statistics
/// (`CompressibilityProbe`) rule it out, and kept when it takes at most
/// `compressionThreshold` of the input (then every later chunk is deflated too, since each chunk
/// must belong to the one stream).
final class SQLiteBodyWriter: ReadableBodyWriter {
    private struct State {
        var buffer: [UInt8] = []
        var codec: BodyCodec?
        var deflater: ChunkDeflater?
        var bodyID: Int64?
        var nextSequence: Int64 = 0
        var crc = CRC32()
        var originalSize = 0
        var storedSize = 0
        var closed = false
        /// The chunks written so far, for `readWritten(at:)`: kept after the commit (the entry then owns
        /// them), dropped when the body is discarded.
        var readable: Readable?
    }

    /// Where the chunks written so far are and how to decode them.
    private struct Readable {
        let body: Int64
        let codec: BodyCodec
        var chunks: Int
    }

    private let store: SQLiteCacheStore
    private let hints: CacheBodyHints
    private let chunkSize: Int
    private let state = Mutex(State())
    /// The purge generation when the write began: purges after it may make the entry stale at commit.
    private let purgeGeneration: UInt64

    init(store: SQLiteCacheStore, hints: CacheBodyHints) {
        self.store = store
        self.hints = hints
        self.chunkSize = store.configuration.chunkSize
        // The request may have left before the writer began: a purge in between counts too.
        let now = store.purgeLog.generation
        self.purgeGeneration = hints.purgesBefore.map { min($0, now) } ?? now
    }

    deinit { abandon() }

    func append(_ bytes: [UInt8]) throws {
        try state.withLock { state in
            guard !state.closed else { throw CacheStoreError.writerClosed }
            do {
                // A body that comes in one piece (most: libcurl hands over up to 16 KiB at a time) is kept as
                // that array, not copied: the fetch keeps the same piece for callers who join late, so until the
                // commit the body is held once, not twice (docs/ARCHITECTURE.md, "A body queued for its commit
                // is held once"). The commit's chunk is then that array too (`Array` of a whole slice shares it).
                if state.buffer.isEmpty { state.buffer = bytes } else { state.buffer.append(contentsOf: bytes) }
                state.originalSize += bytes.count
                state.crc.update(bytes)
                // Flush only while more than a chunk is buffered: the last chunk must be finished, not
                // flushed, and only commit knows which one is last.
                var start = 0
                while state.buffer.count - start > chunkSize {
                    try writeChunk(state.buffer[start..<start + chunkSize], isLast: false, state: &state)
                    start += chunkSize
                }
                if start > 0 { state.buffer.removeFirst(start) }
            } catch {
                discard(&state)
                throw SQLiteCacheStore.storeError(error, operation: "write body")
            }
        }
    }

    func commit(_ entry: StoredEntry) throws -> StoredEntry {
        let result = Mutex<Result<StoredEntry, CacheStoreError>?>(nil)
        store.commits.commitNow(try finish(entry) { outcome in result.withLock { $0 = outcome } }, in: store)
        guard let outcome = result.withLock({ $0 }) else {
            throw CacheStoreError.storageFailure(operation: "commit body", detail: "no result")
        }
        return try outcome.get()
    }

    /// Commits in a group with the other bodies that finish meanwhile (`SQLiteCommitGroup`): `completion`
    /// runs on the store's commit queue once the group's transaction ended.
    func commit(_ entry: StoredEntry, completion: @escaping @Sendable (Result<StoredEntry, any Error>) -> Void) {
        do {
            store.commits.submit(try finish(entry) { completion($0.mapError { $0 }) }, in: store)
        } catch {
            completion(.failure(error))
        }
    }

    /// Encodes the last chunk and closes the writer: what remains is the commit job it returns.
    /// - Throws: `.writerClosed`, or an encoding failure (the write is then abandoned).
    private func finish(
        _ entry: StoredEntry, completion: @escaping @Sendable (Result<StoredEntry, CacheStoreError>) -> Void
    ) throws -> SQLiteCommitJob {
        try state.withLock { state in
            guard !state.closed else { throw CacheStoreError.writerClosed }
            do {
                let last = state.buffer.isEmpty ? nil : try encode(state.buffer[...], isLast: true, state: &state)
                // A body stored as it came, in this one chunk, is its own chunk: its CRC-32 is the chunk's, not
                // computed again at the commit (a second pass over a 16 KiB image, 1.5 % of its miss).
                let wholeBodyAsIs = state.codec == .identity && state.bodyID == nil && state.nextSequence == 1
                let job = SQLiteCommitJob(
                    entry: entry,
                    facts: StoredBodyFacts(
                        originalSize: state.originalSize, storedSize: state.storedSize,
                        codec: state.codec ?? .identity, crc32: state.crc.value, chunkSize: chunkSize),
                    lastChunk: last.map { ($0, state.nextSequence - 1, wholeBodyAsIs ? state.crc.value : nil) },
                    pendingBody: state.bodyID,
                    purgeGeneration: purgeGeneration, now: store.configuration.clock(), completion: completion)
                // From here the job owns the pending body: it commits it, or deletes it when it fails.
                state.buffer = []
                state.bodyID = nil
                state.closed = true
                state.deflater = nil
                return job
            } catch {
                discard(&state)
                throw SQLiteCacheStore.storeError(error, operation: "commit body")
            }
        }
    }

    func abandon() {
        state.withLock { discard(&$0) }
    }

    /// Closes the writer and deletes whatever it wrote.
    private func discard(_ state: inout State) {
        guard !state.closed else { return }
        state.closed = true
        state.buffer = []
        state.deflater = nil
        state.readable = nil
        guard let body = state.bodyID else { return }
        state.bodyID = nil
        store.discardPendingBody(body)
    }

    /// Encodes and writes a chunk that is not the last.
    private func writeChunk(_ piece: ArraySlice<UInt8>, isLast: Bool, state: inout State) throws {
        let stored = try encode(piece, isLast: isLast, state: &state)
        let sequence = state.nextSequence - 1
        let existingBody = state.bodyID
        let now = store.configuration.clock()
        let bodyID = try store.database.write { connection -> Int64 in
            var bodyID: Int64 = 0
            try connection.inTransaction {
                bodyID = try existingBody ?? Self.allocateBody(connection, now: now)
                try Self.insertChunk(stored, body: bodyID, sequence: sequence, connection: connection)
                return .commit
            }
            // Registered under the writer lock, which the sweep also holds while it looks for
            // abandoned bodies: it can never see this pending row without seeing it live.
            store.liveBodies.withLock { _ = $0.insert(bodyID) }
            return bodyID
        }
        if existingBody == nil { state.bodyID = bodyID }
        state.readable = Readable(
            body: bodyID, codec: state.codec ?? .identity, chunks: (state.readable?.chunks ?? 0) + 1)
    }

    var readableBytes: Int { state.withLock { ($0.readable?.chunks ?? 0) * chunkSize } }

    /// Whether the bytes the writer holds are `bytes`' own storage (for tests: a piece handed over whole is
    /// not copied).
    func holdsStorage(of bytes: [UInt8]) -> Bool {
        state.withLock { state in
            state.buffer.withUnsafeBufferPointer { held in
                bytes.withUnsafeBufferPointer { given in held.baseAddress == given.baseAddress && !held.isEmpty }
            }
        }
    }

    func readWritten(at offset: Int) throws -> [UInt8] {
        guard let readable = state.withLock({ $0.readable }), offset >= 0, offset < readable.chunks * chunkSize
        else { throw CacheStoreError.writerClosed }
        let sequence = offset / chunkSize
        let id = readable.body << StorageSchema.chunkIDShift | Int64(sequence)
        let read = try store.guarded("read back chunk") {
            try store.database.read { connection in
                try connection.queryFirst(Self.chunkQuery, [.integer(id)]) { row -> [UInt8]? in
                    let recorded = UInt32(truncatingIfNeeded: row.int64(0))
                    // A typed buffer, so that the array is made with one memcpy (`SQLiteStatement.blob`).
                    return row.withBlob(1) {
                        CRC32.checksum($0) == recorded ? Array($0.assumingMemoryBound(to: UInt8.self)) : nil
                    }
                }
            }
        }
        // Gone: abandoned, or committed and since replaced or purged.
        guard let read else { throw CacheStoreError.writerClosed }
        guard let stored = read else {
            throw CacheStoreError.storageFailure(
                operation: "read back chunk", detail: "chunk \(sequence) fails its CRC-32")
        }
        var plain = stored
        if readable.codec == .deflateChunked {
            do {
                plain = try ChunkInflater().inflateChunk(stored, expectedLength: chunkSize, isLast: false)
            } catch {
                throw CacheStoreError.storageFailure(
                    operation: "read back chunk", detail: "chunk \(sequence): \(error)")
            }
        } else if plain.count != chunkSize {
            throw CacheStoreError.storageFailure(
                operation: "read back chunk", detail: "chunk \(sequence) holds \(plain.count) bytes, not \(chunkSize)")
        }
        let start = offset - sequence * chunkSize
        return start == 0 ? plain : Array(plain[start...])
    }

    private static let chunkQuery = SQLiteQuery("SELECT crc32, data FROM chunk WHERE id = ?")

    /// Compresses (or not) one chunk, deciding the codec on the first.
    private func encode(_ piece: ArraySlice<UInt8>, isLast: Bool, state: inout State) throws -> [UInt8] {
        guard state.nextSequence < StorageSchema.maxChunksPerBody else {
            throw ChunkCodecError(reason: "body exceeds \(StorageSchema.maxChunksPerBody) chunks")
        }
        state.nextSequence += 1
        let output: [UInt8]
        switch state.codec {
        case .deflateChunked?:
            output = try state.deflater!.deflateChunk(piece, isLast: isLast)
        case .identity?:
            output = Array(piece)
        case nil:
            if hints.allowsCompression, CompressibilityProbe.isWorthDeflating(piece) {
                // A body that is its own last chunk is known whole: zlib is set up for its size.
                let level = store.configuration.deflateLevel
                let deflater =
                    isLast ? try ChunkDeflater(wholeBodyOf: piece.count, level: level) : try ChunkDeflater(level: level)
                let deflated = try deflater.deflateChunk(piece, isLast: isLast)
                if Double(deflated.count) <= store.configuration.compressionThreshold * Double(piece.count) {
                    state.codec = .deflateChunked
                    state.deflater = deflater
                    output = deflated
                    break
                }
            }
            state.codec = .identity
            output = Array(piece)
        }
        state.storedSize += output.count
        return output
    }

    /// Allocates a body id and records the body as pending (its chunks are written before its entry).
    static func allocateBody(_ connection: SQLiteConnection, now: Date) throws -> Int64 {
        let id = try nextBodyID(connection)
        try connection.run(
            "INSERT INTO pending_body (id, started) VALUES (?, ?)", [.integer(id), .real(now.timeIntervalSince1970)])
        return id
    }

    /// The next body id, from `pending_body`'s AUTOINCREMENT counter (`SQLiteBodyIDSequence`), advanced in the
    /// caller's transaction. A body that fits in its last chunk takes its id from the commit's counters
    /// (`SQLiteCommitCounters`) without a pending row: it was an insert and a delete of that row per stored miss.
    static func nextBodyID(_ connection: SQLiteConnection) throws -> Int64 {
        var ids = try SQLiteBodyIDSequence(reading: connection)
        let id = ids.next()
        try ids.write(connection)
        return id
    }

    /// Inserts a chunk with its CRC-32: `crc32` when the caller knows it, else computed here.
    static func insertChunk(
        _ bytes: [UInt8], body: Int64, sequence: Int64, crc32: UInt32? = nil, connection: SQLiteConnection
    ) throws {
        let id = body << StorageSchema.chunkIDShift | sequence
        _ = try bytes.withUnsafeBytes {
            let crc = crc32 ?? CRC32.checksum($0)
            try connection.run(insertChunkQuery, [.integer(id), .integer(Int64(crc))], borrowing: $0)
        }
    }

    private static let insertChunkQuery = SQLiteQuery("INSERT INTO chunk (id, crc32, data) VALUES (?, ?, ?)")
}
