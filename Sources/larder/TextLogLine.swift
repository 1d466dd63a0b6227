import Glibc
import HTTPServer
import LarderApp
import Logging

/// Writes `timestamp level label: message key=value ...` lines to standard output.
struct TextLogHandler: LogHandler {
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
        var merged = metadata.merging(event.metadata ?? [:]) { $1 }
        // A part's logger (`Logger.part`) names its label in metadata: shown as the label, not repeated.
        let shownLabel = merged.removeValue(forKey: Logger.partLabelKey).map { "\($0)" } ?? label
        var line = "\(LogTimestamp.now()) \(event.level) \(shownLabel): \(event.message)"
        for key in merged.keys.sorted() {
            line += " \(key)=\(merged[key]!)"
        }
        if let error = event.error { line += " error=\(error)" }
        // One event, one line: whatever a message, metadata value or error holds cannot forge another.
        StandardOutput.writeLine(LogText.escapingControlCharacters(line))
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
