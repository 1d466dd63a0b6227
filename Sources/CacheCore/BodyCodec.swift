/// How a body's bytes are kept in the store.
public enum BodyCodec: String, Sendable, Equatable, CaseIterable {
    /// Stored as received, in chunks of `chunkSize` bytes.
    case identity
    /// Raw deflate with a full flush at each chunk boundary and the last chunk finished, so that a
    /// gzip header, the chunks in order and a gzip trailer form one gzip stream (RFC 1952) and each
    /// chunk inflates alone (RFC 1951; https://zlib.net/manual.html `Z_FULL_FLUSH`).
    case deflateChunked = "deflate-chunked"

    /// The small integer kept in the database.
    public var storageCode: Int {
        switch self {
        case .identity: 0
        case .deflateChunked: 1
        }
    }

    /// The codec of a stored integer, `nil` for an unknown one.
    /// - Parameter storageCode: the integer read back.
    public init?(storageCode: Int) {
        switch storageCode {
        case 0: self = .identity
        case 1: self = .deflateChunked
        default: return nil
        }
    }
}
