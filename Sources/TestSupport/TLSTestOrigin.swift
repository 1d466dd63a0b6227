import Foundation

/// An https origin on `127.0.0.1` port 0: `openssl s_server -www`, which answers every request with
/// `HTTP/1.0 200 ok` and a page about the TLS session, then closes. With `requiresClientCertificate` the
/// handshake fails unless the client shows a certificate the test CA signed (mutual TLS).
///
/// One connection at a time, which is all a test of trust needs. Stopped when this object goes away.
public final class TLSTestOrigin {
    /// The port it listens on.
    public let port: Int
    private let process: ChildProcess
    private let logPath: String

    /// Starts the server and waits (at most 10 s) for its `ACCEPT` line.
    /// - Parameters:
    ///   - certificates: the server certificate and key, and the CA that client certificates must chain to.
    ///   - requiresClientCertificate: whether a client certificate is required.
    /// - Throws: `TLSTestError` with the server's output when it does not start.
    public init(certificates: TLSTestCertificates, requiresClientCertificate: Bool = false) throws {
        logPath = certificates.directory + "/s_server-\(UUID().uuidString).log"
        var arguments = [
            "openssl", "s_server", "-accept", "127.0.0.1:0", "-cert", certificates.serverCertificateFile, "-key",
            certificates.serverKeyFile, "-www",
        ]
        if requiresClientCertificate { arguments += ["-CAfile", certificates.caFile, "-Verify", "1"] }
        process = try ChildProcess(
            "/usr/bin/env", arguments, standardOutput: .file(logPath), standardError: .file(logPath))
        let deadline = Date().addingTimeInterval(10)
        var found: Int?
        while found == nil, process.isRunning, Date() < deadline {
            found = Self.port(in: (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "")
            if found == nil { usleep(20_000) }
        }
        guard let found else {
            process.send(SIGKILL)
            process.waitUntilExit()
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            throw TLSTestError(step: "openssl s_server", output: log)
        }
        port = found
    }

    deinit {
        process.send(SIGKILL)
        process.waitUntilExit()
    }

    /// `https://127.0.0.1:<port><path>`.
    public func url(_ path: String = "/") -> String { "https://127.0.0.1:\(port)\(path)" }

    /// What the server printed so far (handshake errors name the reason).
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// The port in `ACCEPT 127.0.0.1:<port>`.
    static func port(in log: String) -> Int? {
        guard let range = log.range(of: "ACCEPT 127.0.0.1:") else { return nil }
        return Int(log[range.upperBound...].prefix { $0.isNumber })
    }
}
