/// The request line (RFC 9112 §3): `method SP request-target SP HTTP-version CRLF`.
extension HTTPRequestParser {
    /// Skips empty lines, then reads and checks the request line.
    mutating func readRequestLine(_ buffer: UnsafeBufferPointer<UInt8>) -> Step {
        // The LF may sit right after `maxRequestLineBytes` bytes and a CR, no later.
        let window = limits.maxRequestLineBytes.saturatingAdd(2)
        if let error = checkMethodBytes(buffer, window: window) { return .failure(error) }
        let lineFeed: Int
        switch scanLine(buffer, window: window) {
        case .incomplete: return .needMoreData
        case .tooLong: return fail(.uriTooLong, "request line longer than \(limits.maxRequestLineBytes) bytes")
        case .found(let index): lineFeed = index
        }
        let start = readIndex
        let hasCR = lineFeed > start && buffer[lineFeed - 1] == ASCII.cr
        let end = hasCR ? lineFeed - 1 : lineFeed
        if end - start > limits.maxRequestLineBytes {
            return fail(.uriTooLong, "request line longer than \(limits.maxRequestLineBytes) bytes")
        }
        if end == start {
            // RFC 9112 §2.2: empty lines before a request line are ignored, a few of them, a bare LF as
            // well as a CRLF (a sloppy client's leftover after a body; it cannot be mistaken for anything).
            guard message.emptyLinesSkipped < limits.maxEmptyLinesBeforeRequest else {
                return fail(.badRequest, "too many empty lines before the request line")
            }
            message.emptyLinesSkipped += 1
            consume(through: lineFeed + 1)
            return nil
        }
        guard hasCR else { return fail(.badRequest, "request line ends with a bare LF") }
        if let error = parseRequestLine(buffer, start..<end) { return .failure(error) }
        consume(through: lineFeed + 1)
        state = .fieldLines
        return nil
    }

    /// Checks the method bytes as they arrive, so that a client speaking TLS or another protocol is
    /// refused at its first byte rather than after a timeout. Stops at the first SP, CR or LF.
    private mutating func checkMethodBytes(_ buffer: UnsafeBufferPointer<UInt8>, window: Int) -> HTTPParseError? {
        guard methodScanIndex != .max else { return nil }
        let end = Swift.min(buffer.count, readIndex.saturatingAdd(window))
        var index = methodScanIndex
        while index < end {
            let byte = buffer[index]
            if byte == ASCII.space || byte == ASCII.cr || byte == ASCII.lf {
                methodScanIndex = .max
                return nil
            }
            guard HTTPByteClass.isToken(byte) else { return parseError(.badRequest, "invalid character in method") }
            index += 1
        }
        methodScanIndex = index
        return nil
    }

    /// Splits and checks a complete request line; fills in the method, target and version.
    private mutating func parseRequestLine(_ buffer: UnsafeBufferPointer<UInt8>, _ line: Range<Int>) -> HTTPParseError?
    {
        var firstSpace = line.lowerBound
        while firstSpace < line.upperBound, buffer[firstSpace] != ASCII.space { firstSpace += 1 }
        guard buffer.isToken(line.lowerBound..<firstSpace) else {
            return parseError(.badRequest, "request line does not start with a method token")
        }
        var secondSpace = firstSpace + 1
        while secondSpace < line.upperBound, buffer[secondSpace] != ASCII.space { secondSpace += 1 }
        guard firstSpace < line.upperBound, secondSpace < line.upperBound, secondSpace > firstSpace + 1 else {
            return parseError(.badRequest, "request line is not method, target and version separated by single spaces")
        }
        let versionRange = (secondSpace + 1)..<line.upperBound
        guard let version = parseVersion(buffer, versionRange) else {
            return parseError(.badRequest, "malformed HTTP version")
        }
        guard version == .http1_1 || version == .http1_0 else {
            return parseError(.httpVersionNotSupported, "only HTTP/1.1 and HTTP/1.0 are supported")
        }
        let method = HTTPRequestParser.makeMethod(buffer, line.lowerBound..<firstSpace)
        if method == .connect {
            return parseError(.notImplemented, "CONNECT is not supported")
        }
        let targetRange = (firstSpace + 1)..<secondSpace
        message.method = method
        message.version = version
        message.target = String(decoding: UnsafeBufferPointer(rebasing: buffer[targetRange]), as: UTF8.self)
        return parseTarget(buffer, targetRange, method: method)
    }

