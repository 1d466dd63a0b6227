import CachePolicy
import FoundationEssentials
import Glibc

/// `--filters-file`: a filter chain as `PUT /filters` takes it (`{"filters": [...]}` or a bare array),
/// read once at start. An invalid file stops `serve`, naming the file and the field.
enum FiltersFile {
    /// Why the file cannot be used.
    struct LoadError: Error, CustomStringConvertible {
        /// The file.
        let path: String
        /// What is wrong: the field's path and the problem, or why it cannot be read.
        let reason: String

        var description: String { "--filters-file \(path): \(reason)" }
    }

    /// Reads and decodes the file.
    /// - Parameter path: the file.
    /// - Returns: the filters, in chain order.
    /// - Throws: `LoadError`.
    static func load(path: String) throws(LoadError) -> [FilterDefinition] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw LoadError(path: path, reason: "cannot be read (\(String(cString: strerror(errno))))")
        }
        let bytes = [UInt8](data)
        do {
            return try FilterDefinition.decodeList(json: bytes)
        } catch {
            throw LoadError(path: path, reason: error.description)
        }
    }
}
