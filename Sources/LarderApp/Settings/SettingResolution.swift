import Synchronization

/// One pass over the settings' sources: the flags given, then the environment, then the defaults.
///
/// A settings value is built inside `run(_:)`: each `@Setting` property resolves itself as it is
/// initialised, reading this pass from a task-local. That is what lets a setting be declared in one
/// place, its property, with no list of flags or initialiser that repeats it. Values that do not parse
/// are collected (their setting takes its default meanwhile), and `run` throws them all at the end.
final class SettingResolution: Sendable {
    /// The pass that `@Setting` initialisers read; `nil` outside `run(_:)`, where settings take their
    /// defaults.
    @TaskLocal static var current: SettingResolution?

    /// The command line's values, by flag without dashes (a repeatable flag's values joined by commas).
    let flags: [String: String]
    /// The process environment.
    let environment: [String: String]
    private let failures = Mutex<[SettingRejection]>([])

    /// Creates a pass.
    /// - Parameters:
    ///   - flags: the command line's values, by flag without dashes.
    ///   - environment: the process environment.
    init(flags: [String: String], environment: [String: String]) {
        self.flags = flags
        self.environment = environment
    }

    /// Builds a settings value with this pass's sources.
    /// - Parameter make: builds the value; its `@Setting` properties resolve themselves.
    /// - Returns: the value.
    /// - Throws: `SettingsError.invalidValues` with every value that did not parse.
    func run<Settings>(_ make: () -> Settings) throws(SettingsError) -> Settings {
        let settings = Self.$current.withValue(self) { make() }
        let failures = failures.withLock { $0 }
        guard failures.isEmpty else { throw .invalidValues(failures) }
        return settings
    }

    /// The text of a setting and where it came from: the flag wins over the environment (an empty
    /// variable counts as unset, as a shell's `VAR=` means), the current variable over a deprecated one,
    /// and either over the default.
    /// - Parameter declaration: the setting.
    /// - Returns: the text and its source.
    func text(of declaration: SettingDeclaration) -> (text: String, source: SettingSource) {
        if let value = flags[declaration.flag] { return (value, .flag(declaration.dashedFlag)) }
        for variable in [declaration.environment] + declaration.deprecatedEnvironment {
            if let value = environment[variable], !value.isEmpty { return (value, .environment(variable)) }
        }
        return (declaration.defaultValue, .defaultValue(declaration.dashedFlag))
    }

    /// Resolves one setting; a value that does not parse is recorded and the default stands in for it.
    /// - Parameters:
    ///   - declaration: the setting.
    ///   - parser: its parser.
    /// - Returns: the typed value.
    func value<Value>(of declaration: SettingDeclaration, parser: SettingParser<Value>) -> Value {
        let (text, source) = text(of: declaration)
        do {
            return try parser.parse(text)
        } catch {
            var rejection = error
            rejection.source = source
            failures.withLock { [rejection] in $0.append(rejection) }
            return Self.defaultValue(of: declaration, parser: parser)
        }
    }

    /// The parsed default of a setting.
    /// - Parameters:
    ///   - declaration: the setting.
    ///   - parser: its parser.
    /// - Returns: the typed default.
    static func defaultValue<Value>(of declaration: SettingDeclaration, parser: SettingParser<Value>) -> Value {
        do {
            return try parser.parse(declaration.defaultValue)
        } catch {
            // A declaration's own default is code, not input: the declarations' tests parse every one.
            preconditionFailure("\(SettingSource.defaultValue(declaration.dashedFlag)): \(error)")
        }
    }
}
