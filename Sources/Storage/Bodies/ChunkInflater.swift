import CZlib

/// Strict raw inflate of one stored chunk at a time (https://zlib.net/manual.html, `inflate`).
///
/// Strict means: every input byte is consumed and no byte follows the end of the stream; the output
/// is exactly the recorded length, and the output buffer is that length plus one byte, so a chunk
/// that would inflate to more (a stored bomb) is caught after one extra byte, never allocated.
/// A chunk other than the last must end with a full-flush marker and not end the stream; the last
/// must end it. Used by one reader at a time, under that reader's lock.
final class ChunkInflater {
    private let stream: UnsafeMutablePointer<z_stream>

    /// Sets up raw inflate (`windowBits` -15).
    /// - Throws: `ChunkCodecError` when zlib cannot allocate.
    init() throws {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let code = czlib_inflate_init2(stream, -15)
        guard code == Z_OK else {
            stream.deallocate()
            throw ChunkCodecError(reason: "inflateInit2 failed with \(code)")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Inflates one chunk with a fresh state (the previous chunk's full flush reset the dictionary).
    /// - Parameters:
    ///   - input: the stored bytes of the chunk.
    ///   - expectedLength: the recorded uncompressed length of this chunk.
    ///   - isLast: whether this chunk must end the deflate stream.
    /// - Returns: exactly `expectedLength` bytes.
    /// - Throws: `ChunkCodecError` describing the first check that failed.
    func inflateChunk(_ input: [UInt8], expectedLength: Int, isLast: Bool) throws -> [UInt8] {
        guard inflateReset(stream) == Z_OK else { throw ChunkCodecError(reason: "inflateReset failed") }
        if !isLast {
            guard input.count >= 4, input.suffix(4).elementsEqual([0x00, 0x00, 0xFF, 0xFF]) else {
                throw ChunkCodecError(reason: "chunk does not end with a full-flush marker")
            }
        }
        var output = [UInt8](repeating: 0, count: expectedLength + 1)
        var produced = 0
        var consumedAll = false
        var code: Int32 = Z_OK
        input.withUnsafeBytes { inBuffer in
            output.withUnsafeMutableBytes { outBuffer in
                let inBytes = inBuffer.bindMemory(to: Bytef.self)
                let outBytes = outBuffer.bindMemory(to: Bytef.self)
                stream.pointee.next_in = UnsafeMutablePointer(mutating: inBytes.baseAddress)
                stream.pointee.avail_in = uInt(inBytes.count)
                stream.pointee.next_out = outBytes.baseAddress
                stream.pointee.avail_out = uInt(outBytes.count)
                // One call normally does it all; loop while zlib makes progress.
                while true {
                    let before = (stream.pointee.avail_in, stream.pointee.avail_out)
                    code = inflate(stream, Z_SYNC_FLUSH)
                    if code != Z_OK { break }
                    if stream.pointee.avail_in == 0 || stream.pointee.avail_out == 0 { break }
                    if before == (stream.pointee.avail_in, stream.pointee.avail_out) { break }
                }
                produced = outBytes.count - Int(stream.pointee.avail_out)
                consumedAll = stream.pointee.avail_in == 0
                stream.pointee.next_in = nil
                stream.pointee.next_out = nil
            }
        }
        if produced > expectedLength {
            throw ChunkCodecError(reason: "chunk inflates to more than the recorded \(expectedLength) bytes")
        }
        switch code {
        case Z_STREAM_END:
            guard isLast else { throw ChunkCodecError(reason: "deflate stream ends before the last chunk") }
            guard consumedAll else { throw ChunkCodecError(reason: "bytes follow the end of the deflate stream") }
        case Z_OK, Z_BUF_ERROR:
            guard !isLast else { throw ChunkCodecError(reason: "last chunk does not end the deflate stream") }
            guard consumedAll else { throw ChunkCodecError(reason: "chunk not consumed entirely") }
        default:
            throw ChunkCodecError(reason: "inflate failed with \(code)")
        }
        guard produced == expectedLength else {
            throw ChunkCodecError(reason: "chunk inflates to \(produced) bytes, \(expectedLength) recorded")
        }
        output.removeLast()
        return output
    }
}

/// zlib's CRC-32 (https://zlib.net/manual.html `crc32`), the checksum of gzip's trailer.
enum ZlibCRC32 {
    /// Continues a CRC-32 over more bytes.
    /// - Parameters:
    ///   - crc: the CRC so far (0 to start).
    ///   - bytes: the next bytes.
    /// - Returns: the updated CRC.
    static func update(_ crc: UInt32, _ bytes: some Collection<UInt8>) -> UInt32 {
        let result = bytes.withContiguousStorageIfAvailable { buffer -> UInt32 in
            guard let base = buffer.baseAddress else { return crc }
            return UInt32(crc32(uLong(crc), base, uInt(buffer.count)))
        }
        return result ?? update(crc, Array(bytes))
    }
}
