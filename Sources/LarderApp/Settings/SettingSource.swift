/// Where the text of a setting came from: error messages name it, so that an operator knows which of
/// the command line, the environment or the built-in default to fix.
public enum SettingSource: Sendable, Hashable, CustomStringConvertible {
    /// The command line, by flag (`--max-size`).
    case flag(String)
    /// The environment, by variable (`LARDER_MAX_SIZE`, or a deprecated name).
    case environment(String)
    /// Nothing was given: the declared default of this flag (`--max-size`).
    case defaultValue(String)

    /// How messages name the source: `--max-size`, `LARDER_MAX_SIZE` or `default of --max-size`.
    public var description: String {
        switch self {
        case .flag(let flag): flag
        case .environment(let variable): variable
        case .defaultValue(let flag): "default of \(flag)"
        }
    }
}
