import LarderApp
import Testing

/// Help, `larder settings` and README's table are made from the declarations, each setting once.
@Suite struct ServeSettingsDocumentationTests {
    let declarations = ServeSettings.declarations

    @Test func everySettingIsDeclaredOnceWithDistinctFlagsAndVariables() {
        // A count here broke with every new setting; the distinctness below is what matters, and a few
        // settings from each group show the groups are all collected.
        let flags = Set(declarations.map(\.flag))
        for flag in ["host", "log-format", "db", "max-size", "hot-bytes", "in-flight-bytes", "stale-if-disconnected"] {
            #expect(flags.contains(flag), "\(flag)")
        }
        #expect(Set(declarations.map(\.flag)).count == declarations.count)
        #expect(Set(declarations.map(\.environment)).count == declarations.count)
        #expect(declarations.allSatisfy { $0.environment == SettingDeclaration.environmentName(forFlag: $0.flag) })
        #expect(SettingDeclaration.environmentName(forFlag: "max-object-bytes") == "LARDER_MAX_OBJECT_BYTES")
    }

    @Test func everyGroupHasATitleAndASetting() {
        let groups = ServeSettings.groups
        #expect(
            groups.map(\.title) == [
                "Listening and HTTP limits", "Logging", "Store", "Origin client and /fetch", "Filters",
                "Access to /fetch", "Admin", "Maintenance",
            ])
        #expect(groups.allSatisfy { !$0.settings.isEmpty })
        #expect(groups.flatMap(\.settings) == declarations)
    }

    @Test func theMarkdownTableListsEveryDeclaredSettingExactlyOnce() {
        let rows = ServeSettings.markdownTable.split(separator: "\n").filter { $0.hasPrefix("| `--") }
        #expect(rows.count == declarations.count)
        for declaration in declarations {
            let matching = rows.filter { $0.hasPrefix("| `--\(declaration.flag)` | `\(declaration.environment)` |") }
            #expect(matching.count == 1, "\(declaration.flag)")
            #expect(matching.first?.hasSuffix("| \(declaration.summary) |") == true, "\(declaration.flag)")
        }
        #expect(ServeSettings.markdownTable.contains("| `--admin-token` | `LARDER_ADMIN_TOKEN` | none |"))
        #expect(ServeSettings.markdownTable.contains("| `--max-size` | `LARDER_MAX_SIZE` | `1G` |"))
    }

    @Test func helpNamesEveryFlagVariableAndDefault() {
        let help = ServeSettings.helpText()
        for declaration in declarations {
            #expect(help.contains("  --\(declaration.flag) <\(declaration.valueName)>"), "\(declaration.flag)")
            #expect(help.contains(declaration.environmentAndDefault), "\(declaration.flag)")
        }
        #expect(help.contains("--allow-network <cidr> ..."))
        #expect(help.split(separator: "\n").allSatisfy { $0.count <= 100 })
    }

    @Test func thePlainListHasOneLinePerSetting() {
        let lines = ServeSettings.plainList.split(separator: "\n")
        #expect(lines.count == declarations.count)
        #expect(lines.contains("--port  LARDER_PORT  [8080]  TCP port to listen on; 0 picks a free one."))
    }

    @Test func theAdminTokenNamesEveryAdminRoute() throws {
        let token = try #require(declarations.first { $0.flag == "admin-token" })
        for route in ["/cache", "/filters", "/fetches"] { #expect(token.summary.contains(route)) }
    }
}
