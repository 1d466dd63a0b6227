import HTTPCore
import Logging

/// The JSON log format: one object per line with `time`, `level`, `label`, `message` and the metadata as
/// members (nested metadata as JSON objects and arrays).
enum JSONLogLine {
    /// One event's line.
    /// - Parameters:
    ///   - event: the event.
    ///   - label: the label shown.
    ///   - metadata: the merged metadata, as members sorted by key (none may replace the four above).
    /// - Returns: the line, without its newline.
    static func line(_ event: LogEvent, label: String, metadata: Logger.Metadata) -> String {
        var line = "{\"time\":\(LogTimestamp.now().jsonQuoted),\"level\":\(event.level.rawValue.jsonQuoted)"
        line += ",\"label\":\(label.jsonQuoted),\"message\":\(event.message.description.jsonQuoted)"
        for key in metadata.keys.sorted() where !["time", "level", "label", "message"].contains(key) {
            line += ",\(key.jsonQuoted):\(render(metadata[key]!))"
        }
        if let error = event.error { line += ",\"error\":\(String(describing: error).jsonQuoted)" }
        return line + "}"
    }

    static func render(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let text):
            return text.jsonQuoted
        case .stringConvertible(let convertible):
            // Numbers stay numbers; anything else becomes a string.
            let text = convertible.description
            if convertible is Int || convertible is Double || convertible is UInt64 || convertible is Bool {
                return text
            }
            return text.jsonQuoted
        case .array(let values):
            return "[" + values.map(render).joined(separator: ",") + "]"
        case .dictionary(let members):
            return "{" + members.keys.sorted().map { "\($0.jsonQuoted):\(render(members[$0]!))" }.joined(separator: ",")
                + "}"
        @unknown default:
            return "\(value)".jsonQuoted
        }
    }
}
