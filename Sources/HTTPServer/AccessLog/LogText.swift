/// Makes any text safe to write as one log line: a request, a peer or an error message cannot end
/// the line, forge the next one or send escape sequences to the terminal reading it.
public enum LogText {
    /// The text with every control character written as `\xHH` (C0 controls, DEL) or `\u{HHHH}` (C1
    /// controls U+0080–U+009F, which terminals also obey, e.g. U+009B as CSI). Other characters,
    /// non-ASCII ones included, are kept.
    /// - Parameter text: a message, metadata value or error description.
    /// - Returns: the text without control characters; the text itself when it had none.
    public static func escapingControlCharacters(_ text: String) -> String {
        func isControl(_ scalar: Unicode.Scalar) -> Bool {
            scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
        }
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        let hex = Array("0123456789ABCDEF")
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            if scalar.value < 0x80 && isControl(scalar) {
                out += "\\x"
                out.append(hex[Int(scalar.value >> 4)])
                out.append(hex[Int(scalar.value & 0xF)])
            } else if isControl(scalar) {
                out += "\\u{00"
                out.append(hex[Int(scalar.value >> 4)])
                out.append(hex[Int(scalar.value & 0xF)])
                out += "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
