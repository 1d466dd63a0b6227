import CZlib

/// A zlib call that failed, or a stream that broke a rule the wrappers check: input that ends before the
/// stream does, bytes after its end, more output than the caller allows.
///
/// Return codes are those of [the zlib manual](https://zlib.net/manual.html#Constants); `message` is the
/// stream's `msg` ("invalid distance too far back", "incorrect data check") when zlib set one.
public struct ZlibError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The zlib call the wrapper was making.
    public enum Operation: String, Sendable {
        case deflateInit = "deflateInit2"
        case deflate
        case inflateInit = "inflateInit2"
        case inflate
        case inflateReset
    }

    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        /// zlib returned the error `code`.
        case library
        /// The input ended before the stream did (a truncated stream); `code` is zlib's last return.
        case truncated
        /// This many bytes follow the end of the stream.
        case trailingBytes(count: Int)
        /// The stream inflates to more than the caller's bound (a decompression bomb, or a wrong length).
        case outputLimitExceeded(limit: Int)
        /// More input was given to a deflate stream that was already finished.
        case streamFinished
    }

    /// A zlib return code ([manual: Constants](https://zlib.net/manual.html#Constants)).
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The value `zlib.h` gives it.
        public let rawValue: Int32

        /// Wraps a return code.
        /// - Parameter rawValue: the value `zlib.h` gives it.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// `Z_OK`.
        public static let ok = Self(rawValue: Z_OK)
        /// `Z_STREAM_END`.
        public static let streamEnd = Self(rawValue: Z_STREAM_END)
        /// `Z_NEED_DICT`: a zlib stream that needs a preset dictionary.
        public static let needDictionary = Self(rawValue: Z_NEED_DICT)
        /// `Z_ERRNO`.
        public static let errno = Self(rawValue: Z_ERRNO)
        /// `Z_STREAM_ERROR`: an inconsistent stream or a parameter out of range.
        public static let streamError = Self(rawValue: Z_STREAM_ERROR)
        /// `Z_DATA_ERROR`: the input is not a valid stream, or fails its check value.
        public static let dataError = Self(rawValue: Z_DATA_ERROR)
        /// `Z_MEM_ERROR`.
        public static let memoryError = Self(rawValue: Z_MEM_ERROR)
        /// `Z_BUF_ERROR`: no progress was possible.
        public static let bufferError = Self(rawValue: Z_BUF_ERROR)
        /// `Z_VERSION_ERROR`.
        public static let versionError = Self(rawValue: Z_VERSION_ERROR)

        /// The macro's name, such as `Z_DATA_ERROR`.
        public var description: String {
            switch self {
            case .ok: "Z_OK"
            case .streamEnd: "Z_STREAM_END"
            case .needDictionary: "Z_NEED_DICT"
            case .errno: "Z_ERRNO"
            case .streamError: "Z_STREAM_ERROR"
            case .dataError: "Z_DATA_ERROR"
            case .memoryError: "Z_MEM_ERROR"
            case .bufferError: "Z_BUF_ERROR"
            case .versionError: "Z_VERSION_ERROR"
            default: "zlib code \(rawValue)"
            }
        }
    }

    /// The call that failed.
    public let operation: Operation
    /// What went wrong.
    public let kind: Kind
    /// zlib's return code from the call (for a wrapper's own check, the last code zlib returned).
    public let code: Code
    /// The stream's `msg`, when zlib set one.
    public let message: String?

    /// Describes a failure.
    /// - Parameters:
    ///   - operation: the call that failed.
    ///   - kind: what went wrong.
    ///   - code: zlib's return code.
    ///   - message: the stream's `msg`.
    public init(operation: Operation, kind: Kind, code: Code, message: String? = nil) {
        self.operation = operation
        self.kind = kind
        self.code = code
        self.message = message
    }

    /// One line for logs and `corrupt entry` reasons, e.g. `inflate: Z_DATA_ERROR (invalid block type)`.
    public var description: String {
        let detail =
            switch kind {
            case .library: "\(code)"
            case .truncated: "the input ends before the stream does (\(code))"
            case .trailingBytes(let count): "\(count) bytes follow the end of the stream"
            case .outputLimitExceeded(let limit): "the output exceeds the limit of \(limit) bytes"
            case .streamFinished: "the stream was already finished"
            }
        return "\(operation.rawValue): \(detail)" + (message.map { " (\($0))" } ?? "")
    }
}
