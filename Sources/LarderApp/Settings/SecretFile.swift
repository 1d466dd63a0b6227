import FoundationEssentials

/// Reads secrets from files (`--admin-token-file`, `--url-signing-key-file`, …), so that they show in
/// neither `ps` nor the process environment (a container's `docker inspect`, `/proc/<pid>/environ`).
///
/// A file holds one value a line; blank lines and lines starting with `#` are skipped, blanks around a
/// value are ignored. Errors name the file and the line number, never the line.
public enum SecretFile {
    /// One value of a file, with where it was.
    public struct Line: Sendable, Equatable {
        /// The line's number, from 1.
        public let number: Int
        /// The value, without blanks around it.
        public let text: String
    }

    /// The values of a file.
    /// - Parameter path: the file.
    /// - Returns: every non-blank, non-comment line, trimmed.
    /// - Throws: `SecretFileError` when the file cannot be read or is not UTF-8.
    public static func lines(path: String) throws(SecretFileError) -> [Line] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SecretFileError(path: path, line: nil, problem: "cannot be read")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw SecretFileError(path: path, line: nil, problem: "is not UTF-8 text")
        }
        var lines: [Line] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = String(raw.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
            lines.append(Line(number: index + 1, text: trimmed))
        }
        return lines
    }
}

/// A secrets file that could not be used: which file, which line, what is wrong (never the line itself).
public struct SecretFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file, or the setting when the value came from a flag or the environment.
    public let path: String
    /// The line's number, when one line is at fault.
    public let line: Int?
    /// What is wrong, completing "<path>:<line> …".
    public let problem: String

    /// Creates an error.
    /// - Parameters:
    ///   - path: the file or setting.
    ///   - line: the line's number, if one line is at fault.
    ///   - problem: what is wrong.
    public init(path: String, line: Int?, problem: String) {
        self.path = path
        self.line = line
        self.problem = problem
    }

    public var description: String { "\(path)\(line.map { ":\($0)" } ?? "") \(problem)" }
}
