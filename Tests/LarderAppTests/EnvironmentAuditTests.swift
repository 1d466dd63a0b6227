import Foundation
import LarderApp
import Testing

/// Unknown and deprecated `LARDER_*` variables are warned about, naming the setting meant.
@Suite struct EnvironmentAuditTests {
    func warnings(_ environment: [String: String]) -> [String] {
        EnvironmentAudit.warnings(environment: environment, declarations: ServeSettings.declarations)
    }

    @Test func aMistypedVariableIsAWarningWithTheClosestSetting() {
        #expect(
            warnings(["LARDER_PORTT": "80"]) == [
                "LARDER_PORTT is not a setting and is ignored; did you mean LARDER_PORT?"
            ])
        #expect(
            warnings(["LARDER_MAX_SIZ": "1G", "LARDER_HOTS": "x"]) == [
                "LARDER_HOTS is not a setting and is ignored; did you mean LARDER_HOST?",
                "LARDER_MAX_SIZ is not a setting and is ignored; did you mean LARDER_MAX_SIZE?",
            ])
    }

    @Test func aVariableFarFromEverySettingIsAWarningWithoutASuggestion() {
        #expect(warnings(["LARDER_COLOUR": "blue"]) == ["LARDER_COLOUR is not a setting and is ignored"])
    }

    @Test func settingsExemptNamesAndOtherVariablesAreNotWarnedAbout() {
        var environment = ["LARDER_PORT": "1", "LARDER_ADMIN_TOKEN": "", "PATH": "/bin", "LARDERPORT": "1"]
        for name in EnvironmentAudit.exemptVariables { environment[name] = "1" }
        #expect(warnings(environment).isEmpty)
    }

    @Test func theDeprecatedPluralIsAWarningNamingItsReplacement() {
        #expect(
            warnings(["LARDER_ALLOW_NETWORKS": "10.0.0.0/8"])
                == ["LARDER_ALLOW_NETWORKS is deprecated; use LARDER_ALLOW_NETWORK"])
        #expect(
            warnings(["LARDER_ALLOW_NETWORKS": "10.0.0.0/8", "LARDER_ALLOW_NETWORK": "127.0.0.0/8"])
                == [
                    "LARDER_ALLOW_NETWORKS is deprecated; use LARDER_ALLOW_NETWORK (LARDER_ALLOW_NETWORK is set too and wins)"
                ])
    }

    /// Every `LARDER_*` name the project's scripts, benchmarks, CI, container files and tests use is a
    /// setting, a deprecated name or exempt, so that none of them makes `serve` warn.
    @Test func everyNameTheProjectUsesIsKnown() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let declarations = ServeSettings.declarations
        let known = Set(declarations.map(\.environment) + declarations.flatMap(\.deprecatedEnvironment))
            .union(EnvironmentAudit.exemptVariables)
        var used: Set<String> = []
        for folder in ["scripts", "Benchmarks", "Tests", "Sources/TestSupport", ".ci", "docker"] {
            let files = FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path)
            for case let path as String in files?.allObjects ?? [] {
                let url = root.appendingPathComponent(folder).appendingPathComponent(path)
                guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
                for match in text.matches(of: /LARDER_[A-Z][A-Z_]*[A-Z]/) { used.insert(String(match.output)) }
            }
        }
        #expect(used.contains("LARDER_BIN"), "the scan found no script: \(root.path)")
        // This file and LarderProcessTests name made-up variables on purpose.
        let madeUp: Set = ["LARDER_PORTT", "LARDER_MAX_SIZ", "LARDER_HOTS", "LARDER_COLOUR", "LARDER_SWEEP_INTERVALL"]
        #expect(used.subtracting(known).subtracting(madeUp).sorted() == [])
    }
}
