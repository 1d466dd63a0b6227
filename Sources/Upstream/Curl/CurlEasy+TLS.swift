import CCurl

extension CurlEasy {
    /// Applies the trust and client certificate of `tls` (https://curl.se/libcurl/c/CURLOPT_CAINFO.html,
    /// CURLOPT_CAPATH, CURLOPT_SSLCERT, CURLOPT_SSLKEY). Verification itself is set by the caller.
    /// - Parameter tls: the settings.
    func applyTLS(_ tls: OriginTLS) {
        if let caFile = tls.caFile {
            set(CURLOPT_CAINFO, caFile)
            if tls.trustsOnlyCAFile {
                // NULL removes libcurl's built-in directory: nothing but the file is trusted.
                set(CURLOPT_CAPATH, pointer: nil)
            } else if let directory = tls.systemCertificateDirectory {
                set(CURLOPT_CAPATH, directory)
            }
        }
        if let certificate = tls.clientCertificateFile {
            set(CURLOPT_SSLCERT, certificate)
            set(CURLOPT_SSLKEY, tls.clientKeyFile ?? certificate)
        }
    }
}

/// libcurl's built-in trust, as `larder settings` and the start-up log report it.
public enum CurlDefaults {
    /// The built-in CA bundle and hashed directory (CURLINFO_CAINFO, CURLINFO_CAPATH), `nil` where none.
    public static var certificateStore: (file: String?, directory: String?) {
        guard let easy = CurlEasy() else { return (nil, nil) }
        let file = easy.info(string: CURLINFO_CAINFO)
        let directory = easy.info(string: CURLINFO_CAPATH)
        return (file.isEmpty ? nil : file, directory.isEmpty ? nil : directory)
    }
}
