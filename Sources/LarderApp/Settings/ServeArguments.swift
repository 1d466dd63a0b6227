/// What `larder serve`'s command line asks for: its help, or settings by flag.
///
/// `serve` parses its own flags from the declarations rather than through ArgumentParser's `@Option`s,
/// which would need a property per flag: a second place each setting is written.
public enum ServeArguments: Sendable, Equatable {
    /// `-h` or `--help` was given (anywhere, as ArgumentParser does).
    case help
    /// The values given, by flag without dashes; a repeatable flag's values are joined by commas, and
    /// otherwise the last of a flag given twice wins.
    case flags([String: String])

    /// Parses `--name value` and `--name=value`.
    ///
    /// A value may start with one dash (`--max-size -1` is then refused as a size, not as a flag), but
    /// not with two: `--port --host x` lacks the port's value.
    /// - Parameters:
    ///   - arguments: the arguments after `serve`.
    ///   - declarations: the settings that exist.
    /// - Returns: `.help` or the flags given.
    /// - Throws: `SettingsError` for an unknown flag (with the closest one), a missing value or an
    ///   argument that is not a flag.
    public static func parse(
        _ arguments: [String], declarations: [SettingDeclaration]
    ) throws(SettingsError) -> ServeArguments {
        if arguments.contains(where: { $0 == "--help" || $0 == "-h" }) { return .help }
        let byFlag = Dictionary(declarations.map { ($0.flag, $0) }) { first, _ in first }
        var flags: [String: String] = [:]
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                if index < arguments.endIndex { throw .unexpectedArgument(arguments[index]) }
                break
            }
            guard argument.hasPrefix("-") else { throw .unexpectedArgument(argument) }
            let body = argument.dropFirst(argument.hasPrefix("--") ? 2 : 1)
            let name = String(body.prefix { $0 != "=" })
            guard argument.hasPrefix("--"), let declaration = byFlag[name] else {
                let typed = String(argument.prefix { $0 != "=" })
                let suggestion = ClosestName.suggestion(for: name, among: declarations.map(\.flag))
                throw .unknownFlag(typed, suggestion: suggestion.map { "--\($0)" })
            }
            let value: String
            if let equals = body.firstIndex(of: "=") {
                value = String(body[body.index(after: equals)...])
            } else {
                guard index < arguments.endIndex, !arguments[index].hasPrefix("--") else {
                    throw .missingValue(flag: declaration.dashedFlag)
                }
                value = arguments[index]
                index += 1
            }
            if declaration.repeatable, let earlier = flags[name] {
                flags[name] = earlier + "," + value
            } else {
                flags[name] = value
            }
        }
        return .flags(flags)
    }
}
