/// Why a URL cannot be canonicalised (and so cannot be fetched); each case maps to a 400 answer.
public enum URLRejection: Error, Sendable, Equatable, CustomStringConvertible {
    /// Longer than ``URLCanonicalizer/maximumLength`` bytes.
    case tooLong(bytes: Int)
    /// A control character, space or DEL at this byte offset.
    case forbiddenCharacter(offset: Int)
    /// Not `scheme://authority…`.
    case notAbsolute
    /// A scheme other than http or https.
    case unsupportedScheme(String)
    /// `user:password@` in the authority (credentials in URLs are refused, and `a@b` tricks with them).
    case userInfo
    /// No host.
    case emptyHost
    /// A host with non-ASCII characters: IDNA is out of scope; send the A-label (`xn--…`) form.
    case nonASCIIHost
    /// A host that is not a DNS name, IPv4 address or bracketed IPv6 address.
    case invalidHost(String)
    /// A port that is not a number in 1…65535.
    case badPort(String)

    /// A sentence for a problem+json `detail`.
    public var description: String {
        switch self {
        case .tooLong(let bytes): "URL is \(bytes) bytes, over the \(URLCanonicalizer.maximumLength)-byte limit"
        case .forbiddenCharacter(let offset): "URL has a control character or whitespace at byte \(offset)"
        case .notAbsolute: "URL is not absolute (scheme://host/path)"
        case .unsupportedScheme(let scheme): "URL scheme \"\(scheme)\" is not http or https"
        case .userInfo: "URL carries user info (user@host), which is refused"
        case .emptyHost: "URL has an empty host"
        case .nonASCIIHost: "URL host is not ASCII; internationalised names must be sent in xn-- form"
        case .invalidHost(let host): "URL host \"\(host)\" is not a valid host name or address"
        case .badPort(let port): "URL port \"\(port)\" is not in 1-65535"
        }
    }
}
