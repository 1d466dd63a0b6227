/// The `token` of RFC 9110 §5.6.2: one or more `tchar`s. Method names and field names are tokens.
public enum HTTPToken {
    /// Whether `text` is a token, by the request parser's own byte class.
    ///
    /// One overload per string type rather than one over `some StringProtocol`: called from another module,
    /// the generic one walked the bytes through protocol witnesses (4 400 instructions for a field name,
    /// five of them on every miss).
    /// - Parameter text: the candidate.
    /// - Returns: `true` when it is non-empty and every byte is a `tchar`.
    public static func isValid(_ text: String) -> Bool {
        // On the contiguous bytes (native and small strings have them): the view's iterator walked a
        // byte in about 30 instructions, 600 a field name (callgrind).
        text.utf8.withContiguousStorageIfAvailable { isToken($0) } ?? isToken(text.utf8)
    }

    /// Whether `text` is a token (see the `String` overload).
    public static func isValid(_ text: Substring) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { isToken($0) } ?? isToken(text.utf8)
    }

    /// Whether `text` is a Structured Fields token (RFC 8941 §3.3.4), which is not quite an HTTP token: it
    /// starts with ALPHA or `*` and may also hold `:` and `/`.
    /// - Parameter text: the candidate.
    /// - Returns: `true` when it is non-empty and written that way.
    public static func isStructuredToken(_ text: String) -> Bool {
        switch text.utf8.first ?? 0 {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "*"): break
        default: return false
        }
        return text.utf8.dropFirst().allSatisfy(HTTPByteClass.isStructuredToken)
    }

    @inline(__always)
    private static func isToken(_ bytes: some Collection<UInt8>) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy(HTTPByteClass.isToken)
    }
}

extension HTTPMethod {
    /// A method from text that must be a token (RFC 9110 §9.1): what the parser accepts on a request line,
    /// for a method given elsewhere (a filter's `methods`, a query parameter, a request to an origin).
    /// - Parameter token: the method as written; case-sensitive, kept as it is.
    /// - Returns: `nil` when `token` is empty or holds a byte that is not a `tchar`.
    public init?(validatingToken token: String) {
        guard HTTPToken.isValid(token) else { return nil }
        self.init(rawValue: token)
    }
}
