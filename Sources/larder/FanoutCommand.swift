import ArgumentParser
import Dispatch
import FoundationEssentials
import HTTPCore
import LarderApp
import Synchronization
import Upstream

/// `larder fanout`: one admin call sent to every replica at once (purges and filter changes reach
/// all of them), each answer reported; exits non-zero when any peer failed.
struct FanoutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fanout", abstract: "Send one admin call to every replica and report each answer.",
        discussion: """
            Example: larder fanout --peers http://a:8080,http://b:8080 DELETE /cache
            The token defaults to LARDER_ADMIN_TOKEN. A peer fails on a connection error, a timeout or a \
            status of 400 or more.
            """)

    @Option(help: "Comma-separated replica URLs (http://host:port, https://[::1]:8443).") var peers: String
    @Option(help: "Bearer token for the admin API (env: LARDER_ADMIN_TOKEN).") var token: String?
    @Option(help: "Request body: JSON text, or @file to read it from a file.") var data: String?
    @Option(help: "Seconds each peer gets.") var timeout: Double = 10
    @Option(help: "PEM file of CA certificates trusted for https peers, in addition to the system store.")
    var caFile: String?
    @Argument(help: "The method: GET, POST, PUT, DELETE, …") var method: String
    @Argument(help: "The path with its query, e.g. /cache?host=example.com") var path: String

    /// One peer's outcome.
    struct Outcome: Sendable {
        let peer: String
        let status: Int?
        let summary: String

        var succeeded: Bool { status.map { $0 < 400 } ?? false }
    }

    func validate() throws {
        guard path.hasPrefix("/") else { throw ValidationError("the path must start with '/': '\(path)'") }
        guard !peerList.isEmpty else { throw ValidationError("--peers names no peer") }
        guard method.allSatisfy({ $0.isLetter }) else { throw ValidationError("bad method '\(method)'") }
    }

    private var peerList: [String] {
        peers.split(separator: ",").map { String($0.trimmingHTTPWhitespace()) }.filter { !$0.isEmpty }
    }

    func run() throws {
        var headers: [(name: String, value: String)] = []
        // The flag, else LARDER_ADMIN_TOKEN, else the first line of LARDER_ADMIN_TOKEN_FILE: what serve reads.
        let token = try token ?? AdminSettings.resolving(in: ProcessInfo.processInfo.environment).singleToken()
        if let token, !token.isEmpty {
            headers.append(("Authorization", "Bearer \(token)"))
        }
        var body: [UInt8] = []
        if let data {
            if data.hasPrefix("@") {
                guard let contents = FileManager.default.contents(atPath: String(data.dropFirst())) else {
                    throw ValidationError("cannot read \(data.dropFirst())")
                }
                body = Array(contents)
            } else {
                body = Array(data.utf8)
            }
            headers.append(("Content-Type", "application/json"))
        }
        let client = ReplicaClient(timeout: .seconds(timeout), tls: OriginTLS(caFile: caFile))
        let outcomes = Self.send(
            method.uppercased(), path: path, to: peerList, headers: headers, body: body, client: client)
        let width = outcomes.map(\.peer.count).max() ?? 0
        for outcome in outcomes {
            let status = outcome.status.map(String.init) ?? "---"
            print(
                "\(TextColumns.padded(outcome.peer, to: width))  \(status)  \(outcome.summary)")
        }
        let failed = outcomes.filter { !$0.succeeded }.count
        if failed > 0 {
            print("\(failed) of \(outcomes.count) peers failed")
            throw ExitCode.failure
        }
    }

    /// Sends the call to every peer concurrently (one blocking exchange per thread).
    /// - Returns: the outcomes in the order of `peers`.
    static func send(
        _ method: String, path: String, to peers: [String], headers: [(name: String, value: String)],
        body: [UInt8], client: ReplicaClient
    ) -> [Outcome] {
        let results = OutcomeSlots(count: peers.count)
        DispatchQueue.concurrentPerform(iterations: peers.count) { index in
            let peer = peers[index]
            let outcome: Outcome
            do {
                let target = try ReplicaClient.target(base: peer, path: path)
                let response = try client.send(method, url: target.url, headers: headers, body: body)
                outcome = Outcome(peer: peer, status: response.status, summary: shorten(response.body))
            } catch {
                outcome = Outcome(peer: peer, status: nil, summary: "\(error)")
            }
            results.set(outcome, at: index)
        }
        return results.all
    }

    /// The body on one line, at most 160 characters.
    static func shorten(_ body: [UInt8]) -> String {
        let text = String(decoding: body, as: UTF8.self).split(whereSeparator: \.isNewline).joined(separator: " ")
        return text.count > 160 ? String(text.prefix(157)) + "..." : text
    }
}

/// The outcomes slots `concurrentPerform` fills, one per index.
private final class OutcomeSlots: Sendable {
    private let slots: Mutex<[FanoutCommand.Outcome?]>

    init(count: Int) { slots = Mutex(Array(repeating: nil, count: count)) }

    func set(_ outcome: FanoutCommand.Outcome, at index: Int) { slots.withLock { $0[index] = outcome } }

    var all: [FanoutCommand.Outcome] { slots.withLock { $0.compactMap { $0 } } }
}
