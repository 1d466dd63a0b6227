import Zlib

/// Strict raw inflate of one stored chunk at a time, on `Inflater`.
///
/// Strict means: every input byte is consumed and no byte follows the end of the stream; the output
/// is exactly the recorded length, and the inflater's bound is that length, so a chunk that would
/// inflate to more (a stored bomb) is caught one byte past it, never allocated. A chunk other than the
/// last must end with a full-flush marker and not end the stream; the last must end it. Used by one
/// reader at a time, under that reader's lock.
final class ChunkInflater {
    private let inflater: Inflater

    /// Sets up raw inflate.
    /// - Throws: `ZlibError` when zlib cannot allocate.
    init() throws {
        inflater = try Inflater(format: .raw)
    }

    /// Inflates one chunk with a fresh state (the previous chunk's full flush reset the dictionary).
    /// - Parameters:
    ///   - input: the stored bytes of the chunk.
    ///   - expectedLength: the recorded uncompressed length of this chunk.
    ///   - isLast: whether this chunk must end the deflate stream.
    /// - Returns: exactly `expectedLength` bytes.
    /// - Throws: `ChunkCodecError` describing the first check that failed.
    func inflateChunk(_ input: [UInt8], expectedLength: Int, isLast: Bool) throws -> [UInt8] {
        if !isLast {
            guard input.count >= 4, input.suffix(4).elementsEqual([0x00, 0x00, 0xFF, 0xFF]) else {
                throw ChunkCodecError(reason: "chunk does not end with a full-flush marker")
            }
        }
        var output: [UInt8] = []
        output.reserveCapacity(expectedLength + 1)
        let ended: Bool
        do throws(ZlibError) {
            try inflater.reset(outputLimit: expectedLength)
            // The last chunk is the end of the input: it must end the stream, with nothing after it.
            ended = try inflater.inflate(input, isFinal: isLast, into: &output)
        } catch {
            throw ChunkCodecError(reason: "chunk of \(input.count) bytes, \(expectedLength) recorded", cause: error)
        }
        guard isLast || !ended else { throw ChunkCodecError(reason: "deflate stream ends before the last chunk") }
        guard output.count == expectedLength else {
            throw ChunkCodecError(reason: "chunk inflates to \(output.count) bytes, \(expectedLength) recorded")
        }
        return output
    }
}
