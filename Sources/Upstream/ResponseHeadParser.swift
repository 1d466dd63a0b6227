import HTTPCore

/// Builds the final response head from the lines libcurl's header callback hands over one by one
/// (https://curl.se/libcurl/c/CURLOPT_HEADERFUNCTION.html): status lines of every response (1xx
/// included), field lines, the empty line ending each head, and trailer lines after the body.
struct ResponseHeadParser {
    /// What one line completed.
    enum Outcome: Equatable {
        /// Nothing yet (a field line, an interim 1xx head, or a trailer).
        case needMore
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
    private var fields: [(String, String)] = []

    /// Consumes one line as libcurl delivered it (with its CRLF).
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
            fields[fields.count - 1].1 += " " + String(decoding: bytes, as: UTF8.self).trimmedHTTPWhitespace
            return .needMore
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0 else {
            return .malformed("field line without a name and colon")
        }
        let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[0..<colon]), as: UTF8.self)
        let value = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(colon + 1)...]), as: UTF8.self)
        fields.append((name, value.trimmedHTTPWhitespace))
        return .needMore
    }

    private mutating func startHead(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        // status-line = HTTP-version SP status-code SP [ reason-phrase ]; HTTP/2 appears as "HTTP/2 200".
        let text = String(decoding: bytes, as: UTF8.self)
        let parts = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[1].utf8.count == 3, let code = Int(parts[1]), (100...999).contains(code) else {
            return .malformed("bad status line")
        }
        let versionText = parts[0].dropFirst(5)
        let numbers = versionText.split(separator: ".").compactMap { Int($0) }
        version = HTTPVersion(major: numbers.first ?? 1, minor: numbers.count > 1 ? numbers[1] : 0)
        status = code
        reasonPhrase = parts.count > 2 ? String(parts[2]) : ""
        fields = []
        return .needMore
    }

    private mutating func finishHead() -> Outcome {
        guard let status else { return .malformed("empty line before the status line") }
        if (100..<200).contains(status) {
            // An interim response (RFC 9110 §15.2): wait for the final one.
            self.status = nil
            fields = []
            return .needMore
        }
        isComplete = true
        return .head(
            OriginResponseHead(
                status: status, reasonPhrase: reasonPhrase, headers: HTTPHeaders(fields), version: version))
    }
}

extension String {
    fileprivate var trimmedHTTPWhitespace: String { self[...].trimmingHTTPWhitespace() }
}
