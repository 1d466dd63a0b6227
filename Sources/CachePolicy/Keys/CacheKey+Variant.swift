public import CacheCore
public import HTTPCore

extension CacheKey {
    /// The key of a request for a URL whose stored responses vary on `varyNames` (RFC 9111 §4.1): the
    /// primary key when there are none, else the secondary key of `Vary.keyPairs`.
    /// - Parameters:
    ///   - canonicalURL: the canonical URL.
    ///   - varyNames: the lower-cased names the stored response's `Vary` lists.
    ///   - requestHeaders: the request's headers.
    public static func variant(canonicalURL: String, varyNames: [String], requestHeaders: HTTPHeaders) -> CacheKey {
        guard !varyNames.isEmpty else { return CacheKey.make(canonicalURL: canonicalURL) }
        let pairs = Vary.keyPairs(names: varyNames, requestHeaders: requestHeaders)
        return CacheKey.make(canonicalURL: canonicalURL, varyingHeaders: pairs.map { ($0.name, $0.value) })
    }
}
