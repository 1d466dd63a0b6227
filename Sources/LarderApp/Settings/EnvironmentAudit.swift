/// Warnings about `LARDER_*` variables that `serve` will not read as given: a name no setting has
/// (most often a typo, which would otherwise be ignored without a word) and deprecated names.
///
/// They warn rather than stop the server: an environment is often shared with other tools, and an
/// unknown variable cannot make a setting wrong.
public enum EnvironmentAudit {
    /// `LARDER_*` names the project's own scripts, benchmarks and tests use that are not settings; they
    /// may reach `serve` through an inherited environment and never earn a warning.
    public static let exemptVariables: Set<String> = [
        "LARDER_BIN",  // the binary under test or benchmark (Benchmarks/, scripts/)
        "LARDER_PID",  // the running server, in benchmark scripts
        "LARDER_ARGS",  // extra flags for serve, in Benchmarks/fetch/run.sh
        "LARDER_BENCH_PORT",  // Benchmarks/server/run.sh
        "LARDER_HEAVY_TESTS",  // turns on the heaviest fault tests (.ci/run)
        "LARDER_CONTRACT_NETNS",  // scripts/check-contract.sh, inside its network namespace
    ]

    /// The warnings for one environment, sorted by variable.
    /// - Parameters:
    ///   - environment: the process environment.
    ///   - declarations: the settings that exist.
    /// - Returns: one line per unknown or deprecated `LARDER_*` variable, naming the setting meant.
    public static func warnings(environment: [String: String], declarations: [SettingDeclaration]) -> [String] {
        let current = declarations.map(\.environment)
        var replacements: [String: String] = [:]
        for declaration in declarations {
            for old in declaration.deprecatedEnvironment { replacements[old] = declaration.environment }
        }
        var warnings: [String] = []
        for variable in environment.keys.sorted() where variable.hasPrefix("LARDER_") {
            if current.contains(variable) || exemptVariables.contains(variable) { continue }
            if let replacement = replacements[variable] {
                let overridden = environment[replacement].map { !$0.isEmpty } ?? false
                warnings.append(
                    "\(variable) is deprecated; use \(replacement)"
                        + (overridden ? " (\(replacement) is set too and wins)" : ""))
                continue
            }
            var warning = "\(variable) is not a setting and is ignored"
            let typed = String(variable.dropFirst("LARDER_".count))
            let known = current.map { String($0.dropFirst("LARDER_".count)) }
            if let closest = ClosestName.suggestion(for: typed, among: known) {
                warning += "; did you mean LARDER_\(closest)?"
            }
            warnings.append(warning)
        }
        return warnings
    }
}
