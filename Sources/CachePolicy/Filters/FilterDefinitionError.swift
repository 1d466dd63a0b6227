/// Why a filter definition was refused: the path of the offending field, as a reader would write it
/// (`filters[2].match.headers.User-Agent.contains`), and what is wrong with it. `/filters` answers it as
/// a 400 problem+json.
public struct FilterDefinitionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The field's path: `$` for the document itself, else dotted names and `[index]` steps.
    public var path: String
    /// What is wrong, e.g. `must be a string, not a number`.
    public var message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - path: The field's path.
    ///   - message: What is wrong with it.
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// `path: message`.
    public var description: String { "\(path): \(message)" }
}
