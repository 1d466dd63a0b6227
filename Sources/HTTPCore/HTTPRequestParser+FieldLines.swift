/// Field lines of the header and trailer sections (RFC 9112 §5, RFC 9110 §5.5).
extension HTTPRequestParser {
    /// What reading one line of a field section found.
    enum FieldLineEvent {
        case needMoreData
        /// The empty line that ends the section; it has been consumed.
        case endOfSection
        /// A well-formed field line; `size` counts its CRLF, `next` is the index after its LF.
        case field(name: Range<Int>, value: Range<Int>, size: Int, next: Int)
        case failure(HTTPParseError)
    }

    /// Reads one field line of the header section and records it.
    mutating func readFieldLine(_ buffer: UnsafeBufferPointer<UInt8>) -> Step {
        let event = scanFieldLine(
            buffer, used: message.headerBytes, limit: limits.maxHeaderBytes, tooLarge: .requestHeaderFieldsTooLarge,
            section: "header section", isFull: fields.count >= limits.maxHeaderCount)
        switch event {
        case .needMoreData: return .needMoreData
        case .failure(let error): return .failure(error)
        case .endOfSection: return finishHead()
        case .field(let name, let value, let size, let next):
            message.headerBytes += size
            recordFramingField(buffer, name: name, value: value)
            fields.append(
                HTTPHeaders.Field(
                    name: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: buffer[name])),
                    value: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: buffer[value]))))
            consume(through: next)
            return nil
        }
    }

    /// Reads one trailer field line (RFC 9112 §7.1.2). Trailer fields are checked like header fields
    /// and then dropped: none of them may change framing, and Larder's handlers read none.
    mutating func readTrailerLine(_ buffer: UnsafeBufferPointer<UInt8>) -> Step {
        let event = scanFieldLine(
            buffer, used: message.trailerBytes, limit: limits.maxTrailerBytes, tooLarge: .requestHeaderFieldsTooLarge,
            section: "trailer section", isFull: false)
        switch event {
        case .needMoreData: return .needMoreData
        case .failure(let error): return .failure(error)
        case .endOfSection: return completeRequest()
        case .field(_, _, let size, let next):
            message.trailerBytes += size
            consume(through: next)
            return nil
        }
    }

    /// Finds and checks the next line of a field section whose lines so far took `used` of `limit` bytes.
    /// Size and count are checked before syntax, at positions that do not depend on how bytes arrive.
    mutating func scanFieldLine(
        _ buffer: UnsafeBufferPointer<UInt8>, used: Int, limit: Int, tooLarge: HTTPStatus, section: String,
        isFull: Bool
    ) -> FieldLineEvent {
        let start = readIndex
        if start < buffer.count, buffer[start] == ASCII.cr {
            guard start + 1 < buffer.count else { return .needMoreData }
            guard buffer[start + 1] == ASCII.lf else {
                return .failure(HTTPParseError(status: .badRequest, reason: "bare CR in \(section)"))
            }
            consume(through: start + 2)
            return .endOfSection
        }
        // A line of n bytes takes n + 2 with its CRLF, so its LF may sit at most `limit - used - 1` bytes in.
        let lineFeed: Int
        switch scanLine(buffer, window: Swift.max(1, limit - used)) {
        case .incomplete: return .needMoreData
        case .tooLong: return .failure(HTTPParseError(status: tooLarge, reason: "\(section) too large"))
        case .found(let index): lineFeed = index
        }
        let hasCR = lineFeed > start && buffer[lineFeed - 1] == ASCII.cr
        let end = hasCR ? lineFeed - 1 : lineFeed
        let size = end - start + 2
        if size > limit - used {
            return .failure(HTTPParseError(status: tooLarge, reason: "\(section) too large"))
        }
        guard hasCR else { return .failure(HTTPParseError(status: .badRequest, reason: "bare LF in \(section)")) }
        if isFull {
            return .failure(HTTPParseError(status: tooLarge, reason: "too many fields in \(section)"))
        }
        switch HTTPRequestParser.splitFieldLine(buffer, start..<end) {
        case .success(let parts): return .field(name: parts.name, value: parts.value, size: size, next: lineFeed + 1)
        case .failure(let error): return .failure(error)
        }
    }

    /// Splits `field-name ":" OWS field-value OWS` and checks both parts. Whitespace at the start of a
    /// line (obs-fold, RFC 9112 §5.2) or before the colon (§5.1) is an error, as is any control byte other
    /// than HTAB in the value (RFC 9110 §5.5).
    static func splitFieldLine(
        _ buffer: UnsafeBufferPointer<UInt8>, _ line: Range<Int>
    ) -> Result<(name: Range<Int>, value: Range<Int>), HTTPParseError> {
        func invalid(_ reason: String) -> Result<(name: Range<Int>, value: Range<Int>), HTTPParseError> {
            .failure(HTTPParseError(status: .badRequest, reason: reason))
        }
        if HTTPByteClass.isWhitespace(buffer[line.lowerBound]) {
            return invalid("obsolete line folding or whitespace at the start of a field line")
        }
        var index = line.lowerBound
        while index < line.upperBound {
            let byte = buffer[index]
            if byte == ASCII.colon { break }
            guard HTTPByteClass.isToken(byte) else {
                return invalid(
                    HTTPByteClass.isWhitespace(byte)
                        ? "whitespace between a field name and its colon" : "invalid character in a field name")
            }
            index += 1
        }
        guard index < line.upperBound else { return invalid("field line without a colon") }
        guard index > line.lowerBound else { return invalid("empty field name") }
        let name = line.lowerBound..<index
        let value = buffer.trimmingWhitespace((index + 1)..<line.upperBound)
        if let position = SWAR.firstInvalidFieldValueByte(in: buffer, value) {
            return invalid(
                buffer[position] == ASCII.cr ? "bare CR in a field value" : "control character in a field value")
        }
        return .success((name, value))
    }
}
