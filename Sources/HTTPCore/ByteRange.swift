/// One satisfiable byte range of a representation, resolved against its length: the first and last
/// byte positions, both inclusive, as `Content-Range` names them (RFC 9110 §14.1.2, §14.4).
public struct ByteRange: Sendable, Hashable, CustomStringConvertible {
    /// The position of the first byte.
    public var first: Int
    /// The position of the last byte (inclusive).
    public var last: Int

    /// Creates a range from inclusive positions; `first <= last`.
    public init(first: Int, last: Int) {
        precondition(first >= 0 && first <= last, "a byte range needs 0 <= first <= last")
        self.first = first
        self.last = last
    }

    /// The number of bytes in the range.
    public var count: Int { last - first + 1 }

    /// The range as a half-open offset range, for slicing.
    public var offsets: Range<Int> { first..<(last + 1) }

    /// The range as `first-last`.
    public var description: String { "\(first)-\(last)" }

    /// The `Content-Range` value of this range in a representation of `completeLength` bytes
    /// (RFC 9110 §14.4): `bytes 0-499/1234`.
    public func contentRange(completeLength: Int) -> String {
        "bytes \(first)-\(last)/\(completeLength)"
    }

    /// The `Content-Range` value sent with 416 (RFC 9110 §15.5.17): `bytes */1234`.
    public static func unsatisfiedContentRange(completeLength: Int) -> String {
        "bytes */\(completeLength)"
    }

    /// One `range-spec` of a `Range` header, before it meets a length (RFC 9110 §14.1.1).
    public enum Spec: Sendable, Hashable {
        /// `first-pos "-" [ last-pos ]`; `last` is `nil` for "to the end".
        case from(first: Int, last: Int?)
        /// `"-" suffix-length`: the last `length` bytes.
        case suffix(length: Int)
    }

    /// What a `Range` header means for a representation of a given length (RFC 9110 §14.2).
    public enum Resolution: Sendable, Equatable {
        /// Ignore the header and send the whole representation (200): it was absent, not `bytes`,
        /// malformed, or asked for more ranges than allowed.
        case whole
        /// Send these ranges (206); overlapping or adjacent ranges have been coalesced.
        case ranges([ByteRange])
        /// No range overlaps the representation: 416 with `bytes */length`.
        case unsatisfiable
    }

    /// The default bound on the number of ranges in one header; more make the header ignored, as a
    /// broken client or a denial-of-service attempt (RFC 9110 §14.2).
    public static let defaultMaxRanges = 16

    /// Parses a `Range` field value: `bytes=` (the unit case-insensitively) and a comma-separated list of
    /// range-specs with optional whitespace (RFC 9110 §14.1.1, §14.2).
    /// - Parameters:
    ///   - value: The field value.
    ///   - maxRanges: Most range-specs accepted.
    /// - Returns: The specs in order, or `nil` when the unit is not `bytes`, the syntax is invalid (an
    ///   int-range with `last < first` included), there is no spec, or there are more than `maxRanges`.
    public static func parse(_ value: String, maxRanges: Int = defaultMaxRanges) -> [Spec]? {
        var text = value
        return text.withUTF8 { bytes in parse(bytes, maxRanges: maxRanges) }
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maxRanges: Int) -> [Spec]? {
        let whole = bytes.trimmingWhitespace(0..<bytes.count)
        guard whole.count > 6, bytes.equalsLowercased(whole.lowerBound..<(whole.lowerBound + 6), "bytes=") else {
            return nil
        }
        var specs: [Spec] = []
        var index = whole.lowerBound + 6
        while index <= whole.upperBound {
            var end = index
            while end < whole.upperBound, bytes[end] != ASCII.comma { end += 1 }
            let member = bytes.trimmingWhitespace(index..<end)
            index = end + 1
            // RFC 9110 §5.6.1: empty list members are ignored.
            if member.isEmpty { continue }
            guard specs.count < maxRanges, let spec = parseSpec(bytes, member) else { return nil }
            specs.append(spec)
        }
        return specs.isEmpty ? nil : specs
    }

