/// The wrapper around deflate data (RFC 1951), chosen through `windowBits`
/// ([manual: deflateInit2](https://zlib.net/manual.html#Advanced)).
public enum DeflateFormat: Sendable, Equatable {
    /// Bare deflate blocks, no header or check value (negative `windowBits`).
    case raw
    /// The zlib wrapper (RFC 1950): a two-byte header and an Adler-32 trailer; PNG's `IDAT` stream.
    case zlib
    /// A gzip member (RFC 1952): a ten-byte header and a CRC-32 and length trailer (`windowBits` + 16).
    case gzip

    /// The `windowBits` argument zlib takes for this format and a window of `2^bits` bytes.
    func windowBitsArgument(_ bits: Int32) -> Int32 {
        switch self {
        case .raw: -bits
        case .zlib: bits
        case .gzip: bits + 16
        }
    }
}
