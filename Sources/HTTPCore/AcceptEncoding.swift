/// The content codings a caller accepts, with their weights: the `Accept-Encoding` request field
/// (RFC 9110 §12.5.3).
///
/// One choice differs from the letter of the RFC: a request without the field is taken to accept only
/// `identity`. RFC 9110 lets a server pick any coding then, but clients that send no field (curl without
/// `--compressed`, most scripts) rarely decode one; nginx's gzip module makes the same choice.
public struct AcceptEncoding: Sendable, Equatable {
    /// One member of the field: a coding and its weight.
    public struct Preference: Sendable, Equatable {
        /// The coding, lower-cased; `x-gzip` is read as `gzip` (RFC 9110 §8.4.1.3), `*` is the wildcard.
        public var coding: String
        /// The weight in thousandths, 0 (not acceptable) to 1000 (RFC 9110 §12.4.2).
        public var quality: Int

        /// Creates a preference.
        public init(coding: String, quality: Int) {
            self.coding = coding
            self.quality = quality
        }
    }

    /// The well-formed members in the order received; malformed members are skipped.
    public var preferences: [Preference]
    /// Whether the request carried the field at all (even empty).
    public var isPresent: Bool

    /// Reads every `Accept-Encoding` line of a request's headers.
    public init(_ headers: HTTPHeaders) {
        self.init(fieldValues: headers.values(for: "Accept-Encoding"))
    }

    /// Reads the values of the field's lines, in order; no values means the field is absent.
    public init(fieldValues: [String]) {
        isPresent = !fieldValues.isEmpty
        preferences = []
        for value in fieldValues {
            var text = value
            text.withUTF8 { bytes in AcceptEncoding.appendPreferences(from: bytes, to: &preferences) }
        }
    }

    /// The weight of a coding in thousandths: its own member's, else the wildcard's; `identity` is
    /// acceptable (1000) unless excluded by `identity;q=0` or by `*;q=0` without an `identity` member.
    /// - Parameter coding: A content coding name, any case, or `identity`.
    /// - Returns: 0 when the caller does not accept it, up to 1000.
    public func quality(of coding: String) -> Int {
        var name = coding.utf8.allSatisfy({ $0 < 0x41 || $0 > 0x5A }) ? coding : coding.lowercased()
        if name == "x-gzip" { name = "gzip" }
        let isIdentity = name == "identity"
        guard isPresent else { return isIdentity ? 1000 : 0 }
        if let own = preferences.first(where: { $0.coding == name }) { return own.quality }
        if let wildcard = preferences.first(where: { $0.coding == "*" }) { return wildcard.quality }
        return isIdentity ? 1000 : 0
    }

    /// Whether the caller accepts the coding with a weight above 0.
    /// - Parameter coding: A content coding name, any case.
    /// - Returns: `quality(of: coding) > 0`.
    public func accepts(_ coding: String) -> Bool { quality(of: coding) > 0 }

    /// Whether a gzip body may be sent as-is (with `Content-Encoding: gzip`).
    public var acceptsGzip: Bool { quality(of: "gzip") > 0 }

    /// Whether an unencoded body may be sent; when not, and no coding fits, the answer is 415 or a
    /// coded body anyway (RFC 9110 §12.5.3 leaves the choice to the server).
    public var acceptsIdentity: Bool { quality(of: "identity") > 0 }

    /// Parses `#( codings [ weight ] )` and appends the well-formed members.
    private static func appendPreferences(from bytes: UnsafeBufferPointer<UInt8>, to preferences: inout [Preference]) {
        var index = 0
        while index < bytes.count {
            var end = index
            while end < bytes.count, bytes[end] != ASCII.comma { end += 1 }
            let member = bytes.trimmingWhitespace(index..<end)
            index = end + 1
            var tokenEnd = member.lowerBound
            while tokenEnd < member.upperBound, HTTPByteClass.isToken(bytes[tokenEnd]) { tokenEnd += 1 }
            guard tokenEnd > member.lowerBound,
                let quality = weight(bytes, tokenEnd..<member.upperBound)
            else { continue }
            var coding = String(
                decoding: UnsafeBufferPointer(rebasing: bytes[member.lowerBound..<tokenEnd]).lazy.map(
                    \.asciiLowercased),
                as: UTF8.self)
            if coding == "x-gzip" { coding = "gzip" }
            preferences.append(Preference(coding: coding, quality: quality))
        }
    }

    /// `[ OWS ";" OWS "q=" qvalue ]`, in thousandths; `nil` when malformed.
    private static func weight(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        if range.isEmpty { return 1000 }
        var index = range.lowerBound
        while index < range.upperBound, HTTPByteClass.isWhitespace(bytes[index]) { index += 1 }
        guard index < range.upperBound, bytes[index] == ASCII.semicolon else { return nil }
        index += 1
        while index < range.upperBound, HTTPByteClass.isWhitespace(bytes[index]) { index += 1 }
        guard range.upperBound - index >= 3, bytes[index] | 0x20 == 0x71, bytes[index + 1] == ASCII.equals else {
            return nil
        }
        return qvalue(bytes, (index + 2)..<range.upperBound)
    }

    /// `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )` (RFC 9110 §12.4.2), in thousandths.
    static func qvalue(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        guard !range.isEmpty, range.count <= 5 else { return nil }
        let unit = bytes[range.lowerBound]
        guard unit == 0x30 || unit == 0x31 else { return nil }
        var thousandths = unit == 0x31 ? 1000 : 0
        guard range.count > 1 else { return thousandths }
        guard bytes[range.lowerBound + 1] == ASCII.period else { return nil }
        var scale = 100
        for index in (range.lowerBound + 2)..<range.upperBound {
            let byte = bytes[index]
            guard HTTPByteClass.isDigit(byte), unit == 0x30 || byte == 0x30 else { return nil }
            thousandths += Int(byte &- 0x30) * scale
            scale /= 10
        }
        return thousandths
    }
}