    /// `int-range / suffix-range`; positions saturate at `Int.max`, which no representation reaches.
    private static func parseSpec(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Spec? {
        var dash = range.lowerBound
        while dash < range.upperBound, bytes[dash] != 0x2D { dash += 1 }
        guard dash < range.upperBound else { return nil }
        let firstDigits = range.lowerBound..<dash
        let lastDigits = (dash + 1)..<range.upperBound
        if firstDigits.isEmpty {
            guard let length = decimal(bytes, lastDigits) else { return nil }
            return .suffix(length: length)
        }
        guard let first = decimal(bytes, firstDigits) else { return nil }
        if lastDigits.isEmpty { return .from(first: first, last: nil) }
        guard let last = decimal(bytes, lastDigits), last >= first else { return nil }
        return .from(first: first, last: last)
    }

    /// `1*DIGIT`, saturating at `Int.max`.
    private static func decimal(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        guard !range.isEmpty else { return nil }
        var value = 0
        for index in range {
            let byte = bytes[index]
            guard HTTPByteClass.isDigit(byte) else { return nil }
            let (times10, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = times10.addingReportingOverflow(Int(byte &- 0x30))
            value = overflowA || overflowB ? .max : sum
        }
        return value
    }

    /// Resolves specs against a representation of `length` bytes (RFC 9110 §14.1.1–14.1.2): an int-range
    /// is satisfiable when `first < length` (its end is clamped), a suffix-range when its length is not 0
    /// and the representation is not empty (a suffix longer than it means all of it).
    /// - Parameters:
    ///   - specs: Parsed range-specs, in the client's order.
    ///   - length: The complete length of the selected representation.
    /// - Returns: The satisfiable ranges, coalesced when any overlap or touch (then in ascending order,
    ///   otherwise in the client's order), or `.unsatisfiable`.
    public static func resolve(_ specs: [Spec], length: Int) -> Resolution {
        var ranges: [ByteRange] = []
        ranges.reserveCapacity(specs.count)
        for spec in specs {
            switch spec {
            case .from(let first, let last):
                guard first < length else { continue }
                ranges.append(ByteRange(first: first, last: min(last ?? .max, length - 1)))
            case .suffix(let suffix):
                guard suffix > 0, length > 0 else { continue }
                ranges.append(ByteRange(first: length - min(suffix, length), last: length - 1))
            }
        }
        if ranges.isEmpty { return .unsatisfiable }
        return .ranges(coalesced(ranges))
    }

    /// Parses and resolves a `Range` field value in one go.
    /// - Parameters:
    ///   - value: The `Range` field value, or `nil` when the request has none.
    ///   - length: The complete length of the selected representation.
    ///   - maxRanges: Most range-specs accepted.
    /// - Returns: What to send; `.whole` when the header is absent or to be ignored.
    public static func resolve(header value: String?, length: Int, maxRanges: Int = defaultMaxRanges) -> Resolution {
        guard let value, let specs = parse(value, maxRanges: maxRanges) else { return .whole }
        return resolve(specs, length: length)
    }

    /// Merges overlapping or adjacent ranges (RFC 9110 §14.2 lets a server coalesce them), so that
    /// `0-,0-,0-` costs one pass over the body, not three.
    private static func coalesced(_ ranges: [ByteRange]) -> [ByteRange] {
        guard ranges.count > 1 else { return ranges }
        let sorted = ranges.sorted { $0.first < $1.first }
        var merged: [ByteRange] = [sorted[0]]
        for range in sorted.dropFirst() {
            if range.first <= merged[merged.count - 1].last + 1 {
                merged[merged.count - 1].last = max(merged[merged.count - 1].last, range.last)
            } else {
                merged.append(range)
            }
        }
        return merged.count == ranges.count ? ranges : merged
    }
}
