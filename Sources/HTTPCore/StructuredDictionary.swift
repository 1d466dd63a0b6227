/// A Dictionary Structured Field ([RFC 8941 §3.2](https://www.rfc-editor.org/rfc/rfc8941#section-3.2)),
/// parsed strictly as [§4.2.2](https://www.rfc-editor.org/rfc/rfc8941#section-4.2.2) asks: any error makes
/// the whole field invalid (`nil`), there is no partial result.
///
/// The targeted cache-control fields of RFC 9213 (`CDN-Cache-Control`) are such dictionaries. Members keep
/// the order of their first appearance; a repeated key takes the later value (§4.2.2). Parameters are
/// parsed (so a malformed one fails the field) and dropped: no user of this type reads them yet.
public struct StructuredDictionary: Sendable, Equatable {
    /// One member value: a bare item or an inner list (§3.1.1).
    public enum Value: Sendable, Equatable {
        /// `sf-integer`, at most 15 digits (§3.3.1).
        case integer(Int64)
        /// `sf-decimal`, as its text (§3.3.2): nothing here computes with one.
        case decimal(String)
        /// `sf-string`, escapes undone (§3.3.3).
        case string(String)
        /// `sf-token` (§3.3.4).
        case token(String)
        /// `sf-binary`, as its base64 text (§3.3.5).
        case byteSequence(String)
        /// `sf-boolean` (§3.3.6); a member without `=` is `true`.
        case boolean(Bool)
        /// An inner list (§3.1.1), its items without their parameters.
        case innerList([Value])
    }

    /// The members in order, keys as sent (the grammar allows only lower case).
    public var members: [(key: String, value: Value)]

    /// Parses the field lines of one dictionary field, joined with commas as RFC 8941 §4.2 says.
    ///
    /// - Parameter fieldValues: The field's values, one per field line.
    /// - Returns: `nil` when the joined value is not a valid dictionary.
    public init?(fieldValues: [String]) {
        var joined = fieldValues.joined(separator: ",")
        guard
            let members = joined.withUTF8({ bytes -> [(key: String, value: Value)]? in
                var parser = StructuredFieldParser(bytes: bytes)
                return parser.parseDictionary()
            })
        else { return nil }
        self.members = members
    }

    /// The value of a key, `nil` when absent.
    public subscript(key: String) -> Value? {
        members.first { $0.key == key }?.value
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.members.elementsEqual(rhs.members) { $0.key == $1.key && $0.value == $1.value }
    }
}
