import Zlib

/// Raw deflate of a body chunk by chunk: a full flush at each chunk boundary, finish on the last
/// (`Deflater` with `.full` and `.finish`).
///
/// A full flush ends the chunk on a byte boundary with an empty stored block (`00 00 FF FF`) and resets
/// the dictionary, so the next chunk has no back-reference into this one: each chunk inflates alone
/// with a fresh raw inflater, and all chunks in order are one deflate stream (RFC 1951), which the
/// store frames as a gzip member (`GzipFraming`). Used by one writer at a time, under that writer's lock.
final class ChunkDeflater {
    private let deflater: Deflater

    /// Sets up raw deflate (no zlib or gzip wrapper: the store adds the gzip framing).
    /// - Parameters:
    ///   - level: 1…9; 6 is zlib's and gzip's default.
    ///   - windowBits: 9…15, the base-2 log of the window; 15 (32 KiB) is zlib's default.
    ///   - memoryLevel: 1…9, the size of the match-finding hash table; 8 is zlib's default.
    /// - Throws: `ZlibError` when zlib cannot allocate.
    init(level: Int32 = 6, windowBits: Int = 15, memoryLevel: Int = 8) throws {
        deflater = try Deflater(format: .raw, level: Int(level), windowBits: windowBits, memoryLevel: memoryLevel)
    }

    /// A deflater for a whole body of `count` bytes (one chunk), with zlib sized to it
    /// (`Deflater.init(format:level:wholeInputOf:)`).
    /// - Parameters:
    ///   - count: the body's length.
    ///   - level: 1…9.
    /// - Throws: `ZlibError` when zlib cannot allocate.
    init(wholeBodyOf count: Int, level: Int32) throws {
        deflater = try Deflater(format: .raw, level: Int(level), wholeInputOf: count)
    }

    /// Deflates one chunk.
    /// - Parameters:
    ///   - input: the chunk's uncompressed bytes.
    ///   - isLast: finish the stream (sets BFINAL) instead of a full flush.
    /// - Returns: the chunk's compressed bytes.
    /// - Throws: `ZlibError` when zlib fails or the stream was already finished.
    func deflateChunk(_ input: ArraySlice<UInt8>, isLast: Bool) throws -> [UInt8] {
        try deflater.deflate(input, flush: isLast ? .finish : .full)
    }
}
