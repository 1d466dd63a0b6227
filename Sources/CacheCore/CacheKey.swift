import Crypto
public import HTTPCore

/// The identity of a cached response: the SHA-256 of the canonical URL and the request headers its
/// `Vary` names, as 64 lowercase hex digits (RFC 9111 §2 primary key, §4.1 secondary key).
///
/// The bytes hashed are, exactly:
///
///     canonicalURL (UTF-8)
///     for each varying header, sorted by lower-cased name, duplicates of a name dropped:
///         0x00  name lower-cased (UTF-8)  0x00  then either
///             0x3D '='  value with leading/trailing spaces and tabs removed (UTF-8)   when present
///             0x21 '!'                                                               when absent
///
/// A canonical URL never holds NUL and a field value never holds NUL (RFC 9110 §5.5), so the layout is
/// unambiguous; `=` versus `!` keeps "header sent empty" apart from "header not sent". With no varying
/// headers the key is the SHA-256 of the URL alone, which is also the URL's primary key.
public struct CacheKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The 64 lowercase hex digits.
    public let hex: String

    /// Validates and wraps 64 hex digits (upper case is folded to lower case).
    /// - Parameter hex: the candidate text.
    /// - Returns: `nil` unless it is exactly 64 hex digits.
    public init?(hex: String) {
        guard hex.utf8.count == 64 else { return nil }
        var folded = [UInt8]()
        folded.reserveCapacity(64)
        for byte in hex.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): folded.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): folded.append(byte | 0x20)
            default: return nil
            }
        }
        self.hex = String(decoding: folded, as: UTF8.self)
    }

    /// Wraps 32 raw digest bytes.
    /// - Parameter bytes: exactly 32 bytes; `nil` otherwise.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 32 else { return nil }
        self.hex = Self.hexString(bytes)
    }

    /// The 32 raw digest bytes, as stored (half the size of the hex form).
    public var bytes: [UInt8] {
        // Hot path (every lookup): decode from a contiguous copy rather than through String indices.
        let digits = Array(hex.utf8)
        var out = [UInt8](repeating: 0, count: 32)
        for index in 0..<32 {
            out[index] = Self.nibble(digits[2 * index]) << 4 | Self.nibble(digits[2 * index + 1])
        }
        return out
    }

    public var description: String { hex }

    public static func < (lhs: CacheKey, rhs: CacheKey) -> Bool { lhs.hex < rhs.hex }

    /// Computes the key of a canonical URL and the values of the request headers its response varies on.
    /// - Parameters:
    ///   - canonicalURL: the URL after the owning filter's canonicalization.
    ///   - varyingHeaders: each header the stored response's `Vary` names, with the request's value or
    ///     `nil` when the request lacks it. Empty for the primary key.
    /// - Returns: the key; see the type's documentation for the exact bytes hashed.
    public static func make(canonicalURL: String, varyingHeaders: [(name: String, value: String?)] = []) -> CacheKey {
        var hasher = SHA256()
        hasher.update(data: Array(canonicalURL.utf8))
        if !varyingHeaders.isEmpty {
            var seen = Set<String>()
            let normalised = varyingHeaders.map { (name: $0.name.lowercased(), value: $0.value) }
                .filter { seen.insert($0.name).inserted }
                .sorted { $0.name < $1.name }
            var bytes = [UInt8]()
            for header in normalised {
                bytes.append(0)
                bytes.append(contentsOf: header.name.utf8)
                bytes.append(0)
                if let value = header.value {
                    bytes.append(UInt8(ascii: "="))
                    bytes.append(contentsOf: Substring(value).trimmingHTTPWhitespace().utf8)
                } else {
                    bytes.append(UInt8(ascii: "!"))
                }
            }
            hasher.update(data: bytes)
        }
        return CacheKey(unchecked: hasher.finalize().withUnsafeBytes { hexString($0) })
    }

    /// Computes the secondary key of a request for a response that varies on `varyNames`.
    /// - Parameters:
    ///   - canonicalURL: the canonical URL.
    ///   - varyNames: the field names listed by the stored response's `Vary`.
    ///   - requestHeaders: the request's headers; several lines of one name are joined with ", ".
    /// - Returns: the key to look the variant up with.
    public static func make(canonicalURL: String, varyNames: [String], requestHeaders: HTTPHeaders) -> CacheKey {
        let headers = varyNames.map { name -> (name: String, value: String?) in
            let values = requestHeaders.values(for: name)
            return (
                name,
                values.isEmpty
                    ? nil
                    : values.map { Substring($0).trimmingHTTPWhitespace() }
                        .joined(separator: ", ")
            )
        }
        return make(canonicalURL: canonicalURL, varyingHeaders: headers)
    }

    private init(unchecked hex: String) { self.hex = hex }

    private static func nibble(_ digit: UInt8) -> UInt8 {
        digit <= UInt8(ascii: "9") ? digit &- UInt8(ascii: "0") : digit &- UInt8(ascii: "a") &+ 10
    }

    private static func hexString(_ bytes: some Collection<UInt8>) -> String {
        String(unsafeUninitializedCapacity: 2 * bytes.count) { buffer in
            var index = 0
            for byte in bytes {
                buffer[index] = hexDigits[Int(byte >> 4)]
                buffer[index + 1] = hexDigits[Int(byte & 0x0F)]
                index += 2
            }
            return index
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
