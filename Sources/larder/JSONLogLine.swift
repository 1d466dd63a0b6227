import HTTPCore
import LarderApp
import Logging

/// Writes one JSON object per line to standard output: `time`, `level`, `label`, `message` and the
/// metadata as members (nested metadata as JSON objects and arrays).
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String) { self.label = label }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var line = "{\"time\":\(LogTimestamp.now().jsonQuoted),\"level\":\(event.level.rawValue.jsonQuoted)"
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        // A part's logger (`Logger.part`) names its label in metadata (`Logger.partLabelKey`, which is "label").
        let shownLabel = merged[Logger.partLabelKey].map { "\($0)" } ?? label
        line += ",\"label\":\(shownLabel.jsonQuoted),\"message\":\(event.message.description.jsonQuoted)"
        for key in merged.keys.sorted() where !["time", "level", "label", "message"].contains(key) {
            line += ",\(key.jsonQuoted):\(Self.render(merged[key]!))"
        }
        if let error = event.error { line += ",\"error\":\(String(describing: error).jsonQuoted)" }
        StandardOutput.writeLine(line + "}")
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
