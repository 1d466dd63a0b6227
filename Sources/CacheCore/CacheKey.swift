import CCrypto
public import HTTPCore

/// The identity of a cached response: the SHA-256 of the canonical URL and the request headers its
/// `Vary` names, shown as 64 lowercase hex digits (RFC 9111 §2 primary key, §4.1 secondary key).
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
///
/// The digest is held as four big-endian words, so a key costs no allocation and hashes and compares in
/// four steps; the hex form is made when asked for (headers, logs, the admin API).
public struct CacheKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The digest's bytes 0–7, 8–15, 16–23 and 24–31, each read big-endian: comparing the words in
    /// order compares the digests byte by byte, which is the order of their hex forms.
    private let words: (UInt64, UInt64, UInt64, UInt64)

    /// Validates and wraps 64 hex digits (upper case is accepted).
    /// - Parameter hex: the candidate text.
    /// - Returns: `nil` unless it is exactly 64 hex digits.
    public init?(hex: String) {
        guard hex.utf8.count == 64 else { return nil }
        var words: [UInt64] = [0, 0, 0, 0]
        for (index, digit) in hex.utf8.enumerated() {
            guard let value = Self.hexValue(digit) else { return nil }
            words[index / 16] = words[index / 16] << 4 | UInt64(value)
        }
        self.words = (words[0], words[1], words[2], words[3])
    }

    /// Wraps 32 raw digest bytes.
    /// - Parameter bytes: exactly 32 bytes; `nil` otherwise.
    public init?(bytes: UnsafeRawBufferPointer) {
        guard bytes.count == 32 else { return nil }
        func word(_ at: Int) -> UInt64 { UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        words = (word(0), word(8), word(16), word(24))
    }

    /// Wraps 32 raw digest bytes.
    /// - Parameter bytes: exactly 32 bytes; `nil` otherwise.
    public init?(bytes: [UInt8]) {
        guard let key = bytes.withUnsafeBytes({ CacheKey(bytes: $0) }) else { return nil }
        self = key
    }

    /// The 32 raw digest bytes, as stored (half the size of the hex form).
    public var bytes: [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 32) { buffer, count in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            raw.storeBytes(of: words.0.bigEndian, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: words.1.bigEndian, toByteOffset: 8, as: UInt64.self)
            raw.storeBytes(of: words.2.bigEndian, toByteOffset: 16, as: UInt64.self)
            raw.storeBytes(of: words.3.bigEndian, toByteOffset: 24, as: UInt64.self)
            count = 32
        }
    }

    /// The digest's first 8 bytes read big-endian (the SQLite store's rowid).
    public var leadingWord: UInt64 { words.0 }

    /// The 64 lowercase hex digits.
    /// Written straight into the string's storage, a word at a time (every stored answer's `X-Cache-Key`
    /// needs one; the loop over an array of the words cost about 1 200 instructions).
    public var hex: String {
        String(unsafeUninitializedCapacity: 64) { buffer in
            let base = buffer.baseAddress!
            Self.writeHex(words.0, to: base)
            Self.writeHex(words.1, to: base + 16)
            Self.writeHex(words.2, to: base + 32)
            Self.writeHex(words.3, to: base + 48)
            return 64
        }
    }

    /// Writes `word`'s 16 hex digits, most significant first, lower case.
    private static func writeHex(_ word: UInt64, to destination: UnsafeMutablePointer<UInt8>) {
        for nibble in 0..<16 {
            let value = UInt8(truncatingIfNeeded: word >> UInt64(60 - 4 * nibble)) & 0x0F
            // '0'...'9' are 48...57, 'a'...'f' are 97...102.
            destination[nibble] = value < 10 ? 48 + value : 87 + value
        }
    }

    public var description: String { hex }

    public static func == (lhs: CacheKey, rhs: CacheKey) -> Bool {
        lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2
            && lhs.words.3 == rhs.words.3
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }

    public static func < (lhs: CacheKey, rhs: CacheKey) -> Bool {
        if lhs.words.0 != rhs.words.0 { return lhs.words.0 < rhs.words.0 }
        if lhs.words.1 != rhs.words.1 { return lhs.words.1 < rhs.words.1 }
        if lhs.words.2 != rhs.words.2 { return lhs.words.2 < rhs.words.2 }
        return lhs.words.3 < rhs.words.3
    }

    /// Computes the key of a canonical URL and the values of the request headers its response varies on.
    /// - Parameters:
    ///   - canonicalURL: the URL after the owning filter's canonicalization.
    ///   - varyingHeaders: each header the stored response's `Vary` names, with the request's value or
    ///     `nil` when the request lacks it. Empty for the primary key.
    /// - Returns: the key; see the type's documentation for the exact bytes hashed.
    public static func make(canonicalURL: String, varyingHeaders: [(name: String, value: String?)] = []) -> CacheKey {
        // libcrypto's SHA-256 (https://docs.openssl.org/3.0/man3/SHA256_Init/): a context on the stack,
        // no allocation, no provider lookup.
        var context = SHA256_CTX()
        SHA256_Init(&context)
        var url = canonicalURL
        url.withUTF8 { update(&context, UnsafeRawBufferPointer($0)) }
        if !varyingHeaders.isEmpty {
            // Each name once (its first value), lower-cased, in order: the key does not depend on how the
            // response spelled or ordered its Vary. The names usually come so (`Vary.keyPairs` lower-cases
            // them; one name is in order), and are then hashed as they are, piece by piece, with no copy.
            let headers = isNormalized(varyingHeaders) ? varyingHeaders : normalized(varyingHeaders)
            for header in headers {
                var name = header.name
                update(&context, separator)
                name.withUTF8 { update(&context, UnsafeRawBufferPointer($0)) }
                update(&context, separator)
                if let value = header.value {
                    var trimmed = Substring(value).trimmingHTTPWhitespace()
                    update(&context, present)
                    trimmed.withUTF8 { update(&context, UnsafeRawBufferPointer($0)) }
                } else {
                    update(&context, absent)
                }
            }
        }
        var digest: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &digest) { raw in
            _ = SHA256_Final(raw.baseAddress!.assumingMemoryBound(to: UInt8.self), &context)
        }
        // A SHA-256 digest is 32 bytes, so the key always exists.
        return withUnsafeBytes(of: digest) { CacheKey(bytes: $0) }!
    }

    private static func update(_ context: inout SHA256_CTX, _ bytes: UnsafeRawBufferPointer) {
        _ = SHA256_Update(&context, bytes.baseAddress, bytes.count)
    }

    private static func update(_ context: inout SHA256_CTX, _ bytes: StaticString) {
        _ = SHA256_Update(&context, bytes.utf8Start, bytes.utf8CodeUnitCount)
    }

    /// What the key hashes between a header's name and its value: a NUL before and after the name, then
    /// `=` and the value, or `!` for a header the request lacks.
    private static let separator: StaticString = "\0"
    private static let present: StaticString = "="
    private static let absent: StaticString = "!"

    /// Whether the names are as `normalized` leaves them: ASCII without capitals, strictly ascending.
    private static func isNormalized(_ headers: [(name: String, value: String?)]) -> Bool {
        var previous: String?
        for header in headers {
            guard header.name.utf8.allSatisfy({ $0 < 0x80 && !(0x41...0x5A).contains($0) }) else { return false }
            if let previous, !(previous < header.name) { return false }
            previous = header.name
        }
        return true
    }

    /// The headers lower-cased by name, the first of each name kept, ordered by name.
    private static func normalized(_ headers: [(name: String, value: String?)]) -> [(name: String, value: String?)] {
        var seen = Set<String>()
        return headers.map { (name: $0.name.lowercased(), value: $0.value) }
            .filter { seen.insert($0.name).inserted }
            .sorted { $0.name < $1.name }
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

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit &- UInt8(ascii: "A") &+ 10
        default: nil
        }
    }
}
