import HTTPServer
import Logging

/// The text log format: `timestamp level label: message key=value ...`.
enum TextLogLine {
    /// One event's line.
    /// - Parameters:
    ///   - event: the event.
    ///   - label: the label shown.
    ///   - metadata: the merged metadata, shown sorted by key.
    /// - Returns: the line, without its newline.
    static func line(_ event: LogEvent, label: String, metadata: Logger.Metadata) -> String {
        var line = "\(LogTimestamp.now()) \(event.level) \(label): \(event.message)"
        for key in metadata.keys.sorted() {
            line += " \(key)=\(metadata[key]!)"
        }
        if let error = event.error { line += " error=\(error)" }
        // One event, one line: whatever a message, metadata value or error holds cannot forge another.
        return LogText.escapingControlCharacters(line)
    }
}
