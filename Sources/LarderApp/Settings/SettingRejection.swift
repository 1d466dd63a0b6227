/// Why a setting's text was refused: the offending text (the whole value, or one item of a list), what was
/// expected instead, and, once the resolution that read it has said, where the text came from.
public struct SettingRejection: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text that was refused.
    public let text: String
    /// What a good value looks like, completing "is not …" (`a size in bytes (e.g. 500M, 2G)`).
    public let expected: String
    /// Where the text came from: `nil` as a parser throws it (a parser sees only text), set by the
    /// resolution that gathers every refusal into `SettingsError.invalidValues`.
    public var source: SettingSource?

    /// Creates a rejection.
    /// - Parameters:
    ///   - text: the text that was refused.
    ///   - expected: what a good value looks like, completing "is not …".
    ///   - source: where the text came from, when known.
    public init(text: String, expected: String, source: SettingSource? = nil) {
        self.text = text
        self.expected = expected
        self.source = source
    }

    /// `LARDER_PORT: 'eighty' is not an integer in 0...65535` (without the source until it is known).
    public var description: String { (source.map { "\($0): " } ?? "") + "'\(text)' is not \(expected)" }
}
