import FoundationEssentials

/// The first check of the commands that read an existing cache file (`stats`, `backup`): a missing file
/// is named with where its path came from, instead of SQLite's "unable to open database file" (error 14).
enum DatabaseFileCheck {
    /// Whether `path` exists; when it does not, prints why the command stops.
    /// - Parameters:
    ///   - path: the resolved `--db`.
    ///   - command: the command's name, for the message.
    ///   - flag: the `--db` the caller gave, `nil` when none.
    ///   - environment: the process environment (for `LARDER_DB`).
    /// - Returns: whether the command may go on.
    static func exists(
        _ path: String, command: String, flag: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Bool {
        guard !FileManager.default.fileExists(atPath: path) else { return true }
        let source =
            if flag != nil {
                "given by --db"
            } else if let variable = environment["LARDER_DB"], !variable.isEmpty {
                "from LARDER_DB"
            } else {
                "the default; give --db or set LARDER_DB"
            }
        print("larder \(command): no cache database at \(path) (\(source)); it is the file `larder serve --db` writes")
        return false
    }
}
