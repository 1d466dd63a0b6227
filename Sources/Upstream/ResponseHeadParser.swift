import HTTPCore

/// Builds the final response head from the lines libcurl's header callback hands over one by one
/// (https://curl.se/libcurl/c/CURLOPT_HEADERFUNCTION.html): status lines of every response (1xx
/// included), field lines, the empty line ending each head, and trailer lines after the body.
struct ResponseHeadParser {
    /// What one line completed.
    enum Outcome: Equatable {
        /// Nothing yet (a field line, or a trailer).
        case needMore
        /// An interim (1xx) head is complete; the final one follows (RFC 9110 §15.2).
        case interim(OriginResponseHead)
        /// The final head is complete.
        case head(OriginResponseHead)
        /// The line cannot be part of a response head.
        case malformed(String)
    }

    /// Every byte of every head line seen, for the header size limit.
    private(set) var headerBytes = 0
    /// Whether the final head was returned; later lines are trailers and ignored.
    private(set) var isComplete = false
    private var status: Int?
    private var reasonPhrase = ""
    private var version = HTTPVersion.http1_1
    private var fields: [HTTPHeaders.Field] = []

    /// Consumes one line as libcurl delivered it (with its CRLF). Names and values are cut from the bytes
    /// and trimmed there, so each field costs two `String`s and nothing else (the name's signature is read
    /// from its bytes).
    mutating func consume(_ line: UnsafeRawBufferPointer) -> Outcome {
        headerBytes += line.count
        if isComplete { return .needMore }
        var end = line.count
        while end > 0 && (line[end - 1] == 0x0A || line[end - 1] == 0x0D) { end -= 1 }
        let bytes = UnsafeRawBufferPointer(rebasing: line[0..<end])
        if bytes.isEmpty { return finishHead() }
        if bytes.starts(with: "HTTP/".utf8) { return startHead(bytes) }
        guard status != nil else { return .malformed("field line before the status line") }
        if bytes[0] == 0x20 || bytes[0] == 0x09 {
            // obs-fold (RFC 9112 §5.2): a continuation joins the previous value with one space.
            guard !fields.isEmpty else { return .malformed("continuation before any field") }
            fields[fields.count - 1].value += " " + Self.text(Self.trimmed(bytes[...]))
            return .needMore
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0 else {
            return .malformed("field line without a name and colon")
        }
        fields.append(
            HTTPHeaders.Field(
                name: UnsafeRawBufferPointer(rebasing: bytes[0..<colon]),
                value: UnsafeRawBufferPointer(rebasing: Self.trimmed(bytes[(colon + 1)...]))))
        return .needMore
    }

    /// status-line = HTTP-version SP status-code SP [ reason-phrase ] (RFC 9112 §4); HTTP/2 appears as
    /// "HTTP/2 200". libcurl has parsed the line already; this reads what it needs from the bytes.
    private mutating func startHead(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        guard let firstSpace = bytes.firstIndex(of: 0x20) else { return .malformed("bad status line") }
        let codeEnd = bytes[(firstSpace + 1)...].firstIndex(of: 0x20) ?? bytes.endIndex
        let code = bytes[(firstSpace + 1)..<codeEnd]
        guard code.count == 3, code.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), code[code.startIndex] != 0x30 else {
            return .malformed("bad status line")
        }
        // "HTTP/" major [ "." minor ]; a part that is not a number is left at its default.
        let versionBytes = bytes[5..<firstSpace]
        let dot = versionBytes.firstIndex(of: UInt8(ascii: ".")) ?? versionBytes.endIndex
        let major = Self.number(versionBytes[versionBytes.startIndex..<dot]) ?? 1
        let minor = dot < versionBytes.endIndex ? Self.number(versionBytes[(dot + 1)...]) ?? 0 : 0
        version = HTTPVersion(major: major, minor: minor)
        status = code.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        reasonPhrase = codeEnd < bytes.endIndex ? Self.text(bytes[(codeEnd + 1)...]) : ""
        fields = []
        // An origin's head has about a dozen lines: room for them at once, not four regrowths.
        fields.reserveCapacity(16)
        return .needMore
    }

    /// The bytes without leading and trailing spaces and tabs (RFC 9110 §5.6.3 OWS).
    private static func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end && (bytes[start] == 0x20 || bytes[start] == 0x09) { start += 1 }
        while end > start && (bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09) { end -= 1 }
        return bytes[start..<end]
    }

    private static func text(_ bytes: Slice<UnsafeRawBufferPointer>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes), as: UTF8.self)
    }

    /// A run of 1 to 4 ASCII digits, or `nil`.
    private static func number(_ bytes: Slice<UnsafeRawBufferPointer>) -> Int? {
        guard (1...4).contains(bytes.count), bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return bytes.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    private mutating func finishHead() -> Outcome {
        guard let status else { return .malformed("empty line before the status line") }
        var headers = HTTPHeaders(fields: fields)
        fields = []
        // The fields of the connection with the origin end here (RFC 9110 §7.6.1), removed once and in place:
        // the answer relayed and the entry stored each copied every field to drop them (nearly every origin
        // sends `Connection: keep-alive`), 2 000 instructions a copy.
        headers.removeHopByHop(OriginHeaderForwarding.hopByHopNames)
        let head = OriginResponseHead(status: status, reasonPhrase: reasonPhrase, headers: headers, version: version)
        if (100..<200).contains(status) {
            // An interim response (RFC 9110 §15.2): the final one follows.
            self.status = nil
            return .interim(head)
        }
        isComplete = true
        return .head(head)
    }
}
