/// Why a setting's text was refused: the offending text (the whole value, or one item of a list) and
/// what was expected instead.
public struct SettingRejection: Error, Sendable, Equatable {
    /// The text that was refused.
    public let text: String
    /// What a good value looks like, completing "is not …" (`a size in bytes (e.g. 500M, 2G)`).
    public let expected: String

    /// Creates a rejection.
    /// - Parameters:
    ///   - text: the text that was refused.
    ///   - expected: what a good value looks like, completing "is not …".
    public init(text: String, expected: String) {
        self.text = text
        self.expected = expected
    }
}
