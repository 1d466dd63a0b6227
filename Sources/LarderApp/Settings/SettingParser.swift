/// Turns the text of one setting into its typed value, once, at start.
///
/// The built-in parsers (sizes, seconds, integers in a range, booleans, choices, CIDR lists, text) are in
/// `SettingParser+Kinds.swift`.
public struct SettingParser<Value: Sendable>: Sendable {
    /// The placeholder of the value in usage lines (`size`).
    public let valueName: String
    private let body: @Sendable (String) throws(SettingRejection) -> Value

    /// Creates a parser.
    /// - Parameters:
    ///   - valueName: the placeholder of the value in usage lines.
    ///   - parse: the conversion; it throws a `SettingRejection` naming the offending text.
    public init(valueName: String, parse: @escaping @Sendable (String) throws(SettingRejection) -> Value) {
        self.valueName = valueName
        self.body = parse
    }

    /// Parses one text.
    /// - Parameter text: the value as given.
    /// - Returns: the typed value.
    /// - Throws: `SettingRejection` naming the offending text and what was expected.
    public func parse(_ text: String) throws(SettingRejection) -> Value {
        try body(text)
    }
}
