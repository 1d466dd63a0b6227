import Synchronization

/// The identifier of one request, for logs, the origin and the caller: the caller's `X-Request-Id` when
/// it is usable (1 to 128 visible ASCII characters, RFC 9110 §5.6.2's VCHAR without the obs-text), or
/// one made here.
///
/// A made identifier is a UUID of version 8 (RFC 9562 §5.8): 58 bits of a per-process random prefix
/// and 62 bits of a per-process counter, so it costs a counter increment rather than a random draw,
/// and is unique across processes with the odds of the prefix. Its text is only spelled out when a
/// header, a log line or a problem needs it; the first 19 characters, fixed per process, are kept
/// ready.
public struct HTTPRequestID: Sendable, Equatable, CustomStringConvertible {
    /// The field's name.
    public static let fieldName = "X-Request-Id"
    /// The longest identifier taken from a caller.
    public static let maximumLength = 128

    /// The made identifier's counter value (0 for a caller's).
    private let number: UInt64
    /// The caller's identifier, `nil` for a made one. A struct of two fields rather than an enum: it is
    /// copied into the connection and the handler's context on every request, and a plain optional copies
    /// with fewer instructions than a multi-payload enum.
    private let given: String?

    /// The caller's identifier when usable, else a new one.
    /// - Parameter headers: the request's fields.
    public init(headers: HTTPHeaders) {
        if let given = headers.requestIDValue, Self.isUsable(given) {
            self.init(number: 0, given: given)
        } else {
            self.init()
        }
    }

    /// A new identifier.
    public init() {
        self.init(number: Self.counter.wrappingAdd(1, ordering: .relaxed).newValue, given: nil)
    }

    private init(number: UInt64, given: String?) {
        self.number = number
        self.given = given
    }

    /// An identifier taken as given, when usable.
    /// - Parameter text: the candidate.
    public init?(_ text: String) {
        guard Self.isUsable(text) else { return nil }
        self.init(number: 0, given: text)
    }

    /// Whether `text` has 1 to 128 bytes, each a visible ASCII character (0x21 to 0x7E).
    public static func isUsable(_ text: String) -> Bool {
        let bytes = text.utf8
        return !bytes.isEmpty && bytes.count <= maximumLength && bytes.allSatisfy { $0 >= 0x21 && $0 <= 0x7E }
    }

