import ArgumentParser
import LarderApp

extension SettingGroup {
    /// Resolves a group for a command other than `serve` that shares some of its settings, reporting a
    /// bad value the way ArgumentParser reports its own errors.
    /// - Parameters:
    ///   - flags: the command's own flags for these settings, by flag without dashes; `nil` when absent.
    ///   - environment: the process environment.
    /// - Returns: the group.
    /// - Throws: `ValidationError` naming each bad value and where it came from.
    static func resolving(flags: [String: String?] = [:], in environment: [String: String]) throws -> Self {
        do {
            return try resolve(flags: flags.compactMapValues { $0 }, environment: environment)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
