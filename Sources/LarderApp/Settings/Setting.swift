/// One setting of `larder serve`, declared where its typed value lives:
///
/// ```swift
/// @Setting("max-size", default: "1G", .sizeBound, help: "Bound on the cache's size in bytes; 0 for none.")
/// public var maxSize: Int?
/// ```
///
/// That line is the whole declaration: the flag, its environment variable (`LARDER_MAX_SIZE`, derived
/// from the flag), the default, the help and the parser. The value is parsed when the enclosing settings
/// value is built by `SettingGroup.resolve` or `ServeSettings.resolve` (flag over environment over
/// default); outside those, a setting holds its default. `$maxSize` is the declaration.
@propertyWrapper
public struct Setting<Value: Sendable>: Sendable {
    /// The typed value.
    public let wrappedValue: Value
    /// The flag, variable, default and help.
    public let projectedValue: SettingDeclaration

    /// Declares a setting and resolves it from the current pass (or takes its default outside one).
    /// - Parameters:
    ///   - flag: the long flag without dashes; the environment variable is derived from it.
    ///   - defaultValue: the default as it would be typed; empty for none.
    ///   - parser: how the text becomes the value.
    ///   - repeatable: whether the flag may be given more than once (values joined by commas).
    ///   - deprecatedEnvironment: older names of the variable, still read, with a warning at start.
    ///   - summary: one line of help.
    public init(
        _ flag: String, default defaultValue: String, _ parser: SettingParser<Value>, repeatable: Bool = false,
        deprecatedEnvironment: [String] = [], help summary: String
    ) {
        let declaration = SettingDeclaration(
            flag: flag, defaultValue: defaultValue, summary: summary, valueName: parser.valueName,
            repeatable: repeatable, deprecatedEnvironment: deprecatedEnvironment)
        projectedValue = declaration
        if let resolution = SettingResolution.current {
            wrappedValue = resolution.value(of: declaration, parser: parser)
        } else {
            wrappedValue = SettingResolution.defaultValue(of: declaration, parser: parser)
        }
    }
}

/// A setting seen without its value type, so that the declarations of a group can be listed.
protocol DeclaredSetting {
    /// The flag, variable, default and help.
    var declaration: SettingDeclaration { get }
}

extension Setting: DeclaredSetting {
    var declaration: SettingDeclaration { projectedValue }
}
