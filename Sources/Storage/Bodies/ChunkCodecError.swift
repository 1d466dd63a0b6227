import Zlib

/// A chunk that does not encode or decode as the stored format requires.
struct ChunkCodecError: Error, CustomStringConvertible {
    /// What was wrong.
    let reason: String
    /// zlib's own report, when zlib refused the chunk.
    var cause: ZlibError?

    var description: String { cause.map { "\(reason): \($0)" } ?? reason }
}
