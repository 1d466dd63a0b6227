import Foundation

/// A text file in the system's temporary directory, for tests that hand Larder a path (key and token
/// files, rewritten in place as an operator edits them); removed when the value goes.
public final class TemporaryFile: Sendable {
    /// The file's path.
    public let path: String

    /// Creates the file holding `text`.
    /// - Throws: Foundation's error when it cannot be written.
    public init(_ text: String) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("larder-\(UUID().uuidString)").path
        try write(text)
    }

    /// Replaces the file's content with `text`, in place (the same file, as an editor saving it would).
    /// - Throws: Foundation's error when it cannot be written.
    public func write(_ text: String) throws {
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
