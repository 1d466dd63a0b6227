import Glibc

/// Which certificate authorities the origin client trusts for https, and the certificate it shows to
/// origins that ask for one (mutual TLS).
///
/// By default libcurl's built-in store is used: on Debian the bundle `/etc/ssl/certs/ca-certificates.crt`
/// and the hashed directory `/etc/ssl/certs` (`curl-config --ca`, CURLINFO_CAINFO and CURLINFO_CAPATH).
/// A `caFile` takes the bundle's place (CURLOPT_CAINFO) and the directory stays (CURLOPT_CAPATH), so its
/// authorities are added to the system's; with `trustsOnlyCAFile` the directory is dropped too, and only
/// the file is trusted. Peer and host verification stay on in every case.
public struct OriginTLS: Sendable, Equatable {
    /// A PEM file of CA certificates trusted for origins (private CAs), or `nil` for the system's only.
    public var caFile: String?
    /// Whether `caFile` is the only trust: the system's authorities are not trusted.
    public var trustsOnlyCAFile: Bool
    /// The hashed certificate directory that stands for the system store next to `caFile`; `nil` keeps
    /// libcurl's built-in one (`/etc/ssl/certs` on Debian). Tests point it at a store of their own.
    public var systemCertificateDirectory: String?
    /// A PEM client certificate (CURLOPT_SSLCERT) for origins that require one, or `nil`.
    public var clientCertificateFile: String?
    /// The PEM private key of the client certificate (CURLOPT_SSLKEY); `nil` reads it from the
    /// certificate's file.
    public var clientKeyFile: String?

    /// Creates TLS settings.
    /// - Parameters:
    ///   - caFile: extra CA certificates (PEM), default none.
    ///   - trustsOnlyCAFile: trust only `caFile`, default `false` (added to the system's).
    ///   - systemCertificateDirectory: the system store's directory, default libcurl's.
    ///   - clientCertificateFile: client certificate (PEM), default none.
    ///   - clientKeyFile: its key (PEM), default the certificate's file.
    public init(
        caFile: String? = nil, trustsOnlyCAFile: Bool = false, systemCertificateDirectory: String? = nil,
        clientCertificateFile: String? = nil, clientKeyFile: String? = nil
    ) {
        self.caFile = caFile
        self.trustsOnlyCAFile = trustsOnlyCAFile
        self.systemCertificateDirectory = systemCertificateDirectory
        self.clientCertificateFile = clientCertificateFile
        self.clientKeyFile = clientKeyFile
    }

    /// Checks that the settings hang together and that every file is a readable PEM file of the right
    /// kind, so that a typo stops the start instead of failing every https fetch.
    /// - Throws: `OriginTLSError` naming the setting and the file.
    public func validate() throws(OriginTLSError) {
        if trustsOnlyCAFile && caFile == nil {
            throw OriginTLSError(setting: "origin-ca-only", reason: "needs origin-ca-file (there would be no trust)")
        }
        if clientKeyFile != nil && clientCertificateFile == nil {
            throw OriginTLSError(setting: "origin-client-key", reason: "needs origin-client-cert")
        }
        if let caFile { try Self.check(caFile, setting: "origin-ca-file", holds: ["CERTIFICATE"]) }
        if let clientCertificateFile {
            try Self.check(clientCertificateFile, setting: "origin-client-cert", holds: ["CERTIFICATE"])
            // The key may share the certificate's file; either way one file must hold it.
            try Self.check(
                clientKeyFile ?? clientCertificateFile,
                setting: clientKeyFile == nil ? "origin-client-cert" : "origin-client-key",
                holds: ["PRIVATE KEY"])
        }
    }

    /// Reads a file (at most 4 MiB: CA bundles are about 200 KiB) and checks it has a PEM block whose
    /// label ends with one of `labels` (`PRIVATE KEY` covers `EC PRIVATE KEY` and `RSA PRIVATE KEY`).
    private static func check(_ path: String, setting: String, holds labels: [String]) throws(OriginTLSError) {
        guard let file = fopen(path, "rb") else {
            throw OriginTLSError(
                setting: setting, reason: "\(path) cannot be read: \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var bytes = [UInt8](repeating: 0, count: 4 << 20)
        let count = fread(&bytes, 1, bytes.count, file)
        let text = String(decoding: bytes[..<count], as: UTF8.self)
        let found = labels.contains { label in
            text.split(separator: "\n").contains { $0.hasPrefix("-----BEGIN ") && $0.contains("\(label)-----") }
        }
        guard found else {
            let wanted = labels.map { "-----BEGIN …\($0)-----" }.joined(separator: " or ")
            throw OriginTLSError(setting: setting, reason: "\(path) holds no PEM block \(wanted)")
        }
    }
}

/// Why the origin TLS settings cannot be used.
public struct OriginTLSError: Error, Equatable, CustomStringConvertible {
    /// The setting at fault, as its flag is spelled without dashes.
    public let setting: String
    /// What is wrong.
    public let reason: String

    /// One line for the start-up failure.
    public var description: String { "--\(setting): \(reason)" }
}
