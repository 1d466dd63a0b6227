import HTTPCore

/// One member of the `Cache-Status` response field,
/// [RFC 9211](https://www.rfc-editor.org/rfc/rfc9211): how this cache handled the request.
///
/// Serialised as a Structured Fields list member (RFC 8941): the cache name as a token, then
/// `hit`, `fwd`, `fwd-status`, `ttl`, `stored`, `collapsed`, `key`, `detail` in that order, booleans
/// as bare keys. Strings are sf-strings; characters outside printable ASCII become `?` so the field
/// stays valid whatever a detail contains.
public struct CacheStatus: Sendable, Equatable {
    /// Why the request went forward (RFC 9211 §2.2).
    public enum Forward: String, Sendable, Equatable {
        /// The cache was configured not to handle it (a `bypass` filter, a non-cacheable method).
        case bypass
        /// The method is not cacheable.
        case method
        /// No stored response for the URL.
        case uriMiss = "uri-miss"
        /// Stored responses exist, but none matches the request's `Vary`'d fields.
        case varyMiss = "vary-miss"
        /// Not stored, reason unspecified.
        case miss
        /// The request's directives asked for it (`no-cache`, `max-age`…).
        case request
        /// The stored response was stale and needed validation.
        case stale
        /// Only part of the response was stored.
        case partial
    }

    /// The cache's name, a token (`Larder`).
    public var cacheName: String
    /// Whether the answer came from storage without going forward.
    public var hit: Bool
    /// Why the request went forward, if it did.
    public var forward: Forward?
    /// The status the origin answered with, when the request went forward.
    public var forwardStatus: Int?
    /// Freshness left, in seconds; negative when served stale.
    public var ttl: Int64?
    /// Whether the response was stored as a result of this request.
    public var stored: Bool
    /// Whether the request was collapsed with another one (coalescing).
    public var collapsed: Bool
    /// The cache key, when it helps a reader.
    public var key: String?
    /// Free-form detail for people.
    public var detail: String?

    /// Creates a member; see the properties.
    public init(
        cacheName: String = "Larder",
        hit: Bool = false,
        forward: Forward? = nil,
        forwardStatus: Int? = nil,
        ttl: Int64? = nil,
        stored: Bool = false,
        collapsed: Bool = false,
        key: String? = nil,
        detail: String? = nil
    ) {
        self.cacheName = cacheName
        self.hit = hit
        self.forward = forward
        self.forwardStatus = forwardStatus
        self.ttl = ttl
        self.stored = stored
        self.collapsed = collapsed
        self.key = key
        self.detail = detail
    }

    /// The field value, e.g. `Larder; hit; ttl=120` or `Larder; fwd=uri-miss; stored`.
    public var fieldValue: String {
        // Room for every part at once, each appended in place: built by concatenation and interpolation, a
        // miss's value (name, fwd, fwd-status, stored, a 64-digit key) grew its string five times and made
        // a string per part, 3 600 instructions of every miss (callgrind).
        var out = ""
        out.reserveCapacity(cacheName.utf8.count + (key?.utf8.count ?? 0) + (detail?.utf8.count ?? 0) + 96)
        out += Self.token(cacheName)
        if hit { out += "; hit" }
        if let forward {
            out += "; fwd="
            out += forward.rawValue
        }
        if let forwardStatus {
            out += "; fwd-status="
            out += String(forwardStatus)
        }
        if let ttl {
            out += "; ttl="
            out += String(ttl)
        }
        if stored { out += "; stored" }
        if collapsed { out += "; collapsed" }
        if let key {
            out += "; key="
            Self.appendSFString(key, to: &out)
        }
        if let detail {
            out += "; detail="
            Self.appendSFString(detail, to: &out)
        }
        return out
    }

    /// An sf-string: printable ASCII in quotes, `"` and `\` escaped, anything else replaced by `?`.
    static func sfString(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count + 2)
        appendSFString(text, to: &out)
        return out
    }

    /// Appends `text` as an sf-string (`sfString`).
    static func appendSFString(_ text: String, to out: inout String) {
        out += "\""
        // Nearly always printable without a quote or backslash (a key's hex, a filter's reason): copied
        // whole. Scalar by scalar, the key alone cost 2 600 instructions of every miss (callgrind).
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E && $0 != 0x22 && $0 != 0x5C }) {
            out += text
        } else {
            for scalar in text.unicodeScalars {
                switch scalar.value {
                case 0x22, 0x5C:
                    out += "\\"
                    out.unicodeScalars.append(scalar)
                case 0x20...0x7E: out.unicodeScalars.append(scalar)
                default: out += "?"
                }
            }
        }
        out += "\""
    }

    /// An sf-token for the cache name: it must start with a letter or `*`; an unusable name falls back
    /// to an sf-string, which RFC 9211 also allows for the identifier.
    static func token(_ name: String) -> String {
        HTTPToken.isStructuredToken(name) ? name : sfString(name)
    }
}