    /// `HTTP-version = "HTTP/" DIGIT "." DIGIT` (RFC 9112 §2.3), case-sensitive.
    private func parseVersion(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> HTTPVersion? {
        guard range.count == 8 else { return nil }
        let base = range.lowerBound
        guard buffer[base] == 0x48, buffer[base + 1] == 0x54, buffer[base + 2] == 0x54, buffer[base + 3] == 0x50,
            buffer[base + 4] == ASCII.slash, HTTPByteClass.isDigit(buffer[base + 5]), buffer[base + 6] == ASCII.period,
            HTTPByteClass.isDigit(buffer[base + 7])
        else { return nil }
        return HTTPVersion(major: Int(buffer[base + 5] &- 0x30), minor: Int(buffer[base + 7] &- 0x30))
    }

    /// The method, reusing the common constants so the hot path builds no string for them.
    private static func makeMethod(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> HTTPMethod {
        if range.count == 3, buffer[range.lowerBound] == 0x47, buffer[range.lowerBound + 1] == 0x45,
            buffer[range.lowerBound + 2] == 0x54
        {
            return .get
        }
        if range.count == 4, buffer[range.lowerBound] == 0x48, buffer[range.lowerBound + 1] == 0x45,
            buffer[range.lowerBound + 2] == 0x41, buffer[range.lowerBound + 3] == 0x44
        {
            return .head
        }
        return HTTPMethod(rawValue: String(decoding: UnsafeBufferPointer(rebasing: buffer[range]), as: UTF8.self))
    }

    /// Checks the request target's form (RFC 9112 §3.2): origin-form, absolute-form (http or https),
    /// or asterisk-form for OPTIONS only.
    private mutating func parseTarget(
        _ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, method: HTTPMethod
    ) -> HTTPParseError? {
        let first = buffer[range.lowerBound]
        if first == ASCII.slash {
            guard let pathEnd = URIGrammar.pathEnd(buffer, range) else {
                return parseError(.badRequest, "invalid character or escape in request target")
            }
            if pathEnd == range.upperBound {
                message.path = message.target
            } else {
                message.path = String(
                    decoding: UnsafeBufferPointer(rebasing: buffer[range.lowerBound..<pathEnd]), as: UTF8.self)
                message.query = String(
                    decoding: UnsafeBufferPointer(rebasing: buffer[(pathEnd + 1)..<range.upperBound]), as: UTF8.self)
            }
            return nil
        }
        if first == ASCII.asterisk && range.count == 1 {
            guard method == .options else { return parseError(.badRequest, "asterisk-form target is only for OPTIONS") }
            message.path = message.target
            return nil
        }
        return parseAbsoluteTarget(buffer, range)
    }

    /// `absolute-form = absolute-URI` for the http and https schemes; userinfo is refused
    /// (RFC 9110 §4.2.4) and the authority must be a valid `uri-host [ ":" port ]`.
    private mutating func parseAbsoluteTarget(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>)
        -> HTTPParseError?
    {
        var index = range.lowerBound
        while index < range.upperBound, buffer[index] != ASCII.colon { index += 1 }
        let scheme = range.lowerBound..<index
        guard buffer.equalsLowercased(scheme, "http") || buffer.equalsLowercased(scheme, "https") else {
            return parseError(.badRequest, "request target is neither origin-form nor an http(s) absolute-form")
        }
        guard range.upperBound - index >= 3, buffer[index + 1] == ASCII.slash, buffer[index + 2] == ASCII.slash else {
            return parseError(.badRequest, "absolute-form target without an authority")
        }
        let authorityStart = index + 3
        var authorityEnd = authorityStart
        while authorityEnd < range.upperBound, buffer[authorityEnd] != ASCII.slash,
            buffer[authorityEnd] != ASCII.question
        {
            if buffer[authorityEnd] == ASCII.at { return parseError(.badRequest, "userinfo in request target") }
            authorityEnd += 1
        }
        let authority = authorityStart..<authorityEnd
        guard URIGrammar.isHostAndPort(buffer, authority) else {
            return parseError(.badRequest, "invalid authority in request target")
        }
        // path-abempty [ "?" query ]; an empty path is "/" (RFC 9112 §3.2.1).
        let rest = authorityEnd..<range.upperBound
        var queryStart = rest.upperBound
        if !rest.isEmpty {
            if buffer[rest.lowerBound] == ASCII.slash {
                guard let pathEnd = URIGrammar.pathEnd(buffer, rest) else {
                    return parseError(.badRequest, "invalid character or escape in request target")
                }
                queryStart = pathEnd
            } else {
                guard URIGrammar.isQuery(buffer, (rest.lowerBound + 1)..<rest.upperBound) else {
                    return parseError(.badRequest, "invalid character or escape in request target")
                }
                queryStart = rest.lowerBound
            }
        }
        message.path =
            queryStart == rest.lowerBound
            ? "/" : String(decoding: UnsafeBufferPointer(rebasing: buffer[rest.lowerBound..<queryStart]), as: UTF8.self)
        if queryStart < rest.upperBound {
            message.query = String(
                decoding: UnsafeBufferPointer(rebasing: buffer[(queryStart + 1)..<rest.upperBound]), as: UTF8.self)
        }
        message.absoluteAuthority = String(decoding: UnsafeBufferPointer(rebasing: buffer[authority]), as: UTF8.self)
        return nil
    }
}
