/// A request method token (RFC 9110 §9). Methods are case-sensitive.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The method as sent on the request line.
    public let rawValue: String

    /// Creates a method from its token.
    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    public static let get = HTTPMethod(rawValue: "GET")
    public static let head = HTTPMethod(rawValue: "HEAD")
    public static let post = HTTPMethod(rawValue: "POST")
    public static let put = HTTPMethod(rawValue: "PUT")
    public static let delete = HTTPMethod(rawValue: "DELETE")
    public static let options = HTTPMethod(rawValue: "OPTIONS")
    public static let patch = HTTPMethod(rawValue: "PATCH")
    public static let connect = HTTPMethod(rawValue: "CONNECT")
    public static let trace = HTTPMethod(rawValue: "TRACE")
    /// The safe method with a body of the IETF's `QUERY` specification (registered in IANA's method registry).
    public static let query = HTTPMethod(rawValue: "QUERY")

    /// Whether the method is safe, only reading (RFC 9110 §9.2.1): GET, HEAD, OPTIONS and TRACE, and QUERY
    /// by its own definition. Any other token, one never heard of included, is unsafe.
    public var isSafe: Bool {
        switch self {
        case .get, .head, .options, .trace, .query: true
        default: false
        }
    }
}
