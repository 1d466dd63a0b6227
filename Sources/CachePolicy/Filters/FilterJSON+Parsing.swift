internal import HTTPCore

extension FilterJSON {
    /// How deep arrays and objects may nest; a filter needs four levels, so this only stops abuse.
    static let maximumDepth = 32

    /// Parses one JSON text (RFC 8259 §2), strictly: no trailing commas, comments, `NaN`, lone
    /// surrogates or duplicate member names; whitespace around the value only.
    ///
    /// - Parameter bytes: UTF-8 JSON text.
    /// - Returns: The value.
    /// - Throws: `FilterDefinitionError` at path `$` saying what is wrong and at which byte offset.
    static func parse(_ bytes: [UInt8]) throws(FilterDefinitionError) -> FilterJSON {
        var parser = Parser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.failure("unexpected text after the JSON value") }
        return value
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        func failure(_ message: String) -> FilterDefinitionError {
            FilterDefinitionError(path: "$", message: "invalid JSON at byte \(index): \(message)")
        }

        mutating func skipWhitespace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func value(depth: Int) throws(FilterDefinitionError) -> FilterJSON {
            guard depth < FilterJSON.maximumDepth else {
                throw failure("nested deeper than \(FilterJSON.maximumDepth)")
            }
            guard index < bytes.count else { throw failure("unexpected end") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
            default: throw failure("unexpected character")
            }
        }

        mutating func literal(_ word: String) throws(FilterDefinitionError) {
            let expected = Array(word.utf8)
            guard bytes.count - index >= expected.count, bytes[index..<(index + expected.count)].elementsEqual(expected)
            else { throw failure("unexpected character") }
            index += expected.count
        }

        mutating func object(depth: Int) throws(FilterDefinitionError) -> FilterJSON {
            index += 1
            var members: [(name: String, value: FilterJSON)] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    throw failure("expected a member name")
                }
                let name = try string()
                guard !members.contains(where: { $0.name == name }) else {
                    throw failure("duplicate member name \(name.jsonQuotedPrefix)")
                }
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':'") }
                index += 1
                skipWhitespace()
                members.append((name, try value(depth: depth + 1)))
                skipWhitespace()
                guard index < bytes.count else { throw failure("unexpected end") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard bytes[index] == UInt8(ascii: "}") else { throw failure("expected ',' or '}'") }
                index += 1
                return .object(members)
            }
        }

        mutating func array(depth: Int) throws(FilterDefinitionError) -> FilterJSON {
            index += 1
            var values: [FilterJSON] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(values)
            }
            while true {
                skipWhitespace()
                values.append(try value(depth: depth + 1))
                skipWhitespace()
                guard index < bytes.count else { throw failure("unexpected end") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard bytes[index] == UInt8(ascii: "]") else { throw failure("expected ',' or ']'") }
                index += 1
                return .array(values)
            }
        }

        /// `number = [ minus ] int [ frac ] [ exp ]` (RFC 8259 §6), kept as text.
        mutating func number() throws(FilterDefinitionError) -> String {
            let start = index
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("malformed number") }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else {
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard index < bytes.count, isDigit(bytes[index]) else { throw failure("malformed number") }
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                guard index < bytes.count, isDigit(bytes[index]) else { throw failure("malformed number") }
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        mutating func string() throws(FilterDefinitionError) -> String {
            index += 1
            var out: [UInt8] = []
            while true {
                guard index < bytes.count else { throw failure("unterminated string") }
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    guard let text = String(validating: out, as: UTF8.self) else {
                        throw failure("string is not UTF-8")
                    }
                    return text
                case UInt8(ascii: "\\"):
                    index += 1
                    try escape(into: &out)
                case 0x00..<0x20:
                    throw failure("control character in string")
                default:
                    out.append(byte)
                    index += 1
                }
            }
        }

        mutating func escape(into out: inout [UInt8]) throws(FilterDefinitionError) {
            guard index < bytes.count else { throw failure("unterminated string") }
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(byte)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar) {
                    guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    else { throw failure("lone surrogate") }
                    index += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw failure("lone surrogate") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(scalar) {
                    throw failure("lone surrogate")
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw failure("invalid escape") }
                out.append(contentsOf: Array(String(Character(unicode)).utf8))
            default:
                throw failure("invalid escape")
            }
        }

        mutating func hex4() throws(FilterDefinitionError) -> UInt32 {
            guard bytes.count - index >= 4 else { throw failure("invalid \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: throw failure("invalid \\u escape")
                }
                value = value << 4 | digit
                index += 1
            }
            return value
        }

        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    }
}

extension String {
    /// The first 40 characters, JSON-quoted, for messages that echo input.
    var jsonQuotedPrefix: String { String(prefix(40)).jsonQuoted }
}
