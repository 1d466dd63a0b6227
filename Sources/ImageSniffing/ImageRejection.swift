/// Why `ImageValidator` refused a payload: a stable machine-readable code and a human detail.
///
/// The `reason` code is what logs, metrics and `Cache-Status` carry; the `detail` is for people and
/// may change between versions.
public struct ImageRejection: Error, Sendable, Hashable, CustomStringConvertible {
    /// The format the bytes were recognised as, or `nil` when they matched none.
    public var format: ImageFormat?
    /// The stable reason code, such as `png.crc-mismatch` or `truncated`.
    public var reason: Reason
    /// A sentence for people, naming the offset or field at fault where known.
    public var detail: String

    /// Creates a rejection.
    /// - Parameters:
    ///   - format: The recognised format, if any.
    ///   - reason: The stable reason code.
    ///   - detail: A human explanation.
    public init(format: ImageFormat?, reason: Reason, detail: String) {
        self.format = format
        self.reason = reason
        self.detail = detail
    }

    /// `reason: detail`, as written to logs.
    public var description: String { "\(reason.rawValue): \(detail)" }
}

extension ImageRejection {
    /// A stable reason code. Codes without a dot apply to every format; `png.`, `jpeg.`, ... codes
    /// name a rule of one format (`heif.` covers both AVIF and HEIC).
    public struct Reason: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code as text, e.g. `png.crc-mismatch`.
        public var rawValue: String

        /// Wraps a code.
        /// - Parameter rawValue: The code as text.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The code as text.
        public var description: String { rawValue }
    }
}
