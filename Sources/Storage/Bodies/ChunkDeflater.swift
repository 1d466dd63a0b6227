import CZlib

/// Raw deflate of a body chunk by chunk: a full flush at each chunk boundary, finish on the last
/// (https://zlib.net/manual.html, `deflate` with `Z_FULL_FLUSH` and `Z_FINISH`).
///
/// A full flush ends the chunk on a byte boundary with an empty stored block (`00 00 FF FF`) and resets
/// the dictionary, so the next chunk has no back-reference into this one: each chunk inflates alone
/// with a fresh raw inflater, and all chunks in order are one deflate stream (RFC 1951).
/// Used by one writer at a time, under that writer's lock.
final class ChunkDeflater {
    private let stream: UnsafeMutablePointer<z_stream>
    private var finished = false

    /// Sets up raw deflate (negative `windowBits`: no zlib or gzip wrapper; the store adds gzip framing).
    /// - Parameters:
    ///   - level: 1…9; 6 is zlib's and gzip's default.
    ///   - windowBits: 9…15, the base-2 log of the window; 15 (32 KiB) is zlib's default.
    ///   - memoryLevel: 1…9, the size of the match-finding hash table; 8 is zlib's default.
    /// - Throws: `ChunkCodecError` when zlib cannot allocate.
    init(level: Int32 = 6, windowBits: Int32 = 15, memoryLevel: Int32 = 8) throws {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // z_stream must not move after init: zlib keeps a pointer back to it, hence the heap allocation.
        let code = czlib_deflate_init2(stream, level, -windowBits, memoryLevel, Z_DEFAULT_STRATEGY)
        guard code == Z_OK else {
            stream.deallocate()
            throw ChunkCodecError(reason: "deflateInit2 failed with \(code)")
        }
    }

    /// A deflater for a whole body of `count` bytes (one chunk): a window that reaches back over the whole
    /// body and a hash table to match, instead of zlib's 32 KiB window and 64 KiB table. No match is lost
    /// (none can reach further back than the body), but zlib's set-up shrinks: it
    /// allocates about 256 KiB for the default sizes and clears the hash table, which made a 1 KiB
    /// body's deflate cost 45–85 µs against 7–40 µs with a 2 KiB window (Python's zlib, same library).
    /// - Parameters:
    ///   - count: the body's length.
    ///   - level: 1…9.
    /// - Throws: `ChunkCodecError` when zlib cannot allocate.
    convenience init(wholeBodyOf count: Int, level: Int32) throws {
        let bits = Self.windowBits(wholeBodyOf: count)
        try self.init(level: level, windowBits: bits, memoryLevel: min(8, max(1, bits - 7)))
    }

    /// The smallest window (9…15) whose reach covers a body of `count` bytes: zlib reaches back at most
    /// the window less 262 bytes (`MIN_LOOKAHEAD` in its deflate.h).
    static func windowBits(wholeBodyOf count: Int) -> Int32 {
        Int32(min(15, max(9, Int.bitWidth - (max(0, count) + 261).leadingZeroBitCount)))
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Deflates one chunk.
    /// - Parameters:
    ///   - input: the chunk's uncompressed bytes.
    ///   - isLast: finish the stream (sets BFINAL) instead of a full flush.
    /// - Returns: the chunk's compressed bytes.
    /// - Throws: `ChunkCodecError` when zlib fails or the stream was already finished.
    func deflateChunk(_ input: ArraySlice<UInt8>, isLast: Bool) throws -> [UInt8] {
        guard !finished else { throw ChunkCodecError(reason: "deflate stream already finished") }
        let flush = isLast ? Z_FINISH : Z_FULL_FLUSH
        // deflateBound covers one deflate call; the flush marker and the final block add a few bytes.
        var output = [UInt8](repeating: 0, count: Int(deflateBound(stream, uLong(input.count))) + 64)
        var produced = 0
        try input.withUnsafeBytes { inBuffer in
            stream.pointee.next_in = UnsafeMutablePointer(
                mutating: inBuffer.bindMemory(to: Bytef.self).baseAddress ?? UnsafePointer(bitPattern: 1)!)
            stream.pointee.avail_in = uInt(inBuffer.count)
            while true {
                if produced == output.count { output.append(contentsOf: repeatElement(0, count: 4096)) }
                let code = output.withUnsafeMutableBytes { outBuffer -> Int32 in
                    let out = outBuffer.bindMemory(to: Bytef.self)
                    stream.pointee.next_out = out.baseAddress! + produced
                    stream.pointee.avail_out = uInt(out.count - produced)
                    let code = deflate(stream, flush)
                    produced = out.count - Int(stream.pointee.avail_out)
                    return code
                }
                if isLast {
                    if code == Z_STREAM_END { break }
                    guard code == Z_OK || code == Z_BUF_ERROR else {
                        throw ChunkCodecError(reason: "deflate failed with \(code)")
                    }
                } else {
                    guard code == Z_OK || code == Z_BUF_ERROR else {
                        throw ChunkCodecError(reason: "deflate failed with \(code)")
                    }
                    // The flush is complete once deflate leaves room in the output and has no input left.
                    if stream.pointee.avail_out > 0 && stream.pointee.avail_in == 0 { break }
                }
            }
            stream.pointee.next_in = nil
            stream.pointee.next_out = nil
        }
        if isLast { finished = true }
        output.removeSubrange(produced...)
        return output
    }
}

/// A chunk that does not encode or decode as it must.
struct ChunkCodecError: Error, CustomStringConvertible {
    /// What was wrong.
    let reason: String
    var description: String { reason }
}
