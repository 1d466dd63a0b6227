// The texts made from the declarations: `larder serve --help`, `larder settings` and README's table
// (`larder settings --markdown`, which scripts/check-readme.sh compares with README.md).

extension ServeSettings {
    /// One line on what `serve` does.
    public static let abstract = "Run the service."

    /// How settings are given, for help.
    public static let precedence = """
        Every setting is a flag with a LARDER_* environment twin: the flag wins over the environment, \
        the environment over the default. A flag takes its value as --name value or --name=value.
        """

    /// The text of `larder serve --help`.
    /// - Parameter width: the column the text wraps at.
    /// - Returns: the overview, usage and every setting with its variable, default and help, by group.
    public static func helpText(width: Int = 100) -> String {
        let groups = Self.groups
        let usages = groups.map { $0.settings.map(usage) }
        let column = min((usages.joined().map(\.count).max() ?? 0) + 4, 36)
        var lines = ["OVERVIEW: \(abstract)", ""]
        lines += wrap(precedence, width: width)
        lines += ["", "USAGE: larder serve [--<setting> <value> ...]"]
        for (group, usages) in zip(groups, usages) {
            lines += ["", "\(group.title.uppercased()):"]
            for (declaration, usage) in zip(group.settings, usages) {
                let text =
                    wrap(declaration.summary, width: width - column)
                    + wrap(declaration.environmentAndDefault, width: width - column)
                var lead = "  " + usage
                // A usage wider than the column gets a line of its own.
                if lead.count >= column {
                    lines.append(lead)
                    lead = ""
                }
                for line in text {
                    lines.append(lead + String(repeating: " ", count: column - lead.count) + line)
                    lead = ""
                }
            }
        }
        let help = "  -h, --help"
        lines += ["", "OPTIONS:", help + String(repeating: " ", count: column - help.count) + "Show help information."]
        return lines.joined(separator: "\n")
    }

    /// The settings as Markdown: one table per group, under the group's title.
    public static var markdownTable: String {
        var lines: [String] = []
        for group in groups {
            if !lines.isEmpty { lines.append("") }
            lines += [
                "**\(group.title)**", "", "| flag | environment | default | meaning |", "| --- | --- | --- | --- |",
            ]
            for setting in group.settings {
                let shown = setting.defaultValue.isEmpty ? "none" : "`\(setting.defaultValue)`"
                lines.append("| `--\(setting.flag)` | `\(setting.environment)` | \(shown) | \(setting.summary) |")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The settings one per line: flag, variable, default in brackets, help.
    public static var plainList: String {
        declarations.map { "\($0.dashedFlag)  \($0.environment)  [\($0.defaultValue)]  \($0.summary)" }
            .joined(separator: "\n")
    }

    /// `--max-size <size>`, and `...` after a repeatable flag.
    private static func usage(_ declaration: SettingDeclaration) -> String {
        "\(declaration.dashedFlag) <\(declaration.valueName)>" + (declaration.repeatable ? " ..." : "")
    }

    /// Splits text into lines of at most `width` characters at spaces (a longer word stands alone).
    private static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
