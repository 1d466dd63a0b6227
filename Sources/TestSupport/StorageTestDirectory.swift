import Foundation

/// A fresh temporary directory for a test's database files, removed when released.
public final class StorageTestDirectory: Sendable {
    /// The directory's path.
    public let path: String

    /// Creates the directory under the system's temporary directory.
    public init() {
        path = NSTemporaryDirectory() + "larder-storage-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// A path inside the directory.
    /// - Parameter name: the file name.
    /// - Returns: the full path.
    public func file(_ name: String = "cache.db") -> String { path + "/" + name }
}
