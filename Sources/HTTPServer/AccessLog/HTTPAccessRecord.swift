public import HTTPCore

/// The facts of one answered request, for an access log line.
public struct HTTPAccessRecord: Sendable {
    /// The request method.
    public var method: HTTPMethod
    /// The request target as received (may hold any byte the parser accepted; escape before printing).
    public var target: String
    /// The response status code.
    public var status: Int
    /// Content bytes written (0 for HEAD and for bodies cut short).
    public var bytesSent: Int
    /// From the request being complete to the last byte written, in nanoseconds.
    public var durationNanoseconds: UInt64
    /// The response's `X-Cache` value, when it had one.
    public var cacheStatus: String?
    /// The client's address.
    public var remoteAddress: HTTPAddress
    /// Whether the response was cut short (the client vanished, the body source failed).
    public var aborted: Bool
    /// The request's identifier, as the response's `X-Request-Id` carries it.
    public var requestID = HTTPRequestID()

    /// The text with control bytes, non-ASCII bytes, backslashes and quotes written as `\xHH`, so a
    /// request cannot forge or break a log line.
    /// - Parameter text: a request target or header value.
    /// - Returns: printable ASCII only.
    public static func escapedForLog(_ text: String) -> String {
        func needsEscape(_ byte: UInt8) -> Bool {
            byte < 0x20 || byte >= 0x7F || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\"")
        }
        guard text.utf8.contains(where: needsEscape) else { return text }
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count * 2)
        for byte in text.utf8 {
            if needsEscape(byte) {
                out += [UInt8(ascii: "\\"), UInt8(ascii: "x"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
