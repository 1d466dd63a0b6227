import FoundationEssentials
public import HTTPCore
public import HTTPServer
public import Logging

/// One state-changing admin request and how it was answered: who, what, and how many entries or filters
/// it touched.
public struct AuditEvent: Sendable, Equatable {
    /// Who: the token's name, or `loopback`.
    public let who: String
    /// How they were recognised: `token`, `session` or `loopback`.
    public let via: String
    /// The client's address.
    public let client: String
    /// The method.
    public let method: String
    /// The request target, path and query (`/cache?host=example.com`).
    public let target: String
    /// The answer's status code.
    public let status: Int
    /// Entries removed or marked stale: `purged` of a purge's answer, 1 or 0 for `DELETE /cache/<key>`.
    public let entries: Int?
    /// The chain's version after a filter change.
    public let chainVersion: Int?
    /// How many filters the chain holds after a filter change.
    public let filters: Int?

    /// Reads an event from a request and its answer.
    /// - Parameters:
    ///   - identity: who made it.
    ///   - client: the client's address.
    ///   - method: its method.
    ///   - target: its target.
    ///   - response: the answer (its JSON body is read for `purged`, `version` and `filters`).
    public init(
        identity: AdminIdentity, client: HTTPAddress, method: HTTPMethod, target: String, response: HTTPResponse
    ) {
        who = identity.method == .loopback ? client.ip : identity.name
        via = identity.method.rawValue
        self.client = "\(client)"
        self.method = method.rawValue
        self.target = target
        status = response.status.code
        var body = AnsweredCounts()
        if case .bytes(let bytes) = response.body, bytes.first == UInt8(ascii: "{"),
            let parsed = try? JSONDecoder().decode(AnsweredCounts.self, from: Data(bytes))
        {
            body = parsed
        }
        let isEntry = target.hasPrefix("/cache/")
        entries = body.purged ?? (isEntry && method == .delete ? (status == 204 ? 1 : 0) : nil)
        chainVersion = target.hasPrefix("/filters") ? body.version : nil
        filters = target.hasPrefix("/filters") ? body.filters?.count : nil
    }

    /// The line's metadata, for both log formats.
    public var metadata: Logger.Metadata {
        var fields: Logger.Metadata = [
            "who": "\(who)", "via": "\(via)", "client": "\(client)", "method": "\(method)", "target": "\(target)",
            "status": "\(status)",
        ]
        if let entries { fields["entries"] = "\(entries)" }
        if let chainVersion { fields["chainVersion"] = "\(chainVersion)" }
        if let filters { fields["filters"] = "\(filters)" }
        return fields
    }

    /// One sentence: `ci-bot DELETE /cache?host=example.com: 200, 12 entries`.
    public var summary: String {
        var text = "\(who) \(method) \(target): \(status)"
        if let entries { text += ", \(entries) \(entries == 1 ? "entry" : "entries")" }
        if let chainVersion, let filters { text += ", chain version \(chainVersion) with \(filters) filters" }
        return text
    }
}

/// Where audit events go: by default the log, at info level under the label `larder.audit`.
public struct AuditTrail: Sendable {
    private let sink: @Sendable (AuditEvent) -> Void

    /// Creates a trail.
    /// - Parameter sink: told about every event.
    public init(_ sink: @escaping @Sendable (AuditEvent) -> Void) { self.sink = sink }

    /// A trail that logs each event at info, in the process's log format (text or JSON).
    /// - Parameter logger: the logger (label `larder.audit` by convention).
    /// - Returns: the trail.
    public static func logging(to logger: Logger) -> AuditTrail {
        AuditTrail { event in logger.info("audit: \(event.summary)", metadata: event.metadata) }
    }

    /// Records one event.
    /// - Parameter event: the event.
    public func record(_ event: AuditEvent) { sink(event) }
}

/// The counts an audit line takes from an admin answer's JSON body; any other member is ignored.
private struct AnsweredCounts: Decodable {
    /// A filter of the chain, counted and not read.
    struct Counted: Decodable {
        init(from decoder: any Decoder) throws {}
    }

    var purged: Int?
    var version: Int?
    var filters: [Counted]?
}
