/// Why `larder serve` cannot start with the settings it was given. Each message names the flag or variable
/// to fix and what it expected.
public enum SettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Values that do not parse; every one of them, in the order the settings are declared, so that one
    /// start names all there is to fix.
    case invalidValues([SettingRejection])
    /// A flag no setting declares, with the closest declared flag when one is close.
    case unknownFlag(String, suggestion: String?)
    /// A flag at the end of the command line, or followed by another flag, without its value.
    case missingValue(flag: String)
    /// An argument that is not a flag (`serve` takes no positional arguments).
    case unexpectedArgument(String)

    /// The message `larder serve` prints.
    public var description: String {
        switch self {
        case .invalidValues(let failures):
            failures.map(\.description).joined(separator: "\n")
        case .unknownFlag(let flag, let suggestion):
            "unknown flag '\(flag)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? "")
        case .missingValue(let flag):
            "missing value for '\(flag)'"
        case .unexpectedArgument(let argument):
            "unexpected argument '\(argument)'; every setting is a flag (--name value or --name=value)"
        }
    }
}
