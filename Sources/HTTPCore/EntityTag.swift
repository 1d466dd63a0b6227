/// An entity tag, the validator of `ETag`, `If-Match` and `If-None-Match` (RFC 9110 §8.8.3).
public struct EntityTag: Sendable, Hashable, CustomStringConvertible {
    /// The opaque tag without its quotes.
    public let opaqueTag: String
    /// Whether the tag is weak (`W/` prefix).
    public let isWeak: Bool

    /// Creates a tag; `nil` when `opaqueTag` holds a byte that `etagc` excludes (a quote, a space or a
    /// control byte).
    public init?(opaqueTag: String, isWeak: Bool = false) {
        guard opaqueTag.utf8.allSatisfy(EntityTag.isTagByte) else { return nil }
        self.opaqueTag = opaqueTag
        self.isWeak = isWeak
    }

    /// Parses one `entity-tag`, as an `ETag` field value: `"xyz"` or `W/"xyz"` (the `W/` is
    /// case-sensitive), surrounding whitespace ignored.
    /// - Parameter value: The field value.
    /// - Returns: The tag, or `nil` when the value is not exactly one entity-tag.
    public init?(parsing value: String) {
        var text = value
        let parsed: EntityTag? = text.withUTF8 { bytes in
            let range = bytes.trimmingWhitespace(0..<bytes.count)
            guard let (tag, end) = EntityTag.parse(bytes, from: range.lowerBound, end: range.upperBound),
                end == range.upperBound
            else { return nil }
            return tag
        }
        guard let parsed else { return nil }
        self = parsed
    }

    private init(validated opaqueTag: String, isWeak: Bool) {
        self.opaqueTag = opaqueTag
        self.isWeak = isWeak
    }

    /// The tag as sent in a field: `"xyz"` or `W/"xyz"`.
    public var description: String { (isWeak ? "W/\"" : "\"") + opaqueTag + "\"" }

    /// Equal when weakness and opaque bytes are the same (not Unicode canonical equivalence, which
    /// `String`'s own `==` uses: entity tags compare octet by octet).
    public static func == (lhs: EntityTag, rhs: EntityTag) -> Bool {
        lhs.isWeak == rhs.isWeak && lhs.opaqueTag.utf8.elementsEqual(rhs.opaqueTag.utf8)
    }

    /// Hashes the weakness and the opaque bytes, consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(isWeak)
        var tag = opaqueTag
        tag.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Strong comparison (RFC 9110 §8.8.3.2): both strong and the opaque tags equal byte for byte.
    /// - Parameter other: The tag to compare with.
    /// - Returns: Whether they match strongly.
    public func matchesStrongly(_ other: EntityTag) -> Bool {
        !isWeak && !other.isWeak && opaqueTag.utf8.elementsEqual(other.opaqueTag.utf8)
    }

    /// Weak comparison (RFC 9110 §8.8.3.2): the opaque tags equal, whatever their weakness.
    /// - Parameter other: The tag to compare with.
    /// - Returns: Whether they match weakly.
    public func matchesWeakly(_ other: EntityTag) -> Bool {
        opaqueTag.utf8.elementsEqual(other.opaqueTag.utf8)
    }

    /// The value of an `If-Match` or `If-None-Match` field: `*` or a list of entity tags
    /// (RFC 9110 §13.1.1–13.1.2).
    public enum Condition: Sendable, Equatable {
        /// `*`: any current representation.
        case any
        /// `1#entity-tag`, in order.
        case tags([EntityTag])

        /// Parses the values of every line of the field, in order.
        /// - Parameter fieldValues: The field's values; several lines form one list.
        /// - Returns: The condition, or `nil` when the field is absent or malformed (a malformed
        ///   precondition is ignored, as if absent), or mixes `*` with tags.
        public init?(fieldValues: [String]) {
            var tags: [EntityTag] = []
            var sawAny = false
            for value in fieldValues {
                var text = value
                let valid = text.withUTF8 { bytes in
                    EntityTag.parseList(bytes, into: &tags, sawAny: &sawAny)
                }
                guard valid else { return nil }
            }
            if sawAny {
                guard tags.isEmpty else { return nil }
                self = .any
            } else {
                guard !tags.isEmpty else { return nil }
                self = .tags(tags)
            }
        }

