import ArgumentParser
import LarderAPI
import LarderApp

/// The `larder` command: a caching fetch service.
@main
struct Larder: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "larder",
        abstract: "A caching fetch service: GET /fetch?url=... answers from its cache or the origin.",
        discussion: """
            Every setting of `larder serve` is a flag with a LARDER_* environment twin; the flag wins \
            over the environment, the environment over the default. See `larder serve --help`.
            """,
        version: LarderVersion.current,
        subcommands: [
            ServeCommand.self, SettingsCommand.self, HealthCommand.self, StatsCommand.self, BackupCommand.self,
            FanoutCommand.self, SignCommand.self, VersionCommand.self,
        ],
        defaultSubcommand: nil
    )
}

/// `larder version`: prints the version, as `larder --version` does.
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version", abstract: "Print the version (as --version, /metrics and /openapi.yaml say it).")

    func run() {
        print(LarderVersion.current)
    }
}

/// `larder settings --markdown`: prints the settings table for the README.
struct SettingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings", abstract: "Print every setting with its environment variable and default.")

    @Flag(help: "Print a Markdown table.") var markdown = false

    func run() {
        if markdown {
            print(ServeSettings.markdownTable)
        } else {
            print(ServeSettings.plainList)
        }
    }
}
