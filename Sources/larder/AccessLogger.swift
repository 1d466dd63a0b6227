import HTTPCore
import HTTPServer
import Logging

/// Turns the server's access records into one log line per request.
struct AccessLogger: Sendable {
    let format: Settings.LogFormat
    private let logger = Logger(label: "larder.access")

    init(format: Settings.LogFormat) { self.format = format }

    func log(_ record: HTTPAccessRecord) {
        let target = Self.escaped(record.target)
        let milliseconds = Double(record.durationNanoseconds) / 1_000_000
        let duration = (milliseconds * 1000).rounded() / 1000
        switch format {
        case .text:
            var line = "\(record.method) \(target) \(record.status) \(record.bytesSent)B \(duration)ms"
            if let cache = record.cacheStatus { line += " cache=\(Self.escaped(cache))" }
            if record.aborted { line += " aborted" }
            line += " client=\(record.remoteAddress)"
            logger.info("\(line)")
        case .json:
            var metadata: Logger.Metadata = [
                "method": .string(record.method.rawValue), "target": .string(target),
                "status": .stringConvertible(record.status), "bytes": .stringConvertible(record.bytesSent),
                "duration_ms": .stringConvertible(duration), "client": .string(record.remoteAddress.description),
            ]
            if let cache = record.cacheStatus { metadata["cache"] = .string(cache) }
            if record.aborted { metadata["aborted"] = .stringConvertible(true) }
            logger.info("access", metadata: metadata)
        }
    }

    /// The text with control bytes, backslashes, quotes and non-ASCII written as `\xHH`, so a request
    /// cannot forge or break a log line.
    static func escaped(_ text: String) -> String {
        let needsEscape = text.utf8.contains { $0 < 0x20 || $0 >= 0x7F || $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") }
        guard needsEscape else { return text }
        let hex: [Character] = Array("0123456789ABCDEF")
        var out = ""
        for byte in text.utf8 {
            if byte < 0x20 || byte >= 0x7F || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\"") {
                out += "\\x"
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            } else {
                out.append(Character(Unicode.Scalar(byte)))
            }
        }
        return out
    }
}
