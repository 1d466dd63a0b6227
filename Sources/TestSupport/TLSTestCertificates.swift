import Foundation

/// A certificate authority made for one test with the `openssl` command, and what it signed: a server
/// certificate for `127.0.0.1` and a client certificate, each with its key, in a temporary directory
/// removed when this object goes away.
public final class TLSTestCertificates: Sendable {
    /// The directory holding every file.
    public let directory: String
    /// The CA certificate (PEM).
    public var caFile: String { directory + "/ca.pem" }
    /// A hashed certificate directory holding only the CA, as `/etc/ssl/certs` holds the system's
    /// (`openssl rehash`), for tests that stand it in for the system store.
    public var storeDirectory: String { directory + "/store" }
    /// The server certificate (subjectAltName IP:127.0.0.1) and its key.
    public var serverCertificateFile: String { directory + "/server.pem" }
    public var serverKeyFile: String { directory + "/server.key" }
    /// The client certificate (extendedKeyUsage clientAuth) and its key.
    public var clientCertificateFile: String { directory + "/client.pem" }
    public var clientKeyFile: String { directory + "/client.key" }

    /// Makes the CA, signs the server and client certificates (P-256 keys, valid two days) and builds
    /// the hashed store.
    /// - Parameter name: the CA's common name, so that two authorities of one test differ.
    /// - Throws: `TLSTestError` with openssl's output when a step fails.
    public init(name: String = "Larder Test CA") throws {
        directory = NSTemporaryDirectory() + "larder-tls-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory + "/store", withIntermediateDirectories: true)
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        try Self.openssl(
            ["req", "-x509"] + key + ["-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=\(name)"],
            in: directory)
        for (leaf, subject, serial, extensions) in [
            ("server", "/CN=127.0.0.1", "1", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n"),
            ("client", "/CN=larder-client", "2", "extendedKeyUsage=clientAuth\n"),
        ] {
            try Data(extensions.utf8).write(to: URL(fileURLWithPath: "\(directory)/\(leaf).ext"))
            try Self.openssl(
                ["req"] + key + ["-keyout", "\(leaf).key", "-out", "\(leaf).csr", "-subj", subject], in: directory)
            try Self.openssl(
                [
                    "x509", "-req", "-in", "\(leaf).csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", serial,
                    "-days", "2", "-extfile", "\(leaf).ext", "-out", "\(leaf).pem",
                ], in: directory)
        }
        try FileManager.default.copyItem(atPath: caFile, toPath: storeDirectory + "/ca.pem")
        try Self.openssl(["rehash", storeDirectory], in: directory)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// Runs `openssl arguments…` in `directory` (through `/usr/bin/env`, which finds it on `PATH`).
    static func openssl(_ arguments: [String], in directory: String) throws {
        let process = try ChildProcess(
            "/usr/bin/env", ["sh", "-c", "cd \"$0\" && exec openssl \"$@\"", directory] + arguments,
            standardOutput: .pipe, standardError: .pipe)
        let (status, output) = process.communicate()
        guard status == 0 else {
            throw TLSTestError(
                step: "openssl \(arguments.prefix(2).joined(separator: " "))",
                output: String(decoding: output, as: UTF8.self))
        }
    }
}

/// A step of the TLS fixtures that failed, with what the tool printed.
public struct TLSTestError: Error, CustomStringConvertible {
    /// The step.
    public let step: String
    /// Its output.
    public let output: String

    public var description: String { "\(step) failed: \(output)" }
}
