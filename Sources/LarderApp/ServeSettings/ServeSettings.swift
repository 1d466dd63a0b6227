/// Every setting of `larder serve`, typed, grouped by concern; parsed once at start.
///
/// A setting is added by declaring one `@Setting` property in its group: the command line, the
/// environment overlay, `--help`, `larder settings` and README's table are all read from the groups.
/// A group is added by one property here.
public struct ServeSettings: Sendable {
    /// Where `serve` listens, its limits on requests and connections, and how long it drains.
    public let listening = ListeningSettings()
    /// What `serve` logs and how.
    public let logging = LoggingSettings()
    /// The SQLite cache file and its bound.
    public let store = StoreSettings()
    /// The origin client and `/fetch`.
    public let fetch = FetchSettings()
    /// The filter chain declared in a file.
    public let filters = FiltersSettings()
    /// Who may use `/fetch`: signed URLs and caller tokens.
    public let fetchAccess = FetchAccessSettings()
    /// Who may use the admin API.
    public let admin = AdminSettings()
    /// The store's background work.
    public let maintenance = MaintenanceSettings()

    /// The defaults; `resolve(flags:environment:)` reads real sources.
    public init() {}

    /// Resolves every setting: the flag wins over the environment, the environment over the default.
    /// - Parameters:
    ///   - flags: values from the command line, by flag without dashes (see `ServeArguments`).
    ///   - environment: the process environment.
    /// - Returns: the typed settings.
    /// - Throws: `SettingsError.invalidValues` naming every value that does not parse and where it came
    ///   from.
    public static func resolve(flags: [String: String], environment: [String: String]) throws(SettingsError) -> Self {
        try SettingResolution(flags: flags, environment: environment).run { Self() }
    }

    /// The groups in order, each with its title and settings.
    public static var groups: [(title: String, settings: [SettingDeclaration])] {
        let defaults = SettingResolution.$current.withValue(nil) { Self() }
        return Mirror(reflecting: defaults).children.compactMap { child in
            guard let group = child.value as? any SettingGroup else { return nil }
            let type = Swift.type(of: group)
            return (type.title, type.declarations)
        }
    }

    /// Every setting in the order help and the README list them.
    public static var declarations: [SettingDeclaration] { groups.flatMap(\.settings) }
}
