/// Reads `#cache-directive` lists byte by byte
/// ([RFC 9111 §5.2](https://www.rfc-editor.org/rfc/rfc9111#section-5.2),
/// [RFC 9110 §5.6](https://www.rfc-editor.org/rfc/rfc9110#section-5.6) for token and quoted-string).
/// It reads the field value's own UTF-8 storage, so it must not outlive the closure that lent it.
struct CacheControlParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Appends the directives of one field value.
    mutating func parse(into directives: inout [CacheControl.Directive]) {
        while true {
            skip { $0 == 0x20 || $0 == 0x09 || $0 == 0x2C }
            guard index < bytes.count else { return }
            let nameStart = index
            skip(while: HTTPByteClass.isToken)
            guard index > nameStart else {
                // Not even a name: the element is noise, drop it whole.
                skipToNextElement()
                continue
            }
            let name = String(asciiLowercasing: bytes[nameStart..<index])
            let nameEnd = index
            switch parseRestOfElement() {
            case .bare:
                directives.append(CacheControl.Directive(name: name))
            case .argument(let argument):
                directives.append(CacheControl.Directive(name: name, argument: argument))
            case .malformed:
                directives.append(CacheControl.Directive(name: name, isMalformed: true))
                // Rescan from the name so that quotes are paired the same way whatever failed.
                index = nameEnd
                skipToNextElement()
            }
        }
    }

    /// What follows a directive name.
    private enum ElementRest {
        case bare
        case argument(String)
        case malformed
    }

    /// Parses `[ "=" ( token / quoted-string ) ]` up to the next comma or the end.
    private mutating func parseRestOfElement() -> ElementRest {
        skipWhitespace()
        if atElementEnd { return .bare }
        guard bytes[index] == UInt8(ascii: "=") else { return .malformed }
        index += 1
        skipWhitespace()
        let value: String
        if index < bytes.count && bytes[index] == UInt8(ascii: "\"") {
            guard let quoted = parseQuotedString() else { return .malformed }
            value = quoted
        } else {
            let start = index
            skip(while: HTTPByteClass.isToken)
            guard index > start else { return .malformed }
            value = String(decoding: bytes[start..<index], as: UTF8.self)
        }
        skipWhitespace()
        return atElementEnd ? .argument(value) : .malformed
    }

    /// Parses a quoted-string starting at its opening quote, undoing quoted-pairs.
    private mutating func parseQuotedString() -> String? {
        bytes.quotedString(at: &index, text: Self.isQuotedTextByte, escapable: Self.isQuotedPairByte)
    }

    /// Moves past the current element to the next top-level comma, stepping over quoted strings so a
    /// comma inside quotes does not end the element.
    private mutating func skipToNextElement() {
        var inQuotes = false
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if inQuotes {
                if byte == UInt8(ascii: "\\") {
                    index += 1
                } else if byte == UInt8(ascii: "\"") {
                    inQuotes = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inQuotes = true
            } else if byte == UInt8(ascii: ",") {
                return
            }
        }
    }

    private var atElementEnd: Bool { index >= bytes.count || bytes[index] == UInt8(ascii: ",") }

    private mutating func skipWhitespace() {
        skip { $0 == 0x20 || $0 == 0x09 }
    }

    private mutating func skip(while predicate: (UInt8) -> Bool) {
        while index < bytes.count && predicate(bytes[index]) { index += 1 }
    }

    /// `qdtext` of RFC 9110 §5.6.4: HTAB, SP, visible ASCII but `"` and `\`, obs-text.
    private static func isQuotedTextByte(_ byte: UInt8) -> Bool {
        byte == 0x09 || byte == 0x20 || byte == 0x21 || (0x23...0x5B).contains(byte) || (0x5D...0x7E).contains(byte)
            || byte >= 0x80
    }

    /// The second byte of a `quoted-pair`: HTAB, SP, VCHAR, obs-text.
    private static func isQuotedPairByte(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x7E).contains(byte) || byte >= 0x80
    }
}