        /// Reads the named field (`If-Match` or `If-None-Match`) from request headers.
        /// - Parameters:
        ///   - name: The field name.
        ///   - headers: The request headers.
        /// - Returns: The condition, or `nil` when absent or malformed.
        public init?(field name: String, in headers: HTTPHeaders) {
            self.init(fieldValues: headers.values(for: name))
        }

        /// Evaluates `If-Match` (RFC 9110 §13.1.1): true when the request may proceed.
        /// - Parameters:
        ///   - current: The current representation's tag, if it has one.
        ///   - hasRepresentation: Whether there is a current representation at all.
        /// - Returns: `*` passes when a representation exists; a list passes when one tag matches
        ///   `current` strongly. A false result means 412.
        public func ifMatchPasses(current: EntityTag?, hasRepresentation: Bool = true) -> Bool {
            switch self {
            case .any: return hasRepresentation
            case .tags(let tags):
                guard hasRepresentation, let current else { return false }
                return tags.contains { $0.matchesStrongly(current) }
            }
        }

        /// Evaluates `If-None-Match` (RFC 9110 §13.1.2): true when the request may proceed.
        /// - Parameters:
        ///   - current: The current representation's tag, if it has one.
        ///   - hasRepresentation: Whether there is a current representation at all.
        /// - Returns: `*` fails when a representation exists; a list fails when one tag matches `current`
        ///   weakly. A false result means 304 for GET and HEAD, 412 otherwise.
        public func ifNoneMatchPasses(current: EntityTag?, hasRepresentation: Bool = true) -> Bool {
            switch self {
            case .any: return !hasRepresentation
            case .tags(let tags):
                guard hasRepresentation, let current else { return true }
                return !tags.contains { $0.matchesWeakly(current) }
            }
        }
    }

    /// `etagc = %x21 / %x23-7E / obs-text`.
    private static func isTagByte(_ byte: UInt8) -> Bool {
        byte == 0x21 || (byte >= 0x23 && byte != 0x7F)
    }

    /// Parses `[ "W/" ] DQUOTE *etagc DQUOTE` at `start`; returns the tag and the index after it.
    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, end: Int) -> (EntityTag, Int)? {
        var index = start
        var isWeak = false
        if end - index >= 2, bytes[index] == 0x57, bytes[index + 1] == ASCII.slash {
            isWeak = true
            index += 2
        }
        guard index < end, bytes[index] == ASCII.quote else { return nil }
        index += 1
        let tagStart = index
        while index < end, isTagByte(bytes[index]) { index += 1 }
        guard index < end, bytes[index] == ASCII.quote else { return nil }
        let tag = String(decoding: UnsafeBufferPointer(rebasing: bytes[tagStart..<index]), as: UTF8.self)
        return (EntityTag(validated: tag, isWeak: isWeak), index + 1)
    }

    /// Parses `"*" / #entity-tag` from one field line. Commas may sit inside a tag, so the list is read
    /// tag by tag rather than split on commas.
    private static func parseList(
        _ bytes: UnsafeBufferPointer<UInt8>, into tags: inout [EntityTag], sawAny: inout Bool
    ) -> Bool {
        let range = bytes.trimmingWhitespace(0..<bytes.count)
        if range.count == 1, bytes[range.lowerBound] == ASCII.asterisk {
            sawAny = true
            return true
        }
        var index = range.lowerBound
        var expectingTag = true
        while index < range.upperBound {
            let byte = bytes[index]
            if HTTPByteClass.isWhitespace(byte) {
                index += 1
            } else if byte == ASCII.comma {
                // Empty members are ignored (RFC 9110 §5.6.1).
                expectingTag = true
                index += 1
            } else {
                guard expectingTag, let (tag, after) = parse(bytes, from: index, end: range.upperBound) else {
                    return false
                }
                tags.append(tag)
                index = after
                expectingTag = false
            }
        }
        return true
    }
}
