/// Settings that belong to one concern (listening, logging, the store, …): a struct whose stored
/// properties are `@Setting`s, in the order help and the README list them.
public protocol SettingGroup: Sendable {
    /// The concern, as help and the README title it (`Store`).
    static var title: String { get }

    /// Builds the group; each `@Setting` resolves itself from the current pass, or takes its default
    /// outside one. Call `resolve(flags:environment:)` rather than this to read real sources.
    init()
}

extension SettingGroup {
    /// Resolves this group alone, for commands that share a few of `serve`'s settings (`larder stats`
    /// reads `--db` and `--max-size`).
    /// - Parameters:
    ///   - flags: values from the command line, by flag without dashes (`["db": "/tmp/x.db"]`).
    ///   - environment: the process environment.
    /// - Returns: the group, each setting from its flag, else its variable, else its default.
    /// - Throws: `SettingsError.invalidValues` with every value that did not parse.
    public static func resolve(
        flags: [String: String] = [:], environment: [String: String]
    ) throws(SettingsError) -> Self {
        try SettingResolution(flags: flags, environment: environment).run { Self() }
    }

    /// The group's settings in declaration order.
    public static var declarations: [SettingDeclaration] {
        // Built outside any pass: listing declarations must not read, or fail, a resolution under way.
        let defaults = SettingResolution.$current.withValue(nil) { Self() }
        return Mirror(reflecting: defaults).children.compactMap { ($0.value as? any DeclaredSetting)?.declaration }
    }
}
