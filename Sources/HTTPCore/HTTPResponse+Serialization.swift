import Glibc
import Synchronization

extension HTTPResponse {
    /// How the content of a response is delimited on the wire (RFC 9112 §6.3).
    public enum Framing: Sendable, Equatable {
        /// No content and no `Content-Length` (1xx, 204, 304: RFC 9110 §8.6).
        case none
        /// `Content-Length: n`; for HEAD the length a GET would have, with no content following.
        case contentLength(Int)
        /// `Transfer-Encoding: chunked` (RFC 9112 §7.1).
        case chunked
        /// Neither header: the content ends when the connection closes (HTTP/1.0 streams).
        case closeDelimited
    }

    /// Writes the status line and header section of this response, ending with the empty line.
    ///
    /// The status line always says `HTTP/1.1` (RFC 9110 §6.2: a server sends its highest conforming
    /// version). The handler's own `Content-Length`, `Transfer-Encoding` and `Connection` fields are
    /// dropped and replaced by the ones `framing` and `connection` call for; `Date` is added when the
    /// handler did not set one (RFC 9110 §6.6.1), from a value cached per second. A response with a
    /// `preparedHead` has all of that done already: its bytes are copied and `framing` is not looked at.
    /// - Parameters:
    ///   - out: the buffer to append to; appended, never cleared.
    ///   - framing: how the content that follows is delimited.
    ///   - connection: the `Connection` field value to send (`close`, `keep-alive`), or `nil` for none.
    ///   - requestID: the request's identifier, sent as `X-Request-Id` (`nil`: none).
    public func serializeHead(
        into out: inout [UInt8], framing: Framing, connection: StaticString?, requestID: HTTPRequestID? = nil
    ) {
        if let preparedHead {
            out.append(contentsOf: preparedHead)
        } else {
            serializeFields(into: &out, framing: framing)
        }
        requestID?.appendField(to: &out)
        Self.finishHead(into: &out, connection: connection)
    }

    /// Writes the status line and every field but `Connection`: what
    /// ``serializeHead(into:framing:connection:requestID:)`` writes before the `Connection` field and the
    /// empty line. A cache keeps these bytes as a prepared
    /// head (``init(preparedHead:status:body:headers:)``); they hold this second's `Date`.
    /// - Parameters:
    ///   - out: the buffer to append to; appended, never cleared.
    ///   - framing: how the content that follows is delimited.
    public func serializeFields(into out: inout [UInt8], framing: Framing) {
        appendStatusLine(status, to: &out)
        var hasDate = false
        for field in headers {
            if isServerOwnedField(field.name) { continue }
            if !hasDate && field.name.equalsIgnoringASCIICase("Date") { hasDate = true }
            appendField(name: field.name, value: field.value, to: &out)
        }
        if !hasDate {
            HTTPResponseDateCache.shared.appendDateField(to: &out)
        }
        switch framing {
        case .none, .closeDelimited:
            break
        case .contentLength(let length):
            appendStatic("Content-Length: ", to: &out)
            appendDecimal(length, to: &out)
            out.append(13)
            out.append(10)
        case .chunked:
            appendStatic("Transfer-Encoding: chunked\r\n", to: &out)
        }
    }

    /// Ends a head: the `Connection` field when there is one, then the empty line.
    private static func finishHead(into out: inout [UInt8], connection: StaticString?) {
        if let connection {
            appendStatic("Connection: ", to: &out)
            appendStatic(connection, to: &out)
            out.append(13)
            out.append(10)
        }
        out.append(13)
        out.append(10)
    }

    /// The current second of the real-time clock, the one the `Date` field shows; a prepared head is
    /// rebuilt when it changes.
    /// - Returns: seconds since the epoch.
    public static func currentDateSecond() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int(now.tv_sec)
    }

    /// Writes this response as an interim one (RFC 9110 §15.2): the status line, the fields and the empty
    /// line, with neither `Date` nor framing nor `Connection` (a 1xx has no content, and the final response
    /// that follows says how the connection goes on).
    /// - Parameter out: the buffer to append to; appended, never cleared.
    public func serializeInterim(into out: inout [UInt8]) {
        precondition((100..<200).contains(status.code), "an interim response has a 1xx status")
        appendStatusLine(status, to: &out)
        for field in headers where !isServerOwnedField(field.name) {
            appendField(name: field.name, value: field.value, to: &out)
        }
        out.append(13)
        out.append(10)
    }

    /// Writes an interim `100 Continue` response (RFC 9110 §15.2.1).
    /// - Parameter out: the buffer to append to.
    public static func serializeContinue(into out: inout [UInt8]) {
        appendStatic("HTTP/1.1 100 Continue\r\n\r\n", to: &out)
    }

    /// Writes the size line of one chunk (RFC 9112 §7.1), preceded by the CRLF that ends the previous
    /// chunk's data when there was one.
    /// - Parameters:
    ///   - size: the chunk's data size in bytes; 0 writes the last chunk and the empty trailer section.
    ///   - afterData: whether a chunk with data came before, whose closing CRLF is still owed.
    ///   - out: the buffer to append to.
    public static func serializeChunkHeader(size: Int, afterData: Bool, into out: inout [UInt8]) {
        if afterData {
            out.append(13)
            out.append(10)
        }
        appendHex(size, to: &out)
        out.append(13)
        out.append(10)
        if size == 0 {
            out.append(13)
            out.append(10)
        }
    }
}

