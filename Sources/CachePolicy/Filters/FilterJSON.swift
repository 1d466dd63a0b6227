internal import HTTPCore

/// A parsed JSON value ([RFC 8259](https://www.rfc-editor.org/rfc/rfc8259)) as filter decoding needs it:
/// object members keep their order, numbers keep their text (so `1.0` can be told from `1`), and a
/// boolean is never a number. Used only when filters are read or written, never per request.
indirect enum FilterJSON: Equatable, Sendable {
    case null
    case bool(Bool)
    /// The number exactly as written.
    case number(String)
    case string(String)
    case array([FilterJSON])
    /// Members in document order; duplicate names are refused by the parser.
    case object([(name: String, value: FilterJSON)])

    static func == (lhs: FilterJSON, rhs: FilterJSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.elementsEqual(b) { $0.name == $1.name && $0.value == $1.value }
        default: false
        }
    }

    /// The JSON type's name, for "must be a string, not a number" messages.
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Compact JSON text; members in the order held, strings escaped.
    var text: String {
        var out = ""
        write(into: &out)
        return out
    }

    private func write(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .number(let text): out += text
        case .string(let value): out += value.jsonQuoted
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(into: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { out += "," }
                out += member.name.jsonQuoted
                out += ":"
                member.value.write(into: &out)
            }
            out += "}"
        }
    }
}
