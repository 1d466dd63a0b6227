import HTTPCore
public import HTTPServer
public import Logging

/// Turns the server's access records into one log line per request.
public struct AccessLogger: Sendable {
    /// Text or JSON lines, as the process log.
    public let format: LoggingSettings.Format
    private let logger: Logger

    /// Creates the logger.
    /// - Parameters:
    ///   - format: text or JSON lines.
    ///   - logger: where the lines go (the wiring's `larder.access` part, `Logger.part`).
    public init(format: LoggingSettings.Format, logger: Logger) {
        self.format = format
        self.logger = logger
    }

    /// Writes one line for a request.
    /// - Parameter record: what the server recorded.
    public func log(_ record: HTTPAccessRecord) {
        let target = HTTPAccessRecord.escapedForLog(record.target)
        let milliseconds = Double(record.durationNanoseconds) / 1_000_000
        let duration = (milliseconds * 1000).rounded() / 1000
        switch format {
        case .text:
            var line = "\(record.method) \(target) \(record.status) \(record.bytesSent)B \(duration)ms"
            if let cache = record.cacheStatus { line += " cache=\(HTTPAccessRecord.escapedForLog(cache))" }
            if record.aborted { line += " aborted" }
            line += " client=\(record.remoteAddress) id=\(HTTPAccessRecord.escapedForLog(record.requestID.description))"
            logger.info("\(line)")
        case .json:
            var metadata: Logger.Metadata = [
                "method": .string(record.method.rawValue), "target": .string(target),
                "status": .stringConvertible(record.status), "bytes": .stringConvertible(record.bytesSent),
                "duration_ms": .stringConvertible(duration), "client": .string(record.remoteAddress.description),
                "request_id": .string(record.requestID.description),
            ]
            if let cache = record.cacheStatus { metadata["cache"] = .string(cache) }
            if record.aborted { metadata["aborted"] = .stringConvertible(true) }
            logger.info("access", metadata: metadata)
        }
    }
}