/// Whether the field is one the server writes itself from the framing it chose.
private func isServerOwnedField(_ name: String) -> Bool {
    // Cheap first test on length, so most fields cost one comparison.
    switch name.utf8.count {
    case 10: return name.equalsIgnoringASCIICase("Connection")
    // The server writes the request's own; one stored from an origin's answer is not replayed.
    case 12: return name.equalsIgnoringASCIICase("X-Request-Id")
    case 14: return name.equalsIgnoringASCIICase("Content-Length")
    case 17: return name.equalsIgnoringASCIICase("Transfer-Encoding")
    default: return false
    }
}

/// `name: value` and CRLF.
@inline(__always)
private func appendField(name: String, value: String, to out: inout [UInt8]) {
    appendUTF8(name, to: &out)
    out.append(UInt8(ascii: ":"))
    out.append(UInt8(ascii: " "))
    appendUTF8(value, to: &out)
    out.append(13)
    out.append(10)
}

/// A string's UTF-8 bytes, copied from its storage in one piece (a native or small string; others byte
/// by byte): the generic `append(contentsOf: text.utf8)` cost about 100 instructions a field part.
@inline(__always)
private func appendUTF8(_ text: String, to out: inout [UInt8]) {
    let copied: Void? = text.utf8.withContiguousStorageIfAvailable { out.append(contentsOf: $0) }
    if copied == nil { out.append(contentsOf: text.utf8) }
}

private func appendStatusLine(_ status: HTTPStatus, to out: inout [UInt8]) {
    appendStatic("HTTP/1.1 ", to: &out)
    appendDecimal(status.code, to: &out)
    out.append(UInt8(ascii: " "))
    appendUTF8(status.reasonPhrase, to: &out)
    out.append(13)
    out.append(10)
}

private func appendStatic(_ text: StaticString, to out: inout [UInt8]) {
    text.withUTF8Buffer { out.append(contentsOf: $0) }
}

private func appendDecimal(_ value: Int, to out: inout [UInt8]) {
    precondition(value >= 0, "negative length or code")
    var divisor = 1
    while divisor <= value / 10 { divisor *= 10 }
    var rest = value
    while divisor > 0 {
        out.append(UInt8(truncatingIfNeeded: rest / divisor) + 48)
        rest %= divisor
        divisor /= 10
    }
}

private func appendHex(_ value: Int, to out: inout [UInt8]) {
    precondition(value >= 0, "negative chunk size")
    let hexDigits: StaticString = "0123456789abcdef"
    var shift = (Int.bitWidth - value.leadingZeroBitCount + 3) / 4 * 4 - 4
    if shift < 0 { shift = 0 }
    hexDigits.withUTF8Buffer { table in
        while shift >= 0 {
            out.append(table[(value >> shift) & 0xF])
            shift -= 4
        }
    }
}

/// The `Date: <IMF-fixdate>\r\n` field line (RFC 9110 §5.6.7), formatted at most once per second
/// and shared by every connection.
private final class HTTPResponseDateCache: Sendable {
    static let shared = HTTPResponseDateCache()

    private struct Entry {
        var second: Int = -1
        var line: [UInt8] = []
    }

    private let entry = Mutex(Entry())

    func appendDateField(to out: inout [UInt8]) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let second = Int(now.tv_sec)
        entry.withLock { entry in
            if entry.second != second {
                entry.second = second
                entry.line.removeAll(keepingCapacity: true)
                appendStatic("Date: ", to: &entry.line)
                entry.line.append(contentsOf: HTTPDate(secondsSinceEpoch: Int64(second)).imfFixdate.utf8)
                entry.line.append(13)
                entry.line.append(10)
            }
            out.append(contentsOf: entry.line)
        }
    }
}
