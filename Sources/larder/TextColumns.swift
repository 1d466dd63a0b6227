/// The bits of text layout the operator commands print with (`stats`, `fanout`), without Foundation's
/// `padding(toLength:)` and `String(format:)`.
enum TextColumns {
    /// `text` followed by spaces up to `width` characters (unchanged when it is already as wide).
    static func padded(_ text: String, to width: Int) -> String {
        let count = text.count
        return count >= width ? text : text + String(repeating: " ", count: width - count)
    }

    /// A non-negative number with one decimal, rounded half away from zero (`12.3`, as `%.1f`).
    static func oneDecimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