    /// The identifier's text.
    public var description: String {
        if let given { return given }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 36) { buffer in
            let count = Self.spell(number, into: UnsafeMutableRawBufferPointer(buffer))
            return String(
                decoding: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<count]), as: UTF8.self)
        }
    }

    /// The identifier as a URI for problem details' `instance` (RFC 9457 §3.1.5): `urn:uuid:…` (RFC 9562
    /// §4) for a made identifier or a caller's UUID, otherwise a tag URI (RFC 4151) holding the caller's
    /// text percent-encoded.
    public var uri: String {
        let text = description
        if given == nil { return "urn:uuid:" + text }
        if Self.isUUID(text) { return "urn:uuid:" + text.lowercased() }
        return "tag:larder.dev,2026:request-id:" + text.percentEncoded()
    }

    /// Appends `X-Request-Id: <id>` and CRLF to a response head.
    /// - Parameter out: the head being written.
    public func appendField(to out: inout [UInt8]) {
        if let given {
            withUnsafeBytes(of: Self.made.field) { out.append(contentsOf: $0[0..<14]) }
            out.append(contentsOf: given.utf8)
            out.append(13)
            out.append(10)
            return
        }
        // One append of the whole line: 14 + 19 bytes fixed per process, 17 spelled, CRLF.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 52) { buffer in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            withUnsafeBytes(of: Self.made.field) { raw.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[0..<33])) }
            Self.spellCounter(number, into: UnsafeMutableRawBufferPointer(rebasing: raw[33..<50]))
            raw[50] = 13
            raw[51] = 10
            out.append(contentsOf: buffer)
        }
    }

    // MARK: Made identifiers

    private static let counter = Atomic<UInt64>(0)

    /// The per-process part, in plain bytes (no array to retain on every response): `X-Request-Id: `
    /// followed by the first 19 characters of every made identifier (time_low, time_mid, the version
    /// nibble 8 with three random digits, each followed by its dash), padded to 40 bytes.
    private static let made: (field: (UInt64, UInt64, UInt64, UInt64, UInt64), textOffset: Int) = {
        var generator = SystemRandomNumberGenerator()
        let random = generator.next() as UInt64
        var text = Array("\(fieldName): ".utf8)
        let offset = text.count
        text += hexDigits(random >> 32, count: 8) + Array("-".utf8)
        text += hexDigits((random >> 16) & 0xFFFF, count: 4) + Array("-".utf8)
        text += hexDigits(0x8000 | (random & 0x0FFF), count: 4) + Array("-".utf8)
        text += Array(repeating: 0, count: 40 - text.count)
        var field: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &field) { $0.copyBytes(from: text) }
        return (field, offset)
    }()

    /// Writes the 36 characters of a made identifier; returns 36.
    private static func spell(_ number: UInt64, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        withUnsafeBytes(of: made.field) {
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[made.textOffset..<(made.textOffset + 19)]))
        }
        spellCounter(number, into: UnsafeMutableRawBufferPointer(rebasing: buffer[19..<36]))
        return 36
    }

    /// Writes the last 17 characters: the variant bits `10` and 14 bits of the counter, a dash, 48 more
    /// bits of it (RFC 9562 §4.1: clock_seq and node).
    private static func spellCounter(_ number: UInt64, into buffer: UnsafeMutableRawBufferPointer) {
        let high = 0x8000 | ((number >> 48) & 0x3FFF)
        // Four digits of `high`, then twelve of the low 48 bits: two words of eight hex digits each,
        // the first one's upper half being the variant group.
        let first = hexWord(UInt32(truncatingIfNeeded: (high << 16) | ((number >> 32) & 0xFFFF)))
        let second = hexWord(UInt32(truncatingIfNeeded: number))
        withUnsafeBytes(of: first) { digits in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: digits[0..<4]))
            UnsafeMutableRawBufferPointer(rebasing: buffer[5..<9]).copyMemory(
                from: UnsafeRawBufferPointer(rebasing: digits[4..<8]))
        }
        buffer[4] = UInt8(ascii: "-")
        withUnsafeBytes(of: second) { UnsafeMutableRawBufferPointer(rebasing: buffer[9..<17]).copyMemory(from: $0) }
    }

    /// The eight lower-case hex digits of `value`, most significant first, as the bytes of a word in
    /// memory order: the nibbles are spread one per byte and turned into ASCII without a branch.
    static func hexWord(_ value: UInt32) -> UInt64 {
        var spread = UInt64(value)
        spread = (spread | (spread << 16)) & 0x0000_FFFF_0000_FFFF
        spread = (spread | (spread << 8)) & 0x00FF_00FF_00FF_00FF
        spread = (spread | (spread << 4)) & 0x0F0F_0F0F_0F0F_0F0F
        // Byte k now holds nibble k; 10 to 15 get 0x27 more to land on 'a' to 'f'.
        let letters = ((spread &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
        let ascii = spread &+ 0x3030_3030_3030_3030 &+ letters &* 0x27
        // Nibble 7 must come first in memory.
        return ascii.bigEndian
    }

    private static func hexDigits(_ value: UInt64, count: Int) -> [UInt8] {
        let hex = Array("0123456789abcdef".utf8)
        return (0..<count).reversed().map { hex[Int((value >> (4 * UInt64($0))) & 0xF)] }
    }

    // MARK: URIs

    /// Whether `text` is a UUID's 8-4-4-4-12 hex form.
    static func isUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x66) else {
                    return false
                }
            }
        }
        return true
    }
}
