/// What one setting is, apart from its value: its flag, its environment variable, its default and its
/// help. `--help`, the environment overlay, `larder settings` and README's table are all made from these.
public struct SettingDeclaration: Sendable, Hashable {
    /// The long flag without dashes (`max-size`).
    public let flag: String
    /// The environment variable: `LARDER_` and the flag in capitals, dashes as underscores
    /// (`LARDER_MAX_SIZE`), so that a flag and its variable can never drift apart.
    public let environment: String
    /// Older names of the variable, still read (after `environment`) with a warning at start.
    public let deprecatedEnvironment: [String]
    /// The default, as it would be typed; empty for none.
    public let defaultValue: String
    /// One line of help.
    public let summary: String
    /// The placeholder of the value in usage lines (`size`, `seconds`).
    public let valueName: String
    /// Whether the flag may be given more than once; its values are then joined with commas, as the
    /// environment variable writes them.
    public let repeatable: Bool

    /// Declares a setting.
    /// - Parameters:
    ///   - flag: the long flag without dashes.
    ///   - defaultValue: the default as it would be typed; empty for none.
    ///   - summary: one line of help.
    ///   - valueName: the placeholder of the value in usage lines.
    ///   - repeatable: whether the flag may be given more than once.
    ///   - deprecatedEnvironment: older names of the environment variable.
    public init(
        flag: String, defaultValue: String, summary: String, valueName: String, repeatable: Bool = false,
        deprecatedEnvironment: [String] = []
    ) {
        self.flag = flag
        self.environment = Self.environmentName(forFlag: flag)
        self.deprecatedEnvironment = deprecatedEnvironment
        self.defaultValue = defaultValue
        self.summary = summary
        self.valueName = valueName
        self.repeatable = repeatable
    }

    /// The flag as typed (`--max-size`).
    public var dashedFlag: String { "--\(flag)" }

    /// The default as help shows it: the value, or `none`.
    public var shownDefault: String { defaultValue.isEmpty ? "none" : defaultValue }

    /// `(env: LARDER_MAX_SIZE; default: 1G)`.
    public var environmentAndDefault: String { "(env: \(environment); default: \(shownDefault))" }

    /// The summary followed by the variable and the default, for commands that share this setting.
    public var help: String { "\(summary) \(environmentAndDefault)" }

    /// The environment variable that pairs with a flag.
    /// - Parameter flag: the long flag without dashes.
    /// - Returns: `LARDER_` and the flag in capitals, dashes as underscores.
    public static func environmentName(forFlag flag: String) -> String {
        "LARDER_" + flag.uppercased().replacing("-", with: "_")
    }
}
