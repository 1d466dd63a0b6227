public import Logging
import Synchronization

/// Keeps every line logged through its loggers, for tests that check what the wiring says (and what it
/// must never say, a token) without a process to read the log of.
public final class LogRecorder: Sendable {
    private let lines = Mutex<[String]>([])

    /// Creates an empty recorder.
    public init() {}

    /// A logger whose lines, down to `level`, go to this recorder.
    /// - Parameters:
    ///   - label: the logger's label.
    ///   - level: the lowest level kept.
    /// - Returns: the logger.
    public func logger(label: String = "larder", level: Logger.Level = .debug) -> Logger {
        Logger(label: label) { _ in Handler(recorder: self, logLevel: level) }
    }

    /// Every line so far, `message key=value …`, one per line.
    public var text: String { lines.withLock { $0.joined(separator: "\n") } }

    fileprivate func append(_ line: String) { lines.withLock { $0.append(line) } }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var logLevel: Logger.Level
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            let fields = merged.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
            recorder.append("\(event.level) \(event.message)\(fields)")
        }
    }
}
