import Glibc
import LarderApp
import Logging

/// `serve`'s log handler: one line per event to standard output, in the format `--log-format` names
/// (`TextLogLine`, `JSONLogLine`). The event's metadata is merged over the handler's, and a part's logger
/// (`Logger.part`) names its label in metadata: shown as the label, not repeated as a member.
struct LineLogHandler: LogHandler {
    let label: String
    let format: LoggingSettings.Format
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String, format: LoggingSettings.Format) {
        self.label = label
        self.format = format
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata.merging(event.metadata ?? [:]) { $1 }
        let shownLabel = merged.removeValue(forKey: Logger.partLabelKey).map { "\($0)" } ?? label
        switch format {
        case .text: StandardOutput.writeLine(TextLogLine.line(event, label: shownLabel, metadata: merged))
        case .json: StandardOutput.writeLine(JSONLogLine.line(event, label: shownLabel, metadata: merged))
        }
    }
}

/// Whole lines to standard output in one `write` each, so lines from several threads never interleave.
enum StandardOutput {
    static func writeLine(_ line: String) {
        var bytes = Array(line.utf8)
        bytes.append(10)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }
}
